//! The SLC cache (docs/NAND.md, *SLC cache*): SLC-mode timing hand-worked on one die,
//! the region filling and folding, content kept through folds under verify, the write
//! cliff of a sequential fill, and refused settings.

use crate::nand::mixed;
use crate::util::{page, small_config, vec_sim};
use ssdlab::ConfigBuilder;
use ssdlab_trace::{IoRequest, Op};

const XFER: u64 = 10_240;

/// One die, one plane, 64 blocks of 24 pages (TLC: 8 SLC pages per block), one-shot
/// TLC programs of 1.6 ms, SLC-mode reads of 30 µs and programs of 150 µs, a static
/// region of 2 blocks; `sets` on top.
fn one_die(sets: &[&str]) -> ssdlab::SimConfig {
    let mut b = ConfigBuilder::new()
        .text(
            "[geometry]\nchannels = 1\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = 1\n\
             blocks_per_plane = 64\npages_per_block = 24\npage_size_bytes = 4096\n\
             [nand]\ncell = \"tlc\"\nprogram = \"one-shot\"\n\
             t_read_ns_by_type = [50000, 70000, 90000]\nt_prog_ns_by_type = [1600000, 1600000, 1600000]\n\
             [nand.slc_cache]\nmode = \"static\"\nblocks_per_plane = 2\nt_read_ns = 30000\nt_prog_ns = 150000\n\
             idle_fold = false\n",
            "one-die-slc",
        )
        .unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    b.build().unwrap()
}

fn run(cfg: ssdlab::SimConfig, reqs: Vec<IoRequest>) -> ssdlab::Report {
    vec_sim(cfg, reqs).run().unwrap()
}

#[test]
fn slc_mode_pages_take_the_slc_times() {
    let reqs = vec![page(0, Op::Write, 0), page(5_000_000, Op::Read, 0)];
    let r = run(one_die(&[]), reqs);
    // Written alone: one transfer, one SLC-mode program (no wordline to wait for).
    assert_eq!(r.response.write.max_ns, XFER + 150_000);
    assert_eq!(r.response.read.max_ns, 30_000 + XFER);
    let n = r.nand.unwrap();
    let slc = n.reads_by_page_type.last().unwrap();
    assert_eq!((slc.page_type.as_str(), slc.latency.count), ("slc-mode", 1));
    let c = n.slc_cache.unwrap();
    assert_eq!((c.slc_pages_written, c.direct_pages_written), (1, 0));
    assert_eq!((c.pages_per_block, c.size_bytes), (8, 2 * 8 * 4096));
    assert_eq!(n.padded_wordlines, 0);
}

#[test]
fn a_full_region_sends_writes_direct_to_tlc_and_folds() {
    // 16 SLC pages fill the region; the next three pages go direct as one wordline.
    let mut reqs: Vec<IoRequest> = (0..16).map(|l| page(l * 1_000_000, Op::Write, l)).collect();
    let t = 20_000_000;
    reqs.extend((16..19).map(|l| page(t, Op::Write, l)));
    let r = run(
        one_die(&["nand.slc_cache.when_full=\"direct-fold\""]),
        reqs.clone(),
    );
    let c = r.nand.as_ref().unwrap().slc_cache.clone().unwrap();
    assert_eq!((c.slc_pages_written, c.direct_pages_written), (16, 3));
    // The region full, the plane folds its oldest block: 8 pages into native mode.
    assert!(c.folds >= 1 && c.fold_pages_moved >= 8, "{c:?}");
    assert!(r.table().contains("fold-write"), "{}", r.table());
    // The direct wordline completes after its one-shot program (fold traffic may
    // delay it further, never less).
    assert!(r.response.write.max_ns >= 3 * XFER + 1_600_000);
    // "direct" folds in idle time only (off here): the wordline alone, no fold.
    let r = run(one_die(&[]), reqs);
    let c = r.nand.as_ref().unwrap().slc_cache.clone().unwrap();
    assert_eq!((c.direct_pages_written, c.folds), (3, 0));
    assert_eq!(r.response.write.max_ns, 3 * XFER + 1_600_000);
}

#[test]
fn waiting_writes_take_slc_pages_after_the_fold() {
    let mut reqs: Vec<IoRequest> = (0..16).map(|l| page(l * 1_000_000, Op::Write, l)).collect();
    reqs.extend((16..19).map(|l| page(20_000_000, Op::Write, l)));
    let r = run(one_die(&["nand.slc_cache.when_full=\"wait\""]), reqs);
    let c = r.nand.unwrap().slc_cache.unwrap();
    assert_eq!(c.direct_pages_written, 0, "{c:?}");
    assert_eq!(c.slc_pages_written, 19);
    assert!(c.full_waits >= 1 && c.folds >= 1, "{c:?}");
    // The waiting writes completed after a fold's erase freed a block.
    assert!(
        r.response.write.max_ns > 3_000_000,
        "{:?}",
        r.response.write
    );
}

#[test]
fn idle_folding_runs_only_when_asked() {
    // 20 pages, far apart: the dies are idle between them.
    let reqs: Vec<IoRequest> = (0..20).map(|l| page(l * 5_000_000, Op::Write, l)).collect();
    let off = run(one_die(&[]), reqs.clone());
    let on = run(one_die(&["nand.slc_cache.idle_fold=true"]), reqs);
    let (off, on) = (
        off.nand.unwrap().slc_cache.unwrap(),
        on.nand.unwrap().slc_cache.unwrap(),
    );
    assert_eq!(off.idle_folds, 0);
    assert!(on.idle_folds >= 1, "{on:?}");
    // Folded in idle time, the region never filled: every page went SLC.
    assert_eq!(on.direct_pages_written, 0, "{on:?}");
    assert!(off.direct_pages_written > 0, "{off:?}");
}

/// The small device as TLC with one-shot programs and an SLC cache of `mode`.
fn tlc_slc(mode: &str, extra: &[&str]) -> ssdlab::SimConfig {
    let mode = format!("nand.slc_cache.mode=\"{mode}\"");
    let mut sets = vec![
        "geometry.pages_per_block=48",
        "nand.cell=\"tlc\"",
        "nand.program=\"one-shot\"",
        "nand.t_read_ns_by_type=[60000, 80000, 100000]",
        "nand.t_prog_ns_by_type=[1200000, 1200000, 1200000]",
        "nand.slc_cache.blocks_per_plane=6",
        "nand.slc_cache.t_read_ns=30000",
        "nand.slc_cache.t_prog_ns=200000",
        "ftl.over_provisioning=0.25",
        mode.as_str(),
    ];
    sets.extend_from_slice(extra);
    small_config(&sets)
}

#[test]
fn folded_pages_keep_their_content_under_verify() {
    for mode in ["static", "dynamic"] {
        for when in ["direct", "direct-fold", "wait"] {
            let w = format!("nand.slc_cache.when_full=\"{when}\"");
            let cfg = tlc_slc(mode, &["verify=true", w.as_str()]);
            let r = vec_sim(cfg, mixed(20_000, 40_000, 20_000, 50))
                .run()
                .unwrap();
            let c = r.nand.as_ref().unwrap().slc_cache.clone().unwrap();
            assert!(
                c.folds > 10 && c.fold_pages_moved > 100,
                "{mode} {when}: {c:?}"
            );
            let verified = r.counter(ssdlab_stats::Counter::VerifiedReads);
            assert!(
                verified > 10_000,
                "{mode} {when}: {verified} reads verified"
            );
            assert!(c.slc_erases > 0, "{mode} {when}: {c:?}");
        }
    }
}

#[test]
fn a_sequential_fill_falls_off_the_slc_cliff() {
    // 8 192 pages written in order, 32 at a time: the region (6 blocks of 16 SLC pages
    // in each of 16 planes, 1 536 pages) takes the first writes at SLC speed.
    let cfg = tlc_slc(
        "static",
        &[
            "host.mode=\"closed\"",
            "host.queue_depth=32",
            "nand.slc_cache.idle_fold=false",
        ],
    );
    let reqs: Vec<IoRequest> = (0..8192).map(|l| page(0, Op::Write, l)).collect();
    let sim = vec_sim(cfg, reqs);
    let r = sim.run().unwrap();
    let c = r.nand.as_ref().unwrap().slc_cache.clone().unwrap();
    assert_eq!(c.slc_pages_written + c.direct_pages_written, 8192);
    // Past the region, writes go direct; nothing folds (no idle time, GC never ran).
    assert_eq!(c.slc_pages_written, 1536, "{c:?}");
    assert_eq!(c.folds, 0);
    // Mean write latency is far above the SLC case: the cliff is in the run.
    let slc_only = vec_sim(
        tlc_slc("static", &["host.mode=\"closed\"", "host.queue_depth=32"]),
        (0..1024).map(|l| page(0, Op::Write, l)).collect(),
    )
    .run()
    .unwrap();
    let cs = slc_only.nand.as_ref().unwrap().slc_cache.clone().unwrap();
    assert_eq!(cs.direct_pages_written, 0, "1 024 pages fit the region");
    let slow = r.response.write.mean_ns;
    let fast = slc_only.response.write.mean_ns;
    assert!(
        slow > 2.0 * fast,
        "after the cliff {slow} ns, in SLC {fast} ns"
    );
}

#[test]
fn bad_slc_cache_settings_are_refused_naming_the_key() {
    let refused = |sets: &[&str]| {
        let mut b = ConfigBuilder::new();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap_err().to_string()
    };
    let e = refused(&[
        "nand.slc_cache.mode=\"static\"",
        "nand.slc_cache.blocks_per_plane=4",
    ]);
    assert!(
        e.contains("nand.slc_cache.mode") && e.contains("more than one bit"),
        "{e}"
    );
    let tlc = ["nand.cell=\"tlc\"", "geometry.pages_per_block=129"];
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        let mut v = tlc.to_vec();
        v.extend_from_slice(more);
        v
    };
    let e = refused(&with(&["nand.slc_cache.mode=\"dynamic\""]));
    assert!(e.contains("nand.slc_cache.blocks_per_plane"), "{e}");
    let e = refused(&with(&[
        "nand.slc_cache.mode=\"dynamic\"",
        "nand.slc_cache.blocks_per_plane=100000",
    ]));
    assert!(e.contains("larger than the device"), "{e}");
    let e = refused(&with(&[
        "nand.slc_cache.mode=\"static\"",
        "nand.slc_cache.blocks_per_plane=200",
    ]));
    assert!(e.contains("no room to fold into"), "{e}");
    let e = refused(&with(&["nand.slc_cache.t_prog_ns=100000"]));
    assert!(
        e.contains("nand.slc_cache.mode") && e.contains("never used"),
        "{e}"
    );
    let e = refused(&with(&[
        "nand.slc_cache.mode=\"dynamic\"",
        "nand.slc_cache.blocks_per_plane=8",
        "nand.slc_cache.free_share=1.5",
    ]));
    assert!(e.contains("nand.slc_cache.free_share"), "{e}");
    let e = refused(&with(&[
        "nand.slc_cache.mode=\"dynamic\"",
        "nand.slc_cache.blocks_per_plane=8",
        "raid.level=5",
    ]));
    assert!(
        e.contains("nand.slc_cache.mode") && e.contains("raid.level"),
        "{e}"
    );
}

/// One SLC block of 32 pages written, then (while it folds in idle time) ten reads
/// 1 ms apart; the read response times and the cache's counters with `sets`.
fn reads_during_an_idle_fold(sets: &[&str]) -> (ssdlab::Report, ssdlab_stats::SlcCacheReport) {
    let mut all = vec![
        "geometry.pages_per_block=96",
        "nand.slc_cache.idle_fold=true",
        "verify=true",
    ];
    all.extend_from_slice(sets);
    let mut reqs: Vec<IoRequest> = (0..32).map(|l| page(l * 200_000, Op::Write, l)).collect();
    reqs.extend((0..10).map(|k| page(7_000_000 + k * 1_000_000, Op::Read, k)));
    let r = run(one_die(&all), reqs);
    let c = r.nand.as_ref().unwrap().slc_cache.clone().unwrap();
    // Every read checked (a wrong answer fails the run).
    assert_eq!(r.counter(ssdlab_stats::Counter::VerifiedReads), 10);
    (r, c)
}

#[test]
fn an_idle_fold_hands_out_a_few_wordlines_and_yields_to_the_host() {
    // All at once (as GC does): reads queue behind the whole block's fold.
    let (all, c) = reads_during_an_idle_fold(&["nand.slc_cache.fold_wordlines_in_flight=0"]);
    assert_eq!(
        (c.idle_folds, c.fold_pages_moved, c.idle_fold_pauses),
        (1, 32, 0)
    );
    // Two wordlines in flight, paused while a read is outstanding: a read waits for at
    // most the two one-shot programs already handed out.
    let (paced, c) = reads_during_an_idle_fold(&[]);
    assert_eq!((c.idle_folds, c.fold_pages_moved), (1, 32));
    assert!(c.idle_fold_pauses >= 1, "{c:?}");
    let (a, p) = (all.response.read.max_ns, paced.response.read.max_ns);
    assert!(a > 10_000_000, "all at once: {a} ns");
    assert!(
        p <= 2 * 1_600_000 + 6 * (30_000 + XFER) + 30_000 + XFER,
        "paced: {p} ns"
    );
    // Folding after 2 ms of host idle time: the reads (1 ms apart) meet no fold, which
    // runs after the last of them.
    let (late, c) = reads_during_an_idle_fold(&["nand.slc_cache.idle_after_ns=2000000"]);
    assert_eq!((c.idle_folds, c.fold_pages_moved), (1, 32));
    assert_eq!(late.response.read.max_ns, 30_000 + XFER);
    // The check that finds the host busy does not move the run's clock: the run ends
    // with the fold's erase.
    assert!(
        late.sim_time_ns > 16_000_000 + 2_000_000,
        "{}",
        late.sim_time_ns
    );
}
