//! A simulation can move to another thread (bindings release the GIL around a run;
//! sweeps hand simulations to worker threads). This file fails to compile if
//! `Simulation` stops being `Send`.

use crate::util::{page, small_config, vec_sim};
use ssdlab::Simulation;
use ssdlab_trace::Op;

const fn assert_send<T: Send>() {}
const _: () = assert_send::<Simulation>();
const _: () = assert_send::<ssdlab::Report>();

#[test]
fn a_simulation_runs_on_another_thread() {
    let reqs = (0..64).map(|l| page(l * 1000, Op::Write, l)).collect();
    let sim = vec_sim(small_config(&["verify=true"]), reqs);
    let report = std::thread::spawn(move || sim.run().unwrap())
        .join()
        .unwrap();
    assert_eq!(report.requests.all, 64);
}
