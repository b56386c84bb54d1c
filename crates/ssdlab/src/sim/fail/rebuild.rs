//! Rebuild of a failed member onto a hidden spare chip, row by row, paced to
//! `raid.rebuild_rate_mib_s`.

use super::Rebuild;
use crate::placement::{PageToPlace, Role};
use crate::sim::gc_trigger::GcCause;
use crate::sim::txn::{TxnId, NONE};
use crate::sim::{Event, Simulation};
use ssdlab_nand::{ChipId, FlashOp, Lpn, Ppn, TxnReason};
use ssdlab_raid::Domain;

impl Simulation {
    /// Remaps a failed member chip to a spare and starts rebuilding it.
    pub(super) fn start_rebuild(&mut self, chip: ChipId) {
        let Some(r) = self.raid.as_ref() else { return };
        if r.map.domain != Domain::Chip || !r.map.level.is_redundant() {
            return;
        }
        let Some(member) = r.map.member_chip.iter().position(|&c| c == chip.0) else {
            return;
        };
        let rows = r.map.rows();
        let Some(spare) = self.fs().spares.first().copied() else {
            return;
        };
        self.fs_mut().spares.remove(0);
        self.raid_mut().map.member_chip[member] = spare;
        let now = self.now().as_ns();
        self.fs_mut().rebuilds.push(Rebuild {
            member: member as u32,
            next_row: 0,
            rows,
            started_ns: now,
            finished_ns: None,
            reads_left: 0,
            acc: 0,
            lpn: Lpn(u32::MAX),
            lost: None,
            row_started_ns: now,
        });
        if self
            .fs()
            .rebuilds
            .iter()
            .filter(|b| b.finished_ns.is_none())
            .count()
            == 1
        {
            let k = self.fs().rebuilds.len() - 1;
            self.rebuild_row(k);
        }
    }

    /// The rebuild that is running, if any.
    fn active_rebuild(&self) -> Option<usize> {
        self.fs()
            .rebuilds
            .iter()
            .position(|b| b.finished_ns.is_none())
    }

    /// Rebuilds the next row of rebuild `k` that has a page on a dead chip.
    pub(in crate::sim) fn rebuild_row(&mut self, k: usize) {
        loop {
            let b = self.fs().rebuilds[k];
            if b.finished_ns.is_some() {
                return; // stopped: its spare died
            }
            if b.next_row >= b.rows {
                self.fs_mut().rebuilds[k].finished_ns = Some(self.now().as_ns());
                if let Some(n) = self.active_rebuild() {
                    self.rebuild_row(n);
                }
                return;
            }
            let row = b.next_row;
            self.fs_mut().rebuilds[k].next_row += 1;
            let Some(lpn) = self.raid_lpn_of_member(row, b.member) else {
                continue;
            };
            match self.ftl.lookup(lpn) {
                // Rewritten onto the spare since the failure.
                Some(ppn) if !self.dead.is_dead(self.geom.chip_of_page(ppn)) => continue,
                Some(_) => {}
                // A parity page never written because its chip was dead when its stripe
                // was first filled: rebuild it from the data; other pages: nothing.
                None if !self.is_parity_lpn(lpn) => continue,
                None => {}
            }
            let mut sources = Vec::new();
            if !self.raid_sources(lpn, &mut sources) {
                // The stripe is busy (a parity update in flight) or has lost a second
                // member: try this row again a little later, or give up on it.
                if self.raid_stripe_busy(lpn) {
                    self.fs_mut().rebuilds[k].next_row = row;
                    self.fs_mut().counters.rebuild_deferrals += 1;
                    let wait =
                        ssdlab_engine::SimDuration(self.cfg.raid.encode_timeout_ns.max(1_000));
                    let at = self.now() + wait;
                    self.events
                        .schedule(at, Event::RebuildStep(k as u32))
                        .expect("future");
                    return;
                }
                continue;
            }
            let now = self.now().as_ns();
            if sources.is_empty() {
                continue; // nothing was ever written to this stripe: nothing to rebuild
            }
            let lost = self.ftl.lookup(lpn);
            let rb = &mut self.fs_mut().rebuilds[k];
            rb.lpn = lpn;
            rb.lost = lost;
            rb.acc = 0;
            rb.reads_left = sources.len() as u32;
            rb.row_started_ns = now;
            for &p in &sources {
                self.ftl.pin(p);
                self.rebuild_txn(FlashOp::Read, p, lpn, k as u32);
            }
            return;
        }
    }

    fn rebuild_txn(&mut self, op: FlashOp, ppn: Ppn, lpn: Lpn, k: u32) -> TxnId {
        let die = self.geom.die_of_page(ppn);
        let mut t = self.queued_txn(op, TxnReason::Rebuild, ppn, die, lpn, NONE);
        t.aux = k;
        self.submit_background_txn(t)
    }

    /// A rebuild read or program finished.
    pub(in crate::sim) fn rebuild_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        let k = txn.aux as usize;
        match txn.op {
            FlashOp::Read => {
                let token = self.ftl.token(txn.ppn);
                self.ftl.unpin(txn.ppn);
                self.gc_page_released(txn.ppn);
                let rb = &mut self.fs_mut().rebuilds[k];
                rb.acc ^= token;
                rb.reads_left -= 1;
                if rb.reads_left > 0 {
                    return;
                }
                let (lpn, token, lost, stopped) =
                    (rb.lpn, rb.acc, rb.lost, rb.finished_ns.is_some());
                // The page may have been rewritten while its sources were read: only the
                // version whose loss started this row may be replaced. Nor may a page
                // that a parity update declared lost meanwhile (a second member of its
                // group died and the new parity no longer covers it): writing it back
                // would leave the stripe's parity inconsistent with its data.
                let still_lost = !stopped && self.ftl.lookup(lpn) == lost && !self.is_lost(lpn);
                let plane = self.place(PageToPlace::new(lpn, token, Role::Rebuild));
                match still_lost
                    .then(|| self.ftl.host_write(lpn, plane, token).ok())
                    .flatten()
                {
                    Some(ppn) => {
                        if self.cmt.is_some() {
                            self.cmt_remapped(lpn, false);
                        }
                        self.rebuild_txn(FlashOp::Program, ppn, lpn, k as u32);
                        self.gc_check_after(plane, GcCause::Other);
                    }
                    None => self.rebuild_paced_next(k),
                }
            }
            FlashOp::Program => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
                self.fs_mut().counters.rebuilt_pages += 1;
                self.rebuild_paced_next(k);
            }
            FlashOp::Erase => unreachable!("rebuild never erases"),
        }
    }

    /// Starts the next row no sooner than the rebuild rate allows.
    fn rebuild_paced_next(&mut self, k: usize) {
        let page = f64::from(self.geom.page_size_bytes);
        let rate = self.cfg.raid.rebuild_rate_mib_s * 1024.0 * 1024.0;
        let interval_ns = (page / rate * 1e9) as u64;
        let earliest = self.fs().rebuilds[k].row_started_ns + interval_ns;
        let at = ssdlab_engine::SimTime(earliest.max(self.now().as_ns()));
        self.events
            .schedule(at, Event::RebuildStep(k as u32))
            .expect("not in the past");
    }

    /// True for the FTL LPN of a RAID-4/5 parity page.
    fn is_parity_lpn(&self, lpn: Lpn) -> bool {
        self.raid
            .as_ref()
            .is_some_and(|r| r.map.level.has_parity() && u64::from(lpn.0) >= r.map.host_pages)
    }
}
