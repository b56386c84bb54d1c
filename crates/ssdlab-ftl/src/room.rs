//! How much room a plane has left for host writes: what placement policies and DGC ask;
//! and the host write that may take the GC reserve.

use ssdlab_nand::{Lpn, PlaneId, Ppn};

use crate::{Ftl, NoSpace};

impl Ftl {
    /// [`Ftl::host_write`] for a write that frees space once done (a RAID parity update
    /// that releases pages the plane's GC cannot otherwise reclaim): it may take every
    /// reserve block but one, which GC keeps.
    pub fn host_write_freeing(
        &mut self,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> Result<Ppn, NoSpace> {
        let reserve = self.reserve_blocks;
        self.reserve_blocks = reserve.min(1);
        let r = self.host_write(lpn, plane, token);
        self.reserve_blocks = reserve;
        r
    }

    /// Free pages host writes could still take in `plane`: the rest of its host frontier
    /// block plus the free blocks beyond the reserve.
    pub fn free_pages_in_plane(&self, plane: PlaneId) -> u64 {
        let spare = self
            .blocks
            .free_blocks(plane)
            .saturating_sub(self.reserve_blocks);
        u64::from(self.blocks.host_frontier_room(plane))
            + u64::from(spare) * u64::from(self.geom.pages_per_block)
    }

    /// The page offset inside its block that the next host write to `plane` takes (0
    /// when a new block would be opened). Planes of one die whose next offsets are
    /// equal can take one multi-plane program.
    #[inline]
    pub fn next_host_offset(&self, plane: PlaneId) -> u32 {
        let ppb = self.geom.pages_per_block;
        (ppb - self.blocks.host_frontier_room(plane)) % ppb
    }

    /// Host pages `plane` can still take before a write makes it start foreground GC
    /// (DGC's C_r): the rest of the host frontier block plus the free blocks above the
    /// GC threshold.
    pub fn pages_before_gc(&self, plane: PlaneId) -> u64 {
        let above = self
            .blocks
            .free_blocks(plane)
            .saturating_sub(self.gc_threshold_blocks);
        u64::from(self.blocks.host_frontier_room(plane))
            + u64::from(above) * u64::from(self.geom.pages_per_block)
    }
}
