//! The cached map with DS-FTL's group records (groups.rs): one test per rule, and a
//! verified property test under duplicate content and GC.

use super::tests::{cases, config, count, mapping, one_page};
use crate::{SimConfig, Simulation, VecStream};
use proptest::prelude::*;
use ssdlab_ftl::Ftl;
use ssdlab_nand::{Lpn, Ppn, TxnReason};
use ssdlab_stats::{Counter, Report};
use ssdlab_trace::{Content, IoRequest, Op};

/// DS-FTL's placement and multi-path reads with exact fingerprint tables.
const DSFTL: [&str; 2] = ["ftl.allocation=\"content-aware\"", "dsftl.filter=\"exact\""];

fn dsftl(entries: u32, more: &[&str]) -> SimConfig {
    let sets: Vec<&str> = DSFTL.iter().chain(more).copied().collect();
    config(entries, true, &sets)
}

/// One-page requests every ms: `(op, lpn, content)`; a write without content gets a
/// token of its own.
fn reqs(ops: &[(Op, u32, Option<u64>)]) -> Vec<IoRequest> {
    let plain: Vec<(Op, u32)> = ops.iter().map(|&(o, l, _)| (o, l)).collect();
    let mut r = one_page(&plain, 1_000_000);
    for (q, &(_, _, t)) in r.iter_mut().zip(ops) {
        q.content = t.map(|t| Content::Pages(Box::new([t])));
    }
    r
}

/// Reads of `n` LPNs each in a translation page of its own (16 entries a page), none
/// of them in a group: they push every other entry out of a small table.
fn fillers(n: u32) -> Vec<(Op, u32, Option<u64>)> {
    (1..=n)
        .map(|k| (Op::Read, 16 * (k + 20) + 3, None))
        .collect()
}

fn built(cfg: SimConfig, ops: &[(Op, u32, Option<u64>)]) -> Simulation {
    let mut sim = Simulation::new(cfg, Box::new(VecStream::new(reqs(ops))), "-").unwrap();
    sim.run_to_end().unwrap();
    sim
}

fn group_of(ftl: &Ftl, lpn: u32) -> Option<u32> {
    ftl.lookup(Lpn(lpn)).and_then(|p| ftl.content_group(p))
}

fn group_key(sim: &Simulation, g: u32) -> u32 {
    sim.cmt.as_ref().unwrap().cmt.group_key(g)
}

fn dirty(sim: &Simulation, key: u32) -> bool {
    sim.cmt.as_ref().unwrap().cmt.is_dirty(key)
}

fn finish(sim: Simulation) -> Report {
    sim.audit().unwrap();
    sim.cmt.as_ref().unwrap().cmt.check();
    sim.into_report().unwrap()
}

#[test]
fn a_group_record_miss_is_a_second_dependent_translation_read() {
    // LPNs 0 and 1 take the same content (a group); reads of other pages push both
    // entries and the record out of an 8-entry table, then a read of LPN 0 misses its
    // entry (one map read) and then the group's record (a second one).
    let mut ops = vec![(Op::Write, 0, Some(7)), (Op::Write, 1, Some(7))];
    ops.extend(fillers(8));
    ops.push((Op::Read, 0, None));
    let sim = built(dsftl(8, &[]), &ops);
    assert!(group_of(&sim.ftl, 0).is_some());
    let r = finish(sim);
    let m = mapping(&r);
    let g = m.groups.expect("group records");
    assert_eq!(g.record_entries, 4, "one entry per chip");
    assert_eq!((g.lookups, g.hits, g.miss_reads), (1, 0, 1));
    assert_eq!(g.written_records, 1, "the record was written back once");
    assert_eq!(m.miss_reads, 9, "eight fillers and LPN 0");
    assert_eq!(
        count(&r, TxnReason::MapRead),
        m.miss_reads + m.writeback_reads + g.miss_reads
    );
    // Three reads in a row against two for every filler.
    assert_eq!(m.read_miss.count, 9);
    assert!(
        m.read_miss.max_ns as f64 > m.read_miss.min_ns as f64 * 1.3,
        "{:?}",
        m.read_miss
    );
    assert_eq!(r.counter(Counter::VerifiedReads), 9);
}

#[test]
fn a_cached_record_is_a_hit_and_unique_pages_look_up_none() {
    // Written, then read at once: the entry and the record are both cached.
    let ops = [
        (Op::Write, 0, Some(7)),
        (Op::Write, 1, Some(7)),
        (Op::Read, 0, None),
        (Op::Read, 1, None),
        (Op::Read, 5, None),
    ];
    let r = finish(built(dsftl(64, &[]), &ops));
    let g = mapping(&r).groups.unwrap();
    assert_eq!((g.lookups, g.hits, g.miss_reads), (2, 2, 0));
}

#[test]
fn a_write_that_takes_an_lpn_out_of_a_group_dirties_its_entry_and_the_record() {
    // A group of three; everything flushed; LPN 0 is rewritten with other content.
    let mut ops = vec![
        (Op::Write, 0, Some(7)),
        (Op::Write, 1, Some(7)),
        (Op::Write, 2, Some(7)),
    ];
    ops.extend(fillers(12));
    let before = built(dsftl(8, &[]), &ops);
    let g = group_of(&before.ftl, 1).unwrap();
    assert!(!dirty(&before, 0) && !dirty(&before, group_key(&before, g)));
    ops.push((Op::Write, 0, Some(9)));
    let sim = built(dsftl(8, &[]), &ops);
    assert_eq!(group_of(&sim.ftl, 1), Some(g), "1 and 2 are still a group");
    assert!(dirty(&sim, 0), "the LPN's entry");
    assert!(dirty(&sim, group_key(&sim, g)), "the group's record");
    assert!(
        !dirty(&sim, 1) && !dirty(&sim, 2),
        "their entries still name the group"
    );
    finish(sim);
}

#[test]
fn a_group_formed_dirties_both_lpns_entries_and_its_record() {
    // LPN 0 holds a content alone and its entry is flushed clean; LPN 1 takes the same
    // content: LPN 0's entry now names the group without LPN 0 being written.
    let mut ops = vec![(Op::Write, 0, Some(7))];
    ops.extend(fillers(12));
    let before = built(dsftl(8, &[]), &ops);
    assert!(!dirty(&before, 0) && group_of(&before.ftl, 0).is_none());
    ops.push((Op::Write, 1, Some(7)));
    let sim = built(dsftl(8, &[]), &ops);
    let g = group_of(&sim.ftl, 0).expect("a group of LPNs 0 and 1");
    assert!(dirty(&sim, 0) && dirty(&sim, 1));
    assert!(dirty(&sim, group_key(&sim, g)));
    finish(sim);
}

#[test]
fn a_dissolved_group_gives_its_last_lpn_a_plain_entry_again() {
    // A group of two; LPN 0 leaves it: LPN 1's entry names its page again (dirty).
    let mut ops = vec![(Op::Write, 0, Some(7)), (Op::Write, 1, Some(7))];
    ops.extend(fillers(12));
    ops.push((Op::Write, 0, Some(9)));
    let sim = built(dsftl(8, &[]), &ops);
    assert_eq!(group_of(&sim.ftl, 1), None);
    assert!(dirty(&sim, 0) && dirty(&sim, 1));
    finish(sim);
}

#[test]
fn a_gc_move_of_a_grouped_page_dirties_the_record_only() {
    // A group of LPNs 0 and 1, then a full block behind LPN 0's page (writes of other
    // LPNs of its plane); everything flushed, then LPN 0 read back (its entry and the
    // record cached clean). GC then moves LPN 0's page.
    let mut ops = vec![(Op::Write, 0, Some(7)), (Op::Write, 1, Some(7))];
    ops.extend((1..=40).map(|k| (Op::Write, 8 * k, None)));
    ops.extend(fillers(12));
    ops.push((Op::Read, 0, None));
    let mut sim = built(dsftl(8, &[]), &ops);
    let g = group_of(&sim.ftl, 0).unwrap();
    let key = group_key(&sim, g);
    let c = &sim.cmt.as_ref().unwrap().cmt;
    assert!(c.contains(0) && c.contains(key) && !dirty(&sim, 0) && !dirty(&sim, key));
    let src = sim.ftl.lookup(Lpn(0)).unwrap();
    let block = sim.geom.block_of_page(src);
    assert!(sim.ftl.select_victim_block(block), "LPN 0's block is full");
    let dst: Ppn = sim.ftl.gc_begin_move(src).unwrap();
    assert!(sim.ftl.gc_finish_move(src, dst));
    sim.cmt_after_move(Lpn(0));
    assert_eq!(group_of(&sim.ftl, 0), Some(g));
    assert!(dirty(&sim, key), "the record lists the moved page");
    assert!(
        !dirty(&sim, 0),
        "the LPN's entry names the group, unchanged"
    );
    // A GC move of a page with unique content dirties its LPN's entry, as without
    // DS-FTL.
    let lone = (1..=40)
        .map(|k| 8 * k)
        .find(|&l| {
            let p = sim.ftl.lookup(Lpn(l)).unwrap();
            sim.geom.block_of_page(p) == block && group_of(&sim.ftl, l).is_none()
        })
        .expect("a unique page in the victim block");
    let src = sim.ftl.lookup(Lpn(lone)).unwrap();
    let dst = sim.ftl.gc_begin_move(src).unwrap();
    assert!(sim.ftl.gc_finish_move(src, dst));
    sim.cmt_after_move(Lpn(lone));
    assert!(dirty(&sim, lone));
}

#[test]
fn without_multipath_reads_the_index_costs_the_map_nothing() {
    // dsftl.index with a static allocation: the content index only counts, the map is
    // the one-to-one map, and the run is the run without the index.
    let ops: Vec<_> = [(Op::Write, 0, Some(7)), (Op::Write, 1, Some(7))]
        .into_iter()
        .chain(fillers(8))
        .chain([(Op::Read, 0, None)])
        .collect();
    let with = finish(built(config(8, true, &["dsftl.index=true"]), &ops));
    let without = finish(built(config(8, true, &[]), &ops));
    assert!(with.mapping.unwrap().groups.is_none());
    assert_eq!(with.mapping, without.mapping);
    assert_eq!(
        count(&with, TxnReason::MapRead),
        count(&without, TxnReason::MapRead)
    );
}

/// One-page requests over the small device: a third reads, writes drawing their content
/// from `contents` shared values (0: unique).
fn churn(n: u32, seed: u64, contents: u64) -> Vec<IoRequest> {
    let mut x = seed | 1;
    let mut ops = Vec::new();
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lpn = ((x >> 8) % 3000) as u32;
        if x.is_multiple_of(3) {
            ops.push((Op::Read, lpn, None));
        } else {
            let t = (contents > 0).then(|| 1 + (x >> 40) % contents);
            ops.push((Op::Write, lpn, t));
        }
    }
    reqs(&ops)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(10), ..ProptestConfig::default() })]

    /// DS-FTL with the cached map under verify: random writes of a few shared contents,
    /// reads and GC on a full device read back what was written; the translation pages,
    /// the LPN entries and the group records agree with the map; the table holds its
    /// entries within its capacity.
    #[test]
    fn dsftl_with_the_cached_map_never_loses_data(
        seed in 1u64..u64::MAX,
        entries in 4u32..200,
        contents in 1u64..40,
        n in 1_500u32..3_000,
        gap in prop::sample::select(vec![2_000u64, 20_000, 200_000]),
        chip_scope in any::<bool>(),
    ) {
        let mut reqs = churn(n, seed, contents);
        for (i, r) in reqs.iter_mut().enumerate() {
            r.arrival_ns = i as u64 * gap;
        }
        let scope = if chip_scope { "dsftl.scope=\"chip\"" } else { "dsftl.scope=\"channel\"" };
        let cfg = config(entries, true, &["ftl.allocation=\"content-aware\"", scope]);
        let mut sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "-").unwrap();
        sim.run_to_end().unwrap();
        sim.ftl.check_invariants();
        let r = finish(sim);
        let g = mapping(&r).groups.unwrap();
        prop_assert!(g.hits <= g.lookups && g.lookups > 0, "{g:?}");
        prop_assert!(r.erases > 0, "GC ran");
        prop_assert!(r.counter(Counter::VerifiedReads) > 0);
    }
}
