//! The block manager: per-block metadata, per-plane free pools, write frontiers,
//! valid-count buckets for greedy GC, and erase-count bookkeeping for wear leveling.
//!
//! Block life cycle:
//!
//! ```text
//!            open (host or GC frontier)          last page allocated
//!   Free ───────────────────────────────► Open ─────────────────────► Full
//!    ▲                                                                │ ▲
//!    │ erase_done                                 select_victim       │ │ gc_abandon
//!    └──────────────────────────────────── UnderGc ◄──────────────────┘ │
//!                                                  └────────────────────┘
//! ```
//!
//! Only `Full` blocks are victim candidates, and exactly those sit in the plane's bucket
//! lists: an intrusive doubly-linked list per valid-page count. Invalidating a page of a
//! full block moves it one bucket down in O(1); the greedy pick is the head of the lowest
//! non-empty bucket, found from a lower-bound hint, so it is O(1) amortized.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ssdlab_nand::{Geometry, PlaneId, Ppn};

pub(crate) use crate::meta::BlockMeta;
pub use crate::meta::BlockState;

/// "No block" in `u32` block links and frontier slots.
pub(crate) const NONE: u32 = u32::MAX;

/// Which frontier a page is allocated from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Host writes: never take the reserve.
    Host,
    /// GC moves: may take the reserve.
    Gc,
    /// Translation pages of the cached map: blocks of their own (open as `HostOpen`).
    Map,
}

/// Per-plane state.
#[derive(Clone, Debug)]
pub(crate) struct PlaneMeta {
    /// Free blocks erased at least once, smallest key first: `(erase_count << 32) |
    /// block` with dynamic wear leveling, `block` without.
    pub free: BinaryHeap<Reverse<u64>>,
    /// The plane's last `fresh` blocks are free and were never allocated. They are free
    /// blocks like those in `free` (their key is their index: erase count 0), kept as a
    /// count so that a fresh device's pools cost nothing per block.
    pub fresh: u32,
    pub host_frontier: u32,
    pub gc_frontier: u32,
    pub map_frontier: u32,
    /// The block under GC, or `NONE`: at most one GC runs per plane.
    pub victim: u32,
    /// Whether the last victim was a static wear-leveling pick.
    pub last_victim_wl: bool,
    /// Whether a move out of the current victim has begun (it may then not be abandoned).
    pub victim_moved: bool,
    /// No full block has fewer valid pages than this (a lower bound, not exact).
    pub min_bucket: u32,
    pub full_blocks: u32,
    /// Smallest erase count in the plane and how many blocks have it.
    pub erase_min: u32,
    pub erase_min_blocks: u32,
    pub erase_max: u32,
    /// Static SLC cache: blocks of the region not in SLC use now, kept free for it (the
    /// native side's GC threshold and host reserve count them as taken). 0 without it.
    pub slc_reserved: u32,
    /// The SLC region is full and holds a block to fold: the plane needs its collector.
    pub fold_due: bool,
    /// What the foreground GC test adds to the threshold: `slc_reserved`, and
    /// [`FOLD_DUE`] while `fold_due` (kept by [`PlaneMeta::sync_gc_extra`], so that the
    /// test stays one comparison).
    pub gc_extra: u32,
    /// Blocks retired as grown bad blocks (crate::retire).
    pub retired: u32,
}

/// Added to a plane's GC threshold while its SLC region waits for a fold: more free
/// blocks than any plane has.
pub(crate) const FOLD_DUE: u32 = 1 << 30;

impl PlaneMeta {
    /// Recomputes `gc_extra` after `slc_reserved` or `fold_due` changed.
    #[inline]
    pub fn sync_gc_extra(&mut self) {
        self.gc_extra = self.slc_reserved + if self.fold_due { FOLD_DUE } else { 0 };
    }

    /// Free blocks, fresh or erased.
    #[inline]
    pub fn free_blocks(&self) -> u32 {
        self.free.len() as u32 + self.fresh
    }
}

/// All blocks of the device.
#[derive(Clone, Debug)]
pub(crate) struct BlockManager {
    pub ppb: u32,
    pub bpp: u32,
    pub wl_dynamic: bool,
    pub blocks: Vec<BlockMeta>,
    pub planes: Vec<PlaneMeta>,
    /// `heads[plane × (ppb + 1) + valid]`: first full block with that many valid pages.
    pub heads: Vec<u32>,
}

impl BlockManager {
    /// Every block free and never erased.
    pub fn new(geom: &Geometry, wl_dynamic: bool) -> BlockManager {
        let (ppb, bpp) = (geom.pages_per_block, geom.blocks_per_plane);
        debug_assert!(
            ppb <= ssdlab_nand::MAX_PAGES_PER_BLOCK,
            "validated geometry"
        );
        let meta = BlockMeta::FRESH;
        let planes = (0..geom.planes())
            .map(|_| PlaneMeta {
                free: BinaryHeap::new(),
                fresh: bpp,
                host_frontier: NONE,
                gc_frontier: NONE,
                map_frontier: NONE,
                victim: NONE,
                last_victim_wl: false,
                victim_moved: false,
                min_bucket: ppb,
                full_blocks: 0,
                erase_min: 0,
                erase_min_blocks: bpp,
                erase_max: 0,
                slc_reserved: 0,
                fold_due: false,
                gc_extra: 0,
                retired: 0,
            })
            .collect();
        BlockManager {
            ppb,
            bpp,
            wl_dynamic,
            blocks: vec![meta; geom.blocks() as usize],
            planes,
            heads: vec![NONE; geom.planes() as usize * (ppb as usize + 1)],
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> u64 {
        let per_plane: usize = self.planes.iter().map(|p| p.free.capacity() * 8).sum();
        (self.blocks.capacity() * std::mem::size_of::<BlockMeta>()
            + self.planes.capacity() * std::mem::size_of::<PlaneMeta>()
            + per_plane
            + self.heads.capacity() * 4) as u64
    }

    #[inline]
    pub fn plane_of(&self, b: u32) -> usize {
        (b / self.bpp) as usize
    }

    /// Blocks of `plane`, as a range of global block indices.
    #[inline]
    pub fn blocks_of(&self, plane: PlaneId) -> std::ops::Range<u32> {
        plane.0 * self.bpp..(plane.0 + 1) * self.bpp
    }

    #[inline]
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.planes[plane.idx()].free_blocks()
    }

    /// The free blocks of `plane` that were never allocated.
    pub fn fresh_blocks(&self, plane: PlaneId) -> std::ops::Range<u32> {
        let end = (plane.0 + 1) * self.bpp;
        end - self.planes[plane.idx()].fresh..end
    }

    #[inline]
    fn free_key(&self, b: u32) -> u64 {
        if self.wl_dynamic {
            (u64::from(self.blocks[b as usize].erase_count) << 32) | u64::from(b)
        } else {
            u64::from(b)
        }
    }

    /// Allocates the next page of `plane`'s `stream` frontier, opening a free block if
    /// needed, but only while more than `reserve` blocks are free. The page counts as
    /// valid and pending at once. `None` = no space.
    // Inlined (it runs for every page written); opening a block is a call.
    #[inline(always)]
    pub fn alloc(
        &mut self,
        plane: PlaneId,
        stream: Stream,
        reserve: u32,
        stamp: u64,
    ) -> Option<Ppn> {
        let pm = &self.planes[plane.idx()];
        let frontier = match stream {
            Stream::Host => pm.host_frontier,
            Stream::Gc => pm.gc_frontier,
            Stream::Map => pm.map_frontier,
        };
        let b = if frontier != NONE {
            frontier
        } else {
            self.open_frontier(plane, stream, reserve)?
        };
        let blk = &mut self.blocks[b as usize];
        debug_assert!(
            u32::from(blk.write_ptr) < self.ppb,
            "frontier block {b} is full"
        );
        let ppn = b * self.ppb + u32::from(blk.write_ptr);
        blk.write_ptr += 1;
        blk.valid += 1;
        blk.pending += 1;
        blk.set_last_write(stamp);
        debug_assert!(
            u32::from(blk.valid) <= self.ppb,
            "block {b} valid > pages_per_block"
        );
        debug_assert!(blk.valid <= blk.write_ptr, "block {b} valid > written");
        if u32::from(blk.write_ptr) == self.ppb {
            blk.set_state(BlockState::Full);
            let pm = &mut self.planes[plane.idx()];
            match stream {
                Stream::Host => pm.host_frontier = NONE,
                Stream::Gc => pm.gc_frontier = NONE,
                Stream::Map => pm.map_frontier = NONE,
            }
            self.link(b);
        }
        Some(Ppn(ppn))
    }

    /// Opens the next free block of `plane` as `stream`'s frontier (see
    /// [`BlockManager::alloc`]); `None` when only the reserve is left.
    #[inline(never)]
    fn open_frontier(&mut self, plane: PlaneId, stream: Stream, reserve: u32) -> Option<u32> {
        let b = self.take_free(plane, reserve)?;
        let pm = &mut self.planes[plane.idx()];
        match stream {
            Stream::Host => pm.host_frontier = b,
            Stream::Gc => pm.gc_frontier = b,
            Stream::Map => pm.map_frontier = b,
        }
        self.blocks[b as usize].set_state(match stream {
            Stream::Host | Stream::Map => BlockState::HostOpen,
            Stream::Gc => BlockState::GcOpen,
        });
        Some(b)
    }

    /// Takes the next free block of `plane` out of its pool (the least worn with dynamic
    /// wear leveling, else the lowest index), still in state `Free`; `None` when only
    /// `reserve` blocks are left.
    pub fn take_free(&mut self, plane: PlaneId, reserve: u32) -> Option<u32> {
        let pm = &mut self.planes[plane.idx()];
        if pm.free.len() as u32 + pm.fresh <= reserve {
            return None;
        }
        // The smallest key of the pool: a fresh block's key is its index.
        let fresh = (plane.0 + 1) * self.bpp - pm.fresh;
        let b = match pm.free.peek() {
            Some(&Reverse(key)) if pm.fresh == 0 || key < u64::from(fresh) => {
                pm.free.pop();
                key as u32 // the low 32 bits are the block
            }
            _ if pm.fresh > 0 => {
                pm.fresh -= 1;
                fresh
            }
            _ => return None,
        };
        let blk = &self.blocks[b as usize];
        debug_assert_eq!(blk.state(), BlockState::Free, "opening block {b}");
        debug_assert_eq!(blk.write_ptr, 0, "opening block {b}");
        Some(b)
    }

    /// Pages left in `plane`'s host frontier block.
    #[inline]
    pub fn host_frontier_room(&self, plane: PlaneId) -> u32 {
        match self.planes[plane.idx()].host_frontier {
            NONE => 0,
            b => self.ppb - u32::from(self.blocks[b as usize].write_ptr),
        }
    }

    /// Asks the cache for block `b`'s record, to be written soon. Changes nothing.
    #[inline]
    pub fn prefetch(&self, b: u32) {
        crate::prefetch::ask(&self.blocks, b as usize, crate::prefetch::Soon::Written);
    }

    /// One page of block `b` stopped holding LPN data.
    #[inline]
    pub fn invalidate(&mut self, b: u32) {
        let blk = &mut self.blocks[b as usize];
        debug_assert!(
            blk.valid > 0,
            "invalidating a page of block {b} with no valid page"
        );
        blk.valid -= 1;
        if blk.state() == BlockState::Full {
            let old = u32::from(blk.valid) + 1;
            self.unlink(b, old);
            self.link(b);
        }
    }

    /// A program into block `b` completed.
    #[inline]
    pub fn program_done(&mut self, b: u32) {
        let blk = &mut self.blocks[b as usize];
        debug_assert!(
            blk.pending > 0,
            "program_done in block {b} with none pending"
        );
        blk.pending -= 1;
    }

    #[inline]
    fn bucket(&self, b: u32, valid: u32) -> usize {
        self.plane_of(b) * (self.ppb as usize + 1) + valid as usize
    }

    /// Pushes full block `b` on the bucket of its valid count.
    pub(crate) fn link(&mut self, b: u32) {
        let valid = u32::from(self.blocks[b as usize].valid);
        let at = self.bucket(b, valid);
        let head = self.heads[at];
        if head != NONE {
            self.blocks[head as usize].prev = b;
        }
        let blk = &mut self.blocks[b as usize];
        blk.prev = NONE;
        blk.next = head;
        self.heads[at] = b;
        let plane = self.plane_of(b);
        let pm = &mut self.planes[plane];
        pm.full_blocks += 1;
        pm.min_bucket = pm.min_bucket.min(valid);
    }

    /// Removes block `b` from the bucket of `valid` pages.
    fn unlink(&mut self, b: u32, valid: u32) {
        let BlockMeta { prev, next, .. } = self.blocks[b as usize];
        if prev == NONE {
            let at = self.bucket(b, valid);
            debug_assert_eq!(self.heads[at], b, "block {b} not at its bucket head");
            self.heads[at] = next;
        } else {
            self.blocks[prev as usize].next = next;
        }
        if next != NONE {
            self.blocks[next as usize].prev = prev;
        }
        let pm = self.plane_of(b);
        self.planes[pm].full_blocks -= 1;
    }

    /// Whether block `b` may become a GC victim: full (never a frontier, free or under GC).
    /// It may still hold pages whose host program is outstanding; no GC copy can be in
    /// flight into it, as copies exist only while their plane's GC is active.
    #[inline]
    pub fn is_candidate(&self, b: u32) -> bool {
        self.blocks[b as usize].state() == BlockState::Full
    }

    /// The full block of `plane` with the fewest valid pages, if it has fewer than
    /// `max_valid`: the head of the lowest non-empty bucket, found from a lower-bound hint.
    pub fn fewest_valid(&mut self, plane: PlaneId, max_valid: u32) -> Option<u32> {
        let base = plane.idx() * (self.ppb as usize + 1);
        let pm = &mut self.planes[plane.idx()];
        let mut v = pm.min_bucket;
        while v <= self.ppb {
            let head = self.heads[base + v as usize];
            if head != NONE {
                pm.min_bucket = v;
                return (v < max_valid).then_some(head);
            }
            v += 1;
        }
        pm.min_bucket = self.ppb;
        None
    }

    /// The first block of the bucket of `valid` pages in `plane` (for invariant checks).
    pub fn bucket_head(&self, plane: PlaneId, valid: u32) -> u32 {
        self.heads[plane.idx() * (self.ppb as usize + 1) + valid as usize]
    }

    /// Makes full block `b` its plane's GC victim.
    pub fn mark_victim(&mut self, b: u32, wl: bool) {
        let blk = self.blocks[b as usize];
        assert_eq!(
            blk.state(),
            BlockState::Full,
            "victim {b} is not a full block"
        );
        let pm = self.plane_of(b);
        assert_eq!(self.planes[pm].victim, NONE, "plane {pm} already runs a GC");
        self.unlink(b, u32::from(blk.valid));
        self.blocks[b as usize].set_state(BlockState::UnderGc);
        self.planes[pm].victim = b;
        self.planes[pm].last_victim_wl = wl;
        self.planes[pm].victim_moved = false;
    }

    /// Gives victim `b` back as a full block.
    pub fn abandon(&mut self, b: u32) {
        assert_eq!(
            self.blocks[b as usize].state(),
            BlockState::UnderGc,
            "abandoning block {b}"
        );
        let pm = self.plane_of(b);
        assert!(
            !self.planes[pm].victim_moved,
            "abandoning block {b} after moves out of it began: finish its GC instead"
        );
        self.blocks[b as usize].set_state(BlockState::Full);
        self.link(b);
        self.planes[pm].victim = NONE;
    }

    /// Whether victim `b` may be erased now.
    pub fn erasable(&self, b: u32) -> bool {
        let blk = &self.blocks[b as usize];
        blk.state() == BlockState::UnderGc
            && blk.valid == 0
            && blk.pins == 0
            && blk.pending == 0
            && blk.moving_out == 0
    }

    /// Erases victim `b` (caller checked [`BlockManager::erasable`]) and frees it.
    pub fn erase(&mut self, b: u32) {
        let blk = &mut self.blocks[b as usize];
        let old = blk.erase_count;
        blk.erase_count += 1;
        blk.write_ptr = 0;
        // A block doomed by a failed program or erase leaves service (crate::retire),
        // unless its plane would be left without a free block.
        let retire = blk.doomed() && self.planes[self.plane_of(b)].free_blocks() > 0;
        let blk = &mut self.blocks[b as usize];
        blk.set_state(if retire {
            BlockState::Retired
        } else {
            BlockState::Free
        });
        let key = self.free_key(b);
        let plane = self.plane_of(b);
        let pm = &mut self.planes[plane];
        if retire {
            pm.retired += 1;
        } else {
            pm.free.push(Reverse(key));
        }
        pm.victim = NONE;
        pm.erase_max = pm.erase_max.max(old + 1);
        if old == pm.erase_min {
            pm.erase_min_blocks -= 1;
            if pm.erase_min_blocks == 0 {
                self.rescan_erase_min(PlaneId(plane as u32));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{one_plane, tiny};

    /// Fills the next block of `plane`, programs done.
    fn fill_block(bm: &mut BlockManager, plane: PlaneId) -> u32 {
        let b = bm.alloc(plane, Stream::Host, 0, 1).unwrap().0 / bm.ppb;
        for _ in 1..bm.ppb {
            bm.alloc(plane, Stream::Host, 0, 1).unwrap();
        }
        for _ in 0..bm.ppb {
            bm.program_done(b);
        }
        b
    }

    #[test]
    fn block_meta_is_32_bytes_and_keeps_state_and_stamp_apart() {
        assert_eq!(std::mem::size_of::<BlockMeta>(), 32);
        let mut bm = BlockManager::new(&one_plane(), false);
        let m = &mut bm.blocks[0];
        assert_eq!((m.state(), m.last_write()), (BlockState::Free, 0));
        m.set_last_write((1 << 56) - 1);
        m.set_state(BlockState::UnderGc);
        assert_eq!(m.last_write(), (1 << 56) - 1);
        m.set_last_write(7);
        assert_eq!((m.state(), m.last_write()), (BlockState::UnderGc, 7));
    }

    #[test]
    fn frontier_fills_then_joins_its_bucket() {
        let g = one_plane();
        let mut bm = BlockManager::new(&g, true);
        let p = PlaneId(0);
        assert_eq!(bm.free_blocks(p), 8);
        let b = fill_block(&mut bm, p);
        assert_eq!(b, 0, "lowest index among equally worn blocks");
        assert_eq!(bm.blocks[0].state(), BlockState::Full);
        assert_eq!(bm.planes[0].host_frontier, NONE);
        assert_eq!(bm.bucket_head(p, 4), 0);
        bm.invalidate(0);
        bm.invalidate(0);
        assert_eq!(bm.bucket_head(p, 4), NONE);
        assert_eq!(bm.bucket_head(p, 2), 0);
        assert_eq!(bm.fewest_valid(p, 4), Some(0));
    }

    #[test]
    fn host_allocation_stops_at_the_reserve_gc_does_not() {
        let g = one_plane();
        let mut bm = BlockManager::new(&g, true);
        let p = PlaneId(0);
        for _ in 0..6 {
            fill_block(&mut bm, p);
        }
        assert_eq!(bm.free_blocks(p), 2);
        assert_eq!(bm.alloc(p, Stream::Host, 2, 1), None);
        assert!(bm.alloc(p, Stream::Gc, 0, 1).is_some());
        assert_eq!(bm.free_blocks(p), 1);
        assert_eq!(bm.blocks[6].state(), BlockState::GcOpen);
    }

    #[test]
    fn erase_returns_the_block_and_tracks_wear() {
        let g = one_plane();
        let mut bm = BlockManager::new(&g, true);
        let p = PlaneId(0);
        let b = fill_block(&mut bm, p);
        for _ in 0..4 {
            bm.invalidate(b);
        }
        bm.mark_victim(b, false);
        assert_eq!(bm.planes[0].victim, b);
        assert!(bm.erasable(b));
        bm.erase(b);
        assert_eq!(bm.blocks[b as usize].erase_count, 1);
        assert_eq!(bm.erase_spread(p), 1);
        assert_eq!(bm.erase_min_of(p), (0, 7));
        assert_eq!(bm.planes[0].victim, NONE);
        // Block 0 is now the most worn: dynamic WL opens block 1 next.
        assert_eq!(fill_block(&mut bm, p), 1);
    }

    #[test]
    fn without_dynamic_wl_the_lowest_index_opens_first() {
        let g = one_plane();
        let mut bm = BlockManager::new(&g, false);
        let p = PlaneId(0);
        let b = fill_block(&mut bm, p);
        for _ in 0..4 {
            bm.invalidate(b);
        }
        bm.mark_victim(b, false);
        bm.erase(b);
        assert_eq!(fill_block(&mut bm, p), 0);
    }

    #[test]
    fn buckets_keep_blocks_of_many_planes_apart() {
        let g = tiny();
        let mut bm = BlockManager::new(&g, true);
        let a = fill_block(&mut bm, PlaneId(3));
        let b = fill_block(&mut bm, PlaneId(3));
        let c = fill_block(&mut bm, PlaneId(5));
        bm.invalidate(b);
        assert_eq!(bm.fewest_valid(PlaneId(3), 5), Some(b));
        bm.invalidate(a);
        bm.invalidate(a);
        assert_eq!(bm.fewest_valid(PlaneId(3), 5), Some(a));
        assert_eq!(bm.fewest_valid(PlaneId(5), 5), Some(c));
        assert_eq!(
            bm.fewest_valid(PlaneId(5), 4),
            None,
            "block {c} has no invalid page"
        );
        assert_eq!(bm.fewest_valid(PlaneId(0), 5), None);
        assert_eq!(bm.planes[3].full_blocks, 2);
        assert_eq!(bm.least_worn_full(PlaneId(3)), Some(a));
    }
}
