//! The hooks of grown bad blocks and retention refresh ([`super::house`]): where a
//! program or an erase completes, after each completion (moves to start, spares to
//! check, scans due), and where a host write starts (refused once the drive is
//! read-only). Reached only when `[errors]` configures one of them.

use super::super::txn::{ReqId, Txn};
use super::super::Simulation;
use super::house::{Cause, Housekeeping};
use crate::device::Relocation;
use ssdlab_ftl::BlockState;
use ssdlab_nand::{BlockId, Ppn};
use ssdlab_trace::Op;

impl Simulation {
    fn house(&mut self) -> &mut Housekeeping {
        self.errs()
            .house
            .as_deref_mut()
            .expect("housekeeping is on")
    }

    /// Program `txn` completed: the block's oldest data is stamped, and the program may
    /// fail, dooming its block (closed if still open; its data moves out later).
    #[inline(never)]
    pub(super) fn house_programmed(&mut self, txn: &Txn) {
        let (now, ppb) = (self.now().as_ns(), self.geom.pages_per_block);
        self.house().programmed(txn.ppn, ppb, now);
        if !self.house().programs_fail() || self.house().read_only() {
            return;
        }
        let block = self.geom.block_of_page(txn.ppn);
        if self.ftl.is_doomed(block) {
            return;
        }
        if self.house_fails(block, Some(txn.ppn)) {
            self.ftl.doom(block);
            self.ftl.close_block(block);
            self.house().doomed(block, Cause::Program);
        }
    }

    /// The erase of `block` completed (before its owner frees it): it may fail, and a
    /// doomed block is retired by it (unless its plane has no other free block).
    #[inline(never)]
    pub(super) fn house_erased(&mut self, block: BlockId) {
        if !self.ftl.is_doomed(block) && !self.house().read_only() && self.house_fails(block, None)
        {
            self.ftl.doom(block);
            self.house().doomed(block, Cause::Erase);
        }
        let (doomed, retire) = (self.ftl.is_doomed(block), self.ftl.retires_at_erase(block));
        let plane = self.geom.plane_of_block(block);
        if doomed && !retire && self.ftl.spares_exhausted(plane) {
            // Retiring it would leave the plane unable to hold its data beside the GC
            // reserve: the drive turns read-only instead, and retires nothing more (the
            // writes already accepted drain on the blocks it has).
            let now = self.now().as_ns();
            self.house().turn_read_only(now);
            self.ftl.spare_doomed();
        }
        let h = self.house();
        if retire {
            h.retired(block);
        } else if doomed && !h.read_only() {
            // Its plane has no other free block: it stays in service for now.
            h.r.retire_deferred += 1;
        }
        h.erased(block);
    }

    /// The draw of a program of `page` (an erase with `None`) on `block` at its wear.
    fn house_fails(&mut self, block: BlockId, page: Option<Ppn>) -> bool {
        let erases = self.ftl.erase_count(block);
        let e = self.errs();
        let pe = e.pe(block, erases);
        let h = e.house.as_deref().expect("housekeeping is on");
        match page {
            Some(p) => h.program_fails(p, erases, pe),
            None => h.erase_fails(block, erases, pe),
        }
    }

    /// After a completion: the retirements' moves start, a retention scan runs if due,
    /// and the refreshes start (nothing moves once the drive is read-only).
    #[inline(never)]
    pub(super) fn house_after_txn(&mut self) {
        let now = self.now().as_ns();
        if self.house().read_only() {
            // Moves would take space the drive no longer has: doomed blocks retire
            // when GC erases them, and nothing is refreshed.
            let h = self.house();
            h.retire.clear();
            for b in std::mem::take(&mut h.refresh) {
                h.refresh_taken(b);
            }
            return;
        }
        if !self.house().retire.is_empty() {
            self.house_start_retirements();
        }
        if self.house().scan_due(now) {
            let initial = self.errs().initial_age_s;
            let ftl = &self.ftl;
            let full = |b: BlockId| ftl.block_state(b) == BlockState::Full;
            let h = self.errors.as_mut().and_then(|e| e.house.as_deref_mut());
            h.expect("housekeeping is on").scan(now, initial, full);
        }
        if !self.house().refresh.is_empty() {
            self.house_start_refreshes();
        }
    }

    /// Starts moving the data out of each doomed block whose plane runs no GC. A block
    /// still open (a placement handle's) waits until it is full; one GC took meanwhile
    /// retires at that erase.
    fn house_start_retirements(&mut self) {
        let mut still = Vec::new();
        for block in std::mem::take(&mut self.house().retire) {
            let plane = self.geom.plane_of_block(block);
            if self.gc_jobs[plane.idx()].active() {
                still.push(block);
                continue;
            }
            match self.ftl.block_state(block) {
                BlockState::Full => {}
                BlockState::HostOpen | BlockState::GcOpen => {
                    still.push(block);
                    continue;
                }
                _ => continue,
            }
            if self.plane_dead(plane) || !self.ftl.select_victim_block(block) {
                continue;
            }
            let pages = u64::from(self.ftl.valid_pages(block));
            let h = self.house();
            h.r.retire_relocations += 1;
            h.r.retire_pages += pages;
            self.launch_collector(plane, block, true, Relocation::Retire);
        }
        let h = self.house();
        still.append(&mut h.retire);
        h.retire = still;
    }

    /// Starts relocating each block the retention scan queued whose plane runs no GC;
    /// a block no longer full is dropped.
    fn house_start_refreshes(&mut self) {
        let mut still = Vec::new();
        for block in std::mem::take(&mut self.house().refresh) {
            let plane = self.geom.plane_of_block(block);
            if self.gc_jobs[plane.idx()].active() {
                still.push(block);
                continue;
            }
            self.house().refresh_taken(block);
            if self.plane_dead(plane) || !self.ftl.select_victim_block(block) {
                continue;
            }
            let pages = u64::from(self.ftl.valid_pages(block));
            let h = self.house();
            h.r.refreshed_blocks += 1;
            h.r.refreshed_pages += pages;
            self.launch_collector(plane, block, true, Relocation::Refresh);
        }
        let h = self.house();
        still.append(&mut h.refresh);
        h.refresh = still;
    }

    /// Where host request `id` starts: a write on a read-only drive completes at once
    /// (an event at the same instant) with the `read-only` status. True when refused.
    #[inline(never)]
    pub(in crate::sim) fn errors_refuse_write(&mut self, id: ReqId) -> bool {
        let r = &self.reqs[id];
        // An internal request (a destage of data already acknowledged) is not refused.
        if r.io.op != Op::Write || r.id == u64::MAX {
            return false;
        }
        match self.errs().house.as_deref_mut() {
            Some(h) if h.read_only() => {
                h.r.refused_writes += 1;
                h.refused.insert(id);
            }
            _ => return false,
        }
        self.reqs[id].pending = 0;
        // By an event, like a trim: a burst of refused writes completes one event at a
        // time, not by recursion.
        self.events.schedule_in(
            ssdlab_engine::SimDuration(0),
            super::super::Event::DoneAtOnce(id),
        );
        true
    }
}
