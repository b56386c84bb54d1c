//! Grown bad blocks: a block on which a program or an erase failed leaves service.
//!
//! ```text
//!   program failed on an open block ─► doom + close_block ─► Full (a victim candidate)
//!   erase failed ────────────────────► doom
//!   a doomed block's erase (erase_done) ─► Retired: in no pool, never allocated again
//! ```
//!
//! The controller decides when a block fails (the error model, docs/ERRORS.md); the FTL
//! keeps the consequences: a doomed block is erased as usual once its valid data has
//! moved (by a relocation or by GC, whichever takes it first), and that erase retires it
//! instead of freeing it. A retired block is in no free pool, no victim bucket, and out
//! of the plane's wear-levelling minimum; its plane's spare capacity is one block less.

use ssdlab_nand::{BlockId, PlaneId};

use crate::block::{BlockState, NONE};
use crate::ftl::Ftl;

impl Ftl {
    /// Marks `block` to be retired at its next erase (a program or an erase on it
    /// failed). Marking it again changes nothing.
    pub fn doom(&mut self, block: BlockId) {
        self.blocks.blocks[block.idx()].doom();
    }

    /// True when `block`'s next erase retires it, or it is retired.
    pub fn is_doomed(&self, block: BlockId) -> bool {
        self.blocks.blocks[block.idx()].doomed()
    }

    /// Stops allocating in `block` if it is one of its plane's write frontiers (host,
    /// GC or map): its unwritten pages are skipped (written, holding no data) and it
    /// becomes full, a victim candidate. False, changing nothing, for any other block
    /// (full, free, under GC, or a placement handle's or the SLC cache's open block,
    /// which fills as usual).
    pub fn close_block(&mut self, block: BlockId) -> bool {
        let b = block.0;
        let plane = self.blocks.plane_of(b);
        let pm = &mut self.blocks.planes[plane];
        let slot = if pm.host_frontier == b {
            &mut pm.host_frontier
        } else if pm.gc_frontier == b {
            &mut pm.gc_frontier
        } else if pm.map_frontier == b {
            &mut pm.map_frontier
        } else {
            return false;
        };
        *slot = NONE;
        let ppb = self.blocks.ppb as u16;
        let m = &mut self.blocks.blocks[b as usize];
        for i in u32::from(m.write_ptr)..u32::from(ppb) {
            self.map.skip(ssdlab_nand::Ppn(b * u32::from(ppb) + i));
        }
        m.write_ptr = ppb;
        m.set_state(BlockState::Full);
        self.blocks.link(b);
        true
    }

    /// True when the erase of `block` (its plane's victim) will retire it: it is doomed,
    /// its plane keeps a free block without it, and its plane's spares have not run
    /// out ([`Ftl::spares_exhausted`]). A doomed block erased while its plane has no
    /// free block goes back to the pool, still doomed: GC could not move its next
    /// victim's pages otherwise (it counts on the erased victim's block). One erased
    /// when the spares have run out goes back to the pool for good (the controller
    /// turns the drive read-only instead).
    pub fn retires_at_erase(&self, block: BlockId) -> bool {
        let plane = PlaneId(self.blocks.plane_of(block.0) as u32);
        self.is_doomed(block) && self.blocks.free_blocks(plane) > 0 && !self.spares_exhausted(plane)
    }

    /// Keeps every doomed block that is not yet retired in service (a drive turned
    /// read-only retires no more blocks); returns how many.
    pub fn spare_doomed(&mut self) -> u32 {
        let mut n = 0;
        for m in &mut self.blocks.blocks {
            if m.doomed() && m.state() != BlockState::Retired {
                m.undoom();
                n += 1;
            }
        }
        n
    }

    /// Blocks of `plane` retired so far.
    pub fn retired_blocks(&self, plane: PlaneId) -> u32 {
        self.blocks.planes[plane.idx()].retired
    }

    /// Blocks of `plane` that can hold data: not retired.
    pub fn good_blocks(&self, plane: PlaneId) -> u32 {
        self.blocks.bpp - self.retired_blocks(plane)
    }

    /// True when `plane`'s spare blocks have run out: with one block fewer, its good
    /// blocks less the GC reserve and one GC frontier block could no longer hold its
    /// even share of the map with a page to spare. That is the bound
    /// [`crate::FtlConfig::max_map_entries`] puts on a configuration (past it GC is no
    /// longer sure to find an invalid page to gain), with the good blocks in place of
    /// all of them: the block that would break it is not retired.
    pub fn spares_exhausted(&self, plane: PlaneId) -> bool {
        let good = u64::from(self.good_blocks(plane)).saturating_sub(1);
        let usable = good.saturating_sub(u64::from(self.reserve_blocks) + 1);
        let room = (usable * u64::from(self.blocks.ppb)).saturating_sub(1);
        let share = u64::from(self.map_entries()).div_ceil(u64::from(self.geom.planes()));
        share > room
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{ftl_one_plane, small_cfg, write_done};
    use crate::BlockState;
    use ssdlab_nand::{BlockId, Lpn, PlaneId};

    const P: PlaneId = PlaneId(0);

    /// An FTL on one plane of 8 blocks × 4 pages holding 8 LPNs: spares to retire.
    fn ftl8() -> crate::Ftl {
        crate::Ftl::new(
            &small_cfg(),
            &crate::testutil::one_plane(),
            8,
            ssdlab_engine::SimRng::new(1),
        )
        .unwrap()
    }

    /// Moves every valid page of `block` (made the victim) and erases it.
    fn relocate(f: &mut crate::Ftl, block: BlockId) {
        assert!(f.select_victim_block(block));
        let mut pages = Vec::new();
        f.victim_valid_pages(block, &mut pages);
        for &(src, lpn) in &pages {
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
            assert_eq!(f.lookup(lpn), Some(dst));
        }
        assert!(f.erasable(block));
        f.erase_done(block);
    }

    #[test]
    fn a_doomed_block_is_retired_at_its_erase_with_its_data_moved() {
        let mut f = ftl8();
        for l in 0..4 {
            write_done(&mut f, l, 1);
        }
        let block = BlockId(0);
        assert_eq!(f.block_state(block), BlockState::Full);
        let tokens: Vec<u64> = (0..4).map(|l| f.token(f.lookup(Lpn(l)).unwrap())).collect();
        let free = f.free_blocks(P);
        f.doom(block);
        assert!(f.is_doomed(block));
        relocate(&mut f, block);
        assert_eq!(f.block_state(block), BlockState::Retired);
        assert_eq!(f.retired_blocks(P), 1);
        assert_eq!(f.good_blocks(P), 7);
        for l in 0..4 {
            let p = f.lookup(Lpn(l)).unwrap();
            assert_ne!(p.0 / 4, 0, "LPN {l} still in the retired block");
            assert_eq!(f.token(p), tokens[l as usize], "LPN {l}'s data moved");
        }
        // The GC frontier took one block; the retired one did not come back.
        assert_eq!(f.free_blocks(P), free - 1);
        f.check_invariants();
        // Never allocated again: fill the plane's space and look.
        for i in 4..12 {
            write_done(&mut f, i % 8, i / 8 + 1);
        }
        for l in 0..8 {
            assert_ne!(f.lookup(Lpn(l)).unwrap().0 / 4, 0);
        }
        assert!(!f.select_victim_block(block), "never a victim");
        f.check_invariants();
    }

    #[test]
    fn the_spares_run_out_when_the_good_blocks_cannot_hold_the_plane_s_share() {
        // 8 blocks of 4 pages, reserve 2, 16 LPNs: (good - 1 - 3) × 4 - 1 >= 16 needs
        // 9 good blocks, more than the plane has: no block can be retired, and a
        // doomed one is erased back into the pool, no longer doomed.
        let mut f = ftl_one_plane(small_cfg());
        for l in 0..4 {
            write_done(&mut f, l, 1);
        }
        assert!(f.spares_exhausted(P), "(8 - 1 - 3) × 4 - 1 = 15 < 16");
        f.doom(BlockId(0));
        assert!(!f.retires_at_erase(BlockId(0)));
        relocate(&mut f, BlockId(0));
        assert_eq!(f.good_blocks(P), 8);
        assert_eq!(f.block_state(BlockId(0)), BlockState::Free);
        assert!(!f.is_doomed(BlockId(0)));
        f.check_invariants();
        // A smaller map has spares left.
        let mut g = ftl8();
        for l in 0..4 {
            write_done(&mut g, l, 1);
        }
        assert!(!g.spares_exhausted(P), "(8 - 1 - 3) × 4 - 1 = 15 >= 8");
        g.doom(BlockId(0));
        relocate(&mut g, BlockId(0));
        assert_eq!(g.block_state(BlockId(0)), BlockState::Retired);
        assert!(!g.spares_exhausted(P), "(7 - 1 - 3) × 4 - 1 = 11 >= 8");
        // A doomed block can be kept in service after all; a retired one stays retired.
        g.doom(BlockId(1));
        assert_eq!(g.spare_doomed(), 1);
        assert!(!g.is_doomed(BlockId(1)) && g.is_doomed(BlockId(0)));
        assert_eq!(g.block_state(BlockId(0)), BlockState::Retired);
    }

    #[test]
    fn a_doomed_block_is_not_retired_when_it_would_take_the_last_free_block() {
        let mut f = ftl8();
        // 8 blocks × 4 pages, 8 LPNs: 20 pages written (LPNs 0..8 twice, then 0..4).
        for i in 0..20u32 {
            write_done(&mut f, i % 8, i / 8 + 1);
        }
        // Take every free block but none: GC's frontier would need them.
        while f.free_blocks(P) > 0 {
            assert!(f.blocks.take_free(P, 0).is_some());
        }
        // Block 0 holds LPNs 0..4, rewritten since: no valid page.
        f.doom(BlockId(0));
        assert!(!f.retires_at_erase(BlockId(0)));
        assert!(f.select_victim_block(BlockId(0)));
        f.erase_done(BlockId(0));
        assert_eq!(
            f.block_state(BlockId(0)),
            BlockState::Free,
            "kept in service"
        );
        assert!(f.is_doomed(BlockId(0)), "still doomed");
        assert_eq!(f.retired_blocks(P), 0);
    }

    #[test]
    fn an_undoomed_erase_frees_the_block() {
        let mut f = ftl_one_plane(small_cfg());
        for l in 0..4 {
            write_done(&mut f, l, 1);
        }
        let free = f.free_blocks(P);
        relocate(&mut f, BlockId(0));
        assert_eq!(f.block_state(BlockId(0)), BlockState::Free);
        assert_eq!(f.retired_blocks(P), 0);
        assert_eq!(f.free_blocks(P), free);
    }

    #[test]
    fn closing_the_open_block_makes_it_a_candidate_and_skips_its_pages() {
        let mut f = ftl8();
        write_done(&mut f, 0, 1);
        write_done(&mut f, 1, 1);
        let open = BlockId(f.lookup(Lpn(0)).unwrap().0 / 4);
        assert_eq!(f.block_state(open), BlockState::HostOpen);
        assert!(!f.select_victim_block(open), "open: no victim");
        assert!(f.close_block(open));
        assert_eq!(f.block_state(open), BlockState::Full);
        assert!(!f.close_block(open), "closed once");
        // The next write opens another block.
        let p = write_done(&mut f, 2, 1);
        assert_ne!(p.0 / 4, open.0);
        f.check_invariants();
        f.doom(open);
        relocate(&mut f, open);
        assert_eq!(f.block_state(open), BlockState::Retired);
        assert!(f.lookup(Lpn(0)).is_some() && f.lookup(Lpn(1)).is_some());
        f.check_invariants();
    }
}
