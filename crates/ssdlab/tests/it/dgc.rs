//! DGC on real traces with GC active: writes redirected, GC deferred, content intact.

use crate::util::{small_config, trace_sim};

fn counter(r: &ssdlab::Report, name: &str) -> u64 {
    r.counters.get(name).copied().unwrap_or(0)
}

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
    assert!(counter(&r, "redirected-writes") > 0, "{:?}", r.counters);
    assert!(counter(&r, "deferred-gc") > 0, "{:?}", r.counters);
    assert!(r.redirected_write_ratio > 0.0);
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
        sim.audit().unwrap_or_else(|e| panic!("fail at {at}: {e}"));
        let r = sim.into_report().unwrap();
        assert_eq!(counter(&r, "unrecoverable-pages"), 0, "fail at {at}");
    }
}
