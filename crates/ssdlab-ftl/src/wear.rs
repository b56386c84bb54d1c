//! The block manager's wear bookkeeping by scans (crate::block keeps it incrementally):
//! the plane's least erase count over its good blocks, the spread static wear levelling
//! tests, and its least-worn candidate.

use ssdlab_nand::PlaneId;

use crate::block::{BlockManager, BlockState};

impl BlockManager {
    /// Recomputes the plane's smallest erase count and its multiplicity: O(blocks per
    /// plane), once per rise of the minimum, i.e. at most once per `blocks_per_plane` erases.
    pub(crate) fn rescan_erase_min(&mut self, plane: PlaneId) {
        let (min, n) = self.erase_min_of(plane);
        let pm = &mut self.planes[plane.idx()];
        pm.erase_min = min;
        pm.erase_min_blocks = n;
    }

    /// The smallest erase count in `plane` and how many blocks have it, by a scan.
    pub fn erase_min_of(&self, plane: PlaneId) -> (u32, u32) {
        let mut min = u32::MAX;
        let mut n = 0;
        for b in self.blocks_of(plane) {
            let m = &self.blocks[b as usize];
            if m.state() == BlockState::Retired {
                continue;
            }
            let c = m.erase_count;
            if c < min {
                (min, n) = (c, 1);
            } else if c == min {
                n += 1;
            }
        }
        (min, n)
    }

    /// Max − min erase count in `plane`.
    #[inline]
    pub fn erase_spread(&self, plane: PlaneId) -> u32 {
        let pm = &self.planes[plane.idx()];
        pm.erase_max.saturating_sub(pm.erase_min)
    }

    /// The least-worn candidate block of `plane` (lowest index on ties), by a scan.
    pub fn least_worn_full(&self, plane: PlaneId) -> Option<u32> {
        self.blocks_of(plane)
            .filter(|&b| self.is_candidate(b))
            .min_by_key(|&b| self.blocks[b as usize].erase_count)
    }
}
