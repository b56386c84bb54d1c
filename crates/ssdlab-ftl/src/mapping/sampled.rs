//! The base of a device aged by sample planes: every plane reads its pages and map entries
//! through to one sample's one-plane tables (docs/FTL.md §8, sampled aging).

use super::{Mapping, PageOwner};
use crate::fill::ImplicitFill;
use crate::token_for;
use ssdlab_nand::{Lpn, Ppn};

/// The pages of a device aged by sample planes (`crate::aging`): plane `p` holds sample
/// `assign[p]`'s pages, its rank `k` being the `k`-th of the LPNs the fill put in `p`
/// (`ranks`, the fill's layout). A sample's tokens hold the bare write version; a page's
/// token is `token_for(lpn, version)` (a stale page's with the plane's first LPN, its own
/// LPN being no longer recorded), XOR the change `deltas` records for the LPN: content set
/// in place (a RAID parity page given its stripe's XOR) on a page of an LPN nobody
/// rewrote is kept by LPN, not in the tables' per-page tokens, so that setting the
/// content of every parity page of a large device touches one compact range of LPNs
/// instead of a page of the token table per parity page.
#[derive(Clone, Debug)]
pub(crate) struct SampledBase {
    /// Each sample's rank count and one-plane tables.
    pub samples: Vec<(u32, Mapping)>,
    /// The sample each plane takes.
    pub assign: Vec<u32>,
    /// Each plane's first LPN (its rank 0).
    pub first: Vec<u32>,
    /// The fill's layout: LPN `l` is rank `k` of plane `p` where it puts `l` in page
    /// `p × plane_pages + k`.
    pub ranks: ImplicitFill,
    /// Pages per plane.
    pub plane_pages: u32,
    /// Content changed in place, by LPN.
    pub deltas: LpnDeltas,
}

/// A `u64` per LPN, zero until set, in chunks allocated on the first write to them: what
/// is never set costs no memory and reads as zero without touching any.
#[derive(Clone, Debug, Default)]
pub(crate) struct LpnDeltas {
    chunks: Vec<Option<Box<[u64; DELTA_CHUNK]>>>,
}

/// LPNs per chunk of [`LpnDeltas`].
const DELTA_CHUNK: usize = 512;

impl LpnDeltas {
    /// All zero, for LPNs below `lpns`.
    pub fn new(lpns: u32) -> LpnDeltas {
        LpnDeltas {
            chunks: vec![None; (lpns as usize).div_ceil(DELTA_CHUNK)],
        }
    }

    #[inline]
    fn get(&self, lpn: Lpn) -> u64 {
        match &self.chunks[lpn.idx() / DELTA_CHUNK] {
            Some(c) => c[lpn.idx() % DELTA_CHUNK],
            None => 0,
        }
    }

    fn set(&mut self, lpn: Lpn, v: u64) {
        let c =
            self.chunks[lpn.idx() / DELTA_CHUNK].get_or_insert_with(|| Box::new([0; DELTA_CHUNK]));
        c[lpn.idx() % DELTA_CHUNK] = v;
    }

    fn heap_bytes(&self) -> u64 {
        let set = self.chunks.iter().filter(|c| c.is_some()).count();
        (self.chunks.capacity() * 8 + set * DELTA_CHUNK * 8) as u64
    }
}

impl SampledBase {
    pub(super) fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        if lpn.0 >= self.ranks.fill() {
            return None;
        }
        let (p, rank) = self.ranks.plane_rank(lpn);
        let (ranks, m) = &self.samples[self.assign[p as usize] as usize];
        debug_assert!(rank < *ranks);
        m.lookup(Lpn(rank)).map(|q| Ppn(p * self.plane_pages + q.0))
    }

    /// Where `lpn` lives and the token it holds there, as [`SampledBase::lookup`] and
    /// [`SampledBase::token`] give them, but from the LPN itself: no reverse look-up.
    #[inline]
    pub(super) fn lpn_token(&self, lpn: Lpn) -> Option<(Ppn, u64)> {
        let (p, t) = self.lpn_sample_token(lpn)?;
        Some((p, t ^ self.deltas.get(lpn)))
    }

    /// [`SampledBase::lpn_token`] as the sample left it, without a change set since.
    fn lpn_sample_token(&self, lpn: Lpn) -> Option<(Ppn, u64)> {
        if lpn.0 >= self.ranks.fill() {
            return None;
        }
        let (p, rank) = self.ranks.plane_rank(lpn);
        let m = &self.samples[self.assign[p as usize] as usize].1;
        let q = m.lookup(Lpn(rank))?;
        let version = m.token(q) as u32;
        Some((Ppn(p * self.plane_pages + q.0), token_for(lpn, version)))
    }

    /// Makes `lpn`, which nobody rewrote, hold `token` where the sample put it; returns
    /// that page (`None`, nothing done, if the samples do not map `lpn`).
    pub(super) fn set_lpn_token(&mut self, lpn: Lpn, token: u64) -> Option<Ppn> {
        let (p, t) = self.lpn_sample_token(lpn)?;
        self.deltas.set(lpn, token ^ t);
        Some(p)
    }

    /// Makes page `ppn`, which holds LPN data as the sample left it, hold `token`.
    pub(super) fn set_token(&mut self, ppn: Ppn, token: u64) {
        let (PageOwner::Lpn(l), t) = self.sample_token(ppn) else {
            unreachable!("set_token on {ppn}, which holds no LPN's data")
        };
        self.deltas.set(l, token ^ t);
    }

    /// The plane of `ppn`, its sample's tables and the page's place in them.
    fn locate(&self, ppn: Ppn) -> (usize, &Mapping, Ppn) {
        let p = (ppn.0 / self.plane_pages) as usize;
        let m = &self.samples[self.assign[p] as usize].1;
        (p, m, Ppn(ppn.0 % self.plane_pages))
    }

    /// The owner of page `q` of sample `m` where plane `p` takes it.
    fn owner_at(&self, p: usize, m: &Mapping, q: Ppn) -> PageOwner {
        match m.owner(q) {
            PageOwner::Lpn(rank) => {
                let lpn = self.ranks.lpn_of(p as u32, rank.0);
                PageOwner::Lpn(lpn.expect("a sample's rank is filled"))
            }
            other => other,
        }
    }

    pub(super) fn owner(&self, ppn: Ppn) -> PageOwner {
        let (p, m, q) = self.locate(ppn);
        self.owner_at(p, m, q)
    }

    /// The owner of `ppn` and its token as the sample left it, without a change set
    /// since: one look-up of the page for both.
    fn sample_token(&self, ppn: Ppn) -> (PageOwner, u64) {
        let (p, m, q) = self.locate(ppn);
        let owner = self.owner_at(p, m, q);
        let version = m.token(q) as u32;
        let token = match owner {
            PageOwner::Free => 0,
            PageOwner::Lpn(l) => token_for(l, version),
            PageOwner::Invalid => token_for(Lpn(self.first[p]), version),
        };
        (owner, token)
    }

    pub(super) fn token(&self, ppn: Ppn) -> u64 {
        match self.sample_token(ppn) {
            (PageOwner::Lpn(l), t) => t ^ self.deltas.get(l),
            (_, t) => t,
        }
    }

    pub(super) fn heap_bytes(&self) -> u64 {
        let tables: u64 = self.samples.iter().map(|(_, m)| m.heap_bytes()).sum();
        tables
            + self.ranks.heap_bytes()
            + (self.assign.len() + self.first.len()) as u64 * 4
            + self.deltas.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_read_zero_until_set_and_commit_memory_by_chunk() {
        let mut d = LpnDeltas::new(4 * DELTA_CHUNK as u32 + 1);
        let empty = d.heap_bytes();
        assert_eq!(empty, 5 * 8, "one pointer per chunk, no chunk");
        assert_eq!(d.get(Lpn(0)), 0);
        assert_eq!(d.get(Lpn(4 * DELTA_CHUNK as u32)), 0);
        d.set(Lpn(DELTA_CHUNK as u32 + 3), 7);
        d.set(Lpn(4 * DELTA_CHUNK as u32), 9);
        assert_eq!(d.get(Lpn(DELTA_CHUNK as u32 + 3)), 7);
        assert_eq!(
            d.get(Lpn(DELTA_CHUNK as u32 + 2)),
            0,
            "a neighbour is untouched"
        );
        assert_eq!(d.get(Lpn(4 * DELTA_CHUNK as u32)), 9);
        assert_eq!(d.heap_bytes(), empty + 2 * DELTA_CHUNK as u64 * 8);
        d.set(Lpn(DELTA_CHUNK as u32 + 3), 0);
        assert_eq!(d.get(Lpn(DELTA_CHUNK as u32 + 3)), 0);
    }
}
