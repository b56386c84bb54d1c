//! Metric definitions, checked against hand computations.

use ssdlab_nand::{ChannelId, FlashOp, TxnReason};
use ssdlab_stats::{Counter, EndState, FtlSummary, OpClass, Recorder, Shape, TxnRecord};

use crate::{five_request_report, idle_end, req, small_shape};

/// Asserts `got` is within hdrhistogram's 3-significant-digit precision of `want`.
fn close(got: u64, want: u64) {
    let err = (got as f64 - want as f64).abs();
    assert!(
        err <= want as f64 * 1e-3,
        "{got} is not within 0.1 % of {want}"
    );
}

#[test]
fn hand_computed_latencies() {
    let r = five_request_report();
    let all = r.response.all;
    assert_eq!(all.count, 5);
    assert_eq!(all.mean_ns, 374_000.0);
    assert_eq!(all.min_ns, 30_000);
    assert_eq!(all.max_ns, 1_000_000);
    close(all.p50_ns, 240_000);
    assert_eq!(all.p90_ns, 1_000_000);
    assert_eq!(all.p99_ns, 1_000_000);
    assert_eq!(all.p999_ns, 1_000_000);

    let read = r.response.read;
    assert_eq!(read.count, 3);
    assert!((read.mean_ns - 370_000.0 / 3.0).abs() < 1e-9);
    close(read.p50_ns, 100_000);
    assert_eq!(read.max_ns, 240_000);
    assert_eq!(r.response.write.mean_ns, 750_000.0);
    assert_eq!(r.response.write.max_ns, 1_000_000);

    // waiting = response − service, saturating (request 3 has service > response).
    assert_eq!(r.waiting.all.mean_ns, 720_000.0 / 5.0);
    assert_eq!(r.waiting.all.min_ns, 0);
    assert_eq!(r.waiting.all.max_ns, 300_000);
    assert!((r.waiting.read.mean_ns - 220_000.0 / 3.0).abs() < 1e-9);
    assert_eq!(r.waiting.write.mean_ns, 250_000.0);

    // host-queue wait = admitted − arrival.
    assert_eq!(r.host_queue_wait.all.mean_ns, 4_000.0);
    assert_eq!(r.host_queue_wait.all.max_ns, 10_000);
    assert_eq!(r.work.all.host_queued, 2);

    assert_eq!(r.requests.all, 5);
    assert_eq!(r.requests.read, 3);
    assert_eq!(r.requests.write, 2);
}

#[test]
fn throughput_over_simulated_time() {
    let r = five_request_report();
    // 5 requests in 1.04 ms.
    assert!((r.iops - 5.0 / 1.04e-3).abs() < 1e-6);
    let mib = 5.0 * 4096.0 / 1_048_576.0;
    assert!((r.bandwidth_mib_s - mib / 1.04e-3).abs() < 1e-9);
    assert!((r.read_bandwidth_mib_s - 0.6 * mib / 1.04e-3).abs() < 1e-9);
    assert!((r.write_bandwidth_mib_s - 0.4 * mib / 1.04e-3).abs() < 1e-9);
}

#[test]
fn breakdown_splits_waiting_into_gc_and_other() {
    let mut rec = Recorder::new(small_shape());
    rec.request_done(&req(0, OpClass::Write, 0, 0, 1_000, 300));
    rec.gc_wait(OpClass::Write, 500);
    let r = rec.finish(idle_end(1_000)).unwrap();
    let b = r.breakdown.write;
    assert_eq!(b.service_ns_mean, 300.0);
    assert_eq!(b.gc_wait_ns_mean, 500.0);
    assert_eq!(b.other_wait_ns_mean, 200.0);
    assert_eq!(r.breakdown.all, b);
    assert_eq!(r.breakdown.read.service_ns_mean, 0.0);
}

#[test]
fn classes_are_separate_and_an_empty_class_is_zero() {
    let mut rec = Recorder::new(small_shape());
    rec.request_done(&req(0, OpClass::Read, 0, 0, 2_000, 1_000));
    rec.request_done(&req(1, OpClass::Read, 0, 0, 4_000, 1_000));
    let r = rec.finish(idle_end(4_000)).unwrap();
    assert_eq!(r.response.read.count, 2);
    assert_eq!(r.response.read.mean_ns, 3_000.0);
    assert_eq!(r.response.all, r.response.read);
    for l in [r.response.write, r.waiting.write, r.host_queue_wait.write] {
        assert_eq!(l, Default::default());
        assert_eq!(l.mean_ns, 0.0);
    }
    assert_eq!(r.write_bandwidth_mib_s, 0.0);
    assert_eq!(r.pre_reads_per_write, 0.0);
    assert!(!r.to_json().contains("null"), "NaN leaked into JSON");
}

#[test]
fn empty_run_is_all_zeros() {
    let r = Recorder::new(small_shape()).finish(idle_end(0)).unwrap();
    assert_eq!(r.iops, 0.0);
    assert_eq!(r.utilization.sampled_chip, 0.0);
    assert_eq!(r.utilization.chip.std, 0.0);
    assert_eq!(r.write_amplification, 0.0);
    assert!(r.transactions.is_empty());
    assert!(!r.to_json().contains("null"));
}

#[test]
fn sampled_chip_utilization_is_the_mean_busy_fraction() {
    let shape = Shape {
        channels: 8,
        chips: 64,
        dies: 64,
        page_size_bytes: 4096,
    };
    let mut rec = Recorder::new(shape);
    for busy in [0, 32, 64] {
        rec.sample_utilization(busy);
    }
    let end = EndState {
        end_ns: 1,
        die_busy_ns: vec![0; 64],
        chip_busy_ns: vec![0; 64],
        channel_busy_ns: vec![0; 8],
        ..Default::default()
    };
    let r = rec.finish(end).unwrap();
    assert_eq!(r.utilization.sampled_chip, 0.5);
    assert_eq!(r.utilization.samples, 3);
}

#[test]
fn time_averaged_spread_and_die_idle() {
    let rec = Recorder::new(small_shape());
    let mut end = idle_end(100);
    end.chip_busy_ns = vec![10, 20, 30, 40];
    end.channel_busy_ns = vec![50, 50];
    end.die_busy_ns = vec![0, 10, 20, 30, 40, 50, 60, 70];
    let r = rec.finish(end).unwrap();
    let chip = r.utilization.chip;
    assert!((chip.mean - 0.25).abs() < 1e-12);
    assert!((chip.std - 0.111_803_4).abs() < 1e-7, "std {}", chip.std);
    assert_eq!((chip.min, chip.max), (0.1, 0.4));
    assert_eq!(r.utilization.channel.std, 0.0);
    assert_eq!(r.utilization.channel.mean, 0.5);
    // Idle = 100 − busy per die: 100, 90, …, 30 → total 520, mean 65.
    assert_eq!(r.die_idle_ns_total, 520);
    assert_eq!(r.die_idle_ns_mean, 65.0);
}

fn txn(reason: TxnReason, op: FlashOp, pages: u32, bus_wait_ns: u64) -> TxnRecord {
    TxnRecord {
        reason,
        op,
        pages,
        queue_ns: 100,
        bus_wait_ns,
        bus_ns: 20,
        array_ns: 50,
    }
}

#[test]
fn write_amplification_and_reasons_from_transactions() {
    let mut rec = Recorder::new(small_shape());
    for _ in 0..4 {
        rec.txn_done(&txn(TxnReason::HostWrite, FlashOp::Program, 1, 0));
    }
    rec.txn_done(&txn(TxnReason::ParityWrite, FlashOp::Program, 2, 10));
    rec.txn_done(&txn(TxnReason::PreRead, FlashOp::Read, 1, 30));
    rec.txn_done(&txn(TxnReason::PreRead, FlashOp::Read, 1, 0));
    rec.txn_done(&TxnRecord {
        queue_ns: 400,
        ..txn(TxnReason::PreRead, FlashOp::Read, 1, 0)
    });
    rec.txn_done(&txn(TxnReason::GcRead, FlashOp::Read, 1, 0));
    rec.txn_done(&txn(TxnReason::GcWrite, FlashOp::Program, 1, 0));
    rec.txn_done(&txn(TxnReason::GcErase, FlashOp::Erase, 0, 0));
    rec.request_done(&req(0, OpClass::Write, 0, 0, 10, 5));
    rec.request_done(&req(1, OpClass::Write, 0, 0, 10, 5));
    let mut end = idle_end(10);
    end.ftl = FtlSummary {
        host_pages_written: 4,
        erases: 1,
        gc_runs: 1,
        gc_pages_moved: 1,
        ..Default::default()
    };
    let r = rec.finish(end).unwrap();

    // (4 host + 2 parity + 1 GC) programmed pages / 4 host pages.
    assert_eq!(r.programmed_pages, 7);
    assert_eq!(r.write_amplification, 1.75);
    let order: Vec<_> = r.transactions.iter().map(|t| t.reason).collect();
    assert_eq!(
        order,
        [
            TxnReason::HostWrite,
            TxnReason::PreRead,
            TxnReason::ParityWrite,
            TxnReason::GcRead,
            TxnReason::GcWrite,
            TxnReason::GcErase
        ]
    );
    let pre = r.reason(TxnReason::PreRead).unwrap();
    assert_eq!((pre.count, pre.pages), (3, 3));
    assert_eq!(pre.queue_ns_mean, 200.0);
    assert_eq!(pre.bus_wait_ns_mean, 10.0);
    assert_eq!(pre.array_ns_mean, 50.0);
    assert_eq!(r.reason(TxnReason::HostRead), None);
    // 3 pre-reads for 2 write requests (CR5M figure 11).
    assert_eq!(r.pre_reads_per_write, 1.5);
    // Contention: 40 ns over 11 transactions.
    assert_eq!(r.bus_contention_ns_total, 40);
    assert!((r.bus_contention_ns_mean - 40.0 / 11.0).abs() < 1e-12);
    assert_eq!((r.erases, r.gc_runs, r.gc_pages_moved), (1, 1, 1));
    assert_eq!(r.writes_per_channel, None);
}

#[test]
fn writes_per_channel_and_redirect_ratios() {
    let mut rec = Recorder::new(small_shape());
    rec.txn_done_on(
        ChannelId(0),
        &txn(TxnReason::HostWrite, FlashOp::Program, 1, 0),
    );
    rec.txn_done_on(
        ChannelId(1),
        &txn(TxnReason::HostWrite, FlashOp::Program, 2, 0),
    );
    rec.txn_done_on(
        ChannelId(1),
        &txn(TxnReason::ParityWrite, FlashOp::Program, 1, 0),
    );
    for id in 0..4 {
        rec.request_done(&req(id, OpClass::Read, 0, 0, 10, 5));
    }
    rec.count(Counter::RedirectedReads, 1);
    rec.count(Counter::DeferredGc, 2);
    let r = rec.finish(idle_end(10)).unwrap();
    let wpc = r.writes_per_channel.unwrap();
    assert_eq!((wpc.min, wpc.mean, wpc.max), (1, 2.0, 3));
    assert_eq!(r.redirected_read_ratio, 0.25);
    assert_eq!(r.redirected_write_ratio, 0.0);
    assert_eq!(r.counter(Counter::DeferredGc), 2);
    assert_eq!(r.counter(Counter::RedirectedReads), 1);
    assert_eq!(r.counter(Counter::RedirectedWrites), 0);
    let names: Vec<_> = r.counters.keys().map(|c| c.name()).collect();
    assert_eq!(names, ["deferred-gc", "redirected-reads"]);
}

#[test]
fn mirror_section_splits_data_chips_from_mirror_chips() {
    use ssdlab_nand::ChipId;
    use ssdlab_stats::{CountSpread, MirrorEnd};
    // 2 channels of 2 ways: chips 0, 1 are way 0 (data), chips 2, 3 way 1 (mirror).
    let mut rec = Recorder::new(small_shape());
    let program = |rec: &mut Recorder, chip: u32, reason, pages| {
        let t = txn(reason, FlashOp::Program, pages, 0);
        rec.txn_done_at(ChannelId(chip % 2), ChipId(chip), &t);
    };
    program(&mut rec, 0, TxnReason::HostWrite, 3);
    program(&mut rec, 1, TxnReason::ParityWrite, 1);
    program(&mut rec, 2, TxnReason::MirrorWrite, 2);
    program(&mut rec, 3, TxnReason::MirrorWrite, 1);
    let t = txn(TxnReason::PreRead, FlashOp::Read, 2, 0);
    rec.txn_done_at(ChannelId(0), ChipId(0), &t);
    let t = txn(TxnReason::ReclaimRead, FlashOp::Read, 1, 0);
    rec.txn_done_at(ChannelId(1), ChipId(1), &t);
    rec.request_done(&req(0, OpClass::Write, 0, 0, 10, 5));
    rec.request_done(&req(1, OpClass::Write, 0, 0, 10, 5));
    for id in 2..6 {
        rec.request_done(&req(id, OpClass::Read, 0, 0, 10, 5));
    }
    rec.count(Counter::RaidMirrorReads, 1);
    rec.count(Counter::MirrorWriteStripes, 3);
    rec.count(Counter::MirrorWriteRefusedBusy, 1);
    let wear = CountSpread {
        min: 0,
        mean: 0.5,
        max: 2,
    };
    rec.set_mirror(MirrorEnd {
        wear,
        free_ratio_end: 0.5,
        avail_ratio_min: 0.25,
    });
    let r = rec.finish(idle_end(10)).unwrap();
    let m = r.mirror.expect("a mirror section");
    let d = m.data_writes_per_channel;
    assert_eq!((d.min, d.mean, d.max), (1, 2.0, 3));
    let mc = m.mirror_chip_writes;
    assert_eq!((mc.min, mc.mean, mc.max), (1, 1.5, 2));
    let all = r.writes_per_channel.unwrap();
    assert_eq!(
        (all.min, all.max),
        (2, 5),
        "all chips: mirror copies included"
    );
    assert_eq!(m.mirror_chip_wear, wear);
    assert_eq!(m.mirror_read_share, 0.25);
    assert_eq!(m.mirror_write_share, 0.75);
    assert_eq!(r.pre_reads_per_write, 1.0);
    assert_eq!(m.pre_reads_per_write_with_reclaim, 1.5);
    assert_eq!(
        (m.mirror_free_ratio_end, m.mirror_avail_ratio_min),
        (0.5, 0.25)
    );
    let back = ssdlab_stats::Report::from_json(&r.to_json()).unwrap();
    assert_eq!(back.mirror, r.mirror);
}
