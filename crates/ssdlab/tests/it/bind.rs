//! `placement.bind = "dispatch"`: pages chosen when the die starts the program.

use crate::util::{page, small_config, trace_sim, vec_sim};
use ssdlab::SimConfig;
use ssdlab_stats::{Counter, Report};
use ssdlab_trace::Op;

const DISPATCH: &str = "placement.bind=\"dispatch\"";

/// Preconditioned (full, half overwritten), verified replay of `rel` on the small device
/// with `sets`; checks every invariant and audits every page afterwards.
fn replay(rel: &str, sets: &[&str]) -> Report {
    let mut all = vec![
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.precondition.fill_ratio=1.0",
        "ftl.precondition.overwrite_ratio=0.5",
    ];
    all.extend_from_slice(sets);
    let mut sim = trace_sim(small_config(&all), rel);
    sim.run_to_end().unwrap_or_else(|e| panic!("{sets:?}: {e}"));
    sim.check_invariants();
    sim.audit().unwrap_or_else(|e| panic!("{sets:?}: {e}"));
    sim.into_report().unwrap()
}

#[test]
fn every_scheduler_and_allocation_keeps_integrity_with_gc() {
    for extra in [
        &["scheduler.name=\"async-fifo\""][..],
        &["scheduler.name=\"sync-fifo\"", "scheduler.multi_plane=true"][..],
        &["scheduler.name=\"piq\""][..],
        &["ftl.allocation=\"dynamic\"", "scheduler.multi_plane=true"][..],
        &[
            "ftl.allocation=\"dynamic\"",
            "ftl.dynamic_policy=\"least-busy\"",
            "raid.level=0",
        ][..],
    ] {
        let mut sets = vec![DISPATCH];
        sets.extend_from_slice(extra);
        let r = replay("msr/hm_1-writes13069.csv.gz", &sets);
        let bound = r.counter(Counter::DispatchBoundWrites);
        assert!(bound > 10_000, "{extra:?}: only {bound} pages bound");
        assert!(r.gc_runs > 0, "{extra:?}: GC never ran");
        // Each written page is bound at dispatch, dropped there for a newer write, or
        // parked for space (and then programmed, or dropped while parked).
        let written = r.work.write.pages;
        let superseded = r.counter(Counter::DispatchSupersededWrites);
        let parked = r.counter(Counter::ParkedWrites);
        let programmed = r.host_pages_written;
        assert!(
            bound + superseded <= written && written <= bound + superseded + parked,
            "{extra:?}: {written} pages written, {bound} bound, {superseded} superseded, {parked} parked"
        );
        assert!(
            bound <= programmed && programmed <= bound + parked,
            "{extra:?}: {programmed} programmed, {bound} bound, {parked} parked"
        );
    }
}

#[test]
fn packing_at_dispatch_forms_more_multi_plane_programs() {
    let sets = ["scheduler.multi_plane=true", "geometry.dies_per_chip=2"];
    let admission = replay("msr/hm_1-writes13069.csv.gz", &sets);
    let mut with = sets.to_vec();
    with.push(DISPATCH);
    let dispatch = replay("msr/hm_1-writes13069.csv.gz", &with);
    let (a, d) = (
        admission.counter(Counter::MultiPlaneOps),
        dispatch.counter(Counter::MultiPlaneOps),
    );
    assert!(
        d > a,
        "multi-plane operations: {d} at dispatch, {a} at admission"
    );
    assert!(
        !admission
            .counters
            .contains_key(&Counter::DispatchBoundWrites),
        "the binding counters appear only with dispatch binding"
    );
}

/// One chip of one die with two planes: every write of the test goes to the same die.
fn one_die() -> SimConfig {
    small_config(&[
        "geometry.channels=1",
        "geometry.chips_per_channel=1",
        "verify=true",
        "scheduler.multi_plane=true",
        DISPATCH,
    ])
}

#[test]
fn a_newer_write_supersedes_a_queued_one_and_reads_see_it() {
    let reqs = vec![
        page(0, Op::Write, 5),         // binds at once: the die is busy programming
        page(1_000, Op::Write, 7),     // waits unbound
        page(2_000, Op::Write, 7),     // supersedes it
        page(3_000, Op::Read, 7),      // the controller holds the newest content
        page(10_000_000, Op::Read, 7), // long after: a flash read of the newest page
    ];
    let mut sim = vec_sim(one_die(), reqs);
    sim.run_to_end().unwrap();
    sim.check_invariants();
    assert_eq!(sim.audit().unwrap(), 2);
    let r = sim.into_report().unwrap();
    assert_eq!(r.counter(Counter::DispatchSupersededWrites), 1);
    assert_eq!(r.counter(Counter::DispatchBoundWrites), 2);
    assert_eq!(r.counter(Counter::BufferHits), 1);
    assert_eq!(r.counter(Counter::VerifiedReads), 2);
    assert_eq!(r.host_pages_written, 2);
}

#[test]
fn programs_queued_for_one_die_pack_across_its_planes() {
    // One 8-page write: its programs queue at admission and bind two at a time, one
    // per plane, at one page offset.
    let req = ssdlab_trace::IoRequest {
        size_bytes: 8 * 4096,
        ..page(0, Op::Write, 0)
    };
    // Reads one at a time afterwards, so that only the programs pack.
    let reads: Vec<_> = (0..8)
        .map(|l| page(50_000_000 + l * 1_000_000, Op::Read, l))
        .collect();
    let mut reqs = vec![req];
    reqs.extend(reads);
    let mut sim = vec_sim(one_die(), reqs);
    sim.run_to_end().unwrap();
    sim.check_invariants();
    assert_eq!(sim.audit().unwrap(), 8);
    let r = sim.into_report().unwrap();
    assert_eq!(r.counter(Counter::DispatchBoundWrites), 8);
    assert_eq!(r.counter(Counter::MultiPlaneOps), 4);
    assert_eq!(r.counter(Counter::VerifiedReads), 8);
}
