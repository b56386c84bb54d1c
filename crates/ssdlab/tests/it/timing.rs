//! Hand-worked timing on the small device with the default NAND timing:
//! t_read = 25 000 ns, t_prog = 200 000 ns, one 4 KiB page on the bus = 4096 × 2.5 ns
//! = 10 240 ns. Static order `cwdp`: LPN 0 → channel 0 chip 0; LPN 1 → channel 1
//! chip 1; LPN 4 → channel 0 chip 4 (second way). Reads of never-written pages are
//! materialized at admission in zero time.

use crate::util::{page, small_config, vec_sim};
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

const READ: u64 = 25_000 + 10_240;
const XFER: u64 = 10_240;

fn max_response(sets: &[&str], reqs: Vec<IoRequest>) -> (u64, ssdlab::Report) {
    let r = vec_sim(small_config(sets), reqs).run().unwrap();
    (r.response.all.max_ns, r)
}

#[test]
fn one_read_takes_array_plus_transfer() {
    let (max, r) = max_response(&[], vec![page(0, Op::Read, 0)]);
    assert_eq!(max, READ);
    assert_eq!(r.response.read.count, 1);
}

#[test]
fn one_write_takes_transfer_plus_program() {
    let (max, _) = max_response(&[], vec![page(0, Op::Write, 0)]);
    assert_eq!(max, XFER + 200_000);
}

#[test]
fn two_chips_on_one_channel_contend_for_the_bus() {
    // Both arrays finish at 25 000; the second transfer waits one page time.
    let (max, r) = max_response(&[], vec![page(0, Op::Read, 0), page(0, Op::Read, 4)]);
    assert_eq!(max, READ + XFER);
    assert!((r.bus_contention_ns_mean - XFER as f64 / 2.0).abs() < 1e-6);
}

#[test]
fn package_contention_is_the_bus_wait_behind_another_die_of_the_chip() {
    // Two dies per chip, die-first order: LPN 0 and 1 are dies 0 and 1 of chip 0 on
    // channel 0, LPN 8 is die 0 of chip 4, also on channel 0. Three arrays finish at
    // 25 000 and the three transfers queue on one bus: bus waits 0, 1 and 2 transfers.
    // Whatever the order, the later of chip 0's two dies waits one whole transfer of
    // the other: that is the package contention; waiting behind chip 4 is not.
    let sets = ["geometry.dies_per_chip=2", "ftl.static_order=dcwp"];
    let reads = |lpns: &[u64]| lpns.iter().map(|&l| page(0, Op::Read, l)).collect();
    let (max, r) = max_response(&sets, reads(&[0, 1, 8]));
    assert_eq!(max, READ + 2 * XFER);
    assert_eq!(r.bus_contention_ns_total, 3 * XFER);
    assert_eq!(r.package_contention_ns_total, XFER);
    assert!((r.package_contention_ns_mean - XFER as f64 / 3.0).abs() < 1e-6);
    // Two chips on the channel: bus contention, no package contention.
    let (_, r) = max_response(&sets, reads(&[0, 8]));
    assert_eq!(r.bus_contention_ns_total, XFER);
    assert_eq!(r.package_contention_ns_total, 0);
    // Two dies of one chip, arriving a third of a transfer apart: the second array
    // finishes while the first die's page is on the bus, and waits for the rest of it.
    let (_, r) = max_response(
        &sets,
        vec![page(0, Op::Read, 0), page(XFER / 3, Op::Read, 1)],
    );
    assert_eq!(r.package_contention_ns_total, XFER - XFER / 3);
    assert_eq!(r.bus_contention_ns_total, XFER - XFER / 3);
}

#[test]
fn awt_is_the_mean_host_queue_wait_of_the_requests_that_waited() {
    // One device-queue slot: the second read waits for the first to complete.
    let (_, r) = max_response(
        &["host.device_queue_depth=1"],
        vec![page(0, Op::Read, 0), page(0, Op::Read, 1)],
    );
    assert_eq!(r.work.all.host_queued, 1);
    assert_eq!(r.host_queue_wait.all.mean_ns, READ as f64 / 2.0);
    assert_eq!(r.host_queue_wait_queued_ns_mean.all, READ as f64);
    assert_eq!(r.host_queue_wait_queued_ns_mean.read, READ as f64);
    assert_eq!(r.host_queue_wait_queued_ns_mean.write, 0.0);
}

#[test]
fn two_reads_on_one_die_serialize() {
    // The die is held until its register drains, so the second read starts at 35 240.
    let (max, _) = max_response(&[], vec![page(0, Op::Read, 0), page(0, Op::Read, 0)]);
    assert_eq!(max, 2 * READ);
}

#[test]
fn multi_plane_read_shares_one_array_operation() {
    // Plane-first order puts LPN 0 and 1 on planes 0 and 1 of one die, both at page
    // offset 0. One two-page request: one array read, then two transfers.
    let req = IoRequest {
        arrival_ns: 0,
        op: Op::Read,
        fua: false,
        offset_bytes: 0,
        size_bytes: 8192,
        content: None,
        stream: None,
    };
    let (packed, r) = max_response(
        &["ftl.static_order=pcwd", "scheduler.multi_plane=true"],
        vec![req.clone()],
    );
    assert_eq!(packed, 25_000 + 2 * XFER);
    assert_eq!(r.counter(Counter::MultiPlaneOps), 1);
    assert_eq!(r.counter(Counter::MultiPlanePages), 2);
    let (single, _) = max_response(&["ftl.static_order=pcwd"], vec![req]);
    assert_eq!(single, 2 * READ);
}

#[test]
fn read_after_write_in_flight_is_a_buffer_hit() {
    let (_, r) = max_response(
        &["verify=true"],
        vec![page(0, Op::Write, 9), page(1_000, Op::Read, 9)],
    );
    assert_eq!(r.response.read.max_ns, 0);
    assert_eq!(r.counter(Counter::BufferHits), 1);
    assert_eq!(r.counter(Counter::VerifiedReads), 1);
}

#[test]
fn sync_fifo_blocks_behind_the_head_request_async_does_not() {
    // R0 reads chip 0; R1 reads chips 0 and 1; R2 reads chip 1. All arrive at 0.
    // async: R2 runs on chip 1 right after R1's chip-1 page: done at 2 × READ.
    // sync:  R1 waits for chip 0 (READ), runs to 2 × READ; R2 waits for R1: 3 × READ.
    let reqs = || {
        vec![
            page(0, Op::Read, 0),
            IoRequest {
                arrival_ns: 0,
                op: Op::Read,
                fua: false,
                offset_bytes: 0,
                size_bytes: 8192,
                content: None,
                stream: None,
            },
            page(0, Op::Read, 1),
        ]
    };
    let (async_max, _) = max_response(&["scheduler.name=async-fifo"], reqs());
    let (sync_max, _) = max_response(&["scheduler.name=sync-fifo"], reqs());
    assert_eq!(async_max, 2 * READ);
    assert_eq!(sync_max, 3 * READ);
}

#[test]
fn closed_loop_keeps_queue_depth_outstanding() {
    // Depth 1: ten reads of one page run back to back whatever their timestamps.
    let reqs: Vec<IoRequest> = (0..10)
        .map(|i| page(i * 1_000_000_000, Op::Read, 0))
        .collect();
    let r = vec_sim(
        small_config(&["host.mode=closed", "host.queue_depth=1"]),
        reqs,
    )
    .run()
    .unwrap();
    assert_eq!(r.sim_time_ns, 10 * READ);
    assert_eq!(r.response.all.max_ns, READ);
}

#[test]
fn device_queue_depth_makes_requests_wait_in_the_host_queue() {
    let reqs = vec![page(0, Op::Read, 0), page(0, Op::Read, 1)];
    let r = vec_sim(small_config(&["host.device_queue_depth=1"]), reqs)
        .run()
        .unwrap();
    // The second request (another chip) is admitted only when the first completes.
    assert_eq!(r.response.all.max_ns, 2 * READ);
    assert_eq!(r.host_queue_wait.all.max_ns, READ);
}

#[test]
fn a_parity_update_s_pre_reads_are_service_not_waiting() {
    // RAID-5 in groups of 4 on a preconditioned device: an update of LPN 0 reads the old
    // data and the old parity (on chips 0 and 3, in parallel; the old data's read is
    // queued before the new data's program), then programs the new parity. Nothing
    // queues behind other work: the write waits 0, its service is the parity program,
    // and the pre-reads' service is counted apart.
    let sets = [
        "raid.level=5",
        "raid.group_size=4",
        "raid.buffer_new_writes=false",
        "ftl.precondition.enabled=true",
    ];
    let (max, r) = max_response(&sets, vec![page(0, Op::Write, 0)]);
    let program = XFER + 200_000;
    let b = r.breakdown.write;
    assert_eq!(r.counter(Counter::RaidRmw), 1);
    assert_eq!(b.pre_read_ns_mean, READ as f64, "{b:?}");
    assert_eq!(b.service_ns_mean, program as f64);
    assert_eq!(max, READ + program);
    assert_eq!(
        r.waiting.write.max_ns, 0,
        "before: the pre-read counted as waiting"
    );
}
