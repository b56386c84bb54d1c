//! Program/erase suspend on the die's side (docs/NAND.md): when a woken chip's die
//! suspends for a read the scheduler gives it, and how the operation resumes.

use crate::sim::backend::Phase;
use crate::sim::txn::{Txn, TxnId, NONE};
use crate::sim::{Event, Simulation};
use ssdlab_engine::SimDuration;
use ssdlab_nand::{DieId, FlashOp};

impl Simulation {
    /// Chip `chip` received work: its dies busy programming or erasing may suspend for
    /// a read.
    #[inline(never)]
    pub(super) fn nand_chip_woken(&mut self, chip: ssdlab_nand::ChipId) {
        if !self.nand().policy.is_on() {
            return;
        }
        for n in 0..self.geom.dies_per_chip {
            let die = self.geom.die_of_chip(chip, n);
            self.nand_try_suspend(die);
        }
    }

    /// A read the scheduler allows may suspend `die`'s program or erase.
    pub(super) fn nand_try_suspend(&mut self, die: DieId) {
        let now = self.now().as_ns();
        let phase = self.dies[die.idx()].phase;
        let n = self.nand();
        let d = &n.dies[die.idx()];
        if !n.policy.is_on()
            || !matches!(phase, Phase::ProgArray | Phase::Erase)
            || !d.suspendable
            || d.saved.is_some()
        {
            return;
        }
        let s = n.suspend;
        if !d.op.may_suspend(now, s.max_per_op, s.t_suspend_ns) {
            if n.policy.wants_read(&self.queues, &self.txns, die) {
                self.nand_mut().refused += 1;
            }
            return;
        }
        // The pages the operation writes (an erase: its block) are not read meanwhile.
        let head = self.dies[die.idx()].head;
        let mut busy = Vec::new();
        let mut t = head;
        while t != NONE {
            busy.push(self.txns[t].ppn);
            t = self.txns[t].group_next;
        }
        let erase = phase == Phase::Erase;
        let geom = self.geom;
        let is_busy = |p| {
            busy.iter()
                .any(|&b| b == p || (erase && geom.block_of_page(b) == geom.block_of_page(p)))
        };
        let policy = n.policy;
        let Some(read) = policy.take_read(&mut self.queues, &self.txns, die, is_busy) else {
            return;
        };
        self.start_suspending_read(die, read, phase, now, s.t_suspend_ns);
    }

    /// Suspends `die`'s operation at `now` and starts `read` once the array is free.
    fn start_suspending_read(
        &mut self,
        die: DieId,
        read: TxnId,
        phase: Phase,
        now: u64,
        t_suspend: u64,
    ) {
        let (chip, _) = self.queues.home(die);
        if self.merge.is_some() {
            self.forget_waiting_read(read);
        }
        self.queues.txn_started_on(chip, die, FlashOp::Read);
        self.chip_run[chip.idx()].running += 1;
        let gc_total = self.dies[die.idx()].gc_ns;
        let txn: &mut Txn = &mut self.txns[read];
        txn.group_next = NONE;
        // The suspension's latency counts as the read's wait, not its array time.
        txn.started_ns = now + t_suspend;
        let queued = now - txn.enqueued_ns;
        txn.gc_mark_ns = gc_total.saturating_sub(txn.gc_mark_ns).min(queued);
        let page = self.geom.page_in_block(txn.ppn);
        let head = self.dies[die.idx()].head;
        let n = self.nand_mut();
        let ty = n.cfg.page_type(page) as usize;
        let read_ns = n.read_ns[ty];
        match phase {
            Phase::Erase => n.erase_suspends += 1,
            _ => n.program_suspends += 1,
        }
        n.suspended += 1;
        let d = &mut n.dies[die.idx()];
        d.op.suspend(now);
        d.saved = Some((phase, head, d.array_ns));
        d.array_ns = read_ns;
        d.epoch = d.epoch.wrapping_add(1);
        let epoch = d.epoch;
        let dm = &mut self.dies[die.idx()];
        dm.phase = Phase::ReadArray;
        dm.head = read;
        self.events.schedule_in(
            SimDuration(t_suspend + read_ns),
            Event::NandDone(die, epoch),
        );
        sched!(self, |s, ctx| s.on_chip_room(chip, ctx));
    }

    /// Idle `die` finished what it did while its operation was suspended: resumes it
    /// (true); or it holds a wordline only phantoms complete: programs it (true); false
    /// when neither.
    #[inline(never)]
    pub(in crate::sim) fn nand_resume(&mut self, die: DieId) -> bool {
        let n = self.nand();
        if n.suspended == 0 && n.closing == 0 {
            return false;
        }
        if n.dies[die.idx()].saved.is_none() {
            return self.nand_close_if_flagged(die);
        }
        let now = self.now().as_ns();
        let chip = self.queues.home(die).0;
        self.set_die_busy(die, chip, true);
        let n = self.nand_mut();
        let t_resume = n.suspend.t_resume_ns;
        let d = &mut n.dies[die.idx()];
        let Some((phase, head, array_ns)) = d.saved.take() else {
            return false;
        };
        n.suspended -= 1;
        let (end, held) = d.op.resume(now, t_resume);
        d.array_ns = array_ns;
        let epoch = d.epoch;
        n.suspended_ns += held;
        let op = if phase == Phase::Erase {
            FlashOp::Erase
        } else {
            FlashOp::Program
        };
        self.queues.set_running_op(die, op);
        let dm = &mut self.dies[die.idx()];
        dm.phase = phase;
        dm.head = head;
        self.events
            .schedule_in(SimDuration(end - now), Event::NandDone(die, epoch));
        true
    }
}
