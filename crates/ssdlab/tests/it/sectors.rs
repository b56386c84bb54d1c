//! Sub-page transfers (`timing.transfer = "sectors"`), hand-worked on the small device
//! with 16 KiB pages and the default NAND timing: t_read = 25 000 ns, a 400 MB/s bus
//! (2.5 ns a byte), so a whole page crosses the bus in 16 384 × 2.5 = 40 960 ns and
//! 4 KiB in 10 240 ns. The default DRAM moves 3 200 MB/s after 26 ns: a page in
//! 26 + 5 120 ns, 4 KiB in 26 + 1 280 ns.

use crate::liveness::{finishes, ops_with_content, requests, sets, DESIGNS, SHAPES};
use crate::util::{assert_counter, small_config, trace_sim, vec_sim};
use proptest::prelude::*;
use ssdlab::{Report, SimConfig};
use ssdlab_nand::TxnReason;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

const PAGE: u64 = 16_384;
const T_READ: u64 = 25_000;
const PAGE_XFER: u64 = 40_960;
/// Bus time of `bytes`.
const fn xfer(bytes: u64) -> u64 {
    bytes * 5 / 2
}
const DRAM_PAGE: u64 = 26 + 5_120;
const DRAM_4K: u64 = 26 + 1_280;

/// The small device with 16 KiB pages, `transfer` and `sets` on top.
fn config(transfer: &str, sets: &[&str]) -> SimConfig {
    let transfer = format!("timing.transfer=\"{transfer}\"");
    let mut all = vec!["geometry.page_size_bytes=16384", transfer.as_str()];
    all.extend_from_slice(sets);
    small_config(&all)
}

/// A request of `size` bytes at byte `offset`, at `t` ns.
fn io(t: u64, op: Op, offset: u64, size: u64) -> IoRequest {
    IoRequest {
        arrival_ns: t,
        op,
        fua: false,
        offset_bytes: offset,
        size_bytes: size,
        content: None,
        stream: None,
    }
}

fn run(cfg: SimConfig, reqs: Vec<IoRequest>) -> Report {
    vec_sim(cfg, reqs).run().unwrap()
}

/// Mean bus time of the transactions of `reason`.
fn bus_mean(r: &Report, reason: TxnReason) -> f64 {
    r.transactions
        .iter()
        .find(|t| t.reason == reason)
        .map_or(0.0, |t| t.bus_ns_mean)
}

#[test]
fn a_4k_read_of_a_16k_page_moves_4k_over_the_bus() {
    let read = vec![io(0, Op::Read, 0, 4096)];
    let page = run(config("page", &[]), read.clone());
    assert_eq!(page.response.read.max_ns, T_READ + PAGE_XFER);
    assert_eq!(bus_mean(&page, TxnReason::HostRead), PAGE_XFER as f64);
    let sectors = run(config("sectors", &[]), read);
    assert_eq!(sectors.response.read.max_ns, T_READ + xfer(4096));
    assert_eq!(xfer(4096), 10_240);
    assert_eq!(bus_mean(&sectors, TxnReason::HostRead), 10_240.0);
}

#[test]
fn command_cycles_are_paid_on_a_partial_transfer_too() {
    let read = vec![io(0, Op::Read, 8192, 4096)];
    let r = run(config("sectors", &["timing.t_cmd_ns=300"]), read);
    assert_eq!(r.response.read.max_ns, T_READ + xfer(4096) + 300);
}

#[test]
fn unaligned_first_and_last_pages_move_only_what_the_request_touches() {
    // One channel: LPN 0 and 1 are chips 0 and 1 of channel 0. 20 KiB from 3 KiB into
    // page 0 touch 13 KiB of page 0 and 7 KiB of page 1; both arrays finish at t_read,
    // then the two transfers share the bus in the order their dies started (page 1's
    // first: the scheduler starts a request's dies from its last page).
    let one_channel = ["geometry.channels=1"];
    let read = vec![io(0, Op::Read, 3072, 20_480)];
    let r = run(config("sectors", &one_channel), read.clone());
    let (first, last) = (xfer(13_312), xfer(7_168));
    assert_eq!(r.response.read.max_ns, T_READ + first + last);
    assert_eq!(r.bus_contention_ns_total, last);
    let page = run(config("page", &one_channel), read);
    assert_eq!(page.response.read.max_ns, T_READ + 2 * PAGE_XFER);
    // Three pages: the middle one whole, 512 bytes of each end. LPN 2 is chip 0 again:
    // chip 1's whole page 1 crosses first, then page 2; only then is chip 0's die free
    // to read page 0 and move its 512 bytes.
    let read = vec![io(0, Op::Read, PAGE - 512, PAGE + 1024)];
    let r = run(config("sectors", &one_channel), read.clone());
    assert_eq!(
        r.response.read.max_ns,
        T_READ + PAGE_XFER + xfer(512) + T_READ + xfer(512)
    );
    let page = run(config("page", &one_channel), read);
    assert_eq!(page.response.read.max_ns, 2 * T_READ + 3 * PAGE_XFER);
}

#[test]
fn bytes_off_a_sector_boundary_count_whole_sectors() {
    // Bytes 3000..3100 lie in sectors 5 and 6.
    let r = run(config("sectors", &[]), vec![io(0, Op::Read, 3000, 100)]);
    assert_eq!(r.response.read.max_ns, T_READ + xfer(1024));
}

#[test]
fn package_contention_counts_each_waiters_own_transfer() {
    // One channel of two chips of two dies, die first: LPN 0 is chip 0 die 0, LPN 1
    // chip 0 die 1, LPN 2 chip 1 die 0. The first request reads 8 KiB of LPN 1 and
    // 2 KiB of LPN 2, the second all of LPN 0; the three arrays finish together and
    // the transfers queue in the order their dies started: LPN 2, LPN 1, LPN 0. LPN 0
    // waits behind LPN 1, another die of its chip: 8 KiB of transfer, not a page.
    let sets = [
        "geometry.channels=1",
        "geometry.dies_per_chip=2",
        "ftl.static_order=dcwp",
    ];
    let reqs = || {
        vec![
            io(0, Op::Read, PAGE + 8192, 8192 + 2048),
            io(0, Op::Read, 0, PAGE),
        ]
    };
    let r = run(config("sectors", &sets), reqs());
    let (x, y) = (xfer(8192), xfer(2048));
    assert_eq!(r.package_contention_ns_total, x);
    assert_eq!(r.bus_contention_ns_total, y + (y + x));
    assert_eq!(r.response.read.max_ns, T_READ + y + x + PAGE_XFER);
    let page = run(config("page", &sets), reqs());
    assert_eq!(page.package_contention_ns_total, PAGE_XFER);
}

#[test]
fn a_read_that_another_joins_moves_its_whole_page() {
    // A whole read of LPN 0 holds its die until 65 960; two 4 KiB reads of other
    // sectors of the page wait behind it, and the second joins the first. Their
    // read then moves the whole page: both done at 65 960 + 25 000 + 40 960.
    let merge = [
        "scheduler.merge.reads=\"same-ppn\"",
        "scheduler.merge.completion=\"with-leader\"",
    ];
    let reqs = vec![
        io(0, Op::Read, 0, PAGE),
        io(1, Op::Read, 0, 4096),
        io(2, Op::Read, 8192, 4096),
    ];
    let r = run(config("sectors", &merge), reqs.clone());
    assert_eq!(r.counter(Counter::MergedReads), 1, "{:?}", r.counters);
    let done = T_READ + PAGE_XFER + T_READ + PAGE_XFER;
    assert_eq!(r.response.read.max_ns, done - 1);
    // Without merging, the first of them moves its 4 KiB only.
    let r = run(config("sectors", &[]), reqs);
    assert_eq!(r.counter(Counter::MergedReads), 0);
    assert!(r.response.read.max_ns > done, "{:?}", r.response.read);
    assert_eq!(
        bus_mean(&r, TxnReason::HostRead),
        (PAGE_XFER + 2 * xfer(4096)) as f64 / 3.0
    );
}

#[test]
fn programs_move_whole_pages() {
    // No DRAM stage: a 4 KiB write programs its whole page (the rest of it padded, no
    // read of the old content).
    let write = vec![io(0, Op::Write, 4096, 4096)];
    for transfer in ["page", "sectors"] {
        let r = run(config(transfer, &[]), write.clone());
        assert_eq!(r.response.write.max_ns, PAGE_XFER + 200_000, "{transfer}");
        assert_eq!(bus_mean(&r, TxnReason::HostWrite), PAGE_XFER as f64);
        assert_eq!(r.transactions.iter().map(|t| t.count).sum::<u64>(), 1);
    }
}

const BUFFER: [&str; 2] = ["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"];

#[test]
fn with_a_dram_stage_the_host_transfer_counts_the_bytes_written_and_read() {
    // A 4 KiB write lands in DRAM; a 4 KiB read of it hits there.
    let reqs = vec![
        io(0, Op::Write, 4096, 4096),
        io(100_000, Op::Read, 4096, 4096),
    ];
    let page = run(config("page", &BUFFER), reqs.clone());
    assert_eq!(page.response.write.max_ns, DRAM_PAGE);
    assert_eq!(page.response.read.max_ns, DRAM_PAGE);
    let r = run(config("sectors", &BUFFER), reqs);
    assert_eq!(r.response.write.max_ns, DRAM_4K);
    assert_eq!(r.response.read.max_ns, DRAM_4K);
    // An unaligned write of 3 pages' span: 1 KiB, a page and 3 KiB in one transfer.
    let reqs = vec![io(0, Op::Write, PAGE - 1024, 1024 + PAGE + 3072)];
    let r = run(config("sectors", &BUFFER), reqs);
    let bytes = 1024 + PAGE + 3072;
    assert_eq!(r.response.write.max_ns, 26 + (bytes * 1000).div_ceil(3200));
}

#[test]
fn a_destage_programs_a_whole_page() {
    // A flush sends the 4 KiB write to flash: one program of a whole page.
    let reqs = vec![io(0, Op::Write, 4096, 4096), io(10_000, Op::Flush, 0, 0)];
    let r = run(config("sectors", &BUFFER), reqs);
    assert_eq!(bus_mean(&r, TxnReason::HostWrite), PAGE_XFER as f64);
    assert_eq!(r.dram.as_ref().unwrap().destaged, 1);
}

#[test]
fn a_read_write_cache_reads_whole_pages_to_keep_them() {
    let cache = ["cache.mode=\"read-write\"", "cache.capacity_mib=1"];
    let reqs = vec![io(0, Op::Read, 0, 4096), io(100_000, Op::Read, 4096, 4096)];
    let r = run(config("sectors", &cache), reqs);
    // The miss reads and moves the whole page, the DRAM transfer is 4 KiB; the second
    // read hits the page kept.
    assert_eq!(bus_mean(&r, TxnReason::HostRead), PAGE_XFER as f64);
    assert_eq!(r.response.read.max_ns, T_READ + PAGE_XFER);
    let d = r.dram.as_ref().unwrap();
    assert_eq!((d.read_hits, d.read_misses), (1, 1));
    assert_eq!(r.response.read.min_ns, DRAM_4K);
}

#[test]
fn page_is_the_default_and_changes_nothing() {
    let run = |sets: &[&str]| {
        let mut all = vec![
            "ftl.precondition.enabled=true",
            "geometry.page_size_bytes=16384",
        ];
        all.extend_from_slice(sets);
        trace_sim(small_config(&all), "msr/hm_0-slice7016.csv.gz")
            .run()
            .unwrap()
    };
    let default = run(&[]);
    let page = run(&["timing.transfer=\"page\""]);
    assert_eq!(default.to_json(), page.to_json());
    let sectors = run(&["timing.transfer=\"sectors\""]);
    assert_ne!(sectors.meta.config_hash, default.meta.config_hash);
    assert!(
        bus_mean(&sectors, TxnReason::HostRead) < bus_mean(&default, TxnReason::HostRead),
        "the trace's small reads move less"
    );
    assert!(sectors.response.read.mean_ns < default.response.read.mean_ns);
}

/// A preconditioned, verified replay of the hm_0 slice with 16 KiB pages and sectors
/// on; returns the report.
fn verified_replay(sets: &[&str]) -> Report {
    let mut all = vec![
        "verify=true",
        "ftl.precondition.enabled=true",
        "ftl.precondition.fill_ratio=1.0",
        "ftl.precondition.overwrite_ratio=0.5",
    ];
    all.extend_from_slice(sets);
    let mut sim = trace_sim(config("sectors", &all), "msr/hm_0-slice7016.csv.gz");
    sim.run_to_end().unwrap();
    sim.check_invariants();
    assert!(sim.audit().unwrap() > 1_000);
    let r = sim.into_report().unwrap();
    assert!(r.counter(Counter::VerifiedReads) > 0, "{:?}", r.counters);
    r
}

#[test]
fn a_real_trace_verifies_with_sectors_without_dram() {
    let r = verified_replay(&[]);
    let bus = bus_mean(&r, TxnReason::HostRead);
    assert!(bus > 0.0 && bus < PAGE_XFER as f64, "{bus}");
    assert!(r.gc_runs > 0, "GC ran");
}

#[test]
fn a_real_trace_verifies_with_sectors_and_a_write_buffer() {
    let r = verified_replay(&BUFFER);
    let d = r.dram.as_ref().unwrap();
    assert!(d.writes_absorbed > 0 && d.destaged > 0, "{d:?}");
    assert!(bus_mean(&r, TxnReason::HostRead) < PAGE_XFER as f64);
}

#[test]
fn a_real_trace_verifies_with_sectors_and_a_read_write_cache() {
    let r = verified_replay(&["cache.mode=\"read-write\"", "cache.capacity_mib=1"]);
    assert!(r.dram.as_ref().unwrap().fills > 0);
    assert_eq!(bus_mean(&r, TxnReason::HostRead), PAGE_XFER as f64);
}

#[test]
fn an_unknown_transfer_is_refused_by_its_key() {
    let e = match ssdlab::ConfigBuilder::new().set("timing.transfer=\"bytes\"") {
        Err(e) => e.to_string(),
        Ok(b) => b.build().unwrap_err().to_string(),
    };
    assert!(e.contains("timing.transfer"), "{e}");
    assert!(e.contains("sectors"), "{e}");
}

/// Without a DRAM stage, with a write buffer, with a read-write cache.
const STAGES: [&[&str]; 3] = [
    &[],
    &BUFFER,
    &["cache.mode=\"read-write\"", "cache.capacity_mib=1"],
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Every placement, redundancy and design of the liveness tests, behind each kind of
    /// stage, with sectors on and requests that start and end inside pages: every
    /// request completes and every page verifies.
    #[test]
    fn every_design_finishes_verified_with_unaligned_requests(
        design in 0..SHAPES.len() + DESIGNS.len(),
        stage in 0..STAGES.len(),
        overwrite in 0u8..6,
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in ops_with_content(200..500),
    ) {
        let shape = if design < SHAPES.len() {
            SHAPES[design]
        } else {
            DESIGNS[design - SHAPES.len()]
        };
        let mut s = sets(shape, overwrite, false);
        s.push("timing.transfer=\"sectors\"".to_string());
        s.extend(STAGES[stage].iter().map(|x| x.to_string()));
        // Sectors off the start of the first page and the end of the last.
        let mut reqs = requests(&ops, gap_ns);
        for (i, r) in reqs.iter_mut().enumerate() {
            let head = (i as u64 * 3) % 8 * 512;
            let tail = ((i as u64 * 5) % 8 * 512).min(r.size_bytes - head - 512);
            r.offset_bytes += head;
            r.size_bytes -= head + tail;
        }
        let (checked, report) = finishes(&s, reqs)?;
        prop_assert!(checked > 0);
        prop_assert_eq!(report.requests.all, ops.len() as u64);
        if report.requests.read > 0 && stage == 0 {
            prop_assert!(report.counter(Counter::VerifiedReads) > 0);
        }
    }
}

/// Transactions of `reason` in `r`.
fn count(r: &Report, reason: TxnReason) -> u64 {
    r.reason(reason).map_or(0, |s| s.count)
}

/// A whole page (LPN 0) programs in a page transfer and t_prog.
const PROGRAM: u64 = PAGE_XFER + 200_000;
/// A merge read moves the whole page it reads.
const MERGE_READ: u64 = T_READ + PAGE_XFER;

fn verified(transfer: &str, sets: &[&str]) -> SimConfig {
    let mut all = vec!["verify=true"];
    all.extend_from_slice(sets);
    config(transfer, &all)
}

#[test]
fn a_partial_write_of_a_written_page_reads_the_page_before_its_program() {
    let reqs = vec![
        io(0, Op::Write, 0, PAGE),
        io(1_000_000, Op::Write, 4096, 4096),
        io(2_000_000, Op::Read, 0, PAGE),
    ];
    let r = run(verified("sectors", &[]), reqs.clone());
    assert_eq!(count(&r, TxnReason::MergeRead), 1);
    assert_eq!(count(&r, TxnReason::HostWrite), 2);
    assert_eq!(r.response.write.max_ns, MERGE_READ + PROGRAM);
    assert_counter(&r, Counter::PartialWritePages, 1);
    assert_counter(&r, Counter::MergeReads, 1);
    assert_counter(&r, Counter::VerifiedReads, 1);
    // Whole-page transfers keep today's model: the page is programmed as it is.
    let page = run(verified("page", &[]), reqs);
    assert_eq!(count(&page, TxnReason::MergeRead), 0);
    assert_eq!(page.response.write.max_ns, PROGRAM);
    assert_eq!(page.counter(Counter::MergeReads), 0);
}

#[test]
fn only_sectors_written_before_and_not_written_now_are_read() {
    // Never written: nothing to merge. The same sectors again: nothing either. Other
    // sectors of it: a read.
    let reqs = vec![
        io(0, Op::Write, 4096, 4096),
        io(1_000_000, Op::Write, 4096, 4096),
        io(2_000_000, Op::Write, 8192, 4096),
    ];
    let r = run(verified("sectors", &[]), reqs);
    assert_eq!(count(&r, TxnReason::MergeRead), 1);
    assert_eq!(count(&r, TxnReason::HostWrite), 3);
    assert_eq!(r.response.write.max_ns, MERGE_READ + PROGRAM);
    assert_eq!(r.response.write.min_ns, PROGRAM);
}

#[test]
fn a_whole_page_write_supersedes_a_write_waiting_for_its_merge_read() {
    // The partial write waits for its read; the whole-page write after it is placed at
    // once, and the waiting version is dropped unprogrammed. The read returns the last.
    let reqs = vec![
        io(0, Op::Write, 0, PAGE),
        io(1_000_000, Op::Write, 4096, 4096),
        io(1_000_001, Op::Write, 0, PAGE),
        io(2_000_000, Op::Read, 0, 4096),
    ];
    let r = run(verified("sectors", &[]), reqs);
    assert_eq!(count(&r, TxnReason::MergeRead), 1);
    assert_eq!(
        count(&r, TxnReason::HostWrite),
        2,
        "the waiting version is not programmed"
    );
    assert_counter(&r, Counter::VerifiedReads, 1);
    // The dropped write is done when its read ends.
    assert_eq!(r.response.write.count, 3);
}

#[test]
fn a_partial_write_joins_the_merge_read_already_running_for_its_page() {
    let reqs = vec![
        io(0, Op::Write, 0, PAGE),
        io(1_000_000, Op::Write, 4096, 4096),
        io(1_000_001, Op::Write, 8192, 4096),
        // Read while the merge read runs: served by the version waiting in the
        // controller.
        io(1_000_002, Op::Read, 8192, 4096),
        io(2_000_000, Op::Read, 0, PAGE),
    ];
    let r = run(verified("sectors", &[]), reqs);
    assert_eq!(count(&r, TxnReason::MergeRead), 1);
    assert_eq!(count(&r, TxnReason::HostWrite), 2);
    assert_counter(&r, Counter::MergedInController, 1);
    assert_counter(&r, Counter::VerifiedReads, 2);
}

#[test]
fn with_a_dram_stage_partial_writes_merge_in_dram_and_the_destage_reads_the_rest() {
    let buffered = [BUFFER[0], BUFFER[1]];
    let reqs = vec![
        io(0, Op::Write, 0, PAGE),
        IoRequest::flush(1),
        io(1_000_000, Op::Write, 4096, 4096),
        io(1_000_001, Op::Write, 8192, 4096),
        IoRequest::flush(1_000_002),
        io(2_000_000, Op::Read, 0, PAGE),
    ];
    let r = run(verified("sectors", &buffered), reqs.clone());
    // The two 4 KiB writes meet in DRAM; their page leaves with 8 KiB of 16 and is
    // merged with its flash copy on the way.
    assert_counter(&r, Counter::PartialWritePages, 2);
    assert_counter(&r, Counter::MergedInController, 1);
    assert_eq!(count(&r, TxnReason::MergeRead), 1);
    assert_eq!(count(&r, TxnReason::HostWrite), 2);
    assert_eq!(r.response.write.min_ns, DRAM_4K);
    // A partial write onto a whole page DRAM still holds merges there: no read.
    let reqs = vec![
        io(0, Op::Write, 0, PAGE),
        io(1, Op::Write, 4096, 4096),
        IoRequest::flush(2),
        io(2_000_000, Op::Read, 0, PAGE),
    ];
    let r = run(verified("sectors", &buffered), reqs);
    assert_eq!(count(&r, TxnReason::MergeRead), 0);
    assert_eq!(count(&r, TxnReason::HostWrite), 1);
    assert_counter(&r, Counter::MergedInController, 1);
}
