//! The BRR paper's two FIFO baselines (its §II-B, figure 5).
//!
//! * [`AsyncFifo`]: every sub-request goes to its own chip's FIFO queue at once; chips
//!   serve their queues independently, so a request's sub-requests run asynchronously.
//! * [`SyncFifo`]: requests are served one by one in arrival order. The head request's
//!   sub-requests are released together, and only once every chip it needs is idle;
//!   until then every later request waits behind it (head-of-line blocking). Background
//!   work (GC) joins the same order as one-transaction entries, so a GC read never
//!   overtakes the program of a page it is about to move.

use super::{chips_of, IoScheduler, SchedCtx};
use crate::config::SchedulerConfig;
use crate::sim::txn::{ReqId, TxnId, NONE};
use ssdlab_nand::{ChipId, DieId, Geometry, NandTiming};
use std::collections::VecDeque;

/// Per-chip FIFO queues; overflow beyond the chip queue depth waits in arrival order.
pub struct AsyncFifo {
    overflow: Vec<VecDeque<TxnId>>,
    held: usize,
    multi_plane: bool,
}

impl AsyncFifo {
    /// A policy for `geom`; `multi_plane` packs compatible queued operations of a die.
    pub fn new(geom: &Geometry, multi_plane: bool) -> Self {
        AsyncFifo {
            overflow: (0..geom.chips()).map(|_| VecDeque::new()).collect(),
            held: 0,
            multi_plane,
        }
    }

    /// The policy `cfg` describes, for `geom`.
    pub(crate) fn from_config(cfg: &SchedulerConfig, geom: &Geometry, _: &NandTiming) -> Self {
        AsyncFifo::new(geom, cfg.multi_plane)
    }

    fn enqueue(&mut self, t: TxnId, ctx: &mut SchedCtx) {
        let chip = ctx.chip_of(t);
        if self.overflow[chip.idx()].is_empty() && ctx.queues.has_room(chip) {
            ctx.push(t);
        } else {
            self.overflow[chip.idx()].push_back(t);
            self.held += 1;
        }
    }
}

impl IoScheduler for AsyncFifo {
    fn name(&self) -> &'static str {
        "async-fifo"
    }

    fn submit_request(&mut self, _req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        for &t in txns {
            self.enqueue(t, ctx);
        }
    }

    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        self.enqueue(txn, ctx);
    }

    fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        let q = &mut self.overflow[chip.idx()];
        while ctx.queues.has_room(chip) {
            let Some(t) = q.pop_front() else { break };
            self.held -= 1;
            ctx.push(t);
        }
    }

    fn on_txn_done(&mut self, _chip: ChipId, _ctx: &mut SchedCtx) {}

    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        ctx.take_for_die(die, self.multi_plane, group);
    }

    fn held(&self) -> usize {
        self.held
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
