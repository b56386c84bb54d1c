//! The NAND layer: page-type read times, one-shot wordline programs, program/erase
//! suspend (docs/NAND.md), hand-worked on one die and measured on a mixed workload.

use crate::util::{page, small_config, vec_sim};
use ssdlab::ConfigBuilder;
use ssdlab_trace::{IoRequest, Op};

const XFER: u64 = 10_240;

/// One channel, one chip, one die, one plane: every page lands on one wordline order.
fn one_die(sets: &[&str]) -> ssdlab::SimConfig {
    let mut b = ConfigBuilder::new()
        .text(
            "[geometry]\nchannels = 1\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = 1\n\
             blocks_per_plane = 64\npages_per_block = 24\npage_size_bytes = 4096\n",
            "one-die",
        )
        .unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    b.build().unwrap()
}

const TLC: &[&str] = &[
    "nand.cell=\"tlc\"",
    "nand.t_read_ns_by_type=[50000, 70000, 90000]",
    "nand.t_prog_ns_by_type=[400000, 800000, 1600000]",
];

fn run(cfg: ssdlab::SimConfig, reqs: Vec<IoRequest>) -> ssdlab::Report {
    vec_sim(cfg, reqs).run().unwrap()
}

#[test]
fn reads_take_their_page_types_time() {
    // Pages 0, 1, 2 are the LSB, CSB and MSB of wordline 0; each read alone.
    let mut reqs: Vec<IoRequest> = (0..3).map(|l| page(0, Op::Write, l)).collect();
    for (i, l) in (0..3).enumerate() {
        reqs.push(page(10_000_000 + i as u64 * 1_000_000, Op::Read, l));
    }
    let r = run(one_die(TLC), reqs);
    let n = r.nand.expect("a TLC device reports its NAND section");
    let lat: Vec<(String, u64, u64)> = n
        .reads_by_page_type
        .iter()
        .map(|p| (p.page_type.clone(), p.latency.count, p.latency.max_ns))
        .collect();
    assert_eq!(
        lat,
        [
            ("lsb".to_string(), 1, 50_000 + XFER),
            ("csb".to_string(), 1, 70_000 + XFER),
            ("msb".to_string(), 1, 90_000 + XFER),
        ]
    );
    assert!(n.suspend.is_none());
    // Per-page programs: 400 + 800 + 1600 µs one after the other, after each transfer.
    assert_eq!(r.response.write.max_ns, 3 * XFER + 2_800_000);
}

#[test]
fn one_shot_programs_complete_a_wordline_together() {
    let mut sets = TLC.to_vec();
    sets.push("nand.program=\"one-shot\"");
    let r = run(
        one_die(&sets),
        (0..3).map(|l| page(0, Op::Write, l)).collect(),
    );
    // Three transfers into the page buffer, then one 1.6 ms program of the wordline.
    assert_eq!(r.response.write.min_ns, 3 * XFER + 1_600_000);
    assert_eq!(r.response.write.max_ns, 3 * XFER + 1_600_000);
    assert_eq!(r.nand.unwrap().padded_wordlines, 0);
    // Two pages of a wordline and no third: padded when nothing else can run.
    let r = run(
        one_die(&sets),
        (0..2).map(|l| page(0, Op::Write, l)).collect(),
    );
    assert_eq!(r.response.write.max_ns, 2 * XFER + 1_600_000);
    assert_eq!(r.nand.unwrap().padded_wordlines, 1);
}

#[test]
fn a_suspended_program_keeps_its_remaining_time() {
    let sets = [
        "scheduler.suspend=\"reads\"",
        "nand.suspend.t_suspend_ns=20000",
        "nand.suspend.t_resume_ns=5000",
    ];
    // LPN 0 written and done; LPN 1's program runs from 2 ms + XFER for 200 µs; the
    // read of LPN 0 arrives 100 µs into it.
    let t0 = 2_000_000;
    let reqs = vec![
        page(0, Op::Write, 0),
        page(t0, Op::Write, 1),
        page(t0 + XFER + 100_000, Op::Read, 0),
    ];
    let r = run(one_die(&sets), reqs.clone());
    let read_done = 20_000 + 25_000 + XFER;
    assert_eq!(r.response.read.max_ns, read_done);
    // 100 µs done, 100 µs left after the read and the resume.
    let write = r.response.write.max_ns;
    assert_eq!(write, XFER + 200_000 + read_done + 5_000);
    let s = r.nand.unwrap().suspend.unwrap();
    assert_eq!((s.program_suspends, s.erase_suspends), (1, 0));
    assert_eq!(s.suspended_ns_total, read_done + 5_000);
    // Off: the read waits for the program.
    let r = run(one_die(&[]), reqs);
    assert_eq!(r.response.read.max_ns, 100_000 + 25_000 + XFER);
    assert!(r.nand.is_none());
}

#[test]
fn the_limit_per_operation_is_respected() {
    let sets = [
        "scheduler.suspend=\"host-reads\"",
        "nand.suspend.max_per_op=1",
        "nand.suspend.t_suspend_ns=20000",
    ];
    let t0 = 2_000_000;
    let mut reqs = vec![page(0, Op::Write, 0), page(t0, Op::Write, 1)];
    // Two reads 60 µs apart during the 200 µs program: the second waits.
    reqs.push(page(t0 + XFER + 10_000, Op::Read, 0));
    reqs.push(page(t0 + XFER + 70_000, Op::Read, 0));
    let r = run(one_die(&sets), reqs);
    let s = r.nand.unwrap().suspend.unwrap();
    assert_eq!(s.program_suspends, 1);
    assert!(s.refused >= 1, "{s:?}");
}

/// A deterministic mixed random workload: a fill of `lpns` pages, then `n` one-page
/// requests every `gap_ns`, `write_pct` % writes.
pub fn mixed(lpns: u64, n: u64, gap_ns: u64, write_pct: u64) -> Vec<IoRequest> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut reqs: Vec<IoRequest> = (0..lpns).map(|l| page(l * 250_000, Op::Write, l)).collect();
    let start = lpns * 250_000 + 50_000_000;
    for i in 0..n {
        let op = if next() % 100 < write_pct {
            Op::Write
        } else {
            Op::Read
        };
        reqs.push(page(start + i * gap_ns, op, next() % lpns));
    }
    reqs
}

fn tlc_small(extra: &[&str]) -> ssdlab::SimConfig {
    let mut sets = vec![
        "geometry.pages_per_block=48",
        "nand.cell=\"tlc\"",
        "nand.t_read_ns_by_type=[60000, 80000, 100000]",
        "nand.t_prog_ns_by_type=[600000, 1200000, 2000000]",
        "timing.t_erase_ns=3000000",
        "verify=true",
    ];
    sets.extend_from_slice(extra);
    small_config(&sets)
}

#[test]
fn suspend_lowers_the_read_tail_of_a_mixed_tlc_workload() {
    let reqs = mixed(8_000, 20_000, 150_000, 30);
    let mut sim = vec_sim(tlc_small(&[]), reqs.clone());
    sim.run_to_end().unwrap();
    assert!(sim.audit().unwrap() > 0);
    let off = sim.into_report().unwrap();
    let mut sim = vec_sim(tlc_small(&["scheduler.suspend=\"reads\""]), reqs);
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    let on = sim.into_report().unwrap();
    let (p_off, p_on) = (off.response.read.p99_ns, on.response.read.p99_ns);
    eprintln!("read p99 without suspend {p_off} ns, with {p_on} ns");
    assert!(p_on * 10 < p_off * 8, "p99 {p_on} not 20 % below {p_off}");
    let n = on.nand.clone().unwrap();
    let types: Vec<&str> = n
        .reads_by_page_type
        .iter()
        .map(|p| p.page_type.as_str())
        .collect();
    assert_eq!(types, ["lsb", "csb", "msb"]);
    assert!(n.reads_by_page_type.iter().all(|p| p.latency.count > 1000));
    let s = n.suspend.unwrap();
    assert!(
        s.program_suspends > 100 && s.suspended_ns_total > 0,
        "{s:?}"
    );
    assert!(on.table().contains("time suspended"));
    assert!(!off.table().contains("time suspended"));
}

#[test]
fn bad_nand_settings_are_refused_naming_the_key() {
    let refused = |sets: &[&str]| {
        let mut b = ConfigBuilder::new();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap_err().to_string()
    };
    let e = refused(&["nand.cell=\"tlc\"", "nand.t_read_ns_by_type=[1, 2]"]);
    assert!(e.contains("nand.t_read_ns_by_type"), "{e}");
    let e = refused(&["nand.cell=\"qlc\"", "nand.t_prog_ns_by_type=[1, 2, 3]"]);
    assert!(e.contains("nand.t_prog_ns_by_type"), "{e}");
    let e = refused(&["scheduler.suspend=\"reads\"", "nand.suspend.max_per_op=0"]);
    assert!(e.contains("nand.suspend.max_per_op"), "{e}");
    let e = refused(&["scheduler.suspend=\"reads\"", "scheduler.name=\"vaq\""]);
    assert!(e.contains("scheduler.suspend"), "{e}");
    let e = refused(&["nand.cell=\"tlc\""]);
    assert!(e.contains("nand.cell"), "{e}");
}

#[test]
fn the_layer_with_todays_times_changes_nothing() {
    // The NAND layer on (a one-entry list) with the SLC times: every array end goes
    // through the heap with an epoch instead of the lanes, and the run is the same.
    let reqs = mixed(2_000, 5_000, 40_000, 40);
    let sets = ["geometry.pages_per_block=48", "verify=true"];
    let off = vec_sim(small_config(&sets), reqs.clone()).run().unwrap();
    let mut with = sets.to_vec();
    with.push("nand.t_read_ns_by_type=[25000]");
    let mut on = vec_sim(small_config(&with), reqs).run().unwrap();
    assert!(off.nand.is_none());
    let n = on.nand.take().expect("the layer reports");
    // Host read transactions; reads served from a write in flight have none.
    let served = off.response.read.count - off.counter(ssdlab_stats::Counter::BufferHits);
    assert_eq!(n.reads_by_page_type[0].latency.count, served);
    on.meta = off.meta.clone();
    assert_eq!(on.to_json(), off.to_json());
}

#[test]
fn a_materialized_page_closes_the_wordline_it_completes() {
    let mut sets = TLC.to_vec();
    sets.push("nand.program=\"one-shot\"");
    // Two writes fill pages 0 and 1 of wordline 0 and wait in the page buffer; a read
    // of a never-written page materializes it at page 2 (no program will come); a read
    // much later keeps the run going.
    let reqs = vec![
        page(0, Op::Write, 0),
        page(0, Op::Write, 1),
        page(1_000_000, Op::Read, 7),
        page(500_000_000, Op::Read, 0),
    ];
    let r = run(one_die(&sets), reqs);
    // The die programs the wordline as soon as the phantom completes it, at 1 ms.
    assert_eq!(r.response.write.max_ns, 1_000_000 + 1_600_000);
    assert_eq!(r.nand.unwrap().padded_wordlines, 1);
    // A phantom after the first page, then the last page's own program: it closes the
    // wordline with its one-shot program.
    let reqs = vec![
        page(0, Op::Write, 0),
        page(1_000_000, Op::Read, 7),
        page(2_000_000, Op::Write, 2),
        page(500_000_000, Op::Read, 0),
    ];
    let r = run(one_die(&sets), reqs);
    assert_eq!(r.response.write.max_ns, 2_000_000 + XFER + 1_600_000);
    assert_eq!(r.nand.unwrap().padded_wordlines, 0);
}

#[test]
fn a_destage_limit_below_a_wordline_per_plane_is_refused() {
    let e = ConfigBuilder::new()
        .set("nand.cell=\"tlc\"")
        .unwrap()
        .set("geometry.pages_per_block=63")
        .unwrap()
        .set("nand.program=\"one-shot\"")
        .unwrap()
        .set("cache.mode=\"write-buffer\"")
        .unwrap()
        .set("cache.max_destage_in_flight=2")
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("cache.max_destage_in_flight"), "{e}");
}
