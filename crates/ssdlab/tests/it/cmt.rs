//! The cached map (docs/FTL.md §12) beside RAID-5 and failure injection: a real trace,
//! verified and audited, with a CMT much smaller than the working set.

use crate::util::{small_config, trace_sim};
use ssdlab_stats::Counter;

#[test]
fn raid5_with_a_small_cached_map_survives_a_chip_failure_and_its_rebuild() {
    // 8 chips: 7 members + 1 spare; 512 cached entries of about 24 000 host pages.
    let cfg = small_config(&[
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.mapping=\"cached\"",
        "ftl.cmt.entries=512",
        "ftl.cmt.entries_per_tpage=128",
        "raid.level=5",
        "raid.group_size=7",
        "raid.spare_chips=1",
        "raid.rebuild_rate_mib_s=400",
        "raid.fail=[\"chip:2@10s\"]",
    ]);
    let mut sim = trace_sim(cfg, "msr/hm_0-slice7016.csv.gz");
    sim.run_to_end().unwrap();
    sim.check_invariants();
    // Host pages, stripes, translation pages, and the map against them.
    sim.audit().unwrap();
    let r = sim.into_report().unwrap();
    let m = r.mapping.expect("a mapping section");
    assert!(m.miss_reads > 0 && m.translation_writes > 0, "{m:?}");
    assert!(m.hit_ratio < 0.99, "{m:?}");
    assert_eq!(r.counter(Counter::Failures), 1);
    assert!(r.counter(Counter::RebuiltPages) > 0, "{:?}", r.counters);
    assert_eq!(r.counter(Counter::UnrecoverableReads), 0);
    assert_eq!(r.counter(Counter::UnrecoverablePages), 0);
    assert!(r.counter(Counter::VerifiedReads) > 1_000);
}

#[test]
fn dgc_with_a_small_cached_map_redirects_writes_and_keeps_the_map() {
    // DGC changes where a write's page goes, through the host write path: its entry is
    // dirtied there like any write's.
    let cfg = small_config(&[
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.mapping=\"cached\"",
        "ftl.cmt.entries=512",
        "ftl.cmt.entries_per_tpage=128",
        "raid.level=5",
        "raid.group_size=4",
        "dgc.enabled=true",
    ]);
    let mut sim = trace_sim(cfg, "msr/hm_1-writes13069.csv.gz");
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    let r = sim.into_report().unwrap();
    assert!(r.counter(Counter::RedirectedWrites) > 0, "{:?}", r.counters);
    assert!(r.counter(Counter::DeferredGc) > 0, "{:?}", r.counters);
    let m = r.mapping.expect("a mapping section");
    assert!(
        m.translation_writes > 0 && m.translation_pages_moved > 0,
        "{m:?}"
    );
}
