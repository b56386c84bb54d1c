//! Failure injection, degraded reads and writes, rebuild: never a wrong answer.

use crate::util::{page, small_config, trace_sim, vec_sim};
use proptest::prelude::*;
use ssdlab_stats::Counter;
use ssdlab_trace::Op;

/// A verified, audited replay of `rel` with `sets`.
fn run_checked(rel: &str, sets: &[&str]) -> ssdlab::Report {
    run_checked_n(rel, sets, None)
}

/// Like [`run_checked`], telling the simulation the trace's length (for failures given
/// as a fraction of its requests).
fn run_checked_n(rel: &str, sets: &[&str], requests: Option<u64>) -> ssdlab::Report {
    let mut all = vec!["verify=true", "ftl.precondition.enabled=true"];
    all.extend_from_slice(sets);
    replay_checked(small_config(&all), rel, requests, &format!("{sets:?}"))
}

/// Replays `rel` on `cfg` (told the trace's length when given), then checks the
/// invariants and audits every page; `what` names the run in a failure.
fn replay_checked(
    cfg: ssdlab::SimConfig,
    rel: &str,
    requests: Option<u64>,
    what: &str,
) -> ssdlab::Report {
    let mut sim = trace_sim(cfg, rel);
    if let Some(n) = requests {
        sim.set_trace_requests(n);
    }
    sim.run_to_end().unwrap_or_else(|e| panic!("{what}: {e}"));
    sim.check_invariants();
    sim.audit().unwrap_or_else(|e| panic!("{what}: {e}"));
    sim.into_report().unwrap()
}

#[test]
fn a_chip_failure_mid_run_gives_degraded_reads_and_no_mismatch() {
    let r = run_checked(
        "msr/hm_0-slice7016.csv.gz",
        &[
            "raid.level=5",
            "raid.group_size=4",
            "raid.layout=lci",
            "raid.fail=[\"chip:1@20s\"]",
        ],
    );
    assert_eq!(r.counter(Counter::Failures), 1);
    assert!(r.counter(Counter::DegradedReads) > 0, "{:?}", r.counters);
    assert!(r.counter(Counter::DegradedWrites) > 0, "{:?}", r.counters);
    assert_eq!(r.counter(Counter::UnrecoverableReads), 0);
    assert_eq!(r.counter(Counter::UnrecoverablePages), 0);
}

#[test]
fn a_spare_chip_is_rebuilt_in_the_background() {
    // 8 chips: 7 members + 1 spare; RAID-5 needs members divisible by the group.
    let r = run_checked(
        "msr/hm_0-slice7016.csv.gz",
        &[
            "raid.level=5",
            "raid.group_size=7",
            "raid.spare_chips=1",
            "raid.rebuild_rate_mib_s=400",
            "raid.fail=[\"chip:2@10s\"]",
        ],
    );
    assert!(r.counter(Counter::RebuiltPages) > 0, "{:?}", r.counters);
    assert_eq!(
        r.counter(Counter::RebuildRowsDone),
        r.counter(Counter::RebuildRowsTotal)
    );
    assert!(r.counter(Counter::RebuildTimeNs) > 0);
    assert_eq!(r.counter(Counter::UnrecoverablePages), 0);
    let rebuild = r
        .transactions
        .iter()
        .find(|t| t.reason.name() == "rebuild")
        .expect("rebuild traffic");
    assert!(rebuild.count > 0);
}

#[test]
fn a_second_failure_in_a_group_is_data_loss_not_a_wrong_answer() {
    // Adjacent groups of 4: chips 0 and 1 are in the same group.
    let r = run_checked(
        "msr/hm_0-slice7016.csv.gz",
        &[
            "raid.level=5",
            "raid.group_size=4",
            "raid.fail=[\"chip:0@5s\", \"chip:1@6s\"]",
        ],
    );
    assert_eq!(r.counter(Counter::Failures), 2);
    assert!(
        r.counter(Counter::UnrecoverablePages) > 0,
        "{:?}",
        r.counters
    );
}

#[test]
fn channel_raid_survives_a_channel_failure() {
    let r = run_checked_n(
        "spc-derived/financial1-50k.disksim.gz",
        &[
            "raid.level=5",
            "raid.domain=channel",
            "raid.group_size=4",
            "raid.fail=[\"channel:3@0.3\"]",
        ],
        Some(50_000),
    );
    assert_eq!(r.counter(Counter::Failures), 1);
    assert!(r.counter(Counter::DegradedReads) > 0);
    assert_eq!(r.counter(Counter::UnrecoverablePages), 0);
}

#[test]
fn raid1_reads_the_surviving_copy() {
    let r = run_checked(
        "msr/hm_0-slice7016.csv.gz",
        &[
            "raid.level=1",
            "raid.group_size=2",
            "raid.fail=[\"chip:0@1s\"]",
        ],
    );
    assert!(r.counter(Counter::DegradedReads) > 0);
    assert_eq!(r.counter(Counter::UnrecoverableReads), 0);
}

#[test]
fn without_redundancy_a_failure_loses_pages_and_says_so() {
    let r = run_checked("msr/hm_0-slice7016.csv.gz", &["raid.fail=[\"chip:0@1s\"]"]);
    assert!(r.counter(Counter::UnrecoverableReads) > 0);
    assert!(r.counter(Counter::UnrecoverablePages) > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random writes, overwrites and reads with GC and one chip failure per group:
    /// every read verifies, every LPN reconstructs to its last-written content, every
    /// parity equals the XOR of its stripe.
    #[test]
    fn one_failure_per_group_never_loses_or_corrupts(
        ops in proptest::collection::vec((any::<bool>(), 0u64..600), 200..600),
        fail_at in 0usize..200,
        chips in (0u32..4, 4u32..8),
    ) {
        let reqs: Vec<_> = ops
            .iter()
            .enumerate()
            .map(|(i, &(w, lpn))| page(i as u64 * 20_000, if w { Op::Write } else { Op::Read }, lpn))
            .collect();
        let fail = format!(
            "raid.fail=[\"chip:{}@{}us\", \"chip:{}@{}us\"]",
            chips.0, fail_at * 20, chips.1, fail_at * 20 + 7
        );
        let cfg = small_config(&[
            "verify=true",
            "raid.level=5",
            "raid.group_size=4",
            "geometry.blocks_per_plane=16",
            "ftl.over_provisioning=0.3",
            "ftl.gc.threshold_free_ratio=0.2",
            "ftl.gc.background_free_ratio=0.25",
            "ftl.precondition.enabled=true",
            &fail,
        ]);
        let mut sim = vec_sim(cfg, reqs);
        sim.run_to_end().unwrap();
        sim.check_invariants();
        sim.audit().unwrap();
        let r = sim.into_report().unwrap();
        prop_assert_eq!(r.counter(Counter::UnrecoverableReads), 0);
        prop_assert!(r.gc_runs > 0, "GC never ran");
        prop_assert!(r.counter(Counter::DegradedReads) + r.counter(Counter::DegradedWrites) > 0);
    }
}

/// A verified, audited replay of `rel` on preset `preset` with `sets`; the failure is
/// given as a fraction of the trace, whose length is `requests`.
fn run_preset_checked(preset: &str, rel: &str, sets: &[&str], requests: u64) -> ssdlab::Report {
    let mut b = ssdlab::ConfigBuilder::new()
        .preset(preset)
        .unwrap()
        .set("verify=true")
        .unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    let what = format!("{preset} {sets:?}");
    replay_checked(b.build().unwrap(), rel, Some(requests), &what)
}

/// Channel RAID with the dynamic in-channel chip choice once chose a dead chip (it has
/// no outstanding work, so it looked the least loaded): the page was recorded on the
/// dead chip while the stripe's parity was computed as if it were readable, and the
/// audit found parity ≠ XOR of data. SDA never chooses a dead chip. The presets are
/// CR5M; CR4, CR1 and CR5 without mirror chips are one override away.
#[test]
fn channel_raid_with_dynamic_chip_choice_survives_a_chip_failure() {
    for (preset, level, mirror) in [
        ("cr5m-ssd2", "5", "true"),
        ("cr5m-ssd1", "5", "false"),
        ("cr5m-ssd1", "4", "false"),
        ("cr5m-ssd1", "1", "false"),
    ] {
        let r = run_preset_checked(
            preset,
            "msr/hm_0-slice7016.csv.gz",
            &[
                &format!("raid.level={level}"),
                &format!("raid.mirror_chips={mirror}"),
                "raid.fail=[\"chip:3@0.25\"]",
            ],
            7015,
        );
        assert_eq!(r.counter(Counter::Failures), 1, "{preset} level {level}");
        assert!(
            r.counter(Counter::VerifiedReads) > 0,
            "{preset} level {level}"
        );
        // Chip 3 shares its channel with live chips: no write needs to be degraded.
        assert_eq!(
            r.counter(Counter::DegradedWrites),
            0,
            "{preset} level {level}: {:?}",
            r.counters
        );
        assert_eq!(
            r.counter(Counter::UnrecoverableReads),
            0,
            "{preset} level {level}"
        );
    }
}
