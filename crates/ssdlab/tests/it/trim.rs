//! Trims (docs/SIMULATOR.md, "Trims"): a blkparse trace of a file system with online
//! discard writes less and moves fewer pages with its discards kept than dropped; a read
//! of a trimmed page returns what a never-written page returns, which verify checks;
//! random writes, trims and reads never lose data on any device that takes trims; the
//! devices that cannot take them say so by key.

use crate::util::{assert_counter, io, small_config, vec_sim};
use ssdlab::{Report, SimConfig, SimError, Simulation};
use ssdlab_stats::Counter;
use ssdlab_trace::{Discards, IoRequest, Op, TraceOptions, TraceSource};
use std::path::PathBuf;

/// The example trace: a file system with online discard writing about four times its
/// 96 MiB (examples/trim/README.md).
fn fs_discard() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/trim/fs-discard.blkparse.gz")
}

/// The example trace on the small device (128 MiB raw, 109 MiB logical), verified and
/// audited, its discards `discards`.
fn replay(discards: Discards) -> Report {
    let src = TraceSource::File {
        path: fs_discard(),
        options: TraceOptions {
            discards,
            ..TraceOptions::default()
        },
    };
    let cfg = small_config(&["verify=true"]);
    let mut sim = Simulation::new(cfg, src.open().unwrap(), &src.describe()).unwrap();
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

/// What the issue asks to show: the same trace with its discards kept as trims moves
/// fewer pages in GC and has a lower write amplification than with them dropped; the
/// host writes the same pages, and verify finds every read right in both.
#[test]
fn kept_discards_mean_fewer_gc_copies_and_lower_write_amplification() {
    let dropped = replay(Discards::Drop);
    let kept = replay(Discards::Trim);
    eprintln!(
        "dropped: WA {:.4}, GC moved {}, erases {}; kept: WA {:.4}, GC moved {}, erases {}",
        dropped.write_amplification,
        dropped.gc_pages_moved,
        dropped.erases,
        kept.write_amplification,
        kept.gc_pages_moved,
        kept.erases
    );
    assert_eq!(dropped.host_pages_written, kept.host_pages_written);
    assert!(
        kept.gc_pages_moved * 5 < dropped.gc_pages_moved,
        "GC moved {} with trims, {} without",
        kept.gc_pages_moved,
        dropped.gc_pages_moved
    );
    assert!(kept.write_amplification < dropped.write_amplification - 0.2);
    assert!(kept.erases < dropped.erases);
    // The discards are counted when kept, and nothing is said of them when dropped.
    assert_counter(&kept, Counter::Trims, 1468);
    assert!(kept.counter(Counter::TrimmedPages) > 80_000);
    assert!(!dropped.counters.contains_key(&Counter::Trims));
    assert!(!dropped.counters.contains_key(&Counter::TrimmedPages));
    // Reads, writes and flushes are the same requests either way.
    assert_eq!(kept.requests.all, dropped.requests.all);
    assert_eq!(
        kept.counter(Counter::Flushes),
        dropped.counter(Counter::Flushes)
    );
    assert!(kept.counter(Counter::VerifiedReads) > 1_000);
}

fn trim(t_us: u64, lpn: u64, pages: u64) -> IoRequest {
    io(t_us, Op::Trim, lpn, pages)
}

/// Writes of LPNs 0..16, a trim of 4..12, reads of 0..16, a rewrite of 6 and a read of
/// it, on the small device with `sets`, verified and audited.
fn write_trim_read(sets: &[&str]) -> Report {
    let mut all = vec!["verify=true"];
    all.extend_from_slice(sets);
    let reqs = vec![
        io(0, Op::Write, 0, 16),
        trim(5_000, 4, 8),
        io(10_000, Op::Read, 0, 16),
        io(20_000, Op::Write, 6, 1),
        io(30_000, Op::Read, 6, 1),
    ];
    let mut sim = vec_sim(small_config(&all), reqs);
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

/// A read of a trimmed page is answered as one of a never-written page (zeros, or
/// materialized content) and verify confirms it holds nothing; the other pages still
/// read their last write, and a page written after its trim reads that write.
#[test]
fn reads_of_trimmed_pages_return_the_unwritten_content_and_verify_checks_them() {
    for unwritten in ["zero", "materialize"] {
        let set = format!("host.unwritten_reads=\"{unwritten}\"");
        let r = write_trim_read(&[&set]);
        assert_counter(&r, Counter::Trims, 1);
        assert_counter(&r, Counter::TrimmedPages, 8);
        assert_counter(&r, Counter::VerifiedTrimmedReads, 8);
        match unwritten {
            "zero" => {
                assert_counter(&r, Counter::UnwrittenZeroReads, 8);
                assert_counter(&r, Counter::VerifiedReads, 8 + 1);
            }
            _ => {
                assert_counter(&r, Counter::MaterializedReads, 8);
                assert_counter(&r, Counter::VerifiedReads, 16 + 1);
            }
        }
        assert_eq!(r.requests.all, 4, "the trim is neither a read nor a write");
    }
}

/// With a DRAM write buffer the trim drops the buffered versions before they reach
/// flash: they are never destaged, a read finds nothing in DRAM, and a flush after the
/// trim does not wait for them.
#[test]
fn a_trim_drops_buffered_pages_from_dram() {
    let dram = ["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"];
    let r = write_trim_read(&dram);
    assert_counter(&r, Counter::VerifiedTrimmedReads, 8);
    let d = r.dram.as_ref().unwrap();
    assert_eq!(
        d.destaged, 0,
        "below the watermark nothing is destaged: {d:?}"
    );
    assert_eq!(
        d.dirty_at_end,
        16 - 8 + 1,
        "the trimmed pages left DRAM: {d:?}"
    );
    assert_eq!(
        d.read_hits,
        8 + 1,
        "only the pages not trimmed, and the rewrite"
    );
    let with_flush = {
        let reqs = vec![
            io(0, Op::Write, 0, 64),
            trim(1, 0, 64),
            IoRequest::flush(2_000),
        ];
        let mut all = vec!["verify=true"];
        all.extend_from_slice(&dram);
        let mut sim = vec_sim(small_config(&all), reqs);
        sim.run_to_end().unwrap();
        sim.audit().unwrap();
        sim.into_report().unwrap()
    };
    let d = with_flush.dram.as_ref().unwrap();
    assert_eq!((d.flushes, d.dirty_at_end), (1, 0), "{d:?}");
    assert_eq!(
        d.flush_wait_ns_max, 0,
        "nothing left to make durable: {d:?}"
    );
}

/// A trim that covers part of a page leaves that page's data alone.
#[test]
fn only_pages_covered_whole_are_trimmed() {
    let reqs = vec![
        io(0, Op::Write, 0, 4),
        IoRequest {
            offset_bytes: 2048,
            size_bytes: 3 * 4096,
            ..trim(5_000, 0, 1)
        },
        io(10_000, Op::Read, 0, 4),
    ];
    let mut sim = vec_sim(small_config(&["verify=true"]), reqs);
    sim.run_to_end().unwrap();
    let r = sim.into_report().unwrap();
    assert_counter(&r, Counter::TrimmedPages, 2);
    assert_counter(&r, Counter::VerifiedTrimmedReads, 2);
}

/// A trim past the device's end, or on a device whose redundancy or sector merges it
/// cannot keep right, is refused naming what is wrong; so is a trim of no bytes.
#[test]
fn trims_that_cannot_run_are_refused() {
    let run = |cfg: SimConfig, reqs: Vec<IoRequest>| vec_sim(cfg, reqs).run().unwrap_err();
    let cfg = small_config(&[]);
    let pages = u64::from(cfg.ftl.logical_pages(&cfg.geometry));
    let e = run(cfg.clone(), vec![trim(0, pages - 1, 2)]);
    assert!(matches!(e, SimError::TrimPastEnd { request: 0, .. }), "{e}");
    assert!(
        e.is_bad_input() && e.to_string().contains("past the end"),
        "{e}"
    );
    // Folding applies to reads and writes, never to trims.
    let e = run(
        small_config(&["ftl.address_fold=\"modulo\""]),
        vec![trim(0, pages, 1)],
    );
    assert!(matches!(e, SimError::TrimPastEnd { .. }), "{e}");
    let e = run(
        cfg.clone(),
        vec![IoRequest {
            size_bytes: 0,
            ..trim(0, 0, 1)
        }],
    );
    assert!(matches!(e, SimError::BadRequest { .. }), "{e}");
    for (set, key) in [
        ("raid.level=5", "raid.level"),
        ("raid.level=1", "raid.level"),
        ("timing.transfer=\"sectors\"", "timing.transfer"),
    ] {
        let cfg = small_config(&[set]);
        let e = run(cfg, vec![io(0, Op::Write, 0, 4), trim(10, 0, 4)]);
        assert!(e.is_bad_input(), "{e}");
        assert!(e.to_string().contains(key), "{set}: {e}");
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    /// The small device, with fewer blocks so that GC runs, preconditioned, verified.
    fn device(extra: &[&str]) -> SimConfig {
        let mut sets = vec![
            "verify=true",
            "geometry.blocks_per_plane=24",
            "ftl.precondition.enabled=true",
        ];
        sets.extend_from_slice(extra);
        small_config(&sets)
    }

    fn ops() -> impl Strategy<Value = Vec<(u8, u64, u64)>> {
        proptest::collection::vec((0u8..10, 0u64..2_000, 1u64..24), 50..400)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        /// Writes, trims and reads in any order, on a plain device, with a DRAM write
        /// buffer (write-back or write-through), DS-FTL's content index, the SLC cache,
        /// binding at dispatch, and the cached map (a CMT of 64 entries, so dirty entries
        /// of trimmed pages are evicted and written back) alone and beside a DRAM cache
        /// (with 30 % spare: its translation pages and each plane's open translation
        /// block take room): every read of a page not trimmed returns its last write,
        /// every read of a trimmed one returns nothing, and the audit finds every page
        /// right.
        #[test]
        fn trims_never_lose_data(ops in ops(), setup in 0usize..8) {
            let extra: &[&str] = match setup {
                0 => &[],
                1 => &["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"],
                2 => &["cache.mode=\"read-write\"", "cache.capacity_mib=1", "cache.write_policy=\"write-through\""],
                3 => &["dsftl.index=true"],
                4 => &["nand.cell=\"tlc\"", "geometry.pages_per_block=48", "nand.slc_cache.mode=\"static\"", "nand.slc_cache.blocks_per_plane=2", "ftl.over_provisioning=0.3"],
                5 => &["placement.bind=\"dispatch\""],
                6 => &["ftl.mapping=\"cached\"", "ftl.cmt.entries=64", "ftl.cmt.entries_per_tpage=64", "ftl.over_provisioning=0.3"],
                _ => &["ftl.mapping=\"cached\"", "ftl.cmt.entries=64", "ftl.cmt.entries_per_tpage=64", "ftl.over_provisioning=0.3", "cache.mode=\"read-write\"", "cache.capacity_mib=1"],
            };
            let reqs: Vec<IoRequest> = ops
                .iter()
                .enumerate()
                .map(|(i, &(kind, lpn, pages))| {
                    let op = match kind {
                        0..=4 => Op::Write,
                        5..=6 => Op::Trim,
                        _ => Op::Read,
                    };
                    io(i as u64 * 40, op, lpn, pages)
                })
                .collect();
            let mut sim = vec_sim(device(extra), reqs);
            sim.run_to_end().map_err(|e| TestCaseError::fail(format!("{e}")))?;
            sim.audit().map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let r = sim.into_report().unwrap();
            prop_assert!(r.counter(Counter::Trims) > 0);
        }
    }
}
