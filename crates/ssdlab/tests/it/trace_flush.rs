//! Flush commands and FUA writes read from a blkparse trace, replayed with and without a
//! DRAM stage: the trace's flushes and FUA writes reach the simulator as such.

use crate::util::{assert_counter, small_config};
use ssdlab::{Report, Simulation};
use ssdlab_stats::Counter;
use ssdlab_trace::{TraceOptions, TraceSource};
use std::path::PathBuf;

/// A journalling file system's dispatches: two data writes, a flush, a FUA commit
/// block, a data write, a preflush + FUA commit block, a read, and a flush as newer
/// kernels log it.
const JOURNAL: &str = "\
8,0 1 1 0.000000000 697 D WS 1000 + 64 [kworker]
8,0 1 2 0.000050000 697 D WS 2000 + 64 [kworker]
8,0 1 3 0.001000000 697 D FWS [jbd2/sda1-8]
8,0 1 4 0.002000000 697 D WFS 3000 + 8 [jbd2/sda1-8]
8,0 1 5 0.003000000 697 D WS 4000 + 64 [kworker]
8,0 1 6 0.004000000 697 D FWFS 5000 + 8 [jbd2/sda1-8]
8,0 1 7 0.010000000 697 D RS 1000 + 64 [java]
8,0 1 8 0.011000000 697 D FN [kworker]
";

/// The small device, filled and verified, with `sets` on top, replaying [`JOURNAL`].
fn replay(sets: &[&str]) -> Report {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-trace-flush");
    std::fs::create_dir_all(&dir).expect("the temporary directory");
    // A file per replay: tests run in parallel, and one must not truncate another's.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("journal-{}-{n}.blkparse", std::process::id()));
    std::fs::write(&path, JOURNAL).expect("the trace");
    let src = TraceSource::File {
        path,
        options: TraceOptions::default(),
    };
    let mut all = vec!["verify=true", "ftl.precondition.enabled=true"];
    all.extend_from_slice(sets);
    let stream = src.open().expect("the trace opens");
    let mut sim = Simulation::new(small_config(&all), stream, &src.describe()).unwrap();
    sim.run_to_end().expect("the run");
    sim.audit().expect("the audit");
    sim.into_report().expect("the report")
}

#[test]
fn a_blkparse_trace_s_flushes_and_fua_writes_reach_the_dram_stage() {
    let r = replay(&["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"]);
    assert_counter(&r, Counter::Flushes, 3);
    assert_counter(&r, Counter::FuaWrites, 2);
    assert_eq!((r.response.write.count, r.response.read.count), (5, 1));
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!(d.flushes, 3, "{d:?}");
    // The first flush found the 16 pages of the two writes in DRAM and waited for them.
    assert!(d.flush_wait_ns_max > 0, "{d:?}");
    assert_eq!(d.fua_pages, 2, "one page per FUA write");
    assert_eq!(d.dirty_at_end, 0, "the last flush left nothing dirty");
    assert_counter(&r, Counter::VerifiedReads, 8);
}

#[test]
fn without_a_dram_stage_the_same_trace_counts_them_as_well() {
    let r = replay(&[]);
    assert!(r.dram.is_none());
    assert_counter(&r, Counter::Flushes, 3);
    assert_counter(&r, Counter::FuaWrites, 2);
    assert_eq!(
        (r.response.write.count, r.response.read.count),
        (5, 1),
        "flushes are neither reads nor writes"
    );
    assert_counter(&r, Counter::VerifiedReads, 8);
}
