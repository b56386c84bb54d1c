//! Partial-page writes (`timing.transfer = "sectors"`; docs/SIMULATOR.md, "Sub-page
//! transfers"): a write that covers part of a page is merged with the rest of the page
//! before the page is programmed.
//!
//! ```text
//!  write of sectors m of page p
//!    the controller holds p (DRAM stage, a parked write)  → merged there, no flash read
//!    p has no sectors outside m on flash (never written)  → programmed as it is
//!    otherwise                                             → merge read of p's flash page
//!                                                            (TxnReason::MergeRead), then
//!                                                            the program, as SSDsim's
//!                                                            "update read" orders them
//!  a later write of p while the merge read runs: a partial one joins it (merged in the
//!  controller), a whole-page one is placed at once and the waiting version is dropped
//! ```
//!
//! With a DRAM stage, host writes are merged in DRAM; a page that entered DRAM with part
//! of its sectors and found no other version there is merged when it is destaged.
//! With the default `"page"` none of this exists: a partial write programs the page as
//! a whole, with no read.

use super::txn::{ReqId, TxnId};
use super::Simulation;
use crate::sim::sectors::SECTOR_BYTES;
use rustc_hash::FxHashMap;
use ssdlab_nand::{FlashOp, Lpn, TxnReason};
use ssdlab_stats::Counter;

/// A page's sectors as a bit set: bit `k` is the `k`-th unit of the page. A unit is a
/// 512-byte sector, or 1/64 of a page for pages above 32 KiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Units {
    unit_bytes: u64,
    full: u64,
}

impl Units {
    pub fn new(page_bytes: u32) -> Self {
        let page = u64::from(page_bytes);
        let unit_bytes = SECTOR_BYTES.max(page.div_ceil(64));
        let n = page.div_ceil(unit_bytes);
        let full = if n >= 64 { u64::MAX } else { (1 << n) - 1 };
        Units { unit_bytes, full }
    }

    /// Every unit of a page.
    pub fn full(&self) -> u64 {
        self.full
    }

    /// The units of page `i` (counted from the request's first page) that a request of
    /// `size` bytes at byte `offset` touches, for pages of `page` bytes.
    pub fn of_request(&self, offset: u64, size: u64, page: u64, i: u32) -> u64 {
        let u = u128::from(self.unit_bytes);
        let (offset, size, page) = (u128::from(offset), u128::from(size), u128::from(page));
        let page_start = (offset / page + u128::from(i)) * page;
        let lo = offset.max(page_start);
        let hi = (offset + size).min(page_start + page);
        if hi <= lo {
            return 0;
        }
        let first = (lo - page_start) / u;
        let last = (hi - page_start).div_ceil(u); // exclusive
        let n = (last - first) as u32;
        let bits = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        (bits << first) & self.full
    }
}

/// What a write of some of a page's units needs before its program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Merge {
    /// Nothing: it covers every unit ever written, or the controller holds the rest.
    None,
    /// A merge read of the page's flash copy.
    Read,
    /// It joins the merge read already running for the page.
    Join,
}

/// A write waiting for its page's merge read.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    req: ReqId,
    token: u64,
    /// Its number among versions the controller holds (`Simulation::held`).
    seq: u64,
}

/// The state of partial-page writes: which units of each page were ever written, the
/// partial versions DRAM holds, and the merge reads running.
pub(crate) struct PartialWrites {
    pub units: Units,
    page_bytes: u64,
    /// Units of each logical page ever written (what its flash copy holds once the
    /// controller has no newer version).
    written: Vec<u64>,
    /// Pages that DRAM holds with only some units (no older version was there to merge
    /// with): their units.
    in_dram: FxHashMap<u32, u64>,
    /// Pages whose merge read runs: the writes waiting for it, oldest first.
    reading: FxHashMap<u32, Vec<Waiter>>,
    /// Host write pages that touched part of a page.
    pub partial_pages: u64,
    /// Merge reads issued.
    pub merge_reads: u64,
    /// Partial writes merged with a version the controller held, or that joined a
    /// merge read already running.
    pub merged_in_controller: u64,
}

impl PartialWrites {
    pub fn new(page_bytes: u32, logical_pages: u64) -> Self {
        PartialWrites {
            units: Units::new(page_bytes),
            page_bytes: u64::from(page_bytes),
            written: vec![0; logical_pages as usize],
            in_dram: FxHashMap::default(),
            reading: FxHashMap::default(),
            partial_pages: 0,
            merge_reads: 0,
            merged_in_controller: 0,
        }
    }

    /// A write of units `m` of page `lpn` reaches flash: whether its program must wait
    /// for a merge read. `held`: the controller holds a newer version of the page than
    /// its flash copy (merged there); `mapped`: the page has a flash copy.
    pub fn decide(&mut self, lpn: Lpn, m: u64, held: bool, mapped: bool) -> Merge {
        let w = &mut self.written[lpn.0 as usize];
        let before = *w;
        *w |= m;
        if m == self.units.full() {
            return Merge::None;
        }
        if self.reading.contains_key(&lpn.0) {
            self.merged_in_controller += 1;
            return Merge::Join;
        }
        if held {
            self.merged_in_controller += 1;
            return Merge::None;
        }
        if !mapped || before & !m == 0 {
            return Merge::None;
        }
        self.merge_reads += 1;
        Merge::Read
    }

    /// A host write of units `m` of page `lpn` entered DRAM; `had`: DRAM held a version
    /// of the page before (the write merged with it).
    pub fn buffered(&mut self, lpn: Lpn, m: u64, had: bool) {
        self.partial_pages += u64::from(m != self.units.full());
        if had {
            if let Some(u) = self.in_dram.get_mut(&lpn.0) {
                *u |= m;
            }
            if m != self.units.full() {
                self.merged_in_controller += 1;
            }
        } else if m == self.units.full() {
            self.in_dram.remove(&lpn.0);
        } else {
            self.in_dram.insert(lpn.0, m);
        }
    }

    /// The units of page `lpn` a destage programs (every unit unless DRAM holds only
    /// some).
    pub fn destaged(&mut self, lpn: Lpn) -> u64 {
        if self.in_dram.is_empty() {
            return self.units.full();
        }
        self.in_dram.remove(&lpn.0).unwrap_or(self.units.full())
    }
}

impl Simulation {
    /// The units page `i` of host request `id` touches.
    pub(in crate::sim) fn request_units(&self, id: ReqId, i: u32) -> u64 {
        let p = self.partial.as_ref().expect("partial writes");
        let io = &self.reqs[id].io;
        p.units
            .of_request(io.offset_bytes, io.size_bytes, p.page_bytes, i)
    }

    /// The units of page `lpn` of host request `id` (page `i` of it, or, for a page
    /// that waited for DRAM room, found from its LPN).
    pub(in crate::sim) fn units_of_lpn(&self, id: ReqId, lpn: Lpn) -> u64 {
        let r = &self.reqs[id];
        let i = (u64::from(lpn.0) + self.logical_pages - r.first_lpn % self.logical_pages)
            % self.logical_pages;
        self.request_units(id, i as u32)
    }

    /// Host write page `lpn` of request `id` entered DRAM; `had`: DRAM held a version of
    /// it before.
    pub(in crate::sim) fn note_buffered(&mut self, id: ReqId, lpn: Lpn, had: bool) {
        let m = self.units_of_lpn(id, lpn);
        if let Some(p) = self.partial.as_mut() {
            p.buffered(lpn, m, had);
        }
    }

    /// A write page `lpn` (page `i` of request `id`, content `token`) about to be
    /// programmed: true when it waits for a merge read instead (issued here, or joined).
    /// `destage`: a DRAM stage's page, whose units DRAM knows.
    pub(in crate::sim) fn partial_write(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        i: u32,
        token: u64,
        destage: bool,
        txns: &mut Vec<TxnId>,
    ) -> bool {
        let m = if destage {
            self.partial.as_mut().expect("partial writes").destaged(lpn)
        } else {
            self.request_units(id, i)
        };
        let p = self.partial.as_mut().expect("partial writes");
        if m != p.units.full() && !destage {
            p.partial_pages += 1;
        }
        if self.bind.is_some() || self.raid.as_ref().is_some_and(|x| x.map.level.has_parity()) {
            // Parity RAID (RAID-4/5, CR5M): a stripe's parity update reads what it needs
            // itself (RMW pre-reads); pages bound at dispatch are placed by their die. No
            // separate merge is modelled for either (docs/SIMULATOR.md).
            return false;
        }
        let held = self.held.contains_key(&lpn.0);
        let old = self.ftl.lookup(lpn);
        let p = self.partial.as_mut().expect("partial writes");
        let merge = p.decide(lpn, m, held, old.is_some());
        if merge == Merge::None {
            return false;
        }
        // The version waits in the controller: reads of the page are served from it.
        self.note_content_write(token);
        self.park_seq += 1;
        let seq = self.park_seq;
        if self.held.insert(lpn.0, (seq, token)).is_none() {
            self.raid_note_held(lpn, true);
        }
        self.note_written(lpn, token);
        let w = Waiter {
            req: id,
            token,
            seq,
        };
        let p = self.partial.as_mut().expect("partial writes");
        p.reading.entry(lpn.0).or_default().push(w);
        if merge == Merge::Read {
            let ppn = old.expect("a mapped page");
            self.ftl.pin(ppn);
            let die = self.geom.die_of_page(ppn);
            let mut t = self.queued_txn(FlashOp::Read, TxnReason::MergeRead, ppn, die, lpn, id);
            t.expect = self.ftl.token(ppn);
            let t = self.txns.insert(t);
            self.note_waiting_read(t, ppn);
            txns.push(t);
        }
        true
    }

    /// Merge read `t` completed: the newest waiting version of its page is programmed,
    /// the older ones are done with nothing to program.
    pub(in crate::sim) fn merge_read_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        let found = self.ftl.token(txn.ppn);
        if self.verify.is_some() && found != txn.expect && self.error.is_none() {
            // The page was moved or erased under its read: a pinning fault.
            self.error = Some(crate::SimError::VerifyMismatch {
                lpn: txn.lpn.0,
                expected: txn.expect,
                found,
                at_ns: self.now().as_ns(),
            });
        }
        self.ftl.unpin(txn.ppn);
        self.gc_page_released(txn.ppn);
        let waiters = self
            .partial
            .as_mut()
            .expect("partial writes")
            .reading
            .remove(&txn.lpn.0)
            .unwrap_or_default();
        let service = txn.bus_ns + txn.array_ns;
        let mut txns = std::mem::take(&mut self.scratch);
        for w in waiters {
            if self.held.get(&txn.lpn.0).map(|h| h.0) != Some(w.seq) {
                // Superseded while it waited.
                self.sub_done(w.req, service, 0);
                continue;
            }
            txns.clear();
            // Content accounting was done when the write began to wait.
            self.place_host_write(w.req, txn.lpn, w.token, &mut txns);
            if !txns.is_empty() {
                let n = txns.len() as u32;
                self.reqs[w.req].flash_txns += n;
                self.submit_txns(w.req, &txns);
            }
        }
        self.scratch = txns;
        self.settle_placement();
        self.run_gc_checks();
    }

    /// Counters of partial-page writes, for the report.
    pub(in crate::sim) fn partial_counters(&self) -> Vec<(Counter, u64)> {
        self.partial.as_ref().map_or_else(Vec::new, |p| {
            vec![
                (Counter::PartialWritePages, p.partial_pages),
                (Counter::MergeReads, p.merge_reads),
                (Counter::MergedInController, p.merged_in_controller),
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: u32 = 16_384;

    #[test]
    fn units_are_sectors_up_to_32_kib_pages_and_64ths_above() {
        let u = Units::new(PAGE);
        assert_eq!(u.full(), (1 << 32) - 1);
        assert_eq!(u.of_request(0, 512, 16_384, 0), 1);
        assert_eq!(u.of_request(1024, 1024, 16_384, 0), 0b1100);
        // Bytes 1023 and 1024: sectors 1 and 2.
        assert_eq!(u.of_request(1023, 2, 16_384, 0), 0b110);
        // The second page of a request that starts 1 KiB before a page boundary.
        assert_eq!(u.of_request(16_384 - 1024, 2048, 16_384, 1), 0b11);
        assert_eq!(u.of_request(0, 16_384, 16_384, 0), u.full());
        let big = Units::new(65_536);
        assert_eq!(big.full(), u64::MAX);
        assert_eq!(big.of_request(0, 1024, 65_536, 0), 1);
        assert_eq!(big.of_request(0, 65_536, 65_536, 0), u64::MAX);
    }

    #[test]
    fn a_whole_page_or_a_first_write_needs_no_read() {
        let mut p = PartialWrites::new(PAGE, 8);
        let full = p.units.full();
        assert_eq!(p.decide(Lpn(1), full, false, true), Merge::None);
        // Never written: nothing on flash to merge with.
        assert_eq!(p.decide(Lpn(2), 0b1, false, false), Merge::None);
        // Written before, but only the units this write covers again.
        assert_eq!(p.decide(Lpn(2), 0b1, false, true), Merge::None);
        assert_eq!(p.merge_reads, 0);
    }

    #[test]
    fn a_write_of_part_of_a_written_page_reads_it_first() {
        let mut p = PartialWrites::new(PAGE, 8);
        assert_eq!(p.decide(Lpn(3), 0b01, false, false), Merge::None);
        assert_eq!(p.decide(Lpn(3), 0b10, false, true), Merge::Read);
        assert_eq!(p.merge_reads, 1);
        // Its page is read; until that ends a second partial write joins.
        p.reading.insert(3, Vec::new());
        assert_eq!(p.decide(Lpn(3), 0b100, false, true), Merge::Join);
        assert_eq!(p.merge_reads, 1);
        assert_eq!(p.merged_in_controller, 1);
        // A whole-page write never waits.
        assert_eq!(p.decide(Lpn(3), p.units.full(), false, true), Merge::None);
    }

    #[test]
    fn a_version_held_in_the_controller_merges_there() {
        let mut p = PartialWrites::new(PAGE, 8);
        p.decide(Lpn(4), p.units.full(), false, false);
        assert_eq!(p.decide(Lpn(4), 0b1, true, true), Merge::None);
        assert_eq!(p.merged_in_controller, 1);
        assert_eq!(p.merge_reads, 0);
    }

    #[test]
    fn dram_keeps_the_units_of_pages_it_holds_in_part() {
        let mut p = PartialWrites::new(PAGE, 8);
        let full = p.units.full();
        // Entered DRAM with one sector and no older version: partial.
        p.buffered(Lpn(5), 0b1, false);
        // Another sector merged in DRAM.
        p.buffered(Lpn(5), 0b10, true);
        assert_eq!(p.merged_in_controller, 1);
        assert_eq!(p.destaged(Lpn(5)), 0b11);
        // Once destaged, the page is unknown to DRAM again: whole.
        assert_eq!(p.destaged(Lpn(5)), full);
        // A partial write onto a whole page DRAM holds keeps it whole.
        p.buffered(Lpn(6), full, false);
        p.buffered(Lpn(6), 0b1, true);
        assert_eq!(p.destaged(Lpn(6)), full);
        // A whole write replaces a partial page.
        p.buffered(Lpn(7), 0b1, false);
        p.buffered(Lpn(7), full, false);
        assert_eq!(p.destaged(Lpn(7)), full);
    }
}
