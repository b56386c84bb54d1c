//! The PCIe link (`host.pcie`) in the request path: what one request pays for crossing
//! it, the link's effect on a sequential-read trace, and bad values refused by key.

use crate::util::{io, small_config, vec_sim};
use ssdlab::{ConfigBuilder, Report};
use ssdlab_trace::{IoRequest, Op};

fn run(sets: &[&str], reqs: Vec<IoRequest>) -> Report {
    let mut sim = vec_sim(small_config(sets), reqs);
    sim.run_to_end().expect("the run");
    sim.into_report().expect("the report")
}

const GEN1_X1: [&str; 2] = ["host.pcie.generation=1", "host.pcie.lanes=1"];

#[test]
fn one_request_pays_its_command_its_data_and_its_completion() {
    // Gen1 x1 moves 0.25 bytes/ns. Down: the doorbell (4 B) and the command (64 B),
    // a TLP each (24 B each): 116 B, 464 ns. Up: the completion (16 B) and the
    // interrupt (4 B), a TLP each: 68 B, 272 ns. 4 KiB of data: 16 TLPs, 4480 B,
    // 17,920 ns, down for a write and up for a read.
    let extra = 464 + 272 + 17_920;
    for op in [Op::Read, Op::Write] {
        let reqs = || vec![io(0, Op::Write, 5, 1), io(10_000, op, 5, 1)];
        let off = run(&[], reqs());
        let on = run(&GEN1_X1, reqs());
        let class = |r: &Report| match op {
            Op::Read => r.response.read.max_ns,
            _ => r.response.write.max_ns,
        };
        assert!(off.breakdown.all.pcie_ns_mean.is_none());
        if op == Op::Read {
            assert_eq!(class(&on), class(&off) + extra, "{op}");
            assert_eq!(on.breakdown.read.pcie_ns_mean, Some(extra as f64));
        } else {
            // Both writes, spaced by 10 µs, each alone on the link.
            assert_eq!(
                on.response.write.mean_ns,
                off.response.write.mean_ns + extra as f64
            );
            assert_eq!(on.breakdown.write.pcie_ns_mean, Some(extra as f64));
        }
    }
}

#[test]
fn host_queue_wait_does_not_count_the_link() {
    let on = run(&GEN1_X1, vec![io(0, Op::Read, 5, 1)]);
    assert_eq!(on.host_queue_wait.all.max_ns, 0);
}

/// 200 sequential 128 KiB reads, one every 200 µs.
fn sequential_reads() -> Vec<IoRequest> {
    (0..200)
        .map(|i| io(i * 200, Op::Read, i * 32 % 20_000, 32))
        .collect()
}

#[test]
fn a_narrow_link_slows_sequential_reads_and_a_wide_one_barely() {
    let off = run(&[], sequential_reads());
    let narrow = run(&GEN1_X1, sequential_reads());
    let wide = run(
        &["host.pcie.generation=4", "host.pcie.lanes=16"],
        sequential_reads(),
    );
    let (o, n, w) = (
        off.response.read.mean_ns,
        narrow.response.read.mean_ns,
        wide.response.read.mean_ns,
    );
    // Gen1 x1 needs ~573 µs for 128 KiB: more than the 200 µs between reads, so the
    // reads queue for the link and their latency grows without bound.
    assert!(n > o + 10_000_000.0, "off {o} ns, Gen1 x1 {n} ns");
    // Gen4 x16 (31.5 GB/s): ~4.5 µs per read on top.
    assert!(w > o && w < o + 6_000.0, "off {o} ns, Gen4 x16 {w} ns");
    assert_eq!(narrow.requests.read, 200);
    // The time on the link is a part of the breakdown: with the rest, the response.
    let b = narrow.breakdown.read;
    let sum =
        b.service_ns_mean + b.gc_wait_ns_mean + b.other_wait_ns_mean + b.pcie_ns_mean.unwrap();
    assert!((sum - n).abs() < 1.0, "{b:?} vs {n}");
}

#[test]
fn requests_share_the_link_in_arrival_order() {
    // Two 4 KiB reads of different chips arriving together: the second's data waits
    // for the first's on the way up, so their responses differ by at least one
    // transfer (17,920 ns of data and 272 ns of completion at Gen1 x1).
    let reqs = vec![io(0, Op::Read, 0, 1), io(0, Op::Read, 1, 1)];
    let r = run(&GEN1_X1, reqs);
    assert!(
        r.response.read.max_ns - r.response.read.min_ns >= 17_920 + 272,
        "{:?}",
        r.response.read
    );
}

#[test]
fn the_mqsim_bandwidth_replaces_the_generation() {
    // 0.25 GB/s per lane, one lane: Gen1 x1's bandwidth.
    let reqs = || vec![io(0, Op::Read, 5, 4)];
    let gen1 = run(&GEN1_X1, reqs());
    let mq = run(
        &["host.pcie.lane_gbytes_per_s=0.25", "host.pcie.lanes=1"],
        reqs(),
    );
    assert_eq!(gen1.response.read.max_ns, mq.response.read.max_ns);
}

#[test]
fn bad_link_values_are_refused_by_key() {
    for (set, key) in [
        ("host.pcie.generation=6", "host.pcie.generation"),
        ("host.pcie.lanes=3", "host.pcie.lanes"),
        ("host.pcie.lanes=0", "host.pcie.lanes"),
        (
            "host.pcie.max_payload_bytes=0",
            "host.pcie.max_payload_bytes",
        ),
        (
            "host.pcie.lane_gbytes_per_s=-1.0",
            "host.pcie.lane_gbytes_per_s",
        ),
        (
            "host.pcie.lane_gbytes_per_s=inf",
            "host.pcie.lane_gbytes_per_s",
        ),
    ] {
        let e = ConfigBuilder::new()
            .set(set)
            .unwrap()
            .build()
            .expect_err(set)
            .to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
}
