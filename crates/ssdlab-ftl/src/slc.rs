//! The SLC cache's region (docs/NAND.md, *SLC cache*): which blocks are in SLC mode,
//! each plane's SLC frontier, and the FIFO of full SLC blocks waiting to be folded.
//!
//! ```text
//!  host write ──► SLC frontier (one page per wordline) ──► SlcFull ──► fold (the
//!      │            while the region has room                plane's collector moves
//!      │                                                     the valid pages into
//!      └─ region full: direct to the native frontier,        native blocks, erases)
//!         or wait for the plane's fold (`when_full`)
//! ```
//!
//! An SLC-mode block holds `pages_per_block / bits` pages, its first page indices. It
//! is never a GC candidate: folding is the plane's collector taking the oldest full SLC
//! block as its victim (`Ftl::select_victim`), its moves going to the GC frontier in
//! native mode, so that `bits` folded pages fill one wordline. Its erase returns the
//! block to the plane's pool (dynamic) and to the region's free blocks (static).

use std::collections::VecDeque;

use ssdlab_nand::{Geometry, PlaneId, Ppn, SlcCacheConfig, SlcMode, WhenFull};

use crate::block::{BlockManager, BlockState, NONE};

/// What the SLC cache did, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlcCounters {
    /// Host pages written into SLC-mode blocks.
    pub slc_pages_written: u64,
    /// Host pages written directly in native mode because the region was full.
    pub direct_pages_written: u64,
    /// Host writes refused while the region was full and a fold pending
    /// (`when_full = "wait"`; a write retried after each erase counts again).
    pub full_waits: u64,
    /// SLC blocks taken by folding.
    pub folds: u64,
    /// Pages folded (moved out of SLC blocks into native blocks).
    pub fold_pages_moved: u64,
    /// Erases of SLC-mode blocks.
    pub slc_erases: u64,
    /// SLC-mode blocks opened.
    pub slc_blocks_opened: u64,
    /// The most SLC-mode blocks held at once, over the device.
    pub peak_blocks_held: u64,
}

/// The SLC region of one device.
#[derive(Clone, Debug)]
pub(crate) struct SlcCache {
    pub mode: SlcMode,
    pub limit: u32,
    pub free_share: f64,
    pub when_full: WhenFull,
    pub idle_fold: bool,
    /// Pages of an SLC-mode block.
    pub cap: u32,
    /// The native side's GC threshold, in blocks: opening an SLC block never takes a
    /// plane below it.
    gc_threshold: u32,
    /// The GC reserve, in blocks: a static region never takes it.
    reserve: u32,
    /// Per plane: the SLC frontier block, or `NONE`.
    frontier: Vec<u32>,
    /// Per plane: blocks in SLC mode (open, full or being folded).
    held: Vec<u32>,
    /// Per plane: full SLC blocks, oldest first.
    full: Vec<VecDeque<u32>>,
    /// One bit per block: in SLC mode.
    mode_bits: Vec<u64>,
    held_total: u64,
    pub counters: SlcCounters,
}

impl SlcCache {
    /// The region for `cfg` on `geom` with cells of `bits` bits; a static region's
    /// blocks are counted as kept in every plane of `bm`.
    pub fn new(
        cfg: &SlcCacheConfig,
        geom: &Geometry,
        bits: u32,
        (gc_threshold, reserve): (u32, u32),
        bm: &mut BlockManager,
    ) -> SlcCache {
        let planes = geom.planes() as usize;
        if cfg.mode == SlcMode::Static {
            for pm in &mut bm.planes {
                pm.slc_reserved = cfg.blocks_per_plane;
                pm.sync_gc_extra();
            }
        }
        SlcCache {
            mode: cfg.mode,
            limit: cfg.blocks_per_plane,
            free_share: cfg.free_share,
            when_full: cfg.when_full,
            idle_fold: cfg.idle_fold,
            cap: SlcCacheConfig::pages_per_block(geom.pages_per_block, bits),
            gc_threshold,
            reserve,
            frontier: vec![NONE; planes],
            held: vec![0; planes],
            full: vec![VecDeque::new(); planes],
            mode_bits: vec![0; (geom.blocks() as usize).div_ceil(64)],
            held_total: 0,
            counters: SlcCounters::default(),
        }
    }

    /// Whether block `b` is in SLC mode.
    #[inline]
    pub fn is_slc(&self, b: u32) -> bool {
        self.mode_bits[(b / 64) as usize] >> (b % 64) & 1 == 1
    }

    /// Blocks of `plane` in SLC mode.
    pub fn held(&self, plane: PlaneId) -> u32 {
        self.held[plane.idx()]
    }

    /// Full SLC blocks of `plane` waiting to be folded.
    pub fn full_blocks(&self, plane: PlaneId) -> u32 {
        self.full[plane.idx()].len() as u32
    }

    /// Whether `plane` may open another SLC-mode block now.
    pub fn may_open(&self, bm: &BlockManager, plane: PlaneId) -> bool {
        let held = self.held[plane.idx()];
        if held >= self.limit {
            return false;
        }
        let free = bm.free_blocks(plane);
        match self.mode {
            SlcMode::Off => false,
            // The region's blocks are kept free for it (beside GC's reserve).
            SlcMode::Static => free > self.reserve,
            SlcMode::Dynamic => {
                let share = (self.free_share * f64::from(free + held)).floor() as u32;
                held < share && free > self.gc_threshold
            }
        }
    }

    /// Allocates the next page of `plane`'s SLC frontier, opening a block if the region
    /// has room; `None` when it is full. The page counts as valid and pending.
    pub fn alloc(&mut self, bm: &mut BlockManager, plane: PlaneId, stamp: u64) -> Option<Ppn> {
        let p = plane.idx();
        let b = match self.frontier[p] {
            NONE => {
                if !self.may_open(bm, plane) {
                    return None;
                }
                let b = bm.take_free(plane, 0)?;
                bm.blocks[b as usize].set_state(BlockState::SlcOpen);
                self.mode_bits[(b / 64) as usize] |= 1 << (b % 64);
                self.frontier[p] = b;
                self.held[p] += 1;
                self.held_total += 1;
                self.counters.slc_blocks_opened += 1;
                self.counters.peak_blocks_held =
                    self.counters.peak_blocks_held.max(self.held_total);
                if self.mode == SlcMode::Static {
                    bm.planes[p].slc_reserved -= 1;
                    bm.planes[p].sync_gc_extra();
                }
                b
            }
            b => b,
        };
        let blk = &mut bm.blocks[b as usize];
        let ppn = b * bm.ppb + u32::from(blk.write_ptr);
        blk.write_ptr += 1;
        blk.valid += 1;
        blk.pending += 1;
        blk.set_last_write(stamp);
        if u32::from(blk.write_ptr) == self.cap {
            blk.set_state(BlockState::SlcFull);
            self.frontier[p] = NONE;
            self.full[p].push_back(b);
        }
        self.counters.slc_pages_written += 1;
        Some(Ppn(ppn))
    }

    /// A host write found `plane`'s region full: whether it should wait for a fold
    /// (`when_full = "wait"` and a fold is pending or running there). Unless the
    /// policy is `"direct"` (fold when idle), marks the plane as needing its collector
    /// when it holds a block to fold.
    pub fn region_full(&mut self, bm: &mut BlockManager, plane: PlaneId) -> bool {
        let pending = !self.full[plane.idx()].is_empty();
        let pm = &mut bm.planes[plane.idx()];
        if pending && pm.victim == NONE && self.when_full != WhenFull::Direct {
            pm.fold_due = true;
            pm.sync_gc_extra();
        }
        let folding = pm.victim != NONE && self.is_slc(pm.victim);
        let wait = self.when_full == WhenFull::Wait && (pending || folding);
        self.counters.full_waits += u64::from(wait);
        wait
    }

    /// Makes the oldest full SLC block of `plane` its collector's victim (no collection
    /// runs there); `None` if there is none.
    pub fn take_fold_victim(&mut self, bm: &mut BlockManager, plane: PlaneId) -> Option<u32> {
        let p = plane.idx();
        debug_assert_eq!(bm.planes[p].victim, NONE, "plane {plane} already collects");
        let b = self.full[p].pop_front()?;
        debug_assert_eq!(bm.blocks[b as usize].state(), BlockState::SlcFull);
        bm.blocks[b as usize].set_state(BlockState::UnderGc);
        let pm = &mut bm.planes[p];
        pm.victim = b;
        pm.last_victim_wl = false;
        pm.victim_moved = false;
        pm.fold_due = false;
        pm.sync_gc_extra();
        self.counters.folds += 1;
        Some(b)
    }

    /// Gives fold victim `b` back before any move out of it began: it waits first in line.
    pub fn abandon(&mut self, bm: &mut BlockManager, b: u32) {
        let p = bm.plane_of(b);
        assert!(
            !bm.planes[p].victim_moved,
            "abandoning fold of block {b} after moves out of it began"
        );
        bm.blocks[b as usize].set_state(BlockState::SlcFull);
        bm.planes[p].victim = NONE;
        self.full[p].push_front(b);
        self.counters.folds -= 1;
    }

    /// SLC block `b` was erased (its record already reset by the block manager): it
    /// leaves SLC mode.
    pub fn erased(&mut self, bm: &mut BlockManager, b: u32) {
        let p = bm.plane_of(b);
        self.mode_bits[(b / 64) as usize] &= !(1 << (b % 64));
        self.held[p] -= 1;
        self.held_total -= 1;
        self.counters.slc_erases += 1;
        if self.mode == SlcMode::Static {
            bm.planes[p].slc_reserved += 1;
            bm.planes[p].sync_gc_extra();
        }
    }

    /// Checks the region against the block manager (tests and invariant checks).
    pub fn check(&self, bm: &BlockManager) {
        for (p, pm) in bm.planes.iter().enumerate() {
            let blocks = bm.blocks_of(PlaneId(p as u32));
            let slc: Vec<u32> = blocks.clone().filter(|&b| self.is_slc(b)).collect();
            assert_eq!(slc.len() as u32, self.held[p], "plane {p}: SLC blocks held");
            for &b in &slc {
                let st = bm.blocks[b as usize].state();
                assert!(
                    matches!(
                        st,
                        BlockState::SlcOpen | BlockState::SlcFull | BlockState::UnderGc
                    ),
                    "SLC block {b} is {st:?}"
                );
                assert!(u32::from(bm.blocks[b as usize].write_ptr) <= self.cap);
            }
            for b in blocks {
                let st = bm.blocks[b as usize].state();
                if matches!(st, BlockState::SlcOpen | BlockState::SlcFull) {
                    assert!(self.is_slc(b), "block {b} is {st:?} but not in SLC mode");
                }
                if st == BlockState::SlcFull {
                    assert!(self.full[p].contains(&b), "full SLC block {b} not queued");
                }
            }
            if self.mode == SlcMode::Static {
                assert_eq!(
                    pm.slc_reserved + self.held[p],
                    self.limit,
                    "plane {p}: static region"
                );
            }
        }
    }
}

impl crate::Ftl {
    /// Turns the SLC cache on (docs/NAND.md, *SLC cache*): from now on host writes take
    /// SLC-mode pages of their plane's region while it has room, and each plane's
    /// collector folds full SLC blocks before it collects native ones (a static region
    /// lets native collection go first when the native side is short of space). `bits`
    /// is the native cell's bits per cell. Call it on a device before its run, after any
    /// preconditioning (which writes native blocks). The configuration was validated
    /// with the device's capacity (`ssdlab`'s config checks).
    pub fn enable_slc_cache(&mut self, cfg: &SlcCacheConfig, bits: u32) {
        assert!(
            cfg.is_on() && bits > 1,
            "an SLC cache needs a multi-bit cell"
        );
        let thresholds = (self.gc_threshold_blocks, self.reserve_blocks);
        let cache = SlcCache::new(cfg, &self.geom, bits, thresholds, &mut self.blocks);
        self.slc = Some(Box::new(cache));
        self.sync_detour();
    }

    /// Whether the SLC cache is on.
    #[inline]
    pub fn slc_on(&self) -> bool {
        self.slc.is_some()
    }

    /// Whether `block` is in SLC mode (false without the SLC cache).
    #[inline]
    pub fn is_slc_block(&self, block: ssdlab_nand::BlockId) -> bool {
        self.slc.as_ref().is_some_and(|s| s.is_slc(block.0))
    }

    /// What the SLC cache did, when on.
    pub fn slc_counters(&self) -> Option<SlcCounters> {
        self.slc.as_ref().map(|s| s.counters)
    }

    /// SLC-mode blocks `plane` holds now (0 without the cache).
    pub fn slc_blocks_held(&self, plane: PlaneId) -> u32 {
        self.slc.as_ref().map_or(0, |s| s.held(plane))
    }

    /// Pages an SLC-mode block holds (0 without the cache).
    pub fn slc_pages_per_block(&self) -> u32 {
        self.slc.as_ref().map_or(0, |s| s.cap)
    }

    /// [`Ftl::host_write`] with the SLC cache on: the page is the SLC region's next one,
    /// or, when the region is full, the native frontier's (`when_full = "direct"`, or no
    /// fold to wait for) or none (wait for the fold).
    #[inline(never)]
    pub(crate) fn slc_host_write(
        &mut self,
        lpn: ssdlab_nand::Lpn,
        plane: PlaneId,
        token: u64,
    ) -> Result<Ppn, crate::NoSpace> {
        let stamp = self.stamp + 1;
        let Some(ppn) = self.slc_alloc(plane, stamp) else {
            self.counters.no_space += 1;
            return Err(crate::NoSpace { plane });
        };
        self.commit_host_write(lpn, ppn, token, stamp)
    }

    fn slc_alloc(&mut self, plane: PlaneId, stamp: u64) -> Option<Ppn> {
        let s = self.slc.as_deref_mut().expect("SLC cache on");
        if let Some(ppn) = s.alloc(&mut self.blocks, plane, stamp) {
            return Some(ppn);
        }
        if s.region_full(&mut self.blocks, plane) {
            return None;
        }
        let reserve = self.reserve_blocks + self.blocks.planes[plane.idx()].slc_reserved;
        let ppn = self
            .blocks
            .alloc(plane, crate::block::Stream::Host, reserve, stamp)?;
        s.counters.direct_pages_written += 1;
        Some(ppn)
    }

    /// The fold victim `select_victim` takes in `plane`, if one is due: the oldest full
    /// SLC block, unless a static region's native side needs collecting first (folding
    /// only consumes native space) and has a candidate.
    pub(crate) fn slc_fold_pick(&mut self, plane: PlaneId) -> Option<u32> {
        let s = self.slc.as_deref_mut()?;
        if s.full_blocks(plane) == 0 {
            return None;
        }
        let pm = &self.blocks.planes[plane.idx()];
        let native_short = pm.free_blocks() < self.gc_threshold_blocks + pm.slc_reserved;
        if s.mode == SlcMode::Static && native_short && !pm.fold_due {
            let ppb = self.blocks.ppb;
            if self.blocks.fewest_valid(plane, ppb).is_some() {
                return None;
            }
        }
        s.take_fold_victim(&mut self.blocks, plane)
    }

    /// Idle-time folding would help `plane`: the cache folds when idle, the plane holds
    /// a full SLC block, and its collector is free.
    pub fn slc_idle_fold_wanted(&self, plane: PlaneId) -> bool {
        self.blocks.planes[plane.idx()].victim == NONE
            && self
                .slc
                .as_ref()
                .is_some_and(|s| s.idle_fold && s.full_blocks(plane) > 0)
    }

    /// Checks the SLC region's bookkeeping against the blocks (a no-op without it).
    pub fn check_slc(&self) {
        if let Some(s) = &self.slc {
            s.check(&self.blocks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{token_for, Ftl, FtlConfig};
    use ssdlab_engine::SimRng;
    use ssdlab_nand::{BlockId, Lpn};

    const P: PlaneId = PlaneId(0);

    /// One plane of 16 blocks × 6 pages (TLC: 2 SLC pages per block), 40 LPNs.
    fn ftl(mode: SlcMode, blocks: u32, when_full: WhenFull) -> Ftl {
        let g = Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 16,
            pages_per_block: 6,
            page_size_bytes: 4096,
        };
        let cfg = FtlConfig {
            over_provisioning: 0.5,
            ..FtlConfig::default()
        };
        let mut f = Ftl::new(&cfg, &g, 40, SimRng::new(1)).unwrap();
        let slc = SlcCacheConfig {
            mode,
            blocks_per_plane: blocks,
            when_full,
            ..SlcCacheConfig::default()
        };
        f.enable_slc_cache(&slc, 3);
        f
    }

    fn write(f: &mut Ftl, lpn: u32, v: u32) -> Option<Ppn> {
        let ppn = f.host_write(Lpn(lpn), P, token_for(Lpn(lpn), v)).ok()?;
        f.program_done(ppn);
        f.check_invariants();
        Some(ppn)
    }

    /// Runs the plane's collector on its victim to the erase; returns the victim.
    fn collect(f: &mut Ftl) -> BlockId {
        let v = f.select_victim(P).expect("a victim");
        let mut pages = Vec::new();
        f.victim_valid_pages(v, &mut pages);
        for (src, lpn) in pages {
            let token = f.token(src);
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
            assert_eq!(f.lookup(lpn), Some(dst));
            assert_eq!(f.token(dst), token, "a folded page keeps its content");
        }
        assert!(f.erasable(v));
        f.erase_done(v);
        f.check_invariants();
        v
    }

    #[test]
    fn host_writes_fill_slc_blocks_of_one_page_per_wordline() {
        let mut f = ftl(SlcMode::Static, 2, WhenFull::Direct);
        let a = write(&mut f, 0, 1).unwrap();
        let b = write(&mut f, 1, 1).unwrap();
        let blk = f.geometry().block_of_page(a);
        assert!(f.is_slc_block(blk));
        assert_eq!(f.geometry().page_in_block(b), 1);
        assert_eq!(f.block_state(blk), BlockState::SlcFull, "2 pages fill it");
        let c = write(&mut f, 2, 1).unwrap();
        assert_ne!(f.geometry().block_of_page(c), blk);
        assert_eq!(f.slc_blocks_held(P), 2);
        assert_eq!(f.slc_pages_per_block(), 2);
        let n = f.slc_counters().unwrap();
        assert_eq!((n.slc_pages_written, n.slc_blocks_opened), (3, 2));
        assert!(!f.gc_needed(P), "the region still has a free page");
    }

    #[test]
    fn a_full_region_under_direct_fold_writes_direct_and_folds_its_oldest_block() {
        let mut f = ftl(SlcMode::Static, 2, WhenFull::DirectFold);
        for l in 0..4 {
            write(&mut f, l, 1);
        }
        let first = f.lookup(Lpn(0)).map(|p| f.geometry().block_of_page(p));
        let d = write(&mut f, 4, 1).unwrap();
        assert!(
            !f.is_slc_block(f.geometry().block_of_page(d)),
            "direct to TLC"
        );
        assert_eq!(f.slc_counters().unwrap().direct_pages_written, 1);
        assert!(
            f.gc_needed(P),
            "a full region holding a block to fold needs folding"
        );
        write(&mut f, 1, 2); // overwrites a page of the oldest SLC block
        let v = collect(&mut f);
        assert_eq!(Some(v), first, "the oldest full SLC block is folded first");
        assert!(!f.is_slc_block(v) && f.block_state(v) == BlockState::Free);
        let n = f.slc_counters().unwrap();
        assert_eq!((n.folds, n.fold_pages_moved, n.slc_erases), (1, 1, 1));
        assert_eq!(f.counters().gc_pages_moved, 0, "folds are not GC moves");
        assert_eq!(f.counters().gc_victims, 0);
        // The region has room again.
        let p = write(&mut f, 5, 1).unwrap();
        assert!(f.is_slc_block(f.geometry().block_of_page(p)));
    }

    #[test]
    fn a_full_region_under_direct_waits_for_idle_time_to_fold() {
        let mut f = ftl(SlcMode::Static, 2, WhenFull::Direct);
        for l in 0..5 {
            write(&mut f, l, 1);
        }
        let n = f.slc_counters().unwrap();
        assert_eq!((n.slc_pages_written, n.direct_pages_written), (4, 1));
        assert!(!f.gc_needed(P), "no fold in the foreground");
        assert!(f.slc_idle_fold_wanted(P), "idle time may fold");
        let v = collect(&mut f);
        assert!(!f.is_slc_block(v));
        assert_eq!(f.slc_counters().unwrap().folds, 1);
    }

    #[test]
    fn waiting_writes_are_refused_until_the_fold_erases() {
        let mut f = ftl(SlcMode::Static, 1, WhenFull::Wait);
        write(&mut f, 0, 1);
        write(&mut f, 1, 1);
        assert!(write(&mut f, 2, 1).is_none(), "waits for the fold");
        assert_eq!(f.slc_counters().unwrap().full_waits, 1);
        assert!(f.gc_needed(P));
        collect(&mut f);
        let p = write(&mut f, 2, 1).unwrap();
        assert!(f.is_slc_block(f.geometry().block_of_page(p)));
    }

    #[test]
    fn the_static_region_is_kept_free_of_native_data() {
        let mut f = ftl(SlcMode::Static, 4, WhenFull::Direct);
        assert_eq!(f.blocks.planes[0].slc_reserved, 4);
        // 16 blocks, threshold 3 (reserve 2 + 1): native GC is due below 3 + 4 free.
        write(&mut f, 0, 1);
        assert_eq!(f.blocks.planes[0].slc_reserved, 3);
        assert_eq!(f.free_blocks(P), 15);
        assert!(!f.gc_needed(P));
        // Fill the region and then native blocks until native GC is due.
        let mut l = 1;
        while !f.gc_needed(P) {
            write(&mut f, l % 40, 1);
            l += 1;
        }
        // Native GC is due exactly when the free blocks fall below the threshold plus
        // the region's blocks not in use: native data never took those.
        let reserved = f.blocks.planes[0].slc_reserved;
        assert_eq!(f.free_blocks(P), 3 + reserved - 1);
        assert_eq!(reserved + f.slc_blocks_held(P), 4);
    }

    #[test]
    fn a_dynamic_region_shrinks_as_the_plane_fills() {
        let mut f = ftl(SlcMode::Dynamic, 8, WhenFull::Direct);
        // 16 free blocks: the region may take min(8, 16 / 2) blocks of 2 pages.
        for l in 0..16 {
            let p = write(&mut f, l, 1).unwrap();
            assert!(f.is_slc_block(f.geometry().block_of_page(p)));
        }
        assert_eq!(f.slc_blocks_held(P), 8);
        let p = write(&mut f, 16, 1).unwrap();
        assert!(
            !f.is_slc_block(f.geometry().block_of_page(p)),
            "the region is full"
        );
        // Fold everything: the region empties; the folded and direct pages now hold
        // native blocks, so fewer blocks are free.
        while f.slc.as_ref().unwrap().full_blocks(P) > 0 {
            collect(&mut f);
        }
        assert_eq!(f.slc_blocks_held(P), 0);
        let free = f.free_blocks(P);
        assert!(free < 16);
        // Writes fill the region again, now to min(8, free / 2, free - 4) blocks: it
        // never takes the plane to its GC threshold (3 blocks).
        let mut l = 17;
        while f.slc_counters().unwrap().direct_pages_written == 1 {
            write(&mut f, l, 1);
            l += 1;
        }
        let want = 8.min(free / 2).min(free - 4);
        assert_eq!(f.slc_blocks_held(P), want);
        assert!(want < 8, "the region shrank: {want} blocks of {free} free");
        assert_eq!(f.slc_counters().unwrap().slc_erases, 8);
    }
}
