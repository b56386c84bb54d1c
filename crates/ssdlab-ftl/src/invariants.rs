//! The full consistency check of the FTL: O(pages + LPNs). Tests call it after every
//! step; it panics with a message naming the first broken rule and where.

use ssdlab_nand::{Lpn, PlaneId, Ppn};

use crate::block::{BlockState, NONE};
use crate::ftl::Ftl;
use crate::mapping::PageOwner;

impl Ftl {
    /// Checks every invariant of the mapping and the block manager; panics on the first
    /// broken one:
    ///
    /// * the forward map is injective and each mapped LPN's page names it in the reverse map;
    /// * every page naming an LPN is either where that LPN is mapped, or a pending GC copy;
    ///   GC copies in flight equal the sum of the blocks' moves-out counters;
    /// * per block: valid, pending and written counts match its pages; pages past the write
    ///   pointer are free with token 0; state-specific rules (free blocks are empty,
    ///   frontiers are partly written, full blocks are in the bucket of their valid count,
    ///   moves and GC copies in flight only while their plane's GC is active);
    /// * per plane: free pool = free blocks; free + open + full + under GC = blocks per plane;
    ///   at most one victim; erase-count min/max tracking; bucket lists well formed;
    /// * the sum of erase counts equals the erases performed;
    /// * with a content index: its members are exactly the mapped pages (each once, in
    ///   the bucket of its chip), groups hold two or more pages whose bucket counts and
    ///   links agree, and every unit's filter answers yes for every content it holds;
    /// * with the SLC cache: exactly the blocks in SLC mode are open, full or folded
    ///   SLC blocks, written to at most an SLC block's pages, every full one queued,
    ///   and a static region's blocks held plus kept free make its size.
    pub fn check_invariants(&self) {
        self.check_forward_map();
        let mut copies_in_flight = 0u64;
        for b in 0..self.geom.blocks() {
            copies_in_flight += self.check_block(b);
        }
        let moving_out: u64 = self
            .blocks
            .blocks
            .iter()
            .map(|m| u64::from(m.moving_out))
            .sum();
        assert_eq!(
            copies_in_flight, moving_out,
            "GC copies in flight vs moves-out counters"
        );
        for p in 0..self.geom.planes() {
            self.check_plane(PlaneId(p));
        }
        let erases: u64 = self
            .blocks
            .blocks
            .iter()
            .map(|m| u64::from(m.erase_count))
            .sum();
        assert_eq!(
            erases, self.erases_total,
            "sum of erase counts vs erases performed"
        );
        self.check_content_index();
        self.check_slc();
    }

    fn check_forward_map(&self) {
        for l in 0..self.map_entries() {
            let Some(ppn) = self.map.lookup(Lpn(l)) else {
                continue;
            };
            assert!(
                ppn.0 < self.geom.pages(),
                "lpn {l} maps beyond the device: {ppn}"
            );
            assert_eq!(
                self.map.owner(ppn),
                PageOwner::Lpn(Lpn(l)),
                "lpn {l} maps to {ppn}, whose reverse entry disagrees"
            );
            // Injectivity follows: a page names one LPN, and that LPN maps here.
            let b = self.geom.block_of_page(ppn);
            let m = &self.blocks.blocks[b.idx()];
            assert!(
                self.geom.page_in_block(ppn) < u32::from(m.write_ptr),
                "lpn {l} maps to {ppn}, beyond block {b}'s write pointer {}",
                m.write_ptr
            );
        }
    }

    /// Checks block `b`; returns its pages that are GC copies in flight.
    fn check_block(&self, b: u32) -> u64 {
        let ppb = self.geom.pages_per_block;
        let m = &self.blocks.blocks[b as usize];
        let (write_ptr, m_valid) = (u32::from(m.write_ptr), u32::from(m.valid));
        assert!(
            write_ptr <= ppb,
            "block {b}: write pointer {} > {ppb}",
            m.write_ptr
        );
        assert!(
            m_valid <= ppb,
            "block {b}: valid {} > pages_per_block",
            m.valid
        );
        assert!(
            m.valid <= m.write_ptr,
            "block {b}: valid {} > written {}",
            m.valid,
            m.write_ptr
        );
        let (mut valid, mut pending, mut copies) = (0, 0, 0u64);
        for i in 0..ppb {
            let ppn = Ppn(b * ppb + i);
            let owner = self.map.owner(ppn);
            let is_pending = self.map.is_pending(ppn);
            pending += u32::from(is_pending);
            if i >= write_ptr {
                assert_eq!(
                    owner,
                    PageOwner::Free,
                    "page {ppn} past block {b}'s write pointer"
                );
                assert_eq!(self.map.token(ppn), 0, "free page {ppn} has a token");
                assert!(!is_pending, "free page {ppn} is pending");
                continue;
            }
            match owner {
                PageOwner::Free => panic!("written page {ppn} of block {b} is free"),
                PageOwner::Invalid => {}
                PageOwner::Lpn(l) => {
                    assert!(
                        l.0 < self.map_entries(),
                        "page {ppn} names lpn {l} beyond the map"
                    );
                    valid += 1;
                    if self.map.lookup(l) != Some(ppn) {
                        assert!(
                            is_pending,
                            "page {ppn} holds lpn {l}, not mapped there, not a GC copy"
                        );
                        copies += 1;
                    }
                }
            }
        }
        assert_eq!(valid, m_valid, "block {b}: valid count vs pages");
        let pm = &self.blocks.planes[self.blocks.plane_of(b)];
        if copies > 0 {
            assert_ne!(
                pm.victim, NONE,
                "block {b} holds GC copies but its plane runs no GC"
            );
        }
        if m.moving_out > 0 {
            assert_eq!(
                m.state(),
                BlockState::UnderGc,
                "block {b} has moves out but is no victim"
            );
        }
        assert_eq!(
            pending,
            u32::from(m.pending),
            "block {b}: pending count vs pages"
        );
        self.check_block_state(b);
        copies
    }

    fn check_block_state(&self, b: u32) {
        let (ppb, m) = (self.geom.pages_per_block, &self.blocks.blocks[b as usize]);
        let pm = &self.blocks.planes[self.blocks.plane_of(b)];
        match m.state() {
            BlockState::Free | BlockState::Retired => {
                assert_eq!(m.write_ptr, 0, "free block {b} is written");
                assert_eq!(m.pins, 0, "free block {b} has pinned reads");
                assert_eq!(m.moving_out, 0, "free block {b} has moves out");
            }
            BlockState::HostOpen => {
                assert!(
                    pm.host_frontier == b
                        || pm.map_frontier == b
                        || self
                            .handles
                            .as_ref()
                            .is_some_and(|h| h.is_open(PlaneId(self.blocks.plane_of(b) as u32), b)),
                    "block {b} host-open but not the frontier"
                );
                assert!(u32::from(m.write_ptr) < ppb, "host frontier {b} is full");
            }
            BlockState::GcOpen => {
                let plane = PlaneId(self.blocks.plane_of(b) as u32);
                assert!(
                    pm.gc_frontier == b
                        || self
                            .handles
                            .as_ref()
                            .is_some_and(|h| h.is_gc_open(plane, b)),
                    "block {b} GC-open but not the frontier"
                );
                assert!(u32::from(m.write_ptr) < ppb, "GC frontier {b} is full");
            }
            BlockState::Full | BlockState::UnderGc | BlockState::SlcFull => {
                let cap = match &self.slc {
                    Some(s) if s.is_slc(b) => s.cap,
                    _ => ppb,
                };
                assert_eq!(
                    u32::from(m.write_ptr),
                    cap,
                    "block {b} is {:?} but not full",
                    m.state()
                );
            }
            BlockState::SlcOpen => {
                let cap = self.slc.as_ref().map_or(0, |s| s.cap);
                assert!(u32::from(m.write_ptr) < cap, "SLC frontier {b} is full");
            }
        }
        if m.state() == BlockState::UnderGc {
            assert_eq!(
                pm.victim, b,
                "block {b} under GC but not its plane's victim"
            );
        }
    }

    fn check_plane(&self, plane: PlaneId) {
        let bm = &self.blocks;
        let pm = &bm.planes[plane.idx()];
        let mut counts = [0u32; 8];
        for b in bm.blocks_of(plane) {
            counts[bm.blocks[b as usize].state() as usize] += 1;
        }
        let [free, host_open, gc_open, full, under_gc, slc_open, slc_full, retired] = counts;
        assert_eq!(
            free + host_open + gc_open + full + under_gc + slc_open + slc_full + retired,
            bm.bpp,
            "plane {plane}: block total"
        );
        assert_eq!(retired, pm.retired, "plane {plane}: retired blocks");
        assert_eq!(
            pm.free_blocks(),
            free,
            "plane {plane}: free pool vs free blocks"
        );
        for b in bm.fresh_blocks(plane) {
            let m = &bm.blocks[b as usize];
            assert_eq!(m.state(), BlockState::Free, "fresh block {b} not free");
            assert_eq!(m.erase_count, 0, "fresh block {b} was erased");
        }
        for &std::cmp::Reverse(key) in pm.free.iter() {
            let b = key as u32;
            assert_eq!(
                bm.plane_of(b),
                plane.idx(),
                "plane {plane}: foreign block {b} in pool"
            );
            assert_eq!(
                bm.blocks[b as usize].state(),
                BlockState::Free,
                "pooled block {b} not free"
            );
        }
        assert_eq!(
            host_open,
            u32::from(pm.host_frontier != NONE)
                + u32::from(pm.map_frontier != NONE)
                + self.handles.as_ref().map_or(0, |h| h.open_in(plane)),
            "plane {plane}: host frontier"
        );
        assert_eq!(
            gc_open,
            u32::from(pm.gc_frontier != NONE)
                + self.handles.as_ref().map_or(0, |h| h.gc_open_in(plane)),
            "plane {plane}: GC frontier"
        );
        assert_eq!(
            under_gc,
            u32::from(pm.victim != NONE),
            "plane {plane}: victims"
        );
        assert_eq!(full, pm.full_blocks, "plane {plane}: full-block count");
        let (min, n) = bm.erase_min_of(plane);
        assert_eq!(
            (pm.erase_min, pm.erase_min_blocks),
            (min, n),
            "plane {plane}: erase min"
        );
        let max = bm
            .blocks_of(plane)
            .map(|b| bm.blocks[b as usize].erase_count)
            .max();
        assert_eq!(Some(pm.erase_max), max, "plane {plane}: erase max");
        self.check_buckets(plane, full);
    }

    fn check_buckets(&self, plane: PlaneId, full: u32) {
        let bm = &self.blocks;
        let pm = &bm.planes[plane.idx()];
        let mut listed = 0;
        for v in 0..=bm.ppb {
            let mut prev = NONE;
            let mut b = bm.bucket_head(plane, v);
            while b != NONE {
                let m = &bm.blocks[b as usize];
                assert_eq!(
                    m.state(),
                    BlockState::Full,
                    "bucket {v} of plane {plane} holds {b}"
                );
                assert_eq!(
                    u32::from(m.valid),
                    v,
                    "block {b} in bucket {v} has {} valid",
                    m.valid
                );
                assert_eq!(m.prev, prev, "block {b}: broken back link");
                assert!(v >= pm.min_bucket, "plane {plane}: bucket {v} below hint");
                assert!(listed < full, "plane {plane}: bucket lists loop");
                listed += 1;
                prev = b;
                b = m.next;
            }
        }
        assert_eq!(
            listed, full,
            "plane {plane}: full blocks missing from buckets"
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{ftl_one_plane, small_cfg, write_done};
    use ssdlab_nand::Ppn;

    #[test]
    fn a_fresh_and_a_used_ftl_pass() {
        let mut f = ftl_one_plane(small_cfg());
        f.check_invariants();
        for i in 0..20 {
            write_done(&mut f, i % 7, i + 1);
        }
        f.check_invariants();
    }

    #[test]
    #[should_panic(expected = "valid count vs pages")]
    fn a_corrupted_valid_count_is_caught() {
        let mut f = ftl_one_plane(small_cfg());
        for l in [0, 1, 2, 3, 0] {
            write_done(&mut f, l, 1);
        }
        f.blocks.blocks[0].valid += 1;
        f.check_invariants();
    }

    #[test]
    #[should_panic(expected = "reverse entry disagrees")]
    fn a_corrupted_map_is_caught() {
        let mut f = ftl_one_plane(small_cfg());
        write_done(&mut f, 0, 1);
        write_done(&mut f, 1, 1);
        f.map.map(ssdlab_nand::Lpn(0), Ppn(1));
        f.check_invariants();
    }
}
