//! DS-FTL with the cached map (docs/FTL.md §12, "With DS-FTL"): a FIU trace with real
//! duplicate content, a table much smaller than the map, every read verified and the
//! map audited (LPN entries and group records against their translation pages).

use crate::util::{small_config, trace_sim};
use ssdlab_stats::{Counter, Report};

fn run(sets: &[&str]) -> Report {
    let base = [
        "verify=true",
        "ftl.allocation=\"content-aware\"",
        "ftl.precondition.enabled=true",
    ];
    let all: Vec<&str> = base.iter().chain(sets).copied().collect();
    let mut sim = trace_sim(small_config(&all), "fiu/mail-cheetah-10k.fiu.gz");
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

#[test]
fn a_fiu_trace_with_duplicates_verifies_with_a_small_cached_map() {
    let ideal = run(&[]);
    let cached = run(&[
        "ftl.mapping=\"cached\"",
        "ftl.cmt.entries=512",
        "ftl.cmt.entries_per_tpage=128",
    ]);
    assert!(ideal.mapping.is_none());
    let m = cached.mapping.expect("a mapping section");
    let g = m.groups.expect("group records with multi-path reads");
    assert_eq!(g.record_entries, 8, "one entry per chip");
    assert_eq!(g.records_per_tpage, 16);
    assert!(g.lookups > 0 && g.miss_reads > 0, "{g:?}");
    assert!(g.written_records > 0, "{g:?}");
    assert!(m.miss_reads > 0 && m.translation_writes > 0, "{m:?}");
    for r in [&ideal, &cached] {
        assert!(r.counter(Counter::VerifiedReads) > 0);
        assert!(r.counter(Counter::DuplicateWrites) > 0);
        assert!(r.counter(Counter::DuplicateReads) > 0);
    }
    // The same host pages were written: the cached map adds its own programs only.
    assert_eq!(
        ideal.counter(Counter::DuplicateWrites),
        cached.counter(Counter::DuplicateWrites)
    );
}
