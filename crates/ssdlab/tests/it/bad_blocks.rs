//! Grown bad blocks and retention refresh (docs/ERRORS.md §5) on the small device with
//! GC running and verify on: failed erases retire their blocks; a failed program's
//! block has its data moved (`retire-*` transactions) before it is retired, and every
//! page reads back right; the spares run out and the drive turns read-only (writes
//! refused with a status, reads served); the same seed gives the same failures; chip
//! RAID-5 moves a retired block's stripe members like GC's; retention refresh relocates
//! old blocks through the refresh reasons.

use crate::util::{io, small_config, vec_sim};
use ssdlab::Report;
use ssdlab_ftl::BlockState;
use ssdlab_nand::{BlockId, TxnReason};
use ssdlab_stats::HousekeepingReport;
use ssdlab_trace::{IoRequest, Op};

/// The small device with 24 blocks per plane (GC runs) and 40 % over-provisioning (a
/// few spare blocks per plane: 7 372 logical pages, 461 a plane, the spares run out
/// below 19 good blocks), preconditioned, verified, at the rated wear (3000 P/E
/// cycles: the failure probabilities apply as set).
fn device(sets: &[&str]) -> ssdlab::SimConfig {
    let mut all = vec![
        "verify=true",
        "geometry.blocks_per_plane=24",
        "ftl.over_provisioning=0.4",
        "ftl.precondition.enabled=true",
        "errors.mode=\"on\"",
        "errors.initial_pe=3000",
    ];
    all.extend_from_slice(sets);
    small_config(&all)
}

/// `n` one-page writes over the first `span` logical pages (a fixed pseudo-random
/// order), then a read of each page written, 20 µs apart.
fn churn(n: u64, span: u64) -> Vec<IoRequest> {
    let mut x = 12345u64;
    let mut lpns = Vec::new();
    for _ in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lpns.push((x >> 33) % span);
    }
    let mut reqs: Vec<IoRequest> = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| io(i as u64 * 20, Op::Write, l, 1))
        .collect();
    let t0 = n * 20;
    reqs.extend(
        lpns.iter()
            .enumerate()
            .map(|(i, &l)| io(t0 + i as u64 * 20, Op::Read, l, 1)),
    );
    reqs
}

struct Run {
    r: Report,
    h: HousekeepingReport,
    statuses: Vec<u8>,
    retired: Vec<BlockId>,
}

fn run(sets: &[&str], reqs: Vec<IoRequest>) -> Run {
    let mut sim = vec_sim(device(sets), reqs);
    sim.keep_request_log();
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    let ftl = sim.ftl();
    let retired = (0..ftl.geometry().blocks())
        .map(BlockId)
        .filter(|&b| ftl.block_state(b) == BlockState::Retired)
        .collect();
    let log = sim.take_request_log().unwrap();
    let statuses = log.status.unwrap();
    let r = sim.into_report().unwrap();
    let h = r.errors.as_ref().unwrap().housekeeping.clone().unwrap();
    Run {
        r,
        h,
        statuses,
        retired,
    }
}

fn pages_of(r: &Report, reason: TxnReason) -> u64 {
    r.transactions
        .iter()
        .find(|t| t.reason == reason)
        .map_or(0, |t| t.pages)
}

#[test]
fn failed_erases_retire_their_blocks() {
    let x = run(&["errors.erase_fail_prob=0.05"], churn(20_000, 6_000));
    let h = &x.h;
    assert!(x.r.gc_runs > 100, "GC ran: {}", x.r.gc_runs);
    assert!(h.erase_failures > 0, "{h:?}");
    assert_eq!(h.program_failures, 0);
    // Each failure retires its block at once, defers it (no other free block), or
    // (the last) turns the drive read-only instead.
    assert!(h.retired_by_erase <= h.erase_failures, "{h:?}");
    let read_only = u64::from(h.read_only_at_ns.is_some());
    assert!(
        h.erase_failures <= h.retired_by_erase + h.retire_deferred + read_only,
        "{h:?}"
    );
    assert_eq!(h.retired_blocks, x.retired.len() as u64, "the FTL agrees");
    assert_eq!(
        (h.retire_relocations, pages_of(&x.r, TxnReason::RetireWrite)),
        (0, 0)
    );
    assert!(h.good_blocks_min < 24, "{h:?}");
    // Reads are never lost; writes are served or, once read-only, refused.
    assert!(x.statuses.iter().all(|&s| s != 1));
    let refused = x.statuses.iter().filter(|&&s| s == 2).count() as u64;
    assert_eq!(refused, h.refused_writes);
}

/// The must-show: a failed program's block has its valid data moved by the collector
/// as `retire-*` traffic, then is retired; every page reads back what was written
/// (verify, and the audit of every mapped page).
#[test]
fn a_failed_program_moves_the_block_s_data_and_retires_it() {
    let x = run(&["errors.program_fail_prob=0.0005"], churn(20_000, 6_000));
    let h = &x.h;
    assert!(h.program_failures > 0, "{h:?}");
    assert!(h.retire_relocations > 0, "{h:?}");
    assert!(h.retire_pages > 0, "{h:?}");
    // Every valid page is read; a page the host overwrote meanwhile is not written.
    assert_eq!(pages_of(&x.r, TxnReason::RetireRead), h.retire_pages);
    assert!(pages_of(&x.r, TxnReason::RetireWrite) <= h.retire_pages);
    assert!(pages_of(&x.r, TxnReason::RetireWrite) > h.retire_pages / 2);
    assert!(pages_of(&x.r, TxnReason::RetireErase) <= h.retire_relocations);
    assert!(pages_of(&x.r, TxnReason::RetireErase) > 0);
    assert_eq!(h.retired_blocks, x.retired.len() as u64);
    assert!(h.retired_by_program > 0 && h.retired_by_program <= h.program_failures);
    assert_eq!(x.r.errors.as_ref().unwrap().lost_reads, 0);
    assert!(x.statuses.iter().all(|&s| s == 0), "no request failed");
}

#[test]
fn the_drive_turns_read_only_when_the_spares_run_out_and_still_reads() {
    let x = run(&["errors.erase_fail_prob=0.5"], churn(20_000, 6_000));
    let h = &x.h;
    let at = h.read_only_at_ns.expect("read-only");
    assert!(at > 0 && h.retired_at_read_only > 0, "{h:?}");
    assert!(h.refused_writes > 0, "{h:?}");
    let refused = x.statuses.iter().filter(|&&s| s == 2).count() as u64;
    assert_eq!(refused, h.refused_writes, "each a read-only status");
    // Every read was served (verify checked its content), none a media error.
    assert!(x.statuses.iter().all(|&s| s != 1));
    assert!(x.r.response.read.count > 0);
}

#[test]
fn the_same_seed_gives_the_same_failures() {
    let sets = [
        "errors.erase_fail_prob=0.05",
        "errors.program_fail_prob=0.0005",
    ];
    let a = run(&sets, churn(8_000, 6_000));
    let b = run(&sets, churn(8_000, 6_000));
    assert_eq!(a.h, b.h);
    assert_eq!(a.retired, b.retired);
    let mut other = sets.to_vec();
    other.push("seed=7");
    let c = run(&other, churn(8_000, 6_000));
    assert_ne!(a.retired, c.retired);
}

/// With chip RAID-5 the retired block's members (data and parity) move through the
/// collector like GC's; verify checks every read and the audit every page.
#[test]
fn with_chip_raid5_a_retired_block_s_stripe_members_move_and_verify() {
    let x = run(
        &[
            "raid.level=5",
            "errors.program_fail_prob=0.0005",
            "errors.erase_fail_prob=0.02",
        ],
        churn(15_000, 6_000),
    );
    let h = &x.h;
    assert!(h.retire_relocations > 0 && h.retired_by_erase > 0, "{h:?}");
    assert_eq!(pages_of(&x.r, TxnReason::RetireRead), h.retire_pages);
    assert!(pages_of(&x.r, TxnReason::RetireWrite) <= h.retire_pages);
    assert!(x.statuses.iter().all(|&s| s != 1), "no read lost");
    let refused = x.statuses.iter().filter(|&&s| s == 2).count() as u64;
    assert_eq!(refused, h.refused_writes);
}

/// Retention refresh: with the data already on the drive a year old and a threshold
/// below that, the first scan queues every full block; they move as `refresh-*`
/// transactions (not GC), and the pages read back right.
#[test]
fn retention_refresh_relocates_old_blocks() {
    let reads: Vec<IoRequest> = (0..2_000).map(|i| io(i * 50, Op::Read, i * 3, 1)).collect();
    let x = run(
        &[
            "errors.initial_age_s=3.15e7",
            "errors.refresh_age_s=2.0e7",
            "errors.refresh_scan_s=1.0",
        ],
        reads,
    );
    let h = &x.h;
    assert!(h.refresh_scans >= 1);
    assert!(h.refreshed_blocks > 100, "{h:?}");
    assert_eq!(pages_of(&x.r, TxnReason::RefreshRead), h.refreshed_pages);
    assert_eq!(
        pages_of(&x.r, TxnReason::RefreshWrite),
        h.refreshed_pages,
        "reads only: no page overwritten meanwhile"
    );
    assert_eq!(x.r.errors.as_ref().unwrap().reclaimed_blocks, 0);
    assert_eq!((h.erase_failures, h.program_failures), (0, 0));
    // A threshold above the data's age refreshes nothing.
    let y = run(
        &["errors.initial_age_s=3.15e7", "errors.refresh_age_s=4.0e7"],
        (0..200).map(|i| io(i * 50, Op::Read, i * 3, 1)).collect(),
    );
    assert_eq!(y.h.refreshed_blocks, 0);
    assert_eq!(pages_of(&y.r, TxnReason::RefreshWrite), 0);
}

#[test]
fn bad_housekeeping_settings_are_refused_by_key() {
    for (sets, key) in [
        (
            &["errors.erase_fail_prob=1.5"][..],
            "errors.erase_fail_prob",
        ),
        (
            &["errors.program_fail_prob=-1.0"][..],
            "errors.program_fail_prob",
        ),
        (&["errors.rated_pe=0"][..], "errors.rated_pe"),
        (&["errors.refresh_scan_s=60.0"][..], "errors.refresh_scan_s"),
        (&["errors.refresh_age_s=-1.0"][..], "errors.refresh_age_s"),
        (
            &[
                "errors.erase_fail_prob=0.1",
                "nand.cell=\"tlc\"",
                "nand.slc_cache.mode=\"dynamic\"",
            ][..],
            "nand.slc_cache.mode",
        ),
    ] {
        let mut b = ssdlab::ConfigBuilder::new()
            .set("errors.mode=\"on\"")
            .unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        let err = b.build().unwrap_err().to_string();
        assert!(err.contains(key), "{sets:?}: {err}");
    }
}
