//! The tenants' share of the cached mapping table (`ftl.cmt.sharing`, docs/FTL.md §12):
//! the two MQSim sample traces together with a shared and an equally partitioned CMT,
//! verified and audited; each partition never holds more than its share.

use crate::util::{churn, sample_stream, small_config};
use ssdlab::{Report, SimConfig, Simulation, VecStream};
use ssdlab_trace::RequestStream;

/// The small device, verified, with the cached map of `entries` entries shared as
/// `sharing`, and tenants `a` and `b` (`b` at `b_scale` of its trace's times).
fn config(entries: u32, sharing: &str, b_scale: f64) -> SimConfig {
    let mut cfg = small_config(&[
        "verify=true",
        "ftl.mapping=\"cached\"",
        &format!("ftl.cmt.entries={entries}"),
        &format!("ftl.cmt.sharing=\"{sharing}\""),
    ]);
    let text = format!(
        "[[host.tenant]]\nname = \"a\"\ntrace = \"a\"\n\
         [[host.tenant]]\nname = \"b\"\ntrace = \"b\"\ntime_scale = {b_scale}\n"
    );
    cfg = crate::util::with_host(cfg, &text);
    cfg.validate().unwrap();
    cfg
}

/// Runs `streams` as the tenants of `cfg`, audited (verify mode checks every read and
/// the translation pages).
fn run(cfg: SimConfig, streams: Vec<Box<dyn RequestStream>>) -> Report {
    let mut sim = Simulation::new(cfg, Box::new(VecStream::new(Vec::new())), "a + b").unwrap();
    sim.set_tenants(streams).unwrap();
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

fn samples(sharing: &str) -> Report {
    run(
        config(512, sharing, 0.01),
        vec![
            sample_stream("mqsim/tpcc-small.mqsim.gz"),
            sample_stream("mqsim/wsrch-small.mqsim.gz"),
        ],
    )
}

/// The per-tenant CMT counts add up to the table's, each tenant's share is as the mode
/// says, and (partitioned) the most entries a partition held is at most its share.
fn check_shares(r: &Report, shared: bool, entries: u64) {
    let m = r.mapping.as_ref().expect("the mapping section");
    let t = r.tenants.as_ref().expect("the tenants section");
    let want = if shared { "shared" } else { "equal" };
    assert_eq!(t.cmt_sharing.as_deref(), Some(want));
    let cmt: Vec<_> = t.tenants.iter().map(|x| x.cmt.clone().unwrap()).collect();
    assert_eq!(cmt.iter().map(|c| c.lookups).sum::<u64>(), m.lookups);
    assert_eq!(cmt.iter().map(|c| c.hits).sum::<u64>(), m.hits);
    for c in &cmt {
        assert!(c.lookups > 0 && c.hit_ratio <= 1.0);
        if shared {
            assert_eq!((c.entries, c.peak_entries), (entries, None));
        } else {
            assert_eq!(c.entries, entries / 2);
            let peak = c.peak_entries.expect("a partition's peak");
            assert!(
                peak <= c.entries,
                "peak {peak} over the share {}",
                c.entries
            );
            assert_eq!(peak, c.entries, "a small table fills its partitions");
        }
    }
    assert_eq!(m.cmt_entries, entries);
}

#[test]
fn the_sample_traces_run_verified_with_a_shared_and_a_partitioned_table() {
    for (sharing, shared) in [("shared", true), ("equal", false)] {
        let r = samples(sharing);
        check_shares(&r, shared, 512);
        let t = r.tenants.as_ref().unwrap();
        assert_eq!((t.tenants[0].reads, t.tenants[0].writes), (4381, 2618));
        assert_eq!((t.tenants[1].reads, t.tenants[1].writes), (24779, 4));
        assert!(r.counter(ssdlab_stats::Counter::VerifiedReads) > 0);
        let m = r.mapping.as_ref().unwrap();
        assert!(m.translation_writes > 0 && m.miss_reads > 0, "{sharing}");
    }
}

#[test]
fn a_partitioned_run_is_deterministic_and_differs_from_a_shared_one() {
    let a = samples("equal");
    let b = samples("equal");
    assert_eq!(a.to_json(), b.to_json(), "a run is deterministic");
    let s = samples("shared");
    assert_ne!(
        a.mapping.as_ref().unwrap().hits,
        s.mapping.as_ref().unwrap().hits,
        "the partitions change what the table keeps"
    );
}

/// GC moves pages of both tenants (their entries turn dirty in their own partitions)
/// and translation pages: verify and the audit stay clean, the partitions in bounds.
#[test]
fn partitions_stay_within_their_share_through_gc() {
    let cfg = config(300, "equal", 1.0);
    let share = u64::from(cfg.ftl.logical_pages(&cfg.geometry)) / 2;
    let r = run(
        cfg,
        vec![
            Box::new(VecStream::new(churn(30_000, share, 1))),
            Box::new(VecStream::new(churn(30_000, share, 2))),
        ],
    );
    assert!(r.gc_pages_moved > 0, "GC ran: {}", r.gc_runs);
    check_shares(&r, false, 300);
}
