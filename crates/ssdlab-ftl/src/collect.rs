//! The garbage-collection protocol the controller drives, one plane at a time:
//!
//! ```text
//! gc_needed / bg_gc_wanted ──► select_victim ──► victim_valid_pages
//!        for each (src, lpn):  gc_begin_move(src) ──► [GC read, GC program] ──► gc_finish_move
//!        when erasable(victim): [erase] ──► erase_done          (or gc_abandon before the first move)
//! ```
//!
//! Host writes, trims and reads may interleave anywhere. A host write of an LPN whose
//! move is in flight invalidates the source; the move then ends with the copy invalid and
//! the map untouched. A pinned read or an outstanding program keeps the victim from being
//! erased, and so does a move out of it still in flight (its source address must not be
//! reused before `gc_finish_move` compares the map with it). A GC ends (erase, or abandon
//! before its first move) only with none of its moves in flight, so GC copies in flight
//! exist only while their plane's GC is active and can never land in a later victim.

use ssdlab_nand::{BlockId, Lpn, PlaneId, Ppn};

use crate::block::{BlockState, Stream, NONE};
use crate::ftl::Ftl;
use crate::mapping::PageOwner;

impl Ftl {
    /// Foreground GC is due in `plane`: fewer free blocks than the threshold and no GC
    /// running there.
    ///
    /// With the SLC cache: also when the plane's SLC region is full and holds a block to
    /// fold, and a static region's free blocks count as taken.
    #[inline]
    pub fn gc_needed(&self, plane: PlaneId) -> bool {
        let pm = &self.blocks.planes[plane.idx()];
        pm.victim == NONE && pm.free_blocks() < self.gc_threshold_blocks + pm.gc_extra
    }

    /// `plane` has a full block with an invalid page: a GC started there would free
    /// space. (A plane that needs GC without one is full of valid data; it waits for
    /// writes elsewhere to invalidate some.)
    #[inline]
    pub fn gc_has_candidate(&mut self, plane: PlaneId) -> bool {
        let ppb = self.blocks.ppb;
        self.blocks.fewest_valid(plane, ppb).is_some()
            || self.slc.as_ref().is_some_and(|s| s.full_blocks(plane) > 0)
    }

    /// Background GC would help `plane`: enabled, fewer free blocks than the background
    /// target, and no GC running there (a static SLC region's kept blocks count as taken).
    #[inline]
    pub fn bg_gc_wanted(&self, plane: PlaneId) -> bool {
        let pm = &self.blocks.planes[plane.idx()];
        self.background
            && pm.victim == NONE
            && pm.free_blocks() < self.bg_threshold_blocks + pm.slc_reserved
    }

    /// Whether a GC is running in `plane`, and on which block.
    pub fn gc_victim(&self, plane: PlaneId) -> Option<BlockId> {
        match self.blocks.planes[plane.idx()].victim {
            NONE => None,
            b => Some(BlockId(b)),
        }
    }

    /// Chooses the next victim of `plane` and marks it under GC (the plane's GC is then
    /// active). Candidates are the full blocks: never a frontier, free or under-GC block.
    ///
    /// Static wear leveling goes first: when the plane's erase-count spread exceeds
    /// `static_spread` and the least-worn full block lags the most-worn block by more than
    /// that, it is the victim, even with no invalid page (at most every other victim, so a
    /// plane short of space still gains). Otherwise the configured policy picks, and no
    /// block without an invalid page is chosen. `None` if a GC already runs in the plane
    /// or there is no suitable block.
    pub fn select_victim(&mut self, plane: PlaneId) -> Option<BlockId> {
        let pm = &self.blocks.planes[plane.idx()];
        if pm.victim != NONE {
            return None;
        }
        if self.slc.is_some() {
            if let Some(b) = self.slc_fold_pick(plane) {
                return Some(BlockId(b));
            }
        }
        let wl = self.static_wl_pick(plane);
        let b = match wl {
            Some(b) => b,
            None => self.policy.pick(&mut self.blocks, plane, self.stamp)?,
        };
        debug_assert_eq!(
            self.blocks.plane_of(b),
            plane.idx(),
            "victim {b} outside plane"
        );
        self.blocks.mark_victim(b, wl.is_some());
        self.counters.gc_victims += 1;
        self.counters.wl_victims += u64::from(wl.is_some());
        Some(BlockId(b))
    }

    /// Makes `block` its plane's victim for a relocation (read reclaim: its data is
    /// moved for its bit errors, not for space), and says whether it could: no GC runs
    /// in the plane and the block is full (not open, free or an SLC-mode block). Not
    /// counted as a GC victim.
    pub fn select_victim_block(&mut self, block: BlockId) -> bool {
        let b = block.0;
        let pm = self.blocks.plane_of(b);
        if self.blocks.planes[pm].victim != NONE
            || self.blocks.blocks[b as usize].state() != BlockState::Full
            || self.is_slc_block(block)
        {
            return false;
        }
        self.blocks.mark_victim(b, false);
        true
    }

    /// The static wear-leveling victim of `plane`, if one is due.
    fn static_wl_pick(&self, plane: PlaneId) -> Option<u32> {
        let spread = self.static_spread;
        if spread == 0 || self.blocks.planes[plane.idx()].last_victim_wl {
            return None;
        }
        if self.blocks.erase_spread(plane) <= spread {
            return None;
        }
        let b = self.blocks.least_worn_full(plane)?;
        let lag =
            self.blocks.planes[plane.idx()].erase_max - self.blocks.blocks[b as usize].erase_count;
        (lag > spread).then_some(b)
    }

    /// Clears `out`, then lists the pages of `block` the map points to now, with their
    /// LPNs, in page order: the pages to move. No page of a victim can become valid later
    /// (no GC copy is in flight into a block when it is chosen). Pages whose host program
    /// is still outstanding are included: their token is known, and the controller orders
    /// the GC read after the program on the die.
    pub fn victim_valid_pages(&self, block: BlockId, out: &mut Vec<(Ppn, Lpn)>) {
        out.clear();
        let first = self.geom.page_of_block(block, 0).0;
        let written = u32::from(self.blocks.blocks[block.idx()].write_ptr);
        self.map.valid_pages(Ppn(first), written, out);
    }

    /// Starts moving `src` (a page of a block under GC): if the map still points to it,
    /// allocates `dst` in the same plane's GC frontier block (which may take the reserve),
    /// copies the token and the reverse map, and marks `dst` pending. The map still points
    /// to `src` until [`Ftl::gc_finish_move`]. `None` if `src` was invalidated meanwhile.
    ///
    /// Panics if `src`'s block is not under GC, or if the plane has no free block at all
    /// (the reserve guarantees one).
    pub fn gc_begin_move(&mut self, src: Ppn) -> Option<Ppn> {
        let b = self.geom.block_of_page(src);
        let state = self.blocks.blocks[b.idx()].state();
        assert_eq!(
            state,
            BlockState::UnderGc,
            "gc_begin_move({src}): block {b} not under GC"
        );
        let PageOwner::Lpn(lpn) = self.map.owner(src) else {
            return None;
        };
        if self.map.lookup(lpn) != Some(src) {
            return None;
        }
        let plane = self.geom.plane_of_block(b);
        let dst = self.gc_copy(src, lpn, plane);
        self.blocks.blocks[b.idx()].moving_out += 1;
        self.blocks.planes[plane.idx()].victim_moved = true;
        Some(dst)
    }

    /// Ends the move `src → dst` begun by [`Ftl::gc_begin_move`] (its program is done).
    /// If the map still points to `src` (under the LPN it had, or another one it was
    /// renamed to meanwhile, [`Ftl::rename`]), that LPN now points to `dst` and `src` is
    /// invalid: `true`. Otherwise (overwritten or trimmed meanwhile) `dst` becomes
    /// invalid and the map is untouched: `false`.
    pub fn gc_finish_move(&mut self, src: Ppn, dst: Ppn) -> bool {
        assert!(
            self.map.clear_pending(dst),
            "gc_finish_move: dst {dst} not pending"
        );
        let dst_block = self.geom.block_of_page(dst).0;
        self.blocks.program_done(dst_block);
        let src_block = self.geom.block_of_page(src).0;
        let src_meta = &mut self.blocks.blocks[src_block as usize];
        assert!(
            src_meta.moving_out > 0,
            "gc_finish_move: no move out of block {src_block}"
        );
        src_meta.moving_out -= 1;
        assert!(
            matches!(self.map.owner(dst), PageOwner::Lpn(_)),
            "gc_finish_move: dst {dst} holds no copy ({:?})",
            self.map.owner(dst)
        );
        // The source may have been renamed while it moved: the copy commits to the
        // identity the source has now.
        let now = match self.map.owner(src) {
            PageOwner::Lpn(l) if self.map.lookup(l) == Some(src) => Some(l),
            _ => None,
        };
        if let Some(lpn) = now {
            self.gc_commit(src, dst, lpn);
            true
        } else {
            self.invalidate(dst);
            self.counters.gc_moves_dropped += 1;
            false
        }
    }

    /// Allocates the copy of valid page `src` (data of `lpn`) in `plane`'s GC frontier
    /// block (which may take the reserve) and programs it: token and owner copied,
    /// pending. Panics if the plane has no free block at all.
    pub(crate) fn gc_copy(&mut self, src: Ppn, lpn: Lpn, plane: PlaneId) -> Ppn {
        self.stamp += 1;
        let got = if self.handles.is_some() {
            self.handle_gc_alloc(lpn, plane)
        } else {
            self.blocks.alloc(plane, Stream::Gc, 0, self.stamp)
        };
        let Some(dst) = got else {
            panic!("GC move of {src}: plane {plane} has no free block left for GC");
        };
        let token = self.map.token_of(src, lpn);
        self.map.program(dst, lpn, token);
        dst
    }

    /// Copy `dst` of `src` takes over `lpn`: the map points to it and `src` is invalid.
    pub(crate) fn gc_commit(&mut self, src: Ppn, dst: Ppn, lpn: Lpn) {
        self.content_replace(src, dst, lpn);
        self.map.set_owner(dst, lpn);
        self.invalidate(src);
        self.map.map(lpn, dst);
        match self.slc.as_deref_mut() {
            Some(s) if s.is_slc(self.geom.block_of_page(src).0) => {
                s.counters.fold_pages_moved += 1;
            }
            _ => {
                self.counters.gc_pages_moved += 1;
                self.handle_gc_copy(lpn);
            }
        }
    }

    /// The victim `block` may be erased now: under GC, no valid page, no pinned read, no
    /// outstanding program into it and no move out of it in flight.
    pub fn erasable(&self, block: BlockId) -> bool {
        self.blocks.erasable(block.0)
    }

    /// The erase of victim `block` completed: its erase count rises, it rejoins the free
    /// pool, and its plane's GC is over. Panics unless [`Ftl::erasable`].
    pub fn erase_done(&mut self, block: BlockId) {
        let m = self.blocks.blocks[block.idx()];
        assert_eq!(
            m.state(),
            BlockState::UnderGc,
            "erase_done({block}): not under GC"
        );
        assert_eq!(m.valid, 0, "erase_done({block}): valid pages left");
        assert_eq!(m.pins, 0, "erase_done({block}): pinned reads outstanding");
        assert_eq!(m.pending, 0, "erase_done({block}): programs outstanding");
        assert_eq!(m.moving_out, 0, "erase_done({block}): moves out in flight");
        if m.doomed() && self.spares_exhausted(self.geom.plane_of_block(block)) {
            // The spares have run out: the block stays in service (crate::retire).
            self.blocks.blocks[block.idx()].undoom();
        }
        self.map
            .erase(self.geom.page_of_block(block, 0), self.geom.pages_per_block);
        self.blocks.erase(block.0);
        self.erases_total += 1;
        self.counters.erases += 1;
        if let Some(s) = self.slc.as_deref_mut().filter(|s| s.is_slc(block.0)) {
            s.erased(&mut self.blocks, block.0);
        }
    }

    /// Gives the victim `block` back as a full block before any move out of it began (e.g.
    /// the controller defers the GC); its plane's GC is over.
    ///
    /// Panics once a move has begun: the moved pages already used GC frontier space, and
    /// giving the victim back without its erase would leak that space out of the reserve.
    pub fn gc_abandon(&mut self, block: BlockId) {
        match self.slc.as_deref_mut().filter(|s| s.is_slc(block.0)) {
            Some(s) => s.abandon(&mut self.blocks, block.0),
            None => self.blocks.abandon(block.0),
        }
        self.counters.gc_abandoned += 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{ftl_one_plane, small_cfg, write_done};
    use crate::{Ftl, VictimPolicy};
    use ssdlab_nand::{BlockId, Lpn, PlaneId};

    const P: PlaneId = PlaneId(0);

    /// Runs one whole GC in plane 0 with no interference; returns the victim.
    fn full_gc(f: &mut Ftl) -> Option<BlockId> {
        let v = f.select_victim(P)?;
        let mut pages = Vec::new();
        f.victim_valid_pages(v, &mut pages);
        for &(src, _) in &pages {
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
        }
        assert!(f.erasable(v));
        f.erase_done(v);
        f.check_invariants();
        Some(v)
    }

    #[test]
    fn a_relocation_victim_must_be_a_full_block_of_an_idle_plane() {
        let mut f = ftl_one_plane(small_cfg());
        // Blocks 0..3 full; two overwrites open block 4.
        for l in 0..16 {
            write_done(&mut f, l, 1);
        }
        for l in [0, 1] {
            write_done(&mut f, l, 2);
        }
        let open = f.lookup(Lpn(1)).map(|p| BlockId(p.0 / 4)).unwrap();
        assert!(!f.select_victim_block(open), "the open block");
        // A full block with no invalid page: greedy would never pick it.
        assert!(f.select_victim_block(BlockId(1)));
        assert_eq!(f.gc_victim(P), Some(BlockId(1)));
        assert!(!f.select_victim_block(BlockId(2)), "one job per plane");
        assert_eq!(f.counters().gc_victims, 0, "not a GC victim");
        let mut pages = Vec::new();
        f.victim_valid_pages(BlockId(1), &mut pages);
        assert_eq!(pages.len(), 4);
        for &(src, lpn) in &pages {
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
            assert_eq!(f.lookup(lpn), Some(dst));
        }
        f.erase_done(BlockId(1));
        assert!(f.select_victim_block(BlockId(2)), "the plane is idle again");
        f.check_invariants();
    }

    #[test]
    fn hand_worked_greedy_case() {
        let mut f = ftl_one_plane(small_cfg());
        // Blocks 0..3 take LPNs 0..15 (4 pages each), in order.
        for l in 0..16 {
            write_done(&mut f, l, 1);
        }
        // Invalidate 1 page of block 0, 3 of block 1, 2 of block 2.
        for l in [0, 4, 5, 6, 8, 9] {
            write_done(&mut f, l, 2);
        }
        let v = f.select_victim(P).unwrap();
        assert_eq!(v, BlockId(1));
        assert_eq!(f.select_victim(P), None, "one GC per plane");
        assert!(!f.gc_needed(P));
        let mut pages = Vec::new();
        f.victim_valid_pages(v, &mut pages);
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].1, Lpn(7));
        let (src, _) = pages[0];
        let dst = f.gc_begin_move(src).unwrap();
        assert_eq!(
            f.lookup(Lpn(7)),
            Some(src),
            "map moves only when the copy is done"
        );
        assert!(!f.erasable(v), "a move is in flight");
        assert!(f.gc_finish_move(src, dst));
        assert_eq!(f.lookup(Lpn(7)), Some(dst));
        assert_eq!(f.token(dst), f.token(src));
        assert!(f.erasable(v));
        f.erase_done(v);
        assert_eq!(f.erase_count(v), 1);
        assert_eq!(f.counters().gc_pages_moved, 1);
        f.check_invariants();
    }

    /// The same writes, with or without trims of half the LPNs before the overwrites:
    /// trims make pages invalid at once (the block's count, the map), so the GC that
    /// follows copies fewer pages.
    #[test]
    fn trims_invalidate_and_gc_copies_fewer_pages() {
        let run = |trim: bool| {
            let mut f = ftl_one_plane(small_cfg());
            for l in 0..16 {
                write_done(&mut f, l, 1);
            }
            // Blocks 0..3 hold LPNs 0..15; trim every odd LPN.
            if trim {
                for l in (1..16).step_by(2) {
                    let block = f.geom.block_of_page(f.lookup(Lpn(l)).unwrap());
                    let before = f.valid_pages(block);
                    f.trim(Lpn(l));
                    assert_eq!(f.lookup(Lpn(l)), None, "unmapped");
                    assert_eq!(f.valid_pages(block), before - 1, "its page invalid");
                }
                assert_eq!(f.counters().trims, 8);
                f.check_invariants();
            }
            // Overwrite a few even LPNs, then reclaim two blocks.
            for l in [0, 2, 4] {
                write_done(&mut f, l, 2);
            }
            for _ in 0..2 {
                full_gc(&mut f).expect("a victim");
            }
            f.counters().gc_pages_moved
        };
        // Without trims: block 0 (LPNs 1, 3 valid) and block 1 (5, 6, 7). With them:
        // block 0 (none valid) and block 1 (6 only).
        assert_eq!((run(false), run(true)), (5, 1));
    }

    #[test]
    fn move_invalidated_mid_flight_leaves_the_map_alone() {
        let mut f = ftl_one_plane(small_cfg());
        for l in 0..4 {
            write_done(&mut f, l, 1);
        }
        write_done(&mut f, 0, 2); // block 0 now has 3 valid pages
        for l in 4..8 {
            write_done(&mut f, l, 1);
        }
        let v = f.select_victim(P).unwrap();
        assert_eq!(v, BlockId(0));
        let mut pages = Vec::new();
        f.victim_valid_pages(v, &mut pages);
        let (src, lpn) = pages[0];
        assert_eq!(lpn, Lpn(1));
        let dst = f.gc_begin_move(src).unwrap();
        let new = write_done(&mut f, 1, 3); // the host overwrites LPN 1 meanwhile
        f.check_invariants();
        assert!(!f.gc_finish_move(src, dst));
        assert_eq!(f.lookup(Lpn(1)), Some(new));
        assert!(!f.is_valid(dst));
        assert_eq!(f.counters().gc_moves_dropped, 1);
        f.check_invariants();
        // A move of a page trimmed before it begins does not begin.
        let (src2, lpn2) = pages[1];
        f.trim(lpn2);
        assert_eq!(f.gc_begin_move(src2), None);
        f.check_invariants();
    }

    #[test]
    fn pins_and_pending_programs_block_erasure() {
        let mut f = ftl_one_plane(small_cfg());
        for l in 0..4 {
            write_done(&mut f, l, 1);
        }
        let pinned = f.lookup(Lpn(2)).unwrap();
        f.pin(pinned);
        // Overwrite all four, but leave the last program outstanding … in another block.
        for l in 0..4 {
            write_done(&mut f, l, 2);
        }
        let v = f.select_victim(P).unwrap();
        assert_eq!(v, BlockId(0));
        assert!(!f.erasable(v), "a read is pinned");
        f.unpin(pinned);
        assert!(f.erasable(v));
        f.erase_done(v);
        // An outstanding host program inside a victim also blocks its erase.
        let mut last = None;
        for l in 4..8 {
            last = Some(f.host_write(Lpn(l), P, 5).unwrap());
        }
        for l in 4..8 {
            write_done(&mut f, l, 6);
        }
        let v2 = f.select_victim(P).unwrap();
        assert_eq!(f.geometry().block_of_page(last.unwrap()), v2);
        assert!(!f.erasable(v2), "programs outstanding");
        for p in f.geometry().page_of_block(v2, 0).0..f.geometry().page_of_block(v2, 4).0 {
            f.program_done(ssdlab_nand::Ppn(p));
        }
        assert!(f.erasable(v2));
        f.check_invariants();
    }

    #[test]
    #[should_panic(expected = "pinned reads outstanding")]
    fn erasing_a_pinned_block_panics() {
        let mut f = ftl_one_plane(small_cfg());
        for l in 0..4 {
            write_done(&mut f, l, 1);
        }
        f.pin(f.lookup(Lpn(0)).unwrap());
        for l in 0..4 {
            write_done(&mut f, l, 2);
        }
        let v = f.select_victim(P).unwrap();
        f.erase_done(v);
    }

    #[test]
    fn greedy_declines_fully_valid_blocks_and_abandon_gives_back() {
        let mut f = ftl_one_plane(small_cfg());
        for l in 0..8 {
            write_done(&mut f, l, 1);
        }
        assert_eq!(f.select_victim(P), None);
        write_done(&mut f, 0, 2);
        let v = f.select_victim(P).unwrap();
        f.gc_abandon(v);
        assert_eq!(f.gc_victim(P), None);
        assert_eq!(f.select_victim(P), Some(v));
        assert_eq!(f.counters().gc_abandoned, 1);
        f.check_invariants();
    }

    #[test]
    #[should_panic(expected = "after moves out of it began")]
    fn abandoning_after_a_move_panics() {
        let mut f = ftl_one_plane(small_cfg());
        for l in [0, 1, 2, 3, 0, 4, 5, 6] {
            write_done(&mut f, l, 1);
        }
        let v = f.select_victim(P).unwrap();
        let mut pages = Vec::new();
        f.victim_valid_pages(v, &mut pages);
        f.gc_begin_move(pages[0].0).unwrap();
        f.gc_abandon(v);
    }

    #[test]
    fn static_wl_moves_the_cold_block_when_spread_exceeds_threshold() {
        for (spread, expect_wl) in [(0, false), (3, true)] {
            let mut cfg = small_cfg();
            cfg.wear_leveling.static_spread = spread;
            let mut f = ftl_one_plane(cfg);
            for l in 0..4 {
                write_done(&mut f, l, 1); // cold: block 0, never overwritten
            }
            let mut wl_seen = false;
            for round in 0..200 {
                write_done(&mut f, 4 + round % 8, round + 2); // hot LPNs 4..12
                while f.gc_needed(P) {
                    let v = full_gc(&mut f).expect("greedy always gains here");
                    wl_seen |= v == BlockId(0);
                }
            }
            assert_eq!(wl_seen, expect_wl, "static_spread {spread}");
            assert_eq!(f.counters().wl_victims > 0, expect_wl);
            let s = f.erase_count_summary();
            if expect_wl {
                assert!(
                    s.max - s.min <= 2 * spread + 1,
                    "spread stays bounded: {s:?}"
                );
            } else {
                assert_eq!(s.min, 0, "the cold block is never erased without static WL");
            }
        }
    }

    #[test]
    fn cost_benefit_and_random_run_whole_gcs() {
        for victim in [VictimPolicy::CostBenefit, VictimPolicy::Random] {
            let mut cfg = small_cfg();
            cfg.gc.victim = victim;
            let mut f = ftl_one_plane(cfg);
            for round in 0..300u32 {
                write_done(&mut f, (round * 7) % 16, round + 1);
                while f.gc_needed(P) {
                    full_gc(&mut f).expect("a victim with invalid pages exists");
                }
            }
            assert!(f.counters().erases > 10, "{victim:?}");
            for l in 0..16 {
                assert!(f.lookup(Lpn(l)).is_some());
            }
        }
    }

    #[test]
    fn background_gc_only_when_enabled() {
        let mut cfg = small_cfg();
        cfg.gc.background_free_ratio = 0.5; // wants 4 of 8 blocks free
        let mut f = ftl_one_plane(cfg.clone());
        for l in 0..20 {
            write_done(&mut f, l % 16, 1);
        }
        assert!(!f.bg_gc_wanted(P));
        cfg.gc.background = true;
        let mut g = ftl_one_plane(cfg);
        for l in 0..20 {
            write_done(&mut g, l % 16, 1);
        }
        assert!(g.bg_gc_wanted(P), "free {}", g.free_blocks(P));
        assert!(!g.gc_needed(P));
    }
}
