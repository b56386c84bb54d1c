//! Binding at dispatch (`placement.bind = "dispatch"`): a host write's page is chosen
//! when its die starts the program, not when the request is admitted.
//!
//! ```text
//!  admission: placement policy ─► die ─► unbound program (content held by the controller)
//!  dispatch:  scheduler picks it ─► current? ─ no ─► dropped (a newer write superseded it)
//!                                      │ yes
//!                                      ▼
//!             plane: first plane of the die from its cursor with a free page; with
//!             scheduler.multi_plane, other unbound programs of the die join it on the
//!             planes whose next page has the same offset ─► FTL allocates ─► program
//!             no plane has room ─► parked on the cursor plane until GC frees it
//! ```
//!
//! Until it is bound the controller holds the page's content (the same record as a
//! parked write's): reads of it are buffer hits, and a newer write of the page supersedes
//! it. A program is current while the held content of its page is its own token; two
//! versions with the same token are interchangeable, so whichever is bound first serves.

use super::gc_trigger::GcCause;
use super::txn::{TxnId, UNBOUND};
use super::Simulation;
use ssdlab_nand::{DieId, FlashOp, Geometry, Lpn, PlaneId, TxnReason};
use ssdlab_stats::Counter;

/// The state of dispatch-time binding (present only with `placement.bind = "dispatch"`).
pub(crate) struct BindState {
    /// Per die: the plane index (within the die) the next program starts from.
    cursor: Vec<u32>,
    /// Programs bound at dispatch.
    bound: u64,
    /// Programs dropped because a newer write of their page came first.
    superseded: u64,
    /// Scratch: the planes of one bind.
    slots: Vec<PlaneId>,
    /// Scratch: the programs of one bind.
    batch: Vec<TxnId>,
}

impl BindState {
    pub(crate) fn new(geom: &Geometry) -> Self {
        BindState {
            cursor: vec![0; geom.dies() as usize],
            bound: 0,
            superseded: 0,
            slots: Vec::with_capacity(geom.planes_per_die as usize),
            batch: Vec::with_capacity(geom.planes_per_die as usize),
        }
    }

    /// The report's counters.
    pub(crate) fn counters(&self) -> [(Counter, u64); 2] {
        [
            (Counter::DispatchBoundWrites, self.bound),
            (Counter::DispatchSupersededWrites, self.superseded),
        ]
    }
}

impl Simulation {
    fn binder(&mut self) -> &mut BindState {
        self.bind.as_mut().expect("dispatch binding is on")
    }

    /// Admits host write `lpn` (content `token`) of request `id` for `plane`'s die,
    /// its page to be chosen at dispatch.
    pub(in crate::sim) fn admit_unbound(
        &mut self,
        id: super::txn::ReqId,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> TxnId {
        self.park_seq += 1;
        if self.held.insert(lpn.0, (self.park_seq, token)).is_none() {
            self.raid_note_held(lpn, true);
        }
        self.forget_losses(lpn);
        self.note_written(lpn, token);
        let die = self.geom.die_of_plane(plane);
        let mut t = self.queued_txn(
            FlashOp::Program,
            TxnReason::HostWrite,
            UNBOUND,
            die,
            lpn,
            id,
        );
        t.expect = token;
        self.txns.insert(t)
    }

    /// True when unbound program `t` still carries its page's newest content.
    fn unbound_is_current(&self, t: TxnId) -> bool {
        let txn = &self.txns[t];
        self.held_get(txn.lpn).map(|h| h.1) == Some(txn.expect)
    }

    /// The scheduler picked `group` for idle `die`: an unbound program at its head is
    /// bound (or dropped or parked, and the die asks again) before the die starts.
    #[inline(never)]
    pub(in crate::sim) fn bind_picked(&mut self, die: DieId, group: &mut Vec<TxnId>) {
        while group.first().is_some_and(|&t| self.txns[t].ppn == UNBOUND) {
            self.bind_group(die, group);
            if !group.is_empty() {
                break;
            }
            sched!(self, |s, ctx| s.pick(die, ctx, group));
        }
    }

    /// The die started what it picked: pages bound just now may start GC, behind the
    /// programs that took them.
    #[inline(never)]
    pub(in crate::sim) fn after_bound_start(&mut self) {
        if !self.gc_check.is_empty() {
            self.run_gc_checks();
        }
    }

    /// The scheduler picked unbound program `group[0]` for idle `die`: binds it (and,
    /// with multi-plane, other unbound programs of the die) to planes and pages, leaving
    /// the bound group in `group`. Leaves `group` empty when the program was dropped or
    /// parked instead; the die then asks the scheduler again.
    fn bind_group(&mut self, die: DieId, group: &mut Vec<TxnId>) {
        debug_assert_eq!(group.len(), 1, "unbound programs are picked one at a time");
        let head = group.pop().expect("a picked program");
        if !self.unbound_is_current(head) {
            self.drop_superseded(head, die, true);
            return;
        }
        let mut slots = std::mem::take(&mut self.binder().slots);
        let mut batch = std::mem::take(&mut self.binder().batch);
        self.free_slots(die, &mut slots);
        if slots.is_empty() {
            // No plane of the die has a free page: wait for the cursor plane's GC.
            let n = self.binder().cursor[die.idx()];
            let plane = self.geom.plane_of_die(die, n);
            self.retire_unstarted(head, die, true);
            let txn = self.txns_take(head);
            self.park(txn.req, txn.lpn, plane, txn.expect, TxnReason::HostWrite);
            self.gc_check_after(plane, GcCause::Data);
        } else {
            batch.clear();
            batch.push(head);
            // Superseded programs taken on the way are dropped once the group is bound:
            // dropping one may complete its request, and that admits new requests,
            // whose writes could supersede a program already in the batch.
            let mut stale = Vec::new();
            while batch.len() < slots.len() {
                let before = batch.len();
                self.queues
                    .take_unbound(die, before + 1, &self.txns, &mut batch);
                let Some(&t) = batch.get(before) else { break };
                if !self.unbound_is_current(t) {
                    batch.pop();
                    stale.push(t);
                }
            }
            let per_die = self.geom.planes_per_die;
            let mut last = 0;
            for (&t, &plane) in batch.iter().zip(&slots) {
                self.bind_program(t, plane);
                group.push(t);
                last = plane.0 % per_die;
            }
            let b = self.binder();
            b.cursor[die.idx()] = (last + 1) % per_die;
            for t in stale {
                self.drop_superseded(t, die, false);
            }
        }
        let b = self.binder();
        b.slots = slots;
        b.batch = batch;
    }

    /// The planes of `die` one program can use now: the first plane from the die's
    /// cursor with a free page, then (with `scheduler.multi_plane`) every later plane in
    /// cursor order whose next page has the same offset, so the group obeys the
    /// multi-plane addressing rule.
    fn free_slots(&mut self, die: DieId, slots: &mut Vec<PlaneId>) {
        slots.clear();
        let per_die = self.geom.planes_per_die;
        let start = self.binder().cursor[die.idx()];
        let mut offset = None;
        for i in 0..per_die {
            let plane = self.geom.plane_of_die(die, (start + i) % per_die);
            if self.ftl.free_pages_in_plane(plane) == 0 {
                continue;
            }
            let o = self.ftl.next_host_offset(plane);
            match offset {
                None => {
                    offset = Some(o);
                    slots.push(plane);
                    if !self.cfg.scheduler.multi_plane {
                        return;
                    }
                }
                Some(first) if first == o => slots.push(plane),
                Some(_) => {}
            }
        }
    }

    /// Allocates a page of `plane` for unbound program `t` and makes it current.
    fn bind_program(&mut self, t: TxnId, plane: PlaneId) {
        let txn = self.txns[t];
        let ppn = self
            .ftl
            .host_write(txn.lpn, plane, txn.expect)
            .expect("a plane with a free page takes one program");
        if self.held.remove(&txn.lpn.0).is_some() {
            self.raid_note_held(txn.lpn, false);
        }
        self.txns[t].ppn = ppn;
        self.counters.host_pages_programmed += 1;
        if self.cmt.is_some() {
            self.cmt_mapped(txn.lpn, true);
        }
        self.binder().bound += 1;
        self.gc_check_after(plane, GcCause::Data);
    }

    /// Unbound program `t` was superseded: its page is done without a flash operation.
    /// `picked`: the scheduler picked it for `die` (else the back end took it to pack).
    fn drop_superseded(&mut self, t: TxnId, die: DieId, picked: bool) {
        self.binder().superseded += 1;
        self.retire_unstarted(t, die, picked);
        let txn = self.txns_take(t);
        self.sub_done(txn.req, 0, 0);
    }

    /// Program `t`, taken from its chip's queue for idle `die`, will not run: the queue
    /// counts, the chip's load and the scheduler learn so as if it had started and ended
    /// at once (the die falls free again only if the scheduler `picked` it), and the
    /// request no longer counts it as a flash operation.
    fn retire_unstarted(&mut self, t: TxnId, die: DieId, picked: bool) {
        let txn = self.txns[t];
        self.queues.txn_started(&txn);
        let chip = self.geom.chip_of_die(die);
        self.queues.load[chip.idx()] -= 1;
        self.reqs[txn.req].flash_txns -= 1;
        sched!(self, |s, ctx| s.on_chip_room(chip, ctx));
        sched!(self, |s, ctx| s.on_txn_done(chip, ctx));
        if picked {
            sched!(self, |s, ctx| s.on_die_free(die, ctx));
        }
    }

    /// Removes `t` from the slab and returns its record.
    fn txns_take(&mut self, t: TxnId) -> super::txn::Txn {
        let txn = self.txns[t];
        self.txns.remove(t);
        txn
    }
}
