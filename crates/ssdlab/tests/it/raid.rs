//! RAID on real traces: every configuration verified on content, redundancy audited.

use crate::util::{page, small_config, trace_sim, vec_sim};
use ssdlab::SimError;
use ssdlab_stats::Counter;
use ssdlab_trace::Op;

/// Preconditioned, verified replay of `rel` with `sets`; returns the report.
fn raid_replay(rel: &str, sets: &[&str]) -> ssdlab::Report {
    let mut all = vec!["verify=true", "ftl.precondition.enabled=true"];
    all.extend_from_slice(sets);
    let mut sim = trace_sim(small_config(&all), rel);
    sim.run_to_end()
        .unwrap_or_else(|e| panic!("{rel} {sets:?}: {e}"));
    sim.check_invariants();
    sim.audit()
        .unwrap_or_else(|e| panic!("{rel} {sets:?}: {e}"));
    sim.into_report().unwrap()
}

#[test]
fn chip_raid5_adjacent_and_lci_verify_on_a_real_trace() {
    for layout in ["adjacent", "lci"] {
        let r = raid_replay(
            "msr/hm_0-slice7016.csv.gz",
            &[
                "raid.level=5",
                "raid.group_size=4",
                &format!("raid.layout={layout}"),
            ],
        );
        assert!(r.counter(Counter::VerifiedReads) > 0, "{layout}");
        assert!(
            r.counter(Counter::RaidRmw) + r.counter(Counter::RaidRcw) > 0,
            "{layout}: no parity update"
        );
        assert!(r.counter(Counter::RaidParityWrites) > 0, "{layout}");
        assert!(r.pre_reads_per_write > 0.0, "{layout}");
        assert!(r.gc_runs > 0, "{layout}: GC never ran");
    }
}

#[test]
fn every_read_reconstructed_still_verifies() {
    let r = raid_replay(
        "msr/hm_0-slice7016.csv.gz",
        &[
            "raid.level=5",
            "raid.group_size=4",
            "raid.layout=lci",
            "raid.force_reconstruct_reads=true",
        ],
    );
    assert!(
        r.counter(Counter::RaidReconstructions) > 1000,
        "{:?}",
        r.counters
    );
    assert_eq!(
        r.counter(Counter::RaidReconstructReads),
        3 * r.counter(Counter::RaidReconstructions)
    );
}

#[test]
fn channel_raid_cr1_cr4_cr5_verify_on_a_real_trace() {
    for (name, sets) in [
        (
            "cr1",
            vec!["raid.level=1", "raid.domain=channel", "raid.group_size=4"],
        ),
        (
            "cr4",
            vec!["raid.level=4", "raid.domain=channel", "raid.group_size=4"],
        ),
        (
            "cr5",
            vec![
                "raid.level=5",
                "raid.domain=channel",
                "raid.group_size=4",
                "raid.chip_in_channel=dynamic",
                "raid.update=rcw",
                "raid.buffer_new_writes=false",
            ],
        ),
    ] {
        let r = raid_replay("spc-derived/financial1-50k.disksim.gz", &sets);
        assert!(r.counter(Counter::VerifiedReads) > 0, "{name}");
        if name == "cr1" {
            assert!(r.counter(Counter::MirrorWrites) > 0, "{name}");
        } else {
            assert!(r.counter(Counter::RaidParityWrites) > 0, "{name}");
        }
    }
}

#[test]
fn sequential_new_writes_fill_whole_groups_without_pre_reads() {
    // 4 chips per group, 3 data pages per stripe: 24 sequential new pages fill stripes.
    let reqs: Vec<_> = (0..24).map(|i| page(i * 1_000, Op::Write, i)).collect();
    let r = vec_sim(
        small_config(&["raid.level=5", "raid.group_size=4", "verify=true"]),
        reqs,
    )
    .run()
    .unwrap();
    assert_eq!(r.counter(Counter::RaidPreReads), 0, "{:?}", r.counters);
    assert!(r.counter(Counter::RaidFullGroup) > 0, "{:?}", r.counters);
}

#[test]
fn a_deliberately_broken_parity_is_caught_by_verify() {
    let cfg = small_config(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.force_reconstruct_reads=true",
        "verify=true",
    ]);
    // Write LPN 0 and its stripe, let it settle, break the parity, read LPN 0.
    let mut reqs: Vec<_> = (0..6).map(|i| page(i * 1_000, Op::Write, i)).collect();
    reqs.push(page(50_000_000, Op::Read, 0));
    let mut sim = vec_sim(cfg.clone(), reqs.clone());
    while sim.now().as_ns() < 10_000_000 {
        assert!(sim.step().unwrap());
    }
    assert!(sim.corrupt_parity_for_test(0));
    match sim.run_to_end() {
        Err(SimError::VerifyMismatch { lpn: 0, .. }) => {}
        other => panic!("expected a mismatch on LPN 0, got {other:?}"),
    }
    // The same run without the corruption verifies.
    vec_sim(cfg, reqs).run().unwrap();
}
