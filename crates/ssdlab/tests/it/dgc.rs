//! DGC on real traces with GC active: writes redirected, GC deferred, content intact.

use crate::util::{small_config, trace_sim};
use ssdlab_stats::Counter;

#[test]
fn dgc_redirects_and_defers_gc_without_a_mismatch() {
    let cfg = small_config(&[
        "verify=true",
        "ftl.precondition.enabled=true",
        "raid.level=5",
        "raid.group_size=4",
        "dgc.enabled=true",
    ]);
    let mut sim = trace_sim(cfg, "msr/hm_1-writes13069.csv.gz");
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    let r = sim.into_report().unwrap();
    assert!(r.gc_runs > 0);
    assert!(r.counter(Counter::RedirectedWrites) > 0, "{:?}", r.counters);
    assert!(r.counter(Counter::DeferredGc) > 0, "{:?}", r.counters);
    assert!(r.redirected_write_ratio > 0.0);
}

#[test]
fn dgc_redirects_parity_programs_when_asked_under_the_lazy_trigger() {
    let run = |parity: bool| {
        let cfg = small_config(&[
            "verify=true",
            "ftl.precondition.enabled=true",
            "ftl.gc.trigger=\"lazy\"",
            "raid.level=5",
            "raid.group_size=4",
            "dgc.enabled=true",
            &format!("dgc.redirect_parity={parity}"),
        ]);
        let mut sim = trace_sim(cfg, "msr/hm_1-writes13069.csv.gz");
        sim.run_to_end().unwrap();
        sim.check_invariants();
        sim.audit().unwrap();
        sim.into_report().unwrap()
    };
    let (plain, with) = (run(false), run(true));
    assert_eq!(plain.counter(Counter::DgcRedirectedParity), 0);
    assert!(
        with.counter(Counter::DgcRedirectedParity) > 0,
        "{:?}",
        with.counters
    );
    // Parity programs no longer start foreground GC as often.
    let parity_starts = |r: &ssdlab::Report| r.counter(Counter::GcStartsParity);
    assert!(
        parity_starts(&with) < parity_starts(&plain),
        "{} vs {}",
        parity_starts(&with),
        parity_starts(&plain)
    );
}

#[test]
fn dgc_needs_chip_level_parity() {
    let err = ssdlab::ConfigBuilder::new()
        .set("dgc.enabled=true")
        .unwrap()
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("dgc.enabled"), "{err}");
}

#[test]
fn dgc_with_a_chip_failure_never_answers_wrong() {
    for at in ["0.1", "0.5"] {
        let cfg = small_config(&[
            "verify=true",
            "ftl.precondition.enabled=true",
            "raid.level=5",
            "raid.group_size=4",
            "dgc.enabled=true",
            &format!("raid.fail=[\"chip:5@{at}\"]"),
        ]);
        let mut sim = trace_sim(cfg, "msr/hm_1-writes13069.csv.gz");
        sim.set_trace_requests(13_069);
        sim.run_to_end()
            .unwrap_or_else(|e| panic!("fail at {at}: {e}"));
        sim.check_invariants();
        sim.audit().unwrap_or_else(|e| panic!("fail at {at}: {e}"));
        let r = sim.into_report().unwrap();
        assert_eq!(r.counter(Counter::UnrecoverablePages), 0, "fail at {at}");
    }
}

#[test]
fn dgc_cuts_the_time_writes_spend_behind_gc() {
    let run = |dgc: bool| {
        let cfg = small_config(&[
            "ftl.precondition.enabled=true",
            "ftl.precondition.overwrite_ratio=0.5",
            "raid.level=5",
            "raid.group_size=4",
            &format!("dgc.enabled={dgc}"),
        ]);
        let mut sim = trace_sim(cfg, "msr/hm_1-writes13069.csv.gz");
        sim.run_to_end().unwrap();
        sim.into_report().unwrap()
    };
    let (plain, dgc) = (run(false), run(true));
    let gc_wait = |r: &ssdlab::Report| r.breakdown.all.gc_wait_ns_mean;
    assert!(gc_wait(&plain) > 0.0);
    assert!(
        gc_wait(&dgc) < gc_wait(&plain),
        "T_GC {} with DGC vs {} without",
        gc_wait(&dgc),
        gc_wait(&plain)
    );
    assert!(dgc.counter(Counter::DeferredGc) > 0, "{:?}", dgc.counters);
}

#[test]
fn dgc_keys_are_checked() {
    let build = |set: &str| match ssdlab::ConfigBuilder::new().set(set) {
        Err(e) => e.to_string(),
        Ok(b) => b.build().unwrap_err().to_string(),
    };
    let e = build("dgc.idle_gc_blocks=0");
    assert!(e.contains("dgc.idle_gc_blocks"), "{e}");
    let e = build("dgc.arrival_estimate=\"tomorrow\"");
    assert!(e.contains("dgc.arrival_estimate"), "{e}");
}
