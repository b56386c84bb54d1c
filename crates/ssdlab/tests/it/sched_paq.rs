//! VAQ and PAQ (`paq0`, `paq1`, `paq2`) on real traces: verified data, GC running,
//! every invariant and page checked afterwards, and reports identical run to run.

use crate::util::{small_config, trace_sim};
use ssdlab_stats::{Counter, Report};

const SCHEDULERS: [&str; 4] = ["vaq", "paq0", "paq1", "paq2"];

/// Preconditioned (full, half overwritten), verified replay of `rel` on the small
/// device under `scheduler` with `sets`; checks every invariant and audits every page.
fn replay(rel: &str, scheduler: &str, sets: &[&str]) -> Report {
    let name = format!("scheduler.name=\"{scheduler}\"");
    let mut all = vec![
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.precondition.fill_ratio=1.0",
        "ftl.precondition.overwrite_ratio=0.5",
        "host.mode=\"closed\"",
        "host.queue_depth=32",
        &name,
    ];
    all.extend_from_slice(sets);
    let mut sim = trace_sim(small_config(&all), rel);
    sim.run_to_end()
        .unwrap_or_else(|e| panic!("{scheduler} {sets:?}: {e}"));
    sim.check_invariants();
    sim.audit()
        .unwrap_or_else(|e| panic!("{scheduler} {sets:?}: {e}"));
    sim.into_report().unwrap()
}

#[test]
fn every_paq_scheduler_verifies_with_gc_on_a_mixed_trace() {
    for scheduler in SCHEDULERS {
        let r = replay("msr/hm_0-slice7016.csv.gz", scheduler, &[]);
        assert!(r.gc_runs > 0, "{scheduler}: GC never ran");
        assert!(
            r.counter(Counter::VerifiedReads) > 0,
            "{scheduler}: no read verified"
        );
    }
}

#[test]
fn paq_options_verify_with_gc_and_dispatch_binding() {
    for (scheduler, sets) in [
        ("vaq", &["scheduler.vaq.block_on=\"chip\""][..]),
        ("vaq", &["scheduler.vaq.adjacent_multi_plane=false"][..]),
        ("paq0", &["scheduler.paq.write_path=\"fifo\""][..]),
        (
            "paq1",
            &[
                "scheduler.paq.chip_slots=1",
                "scheduler.paq.order=\"oldest-first\"",
            ][..],
        ),
        (
            "paq2",
            &[
                "scheduler.paq.read_first=true",
                "scheduler.paq.pack_writes=true",
                "scheduler.paq.starvation_limit=4",
            ][..],
        ),
        (
            "paq2",
            &[
                "placement.bind=\"dispatch\"",
                "scheduler.multi_plane=true",
                "scheduler.paq.pack_writes=true",
            ][..],
        ),
        ("vaq", &["placement.bind=\"dispatch\""][..]),
    ] {
        let r = replay("msr/hm_1-writes13069.csv.gz", scheduler, sets);
        assert!(r.gc_runs > 0, "{scheduler} {sets:?}: GC never ran");
        assert!(r.host_pages_written > 10_000, "{scheduler} {sets:?}");
    }
}

#[test]
fn paq_runs_are_deterministic() {
    for scheduler in SCHEDULERS {
        let a = replay("msr/hm_0-slice7016.csv.gz", scheduler, &[]).to_json();
        let b = replay("msr/hm_0-slice7016.csv.gz", scheduler, &[]).to_json();
        assert_eq!(a, b, "{scheduler}");
        assert!(a.contains(&format!("\"{scheduler}\"")), "{scheduler}");
    }
}

/// Financial1 on a device of two dies per chip: PAQ2 packs reads VAQ cannot and
/// finishes sooner; every scheduler verifies.
#[test]
fn paq2_beats_vaq_on_financial1_with_two_dies_per_chip() {
    let mut reports = Vec::new();
    for scheduler in SCHEDULERS {
        let r = replay(
            "spc-derived/financial1-50k.disksim.gz",
            scheduler,
            &["geometry.dies_per_chip=2", "geometry.chips_per_channel=1"],
        );
        assert!(r.gc_runs > 0, "{scheduler}: GC never ran");
        reports.push(r);
    }
    let (vaq, paq0, paq2) = (&reports[0], &reports[1], &reports[3]);
    assert!(
        paq2.iops > vaq.iops,
        "paq2 {} vs vaq {}",
        paq2.iops,
        vaq.iops
    );
    let mp = |r: &Report| r.counter(Counter::MultiPlaneOps);
    assert!(mp(paq0) > mp(vaq), "paq0 {} vs vaq {}", mp(paq0), mp(vaq));
}
