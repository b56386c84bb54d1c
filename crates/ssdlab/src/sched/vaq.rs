//! VAQ, the PAQ paper's baseline (its §4.3, §6.5): a queue above the FTL that sees only
//! logical addresses and so can do nothing but serve it in order.
//!
//! ```text
//!  admitted requests ─┐
//!  GC / background  ──┴─► one FIFO of transactions ──► head: its die open? ──► chip queue
//!                         (admission order,             no: everything behind waits
//!                          pages in page order)
//! ```
//!
//! Every transaction (host reads and writes, GC) joins one FIFO in the order it is
//! handed over. The head is committed to its chip queue only when its die is open (idle,
//! nothing queued for it; with `vaq.block_on = "chip"`, its whole package idle) and the
//! chip queue has room; the first head that is not blocks everything behind it. A run of
//! heads on distinct open dies is committed at once, which is the only parallelism VAQ
//! gets (die interleaving "by the order of arrival"). With `vaq.adjacent_multi_plane`,
//! the entries right behind a committed head that happen to qualify (same die and
//! operation, same page offset, a plane not yet used) join it in one multi-plane
//! operation: "purely luck" (§4.4).
//!
//! A die never has more than one group queued, so [`SchedCtx::take_for_die`] hands out
//! exactly the group committed.

use super::config::BlockOn;
use super::{IoScheduler, SchedCtx, SchedulerConfig};
use crate::sim::txn::{ReqId, TxnId, UNBOUND};
use ssdlab_nand::{ChipId, DieId, FlashOp, Geometry, NandTiming};
use std::collections::VecDeque;

/// The in-order baseline.
pub struct Vaq {
    fifo: VecDeque<TxnId>,
    block_on: BlockOn,
    adjacent_multi_plane: bool,
    /// Blocked entries the commit may look past (`scheduler.vaq.lookahead`; 0: strictly
    /// in order).
    lookahead: u32,
}

impl Vaq {
    /// An empty queue with `block_on` and the adjacent-packing switch.
    pub fn new(block_on: BlockOn, adjacent_multi_plane: bool) -> Self {
        Vaq {
            fifo: VecDeque::new(),
            block_on,
            adjacent_multi_plane,
            lookahead: 0,
        }
    }

    /// The same queue, allowed to commit past `k` blocked entries.
    pub fn with_lookahead(mut self, k: u32) -> Self {
        self.lookahead = k;
        self
    }

    /// The policy `cfg` describes.
    pub(crate) fn from_config(cfg: &SchedulerConfig, _: &Geometry, _: &NandTiming) -> Self {
        Vaq::new(cfg.vaq.block_on, cfg.vaq.adjacent_multi_plane).with_lookahead(cfg.vaq.lookahead)
    }

    /// Whether `die` can take the head now.
    fn open(&self, die: DieId, ctx: &SchedCtx) -> bool {
        match self.block_on {
            BlockOn::Die => !ctx.queues.die_busy[die.idx()] && ctx.queued_for_die(die) == 0,
            BlockOn::Chip => ctx.queues.chip_idle(ctx.geom.chip_of_die(die), ctx.geom),
        }
    }

    /// Commits heads in order until one cannot go (with a lookahead of `k`, until the
    /// `k + 1`-th that cannot go: the entries behind up to `k` blocked ones may go).
    fn dispatch(&mut self, ctx: &mut SchedCtx) {
        let (mut i, mut blocked) = (0, 0);
        while let Some(&head) = self.fifo.get(i) {
            let h = ctx.txns[head];
            let chip = ctx.geom.chip_of_die(h.die);
            if !self.open(h.die, ctx) || !ctx.queues.has_room(chip) {
                if blocked == self.lookahead {
                    return;
                }
                blocked += 1;
                i += 1;
                continue;
            }
            self.fifo.remove(i);
            ctx.push(head);
            if !self.adjacent_multi_plane
                || h.op == FlashOp::Erase
                || h.ppn == UNBOUND
                || ctx.geom.planes_per_die == 1
            {
                continue;
            }
            let offset = ctx.geom.page_in_block(h.ppn);
            let mut planes: u64 = 1 << (ctx.geom.plane_of_page(h.ppn).0 % 64);
            let mut members = 1;
            while members < ctx.geom.planes_per_die && ctx.queues.has_room(chip) {
                let Some(&next) = self.fifo.get(i) else {
                    break;
                };
                let t = ctx.txns[next];
                if t.die != h.die || t.op != h.op || t.ppn == UNBOUND {
                    break;
                }
                let bit = 1u64 << (ctx.geom.plane_of_page(t.ppn).0 % 64);
                if ctx.geom.page_in_block(t.ppn) != offset || planes & bit != 0 {
                    break;
                }
                planes |= bit;
                members += 1;
                self.fifo.remove(i);
                ctx.push(next);
            }
        }
    }
}

impl IoScheduler for Vaq {
    fn name(&self) -> &'static str {
        "vaq"
    }

    fn submit_request(&mut self, _req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        self.fifo.extend(txns.iter().copied());
        self.dispatch(ctx);
    }

    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        self.fifo.push_back(txn);
        self.dispatch(ctx);
    }

    fn on_chip_room(&mut self, _chip: ChipId, ctx: &mut SchedCtx) {
        self.dispatch(ctx);
    }

    fn on_txn_done(&mut self, _chip: ChipId, _ctx: &mut SchedCtx) {}

    fn on_die_free(&mut self, _die: DieId, ctx: &mut SchedCtx) {
        self.dispatch(ctx);
    }

    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        if ctx.queued_for_die(die) == 0 {
            // The die fell idle without finishing anything (a write parked for space):
            // the head may have been waiting for it.
            self.dispatch(ctx);
        }
        ctx.take_for_die(die, self.adjacent_multi_plane, group);
    }

    fn held(&self) -> usize {
        self.fifo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testutil::{geometry, Bench};
    use crate::sim::txn::NONE;
    use ssdlab_nand::TxnReason;

    fn read(b: &mut Bench, die: DieId, plane: u32, page: u32, req: ReqId) -> TxnId {
        b.txn_at(FlashOp::Read, TxnReason::HostRead, die, plane, page, req, 0)
    }

    #[test]
    fn vaq_stalls_behind_a_head_whose_die_is_busy() {
        // Two chips, one die each: A runs on chip 0; B (chip 0) heads the queue, so C
        // (chip 1, idle) waits behind it although its die could start.
        let mut b = Bench::new(geometry(2, 1, 1, 1), 8);
        let mut s = Vaq::new(BlockOn::Die, true);
        let (d0, d1) = (b.die(0, 0), b.die(1, 0));
        let a = b.host_read(0, 1, 0);
        s.submit_request(1, &[a], &mut b.ctx());
        assert_eq!(b.start(&mut s, d0), vec![a]);
        let bb = b.host_read(0, 2, 0);
        let c = b.host_read(1, 3, 0);
        s.submit_request(2, &[bb], &mut b.ctx());
        s.submit_request(3, &[c], &mut b.ctx());
        assert!(b.queue(0).is_empty() && b.queue(1).is_empty());
        assert_eq!(s.held(), 2);
        assert!(
            b.start(&mut s, d1).is_empty(),
            "die 1 gets nothing past the head"
        );
        b.finish(&mut s, d0, &[a]);
        assert_eq!(b.queue(0), vec![bb]);
        assert_eq!(b.queue(1), vec![c], "the run behind the head goes at once");
        assert_eq!(s.held(), 0);
        b.check();
    }

    #[test]
    fn a_lookahead_of_k_commits_past_k_blocked_entries_and_no_more() {
        // Three chips, one die each: A runs on chip 0; then B (chip 0, blocked), C
        // (chip 0, blocked), D (chip 1) and E (chip 2) queue behind it.
        for (k, d_goes, e_goes) in [(0, false, false), (1, false, false), (2, true, true)] {
            let mut b = Bench::new(geometry(3, 1, 1, 1), 8);
            let mut s = Vaq::new(BlockOn::Die, true).with_lookahead(k);
            let d0 = b.die(0, 0);
            let a = b.host_read(0, 1, 0);
            s.submit_request(1, &[a], &mut b.ctx());
            assert_eq!(b.start(&mut s, d0), vec![a]);
            let t = [
                b.host_read(0, 2, 0),
                b.host_read(0, 3, 0),
                b.host_read(1, 4, 0),
                b.host_read(2, 5, 0),
            ];
            s.submit_request(2, &t, &mut b.ctx());
            assert_eq!(!b.queue(1).is_empty(), d_goes, "k = {k}: D");
            assert_eq!(!b.queue(2).is_empty(), e_goes, "k = {k}: E");
            assert!(b.queue(0).is_empty(), "k = {k}: chip 0 is busy");
            // When chip 0 frees, B goes before C: the order on one die is kept.
            b.finish(&mut s, d0, &[a]);
            assert_eq!(b.queue(0), vec![t[0]], "k = {k}");
            b.check();
        }
    }

    #[test]
    fn vaq_commits_a_run_of_heads_on_distinct_idle_dies() {
        let mut b = Bench::new(geometry(2, 1, 1, 1), 8);
        let mut s = Vaq::new(BlockOn::Die, true);
        let t = [
            b.host_read(0, 1, 0),
            b.host_read(1, 1, 0),
            b.host_read(0, 1, 0),
        ];
        s.submit_request(1, &t, &mut b.ctx());
        // The third needs chip 0 again, which now has work queued: it waits.
        assert_eq!(b.queue(0), vec![t[0]]);
        assert_eq!(b.queue(1), vec![t[1]]);
        assert_eq!(s.held(), 1);
        b.check();
    }

    #[test]
    fn vaq_packs_only_adjacent_entries_that_qualify() {
        let mut b = Bench::new(geometry(1, 1, 2, 2), 8);
        let mut s = Vaq::new(BlockOn::Die, true);
        let (d0, d1) = (b.die(0, 0), b.die(0, 1));
        // Adjacent, same die, same offset, planes 0 and 1: one operation.
        let pair = [read(&mut b, d0, 0, 3, 1), read(&mut b, d0, 1, 3, 1)];
        s.submit_request(1, &pair, &mut b.ctx());
        assert_eq!(b.start(&mut s, d0), pair.to_vec());
        b.finish(&mut s, d0, &pair);
        // Separated by an entry of another die: no luck.
        let apart = [
            read(&mut b, d0, 0, 5, 2),
            read(&mut b, d1, 0, 5, 2),
            read(&mut b, d0, 1, 5, 2),
        ];
        s.submit_request(2, &apart, &mut b.ctx());
        assert_eq!(b.start(&mut s, d0), vec![apart[0]]);
        // Adjacent but at another page offset.
        let mut b2 = Bench::new(geometry(1, 1, 1, 2), 8);
        let mut s2 = Vaq::new(BlockOn::Die, true);
        let d = b2.die(0, 0);
        let off = [read(&mut b2, d, 0, 3, NONE), read(&mut b2, d, 1, 4, NONE)];
        s2.submit_request(1, &off, &mut b2.ctx());
        assert_eq!(b2.start(&mut s2, d), vec![off[0]]);
        assert_eq!(s2.held(), 1);
        // Without the switch even the qualifying pair runs apart.
        let mut b3 = Bench::new(geometry(1, 1, 1, 2), 8);
        let mut s3 = Vaq::new(BlockOn::Die, false);
        let d = b3.die(0, 0);
        let pair = [read(&mut b3, d, 0, 3, 1), read(&mut b3, d, 1, 3, 1)];
        s3.submit_request(1, &pair, &mut b3.ctx());
        assert_eq!(b3.start(&mut s3, d), vec![pair[0]]);
    }

    #[test]
    fn vaq_blocking_on_the_chip_waits_for_the_whole_package() {
        for (block_on, second_goes) in [(BlockOn::Die, true), (BlockOn::Chip, false)] {
            let mut b = Bench::new(geometry(1, 1, 2, 1), 8);
            let mut s = Vaq::new(block_on, true);
            let (d0, d1) = (b.die(0, 0), b.die(0, 1));
            let a = read(&mut b, d0, 0, 0, 1);
            s.submit_request(1, &[a], &mut b.ctx());
            assert_eq!(b.start(&mut s, d0), vec![a]);
            let c = read(&mut b, d1, 0, 0, 2);
            s.submit_request(2, &[c], &mut b.ctx());
            assert_eq!(b.queue(0) == vec![c], second_goes, "{block_on:?}");
            b.finish(&mut s, d0, &[a]);
            assert_eq!(b.queue(0), vec![c], "{block_on:?}");
            assert_eq!(s.held(), 0);
        }
    }
}
