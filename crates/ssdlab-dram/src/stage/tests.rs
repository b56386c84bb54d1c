//! The stage's rules one by one, and its invariants under random operations.

use super::*;
use crate::config::WritePolicy;

/// A stage of `pages` 4 KiB pages (whole MiB are rounded: use multiples of 256).
fn stage(mode: CacheMode, pages: u64, f: impl FnOnce(&mut CacheConfig)) -> DramStage {
    let mut cfg = CacheConfig {
        mode,
        capacity_mib: 1,
        write_policy: WritePolicy::WriteBack,
        ..CacheConfig::default()
    };
    f(&mut cfg);
    let s = DramStage::new(&cfg, (1 << 20) / pages as u32, 1, 64, 0);
    s.check_invariants();
    s
}

fn absorbed(o: WriteOutcome) -> (u64, bool) {
    match o {
        WriteOutcome::Absorbed { seq, superseded } => (seq, superseded),
        WriteOutcome::Full => panic!("full"),
    }
}

fn plan(s: &mut DramStage) -> Vec<Victim> {
    let mut v = Vec::new();
    s.plan(&mut v);
    s.check_invariants();
    v
}

fn lpns(v: &[Victim]) -> Vec<u32> {
    v.iter().map(|x| x.lpn.0).collect()
}

#[test]
fn a_read_of_a_buffered_page_is_a_hit_with_its_newest_content() {
    let mut s = stage(CacheMode::WriteBuffer, 4, |_| {});
    absorbed(s.write(0, Lpn(7), 70));
    assert_eq!(s.read(Lpn(7)), Some(70));
    assert_eq!(s.read(Lpn(8)), None);
    let c = s.counters();
    assert_eq!((c.read_hits, c.read_misses, c.writes_absorbed), (1, 1, 1));
}

#[test]
fn a_newer_write_supersedes_a_buffered_page_and_only_it_is_destaged() {
    let mut s = stage(CacheMode::WriteBuffer, 4, |c| c.destage = Destage::OnDemand);
    assert!(!absorbed(s.write(0, Lpn(1), 10)).1);
    let (seq, superseded) = absorbed(s.write(1, Lpn(1), 11));
    assert!(superseded);
    assert_eq!(s.counters().superseded, 1);
    assert_eq!(s.resident(), 1);
    let upto = s.flush();
    let v = plan(&mut s);
    assert_eq!(
        v,
        [Victim {
            lpn: Lpn(1),
            token: 11,
            seq
        }]
    );
    assert!(!s.flushed(upto));
    assert!(s.destaged(5, Lpn(1), seq));
    assert!(s.flushed(upto));
    assert_eq!(s.resident(), 0, "a write buffer drops what is durable");
}

#[test]
fn a_write_that_finds_dram_full_waits_for_a_destage() {
    let mut s = stage(CacheMode::WriteBuffer, 2, |c| c.destage = Destage::OnDemand);
    absorbed(s.write(0, Lpn(1), 1));
    absorbed(s.write(1, Lpn(2), 2));
    assert!(
        plan(&mut s).is_empty(),
        "on demand: nothing destaged while there is room"
    );
    assert_eq!(s.write(2, Lpn(3), 3), WriteOutcome::Full);
    let v = plan(&mut s);
    assert_eq!(lpns(&v), [1], "the least recently used page goes");
    assert!(
        plan(&mut s).is_empty(),
        "one program in flight covers the one waiting write"
    );
    assert!(s.destaged(3, Lpn(1), v[0].seq));
    s.stop_waiting();
    absorbed(s.write(4, Lpn(3), 3));
    assert_eq!(s.counters().full, 1);
}

#[test]
fn watermarks_start_and_stop_background_destaging() {
    // 10 pages (410-byte pages of a 4 KiB MiB... the share is what matters), high 0.8, low 0.5.
    let mut s = stage(CacheMode::WriteBuffer, 10, |c| {
        c.high_watermark = 0.8;
        c.low_watermark = 0.5;
    });
    for l in 0..7 {
        absorbed(s.write(l, Lpn(l as u32), l));
    }
    assert!(
        plan(&mut s).is_empty(),
        "7 of 10 dirty: below the high watermark"
    );
    absorbed(s.write(7, Lpn(7), 7));
    let v = plan(&mut s);
    assert_eq!(
        lpns(&v),
        [0, 1, 2],
        "8 dirty: down to 5 waiting, oldest first"
    );
    for x in &v {
        s.destaged(9, x.lpn, x.seq);
    }
    assert!(
        plan(&mut s).is_empty(),
        "5 dirty: at the low watermark, stopped"
    );
    absorbed(s.write(10, Lpn(8), 8));
    absorbed(s.write(11, Lpn(9), 9));
    assert!(
        plan(&mut s).is_empty(),
        "7 dirty: between the marks, not draining"
    );
}

#[test]
fn the_in_flight_limit_bounds_destaging() {
    let mut s = stage(CacheMode::WriteBuffer, 10, |c| {
        c.high_watermark = 0.1;
        c.low_watermark = 0.0;
        c.max_destage_in_flight = 2;
    });
    for l in 0..5 {
        absorbed(s.write(l, Lpn(l as u32), l));
    }
    assert_eq!(plan(&mut s).len(), 2);
    assert!(plan(&mut s).is_empty());
    assert_eq!(s.in_flight(), 2);
}

#[test]
fn replacement_orders_lru_fifo_and_clean_first() {
    // Read-write, 3 pages: 1 clean (filled), 2 and 3 dirty; page 1 read last.
    let setup = |r: Replacement| {
        let mut s = stage(CacheMode::ReadWrite, 3, |c| {
            c.replacement = r;
            c.destage = Destage::OnDemand;
        });
        s.fill(Lpn(1), 10);
        absorbed(s.write(1, Lpn(2), 20));
        absorbed(s.write(2, Lpn(3), 30));
        assert_eq!(s.read(Lpn(1)), Some(10));
        s
    };
    // LRU: page 2 is least recent and dirty: the write waits and page 2 is destaged.
    let mut lru = setup(Replacement::Lru);
    assert_eq!(lru.write(3, Lpn(4), 40), WriteOutcome::Full);
    assert_eq!(lpns(&plan(&mut lru)), [2]);
    // FIFO: page 1 came first and is clean: dropped, the write goes in.
    let mut fifo = setup(Replacement::Fifo);
    absorbed(fifo.write(3, Lpn(4), 40));
    assert_eq!(fifo.read(Lpn(1)), None);
    assert_eq!(fifo.counters().evicted, 1);
    // Clean-first LRU: the clean page goes although it is the most recent.
    let mut cf = setup(Replacement::CleanFirstLru);
    absorbed(cf.write(3, Lpn(4), 40));
    assert_eq!(cf.read(Lpn(1)), None);
    assert_eq!(cf.read(Lpn(2)), Some(20));
}

#[test]
fn read_write_mode_keeps_programmed_and_read_pages_as_clean_copies() {
    let mut s = stage(CacheMode::ReadWrite, 4, |c| c.destage = Destage::OnDemand);
    let (seq, _) = absorbed(s.write(0, Lpn(5), 50));
    s.urgent(Lpn(5));
    let v = plan(&mut s);
    s.destaged(1, v[0].lpn, seq);
    assert_eq!(s.read(Lpn(5)), Some(50), "clean copy after the program");
    assert_eq!(s.dirty_pages(), 0);
    s.fill(Lpn(6), 60);
    assert_eq!(s.read(Lpn(6)), Some(60));
    let mut wb = stage(CacheMode::WriteBuffer, 4, |_| {});
    wb.fill(Lpn(6), 60);
    assert_eq!(wb.read(Lpn(6)), None, "a write buffer keeps no reads");
}

#[test]
fn a_flush_destages_what_was_dirty_before_it_and_no_more() {
    let mut s = stage(CacheMode::WriteBuffer, 8, |c| c.destage = Destage::OnDemand);
    absorbed(s.write(0, Lpn(1), 1));
    absorbed(s.write(0, Lpn(2), 2));
    let upto = s.flush();
    absorbed(s.write(1, Lpn(3), 3));
    let v = plan(&mut s);
    assert_eq!(lpns(&v), [1, 2], "the page written after the flush waits");
    assert!(!s.flushed(upto));
    s.destaged(2, v[0].lpn, v[0].seq);
    assert!(!s.flushed(upto));
    s.destaged(2, v[1].lpn, v[1].seq);
    assert!(s.flushed(upto));
    assert_eq!(s.dirty_pages(), 1);
    let empty = stage(CacheMode::WriteBuffer, 8, |_| {});
    let mut empty = empty;
    let upto = empty.flush();
    assert!(
        empty.flushed(upto),
        "a flush of a clean DRAM is done at once"
    );
}

#[test]
fn a_fua_write_goes_first_and_is_durable_when_programmed() {
    let mut s = stage(CacheMode::WriteBuffer, 8, |c| c.destage = Destage::OnDemand);
    absorbed(s.write(0, Lpn(1), 1));
    let (seq, _) = absorbed(s.write(0, Lpn(2), 2));
    s.urgent(Lpn(2));
    assert!(!s.durable(Lpn(2), seq));
    let v = plan(&mut s);
    assert_eq!(lpns(&v), [2], "only the urgent page, page 1 stays");
    s.destaged(1, Lpn(2), seq);
    assert!(s.durable(Lpn(2), seq));
}

#[test]
fn a_fua_write_of_a_page_being_programmed_goes_first_once_that_program_is_done() {
    let mut s = stage(CacheMode::WriteBuffer, 8, |c| c.destage = Destage::OnDemand);
    let (s1, _) = absorbed(s.write(0, Lpn(1), 1));
    s.urgent(Lpn(1));
    assert_eq!(lpns(&plan(&mut s)), [1]);
    // A FUA write of the page while its first version is programmed.
    let (s2, _) = absorbed(s.write(1, Lpn(1), 2));
    s.urgent(Lpn(1));
    absorbed(s.write(1, Lpn(3), 3));
    assert!(plan(&mut s).is_empty(), "not programmed twice at once");
    s.destaged(2, Lpn(1), s1);
    let v = plan(&mut s);
    assert_eq!(
        lpns(&v),
        [1],
        "still urgent, below the watermark and unflushed"
    );
    s.destaged(3, Lpn(1), v[0].seq);
    assert!(s.durable(Lpn(1), s2));
    assert!(plan(&mut s).is_empty(), "page 3 stays");
}

#[test]
fn a_trim_drops_every_version_and_the_flush_no_longer_waits_for_it() {
    let mut s = stage(CacheMode::ReadWrite, 8, |c| c.destage = Destage::OnDemand);
    absorbed(s.write(0, Lpn(1), 1));
    absorbed(s.write(0, Lpn(2), 2));
    s.fill(Lpn(3), 3);
    let upto = s.flush();
    let v = plan(&mut s);
    assert_eq!(lpns(&v), [1, 2]);
    assert_eq!(s.in_flight(), 2);
    // Page 1 is being programmed, page 3 is clean: both leave DRAM.
    assert!(s.discard(Lpn(1)) && s.discard(Lpn(3)) && !s.discard(Lpn(4)));
    s.check_invariants();
    assert_eq!((s.resident(), s.in_flight()), (1, 1));
    assert_eq!(s.read(Lpn(1)), None);
    assert_eq!(s.read(Lpn(3)), None);
    // A write of page 1 after the trim is a new version; the old program changes nothing.
    let (seq, superseded) = absorbed(s.write(1, Lpn(1), 10));
    assert!(!superseded);
    assert!(!s.destaged(2, Lpn(1), v[0].seq));
    assert!(!s.durable(Lpn(1), seq));
    s.destaged(2, Lpn(2), v[1].seq);
    assert!(
        s.flushed(upto),
        "the trimmed page's old version is not waited for"
    );
    // A dirty page not yet planned is never destaged after its trim.
    assert!(s.discard(Lpn(1)));
    s.flush();
    assert!(plan(&mut s).is_empty());
    s.check_invariants();
}

#[test]
fn a_page_written_while_programmed_stays_dirty_from_that_write() {
    let mut s = stage(CacheMode::ReadWrite, 8, |c| c.destage = Destage::OnDemand);
    let (s1, _) = absorbed(s.write(0, Lpn(1), 1));
    s.urgent(Lpn(1));
    let v = plan(&mut s);
    let (s2, superseded) = absorbed(s.write(1, Lpn(1), 2));
    assert!(!superseded, "the first version is on its way to flash");
    let (_, again) = absorbed(s.write(1, Lpn(1), 3));
    assert!(again, "the second never will be");
    assert!(plan(&mut s).is_empty(), "not destaged twice at once");
    s.destaged(2, v[0].lpn, s1);
    assert!(s.durable(Lpn(1), s1));
    assert!(!s.durable(Lpn(1), s2));
    assert!(!s.flushed(s2));
    assert_eq!(s.read(Lpn(1)), Some(3));
}

#[test]
fn a_destage_group_takes_the_other_dirty_pages_of_a_stripe() {
    let cfg = CacheConfig {
        mode: CacheMode::WriteBuffer,
        capacity_mib: 1,
        destage: Destage::OnDemand,
        ..CacheConfig::default()
    };
    let mut s = DramStage::new(&cfg, 4096, 4, 64, 0);
    for l in [4, 5, 7, 9] {
        absorbed(s.write(0, Lpn(l), u64::from(l)));
    }
    s.urgent(Lpn(5));
    assert_eq!(
        lpns(&plan(&mut s)),
        [4, 5, 7],
        "stripe 4..8; page 9 is another stripe"
    );
}

#[test]
fn power_loss_loses_dirty_pages_beyond_the_plp_budget() {
    let mut s = stage(CacheMode::ReadWrite, 8, |c| c.destage = Destage::OnDemand);
    let (s1, _) = absorbed(s.write(0, Lpn(1), 1));
    absorbed(s.write(1, Lpn(2), 2));
    absorbed(s.write(2, Lpn(3), 3));
    s.fill(Lpn(9), 90);
    s.urgent(Lpn(1));
    plan(&mut s); // page 1 in flight: it completes
    let no_plp = {
        let mut t = stage(CacheMode::ReadWrite, 8, |c| c.destage = Destage::OnDemand);
        absorbed(t.write(0, Lpn(2), 2));
        t.power_loss(5, 0)
    };
    assert_eq!(lpns(&no_plp.lost), [2]);
    let loss = s.power_loss(5, 1);
    assert_eq!(
        lpns(&loss.saved),
        [2],
        "the oldest dirty page, within the budget"
    );
    assert_eq!(lpns(&loss.lost), [3]);
    assert_eq!((s.counters().lost, s.counters().plp_saved), (1, 1));
    assert_eq!(s.resident(), 0);
    assert_eq!(s.read(Lpn(9)), None, "clean copies are gone too");
    assert!(
        !s.destaged(9, Lpn(1), s1),
        "the program from before is not the stage's"
    );
    s.check_invariants();
    absorbed(s.write(10, Lpn(3), 33));
    assert_eq!(s.read(Lpn(3)), Some(33));
}

mod random {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[derive(Clone, Debug)]
    enum Op {
        Write(u32),
        Read(u32),
        Fill(u32),
        Plan,
        Done(usize),
        Flush,
        Urgent(u32),
        Power(u64),
        Trim(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..160u32).prop_map(Op::Write),
            2 => (0..160u32).prop_map(Op::Read),
            1 => (0..160u32).prop_map(Op::Fill),
            2 => Just(Op::Plan),
            3 => (0..8usize).prop_map(Op::Done),
            1 => Just(Op::Flush),
            1 => (0..160u32).prop_map(Op::Urgent),
            1 => (0..3u64).prop_map(Op::Power),
            1 => (0..160u32).prop_map(Op::Trim),
        ]
    }

    fn config() -> impl Strategy<Value = CacheConfig> {
        (
            prop_oneof![Just(CacheMode::WriteBuffer), Just(CacheMode::ReadWrite)],
            prop_oneof![
                Just(Replacement::Lru),
                Just(Replacement::Fifo),
                Just(Replacement::CleanFirstLru)
            ],
            prop_oneof![Just(Destage::Watermark), Just(Destage::OnDemand)],
            1..4u32,
        )
            .prop_map(|(mode, replacement, destage, limit)| CacheConfig {
                mode,
                replacement,
                destage,
                capacity_mib: 1,
                max_destage_in_flight: limit,
                ..CacheConfig::default()
            })
    }

    proptest! {
        /// Whatever happens: the invariants hold, a hit returns the newest write, every
        /// destaged version is the newest at the time, and every acknowledged write is
        /// durable, in DRAM, or reported lost by a power loss. Pages are written over
        /// four times the capacity (6 pages, or 40: long lists, old keys deep inside).
        #[test]
        fn the_stage_keeps_its_invariants_and_every_write_is_accounted(
            cfg in config(),
            pages in prop_oneof![Just(6u32), Just(40)],
            ops in proptest::collection::vec(op(), 1..400)
        ) {
            let mut s = DramStage::new(&cfg, (1 << 20) / pages, 2, 64, 0);
            let lpns = 4 * pages;
            let mut newest: HashMap<u32, u64> = HashMap::new(); // acknowledged
            let mut durable: HashMap<u32, u64> = HashMap::new(); // on flash
            let mut flying: Vec<Victim> = Vec::new();
            // Programs in flight of pages trimmed since: they complete, changing nothing.
            let mut void: Vec<Victim> = Vec::new();
            let mut token = 0;
            for op in ops {
                match op {
                    Op::Write(l) => {
                        let l = l % lpns;
                        token += 1;
                        if let WriteOutcome::Absorbed { .. } = s.write(0, Lpn(l), token) {
                            newest.insert(l, token);
                        } else {
                            s.stop_waiting();
                        }
                    }
                    Op::Read(l) => {
                        let l = l % lpns;
                        if let Some(t) = s.read(Lpn(l)) {
                            prop_assert_eq!(Some(&t), newest.get(&l));
                        }
                    }
                    Op::Fill(l) => {
                        let l = l % lpns;
                        if let Some(&t) = durable.get(&l) {
                            if newest.get(&l) == Some(&t) {
                                s.fill(Lpn(l), t);
                            }
                        }
                    }
                    Op::Plan => {
                        let mut v = Vec::new();
                        s.plan(&mut v);
                        for x in &v {
                            prop_assert_eq!(Some(&x.token), newest.get(&x.lpn.0));
                        }
                        flying.extend(v);
                    }
                    Op::Done(i) if !flying.is_empty() => {
                        let x = flying.remove(i % flying.len());
                        durable.insert(x.lpn.0, x.token);
                        s.destaged(0, x.lpn, x.seq);
                    }
                    Op::Done(_) => {
                        if let Some(x) = void.pop() {
                            prop_assert!(!s.destaged(0, x.lpn, x.seq), "a trimmed program");
                        }
                    }
                    Op::Trim(l) => {
                        let l = l % lpns;
                        s.discard(Lpn(l));
                        newest.remove(&l);
                        durable.remove(&l);
                        let (gone, kept): (Vec<Victim>, Vec<Victim>) =
                            flying.drain(..).partition(|x| x.lpn.0 == l);
                        flying = kept;
                        void.extend(gone);
                        prop_assert_eq!(s.read(Lpn(l)), None);
                    }
                    Op::Flush => { s.flush(); }
                    Op::Urgent(l) => s.urgent(Lpn(l % lpns)),
                    Op::Power(plp) => {
                        // Programs in flight complete; saved pages are programmed.
                        let loss = s.power_loss(0, plp);
                        for x in flying.drain(..).chain(loss.saved.iter().copied()) {
                            durable.insert(x.lpn.0, x.token);
                        }
                        for x in &loss.lost {
                            prop_assert_eq!(Some(&x.token), newest.get(&x.lpn.0));
                            match durable.get(&x.lpn.0) {
                                Some(&t) => newest.insert(x.lpn.0, t),
                                None => newest.remove(&x.lpn.0),
                            };
                        }
                        for (l, t) in &newest {
                            prop_assert_eq!(durable.get(l), Some(t), "lpn {} neither durable nor lost", l);
                        }
                    }
                }
                s.check_invariants();
            }
        }
    }
}
