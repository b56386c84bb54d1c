//! The [`Ftl`] value: construction, lookups, host writes, trims and pins.
//! Garbage collection is in `collect.rs`, preconditioning in `precondition.rs`.

use ssdlab_engine::SimRng;
use ssdlab_nand::{BlockId, Geometry, Lpn, PlaneId, Ppn};

use crate::block::{BlockManager, BlockState, Stream, NONE};
use crate::config::FtlConfig;
use crate::content::ContentIndex;
use crate::error::FtlConfigError;
use crate::gc::{self, GcVictimPolicy};
use crate::mapping::{Mapping, PageOwner};
use crate::stats::{EraseSummary, FtlCounters, PlaneSummary};

/// A host write found no free page in its plane outside the GC reserve. The controller
/// parks the write until an erase in that plane frees a block (run GC there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("plane {plane} has no free page for host writes outside its GC reserve")]
pub struct NoSpace {
    /// The full plane.
    pub plane: PlaneId,
}

/// The page-mapped flash translation layer of one device: mapping, block manager and GC
/// bookkeeping, as pure data structures. See the crate docs for the protocol. A clone
/// copies the page tables; runs that start from one device share them instead
/// ([`Ftl::freeze`]).
#[derive(Clone)]
pub struct Ftl {
    pub(crate) geom: Geometry,
    pub(crate) map: Mapping,
    pub(crate) blocks: BlockManager,
    pub(crate) policy: Box<dyn GcVictimPolicy>,
    pub(crate) reserve_blocks: u32,
    pub(crate) gc_threshold_blocks: u32,
    pub(crate) bg_threshold_blocks: u32,
    pub(crate) background: bool,
    pub(crate) static_spread: u32,
    /// Pages allocated so far (host and GC): the age clock of cost-benefit.
    pub(crate) stamp: u64,
    /// Erases since construction, preconditioning included (= sum of erase counts).
    pub(crate) erases_total: u64,
    pub(crate) counters: FtlCounters,
    /// DS-FTL's content index (1-to-n map and fingerprint tables), when kept.
    pub(crate) content: Option<Box<ContentIndex>>,
    /// The last `slots` map entries are the controller's slots (see [`Ftl::with_slots`]).
    pub(crate) slots: u32,
    /// The SLC cache's region, when on ([`Ftl::enable_slc_cache`]).
    pub(crate) slc: Option<Box<crate::slc::SlcCache>>,
    /// Placement handles, when on ([`Ftl::enable_handles`]).
    pub(crate) handles: Option<Box<crate::handles::Handles>>,
    /// Host writes leave the plain path: the SLC cache or placement handles are on.
    pub(crate) detour: bool,
}

impl std::fmt::Debug for Ftl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ftl")
            .field("map_entries", &self.map.map_entries())
            .field("pages", &self.geom.pages())
            .field("policy", &self.policy)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Ftl {
    /// An empty FTL (every LPN unmapped, every block free and unworn) holding
    /// `map_entries` LPNs: the host's logical pages plus any the controller reserves
    /// (e.g. for parity). `rng` feeds the random victim policy.
    ///
    /// Errors: the first problem of [`FtlConfig::validate`], an invalid geometry, too few
    /// blocks per plane for the reserve, or more map entries than
    /// [`FtlConfig::max_map_entries`].
    pub fn new(
        cfg: &FtlConfig,
        geom: &Geometry,
        map_entries: u32,
        rng: SimRng,
    ) -> Result<Ftl, FtlConfigError> {
        Ftl::with_slots(cfg, geom, map_entries, 0, rng)
    }

    /// [`Ftl::new`] with `slots` more map entries after the `map_entries` ones: logical
    /// identities the controller gives to pages it keeps beside the host's and the
    /// redundancy's (CR5M's mirror copies and expired versions), so that GC moves them
    /// like any page. They are not counted against the capacity (the controller bounds
    /// how many hold a page) and preconditioning never writes them.
    ///
    /// Errors: as [`Ftl::new`], and `map_entries + slots` beyond `u32`.
    pub fn with_slots(
        cfg: &FtlConfig,
        geom: &Geometry,
        map_entries: u32,
        slots: u32,
        rng: SimRng,
    ) -> Result<Ftl, FtlConfigError> {
        if let Some(e) = cfg.validate().into_iter().next() {
            return Err(e);
        }
        if let Some(e) = geom.validate().into_iter().next() {
            return Err(e.into());
        }
        cfg.check_capacity(geom, u64::from(map_entries))?;
        let total = map_entries
            .checked_add(slots)
            .ok_or(FtlConfigError::MapTooLarge {
                map_entries: u64::from(map_entries) + u64::from(slots),
                max: u64::from(u32::MAX),
            })?;
        Ok(Ftl {
            geom: *geom,
            map: Mapping::new(total, geom.pages()),
            blocks: BlockManager::new(geom, cfg.wear_leveling.dynamic),
            policy: gc::build(cfg.gc.victim, rng),
            reserve_blocks: cfg.gc.reserve_blocks,
            gc_threshold_blocks: cfg.gc_threshold_blocks(geom),
            bg_threshold_blocks: cfg.bg_threshold_blocks(geom),
            background: cfg.gc.background,
            static_spread: cfg.wear_leveling.static_spread,
            stamp: 0,
            erases_total: 0,
            counters: FtlCounters::default(),
            content: None,
            slots,
            slc: None,
            handles: None,
            detour: false,
        })
    }

    /// The flash geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geom
    }

    /// LPNs the map holds.
    pub fn map_entries(&self) -> u32 {
        self.map.map_entries()
    }

    /// How many frozen tables the page tables read through to: one for a device frozen
    /// to be shared ([`Ftl::freeze`]) and one per [`Ftl::snapshot`] taken since.
    pub fn frozen_layers(&self) -> usize {
        self.map.frozen_layers()
    }

    /// Heap bytes held by the FTL's tables (committed lazily by the OS as pages are touched).
    pub fn heap_bytes(&self) -> u64 {
        let content = self
            .content_stats()
            .map_or(0, |s| s.index_bytes + s.filter_bytes);
        self.map.heap_bytes() + self.blocks.heap_bytes() + content
    }

    /// Where `lpn` lives (possibly a page still being programmed: see [`Ftl::is_pending`]).
    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        debug_assert!(lpn.0 < self.map_entries(), "lpn {lpn} beyond the map");
        self.map.lookup(lpn)
    }

    /// Asks the cache for what a request over the `n` LPNs from `first` reads first: their
    /// forward-map entries. For a request not yet admitted, so that its misses overlap
    /// the work before it. Out-of-range LPNs are ignored; nothing changes.
    #[inline]
    pub fn prefetch_lookups(&self, first: Lpn, n: u32) {
        self.map.prefetch_lookups(first.0, n);
    }

    /// Asks the cache for what a write of the `n` LPNs from `first` changes in the pages
    /// they leave: each page's reverse-map entry and its block's record. Best after
    /// [`Ftl::prefetch_lookups`] had time to bring in the forward-map entries it reads.
    /// (A read's pending bit and pin were measured: asking for them ahead gains nothing.)
    /// Nothing changes.
    #[inline]
    pub fn prefetch_overwrite(&self, first: Lpn, n: u32) {
        self.map.prefetch_overwrite(first.0, n, |p| {
            self.blocks.prefetch(self.geom.block_of_page(p).0);
        });
    }

    /// Asks the cache for the content token of the page `lpn` maps to, to be read soon
    /// (a pass over every LPN asks a few LPNs ahead, so that the random token reads
    /// overlap). Out-of-range or unmapped LPNs are ignored; nothing changes.
    #[inline]
    pub fn prefetch_lpn_token(&self, lpn: Lpn) {
        self.map.prefetch_lpn_token(lpn);
    }

    /// After [`Ftl::snapshot`]: every LPN whose page or data may differ from the
    /// snapshot's, in order (what an audit of the changes since must check); `None` when
    /// the tables do not sit over a snapshot or frozen device.
    pub fn changed_lpns(&self) -> Option<Vec<u32>> {
        self.map.changed_lpns()
    }

    /// The content token stored with `ppn` (0 = never written since its last erase).
    #[inline]
    pub fn token(&self, ppn: Ppn) -> u64 {
        self.map.token(ppn)
    }

    /// [`Ftl::set_token`] on the page `lpn` maps to; false (nothing done) if `lpn` is
    /// unmapped.
    ///
    /// # Panics
    /// If the page's program is still outstanding.
    pub fn set_lpn_token(&mut self, lpn: Lpn, token: u64) -> bool {
        if self.content.is_some() {
            let Some(p) = self.lookup(lpn) else {
                return false;
            };
            self.set_token(p, token);
            return true;
        }
        match self.map.set_lpn_token(lpn, token) {
            Some(p) => {
                assert!(
                    !self.is_pending(p),
                    "set_token: page {p} is still being programmed"
                );
                true
            }
            None => false,
        }
    }

    /// Sets the content of valid, programmed page `ppn` in zero time. Only for
    /// preconditioning: a layer above the FTL (RAID) that filled redundancy pages with
    /// placeholder content gives them their real content before the run starts.
    ///
    /// # Panics
    /// If `ppn` is not valid or its program is still outstanding.
    pub fn set_token(&mut self, ppn: Ppn, token: u64) {
        assert!(self.is_valid(ppn), "set_token: page {ppn} is not valid");
        assert!(
            !self.is_pending(ppn),
            "set_token: page {ppn} is still being programmed"
        );
        self.content_remove(ppn);
        self.map.set_token(ppn, token);
        self.content_insert(ppn, token);
    }

    /// Who `ppn` belongs to.
    #[inline]
    pub fn page_owner(&self, ppn: Ppn) -> PageOwner {
        self.map.owner(ppn)
    }

    /// True if the forward map points to `ppn` (the page holds its LPN's current data).
    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        self.map.is_mapped_here(ppn)
    }

    /// True while `ppn` is allocated and its program not yet done.
    ///
    /// The block's count of pending programs is asked first: it is zero for all but the
    /// few blocks being written, and a host read goes on to pin the same block record,
    /// so the bitset (another cache miss) is read only in a block with programs pending.
    #[inline]
    pub fn is_pending(&self, ppn: Ppn) -> bool {
        let b = self.geom.block_of_page(ppn);
        self.blocks.blocks[b.idx()].pending > 0 && self.map.is_pending(ppn)
    }

    /// A read is outstanding on `ppn`: its block must not be erased until [`Ftl::unpin`].
    /// The page may be invalidated meanwhile; the read still returns its token.
    ///
    /// A free `ppn` (nothing to read) is a caller's bug, caught in debug builds: the
    /// check reads the page's reverse-map entry, a cache miss per read in a release run.
    #[inline]
    pub fn pin(&mut self, ppn: Ppn) {
        debug_assert_ne!(
            self.map.owner(ppn),
            PageOwner::Free,
            "pinning free page {ppn}"
        );
        let b = self.geom.block_of_page(ppn);
        self.blocks.blocks[b.idx()].pins += 1;
    }

    /// The read pinned by [`Ftl::pin`] completed. Panics if the block has no pin.
    #[inline]
    pub fn unpin(&mut self, ppn: Ppn) {
        let b = self.geom.block_of_page(ppn);
        let blk = &mut self.blocks.blocks[b.idx()];
        assert!(
            blk.pins > 0,
            "unpin of page {ppn}: block {b} has no pinned read"
        );
        blk.pins -= 1;
    }

    /// Allocates a page for a host write of `lpn` in `plane` (chosen by the controller),
    /// from the plane's host frontier block (opening a free block when it is full: the
    /// least-worn with dynamic wear leveling, else the lowest-numbered one), but never
    /// one of the last `reserve_blocks` free blocks. Then invalidates `lpn`'s old page,
    /// maps `lpn` to the new page, stores `token` (non-zero by convention) and marks it
    /// pending until [`Ftl::program_done`].
    ///
    /// `Err(NoSpace)` leaves everything untouched.
    ///
    /// With the SLC cache on, the page is taken in the plane's SLC region while it has
    /// room (see [`Ftl::enable_slc_cache`]).
    #[inline(always)]
    pub fn host_write(&mut self, lpn: Lpn, plane: PlaneId, token: u64) -> Result<Ppn, NoSpace> {
        debug_assert!(lpn.0 < self.map_entries(), "lpn {lpn} beyond the map");
        if self.detour {
            return self.detour_host_write(lpn, plane, token);
        }
        let stamp = self.stamp + 1;
        let Some(ppn) = self
            .blocks
            .alloc(plane, Stream::Host, self.reserve_blocks, stamp)
        else {
            self.counters.no_space += 1;
            return Err(NoSpace { plane });
        };
        self.commit_host_write(lpn, ppn, token, stamp)
    }

    /// The rest of a host write whose page `ppn` was allocated at `stamp`.
    #[inline(always)]
    pub(crate) fn commit_host_write(
        &mut self,
        lpn: Lpn,
        ppn: Ppn,
        token: u64,
        stamp: u64,
    ) -> Result<Ppn, NoSpace> {
        self.stamp = stamp;
        if let Some(old) = self.map.lookup(lpn) {
            self.content_remove(old);
            self.invalidate(old);
        }
        self.map.program(ppn, lpn, token);
        self.map.map(lpn, ppn);
        self.content_insert(ppn, token);
        self.counters.host_pages_written += 1;
        Ok(ppn)
    }

    /// [`Ftl::host_write`] of translation page `slot` (a slot LPN: the slots' forward map
    /// is the cached map's directory) from `plane`'s translation-page frontier, which may
    /// take the GC reserve but its last block. Not counted as a host page.
    pub fn map_write(&mut self, slot: Lpn, plane: PlaneId, token: u64) -> Result<Ppn, NoSpace> {
        debug_assert!(slot.0 < self.map_entries(), "slot {slot} beyond the map");
        let stamp = self.stamp + 1;
        let Some(ppn) = self
            .blocks
            .alloc(plane, Stream::Map, self.reserve_blocks.min(1), stamp)
        else {
            return Err(NoSpace { plane });
        };
        self.stamp = stamp;
        // Translation pages are the controller's metadata: not in the content index.
        if let Some(old) = self.map.lookup(slot) {
            self.invalidate(old);
        }
        self.map.program(ppn, slot, token);
        self.map.map(slot, ppn);
        Ok(ppn)
    }

    /// The program into `ppn` completed. Panics if none was outstanding.
    #[inline]
    pub fn program_done(&mut self, ppn: Ppn) {
        assert!(
            self.map.clear_pending(ppn),
            "program_done({ppn}): no program outstanding"
        );
        self.blocks.program_done(self.geom.block_of_page(ppn).0);
    }

    /// Map entries that count against the capacity (all but the slots).
    pub fn counted_entries(&self) -> u32 {
        self.map_entries() - self.slots
    }

    /// Gives `from`'s page to `to` without any flash operation: `to` (unmapped) maps to
    /// the page, which now names `to`, and `from` is unmapped. The page keeps its token,
    /// its pending program and its pins; GC moves it as `to`'s from now on (a move of it
    /// in flight commits to `to`). False, and nothing changes, if `from` is unmapped.
    ///
    /// Panics if `to` is mapped.
    pub fn rename(&mut self, from: Lpn, to: Lpn) -> bool {
        assert!(self.map.lookup(to).is_none(), "rename onto mapped {to}");
        let Some(ppn) = self.map.lookup(from) else {
            return false;
        };
        self.map.set_owner(ppn, to);
        self.map.map(to, ppn);
        self.map.unmap(from);
        true
    }

    /// Unmaps `lpn` like [`Ftl::trim`], without counting a host trim: the controller
    /// drops a page of its own (a redundancy page or a slot).
    pub fn release(&mut self, lpn: Lpn) {
        if let Some(old) = self.map.lookup(lpn) {
            self.content_remove(old);
            self.invalidate(old);
            self.map.unmap(lpn);
        }
    }

    /// Unmaps `lpn`; its page, if any, becomes invalid. True when `lpn` was mapped.
    pub fn trim(&mut self, lpn: Lpn) -> bool {
        self.counters.trims += 1;
        if let Some(old) = self.map.lookup(lpn) {
            self.content_remove(old);
            self.invalidate(old);
            self.map.unmap(lpn);
            return true;
        }
        false
    }

    /// Marks a page holding LPN data invalid, in the tables and in its block's count.
    #[inline]
    pub(crate) fn invalidate(&mut self, ppn: Ppn) {
        self.map.invalidate(ppn);
        self.blocks.invalidate(self.geom.block_of_page(ppn).0);
    }

    /// Free blocks of `plane` (reserve included).
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.blocks.free_blocks(plane)
    }

    /// The life-cycle state of `block`.
    pub fn block_state(&self, block: BlockId) -> BlockState {
        self.blocks.blocks[block.idx()].state()
    }

    /// Erases of `block` so far.
    pub fn erase_count(&self, block: BlockId) -> u32 {
        self.blocks.blocks[block.idx()].erase_count
    }

    /// Pages of `block` holding LPN data (GC copies in flight included).
    pub fn valid_pages(&self, block: BlockId) -> u32 {
        u32::from(self.blocks.blocks[block.idx()].valid)
    }

    /// Event counters.
    pub fn counters(&self) -> &FtlCounters {
        &self.counters
    }

    /// Erase counts over all blocks.
    pub fn erase_count_summary(&self) -> EraseSummary {
        EraseSummary::of(self.blocks.blocks.iter().map(|b| b.erase_count))
    }

    /// Free blocks, valid and invalid pages of `plane` (a scan of its blocks).
    pub fn plane_state(&self, plane: PlaneId) -> PlaneSummary {
        let mut s = PlaneSummary {
            free_blocks: self.blocks.free_blocks(plane),
            gc_active: self.blocks.planes[plane.idx()].victim != NONE,
            ..PlaneSummary::default()
        };
        for b in self.blocks.blocks_of(plane) {
            let m = &self.blocks.blocks[b as usize];
            s.valid_pages += u64::from(m.valid);
            s.invalid_pages += u64::from(m.write_ptr - m.valid);
            s.free_pages += u64::from(self.geom.pages_per_block - u32::from(m.write_ptr));
        }
        s
    }

    /// Sum of [`Ftl::plane_state`] over all planes (`gc_active` if any plane's is).
    pub fn device_state(&self) -> PlaneSummary {
        let mut t = PlaneSummary::default();
        for p in 0..self.geom.planes() {
            let s = self.plane_state(PlaneId(p));
            t.free_blocks += s.free_blocks;
            t.valid_pages += s.valid_pages;
            t.invalid_pages += s.invalid_pages;
            t.free_pages += s.free_pages;
            t.gc_active |= s.gc_active;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ftl_one_plane, small_cfg};
    use crate::token_for;

    #[test]
    fn write_maps_and_overwrite_invalidates() {
        let mut f = ftl_one_plane(small_cfg());
        let p = PlaneId(0);
        let a = f.host_write(Lpn(3), p, 10).unwrap();
        assert_eq!(f.lookup(Lpn(3)), Some(a));
        assert!(f.is_pending(a));
        assert_eq!(f.token(a), 10);
        f.program_done(a);
        assert!(!f.is_pending(a));
        assert!(f.is_valid(a));
        let b = f.host_write(Lpn(3), p, 11).unwrap();
        assert_eq!(f.lookup(Lpn(3)), Some(b));
        assert_eq!(f.page_owner(a), PageOwner::Invalid);
        assert_eq!(f.token(a), 10, "stale data stays readable by a pinned read");
        let s = f.plane_state(p);
        assert_eq!((s.valid_pages, s.invalid_pages), (1, 1));
        f.check_invariants();
        f.trim(Lpn(3));
        assert_eq!(f.lookup(Lpn(3)), None);
        f.trim(Lpn(2));
        assert_eq!(f.counters().trims, 2);
        f.program_done(b);
        f.check_invariants();
    }

    #[test]
    fn host_writes_never_take_the_reserve() {
        let mut f = ftl_one_plane(small_cfg()); // 8 blocks × 4 pages, reserve 2
        let p = PlaneId(0);
        assert_eq!(f.free_pages_in_plane(p), 24);
        for i in 0..24 {
            let ppn = f.host_write(Lpn(i % 16), p, token_for(Lpn(i), 1)).unwrap();
            f.program_done(ppn);
        }
        assert_eq!(f.free_pages_in_plane(p), 0);
        assert_eq!(f.free_blocks(p), 2);
        let before = f.lookup(Lpn(0));
        assert_eq!(f.host_write(Lpn(0), p, 99), Err(NoSpace { plane: p }));
        assert_eq!(f.lookup(Lpn(0)), before, "a refused write changes nothing");
        assert_eq!(f.counters().no_space, 1);
        assert_eq!(f.free_blocks(p), 2);
        assert!(f.gc_needed(p));
        f.check_invariants();
    }

    #[test]
    fn next_host_offset_follows_the_frontier_across_blocks() {
        let mut f = ftl_one_plane(small_cfg()); // 4 pages per block
        let p = PlaneId(0);
        let mut seen = Vec::new();
        for l in 0..6 {
            seen.push(f.next_host_offset(p));
            let ppn = f.host_write(Lpn(l), p, token_for(Lpn(l), 1)).unwrap();
            assert_eq!(f.geometry().page_in_block(ppn), seen[l as usize]);
            f.program_done(ppn);
        }
        assert_eq!(seen, [0, 1, 2, 3, 0, 1]);
    }

    #[test]
    fn pages_before_gc_counts_down_to_the_threshold() {
        let mut f = ftl_one_plane(small_cfg()); // 8 blocks × 4 pages, GC below 3 free blocks
        let p = PlaneId(0);
        assert_eq!(f.pages_before_gc(p), 5 * 4);
        write_done_at(&mut f, 0);
        assert_eq!(f.pages_before_gc(p), 3 + 4 * 4);
        for l in 1..20 {
            write_done_at(&mut f, l % 16);
        }
        assert_eq!(f.pages_before_gc(p), 0);
        assert!(
            !f.gc_needed(p),
            "the last block above the threshold is just full"
        );
        write_done_at(&mut f, 3);
        assert!(f.gc_needed(p));
    }

    fn write_done_at(f: &mut Ftl, lpn: u32) {
        let ppn = f
            .host_write(Lpn(lpn), PlaneId(0), token_for(Lpn(lpn), 1))
            .unwrap();
        f.program_done(ppn);
    }

    #[test]
    fn slots_are_outside_the_capacity_and_rename_moves_a_page_between_identities() {
        let g = crate::testutil::one_plane();
        let cfg = small_cfg();
        let max = cfg.max_map_entries(&g) as u32;
        // Slots beyond the capacity: accepted, and never preconditioned.
        let mut f = Ftl::with_slots(&cfg, &g, max, 40, SimRng::new(1)).unwrap();
        assert_eq!(f.map_entries(), max + 40);
        assert_eq!(f.counted_entries(), max);
        assert!(Ftl::with_slots(&cfg, &g, max + 1, 0, SimRng::new(1)).is_err());
        let slot = Lpn(max + 3);
        let p = f.host_write(Lpn(2), PlaneId(0), 7).unwrap();
        // A pending page renamed: it keeps its token and its program.
        assert!(f.rename(Lpn(2), slot));
        assert_eq!(f.lookup(Lpn(2)), None);
        assert_eq!(f.lookup(slot), Some(p));
        assert_eq!(f.page_owner(p), PageOwner::Lpn(slot));
        assert!(f.is_pending(p) && f.token(p) == 7);
        assert!(!f.rename(Lpn(2), Lpn(max)), "nothing to rename");
        f.program_done(p);
        let q = f.host_write(Lpn(2), PlaneId(0), 8).unwrap();
        f.program_done(q);
        assert_eq!(
            f.plane_state(PlaneId(0)).valid_pages,
            2,
            "both versions live"
        );
        f.check_invariants();
        f.release(slot);
        assert_eq!(f.lookup(slot), None);
        assert_eq!(f.page_owner(p), PageOwner::Invalid);
        assert_eq!(f.counters().trims, 0, "a release is no host trim");
        f.check_invariants();
    }

    #[test]
    fn a_page_renamed_while_gc_moves_it_lands_under_its_new_name() {
        let g = crate::testutil::one_plane();
        let mut f = Ftl::with_slots(&small_cfg(), &g, 16, 4, SimRng::new(1)).unwrap();
        let slot = Lpn(17);
        // Fill block 0 with LPNs 0..4, then overwrite LPN 0 so that it has an invalid page.
        for l in 0..4 {
            crate::testutil::write_done(&mut f, l, 1);
        }
        crate::testutil::write_done(&mut f, 0, 2);
        let victim = f.select_victim(PlaneId(0)).unwrap();
        let mut pages = Vec::new();
        f.victim_valid_pages(victim, &mut pages);
        let (src, lpn) = pages[0];
        assert_eq!(lpn, Lpn(1));
        let dst = f.gc_begin_move(src).unwrap();
        // LPN 1's page becomes a slot's (an expired version kept) while its copy is in flight.
        assert!(f.rename(Lpn(1), slot));
        assert!(f.gc_finish_move(src, dst));
        assert_eq!(f.lookup(slot), Some(dst));
        assert_eq!(f.page_owner(dst), PageOwner::Lpn(slot));
        assert_eq!(f.lookup(Lpn(1)), None);
        for &(src, _) in &pages[1..] {
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
        }
        assert!(f.erasable(victim), "the renamed page left the victim");
        f.erase_done(victim);
        f.check_invariants();
    }

    #[test]
    fn translation_pages_get_blocks_of_their_own_and_gc_moves_them_as_their_slot() {
        let g = crate::testutil::one_plane(); // 8 blocks × 4 pages, reserve 2
        let mut f = Ftl::with_slots(&small_cfg(), &g, 16, 2, SimRng::new(1)).unwrap();
        let (p, t0, t1) = (PlaneId(0), Lpn(16), Lpn(17));
        let d = crate::testutil::write_done(&mut f, 0, 1);
        let a = f.map_write(t0, p, 100).unwrap();
        assert_ne!(g.block_of_page(a), g.block_of_page(d), "own block");
        f.program_done(a);
        // Rewrites of translation page 0 fill the map block; page 1 once.
        for v in 1..4 {
            let x = f.map_write(t0, p, 100 + v).unwrap();
            f.program_done(x);
        }
        let b = f.map_write(t1, p, 200).unwrap();
        f.program_done(b);
        assert_eq!(f.valid_pages(g.block_of_page(a)), 1, "3 stale versions");
        f.check_invariants();
        // The translation block is the greedy victim: its valid page moves, and the
        // slot (the directory entry) follows it.
        let victim = f.select_victim(p).unwrap();
        assert_eq!(victim, g.block_of_page(a));
        let mut pages = Vec::new();
        f.victim_valid_pages(victim, &mut pages);
        assert_eq!(pages.len(), 1);
        let (src, lpn) = pages[0];
        assert_eq!(lpn, t0);
        let dst = f.gc_begin_move(src).unwrap();
        assert!(f.gc_finish_move(src, dst));
        assert_eq!(f.lookup(t0), Some(dst));
        assert_eq!(f.token(dst), 103);
        assert!(f.erasable(victim));
        f.erase_done(victim);
        assert_eq!(
            f.counters().host_pages_written,
            1,
            "translation pages are not host pages"
        );
        f.check_invariants();
    }

    #[test]
    #[should_panic(expected = "no program outstanding")]
    fn program_done_twice_panics() {
        let mut f = ftl_one_plane(small_cfg());
        let a = f.host_write(Lpn(0), PlaneId(0), 1).unwrap();
        f.program_done(a);
        f.program_done(a);
    }

    #[test]
    fn new_rejects_oversized_maps_and_bad_config() {
        let g = crate::testutil::one_plane();
        let cfg = small_cfg();
        let max = cfg.max_map_entries(&g) as u32;
        assert!(Ftl::new(&cfg, &g, max, SimRng::new(1)).is_ok());
        let e = Ftl::new(&cfg, &g, max + 1, SimRng::new(1)).unwrap_err();
        assert_eq!(e.key(), "ftl.over_provisioning");
        let mut bad = cfg.clone();
        bad.gc.reserve_blocks = 0;
        assert_eq!(
            Ftl::new(&bad, &g, 1, SimRng::new(1)).unwrap_err().key(),
            "ftl.gc.reserve_blocks"
        );
        let g0 = Geometry { channels: 0, ..g };
        assert_eq!(
            Ftl::new(&cfg, &g0, 1, SimRng::new(1)).unwrap_err().key(),
            "geometry"
        );
    }
}
