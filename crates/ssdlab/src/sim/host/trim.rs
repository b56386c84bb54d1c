//! Trims (deallocate): a host request that makes the device forget a range of pages.
//!
//! ```text
//!  trim of bytes [a, b) ─► the pages it covers whole: ⌈a/P⌉ .. ⌊b/P⌋ (P: the page size)
//!      each page: DRAM's version dropped (clean, dirty, or being programmed)
//!                 a version waiting for space or for its die (parked, unbound) dropped
//!                 FTL: unmapped, its flash page invalid (GC no longer copies it)
//!                 cached map: a mapped page's entry turns dirty (its translation page
//!                 is rewritten on eviction, like after a write)
//!                 verify: holds nothing; a read returns what a never-written page does
//!  ─► done at its admission (no flash work, no controller time)
//! ```
//!
//! A page the range covers only in part keeps its data: the mapping is per page, and
//! forgetting the sectors outside the range would lose data (NVMe lets a controller
//! deallocate less than asked; reads of the rest then return their old data or zeros,
//! both allowed). Trims run on a plain or DRAM-staged device, with DS-FTL's content
//! index, the SLC cache, dispatch-time binding, and chip failures without RAID; with
//! RAID or CR5M (parity and mirrors of trimmed pages) and with sector transfers
//! (`timing.transfer = "sectors"`, whose merge state is per sector) a trim is refused
//! with the configuration key named.

use super::super::txn::ReqId;
use super::super::{Event, Simulation};
use crate::error::SimError;
use ssdlab_nand::Lpn;
use ssdlab_trace::IoRequest;

impl Simulation {
    /// Why trim `io` (request number `request`) cannot run on this device, if it cannot.
    #[cold]
    pub(super) fn trim_refusal(&self, request: u64, io: &IoRequest) -> Option<SimError> {
        let capacity_bytes = self.logical_pages * u64::from(self.geom.page_size_bytes);
        if io.offset_bytes.saturating_add(io.size_bytes) > capacity_bytes {
            return Some(SimError::TrimPastEnd {
                request,
                offset_bytes: io.offset_bytes,
                size_bytes: io.size_bytes,
                capacity_bytes,
            });
        }
        let unsupported = |key: &str, value: &str| {
            Some(SimError::config(
                key,
                format!(
                    "the workload has trims, which are not supported with {key} = {value}; \
                     drop them (--discards drop, or trim_ratio = 0)"
                ),
            ))
        };
        if self.raid.is_some() {
            let level = self
                .cfg
                .raid
                .level
                .number()
                .map_or("none".into(), |n| n.to_string());
            return unsupported("raid.level", &level);
        }
        if self.partial.is_some() {
            return unsupported("timing.transfer", "\"sectors\"");
        }
        None
    }

    /// Carries out trim request `id`: every page its range covers whole is forgotten.
    /// It completes at once, by an event (a burst of trims queued behind one another
    /// completes one event at a time, not by recursion).
    pub(super) fn trim_request(&mut self, id: ReqId) {
        let page = u64::from(self.geom.page_size_bytes);
        let io = &self.reqs[id].io;
        let first = io.offset_bytes.div_ceil(page);
        let end = (io.offset_bytes + io.size_bytes) / page;
        for l in first..end {
            self.trim_page(Lpn(l as u32));
        }
        self.counters.trimmed_pages += end.saturating_sub(first);
        if self.dram.is_some() {
            // Flushes and FUA writes may have waited for pages the trim dropped, and
            // writes for the room they held.
            self.dram_trimmed();
        }
        self.events
            .schedule_in(ssdlab_engine::SimDuration(0), Event::DoneAtOnce(id));
    }

    /// Forgets host page `lpn`.
    fn trim_page(&mut self, lpn: Lpn) {
        if let Some(d) = self.dram.as_mut() {
            d.stage.discard(lpn);
        }
        // A version waiting for space (parked) or for its die (unbound) is superseded:
        // it is dropped when its turn comes.
        if !self.held.is_empty() {
            self.held.remove(&lpn.0);
        }
        self.forget_losses(lpn);
        if self.ftl.trim(lpn) && self.cmt.is_some() {
            // The entry changed (to unmapped): its translation page must be rewritten.
            self.cmt_mapped(lpn, false);
        }
        if let Some(v) = self.verify.as_mut() {
            v.trim(lpn);
        }
    }
}
