//! I/O schedulers: which transaction goes to which chip queue, and what a die serves next.
//!
//! ```text
//!  admitted request ──► submit_request ─┐                    ┌─► pick(die) ──► die
//!  GC / background  ──► submit_background┴─► [policy state] ──► chip queues (depth-limited)
//! ```
//!
//! A policy owns its pending state (requests or transactions not yet in a chip queue)
//! and moves them into the per-chip queues through [`SchedCtx::push`]. The simulator
//! calls [`IoScheduler::pick`] whenever a die falls idle. Policies are registered in one
//! list below, one line each, from which [`SchedulerKind`] (the `scheduler.name` values)
//! and [`build`] are derived: a new policy is one file plus one line, and its type one
//! variant of [`Scheduler`] (the enum the simulator calls directly).

mod brr;
mod config;
mod dispatch;
mod fifo;
mod merge;
mod overflow;
mod paq;
mod piq;
mod queues;
mod registry;
mod suspend;
#[cfg(test)]
mod testutil;
mod vaq;
mod wbr;

pub use config::{
    BatchOrder, BlockOn, BrrConfig, NextArrival, PaqConfig, PaqOrder, PiqConfig, SchedulerConfig,
    VaqConfig, WritePath,
};
pub use dispatch::Scheduler;
pub use fifo::{AsyncFifo, SyncFifo};
pub use merge::{MergeCompletion, MergeConfig, MergeReads};
pub use paq::Paq;
pub use piq::Piq;
pub use queues::{BusStatus, Queues};
pub use suspend::SuspendPolicy;
pub use vaq::Vaq;

use crate::plans::{PlanKind, ReadPlans};
use crate::sim::txn::{ReqId, Txn, TxnId, TxnSlab, UNBOUND};
use ssdlab_nand::{ChannelId, ChipId, DieId, FlashOp, Geometry, NandTiming};

/// What a policy sees and may change: the chip queues (through [`SchedCtx::push`] and
/// the `take_*` methods, which keep the counters right) and, read-only, the counts of
/// queued work per die and chip and each channel bus ([`SchedCtx::queued_for_die`],
/// [`SchedCtx::bus`]).
pub struct SchedCtx<'a> {
    /// All transactions.
    pub txns: &'a TxnSlab,
    /// Chip queues, loads, per-die counts and channel buses.
    pub queues: &'a mut Queues,
    /// The device shape.
    pub geom: &'a Geometry,
    /// Read plans other than `direct` that the controller can execute now.
    pub plans: &'a dyn PlanOracle,
}

/// Answers which alternative read plans exist for a queued host read (docs/ARCHITECTURE.md §9:
/// the FTL/RAID layers enumerate plans, the scheduler chooses).
pub trait PlanOracle {
    /// Replaces the content of `plans` with the ways other than reading its own page
    /// that could serve host read `t` now (another copy, a reconstruction), each with
    /// the chips it occupies. Empty when there are none (or `t` is not a host read).
    fn alternatives(&self, t: TxnId, plans: &mut ReadPlans);
}

/// The oracle of a device without alternative plans.
pub struct NoPlans;

impl PlanOracle for NoPlans {
    fn alternatives(&self, _t: TxnId, plans: &mut ReadPlans) {
        plans.clear();
    }
}

impl SchedCtx<'_> {
    /// Serves host read `t` by the alternative plan of `kind` instead of reading its
    /// page. Call only after [`PlanOracle::alternatives`] offered such a plan for `t` in
    /// this same call, and do not queue `t` yourself: the controller carries the plan
    /// out (a reconstruction's reads, or the read of the copy) and hands its reads to
    /// `submit_background`; if the plan is gone by then, `t` itself comes back there.
    pub fn redirect(&mut self, t: TxnId, kind: PlanKind) {
        debug_assert_ne!(kind, PlanKind::Direct);
        self.queues.redirected.push((t, kind));
    }

    /// Removes and returns the transaction at `pos` in `chip`'s queue (for policies
    /// that choose what a die serves next themselves).
    pub fn take_at(&mut self, chip: ChipId, pos: usize) -> Option<TxnId> {
        self.queues.remove(chip, pos, self.txns)
    }

    /// BRR's expected waiting time of `chip`: `t_read × queued reads + t_prog × queued
    /// programs` (its §III-D).
    pub fn expected_wait_ns(&self, chip: ChipId, t_read_ns: u64, t_prog_ns: u64) -> u64 {
        t_read_ns * u64::from(self.queues.queued_reads[chip.idx()])
            + t_prog_ns * u64::from(self.queues.queued_writes[chip.idx()])
    }

    /// The chip that executes `t`.
    #[inline(always)]
    pub fn chip_of(&self, t: TxnId) -> ChipId {
        self.queues.home(self.txns[t].die).0
    }

    /// The channel whose bus `t`'s page crosses.
    #[inline]
    pub fn channel_of(&self, t: TxnId) -> ChannelId {
        self.queues.home(self.txns[t].die).1
    }

    /// Transactions waiting for `die` in its chip's queue (O(1)).
    #[inline]
    pub fn queued_for_die(&self, die: DieId) -> u32 {
        self.queues.queued_for_die(die)
    }

    /// Channel `ch`'s bus now: busy or free, and how many transfers wait for it (O(1)).
    #[inline]
    pub fn bus(&self, ch: ChannelId) -> BusStatus {
        self.queues.bus(ch)
    }

    /// Appends `t` to its chip's queue (the caller checked [`Queues::has_room`]).
    #[inline(always)]
    pub fn push(&mut self, t: TxnId) {
        let chip = self.chip_of(t);
        let end = self.queues.chip[chip.idx()].len();
        self.insert_on(chip, t, end);
    }

    /// Puts `t` at `pos` in its chip's queue (the caller checked [`Queues::has_room`]),
    /// for policies that order the queue themselves (PIQ's batches).
    #[inline]
    pub fn insert(&mut self, t: TxnId, pos: usize) {
        self.insert_on(self.chip_of(t), t, pos);
    }

    /// [`SchedCtx::insert`] of `t`, whose chip is `chip`.
    #[inline(always)]
    fn insert_on(&mut self, chip: ChipId, t: TxnId, pos: usize) {
        self.queues.insert(chip, pos, t, &self.txns[t]);
        // Any die of the chip may be idle (dies share the queue), so the chip is woken
        // on every push; the flag keeps each chip once in the list.
        if !self.queues.is_touched[chip.idx()] {
            self.queues.is_touched[chip.idx()] = true;
            self.queues.touched.push(chip);
        }
    }

    /// Removes and returns the first queued transaction for `die`; with `multi_plane`,
    /// also the later queued transactions of the same die that can join it in one
    /// multi-plane operation (same op, distinct planes, same page offset), linked
    /// through `group_next`. The caller links them (it owns the slab mutably).
    #[inline(always)]
    pub fn take_for_die(&mut self, die: DieId, multi_plane: bool, group: &mut Vec<TxnId>) {
        group.clear();
        let chip = self.queues.home(die).0;
        if self.geom.dies_per_chip == 1 && (!multi_plane || self.geom.planes_per_die == 1) {
            // One die per chip and no packing: the die serves its queue's head.
            if let Some(t) = self.queues.remove(chip, 0, self.txns) {
                group.push(t);
            }
        } else {
            self.take_for_die_of(chip, die, multi_plane, group);
        }
    }

    /// [`SchedCtx::take_for_die`] on a chip of several dies, or with packing.
    fn take_for_die_of(
        &mut self,
        chip: ChipId,
        die: DieId,
        multi_plane: bool,
        group: &mut Vec<TxnId>,
    ) {
        if self.queues.queued_for_die(die) == 0 {
            return;
        }
        let q = &self.queues.chip[chip.idx()];
        let pos = q
            .iter()
            .position(|&t| self.txns[t].die == die)
            .expect("a die with queued work has a transaction in its chip queue");
        let h = self.take_head(chip, pos, group);
        if self.packs(multi_plane, &h) {
            self.pack_with(chip, die, pos, &h, group, false);
        }
    }

    /// Moves entry `pos` of `chip`'s queue into `group` as the head of an operation.
    #[inline(always)]
    fn take_head(&mut self, chip: ChipId, pos: usize, group: &mut Vec<TxnId>) -> Txn {
        let head = self
            .queues
            .remove(chip, pos, self.txns)
            .expect("position is in range");
        group.push(head);
        self.txns[head]
    }

    /// Whether head `h` can take other planes' operations with it: `multi_plane` on,
    /// several planes, not an erase, and its page bound (a program whose page is chosen
    /// at dispatch is packed when it is bound).
    #[inline(always)]
    fn packs(&self, multi_plane: bool, h: &Txn) -> bool {
        multi_plane && h.op != FlashOp::Erase && self.geom.planes_per_die > 1 && h.ppn != UNBOUND
    }

    /// Removes the first queued garbage-collection (or other collector) transaction of
    /// `die` from its chip's queue into `group`; false, leaving `group` as it was, when
    /// none is queued (`scheduler.gc_first`). With `multi_plane`, the later queued
    /// transactions of the die that can join it fill its other planes: collector work
    /// first, then host work queued before or after it, each in queue order.
    #[inline(never)]
    pub fn take_gc_for_die(
        &mut self,
        die: DieId,
        multi_plane: bool,
        group: &mut Vec<TxnId>,
    ) -> bool {
        let chip = self.queues.home(die).0;
        let Some(pos) = self.queues.chip[chip.idx()].iter().position(|&t| {
            let x = &self.txns[t];
            x.die == die && x.reason.is_gc()
        }) else {
            return false;
        };
        group.clear();
        let h = self.take_head(chip, pos, group);
        if self.packs(multi_plane, &h) {
            // MQSim's TSU fills a collector operation's other planes from collector
            // work first, then from host work wherever it is queued
            // (`TSU_Base::issue_command_to_chip`). No collector work of the die is
            // queued ahead of `pos`, so both passes scan the whole queue.
            self.pack_with(chip, die, 0, &h, group, true);
            self.pack_with(chip, die, 0, &h, group, false);
        }
        true
    }

    /// Moves the later queued operations of `die` (from `pos` in `chip`'s queue) that
    /// can join head `h` in one multi-plane operation into `group` (which holds `h`, and
    /// may hold operations already packed with it). With `gc_only`, collector work only.
    #[inline(never)]
    fn pack_with(
        &mut self,
        chip: ChipId,
        die: DieId,
        pos: usize,
        h: &Txn,
        group: &mut Vec<TxnId>,
        gc_only: bool,
    ) {
        let offset = self.geom.page_in_block(h.ppn);
        let mut planes_used: u64 = 0;
        for &g in group.iter() {
            planes_used |= 1 << (self.geom.plane_of_page(self.txns[g].ppn).0 % 64);
        }
        // Planes of this die's programs passed over: a program never overtakes an
        // earlier program of its plane (NAND programs a block's pages in order), and a
        // read never overtakes the program of its own page.
        let mut passed_programs: u64 = 0;
        let mut i = pos;
        while i < self.queues.chip[chip.idx()].len()
            && group.len() < self.geom.planes_per_die as usize
        {
            let t = self.txns[self.queues.chip[chip.idx()][i]];
            if t.die != die || t.ppn == UNBOUND || (gc_only && !t.reason.is_gc()) {
                i += 1;
                continue;
            }
            let plane_bit = 1u64 << (self.geom.plane_of_page(t.ppn).0 % 64);
            if t.op == h.op
                && self.geom.page_in_block(t.ppn) == offset
                && planes_used & plane_bit == 0
                && !self.overtakes_program(chip, pos..i, &t, passed_programs & plane_bit != 0)
            {
                planes_used |= plane_bit;
                let taken = self.queues.remove(chip, i, self.txns);
                group.push(taken.expect("index is in range"));
            } else {
                if t.op == FlashOp::Program {
                    passed_programs |= plane_bit;
                }
                i += 1;
            }
        }
    }

    /// Whether packing `t` would move it ahead of a program it must follow among the
    /// queue entries `passed` of `chip` (`plane_passed`: one of them programs `t`'s plane).
    #[inline]
    fn overtakes_program(
        &self,
        chip: ChipId,
        passed: std::ops::Range<usize>,
        t: &Txn,
        plane_passed: bool,
    ) -> bool {
        if !plane_passed {
            return false;
        }
        match t.op {
            FlashOp::Program => true,
            _ => self.queues.chip[chip.idx()]
                .range(passed)
                .any(|&p| self.txns[p].op == FlashOp::Program && self.txns[p].ppn == t.ppn),
        }
    }
}

/// A scheduling policy. `Send`, so that a simulation can run on another thread.
pub trait IoScheduler: Send {
    /// The policy's name in reports.
    fn name(&self) -> &'static str;
    /// The transactions of one newly admitted host request (in page order).
    fn submit_request(&mut self, req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx);
    /// A host read page with several plans (`plans`, at least two): the index of the
    /// plan to take, or `None` to leave it to the read-choice policy (the default: a
    /// scheduler that decides at dispatch redirects there instead).
    fn choose_read(&mut self, _plans: &ReadPlans, _ctx: &SchedCtx) -> Option<usize> {
        None
    }
    /// A transaction no host request waits on directly (GC and other background work).
    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx);
    /// A transaction left `chip`'s queue to start on a die.
    fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx);
    /// A transaction on `chip` completed.
    fn on_txn_done(&mut self, chip: ChipId, ctx: &mut SchedCtx);
    /// Die `die` finished its operation and is about to look for work.
    fn on_die_free(&mut self, _die: DieId, _ctx: &mut SchedCtx) {}
    /// Die `die` is idle: fill `group` with what it serves next (empty: nothing).
    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>);
    /// Transactions the policy holds outside the chip queues.
    fn held(&self) -> usize;
    /// The policy's own counters for the report (none by default).
    fn counters(&self) -> Vec<(ssdlab_stats::Counter, u64)> {
        Vec::new()
    }
    /// Die `die` starts `op` that the policy did not pick: a transaction of a blocking
    /// GC job (`ftl.gc.trigger = "lazy"`), served before anything the policy holds.
    fn on_direct_start(&mut self, _die: DieId, _op: FlashOp, _ctx: &mut SchedCtx) {}
}

// The schedulers, one line each: `Variant = "config-name" => constructor,` under the
// variant's doc comment. The order is the order of `SchedulerKind::NAMES`.
registry::schedulers! {
    /// Requests in strict arrival order; a request's sub-requests start together once
    /// every chip it needs is free (BRR paper, Sync_FIFO).
    SyncFifo = "sync-fifo" => SyncFifo::from_config,
    /// Every sub-request goes straight to its chip's FIFO queue (BRR paper, Async_FIFO).
    AsyncFifo = "async-fifo" => AsyncFifo::from_config,
    /// Parallel Issue Queuing, asynchronous: batches of requests without chip conflicts,
    /// read and write batch lists (BRR paper §II-D, Algorithm 1).
    Piq = "piq" => Piq::from_config,
    /// Balanced Redirected Read: PIQ plus reconstruction of reads on busy chips from
    /// their parity group on idle chips (BRR paper §III-E, Algorithm 2).
    Brr = "brr" => Piq::with_brr,
    /// The PAQ paper's baseline: one FIFO of transactions in arrival order, committed in
    /// order, blocking at the first whose die is busy (PAQ paper §4.3, §6.5).
    Vaq = "vaq" => Vaq::from_config,
    /// PAQ with plane packing only: held reads in arrival order, each packed with held
    /// reads of its die at its page offset on other planes (PAQ paper §4.4, §5.2).
    Paq0 = "paq0" => Paq::variant::<false, true>,
    /// PAQ with clumping only: per package, the oldest request's read on the most
    /// contended open die, one commit per package per pass (PAQ paper §4.2-4.3, §5.2).
    Paq1 = "paq1" => Paq::variant::<true, false>,
    /// PAQ with clumping and plane packing (PAQ paper §4, §5.2).
    Paq2 = "paq2" => Paq::variant::<true, true>,
}

/// Chips a request touches, for policies that reason per request.
pub(crate) fn chips_of(txns: &[TxnId], ctx: &SchedCtx, out: &mut Vec<ChipId>) {
    out.clear();
    for &t in txns {
        let c = ctx.chip_of(t);
        if !out.contains(&c) {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::{geometry, Bench};
    use crate::sim::txn::{NONE, UNBOUND};
    use ssdlab_nand::{ChannelId, ChipId, DieId, FlashOp, TxnReason};

    const READ: FlashOp = FlashOp::Read;
    const PROGRAM: FlashOp = FlashOp::Program;

    /// Pushes transactions `(op, die, plane, page)` of one chip, in order.
    fn queue_of(b: &mut Bench, spec: &[(FlashOp, u32, u32, u32)]) -> Vec<u32> {
        let ids: Vec<u32> = spec
            .iter()
            .map(|&(op, die, plane, page)| {
                let reason = if op == READ {
                    TxnReason::HostRead
                } else {
                    TxnReason::HostWrite
                };
                b.txn_at(op, reason, DieId(die), plane, page, NONE, 0)
            })
            .collect();
        let mut ctx = b.ctx();
        for &t in &ids {
            ctx.push(t);
        }
        ids
    }

    #[test]
    fn take_for_die_packs_same_op_same_offset_distinct_planes_of_one_die() {
        let mut b = Bench::new(geometry(1, 1, 2, 4), 16);
        let t = queue_of(
            &mut b,
            &[
                (READ, 0, 0, 3),    // head
                (READ, 1, 1, 3),    // another die
                (READ, 0, 1, 3),    // joins
                (READ, 0, 1, 3),    // plane 1 already in the group
                (PROGRAM, 0, 2, 4), // another operation
                (READ, 0, 3, 4),    // another page offset
                (READ, 0, 2, 3),    // joins
            ],
        );
        assert_eq!(b.queues.queued_for_die(DieId(0)), 6);
        assert_eq!(b.queues.queued_for_die(DieId(1)), 1);
        let mut group = Vec::new();
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[0], t[2], t[6]]);
        assert_eq!(b.queue(0), vec![t[1], t[3], t[4], t[5]]);
        assert_eq!(b.queues.queued_for_die(DieId(0)), 3);
        assert_eq!(b.queues.queued_for_die(DieId(1)), 1);
        for &g in &group {
            b.queues.txn_started(&b.txns[g]);
        }
        assert_eq!(b.queues.queued_reads[0], 3);
        assert_eq!(b.queues.queued_writes[0], 1);
        b.check();
    }

    #[test]
    fn packing_never_reorders_a_program_it_must_follow() {
        let mut b = Bench::new(geometry(1, 1, 1, 2), 16);
        // A program never overtakes an earlier program of its plane.
        let t = queue_of(
            &mut b,
            &[(PROGRAM, 0, 0, 3), (PROGRAM, 0, 1, 2), (PROGRAM, 0, 1, 3)],
        );
        let mut group = Vec::new();
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[0]]);
        let mut b = Bench::new(geometry(1, 1, 1, 2), 16);
        // A read never overtakes the program of its own page (a GC read of a page whose
        // program is still queued), but may pass a program of another page.
        let t = queue_of(
            &mut b,
            &[(READ, 0, 0, 3), (PROGRAM, 0, 1, 3), (READ, 0, 1, 3)],
        );
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[0]]);
        let mut b = Bench::new(geometry(1, 1, 1, 2), 16);
        let t = queue_of(
            &mut b,
            &[(READ, 0, 0, 5), (PROGRAM, 0, 1, 3), (READ, 0, 1, 5)],
        );
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[0], t[2]]);
        for &g in &group {
            b.queues.txn_started(&b.txns[g]);
        }
        b.check();
    }

    #[test]
    fn programs_without_a_page_are_packed_when_bound_not_here() {
        let mut b = Bench::new(geometry(1, 1, 1, 2), 16);
        let t = queue_of(
            &mut b,
            &[(PROGRAM, 0, 0, 3), (PROGRAM, 0, 1, 3), (PROGRAM, 0, 1, 3)],
        );
        b.txns[t[0]].ppn = UNBOUND;
        b.txns[t[1]].ppn = UNBOUND;
        let mut group = Vec::new();
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[0]], "an unbound head is taken alone");
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[1]]);
        let mut out = Vec::new();
        b.queues.take_unbound(DieId(0), 4, &b.txns, &mut out);
        assert!(out.is_empty(), "a bound program is not taken as unbound");
        assert_eq!(b.queue(0), vec![t[2]]);
    }

    #[test]
    fn take_for_die_refuses_a_different_page_offset() {
        let mut b = Bench::new(geometry(1, 1, 1, 2), 16);
        let t = queue_of(&mut b, &[(READ, 0, 0, 3), (READ, 0, 1, 4)]);
        let mut group = Vec::new();
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![t[0]]);
        assert_eq!(b.queue(0), vec![t[1]]);
        assert_eq!(b.queues.queued_for_die(DieId(0)), 1);
    }

    #[test]
    fn take_for_die_without_multi_plane_takes_the_first_for_that_die() {
        let mut b = Bench::new(geometry(1, 1, 2, 2), 16);
        let t = queue_of(&mut b, &[(READ, 1, 0, 3), (READ, 0, 0, 3), (READ, 0, 1, 3)]);
        let mut group = Vec::new();
        b.ctx().take_for_die(DieId(0), false, &mut group);
        assert_eq!(group, vec![t[1]]);
        assert_eq!(b.queue(0), vec![t[0], t[2]]);
        assert_eq!(b.queues.queued_for_die(DieId(0)), 1);
        assert_eq!(b.queues.queued_for_die(DieId(1)), 1);
    }

    #[test]
    fn take_for_die_never_packs_erases() {
        let mut b = Bench::new(geometry(1, 1, 1, 2), 16);
        let erase = |b: &mut Bench, plane| {
            b.txn_at(
                FlashOp::Erase,
                TxnReason::GcErase,
                DieId(0),
                plane,
                0,
                NONE,
                0,
            )
        };
        let (e0, e1) = (erase(&mut b, 0), erase(&mut b, 1));
        b.ctx().push(e0);
        b.ctx().push(e1);
        let mut group = Vec::new();
        b.ctx().take_for_die(DieId(0), true, &mut group);
        assert_eq!(group, vec![e0]);
        assert_eq!(b.queue(0), vec![e1]);
    }

    #[test]
    fn take_for_die_finds_nothing_for_a_die_with_nothing_queued() {
        let mut b = Bench::new(geometry(1, 1, 2, 1), 16);
        let t = queue_of(&mut b, &[(READ, 1, 0, 0)]);
        let mut group = vec![t[0]];
        b.ctx().take_for_die(DieId(0), false, &mut group);
        assert!(group.is_empty());
        assert_eq!(b.queue(0), t);
        assert_eq!(b.queues.queued_for_die(DieId(1)), 1);
    }

    #[test]
    fn per_die_counts_follow_push_take_at_and_start() {
        let mut b = Bench::new(geometry(2, 1, 2, 1), 8);
        let t = queue_of(
            &mut b,
            &[(READ, 0, 0, 0), (PROGRAM, 1, 0, 0), (READ, 1, 0, 1)],
        );
        let other_chip = queue_of(&mut b, &[(READ, 2, 0, 0)]);
        assert_eq!(
            [0, 1, 2, 3].map(|d| b.queues.queued_for_die(DieId(d))),
            [1, 2, 1, 0]
        );
        assert_eq!(
            (b.queues.queued_reads[0], b.queues.queued_writes[0]),
            (2, 1)
        );
        b.check();
        let taken = b.ctx().take_at(ChipId(0), 1);
        assert_eq!(taken, Some(t[1]));
        assert_eq!(b.ctx().queued_for_die(DieId(1)), 1);
        assert_eq!(b.ctx().take_at(ChipId(0), 5), None);
        // Taken but not started: the program still counts for the expected wait.
        assert_eq!(b.queues.queued_writes[0], 1);
        b.queues.txn_started(&b.txns[t[1]]);
        assert_eq!(b.queues.queued_writes[0], 0);
        assert_eq!(b.queue(0), vec![t[0], t[2]]);
        assert_eq!(b.queue(1), other_chip);
        b.check();
    }

    #[test]
    #[should_panic(expected = "per-die counts of chip 0")]
    fn check_invariants_catches_a_queue_changed_behind_the_counters() {
        let mut b = Bench::new(geometry(1, 1, 1, 1), 8);
        let t = queue_of(&mut b, &[(READ, 0, 0, 0)]);
        b.queues.chip[0].push_back(t[0]);
        b.check();
    }

    #[test]
    fn bus_status_follows_the_back_end() {
        let mut b = Bench::new(geometry(2, 2, 1, 1), 8);
        let (c0, c1) = (ChannelId(0), ChannelId(1));
        b.queues.bus_granted(c1);
        b.queues.bus_wait_started(c1);
        b.queues.bus_wait_started(c1);
        let ctx = b.ctx();
        assert!(ctx.bus(c1).busy);
        assert_eq!(ctx.bus(c1).waiting, 2);
        assert!(!ctx.bus(c0).busy);
        assert_eq!(ctx.bus(c0).waiting, 0);
        // The transfer ends and the first waiter takes the bus.
        b.queues.bus_released(c1);
        b.queues.bus_wait_ended(c1);
        b.queues.bus_granted(c1);
        assert!(b.queues.bus(c1).busy);
        assert_eq!(b.queues.bus(c1).waiting, 1);
        b.check();
        b.queues.bus_released(c1);
        b.queues.bus_wait_ended(c1);
        b.queues.bus_granted(c1);
        b.queues.bus_released(c1);
        assert!(b.queues.buses().iter().all(|s| !s.busy && s.waiting == 0));
        // A transaction of chip 3 crosses channel 1 (chips are numbered channel first).
        let t = b.host_read(3, 0, 0);
        assert_eq!(b.ctx().channel_of(t), c1);
    }
}
