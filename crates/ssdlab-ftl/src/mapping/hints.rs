//! Cache hints over the page tables (see [`crate::prefetch`]): what a request will read
//! and change, asked for before it is admitted or while it is. They change nothing.

use super::{Base, Mapping, L2P_UNMAPPED};
use crate::prefetch::{self, Soon};
use ssdlab_nand::{Lpn, Ppn};

impl Mapping {
    /// Asks the cache for the forward-map entries of `first .. first + n` (a request's
    /// LPNs), to be read soon. Changes nothing.
    #[inline]
    pub fn prefetch_lookups(&self, first: u32, n: u32) {
        const PER_LINE: usize = 64 / std::mem::size_of::<u32>();
        let end = first.saturating_add(n);
        for l in (first..end).step_by(PER_LINE) {
            prefetch::ask(&self.l2p, l as usize, Soon::Read);
        }
        if n > 0 {
            prefetch::ask(&self.l2p, end as usize - 1, Soon::Read);
        }
    }

    /// Asks the cache for the token of the page `lpn` maps to (this table's entry and,
    /// over frozen tables, theirs), to be read soon. Out-of-range or unmapped LPNs are
    /// ignored, and so is an LPN a sampled base still holds (its token is kept by LPN,
    /// [`Mapping::lpn_token`]); nothing changes.
    #[inline]
    pub fn prefetch_lpn_token(&self, lpn: Lpn) {
        if self.token_by_lpn(lpn) {
            return;
        }
        if let Some(p) = self.lookup(lpn) {
            self.prefetch_token(p);
        }
    }

    /// True when there is no page-indexed token of `lpn` to ask for: `lpn` is out of
    /// range, or nobody rewrote it since a sampled base laid it out (directly, or under
    /// frozen tables), which keeps its token by LPN.
    fn token_by_lpn(&self, lpn: Lpn) -> bool {
        match (self.l2p.get(lpn.idx()), &self.base) {
            (None, _) | (Some(0), Some(Base::Sampled(_))) => true,
            (Some(0), Some(Base::Tables(t))) => t.token_by_lpn(lpn),
            _ => false,
        }
    }

    /// [`Mapping::prefetch_lpn_token`] of a page.
    #[inline]
    fn prefetch_token(&self, ppn: Ppn) {
        prefetch::ask(&self.tokens, ppn.idx(), Soon::Read);
        if let Some(Base::Tables(t)) = &self.base {
            t.prefetch_token(ppn);
        }
    }

    /// Asks the cache for the entries a write of each of `lpns` changes (its forward-map
    /// entry, then the reverse entry of the page it leaves), every LPN's before any of
    /// the next, so that their misses overlap instead of each write waiting for its own
    /// (random overwrites, drawn ahead of the writes). Changes nothing.
    pub fn warm(&self, lpns: impl Iterator<Item = Lpn> + Clone) {
        for l in lpns.clone() {
            prefetch::ask(&self.l2p, l.idx(), Soon::Written);
        }
        for l in lpns {
            if let Some(p) = self.lookup(l) {
                prefetch::ask(&self.p2l, p.idx(), Soon::Written);
            }
        }
    }

    /// Asks the cache, to be written soon, for the reverse-map entry of the page each of
    /// `first .. first + n` maps to in these tables' own entries (an overwrite of those
    /// LPNs marks it invalid), and calls `also` with each such page (a page the base
    /// holds is skipped). Changes nothing.
    #[inline]
    pub fn prefetch_overwrite(&self, first: u32, n: u32, mut also: impl FnMut(Ppn)) {
        let end = first.saturating_add(n).min(self.map_entries());
        for l in first.min(end)..end {
            match self.l2p[l as usize] {
                0 | L2P_UNMAPPED => {}
                v => {
                    prefetch::ask(&self.p2l, (v - 1) as usize, Soon::Written);
                    also(Ppn(v - 1));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PageOwner;

    #[test]
    fn an_overwrite_hint_names_the_pages_the_lpns_leave_and_nothing_else() {
        let mut m = Mapping::new(8, 16);
        m.program(Ppn(9), Lpn(2), 1);
        m.map(Lpn(2), Ppn(9));
        m.program(Ppn(4), Lpn(3), 1);
        m.map(Lpn(3), Ppn(4));
        m.unmap(Lpn(5));
        let mut seen = Vec::new();
        m.prefetch_overwrite(1, 6, |p| seen.push(p));
        assert_eq!(seen, [Ppn(9), Ppn(4)], "mapped LPNs only, in LPN order");
        // Ranges past the map are cut, not an error; an empty one names nothing.
        seen.clear();
        m.prefetch_overwrite(6, u32::MAX, |p| seen.push(p));
        m.prefetch_overwrite(100, 3, |p| seen.push(p));
        m.prefetch_lookups(u32::MAX - 1, 5);
        m.prefetch_lookups(3, 0);
        assert!(seen.is_empty());
        assert_eq!(m.lookup(Lpn(2)), Some(Ppn(9)), "hints change nothing");
        assert_eq!(m.owner(Ppn(4)), PageOwner::Lpn(Lpn(3)));
    }
}
