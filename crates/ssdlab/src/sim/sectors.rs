//! Sub-page transfers (`timing.transfer = "sectors"`; docs/SIMULATOR.md, "Sub-page
//! transfers").
//!
//! ```text
//!  request  [offset, offset + size) rounded out to 512-byte sectors
//!  pages    | first (partial) | whole | … | whole | last (partial) |
//!  host read from flash:  tR whole page, then the touched bytes on the bus (Txn::bus_ns)
//!  DRAM stage:            host-DRAM transfer of the touched bytes (dram::transfer)
//!  programs:              whole pages, always
//! ```
//!
//! With the default `"page"` nothing here runs: a transaction's `bus_ns` stays 0 until its grant (a
//! whole page's) and the DRAM stage is told of no short page.

use super::txn::{ReqId, TxnId};
use super::Simulation;
use crate::config::SimConfig;
use ssdlab_dram::CacheMode;
use ssdlab_nand::{Lpn, Transfer};

/// The unit a host addresses: a request's bytes are counted in whole sectors.
pub(crate) const SECTOR_BYTES: u64 = 512;

/// What moves fewer bytes than a page, fixed when the run is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sectors {
    /// Host reads from flash move only their sectors over the channel bus. Off with a
    /// `read-write` DRAM stage, which keeps the page a read brings (the whole page).
    pub reads: bool,
    /// A DRAM stage's host transfers count only the bytes a request moves.
    pub dram: bool,
}

impl Sectors {
    /// The sub-page transfers `cfg` asks for.
    pub fn of(cfg: &SimConfig) -> Self {
        let on = cfg.timing.transfer == Transfer::Sectors;
        Sectors {
            reads: on && cfg.cache.mode != CacheMode::ReadWrite,
            dram: on && cfg.cache.is_on(),
        }
    }
}

/// The bytes of page `i` (counted from the request's first page) of pages of `page`
/// bytes that a request of `size` bytes at byte `offset` touches, in whole sectors.
pub(crate) fn touched_bytes(offset: u64, size: u64, page: u64, i: u32) -> u64 {
    let s = u128::from(SECTOR_BYTES);
    let (offset, size, page) = (u128::from(offset), u128::from(size), u128::from(page));
    let start = offset / s * s;
    let end = (offset + size).div_ceil(s) * s;
    let page_start = (offset / page + u128::from(i)) * page;
    let lo = start.max(page_start);
    let hi = end.min(page_start + page);
    hi.saturating_sub(lo) as u64
}

impl Simulation {
    /// The bytes page `i` of request `id` does not touch: 0 but for a partial first or
    /// last page.
    #[inline(never)]
    pub(in crate::sim) fn untouched_bytes(&self, id: ReqId, i: u32) -> u32 {
        let r = &self.reqs[id];
        if i != 0 && i + 1 != r.pages {
            return 0;
        }
        let page = u64::from(self.geom.page_size_bytes);
        (page - touched_bytes(r.io.offset_bytes, r.io.size_bytes, page, i)) as u32
    }

    /// The host reads `txns` of request `id`, admitted for its pages `from..to` in page
    /// order (`timing.transfer = "sectors"`): the reads of its first and last page move
    /// only the bytes the request touches. Only those two pages can be partial, so the
    /// pages between cost nothing here. A page DRAM or the write buffer served has no
    /// read; a read that another page joined (`scheduler.merge`) stays whole.
    #[inline(never)]
    pub(in crate::sim) fn sector_reads(
        &mut self,
        id: ReqId,
        (from, to): (u32, u32),
        txns: &[TxnId],
    ) {
        let r = &self.reqs[id];
        let (pages, base) = (r.pages, r.first_lpn);
        // A request over the whole logical space and one page more reads one LPN as its
        // first and its last page: its reads are left whole.
        if u64::from(pages) > self.logical_pages {
            return;
        }
        let first = (from == 0).then(|| (0, txns[0]));
        let last = (to == pages).then(|| (pages - 1, txns[txns.len() - 1]));
        for (i, t) in [first, last].into_iter().flatten() {
            let lpn = Lpn(((base + u64::from(i)) % self.logical_pages) as u32);
            self.sector_read(id, i, lpn, t);
        }
    }

    /// Read `t`, if it is page `i` (LPN `lpn`) of request `id`'s own read, moves only
    /// the bytes the request touches of that page.
    fn sector_read(&mut self, id: ReqId, i: u32, lpn: Lpn, t: TxnId) {
        let txn = &self.txns[t];
        if txn.lpn != lpn || txn.req != id || self.has_followers(t) {
            return; // that page had no read of its own
        }
        let short = self.untouched_bytes(id, i);
        if short > 0 {
            let bytes = u64::from(self.geom.page_size_bytes - short);
            let ns = self.cfg.timing.bytes_transfer_ns(bytes);
            // A transfer of 0 ns (a bus of 0 ps a byte) is a page's too.
            self.txns[t].bus_ns = ns;
        }
    }

    /// The index of page `lpn` in request `id` when it is the request's first or last
    /// page, the only ones that can be partial (`None`: a page between them, or a
    /// request over more pages than the logical space, whose reads stay whole).
    fn edge_page(&self, id: ReqId, lpn: Lpn) -> Option<u32> {
        let r = &self.reqs[id];
        if u64::from(r.pages) > self.logical_pages {
            return None;
        }
        let base = r.first_lpn;
        [0, r.pages - 1]
            .into_iter()
            .find(|&i| self.folded_lpn(base + u64::from(i)) == Some(lpn))
    }

    /// A host read of page `lpn` of request `id` that waited for its translation page
    /// (`ftl.mapping = "cached"`) and now reads the flash with `t`: like a read admitted
    /// at once, it moves only the request's bytes of a partial first or last page.
    #[inline(never)]
    pub(in crate::sim) fn sector_read_resumed(&mut self, id: ReqId, lpn: Lpn, t: TxnId) {
        if let Some(i) = self.edge_page(id, lpn) {
            self.sector_read(id, i, lpn, t);
        }
    }

    /// The bytes of page `lpn` of host request `id` its DRAM transfer leaves out, for a
    /// read DRAM serves after it waited for its translation page: as
    /// [`Simulation::dram_short`] for a page served at admission.
    pub(in crate::sim) fn dram_short_resumed(&self, id: ReqId, lpn: Lpn) -> u32 {
        if !self.sectors.dram {
            return 0;
        }
        self.edge_page(id, lpn)
            .map_or(0, |i| self.untouched_bytes(id, i))
    }

    /// The bytes page `i` of host request `id` leaves out of its DRAM transfer: 0 unless
    /// transfers count sectors and the page is partial.
    #[inline]
    pub(in crate::sim) fn dram_short(&self, id: ReqId, i: u32) -> u32 {
        if self.sectors.dram {
            self.untouched_bytes(id, i)
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: u64 = 16_384;

    #[test]
    fn an_aligned_request_touches_whole_pages_and_a_small_one_its_own_bytes() {
        assert_eq!(touched_bytes(0, 2 * PAGE, PAGE, 0), PAGE);
        assert_eq!(touched_bytes(0, 2 * PAGE, PAGE, 1), PAGE);
        assert_eq!(touched_bytes(PAGE, 4096, PAGE, 0), 4096);
        assert_eq!(touched_bytes(PAGE + 8192, 4096, PAGE, 0), 4096);
    }

    #[test]
    fn an_unaligned_request_has_partial_first_and_last_pages() {
        // 20 KiB from 3 KiB into a page: 13 KiB of that page, 7 KiB of the next.
        let (offset, size) = (PAGE + 3072, 20_480);
        assert_eq!(touched_bytes(offset, size, PAGE, 0), PAGE - 3072);
        assert_eq!(touched_bytes(offset, size, PAGE, 1), 20_480 - (PAGE - 3072));
        // Three pages: the middle one whole.
        let (offset, size) = (PAGE - 512, PAGE + 1024);
        assert_eq!(touched_bytes(offset, size, PAGE, 0), 512);
        assert_eq!(touched_bytes(offset, size, PAGE, 1), PAGE);
        assert_eq!(touched_bytes(offset, size, PAGE, 2), 512);
    }

    #[test]
    fn bytes_are_counted_in_whole_sectors() {
        // One byte is one sector; 100 bytes across a sector boundary are two.
        assert_eq!(touched_bytes(7, 1, PAGE, 0), 512);
        assert_eq!(touched_bytes(500, 100, PAGE, 0), 1024);
        // A partial sector at the end of a page stays in that page.
        assert_eq!(touched_bytes(PAGE - 1, 2, PAGE, 0), 512);
        assert_eq!(touched_bytes(PAGE - 1, 2, PAGE, 1), 512);
    }

    #[test]
    fn the_end_of_the_address_space_does_not_overflow() {
        let offset = u64::MAX - 1023;
        assert_eq!(touched_bytes(offset, 1024, PAGE, 0), 1024);
    }
}
