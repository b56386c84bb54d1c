//! The error model in the request path (docs/ERRORS.md): present only with
//! `errors.mode = "on"`, as `Simulation::errors`.
//!
//! ```text
//!  read group starts on a die ─► errors_read_group: per page, RBER from the block's P/E
//!     (backend.rs / nand.rs)       cycles, the page's age, the block's reads, the page type;
//!                                  ECC decode; extra senses lengthen the die's array time,
//!                                  extra transfers the page's bus time (no new event)
//!  a transaction completes ───► errors_txn_done: programs stamp their page's age, erases
//!     (complete_txn)               reset the block's reads; an uncorrectable host read is
//!                                  rebuilt from its RAID stripe (sim/raid/recon.rs) or
//!                                  answered with a media error
//!  a request completes ───────► errors_request_done: T_retry and the request's status
//! ```
//!
//! [`ErrorsState`] keeps the wear, age and read-disturb state and the counts; it knows
//! nothing of the simulator and is tested on its own.

use super::raid::Rebuild;
use super::txn::{ReqId, TxnId, NONE};
use super::Simulation;
use ssdlab_nand::{DieId, FlashOp, Lpn, Ppn, StepTimes, TxnReason};
use ssdlab_stats::{ErrorsReport, OpClass, RequestStatus};

mod duplicate;
mod house;
mod retire;
mod state;
pub(crate) use state::ErrorsState;

impl Simulation {
    fn errs(&mut self) -> &mut ErrorsState {
        self.errors.as_mut().expect("the error model is on")
    }

    /// Hook where a read group starts on `die` (sim/backend.rs, sim/nand.rs): decodes
    /// each page, lengthens each page's bus time by its extra transfers, and returns
    /// the array time the die adds (the group's largest).
    #[inline(never)]
    pub(super) fn errors_read_group(&mut self, die: DieId, sense_ns: u64, page_type: u32) -> u64 {
        let head = self.dies[die.idx()].head;
        // A copyback move never leaves the chip: nothing is decoded.
        if !self.uses_bus(head) {
            self.errs().die_extra[die.idx()] = 0;
            return 0;
        }
        let now = self.now().as_ns();
        let xfer = self.xfer.as_ns();
        let mut extra = 0;
        let mut t = head;
        while t != NONE {
            let txn = self.txns[t];
            let base = Self::bus_ns_of(&txn, xfer);
            let erases = self.ftl.erase_count(self.geom.block_of_page(txn.ppn));
            let times = StepTimes {
                sense_ns,
                xfer_ns: base,
            };
            let e = self.errors.as_mut().expect("the error model is on");
            if let Some(c) = e.read(t, txn.ppn, erases, page_type, now, times) {
                self.txns[t].bus_ns = base * (1 + u64::from(c.senses));
                extra = extra.max(c.array_ns);
            }
            t = txn.group_next;
        }
        self.errs().die_extra[die.idx()] = extra;
        extra
    }

    /// The array time the error model added to `die`'s current read group.
    #[inline]
    pub(super) fn errors_die_extra(&self, die: DieId) -> u64 {
        self.errors.as_ref().map_or(0, |e| e.die_extra[die.idx()])
    }

    /// Hook where transaction `t` completes (`complete_txn`), before its owner sees it.
    /// True when the transaction is consumed here: an uncorrectable host read replaced
    /// by a reconstruction from its stripe.
    #[inline(never)]
    pub(super) fn errors_txn_done(&mut self, t: TxnId) -> bool {
        let txn = self.txns[t];
        let now = self.now().as_ns();
        match txn.op {
            FlashOp::Program => {
                let e = self.errs();
                e.programmed(txn.ppn, now);
                if txn.reason == TxnReason::HostWrite {
                    e.poisoned.remove(&txn.lpn.0);
                }
                if e.house.is_some() {
                    self.house_programmed(&txn);
                }
                return false;
            }
            FlashOp::Erase => {
                let block = self.geom.block_of_page(txn.ppn);
                let e = self.errs();
                e.erased(block);
                if e.house.is_some() {
                    self.house_erased(block);
                }
                return false;
            }
            FlashOp::Read => {}
        }
        let charge = self.errs().take(t);
        let uncorrectable = charge.is_some_and(|c| c.uncorrectable);
        match txn.reason {
            TxnReason::HostRead => {
                let e = self.errs();
                e.req_retry
                    .insert(txn.req, charge.map_or(0, |c| c.retry_ns));
                let second =
                    !e.from_duplicate.is_empty() && e.from_duplicate.remove(&(txn.req, txn.lpn.0));
                if !(uncorrectable || e.poisoned.contains(&txn.lpn.0)) {
                    return false;
                }
                if second {
                    // The duplicate was unreadable too: the rebuild failed.
                    e.c.failed_rebuilds += 1;
                } else {
                    e.c.host_uncorrectable += 1;
                    if self.ftl.has_content_index() && self.errors_read_duplicate(&txn) {
                        return true;
                    }
                }
                if !second && self.raid.is_some() {
                    let expect = self.errors_rebuild_expect(txn.lpn, txn.ppn, txn.expect);
                    let rebuild = self.rebuild_now_or_later(txn.req, txn.lpn, expect);
                    match rebuild {
                        Rebuild::Started => self.errs().c.rebuilt += 1,
                        // The stripe is settling: the rebuild waits for a completion.
                        Rebuild::Later => self.errs().waiting.push((txn.req, txn.lpn)),
                        Rebuild::Never => {}
                    }
                    if rebuild != Rebuild::Never {
                        // The rebuild answers for the page: its own read is done.
                        self.ftl.unpin(txn.ppn);
                        self.gc_page_released(txn.ppn);
                        return true;
                    }
                }
                let e = self.errs();
                e.c.lost += 1;
                e.failed.insert(txn.req);
                // The host gets a status instead of data: there is no content to check.
                if self.verify.is_some() {
                    self.txns[t].expect = self.ftl.token(txn.ppn);
                }
                false
            }
            TxnReason::ReconstructRead => {
                // A second page of the stripe is unreadable: the rebuild fails. The job
                // ends with its last source read (its owner counts it down next).
                let k = txn.aux;
                let last = self.raid().recon[k as usize].reads_left == 1;
                let e = self.errs();
                if uncorrectable {
                    e.c.double_faults += 1;
                    e.failed_jobs.insert(k);
                }
                if last && e.failed_jobs.remove(&k) {
                    e.c.failed_rebuilds += 1;
                    e.c.lost += 1;
                    e.failed.insert(txn.req);
                }
                false
            }
            _ if uncorrectable => {
                let parity = self.raid.as_ref().is_some_and(|r| {
                    self.cfg.raid.level.has_parity() && r.map.layout.group_size() > 1
                });
                let host_page = u64::from(txn.lpn.0) < self.logical_pages;
                let e = self.errs();
                e.c.background += 1;
                if parity {
                    e.c.background_recovered += 1;
                } else if host_page {
                    e.c.background_lost += 1;
                    e.poisoned.insert(txn.lpn.0);
                }
                false
            }
            _ => false,
        }
    }

    /// True when rebuilds or relocations wait for a completion.
    #[inline]
    pub(super) fn errors_waiting(&self) -> bool {
        self.errors.as_ref().is_some_and(|e| e.has_pending())
    }

    /// After a completion: the rebuilds that waited try again, then the relocations.
    #[inline(never)]
    pub(super) fn errors_after_txn(&mut self) {
        if !self.errs().waiting.is_empty() {
            self.errors_retry_waiting();
        }
        if !self.errs().reclaim.is_empty() {
            self.errors_start_reclaims();
        }
        if self.errs().house.is_some() {
            self.house_after_txn();
        }
    }

    /// Starts the relocation of each queued block whose plane runs no GC (read
    /// reclaim); a block that is no longer full (erased, or still open) is dropped.
    fn errors_start_reclaims(&mut self) {
        let queue = std::mem::take(&mut self.errs().reclaim);
        let mut still = Vec::new();
        for block in queue {
            let plane = self.geom.plane_of_block(block);
            if self.gc_jobs[plane.idx()].active() {
                still.push(block);
                continue;
            }
            self.errs().reclaim_set.remove(&block.0);
            if self.plane_dead(plane) || !self.ftl.select_victim_block(block) {
                self.errs().c.reclaim_skipped += 1;
                continue;
            }
            let pages = u64::from(self.ftl.valid_pages(block));
            let e = self.errs();
            e.c.reclaimed_blocks += 1;
            e.c.reclaimed_pages += pages;
            self.launch_collector(plane, block, true, crate::device::Relocation::Refresh);
        }
        let e = self.errs();
        still.append(&mut e.reclaim);
        e.reclaim = still;
    }

    /// What a rebuild of `lpn` must return, for verify: the stripe holds the flash's
    /// current version of the page, so the content of `lpn`'s current page; that is
    /// `admitted` (what the read expected when admitted) while the page is still `read`,
    /// the one the failed read sensed. A newer version written since is what a
    /// rebuild can give (the stripe's parity no longer covers the old one), and the
    /// host may get it: NVMe does not order a read and a write of the same blocks that
    /// are outstanding together (a host that needs the order waits for the write's
    /// completion).
    fn errors_rebuild_expect(&self, lpn: Lpn, read: Ppn, admitted: u64) -> u64 {
        match self.ftl.lookup(lpn) {
            Some(p) if p == read => admitted,
            Some(p) if self.verify.is_some() => self.ftl.token(p),
            _ => admitted,
        }
    }

    /// The rebuilds that waited try again after a completion that may have settled
    /// their stripes, each for the content current now; a page that can no longer be
    /// rebuilt is answered with a media error.
    fn errors_retry_waiting(&mut self) {
        let waiting = std::mem::take(&mut self.errs().waiting);
        for (id, lpn) in waiting {
            let expect = self.errors_rebuild_expect(lpn, Ppn(u32::MAX), 0);
            match self.rebuild_now_or_later(id, lpn, expect) {
                Rebuild::Started => self.errs().c.rebuilt += 1,
                Rebuild::Later => self.errs().waiting.push((id, lpn)),
                Rebuild::Never => {
                    let e = self.errs();
                    e.c.lost += 1;
                    e.failed.insert(id);
                    self.sub_done(id, 0, 0);
                }
            }
        }
    }

    /// Hook where host request `id` of class `op` completes: its T_retry goes to the
    /// breakdown; returns its status (a media error, or a write a read-only drive
    /// refused).
    #[inline(never)]
    pub(super) fn errors_request_done(&mut self, id: ReqId, op: OpClass) -> RequestStatus {
        let e = self.errs();
        let retry = e.req_retry.remove(&id).unwrap_or(0);
        let failed = e.failed.remove(&id);
        e.c.media_error_requests += u64::from(failed);
        let refused = e.house.as_mut().is_some_and(|h| h.refused.remove(&id));
        self.rec.retry(op, retry);
        match (failed, refused) {
            (true, _) => RequestStatus::MediaError,
            (false, true) => RequestStatus::ReadOnly,
            (false, false) => RequestStatus::Ok,
        }
    }

    /// The report's `errors` section, when the error model is on.
    pub(super) fn errors_report(&self) -> Option<ErrorsReport> {
        let e = self.errors.as_ref()?;
        let mut r = e.report(|b| self.ftl.erase_count(b), self.verify.is_some());
        if let Some(h) = r.housekeeping.as_mut() {
            h.good_blocks_min = (0..self.geom.planes())
                .map(|p| u64::from(self.ftl.good_blocks(ssdlab_nand::PlaneId(p))))
                .min()
                .unwrap_or(0);
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests;
