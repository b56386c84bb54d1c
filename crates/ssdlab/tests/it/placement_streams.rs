//! Placement identifiers named by the workload (docs/HOST.md §5, `host.placement_from =
//! "workload"`): a real trace's stream field and a synthetic placement rule pick each
//! write's handle; verified replays, per-handle counts and the refusals.

use crate::util::{sample_trace, small_config};
use ssdlab::sim::workload_streams;
use ssdlab::{Report, SimConfig, Simulation};
use ssdlab_trace::{PlacementRule, SyntheticConfig, TraceOptions, TraceSource};

/// The small device aged (filled, half its pages overwritten) with `sets` and every
/// read verified.
fn aged(sets: &[&str]) -> SimConfig {
    let mut all = vec![
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.precondition.overwrite_ratio=0.5",
    ];
    all.extend_from_slice(sets);
    small_config(&all)
}

/// Runs `cfg` on `src` as the command line does (the workload read for the run),
/// checks every invariant and audits every page.
fn run(cfg: SimConfig, src: &TraceSource) -> Report {
    let src = workload_streams(&cfg, src).unwrap();
    let mut sim = Simulation::on_trace(cfg, || src.open(), &src.describe()).unwrap();
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

fn tpcc(repeat: u32) -> TraceSource {
    TraceSource::File {
        path: sample_trace("mqsim/tpcc-small.mqsim.gz"),
        options: TraceOptions {
            repeat,
            ..TraceOptions::default()
        },
    }
}

/// MQSim's tpcc-small names 16 devices; with 2 handles each takes the writes of the
/// devices equal to it modulo 2, and the report names them.
#[test]
fn a_trace_field_picks_each_writes_handle() {
    let sets = [
        "host.placement_handles=2",
        "host.placement_from=\"workload\"",
    ];
    let r = run(aged(&sets), &tpcc(2));
    let p = r.placement.as_ref().expect("placement reported");
    assert_eq!(p.handles.len(), 2);
    for h in &p.handles {
        assert!(h.host_pages > 0, "handle {} took writes: {p:?}", h.handle);
        assert_eq!(
            h.streams.len(),
            8,
            "eight devices per handle: {:?}",
            h.streams
        );
        for s in &h.streams {
            let d: u32 = s.strip_prefix("device ").unwrap().parse().unwrap();
            assert_eq!(d % 2, h.handle, "{s}");
        }
    }
    assert_eq!(p.host_pages, r.host_pages_written);
    assert_eq!(p.gc_copies, r.gc_pages_moved);
    // Without the key the same run takes no stream: everything on handle 0.
    let off = run(aged(&["host.placement_handles=2"]), &tpcc(2));
    let q = off.placement.as_ref().unwrap();
    assert_eq!(q.handles[0].host_pages, q.host_pages);
    assert!(q.handles.iter().all(|h| h.streams.is_empty()));
    // The same writes (a few replace a parked write of the same page, as timing has it).
    let diff = q.host_pages.abs_diff(p.host_pages);
    assert!(
        diff * 100 < p.host_pages,
        "{} and {}",
        q.host_pages,
        p.host_pages
    );
}

/// Through the DRAM stage the destage keeps the handle of the write that dirtied the
/// page: the per-LPN handle is set when the write arrives.
#[test]
fn writes_through_the_dram_stage_keep_their_handle() {
    let sets = [
        "host.placement_handles=2",
        "host.placement_from=\"workload\"",
        "cache.mode=\"write-buffer\"",
        "cache.capacity_mib=4",
    ];
    let r = run(aged(&sets), &tpcc(1));
    let p = r.placement.as_ref().unwrap();
    assert!(p.handles.iter().all(|h| h.host_pages > 0), "{p:?}");
}

fn hot_cold(rule: bool) -> TraceSource {
    TraceSource::Synthetic(SyntheticConfig {
        requests: 40_000,
        read_ratio: 0.0,
        footprint_bytes: 96 << 20,
        duplicate_ratio: 0.0,
        size: ssdlab_trace::SizeDist::Fixed { bytes: 4096 },
        address: ssdlab_trace::AddressPattern::HotCold {
            hot_fraction: 0.125,
            hot_access: 0.5,
        },
        arrival: ssdlab_trace::Arrival::Fixed {
            interval_ns: 50_000,
        },
        placement: rule.then(|| PlacementRule::Region {
            bounds: vec![0.125],
        }),
        ..SyntheticConfig::default()
    })
}

/// A synthetic region rule: hot writes on handle 0, cold ones on handle 1; one shared
/// handle takes both. (Whether that lowers write amplification depends on the data's
/// lifetimes: docs/HOST.md §5 measures it.)
#[test]
fn a_synthetic_rule_puts_hot_and_cold_on_their_handles() {
    let two = run(
        aged(&[
            "host.placement_handles=2",
            "host.placement_from=\"workload\"",
        ]),
        &hot_cold(true),
    );
    let one = run(
        aged(&[
            "host.placement_handles=1",
            "host.placement_from=\"workload\"",
        ]),
        &hot_cold(true),
    );
    let p = two.placement.as_ref().unwrap();
    assert_eq!(p.handles[0].streams, ["stream 0"]);
    assert_eq!(p.handles[1].streams, ["stream 1"]);
    let hot = p.handles[0].host_pages as f64 / p.host_pages as f64;
    assert!((hot - 0.5).abs() < 0.02, "half the writes are hot: {hot}");
    let s = one.placement.as_ref().unwrap();
    assert_eq!(s.handles[0].streams, ["stream 0", "stream 1"]);
    assert!(s.gc_copies > 0 && p.gc_copies > 0, "GC ran");
    assert_eq!(p.host_pages, two.host_pages_written);
    assert_eq!(s.host_pages, one.host_pages_written);
}

/// Combinations that cannot work are refused by key.
#[test]
fn combinations_that_cannot_work_are_refused_by_key() {
    let no_handles = ssdlab::ConfigBuilder::new()
        .set("host.placement_from=\"workload\"")
        .unwrap()
        .build()
        .unwrap_err();
    assert!(
        no_handles.to_string().contains("host.placement_from"),
        "{no_handles}"
    );
    let tenants = ssdlab::ConfigBuilder::new()
        .text(
            "[host]\nplacement_handles = 2\nplacement_from = \"workload\"\n\
             [[host.tenant]]\ntrace = \"a\"\n",
            "t",
        )
        .unwrap()
        .build()
        .unwrap_err();
    assert!(
        tenants.to_string().contains("host.placement_from"),
        "{tenants}"
    );
    let on = aged(&[
        "host.placement_handles=2",
        "host.placement_from=\"workload\"",
    ]);
    let e = workload_streams(&on, &hot_cold(false)).unwrap_err();
    assert!(
        e.is_bad_input() && e.to_string().contains("host.placement_from"),
        "{e}"
    );
    let e = workload_streams(&aged(&["host.placement_handles=2"]), &hot_cold(true)).unwrap_err();
    assert!(
        e.is_bad_input() && e.to_string().contains("host.placement_from"),
        "{e}"
    );
    // A trace is read with its stream field only when the run takes it.
    let TraceSource::File { options, .. } = workload_streams(&on, &tpcc(1)).unwrap() else {
        unreachable!()
    };
    assert!(options.streams);
    let off = small_config(&[]);
    let TraceSource::File { options, .. } = workload_streams(&off, &tpcc(1)).unwrap() else {
        unreachable!()
    };
    assert!(!options.streams);
}
