//! CR5M's mechanism on the paper's toy (Figs. 2 and 4): 4 channels of 5 chips of one
//! plane, 40 pages a chip, the static way per row, hand-made requests.
//!
//! The paper numbers chips channel by channel (chip 1 is channel 0's second chip, chip 4
//! its mirror chip); ssdlab numbers them way by way: channel `c`, way `w` is chip
//! `4w + c`, and chip `k`'s pages are `40k … 40k + 39`.

use crate::config::ConfigBuilder;
use crate::sim::stream::VecStream;
use crate::sim::Simulation;
use ssdlab_nand::{ChipId, Lpn, Ppn};
use ssdlab_trace::{IoRequest, Op};

const PAGE: u64 = 2048;
const LATER_NS: u64 = 10_000_000;

fn io(at_ns: u64, op: Op, lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        arrival_ns: at_ns,
        op,
        fua: false,
        offset_bytes: lpn * PAGE,
        size_bytes: pages * PAGE,
        content: None,
        stream: None,
    }
}

fn toy(reqs: Vec<IoRequest>, sets: &[&str]) -> Simulation {
    let text = "verify = true\n\
                [geometry]\nchannels = 4\nchips_per_channel = 5\ndies_per_chip = 1\n\
                planes_per_die = 1\nblocks_per_plane = 5\npages_per_block = 8\n\
                page_size_bytes = 2048\n\
                [ftl]\nover_provisioning = 0.7\n\
                [raid]\nlevel = 5\ndomain = \"channel\"\ngroup_size = 4\n\
                chip_in_channel = \"static\"\nupdate = \"rcw\"\nbuffer_new_writes = false\n\
                mirror_chips = true\n";
    let mut b = ConfigBuilder::new().text(text, "cr5m toy").unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    Simulation::new(b.build().unwrap(), Box::new(VecStream::new(reqs)), "toy").unwrap()
}

/// The paper's chip `p` (channel `p / 5`, position `p % 5`) in ssdlab's numbering.
fn paper_chip(p: u32) -> ChipId {
    ChipId((p % 5) * 4 + p / 5)
}

fn ppn(sim: &Simulation, lpn: Lpn) -> Ppn {
    sim.ftl().lookup(lpn).expect("mapped")
}

/// (page offset in its chip, chip) of `p`.
fn where_(sim: &Simulation, p: Ppn) -> (u32, ChipId) {
    let g = sim.geom;
    let chip = g.chip_of_page(p);
    (p.0 - chip.0 * 40, chip)
}

/// EPPN and MPPN of `lpn`'s entry, if it has one.
fn entry(sim: &Simulation, lpn: u64) -> Option<(Option<Ppn>, Option<Ppn>)> {
    let c = sim.cr5m.as_deref().unwrap();
    let k = c.entry_of(Lpn(lpn as u32))?;
    Some((
        sim.ftl().lookup(c.eppn_slot(k)),
        sim.ftl().lookup(c.mirror_slot(k)),
    ))
}

/// Runs until simulated time `t` (every event before it).
fn run_until(sim: &mut Simulation, t: u64) {
    while !sim.primed || sim.events.peek_time().is_some_and(|at| at.as_ns() < t) {
        if !sim.step().unwrap() {
            break;
        }
    }
}

#[test]
fn fig4_mirror_writes_keep_the_old_version_and_the_next_update_reclaims_its_stripe() {
    let t1 = LATER_NS;
    let reqs = vec![
        io(0, Op::Write, 0, 9),              // stripes 0-2: D0-D8 with their parity
        io(t1, Op::Write, 3, 1),             // D3' (stripe 1): a mirror write
        io(2 * t1, Op::Write, 6, 1),         // D6' (stripe 2): a mirror write
        io(3 * t1, Op::Write, 2, 1),         // D2' keeps channel 2's mirror chip busy ...
        io(3 * t1 + 1_000, Op::Write, 7, 1), // ... so D7' (stripe 2) updates the parity
        io(4 * t1, Op::Read, 0, 9),
    ];
    let mut sim = toy(reqs, &[]);
    run_until(&mut sim, t1 - 1);
    let (d3, d6) = (ppn(&sim, Lpn(3)), ppn(&sim, Lpn(6)));
    // Fig. 2: D3 on chip 1, D6 on chip 2 (the first page of each: PPNs 40 and 80).
    assert_eq!(where_(&sim, d3), (0, paper_chip(1)));
    assert_eq!(where_(&sim, d6), (0, paper_chip(2)));
    assert!(entry(&sim, 3).is_none());

    run_until(&mut sim, 2 * t1 - 1);
    // Fig. 4a: D3' on chip 1 beside D3, which is kept as EPPN; its copy on mirror chip 4.
    let (eppn, mppn) = entry(&sim, 3).expect("D3' has an entry");
    assert_eq!(eppn, Some(d3), "EPPN is the old D3");
    let d3n = ppn(&sim, Lpn(3));
    assert_eq!(where_(&sim, d3n).1, paper_chip(1));
    assert_eq!(where_(&sim, mppn.unwrap()), (0, paper_chip(4)));
    assert_eq!(sim.ftl().token(mppn.unwrap()), sim.ftl().token(d3n));
    let parity_before = sim.raid().map.red_lpn(1);
    assert!(!sim.ftl().is_pending(ppn(&sim, parity_before)));

    run_until(&mut sim, 3 * t1 - 1);
    let (eppn6, mppn6) = entry(&sim, 6).expect("D6' has an entry");
    assert_eq!(
        eppn6,
        Some(d6),
        "EPPN of D6' is the old D6 (PPN 80 in Fig. 4)"
    );
    assert_eq!(where_(&sim, mppn6.unwrap()), (1, paper_chip(4)));
    let d6n = ppn(&sim, Lpn(6));
    let c = sim.cr5m.as_deref().unwrap().counters;
    assert_eq!((c.mw_stripes, sim.raid().counters.parity_writes), (2, 3));

    // D7' finds channel 2's mirror chip busy: RCW reads D6' (not D6) and D8.
    run_until(&mut sim, 3 * t1 + 1_001);
    let r = sim.raid();
    let stripe2 = r.map.layout.parity_index(2, 0);
    let j = *r.locks.get(&stripe2).expect("stripe 2 is being updated");
    let mut reads = r.jobs[j].reads.clone();
    reads.sort();
    let mut want = vec![d6n, ppn(&sim, Lpn(8))];
    want.sort();
    assert_eq!(
        reads, want,
        "RCW reads D6' and D8 (2 reads; RMW would read 4)"
    );
    assert_eq!(sim.cr5m.as_deref().unwrap().counters.refused_busy, 1);

    sim.run_to_end().unwrap();
    // Fig. 4b: after the reclaim D6' has no entry; its EPPN and copy are invalid.
    assert!(entry(&sim, 6).is_none(), "MA of D6' is NULL");
    for p in [d6, mppn6.unwrap()] {
        assert_eq!(
            sim.ftl().page_owner(p),
            ssdlab_ftl::PageOwner::Invalid,
            "{p}"
        );
    }
    assert!(entry(&sim, 3).is_some(), "stripe 1 was not touched");
    let rc = sim.raid().counters;
    assert_eq!((rc.rcw, rc.pre_reads), (1, 2));
    let c = sim.cr5m.as_deref().unwrap().counters;
    assert_eq!(
        (c.mw_stripes, c.reclaims_update),
        (3, 1),
        "D2' was mirror-written too"
    );
    sim.check_invariants();
    sim.audit().unwrap();
    let report = sim.into_report().unwrap();
    assert_eq!(report.counter(ssdlab_stats::Counter::VerifiedReads), 9);
}

/// Where a parity update reads a mirrored page's current content (`cr5m_current_source`),
/// rule by rule, on D3' after its mirror write: its data page while that is on a live
/// chip; the controller's copy while its data page waits for space (unmapped, held);
/// its mirror copy when it has no data page at all and is known only through redundancy
/// (the data page waited for space until its chip died: `dead_write` found no room).
/// Taking the page for lost there made a single chip failure look like two.
#[test]
fn a_mirrored_page_without_a_data_page_is_read_from_its_copy() {
    let reqs = vec![io(0, Op::Write, 0, 9), io(LATER_NS, Op::Write, 3, 1)];
    // A failure is configured (so that failure state exists) but comes after the test.
    let mut sim = toy(reqs, &["raid.fail=[\"chip:1@10s\"]"]);
    run_until(&mut sim, 2 * LATER_NS);
    let d3 = Lpn(3);
    let slot = sim.cr5m_mirror_slot_of(d3);
    assert!(sim.cr5m_has_live_copy(d3));
    assert_eq!(sim.cr5m_current_source(d3), d3, "data page on a live chip");
    let token = sim.ftl().token(ppn(&sim, d3));
    sim.ftl.trim(d3);
    sim.held.insert(d3.0, (1, token));
    assert_eq!(sim.cr5m_current_source(d3), d3, "held in the controller");
    sim.held.remove(&d3.0);
    sim.fail.as_mut().unwrap().redundant_only.insert(d3.0);
    assert_eq!(
        sim.cr5m_current_source(d3),
        slot,
        "known only through redundancy"
    );
}
