//! Flash transactions and the slab that holds them.
//!
//! A transaction is one flash operation on one physical place. It carries the reason it
//! exists (host, GC, …) and its timing record. Transactions live in a slab and are named
//! by a `u32` index ([`TxnId`]); a freed slot is reused, so steady state allocates nothing.

use ssdlab_nand::{DieId, FlashOp, Lpn, Ppn, TxnReason};

/// Index of a transaction in the slab.
pub type TxnId = u32;
/// Index of a host request in the request slab.
pub type ReqId = u32;
/// "No index" sentinel for both.
pub const NONE: u32 = u32::MAX;
/// The page of a host program whose page is chosen when its die starts it
/// (`placement.bind = "dispatch"`); such a transaction's die is fixed, and its `expect`
/// holds the token it writes.
pub const UNBOUND: Ppn = Ppn(u32::MAX);

/// One flash operation in flight.
#[derive(Clone, Copy, Debug)]
pub struct Txn {
    /// Read, program or erase.
    pub op: FlashOp,
    /// Why it exists.
    pub reason: TxnReason,
    /// The page it reads or programs (erase: the block's first page).
    pub ppn: Ppn,
    /// The die that executes it.
    pub die: DieId,
    /// The logical page it concerns (host and GC traffic).
    pub lpn: Lpn,
    /// Host request it serves, or [`NONE`].
    pub req: ReqId,
    /// Design-specific companion value (GC: the source page of a move).
    pub aux: u32,
    /// Verify mode: the token a host read must return; an [`UNBOUND`] program: the
    /// token it writes.
    pub expect: u64,
    /// Next transaction of the same multi-plane group, or [`NONE`].
    pub group_next: TxnId,
    /// Handed to the scheduler.
    pub enqueued_ns: u64,
    /// Started on its die.
    pub started_ns: u64,
    /// Asked for the channel bus.
    pub bus_req_ns: u64,
    /// Time spent waiting for the bus while holding the die.
    pub bus_wait_ns: u64,
    /// Time on the bus: set when the bus is granted, or before that for a host read that
    /// moves part of its page (`timing.transfer = "sectors"`); 0 until then.
    pub bus_ns: u64,
    /// Time in the array.
    pub array_ns: u64,
    /// While queued: the die's GC busy total when the transaction was queued; once
    /// started: the GC time its die spent while it waited (DGC's T_GC).
    pub gc_mark_ns: u64,
    /// A program its request counted as done when its data crossed the bus
    /// (`timing.write_ack = "transfer"`).
    pub acked: bool,
}

impl Txn {
    /// A new transaction, not yet handed to the scheduler.
    pub fn new(op: FlashOp, reason: TxnReason, ppn: Ppn, die: DieId, lpn: Lpn, req: ReqId) -> Self {
        Txn {
            op,
            reason,
            ppn,
            die,
            lpn,
            req,
            aux: NONE,
            expect: 0,
            group_next: NONE,
            enqueued_ns: 0,
            started_ns: 0,
            bus_req_ns: 0,
            bus_wait_ns: 0,
            bus_ns: 0,
            array_ns: 0,
            gc_mark_ns: 0,
            acked: false,
        }
    }
}

/// Slab of transactions with a free list.
#[derive(Default)]
pub struct TxnSlab {
    slots: Vec<Txn>,
    free: Vec<TxnId>,
    live: u32,
}

impl TxnSlab {
    /// Stores `t` and returns its index.
    #[inline]
    pub fn insert(&mut self, t: Txn) -> TxnId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = t;
            id
        } else {
            self.slots.push(t);
            (self.slots.len() - 1) as TxnId
        }
    }

    /// Releases slot `id`.
    #[inline]
    pub fn remove(&mut self, id: TxnId) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        self.free.push(id);
    }

    /// Transactions currently stored.
    #[inline]
    pub fn live(&self) -> u32 {
        self.live
    }

    /// The most transactions ever stored at once (the slab never shrinks).
    #[cfg(test)]
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
}

impl std::ops::Index<TxnId> for TxnSlab {
    type Output = Txn;
    #[inline]
    fn index(&self, id: TxnId) -> &Txn {
        &self.slots[id as usize]
    }
}

impl std::ops::IndexMut<TxnId> for TxnSlab {
    #[inline]
    fn index_mut(&mut self, id: TxnId) -> &mut Txn {
        &mut self.slots[id as usize]
    }
}

impl super::Simulation {
    /// A transaction on `die` queued now: its enqueue time and the die's GC total (the
    /// mark its GC wait is measured from) are set.
    #[inline]
    pub(crate) fn queued_txn(
        &self,
        op: FlashOp,
        reason: TxnReason,
        ppn: Ppn,
        die: DieId,
        lpn: Lpn,
        req: ReqId,
    ) -> Txn {
        let mut t = Txn::new(op, reason, ppn, die, lpn, req);
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.dies[die.idx()].gc_ns;
        t
    }

    /// Inserts transaction `t`, enqueued now, counts it on its chip and hands it to the
    /// scheduler as background work (no request's own page: a map, rebuild or recovery
    /// read or program).
    pub(crate) fn submit_background_txn(&mut self, mut t: Txn) -> TxnId {
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.dies[t.die.idx()].gc_ns;
        let chip = self.geom.chip_of_die(t.die);
        let id = self.txns.insert(t);
        self.queues.load[chip.idx()] += 1;
        sched!(self, |s, ctx| s.submit_background(id, ctx));
        id
    }

    /// A transaction finished on the flash: statistics, then the owner's bookkeeping.
    pub(crate) fn complete_txn(&mut self, t: TxnId) {
        let txn = self.txns[t];
        let (chip, channel) = self.queues.home(txn.die);
        self.rec.txn_done_at(
            channel,
            chip,
            &ssdlab_stats::TxnRecord {
                reason: txn.reason,
                op: txn.op,
                pages: 1,
                queue_ns: txn.started_ns - txn.enqueued_ns,
                bus_wait_ns: txn.bus_wait_ns,
                bus_ns: txn.bus_ns,
                array_ns: txn.array_ns,
            },
        );
        self.queues.load[chip.idx()] -= 1;
        self.chip_run[chip.idx()].running -= 1;
        // The error model may answer for a host read itself (rebuilt from its stripe).
        let consumed = self.errors.is_some() && self.errors_txn_done(t);
        match txn.reason {
            _ if consumed => {}
            TxnReason::HostRead | TxnReason::HostWrite => self.host_txn_done(t),
            TxnReason::Rebuild => self.rebuild_txn_done(t),
            TxnReason::MergeRead => self.merge_read_done(t),
            TxnReason::MapRead | TxnReason::MapWrite => self.cmt_txn_done(t),
            r if r.is_gc() => self.gc_txn_done(t),
            _ => self.raid_txn_done(t),
        }
        if self.errors_waiting() {
            self.errors_after_txn();
        }
        sched!(self, |s, ctx| s.on_txn_done(chip, ctx));
        self.nand_txn_done_if_on(t);
        self.txns.remove(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_fills_96_bytes() {
        // The slab's slot: a larger one shows in every run's memory traffic.
        assert_eq!(std::mem::size_of::<Txn>(), 96);
    }

    #[test]
    fn slots_are_reused() {
        let mut s = TxnSlab::default();
        let t = Txn::new(
            FlashOp::Read,
            TxnReason::HostRead,
            Ppn(1),
            DieId(0),
            Lpn(1),
            NONE,
        );
        let a = s.insert(t);
        let b = s.insert(t);
        s.remove(a);
        let c = s.insert(t);
        assert_eq!(c, a);
        assert_ne!(b, a);
        assert_eq!(s.live(), 2);
    }
}
