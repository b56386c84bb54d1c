//! [`ChipOverflow`]: work that goes straight to its chip's queue, and waits per chip in
//! arrival order while that queue is full (every transaction under `async-fifo`; writes
//! and GC on PAQ's bypass).

use super::SchedCtx;
use crate::sim::txn::TxnId;
use ssdlab_nand::{ChipId, Geometry};
use std::collections::VecDeque;

/// Per-chip overflow beyond the chip queue depth, first come first served.
pub(crate) struct ChipOverflow {
    waiting: Vec<VecDeque<TxnId>>,
    held: usize,
}

impl ChipOverflow {
    /// Empty overflow for the chips of `geom`.
    pub(crate) fn new(geom: &Geometry) -> Self {
        ChipOverflow {
            waiting: (0..geom.chips()).map(|_| VecDeque::new()).collect(),
            held: 0,
        }
    }

    /// Queues `t` on its chip, or holds it behind the chip's earlier overflow.
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, t: TxnId, ctx: &mut SchedCtx) {
        let chip = ctx.chip_of(t);
        if self.waiting[chip.idx()].is_empty() && ctx.queues.has_room(chip) {
            ctx.push(t);
        } else {
            self.waiting[chip.idx()].push_back(t);
            self.held += 1;
        }
    }

    /// Moves `chip`'s overflow into its queue while the queue has room.
    #[inline(always)]
    pub(crate) fn drain(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        let q = &mut self.waiting[chip.idx()];
        while ctx.queues.has_room(chip) {
            let Some(t) = q.pop_front() else { break };
            self.held -= 1;
            ctx.push(t);
        }
    }

    /// Transactions waiting.
    #[inline]
    pub(crate) fn held(&self) -> usize {
        self.held
    }
}
