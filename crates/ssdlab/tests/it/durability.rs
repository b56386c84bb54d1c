//! Flush commands, FUA writes and power losses, with and without a DRAM stage: each
//! rule on a run, and a real trace losing power with and without power-loss protection.

use crate::util::{assert_counter, io, small_config, trace_sim, vec_sim};
use ssdlab::Report;
use ssdlab_nand::TxnReason;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

fn fua(t_us: u64, lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        fua: true,
        ..io(t_us, Op::Write, lpn, pages)
    }
}

/// The small device, filled, verified, with `sets` on top; audited at the end.
fn run(sets: &[&str], reqs: Vec<IoRequest>) -> Report {
    let mut all = vec!["verify=true", "ftl.precondition.enabled=true"];
    all.extend_from_slice(sets);
    let mut sim = vec_sim(small_config(&all), reqs);
    sim.run_to_end().expect("the run");
    sim.audit().expect("the audit");
    sim.into_report().expect("the report")
}

fn programs(r: &Report) -> u64 {
    r.transactions
        .iter()
        .find(|t| t.reason == TxnReason::HostWrite)
        .map_or(0, |t| t.count)
}

const BUFFER: [&str; 2] = ["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"];

#[test]
fn a_flush_waits_until_the_writes_acknowledged_before_it_are_programmed() {
    let reqs = vec![io(0, Op::Write, 10, 4), IoRequest::flush(20_000)];
    let r = run(&BUFFER, reqs);
    let d = r.dram.as_ref().expect("the dram section");
    assert_counter(&r, Counter::Flushes, 1);
    assert_eq!(d.flushes, 1);
    assert_eq!(d.dirty_at_end, 0, "the flush destaged every dirty page");
    assert_eq!(programs(&r), 4);
    // A program is 200 µs on this device: the flush waited for one at least.
    assert!(d.flush_wait_ns_max >= 200_000, "{d:?}");
    // The same writes without the flush stay in DRAM, below the watermark.
    let r = run(&BUFFER, vec![io(0, Op::Write, 10, 4)]);
    assert_eq!((programs(&r), r.dram.unwrap().dirty_at_end), (0, 4));
}

#[test]
fn a_flush_with_nothing_undurable_is_done_at_once() {
    let r = run(
        &BUFFER,
        vec![io(0, Op::Read, 3, 1), IoRequest::flush(5_000)],
    );
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.flushes, d.flush_wait_ns_max), (1, 0));
    // Without a DRAM stage nothing volatile holds acknowledged data.
    let r = run(&[], vec![io(0, Op::Write, 3, 1), IoRequest::flush(1_000)]);
    assert!(r.dram.is_none());
    assert_counter(&r, Counter::Flushes, 1);
    assert_eq!(
        r.response.write.count, 1,
        "a flush is neither a read nor a write"
    );
}

#[test]
fn a_fua_write_is_done_only_once_programmed_and_reads_hit_it_meanwhile() {
    let plain = run(&BUFFER, vec![io(0, Op::Write, 7, 1)]);
    let forced = run(&BUFFER, vec![fua(0, 7, 1), io(50, Op::Read, 7, 1)]);
    assert!(
        plain.response.write.max_ns < 10_000,
        "{:?}",
        plain.response.write
    );
    assert!(
        forced.response.write.max_ns >= 200_000,
        "{:?}",
        forced.response.write
    );
    assert_counter(&forced, Counter::FuaWrites, 1);
    let d = forced.dram.as_ref().expect("the dram section");
    assert_eq!((d.fua_pages, d.read_hits, d.dirty_at_end), (1, 1, 0));
    assert_eq!(programs(&forced), 1);
    assert_counter(&forced, Counter::VerifiedReads, 1);
}

#[test]
fn a_fua_write_is_not_acknowledged_at_the_transfer() {
    let ack = ["timing.write_ack=\"transfer\""];
    let plain = run(&ack, vec![io(0, Op::Write, 7, 1)]);
    let forced = run(&ack, vec![fua(0, 7, 1)]);
    assert!(
        plain.response.write.max_ns < 100_000,
        "{:?}",
        plain.response.write
    );
    assert!(
        forced.response.write.max_ns >= 200_000,
        "{:?}",
        forced.response.write
    );
}

/// Eight pages written at 0, power lost at 100 µs (before any destage), the pages read
/// at 1 ms: verify mode checks every read against what must be there.
fn lose_power(plp: &str) -> Report {
    let reqs = vec![io(0, Op::Write, 40, 8), io(1_000, Op::Read, 40, 8)];
    let sets = [BUFFER[0], BUFFER[1], "raid.fail=[\"power@100us\"]", plp];
    run(&sets, reqs)
}

#[test]
fn without_plp_a_power_loss_loses_acknowledged_pages_and_reads_see_the_old_ones() {
    let r = lose_power("cache.plp_pages=0");
    let d = r.dram.as_ref().expect("the dram section");
    assert_counter(&r, Counter::PowerLosses, 1);
    assert_eq!((d.power_losses, d.lost_pages, d.plp_saved_pages), (1, 8, 0));
    assert_eq!(
        d.lost.iter().map(|l| l.0).collect::<Vec<_>>(),
        (40..48).collect::<Vec<_>>()
    );
    assert_eq!(programs(&r), 0, "nothing of them reached flash");
    // The reads found the preconditioned content, which verify expected.
    assert_counter(&r, Counter::VerifiedReads, 8);
    assert_eq!(d.read_misses, 8);
}

#[test]
fn with_plp_a_power_loss_programs_the_dirty_pages_and_loses_none() {
    let r = lose_power("cache.plp_pages=8");
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!(
        (d.lost_pages, d.plp_saved_pages, d.plp_budget_pages),
        (0, 8, 8)
    );
    assert!(d.lost.is_empty());
    assert_eq!(programs(&r), 8);
    assert_counter(&r, Counter::VerifiedReads, 8);
    // A budget of three saves the three oldest.
    let r = lose_power("cache.plp_pages=3");
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.lost_pages, d.plp_saved_pages), (5, 3));
    assert_eq!(programs(&r), 3);
}

#[test]
fn a_hold_up_time_becomes_a_budget_of_pages() {
    // 8 dies, each programming one page per 200 µs + its transfer: 1 ms of hold-up
    // programs four pages a die.
    let r = lose_power("cache.plp_hold_up_us=1000");
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!(d.plp_budget_pages, 32);
    assert_eq!((d.lost_pages, d.plp_saved_pages), (0, 8));
}

#[test]
fn a_flush_pending_at_a_power_loss_is_interrupted() {
    let reqs = vec![io(0, Op::Write, 40, 8), IoRequest::flush(10_000)];
    let sets = [
        BUFFER[0],
        BUFFER[1],
        "cache.max_destage_in_flight=1",
        "raid.fail=[\"power@50us\"]",
    ];
    let r = run(&sets, reqs);
    let d = r.dram.as_ref().expect("the dram section");
    assert_eq!((d.flushes, d.interrupted), (0, 1));
    assert_counter(&r, Counter::Flushes, 1);
    // The page in flight at the loss completes; the other seven are lost.
    assert_eq!((d.lost_pages, programs(&r)), (7, 1));
}

#[test]
fn a_real_trace_losing_power_loses_pages_without_plp_and_none_with_it() {
    let trace = "msr/hm_0-slice7016.csv.gz";
    let go = |plp: &str| {
        let sets = [
            "verify=true",
            "cache.mode=\"write-buffer\"",
            "cache.capacity_mib=4",
            "raid.fail=[\"power@74s\"]",
            plp,
        ];
        let mut sim = trace_sim(small_config(&sets), trace);
        sim.run_to_end().expect("the run");
        sim.audit().expect("the audit");
        sim.into_report().expect("the report")
    };
    let bare = go("cache.plp_pages=0");
    let d = bare.dram.as_ref().expect("the dram section");
    assert!(d.lost_pages > 0, "{d:?}");
    assert_eq!(d.lost_pages as usize, d.lost.len());
    let protected = go("cache.plp_pages=100000");
    let p = protected.dram.as_ref().expect("the dram section");
    assert_eq!(p.lost_pages, 0);
    assert_eq!(
        p.plp_saved_pages, d.lost_pages,
        "the same dirty pages, saved"
    );
    for r in [&bare, &protected] {
        assert_counter(r, Counter::PowerLosses, 1);
        assert!(r.counter(Counter::VerifiedReads) > 0);
    }
}
