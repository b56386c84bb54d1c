//! The cached map beside RAID and failure injection: every page RAID maps outside the
//! host write path dirties its entry (the audit's shadow of the translation pages
//! catches one that does not), translation pages stay off the spares and are written
//! again when their chip dies.

use super::tests::{cases, config, count, mapping, one_page};
use crate::{SimConfig, Simulation, VecStream};
use proptest::prelude::*;
use ssdlab_nand::{Lpn, TxnReason};
use ssdlab_stats::{Counter, Report};
use ssdlab_trace::{IoRequest, Op};

/// Chip-domain RAID-5 over 3 of the 4 chips, chip 3 a hidden spare.
const SPARE: [&str; 3] = ["raid.level=5", "raid.group_size=3", "raid.spare_chips=1"];
/// Chip-domain RAID-5 over all 4 chips, no spare: a failed chip stays degraded.
const NO_SPARE: [&str; 2] = ["raid.level=5", "raid.group_size=4"];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

/// The host pages of `cfg` (RAID takes its redundancy out of the logical pages).
fn host_pages(cfg: &SimConfig) -> u32 {
    let sim = Simulation::new(cfg.clone(), Box::new(VecStream::new(Vec::new())), "-").unwrap();
    sim.logical_pages as u32
}

/// `n` one-page requests, every `gap_ns`, over `pages` host pages; `reads` of 4 reads.
fn traffic(n: u32, seed: u64, pages: u32, reads: u64, gap_ns: u64) -> Vec<IoRequest> {
    let mut x = seed | 1;
    let ops: Vec<(Op, u32)> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let op = if x % 4 < reads { Op::Read } else { Op::Write };
            (op, ((x >> 8) % u64::from(pages)) as u32)
        })
        .collect();
    one_page(&ops, gap_ns)
}

fn build(cfg: SimConfig, reqs: Vec<IoRequest>) -> Simulation {
    Simulation::new(cfg, Box::new(VecStream::new(reqs)), "-").unwrap()
}

/// Runs to the end and audits host data, stripes, translation pages and the map
/// against them; returns the chips that hold translation pages and the report.
fn finish(mut sim: Simulation) -> (Vec<u32>, Report) {
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim.cmt.as_ref().unwrap().cmt.check();
    let chips = tpage_chips(&sim);
    (chips, sim.into_report().unwrap())
}

/// The chips holding the newest version of some translation page.
fn tpage_chips(sim: &Simulation) -> Vec<u32> {
    let c = sim.cmt.as_ref().unwrap();
    let mut chips: Vec<u32> = (0..c.cmt.tpages())
        .filter_map(|t| sim.ftl.lookup(c.slot(t)))
        .map(|p| sim.geom.chip_of_die(sim.geom.die_of_page(p)).0)
        .collect();
    chips.sort_unstable();
    chips.dedup();
    chips
}

#[test]
fn raid5_with_a_cached_map_reads_back_everything_and_leaves_the_spare_alone() {
    let cfg = config(40, true, &SPARE);
    let pages = host_pages(&cfg);
    let (chips, r) = finish(build(cfg, traffic(3_000, 11, pages, 1, 20_000)));
    let m = mapping(&r);
    assert!(m.translation_writes > 100 && m.lookups > m.hits, "{m:?}");
    assert!(count(&r, TxnReason::ParityWrite) > 0);
    assert!(r.counter(Counter::VerifiedReads) > 300);
    // Chip 3 is the spare: no translation page went there.
    assert_eq!(chips, [0, 1, 2]);
}

#[test]
fn redundancy_pages_are_not_in_the_cmt() {
    let cfg = config(40, true, &SPARE);
    let mut sim = build(cfg, Vec::new());
    let parity = Lpn(sim.logical_pages as u32);
    let c = sim.cmt.as_ref().unwrap();
    let tpage = c.slot(0);
    assert!(
        parity.0 < tpage.0,
        "the parity slots come before the translation pages"
    );
    let len = c.cmt.len();
    // A parity page's move costs the map nothing; a translation page's is counted.
    sim.cmt_after_move(parity);
    assert_eq!(
        (
            sim.cmt.as_ref().unwrap().cmt.len(),
            sim.cmt.as_ref().unwrap().tpages_moved
        ),
        (len, 0)
    );
    sim.cmt_after_move(tpage);
    assert_eq!(sim.cmt.as_ref().unwrap().tpages_moved, 1);
    // Nor does RAID's remapping of one: only host pages are dirtied.
    sim.cmt_remapped(parity, false);
    assert_eq!(sim.cmt.as_ref().unwrap().cmt.len(), len);
    sim.cmt_remapped(Lpn(7), false);
    assert!(sim.cmt.as_ref().unwrap().cmt.is_dirty(7));
}

#[test]
fn a_dead_chip_s_translation_pages_are_written_again_elsewhere() {
    // Reads only, no spare: the translation programs are exactly the pages the dead
    // chip held (reads insert clean entries, nothing is rebuilt).
    let sets = with(&NO_SPARE, &["raid.fail=[\"chip:0@1ms\"]"]);
    let cfg = config(40, true, &sets);
    let pages = host_pages(&cfg);
    let mut sim = build(cfg, traffic(1_500, 5, pages, 4, 20_000));
    sim.step().unwrap(); // the directory is on flash before the first arrival
    let c = sim.cmt.as_ref().unwrap();
    let on_chip0 = (0..c.cmt.tpages())
        .filter_map(|t| sim.ftl.lookup(c.slot(t)))
        .filter(|&p| sim.geom.chip_of_die(sim.geom.die_of_page(p)).0 == 0)
        .count() as u64;
    assert!(on_chip0 > 0);
    let (chips, r) = finish(sim);
    assert_eq!(mapping(&r).translation_writes, on_chip0);
    assert!(r.counter(Counter::DegradedReads) > 0);
    assert!(!chips.contains(&0));
}

#[test]
fn degraded_writes_dirty_their_entries() {
    // Writes to the dead chip's pages are recorded there without a program: each is a
    // map change the translation pages must come to record.
    let sets = with(&NO_SPARE, &["raid.fail=[\"chip:0@5ms\"]"]);
    let cfg = config(30, true, &sets);
    let pages = host_pages(&cfg);
    let (_, r) = finish(build(cfg, traffic(2_500, 9, pages, 1, 20_000)));
    assert!(r.counter(Counter::DegradedWrites) > 50);
    assert!(r.counter(Counter::DegradedReads) > 0);
    assert!(mapping(&r).translation_writes > 0);
}

#[test]
fn pages_rebuilt_onto_the_spare_dirty_their_entries() {
    let sets = with(
        &SPARE,
        &["raid.fail=[\"chip:1@2ms\"]", "raid.rebuild_rate_mib_s=4000"],
    );
    let cfg = config(30, true, &sets);
    let pages = host_pages(&cfg);
    let (chips, r) = finish(build(cfg, traffic(2_500, 13, pages, 2, 20_000)));
    assert!(
        r.counter(Counter::RebuiltPages) > 100,
        "{}",
        r.counter(Counter::RebuiltPages)
    );
    assert!(mapping(&r).translation_writes > 0);
    // The spare replaced chip 1: translation pages may live there now, not on chip 1.
    assert!(!chips.contains(&1));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(10), ..ProptestConfig::default() })]

    /// Whatever the cache size, the traffic, the RAID layout and a failure, a verified
    /// run with the cached map reads back what was written, its stripes hold, and its
    /// translation pages and map agree.
    #[test]
    fn the_cached_map_never_loses_data_under_raid(
        seed in 1u64..u64::MAX,
        entries in 1u32..200,
        pre in any::<bool>(),
        n in 200u32..2_000,
        reads in 0u64..4,
        layout in 0usize..6,
        fail in any::<bool>(),
    ) {
        let mut sets: Vec<&str> = match layout {
            0 => SPARE.to_vec(),
            1 => NO_SPARE.to_vec(),
            2 => vec!["raid.level=1", "raid.group_size=2"],
            3 => vec!["raid.level=5", "raid.domain=\"channel\"", "raid.group_size=2"],
            4 => with(&NO_SPARE, &["dgc.enabled=true"]),
            _ => with(&SPARE, &["raid.buffer_new_writes=false", "raid.unwritten_stripes=\"materialize\""]),
        };
        if fail {
            sets.push("raid.fail=[\"chip:1@0.3\"]");
        }
        let cfg = config(entries, pre, &sets);
        let pages = host_pages(&cfg);
        let mut sim = build(cfg, traffic(n, seed, pages, reads, 20_000));
        if fail {
            sim.set_trace_requests(u64::from(n));
        }
        let (_, r) = finish(sim);
        prop_assert!(r.mapping.is_some());
    }
}

/// RAID-1 materializes a never-written page read as both copies or neither: with a
/// cached map (no preconditioning) the mirror's plane ran out of free pages after the
/// primary was written, and the pair was left unequal (a proptest case).
#[test]
fn a_raid1_page_materialized_by_a_read_gets_both_copies_or_neither() {
    let cfg = config(42, false, &["raid.level=1", "raid.group_size=2"]);
    let pages = host_pages(&cfg);
    let (_, r) = finish(build(
        cfg,
        traffic(1_921, 9_192_990_520_991_663_018, pages, 1, 20_000),
    ));
    assert!(r.counter(Counter::MaterializedReads) > 0);
    assert!(mapping(&r).translation_writes > 0);
}

/// The brief's proptest case: with a cached map, a read materialized a stripe whose
/// parity had gone down with chip 1 while the rebuild read its one written page; the
/// new parity was not written and the rebuild put the old one back on the spare
/// (`sim::raid::tests`, the stripe materialized while its parity chip is dead).
#[test]
fn a_stripe_materialized_during_its_rebuild_keeps_its_parity() {
    let sets = with(&SPARE, &["raid.fail=[\"chip:1@0.3\"]"]);
    let cfg = config(67, false, &sets);
    let pages = host_pages(&cfg);
    let mut sim = build(
        cfg,
        traffic(1_054, 17_166_070_367_114_789_874, pages, 3, 20_000),
    );
    sim.set_trace_requests(1_054);
    let (_, r) = finish(sim);
    assert!(r.counter(Counter::MaterializedReads) > 0);
    assert!(r.counter(Counter::RebuiltPages) > 0);
}

/// RAID-1 without a spare, chip 1 dead: translation pages had filled its planes, so a
/// mirror copy written after the failure had no page to be recorded on and stayed
/// unmapped; the audit compared it with its primary as if it were a live copy (a
/// proptest case).
#[test]
fn a_raid1_copy_recorded_nowhere_on_a_dead_chip_is_not_compared() {
    let sets = [
        "raid.level=1",
        "raid.group_size=2",
        "raid.fail=[\"chip:1@0.3\"]",
    ];
    let cfg = config(1, false, &sets);
    let pages = host_pages(&cfg);
    let mut sim = build(
        cfg,
        traffic(1_731, 18_431_035_738_837_474, pages, 0, 20_000),
    );
    sim.set_trace_requests(1_731);
    let (_, r) = finish(sim);
    assert!(r.counter(Counter::DegradedWrites) > 0);
}
