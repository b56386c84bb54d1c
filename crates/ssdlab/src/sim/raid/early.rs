//! Early pre-reads: a stripe job pins the page versions it will read when it is created,
//! but reads them only once it holds its stripe's lock. A GC victim whose moves are all
//! done can then wait for a job that waits for the lock, whose holder's parity waits for
//! space that only that victim's erase will free: a cycle, and the run stops with writes
//! parked. A pinned version never changes, so reading it before the job runs gives the
//! same token; the victim's erase is what asks for it. The parity read of an RMW job
//! still waits for the lock (it must see the parity the job before it wrote).

use crate::sim::Simulation;
use ssdlab_nand::BlockId;

impl Simulation {
    /// GC's victim `block` has no move left and is held by pins: the jobs waiting for
    /// their stripe's lock read their pinned pages of it now.
    pub(in crate::sim) fn raid_read_pinned_early(&mut self, block: BlockId) {
        let Some(r) = self.raid.as_ref() else { return };
        if r.lock_waiters.is_empty() {
            return;
        }
        let mut waiting: Vec<usize> = r.lock_waiters.values().flatten().copied().collect();
        waiting.sort_unstable();
        let g = self.geom;
        for j in waiting {
            let mut early = self.raid_mut().take_vec();
            let job = &mut self.raid_mut().jobs[j];
            job.reads.retain(|&p| {
                let here = g.block_of_page(p) == block;
                if here {
                    early.push(p);
                }
                !here
            });
            if early.is_empty() {
                self.raid_mut().give_vec(early);
                continue;
            }
            self.raid_mut().counters.early_reads += early.len() as u64;
            self.issue_pre_reads(j, &early);
            self.raid_mut().give_vec(early);
        }
    }

    /// Job `j` holds its stripe's lock.
    pub(super) fn job_running(&self, j: usize) -> bool {
        let r = self.raid();
        r.locks.get(&r.jobs[j].stripe) == Some(&j)
    }
}
