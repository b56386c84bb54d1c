//! ONFI cache read and cache program on the die's side (docs/NAND.md, "Cache read and
//! cache program"): `nand.cache_mode`.
//!
//! A die has a data register (the array reads into it and programs from it) and a
//! cache register (the channel bus fills and drains it). Without cache operations a
//! read holds the die until its pages have crossed the bus, and a program's data
//! crosses the bus before its array time starts.
//!
//! ```text
//!  read array ends ─► next queued op of the die a read? ─ no, and the page came by 30h ─► plain transfer
//!         │ yes (31h), or the page came by 31h (3Fh)
//!         ▼ cache register free? ─ no: the page waits in the data register (one at most)
//!  move (t_cache_read_ns) ─► the page crosses the bus from the cache register
//!                            while the next read's array time runs
//!  program array starts ─► next queued op a program, no read queued? ─ yes (15h): its data
//!                          crosses into the cache register meanwhile
//!  program ends ─► the next one's data all in: move (t_cache_prog_ns), then its program;
//!                  part of it in: its transfer goes on, then its program
//! ```
//!
//! The next operation is the one the scheduler would give the die (its `pick`, which
//! for the policies allowed here, `async-fifo`, `piq` and `brr`, serves the die's oldest
//! queued transaction), taken only when that is of the kind the cache operation chains;
//! nothing is reordered.

use crate::sched::Scheduler;
use crate::sim::backend::Phase;
use crate::sim::txn::{TxnId, NONE, UNBOUND};
use crate::sim::{Event, Simulation};
use ssdlab_engine::SimDuration;
use ssdlab_nand::{CacheMode, DieId, FlashOp, NandConfig, WriteAck};
use ssdlab_stats::CacheReport;

/// What a die's live end event ends when it is not an array operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    /// Nothing: the event ends an array operation.
    None,
    /// The read page moves into the cache register; then the read group with this
    /// head starts its array read (31h), or nothing does ([`NONE`]: 3Fh).
    Read(TxnId),
    /// The cached program's data moves into the data register; then it programs.
    Program,
}

/// One die's registers.
#[derive(Clone, Copy, Debug)]
struct CacheDie {
    /// The read group in the cache register, crossing the bus (its transfers left are
    /// the die's `xfers_left`), or [`NONE`].
    out: TxnId,
    /// The program group crossing the bus into the cache register while the die
    /// programs (its transfers left are the die's `xfers_left`), or [`NONE`].
    inb: TxnId,
    /// All of `inb`'s data is in the cache register.
    inb_in: bool,
    /// The die's current read group was started by a cache read command: its pages end
    /// in the data register and move into the cache register before crossing the bus.
    chained: bool,
    /// The current read group's array read has ended and waits in the data register
    /// for `out` to leave the cache register.
    waiting: bool,
    /// What the live end event ends.
    moving: Move,
}

impl Default for CacheDie {
    fn default() -> Self {
        CacheDie {
            out: NONE,
            inb: NONE,
            inb_in: false,
            chained: false,
            waiting: false,
            moving: Move::None,
        }
    }
}

/// The cache operations' state and counts.
pub(in crate::sim) struct CacheState {
    mode: CacheMode,
    t_read_move: u64,
    t_prog_move: u64,
    dies: Vec<CacheDie>,
    cached_reads: u64,
    cached_programs: u64,
    waits: u64,
}

impl CacheState {
    /// The state for `cfg` on `dies` dies, or `None` with `cache_mode = "off"`.
    pub(in crate::sim) fn build(cfg: &NandConfig, dies: u32) -> Option<Box<CacheState>> {
        if cfg.cache_mode.is_off() {
            return None;
        }
        Some(Box::new(CacheState {
            mode: cfg.cache_mode,
            t_read_move: cfg.t_cache_read_ns,
            t_prog_move: cfg.t_cache_prog_ns,
            dies: vec![CacheDie::default(); dies as usize],
            cached_reads: 0,
            cached_programs: 0,
            waits: 0,
        }))
    }

    /// The report's `nand.cache` section.
    pub(in crate::sim) fn report(&self) -> CacheReport {
        CacheReport {
            mode: self.mode.name().into(),
            cached_reads: self.cached_reads,
            cached_programs: self.cached_programs,
            read_register_waits: self.waits,
        }
    }
}

impl Simulation {
    fn cache(&self) -> Option<&CacheState> {
        self.nand.as_deref().and_then(|n| n.cache.as_deref())
    }

    fn cache_mut(&mut self) -> &mut CacheState {
        self.nand
            .as_deref_mut()
            .and_then(|n| n.cache.as_deref_mut())
            .expect("cache operations are on")
    }

    fn cache_die(&mut self, die: DieId) -> &mut CacheDie {
        &mut self.cache_mut().dies[die.idx()]
    }

    /// Schedules the end of a register move of `ns` on `die`.
    fn schedule_move(&mut self, die: DieId, ns: u64, what: Move) {
        self.cache_die(die).moving = what;
        let epoch = self.nand().dies[die.idx()].epoch;
        self.events
            .schedule_in(SimDuration(ns), Event::NandDone(die, epoch));
    }

    /// The live end event of `die` ended a register move: what follows it starts
    /// (true), or false when the event ends an array operation.
    pub(super) fn cache_move_done(&mut self, die: DieId) -> bool {
        let Some(c) = self.cache() else {
            return false;
        };
        let what = c.dies[die.idx()].moving;
        match what {
            Move::None => return false,
            Move::Read(next) => {
                self.cache_die(die).moving = Move::None;
                self.cache_read_moved(die, next);
            }
            Move::Program => {
                self.cache_die(die).moving = Move::None;
                self.nand_array(die);
            }
        }
        true
    }

    /// The array read of `die`'s current group ended: true when cache read takes it
    /// over (it waits for the cache register, or moves into it), false when it crosses
    /// the bus as without cache read.
    pub(super) fn cache_read_done(&mut self, die: DieId) -> bool {
        let Some(c) = self.cache() else {
            return false;
        };
        if !c.mode.reads() {
            return false;
        }
        if c.dies[die.idx()].out != NONE {
            // The previous page still crosses the bus from the cache register.
            let c = self.cache_mut();
            c.dies[die.idx()].waiting = true;
            c.waits += 1;
            return true;
        }
        let head = self.dies[die.idx()].head;
        // A read under a suspension returns the die to its operation.
        if !self.uses_bus(head) || self.nand().dies[die.idx()].saved.is_some() {
            return false;
        }
        self.cache_read_next(die)
    }

    /// `die`'s read group has ended its array read and the cache register is free: a
    /// queued read of the die starts a cache read (31h), a page read by 31h moves into
    /// the cache register (3Fh); false when neither applies.
    fn cache_read_next(&mut self, die: DieId) -> bool {
        let chained = self.cache_die(die).chained;
        let next = self.cache_take(die, FlashOp::Read);
        if next == NONE && !chained {
            return false;
        }
        let ns = self.cache_mut().t_read_move;
        if ns == 0 {
            self.cache_read_moved(die, next);
        } else {
            self.schedule_move(die, ns, Move::Read(next));
        }
        true
    }

    /// `die`'s read group is in the cache register: it crosses the bus, and the read
    /// group `next` (if any) starts its array read meanwhile.
    fn cache_read_moved(&mut self, die: DieId, next: TxnId) {
        let (chip, ch) = self.queues.home(die);
        let group = self.dies[die.idx()].head;
        let mut n = 0;
        self.for_group(group, |_, _| n += 1);
        let cd = self.cache_die(die);
        cd.waiting = false;
        cd.chained = next != NONE;
        if next != NONE {
            cd.out = group;
        }
        let dm = &mut self.dies[die.idx()];
        dm.xfers_left = n;
        if next == NONE {
            dm.phase = Phase::ReadXfer;
        } else {
            dm.head = next;
        }
        self.for_group(group, |sim, t| sim.request_bus(t, die, chip, ch));
        if next != NONE {
            self.nand_array(die);
        }
    }

    /// A page of `die` crossed the bus while its array works: a read page left the
    /// cache register, or a cached program's data came in. (Kept out of the back end's
    /// bus step, which runs it only with cache operations on.)
    #[inline(never)]
    pub(in crate::sim) fn cache_bus_done(&mut self, die: DieId, t: TxnId, last: bool) {
        if self.dies[die.idx()].phase == Phase::ReadArray {
            self.complete_txn(t);
            if last {
                let cd = self.cache_die(die);
                cd.out = NONE;
                if cd.waiting {
                    let moved = self.cache_read_next(die);
                    debug_assert!(moved, "a read waiting for the register came by 31h");
                }
            }
        } else {
            debug_assert_eq!(self.dies[die.idx()].phase, Phase::ProgArray);
            if last {
                self.cache_die(die).inb_in = true;
            }
            if self.cfg.timing.write_ack == WriteAck::Transfer {
                self.ack_transferred(t);
            }
        }
    }

    /// `die` started programming: with cache program its next queued program's data
    /// crosses the bus into the cache register meanwhile. A one-shot page that only
    /// moves into the page buffer takes no array time and overlaps nothing.
    pub(super) fn cache_program_started(&mut self, die: DieId) {
        let Some(c) = self.cache() else {
            return;
        };
        if !c.mode.programs()
            || c.dies[die.idx()].inb != NONE
            || self.dies[die.idx()].phase != Phase::ProgArray
            || self.nand().dies[die.idx()].buffering
        {
            return;
        }
        let next = self.cache_take(die, FlashOp::Program);
        if next == NONE {
            return;
        }
        let (chip, ch) = self.queues.home(die);
        let mut n = 0;
        self.for_group(next, |_, _| n += 1);
        let cd = self.cache_die(die);
        cd.inb = next;
        cd.inb_in = false;
        self.dies[die.idx()].xfers_left = n;
        self.for_group(next, |sim, t| sim.request_bus(t, die, chip, ch));
    }

    /// `die`'s program ended and its transactions completed: a cached program takes
    /// the die at once (true), or false when none is in the cache register.
    pub(super) fn cache_program_next(&mut self, die: DieId) -> bool {
        let Some(c) = self.cache() else {
            return false;
        };
        let cd = c.dies[die.idx()];
        if cd.inb == NONE {
            return false;
        }
        self.cache_die(die).inb = NONE;
        let dm = &mut self.dies[die.idx()];
        dm.head = cd.inb;
        if !cd.inb_in {
            // Its transfer goes on; the back end starts the program at its end.
            dm.phase = Phase::ProgXfer;
            return true;
        }
        dm.phase = Phase::ProgArray;
        let ns = self.cache_mut().t_prog_move;
        if ns == 0 {
            self.nand_array(die);
        } else {
            self.schedule_move(die, ns, Move::Program);
        }
        true
    }

    /// Takes the group the scheduler gives `die` next when it is of `op` and crosses
    /// the bus, and starts it (its wait ends now); returns its head, or [`NONE`] when
    /// the die's oldest queued transaction is not such an operation. A program is taken
    /// only while no read waits for the die (reads go first, as after a program without
    /// cache), and not while a blocking GC job waits or its page is chosen at dispatch.
    fn cache_take(&mut self, die: DieId, op: FlashOp) -> TxnId {
        let (reads, programs, _) = self.queues.queued_ops_for_die(die);
        let queued = match op {
            FlashOp::Read => reads > 0,
            _ => programs > 0 && reads == 0,
        };
        let picks_oldest = matches!(self.sched, Scheduler::AsyncFifo(_) | Scheduler::Piq(_));
        if !queued || !picks_oldest || !self.gc_first.is_empty() {
            return NONE;
        }
        let (chip, _) = self.queues.home(die);
        let q = &self.queues.chip[chip.idx()];
        let Some(&first) = q.iter().find(|&&t| self.txns[t].die == die) else {
            return NONE;
        };
        let h = &self.txns[first];
        if h.op != op || h.ppn == UNBOUND || !self.uses_bus(first) {
            return NONE;
        }
        let mut group = std::mem::take(&mut self.group);
        group.clear();
        sched!(self, |s, ctx| s.pick(die, ctx, &mut group));
        debug_assert_eq!(group.first(), Some(&first), "the die's oldest transaction");
        debug_assert!(group.iter().all(|&t| self.txns[t].op == op));
        let now = self.now().as_ns();
        for w in group.windows(2) {
            self.txns[w[0]].group_next = w[1];
        }
        self.txns[group[group.len() - 1]].group_next = NONE;
        let gc_total = self.dies[die.idx()].gc_ns;
        let n = group.len() as u32;
        self.chip_run[chip.idx()].running += n;
        for &t in &group {
            if self.merge.is_some() {
                self.forget_waiting_read(t);
            }
            self.queues.txn_started_on(chip, die, op);
            let txn = &mut self.txns[t];
            txn.started_ns = now;
            let waited = now - txn.enqueued_ns;
            txn.gc_mark_ns = gc_total.saturating_sub(txn.gc_mark_ns).min(waited);
        }
        if n > 1 {
            self.counters.multi_plane_ops += 1;
            self.counters.multi_plane_pages += u64::from(n);
        }
        self.group = group;
        let c = self.cache_mut();
        match op {
            FlashOp::Read => c.cached_reads += u64::from(n),
            _ => c.cached_programs += u64::from(n),
        }
        sched!(self, |s, ctx| s.on_chip_room(chip, ctx));
        first
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;
    use crate::sim::Simulation;
    use crate::VecStream;
    use ssdlab_stats::{CacheReport, Report};
    use ssdlab_trace::{IoRequest, Op};

    /// One page over the bus (4 KiB at the default 400 ps a byte).
    const XFER: u64 = 10_240;
    const T_READ: u64 = 25_000;
    const T_PROG: u64 = 200_000;
    /// Reads start here, after the writes that fill their pages.
    const T0: u64 = 2_000_000;

    /// One channel, one chip, `dies` dies of one plane: the default timing.
    fn sim(dies: u32, sets: &[&str], reqs: Vec<IoRequest>) -> Simulation {
        let text = format!(
            "[geometry]\nchannels = 1\nchips_per_channel = 1\ndies_per_chip = {dies}\n\
             planes_per_die = 1\nblocks_per_plane = 64\npages_per_block = 24\n\
             page_size_bytes = 4096\n"
        );
        let mut b = ConfigBuilder::new().text(&text, "one-chip").unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        let cfg = b.build().unwrap();
        Simulation::new(cfg, Box::new(VecStream::new(reqs)), "memory").unwrap()
    }

    fn page(at: u64, op: Op, lpn: u64) -> IoRequest {
        IoRequest {
            arrival_ns: at,
            op,
            fua: false,
            offset_bytes: lpn * 4096,
            size_bytes: 4096,
            content: None,
            stream: None,
        }
    }

    /// `n` pages written at 0, then read together at `T0`.
    fn write_then_read(n: u64) -> Vec<IoRequest> {
        let mut reqs: Vec<IoRequest> = (0..n).map(|l| page(0, Op::Write, l)).collect();
        reqs.extend((0..n).map(|l| page(T0, Op::Read, l)));
        reqs
    }

    fn run(dies: u32, sets: &[&str], reqs: Vec<IoRequest>) -> Report {
        sim(dies, sets, reqs).run().unwrap()
    }

    fn cache(r: &Report) -> CacheReport {
        r.nand
            .as_ref()
            .unwrap()
            .cache
            .clone()
            .expect("the cache section")
    }

    #[test]
    fn a_queued_read_runs_its_array_while_the_previous_page_leaves_the_cache_register() {
        let reqs = write_then_read(3);
        let off = run(1, &[], reqs.clone());
        // Without cache read the die holds each page until it has crossed the bus.
        assert_eq!(off.response.read.max_ns, 3 * (T_READ + XFER));
        assert!(off.nand.is_none());
        let on = run(1, &["nand.cache_mode=\"read\""], reqs.clone());
        // Read 2's array runs during read 1's transfer, read 3's during read 2's: each
        // page after the first costs one array time.
        assert_eq!(on.response.read.min_ns, T_READ + XFER);
        assert_eq!(on.response.read.max_ns, 3 * T_READ + XFER);
        let c = cache(&on);
        assert_eq!((c.mode.as_str(), c.cached_reads), ("read", 2));
        assert_eq!((c.cached_programs, c.read_register_waits), (0, 0));
        // The move into the cache register costs its time before each transfer that
        // follows a cache command (31h twice, 3Fh once).
        let moved = run(
            1,
            &["nand.cache_mode=\"read\"", "nand.t_cache_read_ns=3000"],
            reqs,
        );
        assert_eq!(moved.response.read.min_ns, T_READ + 3_000 + XFER);
        assert_eq!(moved.response.read.max_ns, 3 * (T_READ + 3_000) + XFER);
    }

    #[test]
    fn at_most_one_read_page_waits_for_the_cache_register() {
        // Array reads of 5 µs are shorter than a page's transfer: the bus is the limit.
        let sets = ["nand.cache_mode=\"read\"", "timing.t_read_ns=5000"];
        let mut s = sim(1, &sets, write_then_read(4));
        let (mut most, mut steps) = (0, 0);
        while s.step().unwrap() {
            // The cache register's page and one in the data register: a third read
            // does not start its array while a page waits.
            most = most.max(s.chip_run[0].running);
            steps += 1;
        }
        assert!(steps > 0);
        assert_eq!(most, 2, "two reads in the die's registers at most");
        let r = s.into_report().unwrap();
        // Reads 2, 3 and 4 each waited in the data register for the bus to drain the
        // cache register; the pages leave back to back.
        let c = cache(&r);
        assert_eq!((c.cached_reads, c.read_register_waits), (3, 3));
        assert_eq!(r.response.read.max_ns, 5_000 + 4 * XFER);
    }

    #[test]
    fn nothing_overlaps_without_work_queued_for_the_die() {
        // Reads one at a time: each finds nothing queued behind it.
        let mut reqs: Vec<IoRequest> = (0..3).map(|l| page(0, Op::Write, l)).collect();
        reqs.extend((0..3).map(|l| page(T0 + l * 1_000_000, Op::Read, l)));
        let sets = ["nand.cache_mode=\"both\""];
        let on = run(1, &sets, reqs.clone());
        assert_eq!(on.response.read.max_ns, T_READ + XFER);
        assert_eq!(cache(&on).cached_reads, 0);
        // Two reads at once on two dies: each die has one read, none queued behind it,
        // and the run is the run without cache read.
        let mut s = sim(2, &sets, write_then_read(2));
        s.run_to_end().unwrap();
        let dies: Vec<u32> = (0..2)
            .map(|l| {
                let ppn = s.ftl.lookup(ssdlab_nand::Lpn(l)).unwrap();
                s.geom.die_of_page(ppn).0
            })
            .collect();
        assert_ne!(dies[0], dies[1], "the two pages on two dies");
        let on = s.into_report().unwrap();
        assert_eq!(cache(&on).cached_reads, 0);
        let off = run(2, &[], write_then_read(2));
        assert_eq!(on.response.read, off.response.read);
    }

    #[test]
    fn the_next_program_crosses_the_bus_during_the_current_one() {
        let reqs: Vec<IoRequest> = (0..3).map(|l| page(0, Op::Write, l)).collect();
        let off = run(1, &[], reqs.clone());
        assert_eq!(off.response.write.max_ns, 3 * (XFER + T_PROG));
        let on = run(1, &["nand.cache_mode=\"program\""], reqs.clone());
        // Pages 2 and 3 are in the cache register when the program before them ends.
        assert_eq!(on.response.write.min_ns, XFER + T_PROG);
        assert_eq!(on.response.write.max_ns, XFER + 3 * T_PROG);
        let c = cache(&on);
        assert_eq!(
            (c.mode.as_str(), c.cached_programs, c.cached_reads),
            ("program", 2, 0)
        );
        // Each cached page moves into the data register before its program.
        let moved = run(
            1,
            &["nand.cache_mode=\"program\"", "nand.t_cache_prog_ns=5000"],
            reqs,
        );
        assert_eq!(moved.response.write.max_ns, XFER + 3 * T_PROG + 2 * 5_000);
    }

    #[test]
    fn a_queued_read_keeps_the_die_from_caching_a_program() {
        // Two writes, then a read queued behind them: the die does not take the second
        // program's data while a read waits; without the read it does.
        let mut reqs = vec![page(0, Op::Write, 0)];
        reqs.push(page(T0, Op::Write, 1));
        reqs.push(page(T0, Op::Write, 2));
        reqs.push(page(T0, Op::Read, 0));
        let on = run(1, &["nand.cache_mode=\"program\""], reqs.clone());
        assert_eq!(cache(&on).cached_programs, 0);
        let off = run(1, &[], reqs.clone());
        assert_eq!(on.response, off.response);
        reqs.pop();
        let on = run(1, &["nand.cache_mode=\"program\""], reqs);
        assert_eq!(cache(&on).cached_programs, 1);
    }

    #[test]
    fn a_one_shot_wordline_program_overlaps_the_next_wordlines_first_page() {
        // TLC one shot: pages 0-2 close wordline 0 with one 1.6 ms program; page 3's
        // data crosses the bus during it, and page 3 waits in the page buffer after.
        let mut sets = vec![
            "nand.cell=\"tlc\"",
            "nand.program=\"one-shot\"",
            "nand.t_prog_ns_by_type=[400000, 800000, 1600000]",
        ];
        let reqs: Vec<IoRequest> = (0..6).map(|l| page(0, Op::Write, l)).collect();
        let off = run(1, &sets, reqs.clone());
        sets.push("nand.cache_mode=\"program\"");
        let on = run(1, &sets, reqs);
        // Wordline 0 as before; wordline 1's first page came in during its program.
        assert_eq!(on.response.write.min_ns, off.response.write.min_ns);
        assert_eq!(off.response.write.max_ns, 6 * XFER + 2 * 1_600_000);
        assert_eq!(on.response.write.max_ns, 5 * XFER + 2 * 1_600_000);
        assert_eq!(cache(&on).cached_programs, 1);
    }
}
