//! PIQ and BRR on hand-worked queues in the spirit of the BRR paper's figures 5 and 9,
//! and BRR verified on a real trace.
//!
//! The device of the figures: 9 chips, each alone on its channel (no bus contention),
//! chip-level RAID-5 in 3 LCI groups of 3: G0 = {c0, c3, c6}, G1 = {c1, c4, c7},
//! G2 = {c2, c5, c8} (docs/RAID.md §2). Parity sits on position 2 − (row mod 3), so
//!
//! ```text
//!   row 0: parity c6 c7 c8   LPN 0..5   → c0..c5
//!   row 1: parity c3 c4 c5   LPN 6..11  → c0 c1 c2 c6 c7 c8
//!   row 2: parity c0 c1 c2   LPN 12..17 → c3..c8
//!   row 3: parity c6 c7 c8   LPN 18..23 → c0..c5
//!   row 4: parity c3 c4 c5   LPN 24..29 → c0 c1 c2 c6 c7 c8
//! ```
//!
//! With the default timing one read is one slot: t_read 25 000 ns + one 4 KiB page on
//! its own bus 10 240 ns = 35 240 ns. Reads of never-written pages materialize their
//! whole stripe with parity at admission, in zero time.

use crate::util::{page, small_config, trace_sim, vec_sim};
use ssdlab::ConfigBuilder;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

const SLOT: u64 = 25_000 + 10_240;

fn nine_chips(scheduler: &str, depth: u32) -> ssdlab::SimConfig {
    ConfigBuilder::new()
        .text(
            "[geometry]\nchannels = 9\nchips_per_channel = 1\ndies_per_chip = 1\n\
             planes_per_die = 1\nblocks_per_plane = 32\npages_per_block = 16\n\
             page_size_bytes = 4096\n\
             [raid]\nlevel = 5\ngroup_size = 3\nlayout = \"lci\"\n",
            "nine-chips",
        )
        .unwrap()
        .set(&format!("scheduler.name={scheduler}"))
        .unwrap()
        .set(&format!("scheduler.chip_queue_depth={depth}"))
        .unwrap()
        .set("verify=true")
        .unwrap()
        .build()
        .unwrap()
}

fn reads(lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        arrival_ns: 0,
        op: Op::Read,
        fua: false,
        offset_bytes: lpn * 4096,
        size_bytes: pages * 4096,
        content: None,
        stream: None,
    }
}

/// Last completion and the report of `reqs` (all arriving at 0) under `scheduler`.
fn last_done(scheduler: &str, depth: u32, reqs: &[IoRequest]) -> (u64, ssdlab::Report) {
    let r = vec_sim(nine_chips(scheduler, depth), reqs.to_vec())
        .run()
        .unwrap();
    (r.sim_time_ns, r)
}

#[test]
fn sync_fifo_needs_more_slots_than_piq_and_async_fifo() {
    // R0 = c0 (LPN 0); R1 = c0 + c1 (LPN 6, 7); R2 = c1 + c2 (LPN 1, 2); R3 = c3 (LPN 3).
    // Sync_FIFO: R0 in slot 1; R1 waits for c0, slot 2; R2 waits for c1 (R1), slot 3,
    //   and R3 is released with it: 3 slots.
    // Async_FIFO: c0 = R0, R1; c1 = R1, R2; c2 = R2; c3 = R3: 2 slots.
    // PIQ: batch B0 = {R0, R2, R3} (no shared chip), B1 = {R1} (shares c0 with R0).
    //   Every chip queue has room at once, so each chip serves its two reads at most:
    //   2 slots.
    let q = [reads(0, 1), reads(6, 2), reads(1, 2), reads(3, 1)];
    let (sync, _) = last_done("sync-fifo", 64, &q);
    let (fifo, _) = last_done("async-fifo", 64, &q);
    let (piq, r) = last_done("piq", 64, &q);
    assert_eq!(sync, 3 * SLOT);
    assert_eq!(fifo, 2 * SLOT);
    assert_eq!(piq, 2 * SLOT);
    assert_eq!(r.counter(Counter::VerifiedReads), 6);
}

#[test]
fn piq_batches_reorder_a_full_chip_queue() {
    // Chip queue depth 1. R0 = c0 (LPN 0), R1 = c0 (LPN 6), R2 = c0 (LPN 18),
    // R3 = c0 c1 (LPN 0, 1), R4 = c0 c1 (LPN 6, 7), R5 = c0 c1 (LPN 18, 19),
    // R6 = c1 (LPN 25), all at 0, in this order.
    // c0 serves R0, R1, R2, R3, R4, R5 in slots 1..6 under every policy.
    // Async_FIFO: c1 serves R3, R4, R5, R6 in arrival order: R6 ends in slot 4.
    //   Completions R0..R6 = 1, 2, 3, 4, 5, 6, 4 slots: sum 25.
    // PIQ: R0 and R1 reach their queue at once (their batches close); R2 is held in
    //   batch B3 = {c0}; R3, R4, R5 open B4, B5, B6 (each shares c0 or c1); R5's c1 page
    //   is held. R6 shares nothing with B3 and joins it, so on c1 it overtakes R5:
    //   c1 serves R3, R4, R6, R5. Completions 1, 2, 3, 4, 5, 6, 3: sum 24.
    let q = [
        reads(0, 1),
        reads(6, 1),
        reads(18, 1),
        reads(0, 2),
        reads(6, 2),
        reads(18, 2),
        reads(25, 1),
    ];
    let (fifo, f) = last_done("async-fifo", 1, &q);
    let (piq, p) = last_done("piq", 1, &q);
    assert_eq!(fifo, 6 * SLOT);
    assert_eq!(piq, 6 * SLOT);
    let sum = |r: &ssdlab::Report| (r.response.read.mean_ns * 7.0).round() as u64;
    assert_eq!(sum(&f), 25 * SLOT);
    assert_eq!(sum(&p), 24 * SLOT);
    assert_eq!(p.counter(Counter::VerifiedReads), 10);
}

#[test]
fn brr_redirects_reads_off_a_busy_chip_and_finishes_in_fewer_slots() {
    // Four single-page reads of c0: LPN 0 (row 0), 6 (row 1), 18 (row 3), 24 (row 4).
    // PIQ (and Async_FIFO): c0 serves all four: 4 slots.
    // BRR, L_r = one slot, WT counting queued and running operations:
    //   R0: c0 idle (WT 0): direct, starts at once.
    //   R1 (row 1, G0: c3 parity, c6 LPN 9): WT_c0 = 1 (R0 runs), WT_c3 = WT_c6 = 0,
    //     no later arrival: 0 + 1 ≤ 1 → redirected; c3 and c6 read in slot 1.
    //   R2 (row 3, G0: c3 LPN 21, c6 parity): WT_c0 = 1, WT_c3 = 1 (R1's read runs):
    //     1 + 1 > 1 → direct, queued on c0 behind R0: slot 2.
    //   R3 (row 4, G0: c3 parity, c6 LPN 27): WT_c0 = 2, WT_c3 = WT_c6 = 1:
    //     1 + 1 ≤ 2 → redirected; c3 and c6 read it in slot 2.
    // BRR: 2 slots, 2 redirected reads, 4 extra reads.
    let q = [reads(0, 1), reads(6, 1), reads(18, 1), reads(24, 1)];
    let (piq, _) = last_done("piq", 64, &q);
    let (brr, r) = last_done("brr", 64, &q);
    assert_eq!(piq, 4 * SLOT);
    assert_eq!(brr, 2 * SLOT);
    assert_eq!(r.counter(Counter::RedirectedReads), 2);
    assert_eq!(r.counter(Counter::RaidReconstructReads), 4);
    assert_eq!(r.counter(Counter::VerifiedReads), 4);
    assert!((r.redirected_read_ratio - 0.5).abs() < 1e-9);
}

#[test]
fn brr_does_not_redirect_onto_chips_a_later_request_needs() {
    // As above, then R4 = c3 (LPN 3) arrives 1 ns later. R1 and R3 are decided at 0,
    // before R4 exists, so both are redirected as above; R4 then queues on c3 behind
    // the member reads. AT_j only counts requests held in the batch lists.
    let mut q = vec![reads(0, 1), reads(6, 1), reads(18, 1), reads(24, 1)];
    q.push(page(1, Op::Read, 3));
    let (_, r) = last_done("brr", 64, &q);
    assert_eq!(r.counter(Counter::RedirectedReads), 2);
    assert_eq!(r.counter(Counter::VerifiedReads), 5);
}

#[test]
fn write_behind_read_serves_queued_reads_before_a_program() {
    // c0: R0 reads LPN 18 and starts at once; W writes LPN 0 (program: 10 240 ns on the
    // bus + 200 000 ns) and queues; R1 reads LPN 6 and queues behind W. All at 0.
    // Plain PIQ: R1 waits for R0 and W: SLOT + 210 240 + SLOT.
    // Write-behind-read: when W reaches the head, R1 is already queued: R1 goes first
    // and ends at 2 SLOT; W follows.
    let q = vec![
        page(0, Op::Read, 18),
        page(0, Op::Write, 0),
        page(0, Op::Read, 6),
    ];
    let plain = vec_sim(nine_chips("piq", 64), q.clone()).run().unwrap();
    let mut cfg = nine_chips("piq", 64);
    cfg.scheduler.write_behind_read = true;
    let wbr = vec_sim(cfg, q).run().unwrap();
    assert_eq!(plain.response.read.max_ns, 2 * SLOT + 210_240);
    assert_eq!(wbr.response.read.max_ns, 2 * SLOT);
}

#[test]
fn brr_verifies_on_a_real_trace_and_redirects() {
    for sched in ["piq", "brr"] {
        let mut cfg = small_config(&[
            "verify=true",
            "ftl.precondition.enabled=true",
            "raid.level=5",
            "raid.group_size=4",
            "raid.layout=lci",
            "raid.buffer_new_writes=true",
            "scheduler.write_behind_read=true",
        ]);
        cfg.scheduler.name = if sched == "brr" {
            ssdlab::SchedulerKind::Brr
        } else {
            ssdlab::SchedulerKind::Piq
        };
        let mut sim = trace_sim(cfg, "msr/hm_0-slice7016.csv.gz");
        sim.run_to_end().unwrap_or_else(|e| panic!("{sched}: {e}"));
        sim.check_invariants();
        sim.audit().unwrap_or_else(|e| panic!("{sched}: {e}"));
        let r = sim.into_report().unwrap();
        assert!(r.counter(Counter::VerifiedReads) > 0, "{sched}");
        let redirected = r.counter(Counter::RedirectedReads);
        if sched == "brr" {
            assert!(redirected > 0, "{sched}: nothing redirected");
        } else {
            assert_eq!(redirected, 0);
        }
    }
}
