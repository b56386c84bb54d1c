//! The DRAM stage in the request path: each rule on a run, and every design with a DRAM
//! stage under space pressure finishing verified.

use crate::liveness::{finishes, ops_with_content, requests, sets, DESIGNS, SHAPES};
use crate::util::{assert_counter, io, small_config, vec_sim};
use proptest::prelude::*;
use ssdlab::Report;
use ssdlab_nand::TxnReason;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

/// The small device, filled, verified, with `cache` keys on top.
fn run(cache: &[&str], reqs: Vec<IoRequest>) -> Report {
    let mut sets = vec!["verify=true", "ftl.precondition.enabled=true"];
    sets.extend_from_slice(cache);
    let mut sim = vec_sim(small_config(&sets), reqs);
    sim.run_to_end().expect("the run");
    sim.audit().expect("the audit");
    sim.into_report().expect("the report")
}

/// Flash operations of `reason` in `r`.
fn flash(r: &Report, reason: TxnReason) -> u64 {
    r.transactions
        .iter()
        .find(|t| t.reason == reason)
        .map_or(0, |t| t.count)
}

const BUFFER: [&str; 2] = ["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"];

#[test]
fn a_read_of_a_buffered_page_is_served_from_dram_without_flash() {
    let r = run(
        &BUFFER,
        vec![io(0, Op::Write, 10, 1), io(100, Op::Read, 10, 1)],
    );
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.read_hits, d.read_misses), (1, 0));
    assert_eq!(flash(&r, TxnReason::HostRead), 0);
    assert_counter(&r, Counter::VerifiedReads, 1);
    // Acknowledged from DRAM: microseconds, not a program's 200.
    assert!(r.response.write.max_ns < 10_000, "{:?}", r.response.write);
}

#[test]
fn a_partial_hit_reads_only_the_missing_pages_from_flash() {
    let r = run(
        &BUFFER,
        vec![io(0, Op::Write, 20, 2), io(100, Op::Read, 20, 4)],
    );
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.read_hits, d.read_misses), (2, 2));
    assert_eq!(flash(&r, TxnReason::HostRead), 2);
    assert_counter(&r, Counter::VerifiedReads, 4);
}

#[test]
fn a_newer_write_supersedes_a_buffered_page_without_a_program() {
    let reqs = vec![
        io(0, Op::Write, 5, 1),
        io(10, Op::Write, 5, 1),
        io(20, Op::Read, 5, 1),
    ];
    let r = run(&BUFFER, reqs);
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.writes_absorbed, d.write_hits, d.superseded), (2, 1, 1));
    assert_eq!(d.never_reached_flash, 0.5);
    assert_eq!(
        flash(&r, TxnReason::HostWrite),
        0,
        "below the watermark: nothing destaged"
    );
    assert_eq!(d.dirty_at_end, 1);
    assert_counter(&r, Counter::VerifiedReads, 1);
}

#[test]
fn a_write_that_finds_dram_full_waits_and_its_latency_says_why() {
    // 640 pages at once into 256 pages of DRAM.
    let burst: Vec<IoRequest> = (0..20).map(|i| io(0, Op::Write, i * 32, 32)).collect();
    let r = run(&BUFFER, burst.clone());
    let d = r.dram.as_ref().expect("the dram section");
    assert!(d.buffer_waits > 0 && d.buffer_wait_ns_mean > 0.0, "{d:?}");
    let waited = r
        .breakdown
        .write
        .buffer_wait_ns_mean
        .expect("a buffer-wait part");
    assert!(waited > 100_000.0, "{waited}");
    // With room for all of it, nothing waits.
    let big = run(
        &["cache.mode=\"write-buffer\"", "cache.capacity_mib=4"],
        burst,
    );
    let d = big.dram.as_ref().expect("the dram section");
    assert_eq!(d.buffer_waits, 0);
    assert_eq!(big.breakdown.write.buffer_wait_ns_mean, Some(0.0));
    assert!(big.response.write.mean_ns < r.response.write.mean_ns / 10.0);
}

#[test]
fn whole_rows_leave_dram_as_full_stripe_writes() {
    // RAID-5 of four chips: rows of six host pages (two groups of two data pages and
    // parity); 60 rows written in order, flushed out by the watermark.
    let writes: Vec<IoRequest> = (0..60).map(|i| io(i * 5, Op::Write, i * 6, 6)).collect();
    let cache = [
        "cache.mode=\"write-buffer\"",
        "cache.capacity_mib=1",
        "cache.high_watermark=0.1",
        "cache.low_watermark=0.0",
        "raid.level=5",
        "raid.group_size=4",
    ];
    let r = run(&cache, writes);
    assert!(r.counter(Counter::RaidFullGroup) > 0, "{:?}", r.counters);
    assert_counter(&r, Counter::RaidRmw, 0);
    assert_counter(&r, Counter::RaidRcw, 0);
    assert_counter(&r, Counter::RaidPreReads, 0);
}

#[test]
fn a_read_write_cache_keeps_what_it_read() {
    let cache = ["cache.mode=\"read-write\"", "cache.capacity_mib=1"];
    let r = run(
        &cache,
        vec![io(0, Op::Read, 40, 4), io(1_000, Op::Read, 40, 4)],
    );
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.fills, d.read_hits, d.read_misses), (4, 4, 4));
    assert_eq!(flash(&r, TxnReason::HostRead), 4);
    // A write buffer does not.
    let r = run(
        &BUFFER,
        vec![io(0, Op::Read, 40, 4), io(1_000, Op::Read, 40, 4)],
    );
    assert_eq!(flash(&r, TxnReason::HostRead), 8);
}

#[test]
fn without_a_dram_stage_the_report_has_no_dram_section() {
    let r = run(&[], vec![io(0, Op::Write, 10, 1)]);
    assert!(r.dram.is_none());
    assert!(r.breakdown.all.buffer_wait_ns_mean.is_none());
    assert!(!r.to_json().contains("\"dram\""));
}

/// DRAM stages of every kind, small enough to fill under the liveness workloads.
const CACHES: [&[&str]; 6] = [
    &["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"],
    &[
        "cache.mode=\"write-buffer\"",
        "cache.capacity_mib=1",
        "cache.destage=\"on-demand\"",
    ],
    &[
        "cache.mode=\"read-write\"",
        "cache.capacity_mib=1",
        "cache.replacement=\"clean-first-lru\"",
    ],
    &[
        "cache.mode=\"read-write\"",
        "cache.capacity_mib=1",
        "cache.replacement=\"fifo\"",
        "cache.max_destage_in_flight=2",
    ],
    &[
        "cache.mode=\"read-write\"",
        "cache.capacity_mib=2",
        "cache.write_policy=\"write-through\"",
    ],
    &[
        "cache.mode=\"write-buffer\"",
        "cache.capacity_mib=1",
        "cache.high_watermark=0.3",
        "cache.low_watermark=0.1",
    ],
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Every placement, redundancy and design behind every kind of DRAM stage, under
    /// space pressure: every request completes, every read returns what was last
    /// written (from DRAM or flash), and the audit finds flash and DRAM consistent.
    #[test]
    fn every_design_behind_a_dram_stage_finishes_verified(
        design in 0..SHAPES.len() + DESIGNS.len(),
        cache in 0..CACHES.len(),
        overwrite in 0u8..6,
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in ops_with_content(400..900),
    ) {
        let shape = if design < SHAPES.len() {
            SHAPES[design]
        } else {
            DESIGNS[design - SHAPES.len()]
        };
        let mut s = sets(shape, overwrite, false);
        s.extend(CACHES[cache].iter().map(|x| x.to_string()));
        let (checked, report) = finishes(&s, requests(&ops, gap_ns))?;
        prop_assert!(checked > 0);
        let d = report.dram.as_ref().expect("the dram section");
        prop_assert_eq!(
            d.writes_absorbed,
            d.superseded + d.destaged + d.dirty_at_end,
            "every absorbed write: superseded, destaged or still dirty ({:?})", d
        );
    }
}
