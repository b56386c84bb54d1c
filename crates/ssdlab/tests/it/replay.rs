//! Real-trace replays with GC active, checked for integrity afterwards.

use crate::util::{small_config, trace_sim};
use ssdlab_stats::Counter;

/// Preconditioned, verified replay of `rel`; returns the report's GC runs.
fn replay_checked(rel: &str, extra: &[&str]) -> u64 {
    let mut sets = vec![
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.precondition.fill_ratio=1.0",
        "ftl.precondition.overwrite_ratio=0.5",
    ];
    sets.extend_from_slice(extra);
    let mut sim = trace_sim(small_config(&sets), rel);
    sim.run_to_end().unwrap_or_else(|e| panic!("{rel}: {e}"));
    sim.check_invariants();
    let checked = sim.audit().unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert!(checked > 10_000, "{rel}: only {checked} pages audited");
    let report = sim.into_report().unwrap();
    assert!(report.requests.all > 0);
    if report.gc_runs > 0 {
        let b = &report.breakdown.all;
        assert!(
            b.gc_wait_ns_mean > 0.0,
            "{rel}: GC ran but no request waited behind it"
        );
        assert!(
            b.gc_wait_ns_mean <= report.waiting.all.mean_ns + 1e-6,
            "{rel}: T_GC > T_wait"
        );
    }
    if report.requests.read > 0 {
        assert!(
            report.counter(Counter::VerifiedReads) > 0,
            "{rel}: no read was verified"
        );
    }
    report.gc_runs
}

#[test]
fn msr_hm0_slice_replays_with_gc_and_verifies() {
    let gc = replay_checked("msr/hm_0-slice7016.csv.gz", &[]);
    assert!(gc > 0, "GC never ran");
}

#[test]
fn spc_financial1_replays_with_gc_and_verifies() {
    let gc = replay_checked("spc-derived/financial1-50k.disksim.gz", &[]);
    assert!(gc > 0, "GC never ran");
}

#[test]
fn fiu_mail_replays_with_content_and_verifies() {
    replay_checked("fiu/mail-cheetah-10k.fiu.gz", &[]);
}

#[test]
fn dynamic_allocation_and_cost_benefit_gc_keep_integrity() {
    let gc = replay_checked(
        "msr/hm_1-writes13069.csv.gz",
        &[
            "ftl.allocation=dynamic",
            "ftl.dynamic_policy=least-busy",
            "ftl.gc.victim=cost-benefit",
        ],
    );
    assert!(gc > 0);
}

#[test]
fn background_gc_runs_when_dies_idle() {
    let mut sim = trace_sim(
        small_config(&[
            "verify=true",
            "ftl.precondition.enabled=true",
            "ftl.gc.background=true",
            "ftl.gc.background_free_ratio=0.3",
        ]),
        "msr/wdev_1.csv.gz",
    );
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    let r = sim.into_report().unwrap();
    assert!(r.counter(Counter::BackgroundGcRuns) > 0, "{:?}", r.counters);
}

#[test]
fn same_config_trace_and_seed_give_identical_json() {
    let run = || {
        let cfg = small_config(&["ftl.precondition.enabled=true", "seed=42"]);
        trace_sim(cfg, "msr/hm_0-slice7016.csv.gz")
            .run()
            .unwrap()
            .to_json()
    };
    let a = run();
    let b = run();
    assert_eq!(a, b);
    let other = trace_sim(
        small_config(&["ftl.precondition.enabled=true", "seed=43"]),
        "msr/hm_0-slice7016.csv.gz",
    )
    .run()
    .unwrap()
    .to_json();
    assert_ne!(
        a, other,
        "the seed must matter when preconditioning draws random overwrites"
    );
}

#[test]
fn two_interleaved_simulations_match_separate_runs() {
    let cfg = || small_config(&["ftl.precondition.enabled=true"]);
    let alone_a = trace_sim(cfg(), "msr/wdev_3.csv.gz")
        .run()
        .unwrap()
        .to_json();
    let alone_b = trace_sim(cfg(), "mqsim/tpcc-small.mqsim.gz")
        .run()
        .unwrap()
        .to_json();
    let mut a = trace_sim(cfg(), "msr/wdev_3.csv.gz");
    let mut b = trace_sim(cfg(), "mqsim/tpcc-small.mqsim.gz");
    let (mut more_a, mut more_b) = (true, true);
    while more_a || more_b {
        if more_a {
            more_a = a.step().unwrap();
        }
        if more_b {
            more_b = b.step().unwrap();
        }
    }
    assert_eq!(a.into_report().unwrap().to_json(), alone_a);
    assert_eq!(b.into_report().unwrap().to_json(), alone_b);
}

#[test]
fn sync_fifo_waits_longer_than_async_fifo_on_a_real_trace() {
    let mean = |s: &str| {
        let cfg = small_config(&[&format!("scheduler.name={s}")]);
        trace_sim(cfg, "msr/hm_0-slice7016.csv.gz")
            .run()
            .unwrap()
            .response
            .all
            .mean_ns
    };
    let sync = mean("sync-fifo");
    let asyn = mean("async-fifo");
    assert!(sync >= asyn, "sync {sync} < async {asyn}");
}
