//! The read side of admission: a page read from flash, the write buffer, or a
//! never-written page materialized on first read.

use super::ReadOutcome;
use crate::config::UnwrittenReads;
use crate::placement::{PageToPlace, Role};
use crate::sim::txn::{ReqId, Txn};
use crate::sim::Simulation;
use ssdlab_ftl::token_for;
use ssdlab_nand::{FlashOp, Lpn, PlaneId, Ppn, TxnReason};

impl Simulation {
    /// A read page: a flash read, an answer from the write buffer, or (RAID) a
    /// reconstruction from the page's parity group.
    pub(super) fn admit_read(&mut self, id: ReqId, lpn: Lpn) -> ReadOutcome {
        if let Some(&(_, token)) = self.held_get(lpn) {
            // The page's newest content waits for space in the controller.
            self.counters.buffer_hits += 1;
            self.reqs[id].buffer_hits += 1;
            if self.cfg.verify {
                self.check_token(lpn, self.shadow[lpn.idx()], token);
            }
            return ReadOutcome::Done;
        }
        if !self.lost_lpns.is_empty() && self.lost_lpns.contains(&lpn.0) {
            self.fail.counters.unrecoverable_reads += 1;
            return ReadOutcome::Done;
        }
        if !self.redundant_only.is_empty() && self.redundant_only.contains(&lpn.0) {
            let expect = if self.cfg.verify {
                self.shadow[lpn.idx()]
            } else {
                0
            };
            return self.degraded_read(id, lpn, expect);
        }
        let ppn = match self.ftl.lookup(lpn) {
            Some(p) => p,
            None => match self.materialize(lpn) {
                Some(p) => p,
                None => return ReadOutcome::Done,
            },
        };
        let expect = if self.cfg.verify {
            self.shadow[lpn.idx()]
        } else {
            0
        };
        if self.ftl.is_pending(ppn) {
            self.counters.buffer_hits += 1;
            self.reqs[id].buffer_hits += 1;
            if self.cfg.verify {
                self.check_token(lpn, expect, self.ftl.token(ppn));
            }
            return ReadOutcome::Done;
        }
        if self.dead.any() && self.on_dead_chip(ppn) {
            return self.degraded_read(id, lpn, expect);
        }
        let mut ppn = ppn;
        if let Some(level) = self.raid.as_ref().map(|x| x.map.level) {
            match level {
                ssdlab_raid::RaidLevel::Raid1 => ppn = self.pick_mirror_copy(lpn, ppn),
                ssdlab_raid::RaidLevel::Raid4 | ssdlab_raid::RaidLevel::Raid5
                    if self.raid.as_ref().is_some_and(|x| x.force_reconstruct)
                        && self.reconstruct_read(id, lpn, expect) =>
                {
                    return ReadOutcome::Deferred;
                }
                _ => {}
            }
        }
        self.ftl.pin(ppn);
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(FlashOp::Read, TxnReason::HostRead, ppn, die, lpn, id);
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.die_gc_ns[die.idx()];
        t.expect = expect;
        ReadOutcome::Txn(self.txns.insert(t))
    }

    /// A never-written page that a read asks for (see `host.unwritten_reads`). Under
    /// RAID the whole stripe (or both copies) is materialized with its redundancy.
    pub(super) fn materialize(&mut self, lpn: Lpn) -> Option<Ppn> {
        if self.cfg.host.unwritten_reads == UnwrittenReads::Zero {
            self.counters.zero_reads += 1;
            return None;
        }
        let placed = if self.raid.is_some() {
            self.raid_materialize(lpn)
        } else {
            let token = token_for(lpn, 0);
            let plane = self.place(PageToPlace::new(lpn, token, Role::Materialize));
            let ok = self.materialize_page(lpn, plane, token);
            if ok && self.cfg.verify {
                self.shadow[lpn.idx()] = token;
            }
            ok
        };
        if !placed {
            self.counters.zero_reads += 1;
            return None;
        }
        self.counters.materialized_reads += 1;
        self.ftl.lookup(lpn)
    }

    /// Writes `lpn` with `token` in zero time; false if its plane has no free page.
    pub(in crate::sim) fn materialize_page(
        &mut self,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> bool {
        match self.ftl.host_write(lpn, plane, token) {
            Ok(ppn) => {
                self.ftl.program_done(ppn);
                self.gc_check.push(plane);
                true
            }
            Err(_) => false,
        }
    }
}
