//! Comparing the whole state of two FTLs: how the implicit fill is tested against the
//! page-by-page replay, and how a layer above can check that two ways of building a
//! device agree.

use ssdlab_nand::{Lpn, PlaneId, Ppn};

use crate::block::BlockManager;
use crate::ftl::Ftl;

/// The fields of a plane's metadata, with the free pool as a sorted list (its heap
/// layout depends on the order of pushes, its contents and pops do not).
fn plane_fields(bm: &BlockManager, plane: PlaneId) -> impl PartialEq + std::fmt::Debug {
    let pm = &bm.planes[plane.idx()];
    let mut free: Vec<u64> = pm.free.iter().map(|r| r.0).collect();
    free.extend(bm.fresh_blocks(plane).map(u64::from));
    free.sort_unstable();
    (
        (free, pm.fresh),
        [
            pm.host_frontier,
            pm.gc_frontier,
            pm.victim,
            pm.min_bucket,
            pm.map_frontier,
        ],
        [
            pm.full_blocks,
            pm.erase_min,
            pm.erase_min_blocks,
            pm.erase_max,
        ],
        [pm.last_victim_wl, pm.victim_moved],
    )
}

impl Ftl {
    /// The first difference between the observable state of `self` and `other`, or
    /// `None` if there is none: every LPN's page; every page's owner, token and pending
    /// program; every block's and plane's metadata (valid counts, write pointers, erase
    /// counts, write stamps, bucket links, frontiers, free pools, GC state); the write
    /// clock, erase total and event counters. O(pages + LPNs): for tests and checks.
    pub fn diff_state(&self, other: &Ftl) -> Option<String> {
        self.diff(other, true)
    }

    /// [`Ftl::diff_state`] but for the blocks' write stamps (the age clock that only the
    /// cost-benefit victim policy reads): how aging plane by plane
    /// ([`Ftl::precondition_static`]) is compared with aging in the order drawn.
    pub fn diff_state_but_stamps(&self, other: &Ftl) -> Option<String> {
        self.diff(other, false)
    }

    fn diff(&self, other: &Ftl, stamps: bool) -> Option<String> {
        if self.geom != other.geom || self.map_entries() != other.map_entries() {
            return Some("geometry or map size".into());
        }
        if self.slots != other.slots {
            return Some(format!("slots {} vs {}", self.slots, other.slots));
        }
        for l in (0..self.map_entries()).map(Lpn) {
            let (a, b) = (self.lookup(l), other.lookup(l));
            if a != b {
                return Some(format!("lpn {l}: {a:?} vs {b:?}"));
            }
        }
        for p in (0..self.geom.pages()).map(Ppn) {
            let a = (self.page_owner(p), self.token(p), self.is_pending(p));
            let b = (other.page_owner(p), other.token(p), other.is_pending(p));
            if a != b {
                return Some(format!("page {p}: {a:?} vs {b:?}"));
            }
        }
        let (x, y) = (&self.blocks, &other.blocks);
        for (b, (m, n)) in x.blocks.iter().zip(&y.blocks).enumerate() {
            let (mut m, mut n) = (*m, *n);
            if !stamps {
                m.set_last_write(0);
                n.set_last_write(0);
            }
            if m != n {
                return Some(format!("block {b}: {m:?} vs {n:?}"));
            }
        }
        for p in (0..self.geom.planes()).map(PlaneId) {
            let (a, b) = (plane_fields(x, p), plane_fields(y, p));
            if a != b {
                return Some(format!("plane {p}: {a:?} vs {b:?}"));
            }
        }
        for p in 0..self.geom.planes() {
            for v in 0..=x.ppb {
                let p = PlaneId(p);
                if x.bucket_head(p, v) != y.bucket_head(p, v) {
                    return Some(format!("plane {p}: head of bucket {v}"));
                }
            }
        }
        let a = (self.stamp, self.erases_total, &self.counters);
        let b = (other.stamp, other.erases_total, &other.counters);
        if a != b {
            return Some(format!("clock, erases, counters: {a:?} vs {b:?}"));
        }
        None
    }
}
