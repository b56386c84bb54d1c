//! Page-level tables: the forward map (LPN → PPN), the reverse map (PPN → owner), the
//! content token of every physical page and the pending-program bitset.
//!
//! Every table starts all-zero, so `vec![0; n]` gets lazily committed pages from the OS:
//! a 67-million-page device costs nothing until pages are written. The encodings are
//! chosen for that, and a zero entry means "what the implicit fill left" when
//! preconditioning laid the device out by formula ([`crate::fill`]; without one, the
//! fill "left" nothing):
//!
//! | table    | entry | 0                                   | other values                          |
//! |----------|-------|-------------------------------------|---------------------------------------|
//! | `l2p`    | `u32` | the fill's page if `lpn < fill`, else unmapped | `ppn + 1`; `u32::MAX` = unmapped |
//! | `p2l`    | `u32` | the fill's LPN if the fill wrote the page and its block was not erased since, else free | `lpn + 1`; `u32::MAX` = invalid |
//! | `tokens` | `u64` | the fill's token on a page the fill wrote (as for `p2l`), else never written | the token, XOR the fill's token on a page the fill wrote |
//! | pending  | 1 bit | not pending                         | program issued, not yet done          |
//!
//! One more bit per block says whether the block was erased since the fill. Pages the run
//! never touches keep zero entries, so memory follows the pages the trace, GC and aging
//! touch, not the device. Every access goes through the accessors below.

use ssdlab_nand::{Lpn, Ppn};

use crate::fill::ImplicitFill;

/// `p2l` value of a page that holds no data since its last erase (or what the fill left).
const P2L_FREE: u32 = 0;
/// `p2l` value of a page whose data is stale.
const P2L_INVALID: u32 = u32::MAX;
/// `l2p` value of an unmapped LPN (0 is "the fill's page, or unmapped").
const L2P_UNMAPPED: u32 = u32::MAX;

/// Who a physical page belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageOwner {
    /// Erased, not yet programmed.
    Free,
    /// Programmed (or being programmed) with data no LPN needs any more.
    Invalid,
    /// Holds (or is being programmed with) data of this LPN. The forward map points here,
    /// except for the destination of a GC move still in flight.
    Lpn(Lpn),
}

/// The page-level tables. Pure storage: the [`crate::Ftl`] keeps them consistent with
/// the block manager.
#[derive(Clone, Debug)]
pub(crate) struct Mapping {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    tokens: Vec<u64>,
    pending: Vec<u64>,
    /// The implicit fill, when preconditioning laid one out.
    fill: Option<Box<ImplicitFill>>,
    /// One bit per block: erased since the implicit fill (empty without one).
    erased: Vec<u64>,
}

impl Mapping {
    /// Tables for `map_entries` LPNs over `pages` physical pages, all unmapped and free.
    pub fn new(map_entries: u32, pages: u32) -> Mapping {
        Mapping {
            l2p: vec![0; map_entries as usize],
            p2l: vec![P2L_FREE; pages as usize],
            tokens: vec![0; pages as usize],
            pending: vec![0; (pages as usize).div_ceil(64)],
            fill: None,
            erased: Vec::new(),
        }
    }

    /// Whether an implicit fill is laid out.
    pub fn has_fill(&self) -> bool {
        self.fill.is_some()
    }

    /// Lays out `fill` over the untouched tables of a device of `blocks` blocks.
    pub fn set_fill(&mut self, fill: ImplicitFill, blocks: u32) {
        debug_assert!(self.fill.is_none(), "a second implicit fill");
        self.erased = vec![0; (blocks as usize).div_ceil(64)];
        self.fill = Some(Box::new(fill));
    }

    /// The LPN the implicit fill left in `ppn`, if the page still holds what the fill
    /// wrote (its block was not erased since).
    #[inline]
    fn filled_lpn(&self, ppn: Ppn) -> Option<Lpn> {
        let f = self.fill.as_deref()?;
        let b = (ppn.0 / f.ppb()) as usize;
        if self.erased[b / 64] >> (b % 64) & 1 == 1 {
            return None;
        }
        f.lpn_at(ppn)
    }

    /// The fill's token in `ppn` (0 where the fill left nothing).
    #[inline]
    fn filled_token(&self, ppn: Ppn) -> u64 {
        match self.filled_lpn(ppn) {
            Some(l) => self.fill.as_deref().map_or(0, |f| f.token(l)),
            None => 0,
        }
    }

    /// Number of LPNs the map holds.
    #[inline]
    pub fn map_entries(&self) -> u32 {
        self.l2p.len() as u32
    }

    /// Heap bytes held by the tables.
    pub fn heap_bytes(&self) -> u64 {
        (self.l2p.capacity() * 4
            + self.p2l.capacity() * 4
            + self.tokens.capacity() * 8
            + self.pending.capacity() * 8
            + self.erased.capacity() * 8) as u64
            + self.fill.as_ref().map_or(0, |f| f.heap_bytes())
    }

    /// Where `lpn` lives, if it is mapped.
    #[inline(always)]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        match self.l2p[lpn.idx()] {
            0 => match self.fill.as_deref() {
                Some(f) if lpn.0 < f.fill() => Some(f.ppn_of(lpn)),
                _ => None,
            },
            L2P_UNMAPPED => None,
            v => Some(Ppn(v - 1)),
        }
    }

    /// Points `lpn` at `ppn`.
    #[inline]
    pub fn map(&mut self, lpn: Lpn, ppn: Ppn) {
        self.l2p[lpn.idx()] = ppn.0 + 1;
    }

    /// Unmaps `lpn`.
    #[inline]
    pub fn unmap(&mut self, lpn: Lpn) {
        self.l2p[lpn.idx()] = L2P_UNMAPPED;
    }

    /// The owner of `ppn`.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> PageOwner {
        match self.p2l[ppn.idx()] {
            P2L_FREE => match self.filled_lpn(ppn) {
                Some(l) => PageOwner::Lpn(l),
                None => PageOwner::Free,
            },
            P2L_INVALID => PageOwner::Invalid,
            v => PageOwner::Lpn(Lpn(v - 1)),
        }
    }

    /// True if `ppn` holds data of an LPN and the forward map points to it.
    #[inline]
    pub fn is_mapped_here(&self, ppn: Ppn) -> bool {
        match self.owner(ppn) {
            PageOwner::Lpn(l) => self.lookup(l) == Some(ppn),
            _ => false,
        }
    }

    /// Programs a free page with `lpn`'s data: owner, token, pending bit.
    /// The forward map is left alone.
    #[inline]
    pub fn program(&mut self, ppn: Ppn, lpn: Lpn, token: u64) {
        debug_assert_eq!(
            self.owner(ppn),
            PageOwner::Free,
            "programming a used page {ppn}"
        );
        debug_assert!(!self.is_pending(ppn), "page {ppn} is free but pending");
        self.p2l[ppn.idx()] = lpn.0 + 1;
        self.tokens[ppn.idx()] = token;
        self.set_pending(ppn);
    }

    /// Makes written page `ppn` name `lpn` (a rename, or a GC copy committing to the
    /// identity its source has now).
    #[inline]
    pub fn set_owner(&mut self, ppn: Ppn, lpn: Lpn) {
        debug_assert!(
            matches!(self.owner(ppn), PageOwner::Lpn(_)),
            "set_owner on {ppn} in state {:?}",
            self.owner(ppn)
        );
        self.p2l[ppn.idx()] = lpn.0 + 1;
    }

    /// Marks a page that held `lpn`'s data invalid.
    #[inline]
    pub fn invalidate(&mut self, ppn: Ppn) {
        debug_assert!(
            matches!(self.owner(ppn), PageOwner::Lpn(_)),
            "invalidating page {ppn} in state {:?}",
            self.owner(ppn)
        );
        self.p2l[ppn.idx()] = P2L_INVALID;
    }

    /// Returns the pages `first .. first + n` to the free state (after an erase).
    pub fn erase(&mut self, first: Ppn, n: u32) {
        let range = first.idx()..first.idx() + n as usize;
        for p in range.clone() {
            debug_assert!(
                !matches!(self.owner(Ppn(p as u32)), PageOwner::Lpn(_)),
                "erasing page {p} that holds data"
            );
            debug_assert!(!self.is_pending(Ppn(p as u32)), "erasing pending page {p}");
        }
        self.p2l[range.clone()].fill(P2L_FREE);
        self.tokens[range].fill(0);
        if let Some(f) = self.fill.as_deref() {
            let b = (first.0 / f.ppb()) as usize;
            self.erased[b / 64] |= 1 << (b % 64);
        }
    }

    /// The content token of `ppn` (0 = never written since the last erase).
    #[inline]
    pub fn token(&self, ppn: Ppn) -> u64 {
        let t = self.tokens[ppn.idx()];
        if self.fill.is_none() {
            return t;
        }
        t ^ self.filled_token(ppn)
    }

    /// Replaces the content token of a written page.
    pub fn set_token(&mut self, ppn: Ppn, token: u64) {
        debug_assert!(
            matches!(self.owner(ppn), PageOwner::Lpn(_)),
            "set_token on unwritten {ppn}"
        );
        self.tokens[ppn.idx()] = token ^ self.filled_token(ppn);
    }

    /// True while a program into `ppn` is outstanding.
    #[inline]
    pub fn is_pending(&self, ppn: Ppn) -> bool {
        self.pending[ppn.idx() / 64] >> (ppn.0 % 64) & 1 == 1
    }

    #[inline]
    fn set_pending(&mut self, ppn: Ppn) {
        self.pending[ppn.idx() / 64] |= 1 << (ppn.0 % 64);
    }

    /// Clears the pending bit; returns whether it was set.
    #[inline]
    pub fn clear_pending(&mut self, ppn: Ppn) -> bool {
        let was = self.is_pending(ppn);
        self.pending[ppn.idx() / 64] &= !(1 << (ppn.0 % 64));
        was
    }
}

/// The tables as plain slices, for set-up that writes them in bulk (sampled aging):
/// entries are written with [`encode_ppn`] and [`encode_owner`]; no page is pending.
pub(crate) struct RawTables<'a> {
    pub l2p: &'a mut [u32],
    pub p2l: &'a mut [u32],
    pub tokens: &'a mut [u64],
}

/// The `l2p` entry of an LPN mapped to `ppn`.
#[inline]
pub(crate) fn encode_ppn(ppn: Ppn) -> u32 {
    ppn.0 + 1
}

/// The `p2l` entry of a page owned by `owner`.
#[inline]
pub(crate) fn encode_owner(owner: PageOwner) -> u32 {
    match owner {
        PageOwner::Free => P2L_FREE,
        PageOwner::Invalid => P2L_INVALID,
        PageOwner::Lpn(l) => l.0 + 1,
    }
}

impl Mapping {
    /// The tables as slices (see [`RawTables`]). Only for a device with nothing pending.
    pub(crate) fn raw_mut(&mut self) -> RawTables<'_> {
        debug_assert!(self.pending.iter().all(|&w| w == 0), "pages pending");
        debug_assert!(self.fill.is_none(), "raw tables under an implicit fill");
        RawTables {
            l2p: &mut self.l2p,
            p2l: &mut self.p2l,
            tokens: &mut self.tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_tables_are_unmapped_and_free() {
        let m = Mapping::new(10, 130);
        assert_eq!(m.map_entries(), 10);
        assert_eq!(m.lookup(Lpn(9)), None);
        assert_eq!(m.owner(Ppn(129)), PageOwner::Free);
        assert_eq!(m.token(Ppn(0)), 0);
        assert!(!m.is_pending(Ppn(129)));
        assert_eq!(m.heap_bytes(), 10 * 4 + 130 * 12 + 3 * 8);
    }

    #[test]
    fn page_life_cycle() {
        let mut m = Mapping::new(4, 8);
        m.program(Ppn(0), Lpn(0), 11); // page 0 = PPN 0, LPN 0: the zero encodings matter
        m.map(Lpn(0), Ppn(0));
        assert_eq!(m.lookup(Lpn(0)), Some(Ppn(0)));
        assert_eq!(m.owner(Ppn(0)), PageOwner::Lpn(Lpn(0)));
        assert!(m.is_mapped_here(Ppn(0)));
        assert!(m.is_pending(Ppn(0)));
        assert!(m.clear_pending(Ppn(0)));
        assert!(!m.clear_pending(Ppn(0)));
        m.program(Ppn(5), Lpn(0), m.token(Ppn(0)));
        assert_eq!(m.token(Ppn(5)), 11);
        assert!(
            !m.is_mapped_here(Ppn(5)),
            "a copy the map does not point to"
        );
        assert!(m.clear_pending(Ppn(5)));
        m.invalidate(Ppn(0));
        m.map(Lpn(0), Ppn(5));
        assert_eq!(m.owner(Ppn(0)), PageOwner::Invalid);
        m.erase(Ppn(0), 4);
        assert_eq!(m.owner(Ppn(0)), PageOwner::Free);
        assert_eq!(m.token(Ppn(0)), 0);
        m.unmap(Lpn(0));
        assert_eq!(m.lookup(Lpn(0)), None);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "programming a used page")]
    fn programming_twice_trips_the_state_machine() {
        let mut m = Mapping::new(4, 8);
        m.program(Ppn(1), Lpn(0), 1);
        m.program(Ppn(1), Lpn(1), 2);
    }
}
