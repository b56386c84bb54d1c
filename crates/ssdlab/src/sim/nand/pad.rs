//! Padding one-shot wordlines that would otherwise wait for pages that are not coming
//! (docs/NAND.md, *Program, one shot*): when the event queue runs dry, and when a
//! collector job (GC or fold) has no move left but those waiting in the page buffer.

use super::super::backend::Phase;
use super::super::txn::NONE;
use super::super::{Event, Simulation};
use ssdlab_engine::SimDuration;
use ssdlab_nand::{DieId, Suspendable};

impl Simulation {
    /// The event queue ran dry while one-shot programs wait for pages that will not
    /// come: pads their wordlines (true), or false when none waits.
    pub(in crate::sim) fn nand_pad_if_stuck(&mut self) -> bool {
        if !self.nand.as_ref().is_some_and(|n| n.holds_pages()) {
            return false;
        }
        self.nand_pad_wordlines();
        true
    }

    /// `die` just moved a program's pages into its page buffer: if a collector job of
    /// one of its planes now has every unfinished move waiting there (its erase would
    /// wait for pages no further move brings), the controller closes the wordlines at
    /// once: the die, still busy, programs its held pages padded (true). False if not.
    pub(super) fn nand_pad_for_collector(&mut self, die: DieId) -> bool {
        let held = &self.nand().dies[die.idx()].held;
        let stuck = (0..self.geom.planes_per_die).any(|n| {
            let plane = self.geom.plane_of_die(die, n);
            let job = self.gc_jobs[plane.idx()];
            if !job.active() || job.erasing || job.moves_left == 0 {
                return false;
            }
            let waiting = held
                .iter()
                .filter(|&&t| {
                    let txn = &self.txns[t];
                    txn.reason.is_gc() && self.geom.plane_of_page(txn.ppn) == plane
                })
                .count() as u32;
            waiting == job.moves_left
        });
        if stuck {
            self.nand_pad_die(die);
        }
        stuck
    }

    /// Nothing else can run: programs every wordline still waiting for pages, padded
    /// (the controller fills the missing pages), so that their writes complete.
    pub(super) fn nand_pad_wordlines(&mut self) {
        for i in 0..self.dies.len() {
            let die = DieId(i as u32);
            if self.nand().dies[i].held.is_empty() || self.dies[i].phase != Phase::Idle {
                continue;
            }
            let chip = self.queues.home(die).0;
            self.set_die_busy(die, chip, true);
            self.nand_pad_die(die);
        }
    }

    /// Starts the padded program of `die`'s held pages (the die counted busy).
    pub(super) fn nand_pad_die(&mut self, die: DieId) {
        let i = die.idx();
        let now = self.now().as_ns();
        let n = self.nand_mut();
        let ns = n.prog_ns[n.prog_ns.len() - 1];
        n.padded += 1;
        let d = &mut n.dies[i];
        d.array_ns = ns;
        d.padding = true;
        d.buffering = false;
        d.suspendable = false;
        d.op = Suspendable::start(now, ns);
        let epoch = d.epoch;
        let dm = &mut self.dies[i];
        dm.phase = Phase::ProgArray;
        dm.head = NONE;
        self.events
            .schedule_in(SimDuration(ns), Event::NandDone(die, epoch));
    }
}
