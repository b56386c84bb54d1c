//! The stripe-job state machine on a tiny chip RAID-5 device, fed by hand-made requests.
//!
//! 4 channels of one chip (one die, one plane), RAID-5 over the 4 chips in one adjacent
//! group: row r is stripe r, holding host LPNs 3r, 3r + 1, 3r + 2 and its parity, whose
//! position rotates (row 0: data on chips 0, 1, 2 and parity on chip 3).

use super::{JobKind, RaidCounters, RaidState};
use crate::config::ConfigBuilder;
use crate::sim::stream::VecStream;
use crate::sim::Simulation;
use ssdlab_nand::{Lpn, Ppn};
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

/// Late enough for everything the first requests start to be on flash.
const LATER_NS: u64 = 10_000_000;

fn sim(overrides: &[&str], reqs: Vec<IoRequest>) -> Simulation {
    let text = "verify = true\n\
                [geometry]\nchannels = 4\nchips_per_channel = 1\ndies_per_chip = 1\n\
                planes_per_die = 1\nblocks_per_plane = 32\npages_per_block = 8\n\
                page_size_bytes = 4096\n\
                [ftl]\nover_provisioning = 0.25\n\
                [raid]\nlevel = 5\ndomain = \"chip\"\ngroup_size = 4\nlayout = \"adjacent\"\n\
                buffer_new_writes = false\n";
    let mut b = ConfigBuilder::new().text(text, "tiny raid-5").unwrap();
    for o in overrides {
        b = b.set(o).unwrap();
    }
    let sim = Simulation::new(b.build().unwrap(), Box::new(VecStream::new(reqs)), "t").unwrap();
    let r = raid(&sim);
    assert_eq!(r.map.layout.groups(), 1);
    assert_eq!(r.map.layout.data_per_row(), 3);
    sim
}

fn io(at_ns: u64, op: Op, lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        arrival_ns: at_ns,
        op,
        fua: false,
        offset_bytes: lpn * 4096,
        size_bytes: pages * 4096,
        content: None,
        stream: None,
    }
}

fn write(at_ns: u64, lpn: u64, pages: u64) -> IoRequest {
    io(at_ns, Op::Write, lpn, pages)
}

fn raid(sim: &Simulation) -> &RaidState {
    sim.raid.as_ref().unwrap()
}

fn counters(sim: &Simulation) -> RaidCounters {
    raid(sim).counters
}

fn parity_ppn(sim: &Simulation, row: u64) -> Option<Ppn> {
    let m = &raid(sim).map;
    sim.ftl().lookup(m.red_lpn(m.layout.parity_index(row, 0)))
}

/// The token of `lpn`'s current page (0 when unwritten).
fn token(sim: &Simulation, lpn: u64) -> u64 {
    sim.ftl()
        .lookup(Lpn(lpn as u32))
        .map_or(0, |p| sim.ftl().token(p))
}

/// Checks that row `row`'s parity page holds the XOR of its data pages' tokens.
fn assert_parity_is_xor(sim: &Simulation, row: u64) {
    let mut lpns = Vec::new();
    raid(sim).map.layout.stripe_lpns(row, 0, &mut lpns);
    assert_eq!(lpns.len(), 3);
    let xor = lpns.iter().fold(0, |acc, &x| acc ^ token(sim, x));
    assert_ne!(xor, 0, "row {row} holds data");
    let p = parity_ppn(sim, row).expect("the stripe has a parity page");
    assert!(!sim.ftl().is_pending(p));
    assert_eq!(sim.ftl().token(p), xor, "parity of row {row}");
}

/// Steps until the simulated clock reaches `at_ns` and the events due then are run.
fn step_through(sim: &mut Simulation, at_ns: u64) {
    while sim.now().as_ns() < at_ns {
        assert!(sim.step().unwrap(), "events left before {at_ns} ns");
    }
}

/// The running job of stripe 0 and the jobs queued behind it.
fn lock_state(sim: &Simulation) -> (Option<usize>, Vec<usize>) {
    let r = raid(sim);
    let waiters = r
        .lock_waiters
        .get(&0)
        .map(|q| q.iter().copied().collect())
        .unwrap_or_default();
    (r.locks.get(&0).copied(), waiters)
}

#[test]
fn the_first_write_to_a_never_written_stripe_is_a_full_group_write() {
    // One page of row 0, then the whole of row 1.
    let mut s = sim(&[], vec![write(0, 0, 1), write(0, 3, 3)]);
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!(c.full_group, 2);
    assert_eq!((c.rmw, c.rcw, c.pre_reads), (0, 0, 0));
    assert_eq!(c.parity_writes, 2);
    assert_parity_is_xor(&s, 0);
    assert_eq!(
        s.ftl().token(parity_ppn(&s, 0).unwrap()),
        token(&s, 0),
        "the parity of a one-page stripe is that page"
    );
    assert_parity_is_xor(&s, 1);
    assert!(s.audit().unwrap() >= 4);
    let report = s.into_report().unwrap();
    assert_eq!(report.counter(Counter::RaidFullGroup), 2);
    assert_eq!(report.counter(Counter::RaidPreReads), 0);
    assert_eq!(report.counter(Counter::RaidRmw), 0);
}

/// Writes row 0 whole, then (later) `update_pages` pages from LPN `update_lpn`; steps
/// until the update's job runs and returns it with the pages it reads, sorted.
fn update_job(
    overrides: &[&str],
    update_lpn: u64,
    update_pages: u64,
) -> (Simulation, JobKind, Vec<Ppn>) {
    let reqs = vec![write(0, 0, 3), write(LATER_NS, update_lpn, update_pages)];
    let mut s = sim(overrides, reqs);
    step_through(&mut s, LATER_NS);
    let (holder, waiters) = lock_state(&s);
    assert!(waiters.is_empty());
    let job = &raid(&s).jobs[holder.expect("the update's job holds the stripe")];
    let kind = job.kind;
    let mut reads = job.reads.clone();
    reads.sort_unstable();
    (s, kind, reads)
}

/// The current pages of `lpns`, sorted.
fn pages(sim: &Simulation, lpns: &[u64]) -> Vec<Ppn> {
    let mut v: Vec<Ppn> = lpns
        .iter()
        .map(|&x| sim.ftl().lookup(Lpn(x as u32)).unwrap())
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn a_one_page_update_takes_rmw_on_a_tie_under_the_rmw_rule() {
    // RMW reads old LPN 1 and the parity; RCW would read LPNs 0 and 2: a tie.
    let (mut s, kind, reads) = update_job(&["raid.update=\"rmw\""], 1, 1);
    assert_eq!(kind, JobKind::Rmw);
    let old = s.ftl().lookup(Lpn(1)).unwrap();
    assert!(s.ftl().is_pending(old), "the new data is being programmed");
    let mut want = vec![parity_ppn(&s, 0).unwrap()];
    // The old page of LPN 1 is the one row 0's first write put on chip 1.
    let first = reads.iter().copied().find(|&p| p != want[0]).unwrap();
    assert_eq!(s.geom.chip_of_page(first).0, 1);
    assert!(!s.ftl().is_valid(first), "the old version, superseded");
    want.push(first);
    want.sort_unstable();
    assert_eq!(reads, want);
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!((c.full_group, c.rmw, c.rcw), (1, 1, 0));
    assert_eq!(c.pre_reads, 2);
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
    let report = s.into_report().unwrap();
    assert_eq!(report.counter(Counter::RaidRmw), 1);
    assert_eq!(report.counter(Counter::RaidPreReads), 2);
}

#[test]
fn a_one_page_update_takes_rcw_on_a_tie_under_the_rcw_rule() {
    let (mut s, kind, reads) = update_job(&["raid.update=\"rcw\""], 1, 1);
    assert_eq!(kind, JobKind::Rcw);
    assert_eq!(reads, pages(&s, &[0, 2]), "RCW reads the untouched data");
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!((c.full_group, c.rmw, c.rcw), (1, 0, 1));
    assert_eq!(c.pre_reads, 2);
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
}

#[test]
fn an_update_of_all_but_one_data_page_takes_rcw_with_one_read() {
    // LPNs 0 and 1: RMW would read 2 old pages and the parity, RCW reads LPN 2 only.
    let (mut s, kind, reads) = update_job(&["raid.update=\"rmw\""], 0, 2);
    assert_eq!(kind, JobKind::Rcw);
    assert_eq!(reads, pages(&s, &[2]));
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!((c.full_group, c.rmw, c.rcw), (1, 0, 1));
    assert_eq!(c.pre_reads, 1);
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
    let report = s.into_report().unwrap();
    assert_eq!(report.counter(Counter::RaidRcw), 1);
    assert_eq!(report.counter(Counter::RaidPreReads), 1);
}

#[test]
fn jobs_on_one_stripe_run_one_at_a_time() {
    // Row 0 whole; later, two requests at the same instant update LPN 1, then LPN 2.
    let reqs = vec![write(0, 0, 3), write(LATER_NS, 1, 1), write(LATER_NS, 2, 1)];
    let mut s = sim(&[], reqs);
    step_through(&mut s, LATER_NS);
    // The first update holds the lock and has issued its pre-reads.
    let (first, waiters) = lock_state(&s);
    let first = first.expect("the first update runs");
    assert!(waiters.is_empty());
    assert_eq!(raid(&s).jobs[first].kind, JobKind::Rmw);
    assert_eq!(counters(&s).pre_reads, 2);
    let parity_before = parity_ppn(&s, 0).unwrap();
    // The second arrives at the same instant: it queues behind the first.
    s.step().unwrap();
    let (holder, waiters) = lock_state(&s);
    assert_eq!(holder, Some(first));
    assert_eq!(waiters.len(), 1);
    let second = waiters[0];
    assert_ne!(second, first);
    // LPN 1's new data is in flight (held by the controller): RCW reads LPN 0 alone.
    assert_eq!(raid(&s).jobs[second].kind, JobKind::Rcw);
    assert_eq!(raid(&s).jobs[second].reads, pages(&s, &[0]));

    let mut holders = vec![Some(first)];
    while s.step().unwrap() {
        let (holder, waiters) = lock_state(&s);
        let c = counters(&s);
        if holder == Some(first) {
            assert_eq!(waiters, [second]);
            assert_eq!(
                c.pre_reads, 2,
                "the second job reads nothing while it waits"
            );
            assert_eq!(
                parity_ppn(&s, 0) == Some(parity_before),
                c.parity_writes == 1,
                "the first job's parity replaces the old one"
            );
        } else if holder == Some(second) {
            assert!(waiters.is_empty());
            assert_eq!(c.pre_reads, 3);
            assert!(c.parity_writes >= 2);
        } else {
            assert_eq!(holder, None);
            assert!(waiters.is_empty());
        }
        if holders.last() != Some(&holder) {
            if holder == Some(second) {
                // The first job ended when its parity was on flash.
                let p = parity_ppn(&s, 0).unwrap();
                assert_ne!(p, parity_before);
                assert_eq!(c.parity_writes, 2);
            }
            holders.push(holder);
        }
    }
    assert_eq!(holders, [Some(first), Some(second), None]);
    let c = counters(&s);
    assert_eq!((c.full_group, c.rmw, c.rcw, c.parity_writes), (1, 1, 1, 3));
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
}

#[test]
fn parity_is_the_xor_of_its_stripe_after_a_mixed_run() {
    let t = LATER_NS;
    let reqs = vec![
        write(0, 0, 3),     // row 0 whole
        write(0, 4, 4),     // rows 1 (partly) and 2 (whole)
        write(0, 1, 1),     // row 0 again while its first job runs
        write(t, 3, 1),     // row 1: the page not yet written
        write(t, 5, 2),     // rows 1 and 2, queued behind the one before
        write(t, 2, 1),     // row 0
        write(2 * t, 0, 9), // rows 0 to 2 whole
        write(2 * t, 7, 1), // row 2 behind it
        write(2 * t, 9, 2), // row 3
        // Updates of settled stripes: the new parity depends on what the pre-reads return.
        write(3 * t, 1, 1),  // row 0: RMW
        write(3 * t, 6, 2),  // row 2: RCW of LPN 8
        write(3 * t, 4, 1),  // row 1: RMW
        write(3 * t, 11, 1), // row 3: its never-written page, RMW reads the parity only
        write(3 * t, 10, 1), // row 3 again, behind it
        io(4 * t, Op::Read, 0, 12),
    ];
    let mut s = sim(&["raid.force_reconstruct_reads=true"], reqs);
    s.run_to_end().unwrap();
    for row in 0..4 {
        assert_parity_is_xor(&s, row);
    }
    let c = counters(&s);
    assert!(c.rmw >= 2 && c.rcw >= 2, "{c:?}");
    assert!(c.reconstructions > 0, "reads checked the parity: {c:?}");
    assert!(raid(&s).locks.is_empty());
    assert!(raid(&s).lock_waiters.is_empty());
    assert!(s.audit().unwrap() >= 12);
}

#[test]
fn a_group_buffer_encodes_once_its_stripe_is_complete() {
    let reqs = vec![write(0, 0, 1), write(10_000, 2, 1), write(20_000, 1, 1)];
    let mut s = sim(&["raid.buffer_new_writes=true"], reqs);
    step_through(&mut s, 10_000);
    // Two positions in: the buffer is open, no parity job, no parity page yet.
    assert!(raid(&s).buffers.contains_key(&0));
    assert!(raid(&s).locks.is_empty());
    assert_eq!(parity_ppn(&s, 0), None);
    step_through(&mut s, 20_000);
    // The third completes the stripe: encoded now, long before the timeout.
    assert!(raid(&s).buffers.is_empty());
    assert!(raid(&s).locks.contains_key(&0));
    assert!(parity_ppn(&s, 0).is_some());
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!(c.timeouts, 0);
    assert_eq!((c.full_group, c.rmw, c.rcw, c.pre_reads), (1, 0, 0, 0));
    assert_eq!(c.parity_writes, 1);
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
    let report = s.into_report().unwrap();
    assert_eq!(report.counter(Counter::RaidGroupTimeouts), 0);
}

#[test]
fn a_group_buffer_encodes_an_incomplete_stripe_on_its_timeout() {
    let timeout_ns = 3_000_000;
    let reqs = vec![write(0, 0, 2)];
    let overrides = [
        "raid.buffer_new_writes=true",
        "raid.encode_timeout_ns=3000000",
    ];
    let mut s = sim(&overrides, reqs);
    while raid(&s).buffers.contains_key(&0) || s.now().as_ns() == 0 {
        assert!(s.step().unwrap(), "the buffer closes");
    }
    assert_eq!(s.now().as_ns(), timeout_ns, "encoded at the timeout");
    assert_eq!(counters(&s).timeouts, 1);
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!((c.full_group, c.rmw, c.rcw, c.pre_reads), (1, 0, 0, 0));
    assert_eq!(c.parity_writes, 1);
    assert_eq!(token(&s, 2), 0, "LPN 2 was never written");
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
    let report = s.into_report().unwrap();
    assert_eq!(report.counter(Counter::RaidGroupTimeouts), 1);
}

#[test]
fn a_page_rewritten_in_an_open_group_buffer_counts_once() {
    let reqs = vec![
        write(0, 0, 1),
        write(10_000, 0, 1),
        write(20_000, 1, 1),
        write(30_000, 2, 1),
    ];
    let mut s = sim(&["raid.buffer_new_writes=true"], reqs);
    step_through(&mut s, 20_000);
    assert!(raid(&s).buffers.contains_key(&0), "two of three positions");
    s.run_to_end().unwrap();
    let c = counters(&s);
    assert_eq!((c.timeouts, c.full_group, c.parity_writes), (0, 1, 1));
    assert_parity_is_xor(&s, 0);
    s.audit().unwrap();
}

/// Chip RAID-5 over chips 0..3 with chip 3 a spare: a read that materializes a stripe
/// whose parity went down with its chip writes the new parity where the stripe's parity
/// member now lives (the spare), not nowhere. Left on the dead chip, the stale parity
/// was the version the rebuild (reading the stripe's one written page when the read
/// arrived) still took for lost, and it wrote that page's token back as the parity.
#[test]
fn a_stripe_materialized_while_its_parity_chip_is_dead_writes_the_parity_on_the_spare() {
    const ROW: u64 = 1;
    let build = |fail: Option<u32>| {
        let mut sets = vec![
            "raid.group_size=3".to_string(),
            "raid.spare_chips=1".to_string(),
        ];
        if let Some(k) = fail {
            // At the arrival of request 1, the read.
            sets.push(format!("raid.fail=[\"chip:{k}@0.5\"]"));
        }
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let reqs = vec![write(0, 2 * ROW, 1), io(LATER_NS, Op::Read, 2 * ROW + 1, 1)];
        let text = "verify = true\n\
                    [geometry]\nchannels = 4\nchips_per_channel = 1\ndies_per_chip = 1\n\
                    planes_per_die = 1\nblocks_per_plane = 32\npages_per_block = 8\n\
                    page_size_bytes = 4096\n[ftl]\nover_provisioning = 0.25\n\
                    [raid]\nlevel = 5\ndomain = \"chip\"\nlayout = \"adjacent\"\n\
                    buffer_new_writes = false\n";
        let mut b = ConfigBuilder::new().text(text, "raid-5 + spare").unwrap();
        for s in &sets {
            b = b.set(s).unwrap();
        }
        let mut sim =
            Simulation::new(b.build().unwrap(), Box::new(VecStream::new(reqs)), "t").unwrap();
        sim.set_trace_requests(2);
        sim
    };
    let probe = build(None);
    let m = &raid(&probe).map;
    assert_eq!(m.layout.data_per_row(), 2);
    let plity = m.red_lpn(m.layout.parity_index(ROW, 0));
    let k = probe
        .geom
        .chip_of_die(probe.geom.die_of_plane(m.static_plane(&probe.geom, plity)));
    assert_ne!(k.0, 3, "the parity is on a member");

    let mut sim = build(Some(k.0));
    step_through(&mut sim, LATER_NS);
    // The failure and the read are both in: the stripe was materialized.
    assert!(sim.dead.is_dead(k));
    assert_eq!(sim.counters.materialized_reads, 1);
    let p = sim.ftl().lookup(plity).expect("a parity page");
    assert_eq!(sim.geom.chip_of_page(p).0, 3, "the parity is on the spare");
    assert_eq!(
        sim.ftl().token(p),
        token(&sim, 2 * ROW) ^ token(&sim, 2 * ROW + 1)
    );
    // The rebuild's write of the old parity is dropped: the stripe stays consistent.
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    let p = sim.ftl().lookup(plity).expect("a parity page");
    assert_eq!(
        sim.ftl().token(p),
        token(&sim, 2 * ROW) ^ token(&sim, 2 * ROW + 1)
    );
}
