//! The BRR paper's two FIFO baselines (its §II-B, figure 5).
//!
//! * [`AsyncFifo`]: every sub-request goes to its own chip's FIFO queue at once; chips
//!   serve their queues independently, so a request's sub-requests run asynchronously.
//! * [`SyncFifo`]: requests are served one by one in arrival order. The head request's
//!   sub-requests are released together, and only once every chip it needs is idle;
//!   until then every later request waits behind it (head-of-line blocking). Background
//!   work (GC) joins the same order as one-transaction entries, so a GC read never
//!   overtakes the program of a page it is about to move.

use super::overflow::ChipOverflow;
use super::wbr::WriteBehindRead;
use super::SchedulerConfig;
use super::{chips_of, IoScheduler, SchedCtx};
use crate::sim::txn::{ReqId, TxnId, NONE};
use ssdlab_nand::{ChipId, DieId, Geometry, NandTiming};
use std::collections::VecDeque;

/// Per-chip FIFO queues; overflow beyond the chip queue depth waits in arrival order.
/// With `scheduler.write_behind_read` a die serves the reads queued before a program
/// reached its head first ([`WriteBehindRead`]).
pub struct AsyncFifo {
    overflow: ChipOverflow,
    multi_plane: bool,
    wbr: WriteBehindRead,
    /// `scheduler.gc_first`: collector work waits apart from host work, joins the chip
    /// queue first when it has room, and is served first from it.
    gc_first: bool,
    /// Collector work waiting for room, per chip (empty unless `gc_first`).
    gc_waiting: Vec<VecDeque<TxnId>>,
    /// `gc_first` or write-behind-read: the pick takes [`AsyncFifo::pick_special`].
    special: bool,
}

impl AsyncFifo {
    /// A policy for `geom`; `multi_plane` packs compatible queued operations of a die.
    pub fn new(geom: &Geometry, multi_plane: bool) -> Self {
        AsyncFifo {
            overflow: ChipOverflow::new(geom),
            multi_plane,
            wbr: WriteBehindRead::new(false),
            gc_first: false,
            gc_waiting: Vec::new(),
            special: false,
        }
    }

    /// The same policy with `scheduler.gc_first` on or off.
    pub fn with_gc_first(mut self, geom: &Geometry, on: bool) -> Self {
        self.gc_first = on;
        self.gc_waiting = if on {
            (0..geom.chips()).map(|_| VecDeque::new()).collect()
        } else {
            Vec::new()
        };
        self.special = on || self.wbr.is_on();
        self
    }

    /// The pick with GC-first or write-behind-read on: true when it chose.
    #[inline(never)]
    fn pick_special(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) -> bool {
        (self.gc_first && ctx.take_gc_for_die(die, self.multi_plane, group))
            || self.wbr.pick(die, ctx, group)
    }

    /// Moves `chip`'s waiting collector work into its queue while it has room.
    #[inline(never)]
    fn drain_gc(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        let q = &mut self.gc_waiting[chip.idx()];
        while ctx.queues.has_room(chip) {
            let Some(t) = q.pop_front() else { break };
            ctx.push(t);
        }
    }

    /// The policy `cfg` describes, for `geom`.
    pub(crate) fn from_config(cfg: &SchedulerConfig, geom: &Geometry, _: &NandTiming) -> Self {
        AsyncFifo {
            wbr: WriteBehindRead::new(cfg.write_behind_read),
            ..AsyncFifo::new(geom, cfg.multi_plane)
        }
        .with_gc_first(geom, cfg.gc_first)
    }
}

impl IoScheduler for AsyncFifo {
    fn name(&self) -> &'static str {
        "async-fifo"
    }

    #[inline(always)]
    fn submit_request(&mut self, _req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        for &t in txns {
            self.overflow.enqueue(t, ctx);
        }
    }

    #[inline(always)]
    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        if self.gc_first && ctx.txns[txn].reason.is_gc() {
            let chip = ctx.chip_of(txn);
            self.gc_waiting[chip.idx()].push_back(txn);
            self.drain_gc(chip, ctx);
        } else {
            self.overflow.enqueue(txn, ctx);
        }
    }

    #[inline(always)]
    fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        if self.gc_first {
            self.drain_gc(chip, ctx);
        }
        self.overflow.drain(chip, ctx);
    }

    fn on_txn_done(&mut self, _chip: ChipId, _ctx: &mut SchedCtx) {}

    #[inline(always)]
    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        // One test on the common path: `special` is set when GC-first or
        // write-behind-read is on.
        if !self.special || !self.pick_special(die, ctx, group) {
            ctx.take_for_die(die, self.multi_plane, group);
        }
    }

    fn held(&self) -> usize {
        self.overflow.held() + self.gc_waiting.iter().map(VecDeque::len).sum::<usize>()
    }
}

/// Strict arrival-order service of whole requests.
pub struct SyncFifo {
    /// Requests waiting, in arrival order, with how many transactions each has in `txns`
    /// (background transactions are entries of one, with request [`NONE`]).
    requests: VecDeque<(ReqId, u32)>,
    txns: VecDeque<TxnId>,
    multi_plane: bool,
    chips: Vec<ChipId>,
    head: Vec<TxnId>,
}

impl SyncFifo {
    /// A new, empty policy.
    pub fn new(multi_plane: bool) -> Self {
        SyncFifo {
            requests: VecDeque::new(),
            txns: VecDeque::new(),
            multi_plane,
            chips: Vec::new(),
            head: Vec::new(),
        }
    }

    /// The policy `cfg` describes.
    pub(crate) fn from_config(cfg: &SchedulerConfig, _: &Geometry, _: &NandTiming) -> Self {
        SyncFifo::new(cfg.multi_plane)
    }

    /// Releases head requests while every chip the head needs is idle.
    fn release(&mut self, ctx: &mut SchedCtx) {
        let mut head = std::mem::take(&mut self.head);
        self.release_with(ctx, &mut head);
        self.head = head;
    }

    fn release_with(&mut self, ctx: &mut SchedCtx, head: &mut Vec<TxnId>) {
        while let Some(&(_, n)) = self.requests.front() {
            head.clear();
            head.extend(self.txns.iter().take(n as usize));
            chips_of(head, ctx, &mut self.chips);
            if !self
                .chips
                .iter()
                .all(|&c| ctx.queues.chip_idle(c, ctx.geom))
            {
                return;
            }
            // An idle chip has an empty queue, so each has room for at least one; a
            // request with more pages on one chip than the queue holds is fed in order.
            let mut released = 0;
            for &t in head.iter() {
                let chip = ctx.chip_of(t);
                if !ctx.queues.has_room(chip) {
                    break;
                }
                ctx.push(t);
                released += 1;
            }
            for _ in 0..released {
                self.txns.pop_front();
            }
            if released == n as usize {
                self.requests.pop_front();
            } else {
                self.requests.front_mut().expect("front exists").1 = n - released as u32;
                return;
            }
        }
    }
}

impl IoScheduler for SyncFifo {
    fn name(&self) -> &'static str {
        "sync-fifo"
    }

    fn submit_request(&mut self, req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        self.requests.push_back((req, txns.len() as u32));
        self.txns.extend(txns.iter().copied());
        self.release(ctx);
    }

    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        self.requests.push_back((NONE, 1));
        self.txns.push_back(txn);
        self.release(ctx);
    }

    fn on_chip_room(&mut self, _chip: ChipId, _ctx: &mut SchedCtx) {}

    fn on_txn_done(&mut self, _chip: ChipId, ctx: &mut SchedCtx) {
        self.release(ctx);
    }

    fn on_die_free(&mut self, _die: DieId, ctx: &mut SchedCtx) {
        self.release(ctx);
    }

    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        ctx.take_for_die(die, self.multi_plane, group);
    }

    fn held(&self) -> usize {
        self.txns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testutil::{geometry, Bench};
    use ssdlab_nand::{FlashOp, TxnReason};

    /// Two chips on two channels, one die of one plane each.
    fn bench(depth: u32) -> Bench {
        Bench::new(geometry(2, 1, 1, 1), depth)
    }

    #[test]
    fn async_fifo_sends_each_transaction_to_its_chip_queue() {
        let mut b = bench(4);
        let mut s = AsyncFifo::new(&b.geom, false);
        let t = [
            b.host_read(0, 1, 0),
            b.host_read(1, 1, 0),
            b.host_read(0, 1, 0),
        ];
        s.submit_request(1, &t, &mut b.ctx());
        assert_eq!(b.queue(0), vec![t[0], t[2]]);
        assert_eq!(b.queue(1), vec![t[1]]);
        assert_eq!(s.held(), 0);
        assert_eq!(b.queues.touched, vec![ChipId(0), ChipId(1)]);
        let g = b.gc(FlashOp::Program, 1);
        s.submit_background(g, &mut b.ctx());
        assert_eq!(b.queue(1), vec![t[1], g]);
        b.check();
    }

    #[test]
    fn gc_first_serves_collector_work_ahead_of_host_work() {
        for gc_first in [false, true] {
            let mut b = bench(2);
            let mut s = AsyncFifo::new(&b.geom, false).with_gc_first(&b.geom, gc_first);
            let t: Vec<TxnId> = (0..3).map(|_| b.host_read(0, 1, 0)).collect();
            s.submit_request(1, &t, &mut b.ctx());
            let g = [b.gc(FlashOp::Read, 0), b.gc(FlashOp::Program, 0)];
            for &x in &g {
                s.submit_background(x, &mut b.ctx());
            }
            let die = b.die(0, 0);
            let mut order = Vec::new();
            for _ in 0..5 {
                let group = b.start(&mut s, die);
                b.finish(&mut s, die, &group);
                order.extend(group);
            }
            if gc_first {
                // The queue holds two host reads; the GC transactions wait apart, take
                // each slot that frees before the host read waiting, and go first, in
                // their own order; the host reads keep theirs.
                assert_eq!(order, vec![t[0], g[0], g[1], t[1], t[2]]);
            } else {
                assert_eq!(order, vec![t[0], t[1], t[2], g[0], g[1]]);
            }
            b.check();
        }
    }

    #[test]
    fn gc_first_with_multi_plane_fills_the_collector_operations_other_planes() {
        // One chip, one die, two planes. Queued: a host read of plane 0, a GC read of
        // plane 0 and, behind it, a host read and a GC read of plane 1, all at page 0.
        // Then a GC read of plane 0 with a host read of plane 1 behind it.
        for multi_plane in [false, true] {
            let mut b = Bench::new(geometry(1, 1, 1, 2), 8);
            let die = b.die(0, 0);
            let mut s = AsyncFifo::new(&b.geom, multi_plane).with_gc_first(&b.geom, true);
            let h0 = b.txn_at(FlashOp::Read, TxnReason::HostRead, die, 0, 0, 1, 0);
            s.submit_request(1, &[h0], &mut b.ctx());
            let g0 = b.txn_at(FlashOp::Read, TxnReason::GcRead, die, 0, 0, NONE, 0);
            s.submit_background(g0, &mut b.ctx());
            let h1 = b.txn_at(FlashOp::Read, TxnReason::HostRead, die, 1, 0, 2, 0);
            s.submit_request(2, &[h1], &mut b.ctx());
            let g1 = b.txn_at(FlashOp::Read, TxnReason::GcRead, die, 1, 0, NONE, 0);
            s.submit_background(g1, &mut b.ctx());
            let first = b.start(&mut s, die);
            if multi_plane {
                // The GC read goes first, and its second plane is filled from GC
                // work first (g1), as MQSim's TSU does, though the host read h1 was
                // queued before it.
                assert_eq!(first, vec![g0, g1]);
            } else {
                assert_eq!(first, vec![g0]);
            }
            b.finish(&mut s, die, &first);
            if multi_plane {
                // No GC work of plane 1 is left: host work fills it.
                let g2 = b.txn_at(FlashOp::Read, TxnReason::GcRead, die, 0, 0, NONE, 0);
                s.submit_background(g2, &mut b.ctx());
                let second = b.start(&mut s, die);
                assert_eq!(second, vec![g2, h1]);
                b.finish(&mut s, die, &second);
            }
            b.check();
        }
    }

    #[test]
    fn async_fifo_overflow_waits_in_arrival_order_beyond_the_depth() {
        let mut b = bench(2);
        let mut s = AsyncFifo::new(&b.geom, false);
        let t: Vec<TxnId> = (0..4).map(|_| b.host_read(0, 1, 0)).collect();
        s.submit_request(1, &t, &mut b.ctx());
        assert_eq!(b.queue(0), vec![t[0], t[1]]);
        assert_eq!(s.held(), 2);
        let die = b.die(0, 0);
        let mut group = Vec::new();
        s.pick(die, &mut b.ctx(), &mut group);
        assert_eq!(group, vec![t[0]]);
        // The queue has room again, but work is waiting: a newcomer joins its tail.
        let g = b.gc(FlashOp::Read, 0);
        s.submit_background(g, &mut b.ctx());
        assert_eq!(b.queue(0), vec![t[1]]);
        assert_eq!(s.held(), 3);
        s.on_chip_room(ChipId(0), &mut b.ctx());
        assert_eq!(b.queue(0), vec![t[1], t[2]]);
        assert_eq!(s.held(), 2);
        // Chip 1 is not held up by chip 0's overflow.
        let other = b.host_read(1, 2, 0);
        s.submit_request(2, &[other], &mut b.ctx());
        assert_eq!(b.queue(1), vec![other]);
        for expected in [t[1], t[2], t[3], g] {
            s.pick(die, &mut b.ctx(), &mut group);
            assert_eq!(group, vec![expected]);
            s.on_chip_room(ChipId(0), &mut b.ctx());
        }
        assert_eq!(s.held(), 0);
        assert!(b.queue(0).is_empty());
    }

    #[test]
    fn sync_fifo_holds_the_head_request_until_every_chip_it_needs_is_idle() {
        let mut b = bench(4);
        let mut s = SyncFifo::new(false);
        let (d0, d1) = (b.die(0, 0), b.die(1, 0));
        let a = b.host_read(0, 1, 0);
        s.submit_request(1, &[a], &mut b.ctx());
        assert_eq!(b.start(&mut s, d0), vec![a]);
        // B needs chip 0, which is busy; C, behind B, needs only the idle chip 1.
        let req_b = [b.host_read(0, 2, 0), b.host_read(1, 2, 0)];
        s.submit_request(2, &req_b, &mut b.ctx());
        let c = b.host_read(1, 3, 0);
        s.submit_request(3, &[c], &mut b.ctx());
        assert!(b.queue(0).is_empty());
        assert!(b.queue(1).is_empty());
        assert_eq!(s.held(), 3);
        // A completes while its die is still held: nothing moves yet.
        s.on_txn_done(ChipId(0), &mut b.ctx());
        assert_eq!(s.held(), 3);
        b.finish(&mut s, d0, &[a]);
        assert_eq!(b.queue(0), vec![req_b[0]]);
        assert_eq!(b.queue(1), vec![req_b[1]]);
        assert_eq!(s.held(), 1, "C waits for chip 1 to be idle again");
        assert_eq!(b.start(&mut s, d1), vec![req_b[1]]);
        b.finish(&mut s, d1, &[req_b[1]]);
        assert_eq!(b.queue(1), vec![c]);
        assert_eq!(b.queue(0), vec![req_b[0]]);
        assert_eq!(s.held(), 0);
        b.check();
    }

    #[test]
    fn sync_fifo_background_work_keeps_its_place_in_the_order() {
        let mut b = bench(4);
        let mut s = SyncFifo::new(false);
        let d0 = b.die(0, 0);
        let a = b.host_read(0, 1, 0);
        s.submit_request(1, &[a], &mut b.ctx());
        assert_eq!(b.start(&mut s, d0), vec![a]);
        let gc_read = b.gc(FlashOp::Read, 0);
        s.submit_background(gc_read, &mut b.ctx());
        let d = b.host_read(1, 2, 0);
        s.submit_request(2, &[d], &mut b.ctx());
        let gc_write = b.gc(FlashOp::Program, 0);
        s.submit_background(gc_write, &mut b.ctx());
        assert!(
            b.queue(1).is_empty(),
            "a request never overtakes earlier GC"
        );
        assert_eq!(s.held(), 3);
        b.queues.touched.clear();
        b.queues.is_touched.fill(false);
        b.finish(&mut s, d0, &[a]);
        // The GC read goes first, then the request behind it; the GC program waits for
        // chip 0 to be idle again, so it cannot run before the read of its page.
        assert_eq!(b.queues.touched, vec![ChipId(0), ChipId(1)]);
        assert_eq!(b.queue(0), vec![gc_read]);
        assert_eq!(b.queue(1), vec![d]);
        assert_eq!(s.held(), 1);
        assert_eq!(b.start(&mut s, d0), vec![gc_read]);
        b.finish(&mut s, d0, &[gc_read]);
        assert_eq!(b.queue(0), vec![gc_write]);
        assert_eq!(s.held(), 0);
    }

    #[test]
    fn sync_fifo_feeds_a_request_larger_than_the_chip_queue_in_page_order() {
        let mut b = bench(2);
        let mut s = SyncFifo::new(false);
        let d0 = b.die(0, 0);
        let t = [
            b.host_read(0, 1, 0),
            b.host_read(0, 1, 0),
            b.host_read(0, 1, 0),
            b.host_read(1, 1, 0),
        ];
        s.submit_request(1, &t, &mut b.ctx());
        // Release stops at the first page that finds no room, chip 1's included.
        assert_eq!(b.queue(0), vec![t[0], t[1]]);
        assert!(b.queue(1).is_empty());
        assert_eq!(s.held(), 2);
        let g = b.start(&mut s, d0);
        b.finish(&mut s, d0, &g);
        assert_eq!(b.queue(0), vec![t[1]], "chip 0 still has work queued");
        let g = b.start(&mut s, d0);
        assert_eq!(g, vec![t[1]]);
        b.finish(&mut s, d0, &g);
        assert_eq!(b.queue(0), vec![t[2]]);
        assert_eq!(b.queue(1), vec![t[3]]);
        assert_eq!(s.held(), 0);
    }
}
