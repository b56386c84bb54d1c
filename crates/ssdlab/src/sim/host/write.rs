//! The write side of admission: content tokens, placement of a page, and writes that
//! wait for space.

use crate::placement::{PageToPlace, Role};
use crate::sim::gc_trigger::GcCause;
use crate::sim::txn::{ReqId, TxnId, NONE};
use crate::sim::Simulation;
use ssdlab_ftl::token_for;
use ssdlab_nand::{FlashOp, Lpn, PlaneId, TxnReason};

impl Simulation {
    /// Gives the `n` pages from `first` of a host write that names its stream the
    /// handle of that stream (`host.placement_from = "workload"`: the stream modulo
    /// the handle count), before they are placed. The FTL keeps one handle per LPN, so
    /// whatever writes the page later for this write (the DRAM stage's destage, a RAID
    /// stripe write) places it through the same handle, until a later write names
    /// another. Pages past the logical space take their folded LPN (`ftl.address_fold =
    /// "modulo"`); with `"error"` the admission refuses them.
    #[cold]
    pub(super) fn tag_pages(&mut self, stream: u32, first: u64, n: u32) {
        // A stream reaches here only when the run takes them (sim/stream.rs).
        let Some(tags) = self.stream_tags.as_mut() else {
            return;
        };
        let h = tags.handle(stream);
        for lpn in first..first + u64::from(n) {
            if let Some(lpn) = self.folded_lpn(lpn) {
                self.ftl.set_handle(lpn, h);
            }
        }
    }

    /// The content token of a host write of `lpn`.
    pub(in crate::sim) fn write_token(&mut self, lpn: Lpn, content: Option<u64>) -> u64 {
        self.write_seq = self.write_seq.wrapping_add(1);
        content.unwrap_or_else(|| token_for(lpn, self.write_seq))
    }

    /// A written page without parity: allocated now (with its RAID-1 mirror), or
    /// parked until GC frees space in its plane.
    pub(super) fn admit_write(&mut self, id: ReqId, lpn: Lpn, token: u64, txns: &mut Vec<TxnId>) {
        self.note_content_write(token);
        self.place_host_write(id, lpn, token, txns);
    }

    /// [`Simulation::admit_write`] after its content is counted: the page placed and
    /// written (or parked), with its RAID-1 mirror. Also a merged partial write's
    /// program (sim/partial.rs), counted when it began to wait.
    #[inline(always)]
    pub(in crate::sim) fn place_host_write(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        token: u64,
        txns: &mut Vec<TxnId>,
    ) {
        let mut page = PageToPlace::new(lpn, token, Role::Data);
        if let Some(x) = self.raid.as_ref() {
            page = page.with_chunk(x.map.layout.locate(u64::from(lpn.0)));
        }
        let plane = self.place(page);
        if self.bind.is_some() {
            // Redundancy is placed at admission only (the configuration ensures none).
            debug_assert!(!self.plane_dead(plane));
            txns.push(self.admit_unbound(id, lpn, plane, token));
            return;
        }
        self.write_or_park(id, lpn, plane, token, TxnReason::HostWrite, txns);
        if let Some(m) = self.raid.as_ref().and_then(|x| x.map.mirror_of(lpn)) {
            let (mlpn, chunk) = m;
            let mplane = self.place(PageToPlace::new(mlpn, token, Role::Mirror).with_chunk(chunk));
            self.reqs[id].pending += 1;
            self.write_or_park(id, mlpn, mplane, token, TxnReason::MirrorWrite, txns);
        }
    }

    #[inline(always)]
    pub(in crate::sim) fn write_or_park(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
        reason: TxnReason,
        txns: &mut Vec<TxnId>,
    ) {
        if self.plane_dead(plane) {
            self.dead_write(lpn, token, reason);
        } else {
            match self.place_write(id, lpn, plane, token, reason) {
                Some(t) => txns.push(t),
                None => self.park(id, lpn, plane, token, reason),
            }
        }
        self.gc_check_after(plane, GcCause::Data);
    }

    /// Allocates `lpn` in `plane` and builds its program transaction.
    #[inline(always)]
    pub(in crate::sim) fn place_write(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
        reason: TxnReason,
    ) -> Option<TxnId> {
        let ppn = self.ftl.host_write(lpn, plane, token).ok()?;
        // A version that waited for space is superseded by this one.
        if !self.held.is_empty() && self.held.remove(&lpn.0).is_some() {
            self.raid_note_held(lpn, false);
        }
        self.forget_losses(lpn);
        if reason == TxnReason::HostWrite {
            self.counters.host_pages_programmed += 1;
            self.note_written(lpn, token);
            if self.cmt.is_some() {
                self.cmt_mapped(lpn, true);
            }
        } else if let Some(x) = self.raid.as_mut() {
            x.counters.mirror_writes += 1;
        }
        let die = self.geom.die_of_page(ppn);
        let t = self.queued_txn(FlashOp::Program, reason, ppn, die, lpn, id);
        Some(self.txns.insert(t))
    }
}

impl Simulation {
    /// `timing.write_ack = "transfer"`: a program a request waits for (its page, a mirror
    /// copy, its stripe's parity) counts as done for the request once its data has
    /// crossed the bus; the rest of its bookkeeping waits for the program.
    pub(in crate::sim) fn ack_transferred(&mut self, t: TxnId) {
        let txn = self.txns[t];
        let service = txn.bus_ns;
        match txn.reason {
            TxnReason::HostWrite | TxnReason::MirrorWrite
                if txn.req != NONE && !self.acked_at_program(txn.req) =>
            {
                self.txns[t].acked = true;
                self.sub_done(txn.req, service, txn.gc_mark_ns);
            }
            TxnReason::ParityWrite => self.ack_parity(txn.aux as usize, service, txn.gc_mark_ns),
            _ => {}
        }
    }

    /// Whether request `req` is done with a program only once it is on flash, even with
    /// `timing.write_ack = "transfer"`: a FUA write, or a destage (durable when
    /// programmed).
    #[inline]
    pub(in crate::sim) fn acked_at_program(&self, req: ReqId) -> bool {
        self.reqs[req].io.fua || self.dram.as_ref().is_some_and(|d| d.is_destage(req))
    }
}
