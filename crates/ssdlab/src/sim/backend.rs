//! The flash back end: dies and channel buses as timed state machines (docs/ARCHITECTURE.md §5).
//!
//! * Read: the die is busy for `t_read`; then each page crosses the channel bus (the die
//!   stays held until its register is drained); a page is delivered when its transfer ends.
//!   With `timing.transfer = "sectors"` a host read moves only the sectors it asks for
//!   (`Txn::bus_ns` set before its grant, sim/sectors.rs).
//! * Program: each page crosses the bus into the die's register (die held), then the die
//!   is busy for `t_prog`.
//! * Erase: the die is busy for `t_erase`.
//! * Multi-plane: one array operation serves the whole group; each page still crosses
//!   the bus on its own. GC moves with `copyback` never use the bus.
//! * Buses are granted first come, first served; the time a die waits for a busy bus
//!   while holding its data is the transaction's bus-wait (contention) time.

use super::txn::{Txn, TxnId, NONE};
use super::{Event, Simulation};
use ssdlab_engine::SimDuration;
use ssdlab_nand::{ChannelId, ChipId, DieId, FlashOp, TxnReason, WriteAck};
use std::collections::VecDeque;

/// The event-queue lanes of the back end's fixed delays (see `EventQueue::schedule_in_lane`).
pub(super) const READ_LANE: usize = 0;
pub(super) const PROGRAM_LANE: usize = 1;
pub(super) const ERASE_LANE: usize = 2;
const BUS_LANE: usize = 3;

/// What a die is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Nothing.
    Idle,
    /// Reading the array into the register(s).
    ReadArray,
    /// Moving read pages out over the bus.
    ReadXfer,
    /// Moving program data in over the bus.
    ProgXfer,
    /// Programming the array.
    ProgArray,
    /// Erasing a block.
    Erase,
}

/// One die's state.
#[derive(Clone, Copy, Debug)]
pub struct DieState {
    /// Current phase.
    pub phase: Phase,
    /// First transaction of the group being served.
    pub head: TxnId,
    /// Bus transfers of the group still to finish.
    pub xfers_left: u32,
    /// When the die became busy.
    pub busy_since: u64,
    /// Total busy time so far.
    pub busy_ns: u64,
    /// GC busy time so far (for the T_GC share of waiting).
    pub gc_ns: u64,
}

/// What a chip is running: read together whenever one of its dies starts or stops.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChipRun {
    /// Transactions running on its dies.
    pub running: u32,
    /// Dies busy.
    pub busy_dies: u32,
    /// When its first busy die became busy.
    pub busy_since: u64,
}

/// One channel bus.
#[derive(Clone, Debug)]
pub struct ChannelState {
    /// The transaction whose page is on the bus, or [`NONE`].
    pub holder: TxnId,
    /// Transactions waiting for the bus, first come first served.
    pub waiters: VecDeque<TxnId>,
    /// Total busy time so far.
    pub busy_ns: u64,
}

impl DieState {
    /// An idle die.
    pub fn idle() -> Self {
        DieState {
            phase: Phase::Idle,
            head: NONE,
            xfers_left: 0,
            busy_since: 0,
            busy_ns: 0,
            gc_ns: 0,
        }
    }
}

impl ChannelState {
    /// A free bus.
    pub fn free() -> Self {
        ChannelState {
            holder: NONE,
            waiters: VecDeque::new(),
            busy_ns: 0,
        }
    }
}

impl Simulation {
    /// True if `t` moves its page over the channel bus.
    #[inline]
    pub(super) fn uses_bus(&self, t: TxnId) -> bool {
        let txn = &self.txns[t];
        txn.op != FlashOp::Erase
            && !(self.cfg.ftl.gc.copyback
                && matches!(
                    txn.reason,
                    TxnReason::GcRead
                        | TxnReason::GcWrite
                        | TxnReason::FoldRead
                        | TxnReason::FoldWrite
                ))
    }

    /// Starts the next operation on `die` if it is idle and has work.
    #[inline(always)]
    pub(super) fn try_start(&mut self, die: DieId) {
        if self.dies[die.idx()].phase == Phase::Idle {
            self.start_idle(die);
        }
    }

    /// [`Simulation::try_start`] of an idle die.
    #[inline(never)]
    fn start_idle(&mut self, die: DieId) {
        if self.nand.is_some() && self.nand_resume(die) {
            return;
        }
        // Without a blocking GC job (the lazy trigger's) nor anything the policy could
        // pick, the die stays idle without gathering a group.
        let may_start = !self.gc_first.is_empty() || self.sched.may_pick(die, &self.queues);
        if !(may_start && self.start_group(die)) {
            self.on_die_idle(die);
        }
    }

    /// Gathers what idle `die` serves next and starts it; false if there is nothing.
    #[inline(always)]
    fn start_group(&mut self, die: DieId) -> bool {
        let mut group = std::mem::take(&mut self.group);
        group.clear();
        // A blocking GC job (lazy trigger) is served before anything the scheduler holds.
        let direct = self.lazy_gc_pick(die, &mut group);
        // Without the lazy trigger's GC lists, `start_idle` has just asked `may_pick` and
        // nothing ran since.
        if !direct && (self.gc_first.is_empty() || self.sched.may_pick(die, &self.queues)) {
            sched!(self, |s, ctx| s.pick(die, ctx, &mut group));
            if self.bind.is_some() {
                self.bind_picked(die, &mut group);
            }
        }
        if group.is_empty() {
            self.group = group;
            return false;
        }
        let now = self.now().as_ns();
        for w in group.windows(2) {
            self.txns[w[0]].group_next = w[1];
        }
        let gc_total = self.dies[die.idx()].gc_ns;
        let (chip, ch) = self.queues.home(die);
        self.chip_run[chip.idx()].running += group.len() as u32;
        for &t in &group {
            if self.merge.is_some() {
                self.forget_waiting_read(t);
            }
            let txn = &mut self.txns[t];
            if !direct {
                self.queues.txn_started_on(chip, txn.die, txn.op);
            }
            txn.started_ns = now;
            let queued = now - txn.enqueued_ns;
            txn.gc_mark_ns = gc_total.saturating_sub(txn.gc_mark_ns).min(queued);
        }
        self.debug_check_group(&group);
        let head = group[0];
        let n = group.len() as u32;
        if n > 1 {
            self.counters.multi_plane_ops += 1;
            self.counters.multi_plane_pages += u64::from(n);
        }
        self.group = group;
        self.set_die_busy(die, chip, true);
        sched!(self, |s, ctx| s.on_chip_room(chip, ctx));
        let uses_bus = self.uses_bus(head);
        let op = self.txns[head].op;
        let d = &mut self.dies[die.idx()];
        d.head = head;
        match op {
            FlashOp::Read => {
                d.phase = Phase::ReadArray;
                if self.nand.is_some() {
                    self.nand_array(die);
                } else if self.errors.is_some() {
                    // Not the read lane: its delay varies (a lane would send it to the
                    // heap anyway), and one call site keeps the lane's code inline.
                    let t_read = self.t_read.as_ns();
                    let extra = self.errors_read_group(die, t_read, u32::MAX);
                    let delay = SimDuration(t_read + extra);
                    self.events.schedule_in(delay, Event::ArrayDone(die));
                } else {
                    self.events
                        .schedule_in_lane(READ_LANE, self.t_read, Event::ArrayDone(die));
                }
            }
            FlashOp::Program if uses_bus => {
                d.phase = Phase::ProgXfer;
                d.xfers_left = n;
                self.for_group(head, |sim, t| sim.request_bus(t, die, chip, ch));
            }
            FlashOp::Program => {
                d.phase = Phase::ProgArray;
                if self.nand.is_some() {
                    self.nand_array(die);
                } else {
                    self.events
                        .schedule_in_lane(PROGRAM_LANE, self.t_prog, Event::ArrayDone(die));
                }
            }
            FlashOp::Erase => {
                d.phase = Phase::Erase;
                if self.nand.is_some() {
                    self.nand_array(die);
                } else {
                    self.events
                        .schedule_in_lane(ERASE_LANE, self.t_erase, Event::ArrayDone(die));
                }
            }
        }
        if self.bind.is_some() {
            self.after_bound_start();
        }
        true
    }

    /// A group obeys the multi-plane addressing rule: one die, one operation, distinct
    /// planes, one page offset.
    #[inline]
    fn debug_check_group(&self, group: &[TxnId]) {
        if cfg!(debug_assertions) && group.len() > 1 {
            let h = self.txns[group[0]];
            let mut planes = Vec::with_capacity(group.len());
            for &t in group {
                let x = &self.txns[t];
                assert!(x.die == h.die && x.op == h.op && x.op != FlashOp::Erase);
                assert_eq!(
                    self.geom.page_in_block(x.ppn),
                    self.geom.page_in_block(h.ppn),
                    "multi-plane group at two page offsets"
                );
                let plane = self.geom.plane_of_page(x.ppn);
                assert!(
                    !planes.contains(&plane),
                    "multi-plane group uses {plane} twice"
                );
                planes.push(plane);
            }
        }
    }

    /// Calls `f` on every transaction of the group starting at `head`.
    #[inline(always)]
    pub(super) fn for_group(&mut self, head: TxnId, mut f: impl FnMut(&mut Self, TxnId)) {
        let mut t = head;
        while t != NONE {
            let next = self.txns[t].group_next;
            f(self, t);
            t = next;
        }
    }

    /// The array part of the die's operation finished.
    #[inline(always)]
    pub(super) fn on_array_done(&mut self, die: DieId) {
        let d = self.dies[die.idx()];
        match d.phase {
            Phase::ReadArray => {
                let t_read = self.t_read.as_ns() + self.errors_die_extra(die);
                let mut n = 0;
                self.for_group(d.head, |sim, t| {
                    sim.txns[t].array_ns = t_read;
                    n += 1;
                });
                if self.uses_bus(d.head) {
                    let dm = &mut self.dies[die.idx()];
                    dm.phase = Phase::ReadXfer;
                    dm.xfers_left = n;
                    let (chip, ch) = self.queues.home(die);
                    self.for_group(d.head, |sim, t| sim.request_bus(t, die, chip, ch));
                } else {
                    self.for_group(d.head, |sim, t| sim.complete_txn(t));
                    self.release_die(die);
                }
            }
            Phase::ProgArray => {
                let t_prog = self.t_prog.as_ns();
                self.for_group(d.head, |sim, t| {
                    sim.txns[t].array_ns = t_prog;
                    sim.complete_txn(t);
                });
                self.release_die(die);
            }
            Phase::Erase => {
                self.txns[d.head].array_ns = self.t_erase.as_ns();
                self.complete_txn(d.head);
                self.release_die(die);
            }
            Phase::Idle | Phase::ReadXfer | Phase::ProgXfer => {
                unreachable!("array done on die {die} in phase {:?}", d.phase)
            }
        }
    }

    /// Asks for `t`'s channel; granted at once if the bus is free.
    ///
    /// A transaction that must wait also has its *package contention* counted: the
    /// part of its wait spent behind another die of its own chip (PAQ's contention time,
    /// "waiting on the I/O bus within a flash package to get to a specific die"). Grants
    /// are first come, first served and every transfer's time is known when it is asked
    /// for (a page, or a read's sectors), so that part is known when it joins the queue:
    /// what is left of the holder's transfer if the holder is another die of the chip,
    /// plus the transfer of every waiter ahead that is.
    /// `t` runs on `die` of `chip`, whose bus is channel `ch`.
    #[inline(always)]
    pub(super) fn request_bus(&mut self, t: TxnId, die: DieId, chip: ChipId, ch: ChannelId) {
        let now = self.now().as_ns();
        self.txns[t].bus_req_ns = now;
        debug_assert_eq!(self.txns[t].die, die);
        let holder = self.channels[ch.idx()].holder;
        if holder == NONE {
            self.grant_bus(ch, t);
        } else {
            let xfer = self.xfer.as_ns();
            let other_die = |d: DieId| d != die && self.queues.home(d).0 == chip;
            let h = &self.txns[holder];
            let mut behind = 0;
            if other_die(h.die) {
                behind += (h.bus_req_ns + h.bus_wait_ns + h.bus_ns).saturating_sub(now);
            }
            for &w in &self.channels[ch.idx()].waiters {
                let w = &self.txns[w];
                if other_die(w.die) {
                    behind += Self::bus_ns_of(w, xfer);
                }
            }
            self.counters.package_contention_ns += behind;
            self.channels[ch.idx()].waiters.push_back(t);
            self.queues.bus_wait_started(ch);
        }
        self.debug_check_bus(ch);
    }

    #[inline(always)]
    fn grant_bus(&mut self, ch: ChannelId, t: TxnId) {
        let now = self.now().as_ns();
        let txn = &mut self.txns[t];
        txn.bus_wait_ns = now - txn.bus_req_ns;
        // A host read of part of a page (`timing.transfer = "sectors"`) has its shorter
        // bus time already; every other transfer moves a whole page.
        if txn.bus_ns == 0 {
            txn.bus_ns = self.xfer.as_ns();
        }
        let xfer = txn.bus_ns;
        let c = &mut self.channels[ch.idx()];
        c.holder = t;
        // Counted when granted: every transfer ends before the run does.
        c.busy_ns += xfer;
        self.queues.bus_granted(ch);
        // A shorter transfer goes to the heap while the lane holds whole pages' (or takes
        // the lane when it is empty): either way it pops at its time.
        self.events
            .schedule_in_lane(BUS_LANE, SimDuration(xfer), Event::BusDone(ch));
    }

    /// The bus time of `txn`, whose whole page takes `xfer` ns: set before the grant for
    /// a read of part of a page, else a page's.
    #[inline(always)]
    pub(super) fn bus_ns_of(txn: &Txn, xfer: u64) -> u64 {
        if txn.bus_ns == 0 {
            xfer
        } else {
            txn.bus_ns
        }
    }

    /// The scheduler's view of channel `ch`'s bus agrees with the bus.
    #[inline]
    fn debug_check_bus(&self, ch: ChannelId) {
        // The lookups themselves (bounds-checked) stay out of release builds too.
        if cfg!(debug_assertions) {
            let c = &self.channels[ch.idx()];
            let seen = self.queues.bus(ch);
            assert_eq!(seen.busy, c.holder != NONE, "bus {ch} busy flag");
            assert_eq!(seen.waiting as usize, c.waiters.len(), "bus {ch} waiters");
        }
    }

    /// A page finished crossing channel `ch`.
    #[inline(always)]
    pub(super) fn on_bus_done(&mut self, ch: ChannelId) {
        let c = &mut self.channels[ch.idx()];
        let t = c.holder;
        debug_assert_ne!(t, NONE, "bus done on a free channel {ch}");
        c.holder = NONE;
        self.queues.bus_released(ch);
        if let Some(next) = c.waiters.pop_front() {
            self.queues.bus_wait_ended(ch);
            self.grant_bus(ch, next);
        }
        self.debug_check_bus(ch);
        let die = self.txns[t].die;
        let d = &mut self.dies[die.idx()];
        debug_assert!(d.xfers_left > 0);
        d.xfers_left -= 1;
        let last = d.xfers_left == 0;
        match d.phase {
            Phase::ReadXfer => {
                self.complete_txn(t);
                if last {
                    self.release_die(die);
                }
            }
            Phase::ProgXfer => {
                if last {
                    d.phase = Phase::ProgArray;
                    if self.nand.is_some() {
                        self.nand_array(die);
                    } else {
                        self.events.schedule_in_lane(
                            PROGRAM_LANE,
                            self.t_prog,
                            Event::ArrayDone(die),
                        );
                    }
                }
                if self.cfg.timing.write_ack == WriteAck::Transfer {
                    self.ack_transferred(t);
                }
            }
            // With the NAND layer's cache operations, pages cross the bus while the
            // die's array works.
            Phase::ReadArray | Phase::ProgArray => self.cache_bus_done(die, t, last),
            p => unreachable!("bus done for die {die} in phase {p:?}"),
        }
    }

    #[inline(always)]
    pub(super) fn release_die(&mut self, die: DieId) {
        let d = &mut self.dies[die.idx()];
        d.phase = Phase::Idle;
        d.head = NONE;
        self.set_die_busy(die, self.queues.home(die).0, false);
        sched!(self, |s, ctx| s.on_die_free(die, ctx));
        self.try_start(die);
    }

    /// Busy-time accounting for `die`, its chip `chip` and BRR's busy-chip count.
    #[inline]
    pub(super) fn set_die_busy(&mut self, die: DieId, chip: ChipId, busy: bool) {
        let now = self.now().as_ns();
        let c = chip.idx();
        self.queues.die_busy[die.idx()] = busy;
        let d = &mut self.dies[die.idx()];
        let run = &mut self.chip_run[c];
        if busy {
            d.busy_since = now;
            if run.busy_dies == 0 {
                self.busy_chips += 1;
                run.busy_since = now;
            }
            run.busy_dies += 1;
        } else {
            d.busy_ns += now - d.busy_since;
            run.busy_dies -= 1;
            if run.busy_dies == 0 {
                self.busy_chips -= 1;
                self.chip_busy_ns[c] += now - run.busy_since;
            }
        }
    }
}
