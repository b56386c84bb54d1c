//! Write-behind-read (`scheduler.write_behind_read`, BRR §III-C): "we only delay write
//! requests behind read requests in pending queues, and always process the delayed write
//! requests prior to new coming read requests".
//!
//! When a die's next transaction in its chip queue is a program, the host reads (and
//! reconstruction reads) of that die already in the queue at the moment the program
//! reached the head are served first; reads that enter the queue later wait for the
//! program. Erases are never overtaken, and no read passes one. The same rule serves
//! every policy that offers it (`async-fifo`, `piq`, `brr`), so a comparison between them
//! is like for like.

use super::SchedCtx;
use crate::sim::txn::TxnId;
use ssdlab_nand::{DieId, FlashOp, TxnReason};

/// The rule's state: for each program that reached the head of its queue, the push count
/// at that moment (reads pushed before it may go first).
pub(crate) struct WriteBehindRead {
    on: bool,
    /// Per transaction id: (its push number, the barrier set when it reached the head).
    barrier: Vec<(u64, u64)>,
}

impl WriteBehindRead {
    /// The rule, applied when `on`.
    pub(crate) fn new(on: bool) -> Self {
        WriteBehindRead {
            on,
            barrier: Vec::new(),
        }
    }

    /// True when the rule is on.
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// With the rule on and `die`'s next queued transaction a program: takes into
    /// `group` the first read of `die` queued before that program reached the head, and
    /// returns true. Otherwise leaves `group` alone and returns false.
    #[inline]
    pub(crate) fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) -> bool {
        self.on && self.pick_read(die, ctx, group)
    }

    /// [`WriteBehindRead::pick`] with the rule on.
    fn pick_read(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) -> bool {
        let chip = ctx.geom.chip_of_die(die);
        let q = &ctx.queues.chip[chip.idx()];
        let Some(head) = q.iter().position(|&t| ctx.txns[t].die == die) else {
            return false;
        };
        let w = q[head];
        if ctx.txns[w].op != FlashOp::Program {
            return false;
        }
        let i = w as usize;
        if i >= self.barrier.len() {
            self.barrier.resize(i + 1, (0, 0));
        }
        let pushed = ctx.queues.push_no(w);
        if self.barrier[i].0 != pushed {
            // First time this program is at the head: reads pushed so far may pass it.
            self.barrier[i] = (pushed, ctx.queues.pushes() + 1);
        }
        let barrier = self.barrier[i].1;
        if ctx.queues.queued_ops_for_die(die).0 == 0 {
            // No read of the die is queued: nothing to look for behind the program.
            return false;
        }
        let mut found = None;
        for (pos, &t) in q.iter().enumerate().skip(head + 1) {
            let x = &ctx.txns[t];
            if x.op == FlashOp::Erase {
                break;
            }
            if x.die == die
                && x.op == FlashOp::Read
                && may_overtake_programs(x.reason)
                && ctx.queues.push_no(t) < barrier
            {
                found = Some(pos);
                break;
            }
        }
        let Some(pos) = found else { return false };
        group.clear();
        group.extend(ctx.take_at(chip, pos));
        true
    }
}

/// True if `reason` is a read that can never target a page whose program is still
/// queued (host reads of such pages are answered from the controller's buffer, and
/// reconstruction refuses pending pages), so it may overtake queued programs.
pub(crate) fn may_overtake_programs(reason: TxnReason) -> bool {
    matches!(reason, TxnReason::HostRead | TxnReason::ReconstructRead)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testutil::{geometry, Bench};
    use crate::sched::{AsyncFifo, IoScheduler, SchedulerConfig};

    /// Async-FIFO with write-behind-read on one chip (one die, one plane).
    fn setup() -> (Bench, AsyncFifo) {
        let b = Bench::new(geometry(1, 1, 1, 1), 8);
        let cfg = SchedulerConfig {
            write_behind_read: true,
            ..SchedulerConfig::default()
        };
        let s = AsyncFifo::from_config(&cfg, &b.geom, &crate::sched::testutil::timing());
        (b, s)
    }

    #[test]
    fn async_fifo_serves_reads_queued_before_the_program_reached_the_head() {
        let (mut b, mut s) = setup();
        let die = b.die(0, 0);
        let g = b.gc(FlashOp::Read, 0);
        s.submit_background(g, &mut b.ctx());
        assert_eq!(b.start(&mut s, die), vec![g]);
        let w = b.host_write(0, 1);
        s.submit_request(1, &[w], &mut b.ctx());
        let r1 = b.host_read(0, 2, 0);
        s.submit_request(2, &[r1], &mut b.ctx());
        b.finish(&mut s, die, &[g]);
        // The program is at the head: the read queued behind it goes first.
        assert_eq!(b.start(&mut s, die), vec![r1]);
        let r2 = b.host_read(0, 3, 0);
        s.submit_request(3, &[r2], &mut b.ctx());
        b.finish(&mut s, die, &[r1]);
        // R2 was queued after the program reached the head: it waits.
        assert_eq!(b.start(&mut s, die), vec![w]);
        b.finish(&mut s, die, &[w]);
        assert_eq!(b.start(&mut s, die), vec![r2]);
        b.check();
    }

    #[test]
    fn reads_never_pass_an_erase_and_gc_reads_never_pass_programs() {
        let (mut b, mut s) = setup();
        let die = b.die(0, 0);
        let w = b.host_write(0, 1);
        let e = b.gc(FlashOp::Erase, 0);
        let gr = b.gc(FlashOp::Read, 0);
        let r = b.host_read(0, 2, 0);
        s.submit_request(1, &[w], &mut b.ctx());
        s.submit_background(e, &mut b.ctx());
        s.submit_background(gr, &mut b.ctx());
        s.submit_request(2, &[r], &mut b.ctx());
        assert_eq!(b.start(&mut s, die), vec![w], "an erase stands between");
    }
}
