//! DS-FTL: content-aware placement spreads identical pages over channels, reads take
//! the idle copy, every read is verified, and the baselines are left alone.

use crate::util::{page, trace_sim, vec_sim};
use ssdlab::{ConfigBuilder, SimConfig};
use ssdlab_nand::{Geometry, Lpn, TxnReason};
use ssdlab_stats::{Counter, Report};
use ssdlab_trace::{Content, IoRequest, Op};

/// `channels` channels of one chip, one die, one plane (so LPN l sits on channel
/// l % channels under the default static order), verify on, with `sets` applied.
fn config(channels: u32, sets: &[&str]) -> SimConfig {
    let mut b = ConfigBuilder::new()
        .text(
            &format!(
                "verify = true\n[geometry]\nchannels = {channels}\nchips_per_channel = 1\n\
                 dies_per_chip = 1\nplanes_per_die = 1\nblocks_per_plane = 32\n\
                 pages_per_block = 16\n[ftl]\nallocation = \"content-aware\"\n"
            ),
            "dsftl-test",
        )
        .unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    b.build().unwrap()
}

/// A one-page write of `lpn` with content `token`.
fn write(at_ns: u64, lpn: u64, token: u64) -> IoRequest {
    IoRequest {
        content: Some(Content::Seed(token)),
        ..page(at_ns, Op::Write, lpn)
    }
}

/// The channel LPN `lpn` lives on (`u32::MAX` when unmapped).
fn channel_of(sim: &ssdlab::Simulation, lpn: u32) -> u32 {
    let g: &Geometry = sim.ftl().geometry();
    sim.ftl()
        .lookup(Lpn(lpn))
        .map_or(u32::MAX, |ppn| g.channel_of_chip(g.chip_of_page(ppn)).0)
}

const MS: u64 = 1_000_000;

/// Eight reads of other pages of channel 0 at `at_ns`, then a read of LPN 0 just after.
fn busy_channel_0_then_read_lpn_0(at_ns: u64) -> Vec<IoRequest> {
    let mut reqs: Vec<IoRequest> = (1..=8).map(|k| page(at_ns, Op::Read, 4 * k)).collect();
    reqs.push(page(at_ns + 1_000, Op::Read, 0));
    reqs
}

fn run(cfg: SimConfig, reqs: Vec<IoRequest>) -> (Report, Vec<u32>) {
    let mut sim = vec_sim(cfg, reqs);
    sim.run_to_end().unwrap();
    sim.check_invariants();
    assert!(sim.audit().unwrap() > 0);
    let channels = (0..8).map(|l| channel_of(&sim, l)).collect();
    (sim.into_report().unwrap(), channels)
}

#[test]
fn identical_pages_spread_over_channels_and_a_read_takes_the_idle_copy() {
    let mut reqs = vec![
        write(0, 0, 0xaa),
        write(MS, 4, 0xaa),
        write(2 * MS, 5, 0xaa),
    ];
    reqs.extend(busy_channel_0_then_read_lpn_0(10 * MS));
    let (r, ch) = run(config(4, &[]), reqs);
    assert_eq!(ch[0], 0, "the first copy stays home");
    assert_eq!(
        ch[4], 1,
        "LPN 4's home (channel 0) holds the content: the next channel"
    );
    assert_eq!(
        ch[5], 2,
        "LPN 5's home (channel 1) holds it too: the one after"
    );
    assert_eq!(r.counter(Counter::RedirectedWrites), 2);
    assert_eq!(r.counter(Counter::DuplicateWrites), 2);
    assert_eq!(
        r.counter(Counter::DuplicateReads),
        1,
        "LPN 0 read from a copy"
    );
    assert_eq!(r.counter(Counter::RedirectedReads), 1);
    assert_eq!(r.counter(Counter::VerifiedReads), 9);
    assert_eq!(r.counter(Counter::DsftlBloomFalsePositives), 0);
    let d = r.dsftl.as_ref().expect("the content section");
    // 0xaa on three pages, and the seven pages the reads materialized.
    assert_eq!((d.tokens, d.groups, d.grouped_pages), (8, 1, 3));

    // Static placement under the same load: the read of LPN 0 waits behind channel 0.
    let mut reqs = vec![
        write(0, 0, 0xaa),
        write(MS, 4, 0xaa),
        write(2 * MS, 5, 0xaa),
    ];
    reqs.extend(busy_channel_0_then_read_lpn_0(10 * MS));
    let (s, ch) = run(config(4, &["ftl.allocation=\"static\""]), reqs);
    assert_eq!((ch[4], ch[5]), (0, 1));
    assert_eq!(s.counter(Counter::DuplicateReads), 0);
    assert!(s.dsftl.is_none(), "no index, no content section");
    assert!(r.response.read.max_ns < s.response.read.max_ns);
}

#[test]
fn an_overwritten_copy_is_never_read() {
    let mut reqs = vec![
        write(0, 0, 0xaa),
        write(MS, 4, 0xaa),
        write(2 * MS, 4, 0xbb),
    ];
    reqs.extend(busy_channel_0_then_read_lpn_0(10 * MS));
    let (r, _) = run(config(4, &[]), reqs);
    assert_eq!(
        r.counter(Counter::DuplicateReads),
        0,
        "LPN 0's content has one page left"
    );
    assert_eq!(r.dsftl.unwrap().groups, 0);
}

#[test]
fn a_content_every_channel_holds_stays_home() {
    let reqs = vec![write(0, 0, 7), write(MS, 2, 7), write(2 * MS, 4, 7)];
    let (r, ch) = run(config(2, &["dsftl.filter=\"exact\""]), reqs);
    assert_eq!((ch[0], ch[2], ch[4]), (0, 1, 0));
    assert_eq!(r.counter(Counter::DsftlSaturatedWrites), 1);
    assert_eq!(r.counter(Counter::RedirectedWrites), 1);
}

#[test]
fn a_rewrite_of_identical_content_moves_off_its_own_page_unless_told_not_to() {
    let reqs = vec![write(0, 0, 9), write(MS, 0, 9)];
    let (r, ch) = run(config(4, &[]), reqs.clone());
    assert_eq!((ch[0], r.counter(Counter::RedirectedWrites)), (1, 1));
    let exact = ["dsftl.self_copy_counts=false", "dsftl.filter=\"exact\""];
    let (r, ch) = run(config(4, &exact), reqs.clone());
    assert_eq!((ch[0], r.counter(Counter::RedirectedWrites)), (0, 0));
    // A Bloom filter cannot leave one page out: its "held" is a false positive then.
    let (r, ch) = run(config(4, &["dsftl.self_copy_counts=false"]), reqs);
    assert_eq!(
        (ch[0], r.counter(Counter::DsftlBloomFalsePositives)),
        (1, 1)
    );
}

#[test]
fn read_merging_joins_a_waiting_read_of_the_same_content() {
    // LPNs 0 and 4 share content and stay on channel 0 (static placement, multi-path
    // reads off), so the second read finds the first still waiting behind the busy chip.
    let reqs = || {
        let mut r = vec![write(0, 0, 0xaa), write(0, 4, 0xaa)];
        r.extend((1..=4).map(|k| page(10 * MS, Op::Read, 4 * k + 8)));
        r.push(page(10 * MS + 1_000, Op::Read, 0));
        r.push(page(10 * MS + 2_000, Op::Read, 4));
        r
    };
    let base = ["ftl.allocation=\"static\"", "dsftl.index=true"];
    let merged = |extra: &[&str]| {
        let sets: Vec<&str> = base.iter().chain(extra).copied().collect();
        run(config(4, &sets), reqs()).0
    };
    let host_reads = |r: &Report| r.reason(TxnReason::HostRead).map_or(0, |s| s.count);
    let off = merged(&[]);
    let same_ppn = merged(&["scheduler.merge.reads=\"same-ppn\""]);
    let with_leader = merged(&["scheduler.merge.reads=\"same-content\""]);
    let fixed = merged(&[
        "scheduler.merge.reads=\"same-content\"",
        "scheduler.merge.completion=\"fixed-ns\"",
    ]);
    assert_eq!(
        (host_reads(&off), off.counter(Counter::MergedReads)),
        (6, 0)
    );
    assert_eq!(same_ppn.counter(Counter::MergedReads), 0, "different pages");
    assert_eq!(host_reads(&with_leader), 5);
    assert_eq!(with_leader.counter(Counter::MergedReads), 1);
    assert_eq!(with_leader.counter(Counter::VerifiedReads), 6);
    assert_eq!(fixed.counter(Counter::MergedReads), 1);
    assert_eq!(fixed.response.read.min_ns, 1_000, "SSDsim's 1 µs");
}

/// Verify mode with content-aware placement and multi-path reads on both FIU layouts.
#[test]
fn fiu_excerpts_verify_with_content_aware_placement_and_multipath_reads() {
    for (trace, sets) in [
        (
            "fiu/mail-cheetah-10k.fiu.gz",
            &["dsftl.filter=\"bloom\""][..],
        ),
        (
            "fiu/homes-replay-1k.fiu.gz",
            &["dsftl.rr_start=\"global-pointer\""][..],
        ),
        (
            "fiu/mail-cheetah-10k.fiu.gz",
            &[
                "dsftl.base=\"hipa\"",
                "scheduler.merge.reads=\"same-content\"",
            ][..],
        ),
    ] {
        let mut cfg = crate::util::small_config(sets);
        cfg.verify = true;
        cfg.ftl.allocation = ssdlab_ftl::Allocation::ContentAware;
        let mut sim = trace_sim(cfg, trace);
        sim.run_to_end().unwrap();
        sim.check_invariants();
        sim.audit().unwrap();
        let r = sim.into_report().unwrap();
        assert!(r.counter(Counter::VerifiedReads) > 0, "{trace}");
        assert!(r.counter(Counter::DuplicateWrites) > 0, "{trace}");
        assert!(r.counter(Counter::RedirectedWrites) > 0, "{trace}");
    }
}

/// Without content in the trace every token is unique: content-aware placement, its
/// index and multi-path reads change nothing but their own counters.
#[test]
fn a_trace_without_content_runs_exactly_as_its_base_allocation() {
    let run = |alloc: &str| {
        let cfg = crate::util::small_config(&[&format!("ftl.allocation=\"{alloc}\"")]);
        let mut sim = trace_sim(cfg, "msr/hm_0-slice7016.csv.gz");
        sim.run_to_end().unwrap();
        sim.into_report().unwrap()
    };
    let (base, ca) = (run("static"), run("content-aware"));
    assert_eq!(base.response, ca.response);
    assert_eq!(base.transactions, ca.transactions);
    assert_eq!(base.utilization, ca.utilization);
    assert_eq!(ca.counter(Counter::RedirectedWrites), 0);
    assert_eq!(ca.counter(Counter::DuplicateReads), 0);
    assert_eq!(ca.dsftl.unwrap().groups, 0);
}

/// A synthetic workload with half its writes repeating earlier content, on an aged
/// device where GC runs: every read verified, the index checked, and the device
/// written no more than under static placement.
#[test]
fn duplicates_under_gc_keep_every_read_right_and_write_no_more() {
    let workload = ssdlab_trace::SyntheticConfig {
        requests: 4_000,
        read_ratio: 0.5,
        duplicate_ratio: 0.5,
        footprint_bytes: 64 << 20,
        size: ssdlab_trace::SizeDist::Fixed { bytes: 8192 },
        ..ssdlab_trace::SyntheticConfig::default()
    };
    let run = |sets: &[&str]| {
        let mut all = vec![
            "verify=true",
            "ftl.precondition.enabled=true",
            "ftl.precondition.overwrite_ratio=0.5",
        ];
        all.extend(sets);
        let cfg = crate::util::small_config(&all);
        let src = ssdlab_trace::TraceSource::Synthetic(workload.clone());
        let mut sim = ssdlab::Simulation::new(cfg, src.open().unwrap(), "synthetic").unwrap();
        let mut steps = 0u64;
        while sim.step().unwrap() {
            steps += 1;
            if steps.is_multiple_of(997) {
                sim.check_invariants();
            }
        }
        sim.check_invariants();
        sim.audit().unwrap();
        sim.into_report().unwrap()
    };
    let base = run(&["dsftl.index=true"]);
    let ca = run(&["ftl.allocation=\"content-aware\""]);
    let tiny_filter = run(&[
        "ftl.allocation=\"content-aware\"",
        "dsftl.bloom_bits_per_page=1",
        "dsftl.bloom_hashes=1",
    ]);
    assert!(base.gc_runs > 0 && ca.gc_runs > 0, "GC runs");
    assert!(ca.counter(Counter::DuplicateReads) > 0);
    assert!(ca.counter(Counter::RedirectedWrites) > 0);
    let wa = ca.write_amplification / base.write_amplification;
    assert!((wa - 1.0).abs() < 0.02, "write amplification {wa}");
    // Every write is programmed (a write that waits for space and is overwritten
    // meanwhile is dropped, which placement can change by a page or two).
    assert_eq!(ca.work.write.pages, base.work.write.pages);
    let programmed = ca.host_pages_written as f64 / base.host_pages_written as f64;
    assert!(
        (programmed - 1.0).abs() < 0.005,
        "nothing deduplicated: {programmed}"
    );
    let fp = tiny_filter.counter(Counter::DsftlBloomFalsePositives);
    assert!(
        fp > 0,
        "one position per page and one hash: false positives"
    );
    assert!(tiny_filter.counter(Counter::VerifiedReads) > 0);
    let (b, c) = (base.dsftl.unwrap(), ca.dsftl.unwrap());
    assert!(
        c.plane_duplicate_rate.mean < b.plane_duplicate_rate.mean,
        "spread: {} vs static {}",
        c.plane_duplicate_rate.mean,
        b.plane_duplicate_rate.mean
    );
}

/// The same configuration and trace give byte-identical reports.
#[test]
fn content_aware_runs_are_deterministic() {
    let run = || {
        let cfg = crate::util::small_config(&["ftl.allocation=\"content-aware\""]);
        let mut sim = trace_sim(cfg, "fiu/homes-replay-1k.fiu.gz");
        sim.run_to_end().unwrap();
        sim.into_report().unwrap().to_json()
    };
    assert_eq!(run(), run());
}

/// HIPA switches to the least-loaded die when its static die is busy, and every read
/// still finds its page.
#[test]
fn hipa_moves_writes_off_loaded_dies_and_keeps_reads_right() {
    let cfg = crate::util::small_config(&[
        "verify=true",
        "ftl.allocation=\"hipa\"",
        "ftl.hipa.threshold_ns=0",
        "host.time_scale=0.05",
    ]);
    let mut sim = trace_sim(cfg, "msr/hm_0-slice7016.csv.gz");
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    let r = sim.into_report().unwrap();
    assert!(r.counter(Counter::HipaDynamicWrites) > 0);
    assert!(r.counter(Counter::VerifiedReads) > 0);
}

#[test]
fn a_copy_on_another_chip_of_the_same_channel_is_not_a_copy_on_another_channel() {
    // Two channels of two chips, static placement with the content index kept: LPN 0
    // and 2 share channel 0 on different chips, LPN 1 sits on channel 1.
    let cfg = |sets: &[&str]| {
        let mut b = ConfigBuilder::new()
            .text(
                "verify = true\n[geometry]\nchannels = 2\nchips_per_channel = 2\n\
                 dies_per_chip = 1\nplanes_per_die = 1\nblocks_per_plane = 32\n\
                 pages_per_block = 16\n[ftl]\nallocation = \"static\"\n[dsftl]\nindex = true\n",
                "dsftl-channels",
            )
            .unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap()
    };
    let reqs = vec![
        write(0, 0, 0xaa),
        write(MS, 2, 0xaa),
        page(2 * MS, Op::Read, 0),
        write(3 * MS, 1, 0xaa),
        page(4 * MS, Op::Read, 0),
    ];
    let mut sim = vec_sim(cfg(&[]), reqs);
    sim.run_to_end().unwrap();
    let g: &Geometry = sim.ftl().geometry();
    let at = |l: u32| {
        let chip = g.chip_of_page(sim.ftl().lookup(Lpn(l)).unwrap());
        (g.channel_of_chip(chip).0, chip.0)
    };
    let (l0, l2, l1) = (at(0), at(2), at(1));
    assert_eq!(l0.0, l2.0, "LPN 0 and 2 share a channel");
    assert_ne!(l0.1, l2.1, "on different chips");
    assert_ne!(l0.0, l1.0, "LPN 1 is on the other channel");
    let r = sim.into_report().unwrap();
    let d = r.dsftl.as_ref().expect("the content section");
    // Two reads: the first has a copy on another chip only, the second also one on
    // another channel.
    assert_eq!(d.reads_with_copies_ratio, 1.0);
    assert_eq!(d.reads_with_channel_copies_ratio, 0.5);
    assert!(r.table().contains("on another channel"));
}

/// With the error model on a worn device: a host read whose page is uncorrectable is
/// read again from a duplicate of its content on another chip (DS-FTL's content index),
/// verified; without duplicates (every content unique) the same reads are lost.
#[test]
fn an_uncorrectable_read_is_served_from_a_duplicate_of_its_content() {
    let sets: Vec<&str> = [
        "errors.mode=\"on\"",
        "errors.initial_pe=14000",
        "errors.pe_spread=0.3",
        "errors.initial_age_s=3.15e7",
    ]
    .into_iter()
    .chain(crate::errors::STRESS)
    .collect();
    let reqs = |dup: bool| {
        // 128 pages, each content twice (LPN 2k and 2k+1) or every one its own, then
        // every page read three times.
        let mut v: Vec<IoRequest> = (0..128u64)
            .map(|l| write(l * 10_000, l, if dup { 1_000 + l / 2 } else { 1_000 + l }))
            .collect();
        for round in 0..3u64 {
            for l in 0..128u64 {
                v.push(page(10 * MS + (round * 128 + l) * 200_000, Op::Read, l));
            }
        }
        v
    };
    let go_at = |sets: &[&str], dup: bool| {
        let mut sim = vec_sim(config(4, sets), reqs(dup));
        sim.run_to_end().unwrap();
        sim.check_invariants();
        assert!(sim.audit().unwrap() > 0);
        let r = sim.into_report().unwrap();
        assert!(r.counter(Counter::VerifiedReads) > 0);
        r.errors.unwrap()
    };
    let (with, without) = (go_at(&sets, true), go_at(&sets, false));
    assert!(without.host_uncorrectable > 0, "{without:?}");
    assert_eq!(without.rebuilt_from_duplicates, 0);
    assert_eq!(without.lost_reads, without.host_uncorrectable);
    assert!(with.rebuilt_from_duplicates > 0, "{with:?}");
    assert_eq!(with.rebuilt_reads, with.rebuilt_from_duplicates);
    // Every uncorrectable host read was read again from its copy or lost; a copy that
    // failed too is a failed rebuild, and lost.
    assert_eq!(
        with.rebuilt_reads + with.lost_reads - with.failed_rebuilds,
        with.host_uncorrectable,
        "{with:?}"
    );
    assert!(with.lost_reads < with.host_uncorrectable, "{with:?}");
    assert_eq!(
        with.rebuilt_verified,
        with.rebuilt_reads - with.failed_rebuilds
    );
}
