//! The sequential fill of preconditioning as a formula ("implicit fill").
//!
//! Replayed page by page, the fill of a 256 GB device is 67 million host writes and
//! commits every page of the tables. On a fresh device it is also entirely predictable:
//! LPN `L` goes to plane `plane(L)`, and inside its plane to the next free page, the
//! plane's blocks being opened in block order. When `plane(L)` is periodic, the page of
//! every LPN — and the LPN of every page — is a closed formula, and nothing needs to be
//! stored for the pages the run never touches.
//!
//! * A [`FillPattern`] gives `plane(L)` for `L` in consecutive segments, each periodic
//!   with its own period `P` (a static striping has one segment with `P` = the number of
//!   planes; a RAID layout has one for host pages and one for redundancy pages, periodic
//!   in stripe rows). For one period it precomputes each residue's plane and its rank
//!   among the residues of that plane, and per plane the residues in order.
//! * `rank(L)` inside its plane is the pages of earlier segments in that plane, plus
//!   `(L − start) / P × count[plane] + rank[(L − start) mod P]`; the page is the plane's
//!   first page plus that rank. The inverse (the LPN of the page at rank `r` of plane `p`)
//!   is direct through the plane's residue list.
//! * The tables ([`crate::mapping`]) read a zero entry as "what the fill left": the forward
//!   map of an LPN below the fill count points to its formula page; the reverse map of a
//!   page in the filled part of a block not erased since names its formula LPN; the content
//!   token of such a page is the fill's token for that LPN (XOR-stored, so that any token
//!   can be written over it). Only pages that the run, GC or aging touch get entries.
//! * The block manager gets, block by block, exactly the state the replay leaves
//!   (`BlockManager::fill_sequential`): which blocks are full, the open frontier, write
//!   pointers, valid counts, bucket lists, write stamps, the free pools.
//!
//! [`Ftl::precondition`] uses the formula only where it is exact: on a fresh FTL without
//! a content index, when every plane's share fits outside its GC reserve without reaching
//! the GC threshold (so the replay would neither skip a write nor try a GC). Elsewhere it
//! replays the fill, taking the planes from the pattern.

use std::sync::Arc;

use ssdlab_nand::{Geometry, Lpn, PlaneId, Ppn};

use crate::block::{BlockManager, BlockState, NONE};
use crate::ftl::Ftl;
use crate::token_for;

/// The content token the fill leaves in a page of `lpn` (see [`FillPattern::with_content`]).
pub type FillContent = Arc<dyn Fn(Lpn) -> u64 + Send + Sync>;

/// Where the sequential fill puts every LPN, as consecutive periodic segments starting at
/// LPN 0 (see the module docs).
#[derive(Clone)]
pub struct FillPattern {
    planes: u32,
    segments: Vec<Segment>,
    content: Option<FillContent>,
}

impl std::fmt::Debug for FillPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FillPattern")
            .field("planes", &self.planes)
            .field("segments", &self.segments)
            .field("content", &self.content.as_ref().map(|_| "custom"))
            .finish()
    }
}

/// Where one residue of a segment's period lies.
#[derive(Clone, Copy, Debug)]
struct Residue {
    plane: u32,
    rank: u32,
    count: u32,
}

/// One periodic run of LPNs.
#[derive(Clone, Debug)]
struct Segment {
    start: u32,
    end: u32,
    period: u32,
    /// Residue `i`'s plane, its rank among that plane's residues, and how many residues
    /// the plane has (one record, so that placing an LPN reads one entry).
    at: Vec<Residue>,
    /// `res[offs[p] .. offs[p + 1]]`: the residues of plane `p`, in increasing order.
    offs: Vec<u32>,
    res: Vec<u32>,
}

impl Segment {
    #[inline]
    fn count(&self, plane: usize) -> u32 {
        self.offs[plane + 1] - self.offs[plane]
    }

    /// LPNs of this segment below `n` that lie in `plane`.
    fn count_below(&self, plane: usize, n: u32) -> u64 {
        let len = n.clamp(self.start, self.end) - self.start;
        let (q, r) = (len / self.period, len % self.period);
        let own = &self.res[self.offs[plane] as usize..self.offs[plane + 1] as usize];
        u64::from(q) * u64::from(self.count(plane)) + own.partition_point(|&x| x < r) as u64
    }
}

impl FillPattern {
    /// An empty pattern over `planes` planes.
    pub fn new(planes: u32) -> FillPattern {
        FillPattern {
            planes,
            segments: Vec::new(),
            content: None,
        }
    }

    /// Appends the segment of LPNs `start .. end` (`start` = the end of the previous
    /// segment, 0 for the first) in which LPN `start + i` lies in plane
    /// `period[i mod period.len()]`.
    ///
    /// # Panics
    /// If the segment does not follow the previous one, is empty, or names a plane
    /// beyond the pattern's.
    pub fn push(&mut self, start: u32, end: u32, period: &[PlaneId]) {
        assert_eq!(start, self.end(), "fill segments must follow each other");
        assert!(start < end && !period.is_empty(), "empty fill segment");
        let planes = self.planes as usize;
        let mut offs = vec![0u32; planes + 1];
        for p in period {
            assert!(p.0 < self.planes, "fill segment names {p} of {planes}");
            offs[p.idx() + 1] += 1;
        }
        for p in 0..planes {
            offs[p + 1] += offs[p];
        }
        let mut next = offs.clone();
        let mut res = vec![0u32; period.len()];
        let mut at = Vec::with_capacity(period.len());
        for (i, p) in period.iter().enumerate() {
            let n = &mut next[p.idx()];
            at.push(Residue {
                plane: p.0,
                rank: *n - offs[p.idx()],
                count: offs[p.idx() + 1] - offs[p.idx()],
            });
            res[*n as usize] = i as u32;
            *n += 1;
        }
        self.segments.push(Segment {
            start,
            end,
            period: period.len() as u32,
            at,
            offs,
            res,
        });
    }

    /// The same pattern whose pages end up with `content(L)` as their token, instead of
    /// the token the fill writes (`token_for(L, L + 1)`): for a layer above the FTL that
    /// gives some pages their real content right after preconditioning (RAID parity).
    pub fn with_content(mut self, content: FillContent) -> FillPattern {
        self.content = Some(content);
        self
    }

    /// One past the last LPN the pattern covers.
    pub fn end(&self) -> u32 {
        self.segments.last().map_or(0, |s| s.end)
    }

    /// Planes of the device the pattern is for.
    pub fn planes(&self) -> u32 {
        self.planes
    }

    #[inline]
    fn segment_of(&self, lpn: u32) -> usize {
        self.segments
            .iter()
            .position(|s| lpn < s.end)
            .unwrap_or_else(|| panic!("lpn {lpn} beyond the fill pattern"))
    }

    /// The plane of `lpn`. Panics beyond [`FillPattern::end`].
    #[inline]
    pub fn plane_of(&self, lpn: Lpn) -> PlaneId {
        let s = &self.segments[self.segment_of(lpn.0)];
        PlaneId(s.at[((lpn.0 - s.start) % s.period) as usize].plane)
    }

    /// The token the fill leaves in `lpn`'s page.
    #[inline]
    pub fn token(&self, lpn: Lpn) -> u64 {
        match &self.content {
            Some(f) => f(lpn),
            None => token_for(lpn, lpn.0.wrapping_add(1)),
        }
    }

    /// LPNs below `n` that lie in `plane`.
    pub fn count_below(&self, plane: PlaneId, n: u32) -> u64 {
        self.segments
            .iter()
            .map(|s| s.count_below(plane.idx(), n))
            .sum()
    }

    /// Rough heap bytes held.
    fn heap_bytes(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| (s.at.len() * 12 + (s.offs.len() + s.res.len()) * 4) as u64)
            .sum()
    }
}

/// The implicit fill of one FTL: a pattern, the fill count and the per-plane ranks the
/// formulas need.
#[derive(Clone, Debug)]
pub(crate) struct ImplicitFill {
    pattern: FillPattern,
    /// LPNs `0 .. fill` were filled.
    fill: u32,
    ppb: u32,
    pages_per_plane: u32,
    /// `base[s × planes + p]`: pages of segments before `s` in plane `p`; row
    /// `segments` holds each plane's filled pages.
    base: Vec<u32>,
}

impl ImplicitFill {
    /// The fill of LPNs `0 .. fill` by `pattern` on `geom` (the pattern covers them).
    pub fn new(pattern: &FillPattern, fill: u32, geom: &Geometry) -> ImplicitFill {
        let planes = pattern.planes as usize;
        let mut base = vec![0u32; (pattern.segments.len() + 1) * planes];
        for (s, seg) in pattern.segments.iter().enumerate() {
            for p in 0..planes {
                let n = seg.count_below(p, fill) as u32;
                base[(s + 1) * planes + p] = base[s * planes + p] + n;
            }
        }
        ImplicitFill {
            pattern: pattern.clone(),
            fill,
            ppb: geom.pages_per_block,
            pages_per_plane: geom.blocks_per_plane * geom.pages_per_block,
            base,
        }
    }

    /// Pages each plane got, by plane.
    pub fn filled_per_plane(&self) -> &[u32] {
        let planes = self.pattern.planes as usize;
        &self.base[self.base.len() - planes..]
    }

    /// LPNs filled.
    #[inline]
    pub fn fill(&self) -> u32 {
        self.fill
    }

    /// The page the fill put `lpn` in (`lpn < fill`).
    #[inline]
    pub fn ppn_of(&self, lpn: Lpn) -> Ppn {
        let (p, rank) = self.plane_rank(lpn);
        Ppn(p * self.pages_per_plane + rank)
    }

    /// The plane the fill put `lpn` in (`lpn < fill`) and its rank there: the page of
    /// the plane it took.
    #[inline]
    pub fn plane_rank(&self, lpn: Lpn) -> (u32, u32) {
        let si = self.pattern.segment_of(lpn.0);
        let s = &self.pattern.segments[si];
        let x = lpn.0 - s.start;
        let (q, r) = ((x / s.period), (x % s.period) as usize);
        let a = s.at[r];
        let base = self.base[si * self.pattern.planes as usize + a.plane as usize];
        (a.plane, base + q * a.count + a.rank)
    }

    /// The LPN the fill wrote into `ppn`, if it wrote that page.
    #[inline]
    pub fn lpn_at(&self, ppn: Ppn) -> Option<Lpn> {
        self.lpn_of(ppn.0 / self.pages_per_plane, ppn.0 % self.pages_per_plane)
    }

    /// The LPN the fill wrote at rank `rank` of plane `plane`, if it wrote that page.
    #[inline]
    pub fn lpn_of(&self, plane: u32, rank: u32) -> Option<Lpn> {
        let planes = self.pattern.planes as usize;
        let p = plane as usize;
        if rank >= self.filled_per_plane()[p] {
            return None;
        }
        for (si, s) in self.pattern.segments.iter().enumerate() {
            let (lo, hi) = (self.base[si * planes + p], self.base[(si + 1) * planes + p]);
            if rank < hi {
                let r = rank - lo;
                let c = s.count(p);
                // One residue per period in the plane (a stripe over the planes): no
                // division.
                let (q, m) = if c == 1 { (r, 0) } else { (r / c, r % c) };
                let res = s.res[(s.offs[p] + m) as usize];
                return Some(Lpn(s.start + q * s.period + res));
            }
        }
        unreachable!("rank {rank} of plane {p} below its fill but in no segment")
    }

    /// The token the fill leaves in `lpn`'s page.
    #[inline]
    pub fn token(&self, lpn: Lpn) -> u64 {
        self.pattern.token(lpn)
    }

    /// The stamp of the fill's write of the page at `rank` of `plane`: the replay's
    /// write clock after writing LPNs `0 ..= L`, i.e. `L + 1`.
    pub fn stamp_at(&self, plane: u32, rank: u32) -> u64 {
        let ppn = Ppn(plane * self.pages_per_plane + rank);
        let lpn = self.lpn_at(ppn).expect("a filled page");
        u64::from(lpn.0) + 1
    }

    /// Pages per block.
    pub fn ppb(&self) -> u32 {
        self.ppb
    }

    pub fn heap_bytes(&self) -> u64 {
        self.pattern.heap_bytes() + self.base.len() as u64 * 4
    }
}

impl BlockManager {
    /// The state a sequential fill by `fill` leaves on a fresh device, set block by block
    /// as the page-by-page replay leaves it: each plane's blocks taken in order (a fresh
    /// free pool hands them out by index, with or without dynamic wear leveling, as every
    /// erase count is 0), the full ones in the bucket of `ppb` valid pages, the last one
    /// the host frontier if partly written, every program done, and each block stamped
    /// with the fill's write of its last page.
    pub fn fill_sequential(&mut self, fill: &ImplicitFill) {
        let ppb = self.ppb;
        for (p, &n) in fill.filled_per_plane().iter().enumerate() {
            let first = p as u32 * self.bpp;
            let (full, part) = (n / ppb, n % ppb);
            for k in 0..full {
                let b = first + k;
                let blk = &mut self.blocks[b as usize];
                debug_assert_eq!(blk.state(), BlockState::Free, "filling block {b}");
                blk.set_state(BlockState::Full);
                blk.write_ptr = ppb as u16; // a validated geometry: ppb fits
                blk.valid = ppb as u16;
                blk.set_last_write(fill.stamp_at(p as u32, k * ppb + ppb - 1));
                // `link` pushes at the head: the last block filled heads the bucket.
                blk.next = if k == 0 { NONE } else { b - 1 };
                blk.prev = if k + 1 == full { NONE } else { b + 1 };
            }
            let bucket = p * (ppb as usize + 1) + ppb as usize;
            self.heads[bucket] = if full == 0 { NONE } else { first + full - 1 };
            let opened = full + u32::from(part > 0);
            let pm = &mut self.planes[p];
            pm.full_blocks = full;
            if part > 0 {
                let b = first + full;
                pm.host_frontier = b;
                let blk = &mut self.blocks[b as usize];
                blk.set_state(BlockState::HostOpen);
                blk.write_ptr = part as u16; // below ppb
                blk.valid = part as u16;
                blk.set_last_write(fill.stamp_at(p as u32, n - 1));
            }
            pm.fresh = self.bpp - opened;
        }
    }
}

impl Ftl {
    /// LPNs the sequential fill of `cfg` writes: `fill_ratio` of the map entries that
    /// count against the capacity.
    pub fn fill_count(&self, cfg: &crate::PreconditionConfig) -> u32 {
        let n = self.counted_entries();
        ((cfg.fill_ratio * f64::from(n)).floor() as u32).min(n)
    }

    /// Lays LPNs `0 .. fill` out by `pattern` without writing them one by one, if that
    /// gives exactly the state the replay would; false (nothing changed) otherwise.
    pub(crate) fn fill_implicitly(&mut self, pattern: &FillPattern, fill: u32) -> bool {
        let g = self.geom;
        let fresh = self.stamp == 0 && self.erases_total == 0 && !self.map.has_fill();
        if fill == 0
            || !fresh
            || self.content.is_some()
            || pattern.planes != g.planes()
            || pattern.end() < fill
        {
            return false;
        }
        let implicit = ImplicitFill::new(pattern, fill, &g);
        // The replay opens blocks in order; it must never be refused a block (reserve)
        // nor reach the GC threshold.
        let ppb = g.pages_per_block;
        let room = g.blocks_per_plane.saturating_sub(self.gc_threshold_blocks);
        let fits = implicit.filled_per_plane().iter().all(|&n| {
            let blocks = n.div_ceil(ppb);
            blocks <= room && blocks + self.reserve_blocks <= g.blocks_per_plane
        });
        if !fits {
            return false;
        }
        self.blocks.fill_sequential(&implicit);
        self.stamp = u64::from(fill);
        self.counters.host_pages_written += u64::from(fill);
        self.map.set_fill(implicit);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::tiny;

    #[test]
    fn two_segments_round_trip() {
        let g = tiny(); // 8 planes × 8 blocks × 4 pages
        let mut pat = FillPattern::new(8);
        let a: Vec<PlaneId> = [3, 1, 3, 0, 7].map(PlaneId).to_vec();
        let b: Vec<PlaneId> = [2, 2, 5].map(PlaneId).to_vec();
        pat.push(0, 23, &a);
        pat.push(23, 60, &b);
        assert_eq!(pat.plane_of(Lpn(7)), PlaneId(3));
        assert_eq!(pat.plane_of(Lpn(26)), PlaneId(2));
        assert_eq!(pat.plane_of(Lpn(25)), PlaneId(5));
        for fill in [1, 5, 22, 23, 24, 40, 60] {
            let f = ImplicitFill::new(&pat, fill, &g);
            let mut seen = std::collections::BTreeSet::new();
            let mut per_plane = [0u32; 8];
            for l in 0..fill {
                let ppn = f.ppn_of(Lpn(l));
                let plane = g.plane_of_page(ppn);
                assert_eq!(plane, pat.plane_of(Lpn(l)));
                // Ranks within a plane are handed out in LPN order.
                assert_eq!(ppn.0 % (8 * 4), per_plane[plane.idx()], "lpn {l}");
                per_plane[plane.idx()] += 1;
                assert_eq!(f.lpn_at(ppn), Some(Lpn(l)));
                assert!(seen.insert(ppn));
            }
            assert_eq!(f.filled_per_plane(), &per_plane);
            for p in 0..g.pages() {
                if !seen.contains(&Ppn(p)) {
                    assert_eq!(f.lpn_at(Ppn(p)), None, "page {p}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "must follow")]
    fn segments_must_be_contiguous() {
        let mut pat = FillPattern::new(2);
        pat.push(1, 4, &[PlaneId(0)]);
    }
}
