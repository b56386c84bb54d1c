//! Placement handles (NVMe Flexible Data Placement, TP4146: reclaim unit handles): host
//! data of different handles never share a block. Each LPN carries the handle of the
//! write that last stored it; a host write goes to its plane's open block of that
//! handle. Handle 0's open block is the plane's host frontier of the plain FTL, so a
//! device with one handle places every page as without handles; the others' open
//! blocks live here, and exist only once [`Ftl::enable_handles`] was called.
//!
//! GC copies are counted against the handle of the data moved. With persistent
//! isolation they go to their plane's GC open block of that handle (handle 0's is the
//! plane's GC frontier), opened only while more than the GC reserve is free, else to
//! the GC frontier: the reserve stays the plain FTL's guarantee that GC finds a block.
//! With initial isolation every GC copy goes to the plane's GC frontier, as without
//! handles, so data of different handles may meet in GC's blocks.

use ssdlab_nand::{Lpn, PlaneId, Ppn};

use crate::block::{Stream, NONE};
use crate::ftl::{Ftl, NoSpace};

/// The most handles a device takes (one byte per LPN records its handle).
pub const MAX_HANDLES: u32 = 256;

/// What one placement handle wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandleCounters {
    /// Host pages written through the handle.
    pub host_pages: u64,
    /// GC copies of pages whose data the handle wrote.
    pub gc_copies: u64,
}

/// The handles' state: each LPN's handle, the open blocks of handles 1.., counters.
#[derive(Clone, Debug)]
pub(crate) struct Handles {
    n: u32,
    of_lpn: Vec<u8>,
    /// `open[plane × n + h]`: handle `h`'s open block in `plane` (`NONE` if none;
    /// unused for handle 0, whose open block is the plane's host frontier).
    open: Vec<u32>,
    /// `gc_open[plane × n + h]`: handle `h`'s GC open block, with persistent isolation.
    gc_open: Vec<u32>,
    persistent: bool,
    counters: Vec<HandleCounters>,
}

impl Handles {
    /// Whether block `b` of `plane` is the open block of a handle other than 0.
    pub(crate) fn is_open(&self, plane: PlaneId, b: u32) -> bool {
        self.open_of(plane).contains(&b)
    }

    /// How many handles other than 0 have an open block in `plane`.
    pub(crate) fn open_in(&self, plane: PlaneId) -> u32 {
        self.open_of(plane).iter().filter(|&&b| b != NONE).count() as u32
    }

    /// Whether block `b` of `plane` is the GC open block of a handle other than 0.
    pub(crate) fn is_gc_open(&self, plane: PlaneId, b: u32) -> bool {
        Self::of(&self.gc_open, self.n, plane).contains(&b)
    }

    /// How many handles other than 0 have a GC open block in `plane`.
    pub(crate) fn gc_open_in(&self, plane: PlaneId) -> u32 {
        let open = Self::of(&self.gc_open, self.n, plane);
        open.iter().filter(|&&b| b != NONE).count() as u32
    }

    fn open_of(&self, plane: PlaneId) -> &[u32] {
        Self::of(&self.open, self.n, plane)
    }

    /// The slots of handles 1.. of `plane` in a `planes × n` table.
    fn of(table: &[u32], n: u32, plane: PlaneId) -> &[u32] {
        let n = n as usize;
        &table[plane.idx() * n + 1..(plane.idx() + 1) * n]
    }
}

impl Ftl {
    /// Turns placement handles on: `n` handles (1 to [`MAX_HANDLES`]), every LPN on
    /// handle 0 but those of `ranges` (`(first LPN, end LPN, handle)`), which take theirs;
    /// GC keeps the handles apart when `persistent`.
    ///
    /// # Panics
    /// If `n` is out of range, a range's handle is not below `n`, or a range runs past
    /// the map (the configuration is checked before).
    pub fn enable_handles(&mut self, n: u32, ranges: &[(u32, u32, u32)], persistent: bool) {
        assert!((1..=MAX_HANDLES).contains(&n), "{n} placement handles");
        let mut of_lpn = vec![0u8; self.map_entries() as usize];
        for &(first, end, h) in ranges {
            assert!(h < n, "handle {h} of {n}");
            of_lpn[first as usize..end as usize].fill(h as u8);
        }
        self.handles = Some(Box::new(Handles {
            n,
            of_lpn,
            open: vec![NONE; (self.geom.planes() * n) as usize],
            gc_open: vec![NONE; (self.geom.planes() * n) as usize],
            persistent,
            counters: vec![HandleCounters::default(); n as usize],
        }));
        self.sync_detour();
    }

    /// The number of placement handles (0 without them).
    pub fn handles(&self) -> u32 {
        self.handles.as_ref().map_or(0, |h| h.n)
    }

    /// Gives `lpn`'s next write handle `h` (a write that carries its own placement
    /// identifier). Panics without handles or with `h` out of range.
    pub fn set_handle(&mut self, lpn: Lpn, h: u32) {
        let hs = self.handles.as_deref_mut().expect("placement handles on");
        assert!(h < hs.n, "handle {h} of {}", hs.n);
        hs.of_lpn[lpn.idx()] = h as u8;
    }

    /// The handle of `lpn`'s data (0 without handles).
    pub fn handle_of(&self, lpn: Lpn) -> u32 {
        self.handles
            .as_ref()
            .map_or(0, |h| u32::from(h.of_lpn[lpn.idx()]))
    }

    /// What each handle wrote, when handles are on.
    pub fn handle_counters(&self) -> Option<&[HandleCounters]> {
        self.handles.as_ref().map(|h| &h.counters[..])
    }

    /// [`Ftl::host_write`] with the SLC cache or placement handles on (never both).
    #[inline(never)]
    pub(crate) fn detour_host_write(
        &mut self,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> Result<Ppn, NoSpace> {
        if self.slc.is_some() {
            self.slc_host_write(lpn, plane, token)
        } else {
            self.handle_host_write(lpn, plane, token)
        }
    }

    /// Recomputes `detour` after the SLC cache or placement handles were turned on.
    pub(crate) fn sync_detour(&mut self) {
        assert!(
            self.slc.is_none() || self.handles.is_none(),
            "placement handles with the SLC cache"
        );
        self.detour = self.slc.is_some() || self.handles.is_some();
    }

    /// [`Ftl::host_write`] with handles on: from the open block of `lpn`'s handle.
    #[inline(never)]
    pub(crate) fn handle_host_write(
        &mut self,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> Result<Ppn, NoSpace> {
        let hs = self.handles.as_deref_mut().expect("placement handles on");
        let h = usize::from(hs.of_lpn[lpn.idx()]);
        let stamp = self.stamp + 1;
        let slot = plane.idx() * hs.n as usize + h;
        // The handle's open block stands in for the plane's host frontier while one
        // page is allocated from it.
        let pm = &mut self.blocks.planes[plane.idx()];
        if h != 0 {
            std::mem::swap(&mut pm.host_frontier, &mut hs.open[slot]);
        }
        let got = self
            .blocks
            .alloc(plane, Stream::Host, self.reserve_blocks, stamp);
        if h != 0 {
            let pm = &mut self.blocks.planes[plane.idx()];
            std::mem::swap(&mut pm.host_frontier, &mut hs.open[slot]);
        }
        let Some(ppn) = got else {
            self.counters.no_space += 1;
            return Err(NoSpace { plane });
        };
        hs.counters[h].host_pages += 1;
        self.commit_host_write(lpn, ppn, token, stamp)
    }

    /// The page a GC copy of `lpn`'s data in `plane` goes to (stamped `self.stamp`): see
    /// the module's docs.
    #[inline(never)]
    pub(crate) fn handle_gc_alloc(&mut self, lpn: Lpn, plane: PlaneId) -> Option<Ppn> {
        let hs = self.handles.as_deref_mut().expect("placement handles on");
        let h = usize::from(hs.of_lpn[lpn.idx()]);
        if hs.persistent && h != 0 {
            let slot = plane.idx() * hs.n as usize + h;
            let pm = &mut self.blocks.planes[plane.idx()];
            std::mem::swap(&mut pm.gc_frontier, &mut hs.gc_open[slot]);
            let got = self
                .blocks
                .alloc(plane, Stream::Gc, self.reserve_blocks, self.stamp);
            let pm = &mut self.blocks.planes[plane.idx()];
            std::mem::swap(&mut pm.gc_frontier, &mut hs.gc_open[slot]);
            if got.is_some() {
                return got;
            }
        }
        self.blocks.alloc(plane, Stream::Gc, 0, self.stamp)
    }

    /// A GC copy of `lpn`'s data committed: counted against its handle.
    #[inline]
    pub(crate) fn handle_gc_copy(&mut self, lpn: Lpn) {
        if let Some(hs) = self.handles.as_deref_mut() {
            let h = usize::from(hs.of_lpn[lpn.idx()]);
            hs.counters[h].gc_copies += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ftl_one_plane, small_cfg};
    use crate::token_for;
    use ssdlab_nand::Geometry;

    fn write(f: &mut Ftl, lpn: u32, v: u32) -> Ppn {
        let ppn = f
            .host_write(Lpn(lpn), PlaneId(0), token_for(Lpn(lpn), v))
            .unwrap();
        f.program_done(ppn);
        ppn
    }

    #[test]
    fn two_handles_never_share_a_block() {
        let mut f = ftl_one_plane(small_cfg()); // 8 blocks × 4 pages, 16 LPNs
        f.enable_handles(2, &[(8, 16, 1)], true);
        let g: Geometry = *f.geometry();
        let mut blocks = [Vec::new(), Vec::new()];
        // Interleaved writes of both handles.
        for i in 0..12u32 {
            let lpn = if i % 2 == 0 { i / 2 } else { 8 + i / 2 };
            let b = g.block_of_page(write(&mut f, lpn, 1)).0;
            blocks[f.handle_of(Lpn(lpn)) as usize].push(b);
            f.check_invariants();
        }
        for b in &blocks[0] {
            assert!(!blocks[1].contains(b), "block {b} holds both handles' data");
        }
        // Six pages each: two blocks each, opened as each handle needs one.
        assert_eq!(blocks[0], [0, 0, 0, 0, 2, 2]);
        assert_eq!(blocks[1], [1, 1, 1, 1, 3, 3]);
        let c = f.handle_counters().unwrap();
        assert_eq!((c[0].host_pages, c[1].host_pages), (6, 6));
        assert_eq!(f.counters().host_pages_written, 12);
    }

    #[test]
    fn one_handle_places_as_without_handles() {
        let mut a = ftl_one_plane(small_cfg());
        let mut b = ftl_one_plane(small_cfg());
        b.enable_handles(1, &[], true);
        for i in 0..20u32 {
            assert_eq!(write(&mut a, i * 7 % 16, i), write(&mut b, i * 7 % 16, i));
        }
        assert_eq!(b.handle_counters().unwrap()[0].host_pages, 20);
    }

    #[test]
    fn gc_copies_count_against_the_handle_of_the_data_moved() {
        let mut f = ftl_one_plane(small_cfg());
        f.enable_handles(2, &[(4, 8, 1)], false);
        // Block 0: LPNs 0..4 (handle 0); block 1: LPNs 4..8 (handle 1).
        for l in 0..8 {
            write(&mut f, l, 1);
        }
        // A write given handle 1 by its own identifier goes to handle 1's open block.
        f.set_handle(Lpn(0), 1);
        let p = write(&mut f, 0, 2);
        assert_eq!(f.geometry().block_of_page(p).0, 2);
        // Block 0 now holds 3 valid pages of handle 0: the greedy victim.
        let victim = f.select_victim(PlaneId(0)).unwrap();
        assert_eq!(victim.0, 0);
        let mut pages = Vec::new();
        f.victim_valid_pages(victim, &mut pages);
        for &(src, _) in &pages {
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
        }
        f.erase_done(victim);
        let c = f.handle_counters().unwrap();
        assert_eq!(c[0].gc_copies, 3);
        assert_eq!(c[1].gc_copies, 0);
        assert_eq!((c[0].host_pages, c[1].host_pages), (4, 5));
        f.check_invariants();
    }

    /// Moves every valid page out of the greedy victim and erases it; the blocks the
    /// copies went to, by the handle of their data.
    fn collect(f: &mut Ftl) -> Vec<(u32, u32)> {
        let victim = f.select_victim(PlaneId(0)).unwrap();
        let mut pages = Vec::new();
        f.victim_valid_pages(victim, &mut pages);
        let mut to = Vec::new();
        for &(src, lpn) in &pages {
            let dst = f.gc_begin_move(src).unwrap();
            assert!(f.gc_finish_move(src, dst));
            to.push((f.handle_of(lpn), f.geometry().block_of_page(dst).0));
        }
        f.erase_done(victim);
        f.check_invariants();
        to
    }

    #[test]
    fn persistent_isolation_keeps_gc_copies_of_handles_apart() {
        for persistent in [true, false] {
            let mut f = ftl_one_plane(small_cfg());
            f.enable_handles(2, &[], persistent);
            // Block 0 holds LPNs 0..4; LPNs 2 and 3 then pass to handle 1 (their data
            // counts as handle 1's) and LPN 0 is overwritten: block 0, with three valid
            // pages of both handles, is the victim.
            for l in 0..4 {
                write(&mut f, l, 1);
            }
            f.set_handle(Lpn(2), 1);
            f.set_handle(Lpn(3), 1);
            write(&mut f, 0, 2);
            let moved = collect(&mut f);
            assert_eq!(moved.len(), 3);
            let of = |h: u32| moved.iter().filter(move |m| m.0 == h).map(|m| m.1);
            for a in of(0) {
                assert_eq!(
                    of(1).any(|b| b == a),
                    !persistent,
                    "persistent {persistent}: {moved:?}"
                );
            }
        }
    }

    #[test]
    fn a_full_plane_refuses_every_handle_and_changes_nothing() {
        let mut f = ftl_one_plane(small_cfg()); // 6 blocks outside the reserve of 2
        f.enable_handles(3, &[(0, 4, 1), (4, 8, 2)], true);
        for i in 0..24u32 {
            write(&mut f, i % 12, i / 12 + 1);
        }
        assert_eq!(f.free_blocks(PlaneId(0)), 2);
        for l in [0, 4, 8] {
            let before = f.lookup(Lpn(l));
            let r = f.host_write(Lpn(l), PlaneId(0), 9);
            assert!(r.is_err(), "LPN {l}");
            assert_eq!(f.lookup(Lpn(l)), before);
        }
        f.check_invariants();
    }
}
