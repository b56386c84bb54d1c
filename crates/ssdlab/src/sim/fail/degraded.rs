//! Reads and writes of pages on dead chips.

use crate::placement::{PageToPlace, Role};
use crate::sim::raid::Rebuild;
use crate::sim::Simulation;
use ssdlab_nand::{Lpn, PlaneId, TxnReason};
use ssdlab_raid::RaidLevel;

impl Simulation {
    /// A host read of a page on a dead chip.
    pub(in crate::sim) fn degraded_read(
        &mut self,
        id: crate::sim::txn::ReqId,
        lpn: Lpn,
        expect: u64,
    ) -> crate::sim::host::ReadOutcome {
        self.fs_mut().counters.degraded_reads += 1;
        self.serve_degraded(id, lpn, expect)
    }

    fn serve_degraded(
        &mut self,
        id: crate::sim::txn::ReqId,
        lpn: Lpn,
        expect: u64,
    ) -> crate::sim::host::ReadOutcome {
        use crate::sim::host::ReadOutcome;
        let redundant = self.has_redundancy();
        // A read that waited for its stripe may find its page declared lost meanwhile (a
        // parity update found a second member of the group dead): the stripe's parity no
        // longer covers it, so a reconstruction would answer garbage.
        if redundant && !self.is_lost(lpn) {
            match self.rebuild_now_or_later(id, lpn, expect) {
                Rebuild::Started => return ReadOutcome::Deferred,
                Rebuild::Later => {
                    // The stripe is settling: the read tries again once something has
                    // happened.
                    self.fs_mut().degraded_wait.push((id, lpn));
                    return ReadOutcome::Deferred;
                }
                Rebuild::Never => {}
            }
        }
        self.fs_mut().counters.unrecoverable_reads += 1;
        ReadOutcome::Done
    }

    /// True when degraded reads wait for their stripes to settle.
    #[inline(always)]
    pub(in crate::sim) fn degraded_waiting(&self) -> bool {
        self.fail
            .as_deref()
            .is_some_and(|f| !f.degraded_wait.is_empty())
    }

    /// The degraded reads that waited try again, after an event that may have settled
    /// their stripes; each returns the content current now. Those still waiting wait on.
    pub(in crate::sim) fn retry_degraded(&mut self) {
        let mut waiting = std::mem::take(&mut self.fs_mut().degraded_wait);
        for &(id, lpn) in &waiting {
            let expect = self.expected(lpn);
            if let crate::sim::host::ReadOutcome::Done = self.serve_degraded(id, lpn, expect) {
                self.sub_done(id, 0, 0);
            }
        }
        // Keep the list's allocation when nothing joined it meanwhile.
        let f = self.fs_mut();
        if f.degraded_wait.is_empty() {
            waiting.clear();
            f.degraded_wait = waiting;
        }
        self.run_gc_checks();
    }

    /// A write whose page lives on a dead chip: nothing is programmed. The FTL records
    /// the page as being on the dead member (its data is gone), so reads of it are
    /// degraded; RAID-4/5 parity already carries its content, RAID-1 the other copy.
    pub(in crate::sim) fn dead_write(&mut self, lpn: Lpn, token: u64, reason: TxnReason) {
        // As a placed write does, this version supersedes one waiting for space.
        if !self.held.is_empty() && self.held.remove(&lpn.0).is_some() {
            self.raid_note_held(lpn, false);
        }
        let plane = self.place(PageToPlace::new(lpn, token, Role::Degraded));
        // A host write changes its page's entry whatever is recorded below (the new
        // version on the dead member, or known only through redundancy); under CR5M a
        // mirror write already moved the old version to its EPPN when it was admitted.
        let mut remapped = reason == TxnReason::HostWrite;
        match self.ftl.host_write(lpn, plane, token) {
            Ok(p) => {
                self.ftl.program_done(p);
                remapped = true;
            }
            Err(_) => {
                // The dead plane has no room to record the page. If the current version
                // lives on a live chip (DGC moved it), it is stale now: unmap it; the
                // content exists only through redundancy.
                // The same holds for a page never written before, and for a version on
                // the dead chip whose program was queued before the failure and is still
                // running: it stays mapped until that program completes, but reads must
                // not take it (from the write buffer) for the newest content.
                let old = self.ftl.lookup(lpn);
                let on_dead = old.is_some_and(|p| self.on_dead_chip(p));
                // Without redundancy the content is lost instead.
                if !on_dead || old.is_some_and(|p| self.ftl.is_pending(p)) {
                    if old.is_some() && !on_dead {
                        self.ftl.trim(lpn);
                        remapped = true;
                    }
                    let redundant = self.has_redundancy();
                    let f = self.fs_mut();
                    if redundant {
                        f.redundant_only.insert(lpn.0);
                    } else {
                        f.lost_lpns.insert(lpn.0);
                    }
                }
            }
        }
        if remapped && self.cmt.is_some() {
            self.cmt_remapped(lpn, reason == TxnReason::HostWrite);
        }
        // Degraded when its redundancy can hold the content; lost without redundancy or
        // when a page already holding its stripe's redundancy is on a dead chip too.
        let held = self.has_redundancy() && !self.redundancy_on_dead_chip(lpn);
        if held {
            self.fs_mut().counters.degraded_writes += 1;
        } else {
            self.fs_mut().counters.lost_writes += 1;
        }
        if reason == TxnReason::HostWrite {
            self.counters.host_pages_programmed += 1;
            self.note_written(lpn, token);
        }
        self.admit_done_now += 1;
    }
}

impl Simulation {
    /// A parity update whose parity member is dead (no spare) writes nothing. If the
    /// stripe's current parity page is on a live chip (DGC redirected it there), it is
    /// stale now: the new parity is recorded on the dead member instead, as a degraded
    /// write records data, so that no reconstruction takes the stale page; if the dead
    /// plane has no room to record it, the parity is unmapped and marked lost.
    pub(in crate::sim) fn dead_parity_write(&mut self, lpn: Lpn, plane: PlaneId, token: u64) {
        let Some(old) = self.ftl.lookup(lpn) else {
            return;
        };
        if self.on_dead_chip(old) {
            return;
        }
        match self.ftl.host_write(lpn, plane, token) {
            Ok(p) => self.ftl.program_done(p),
            Err(_) => {
                self.ftl.trim(lpn);
                self.fs_mut().lost_lpns.insert(lpn.0);
            }
        }
    }

    /// True when a written page that `lpn`'s content depends on for recovery (its RAID-1
    /// copy, or another member or the parity of its RAID-4/5 stripe) is on a dead chip.
    fn redundancy_on_dead_chip(&self, lpn: Lpn) -> bool {
        let r = self.raid();
        let x = u64::from(lpn.0);
        if x >= r.map.host_pages {
            return false;
        }
        let dead = |l: Lpn| self.ftl.lookup(l).is_some_and(|p| self.on_dead_chip(p));
        match r.map.level {
            RaidLevel::Raid1 => r.map.mirror_of(lpn).is_some_and(|(m, _)| dead(m)),
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let c = r.map.layout.locate(x);
                (0..r.map.layout.group_size())
                    .filter(|&q| q != c.pos)
                    .any(|q| match r.map.layout.lpn_at(c.row, c.group, q) {
                        Some(y) => dead(self.cr5m_covered(Lpn(y as u32))),
                        None => dead(r.map.red_lpn(r.map.layout.parity_index(c.row, c.group))),
                    })
            }
            RaidLevel::None | RaidLevel::Raid0 => false,
        }
    }
}
