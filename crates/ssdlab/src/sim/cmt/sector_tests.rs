//! The cached map with sub-page transfers (`timing.transfer = "sectors"`): a read that
//! waited for its translation page moves what it would have moved at admission.

use super::tests::{config, count, mapping, run};
use ssdlab_nand::TxnReason;
use ssdlab_stats::{Counter, Report};
use ssdlab_trace::{IoRequest, Op};

/// 16 KiB pages, sector transfers: a 4 KiB read moves 4 KiB over the bus.
const SECTORS: [&str; 2] = [
    "geometry.page_size_bytes=16384",
    "timing.transfer=\"sectors\"",
];
const PAGE: u64 = 16_384;

fn io(at_ns: u64, op: Op, offset_bytes: u64, size_bytes: u64) -> IoRequest {
    IoRequest {
        arrival_ns: at_ns,
        op,
        fua: false,
        offset_bytes,
        size_bytes,
        content: None,
        stream: None,
    }
}

fn host_read_bus_ns(r: &Report) -> f64 {
    r.reason(TxnReason::HostRead)
        .expect("host reads")
        .bus_ns_mean
}

#[test]
fn a_read_that_waited_for_its_translation_page_moves_only_its_sectors_like_a_hit() {
    // LPN 5, 4 KiB from 4 KiB into the page: a miss (its translation page read first),
    // then a hit. Both data reads move 4 KiB.
    let reqs = vec![
        io(0, Op::Read, 5 * PAGE + 4096, 4096),
        io(1_000_000, Op::Read, 5 * PAGE + 4096, 4096),
    ];
    let cfg = config(64, true, &SECTORS);
    let four_k = cfg.timing.bytes_transfer_ns(4096) as f64;
    assert!(four_k < cfg.timing.bytes_transfer_ns(PAGE) as f64);
    let r = run(cfg, reqs);
    let m = mapping(&r);
    assert_eq!((m.lookups, m.hits, m.miss_reads), (2, 1, 1));
    assert_eq!((m.read_miss.count, m.read_hit.count), (1, 1));
    assert_eq!(count(&r, TxnReason::HostRead), 2);
    // The mean of two transfers, neither shorter than 4 KiB's: each is 4 KiB's.
    assert_eq!(host_read_bus_ns(&r), four_k);
    // The translation page itself is read whole.
    let map = r.reason(TxnReason::MapRead).expect("a map read");
    assert!(map.bus_ns_mean > four_k);
    assert_eq!(r.counter(Counter::VerifiedReads), 2);
}

#[test]
fn an_unaligned_read_whose_pages_all_missed_moves_what_it_moves_with_the_ideal_map() {
    // 18 KiB from 15 KiB into LPN 20: 1 KiB of it, LPN 21 whole, 1 KiB of LPN 22; every
    // page misses and waits for the one map read of translation page 1.
    let reqs = || vec![io(0, Op::Read, 20 * PAGE + 15 * 1024, 18 * 1024)];
    let cached = run(config(64, true, &SECTORS), reqs());
    let m = mapping(&cached);
    assert_eq!((m.lookups, m.hits, m.miss_reads), (3, 0, 1));
    let mut ideal = config(64, true, &SECTORS);
    ideal.ftl.mapping = ssdlab_ftl::MapMode::Ideal;
    ideal.ftl.cmt = ssdlab_ftl::CmtConfig::default();
    let t = ideal.timing;
    let ideal = run_ideal(ideal, reqs());
    let expect = (2 * t.bytes_transfer_ns(1024) + t.bytes_transfer_ns(PAGE)) as f64 / 3.0;
    assert!((host_read_bus_ns(&ideal) - expect).abs() < 1e-6);
    assert_eq!(host_read_bus_ns(&cached), host_read_bus_ns(&ideal));
    assert_eq!(cached.counter(Counter::VerifiedReads), 3, "one per page");
}

fn run_ideal(cfg: crate::SimConfig, reqs: Vec<IoRequest>) -> Report {
    let mut sim = crate::Simulation::new(cfg, Box::new(crate::VecStream::new(reqs)), "-").unwrap();
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

/// A read that missed, while a whole-page write of its page entered the write buffer:
/// when its translation page arrives DRAM serves it, after the host-DRAM transfer of the
/// bytes it asks for (as a DRAM hit at admission), not at once.
#[test]
fn a_read_served_by_dram_after_its_translation_page_pays_its_dram_transfer() {
    let response = |bytes: u64| {
        let mut sets = SECTORS.to_vec();
        sets.extend(["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"]);
        let cfg = config(64, true, &sets);
        let dram = cfg.cache.clone();
        let reqs = vec![
            io(0, Op::Read, 5 * PAGE, bytes),
            io(1_000, Op::Write, 5 * PAGE, PAGE),
        ];
        let r = run(cfg, reqs);
        assert_eq!(mapping(&r).miss_reads, 1);
        assert_eq!(count(&r, TxnReason::HostRead), 0, "DRAM served the read");
        assert_eq!(r.response.read.count, 1);
        (r.response.read.max_ns, dram)
    };
    let (four, dram) = response(4096);
    let (eight, _) = response(8192);
    assert_eq!(
        eight - four,
        dram.transfer_ns(8192) - dram.transfer_ns(4096),
        "each pays the transfer of its own bytes"
    );
}
