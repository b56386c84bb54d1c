//! Page-level tables: the forward map (LPN → PPN), the reverse map (PPN → owner), the
//! content token of every physical page and the pending-program bitset.
//!
//! Every table starts all-zero, so `vec![0; n]` gets lazily committed pages from the OS:
//! a 67-million-page device costs nothing until pages are written. The encodings are
//! chosen for that, and a zero entry means "what the base left". The base is the
//! implicit fill when preconditioning laid the device out by formula ([`crate::fill`]),
//! or the frozen tables of a device prepared once and shared by several runs
//! ([`crate::FrozenFtl`]); without one, the base "left" nothing. The table below says
//! "the fill" for the base:
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

use std::sync::Arc;

use ssdlab_nand::{Lpn, Ppn};

use crate::fill::ImplicitFill;

mod changes;
mod hints;
mod sampled;
mod spare;

pub(crate) use sampled::{LpnDeltas, SampledBase};
pub use spare::release_spare_tables;

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

/// What a zero entry of the tables stands for.
#[derive(Clone, Debug)]
enum Base {
    /// The implicit fill preconditioning laid out.
    Fill(Box<ImplicitFill>),
    /// The tables of a prepared device several runs share (read only).
    Tables(Arc<Mapping>),
    /// Planes that take the state of sample planes (sampled aging).
    Sampled(Box<SampledBase>),
}

/// The page-level tables. Pure storage: the [`crate::Ftl`] keeps them consistent with
/// the block manager.
#[derive(Clone, Debug)]
pub(crate) struct Mapping {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    tokens: Vec<u64>,
    pending: Vec<u64>,
    /// What zero entries stand for, if anything.
    base: Option<Base>,
    /// Pages per block (for `erased`).
    ppb: u32,
    /// One bit per block: erased since the base was laid (empty without a base).
    erased: Vec<u64>,
    /// Over a frozen base only: the regions of the tables written, so that they can be
    /// reused zeroed once dropped ([`spare`]), and never-written regions are not read.
    written: Option<spare::Written>,
}

impl Mapping {
    /// Tables for `map_entries` LPNs over `pages` physical pages, all unmapped and free.
    pub fn new(map_entries: u32, pages: u32) -> Mapping {
        let (map_entries, pages) = (map_entries as usize, pages as usize);
        Mapping {
            l2p: vec![0; map_entries],
            p2l: vec![P2L_FREE; pages],
            tokens: vec![0; pages],
            pending: vec![0; pages.div_ceil(64)],
            base: None,
            ppb: 0,
            erased: Vec::new(),
            written: None,
        }
    }

    /// Empty tables over `base`, a device's tables frozen to be shared: every page and
    /// LPN reads as `base` has it until this copy writes it. `ppb` is pages per block.
    pub fn over(base: Arc<Mapping>, ppb: u32) -> Mapping {
        debug_assert!(
            base.pending.iter().all(|&w| w == 0),
            "a base with pages pending"
        );
        let (map_entries, pages) = (base.l2p.len(), base.p2l.len());
        let mut m = match spare::take(map_entries, pages) {
            Some(t) => Mapping {
                l2p: t.l2p,
                p2l: t.p2l,
                tokens: t.tokens,
                pending: t.pending,
                base: None,
                ppb: 0,
                erased: Vec::new(),
                written: Some(t.written),
            },
            None => {
                let mut m = Mapping::new(map_entries as u32, pages as u32);
                m.written = Some(spare::Written::new(map_entries, pages));
                m
            }
        };
        m.set_base(Base::Tables(base), ppb);
        m
    }

    /// Whether an implicit fill is laid out.
    pub fn has_fill(&self) -> bool {
        matches!(self.base, Some(Base::Fill(_)))
    }

    /// How many frozen tables these read through to.
    pub fn frozen_layers(&self) -> usize {
        match &self.base {
            Some(Base::Tables(t)) => 1 + t.frozen_layers(),
            _ => 0,
        }
    }

    /// Lays out `fill` over the untouched tables.
    pub fn set_fill(&mut self, fill: ImplicitFill) {
        let ppb = fill.ppb();
        self.set_base(Base::Fill(Box::new(fill)), ppb);
    }

    /// Lays `sampled` out over the untouched tables of a device of `ppb` pages per block.
    pub fn set_sampled(&mut self, sampled: SampledBase, ppb: u32) {
        self.set_base(Base::Sampled(Box::new(sampled)), ppb);
    }

    /// Lays `base` out over the untouched tables, blocks of `ppb` pages, none erased.
    fn set_base(&mut self, base: Base, ppb: u32) {
        debug_assert!(self.base.is_none(), "a second base");
        let blocks = self.p2l.len() / ppb as usize;
        self.erased = vec![0; blocks.div_ceil(64)];
        self.ppb = ppb;
        self.base = Some(base);
    }

    /// True if `ppn`'s block was erased since the base was laid.
    #[inline]
    fn erased_since_base(&self, ppn: Ppn) -> bool {
        let b = (ppn.0 / self.ppb) as usize;
        self.erased[b / 64] >> (b % 64) & 1 == 1
    }

    /// The owner the base left in `ppn`, if the page still holds what the base left
    /// (its block was not erased since); `Free` without a base.
    #[inline]
    fn base_owner(&self, ppn: Ppn) -> PageOwner {
        match &self.base {
            None => PageOwner::Free,
            Some(_) if self.erased_since_base(ppn) => PageOwner::Free,
            Some(Base::Fill(f)) => f.lpn_at(ppn).map_or(PageOwner::Free, PageOwner::Lpn),
            Some(Base::Tables(t)) => t.owner(ppn),
            Some(Base::Sampled(s)) => s.owner(ppn),
        }
    }

    /// The base's token in `ppn` (0 where the base left nothing).
    #[inline]
    fn base_token(&self, ppn: Ppn) -> u64 {
        match &self.base {
            None => 0,
            Some(_) if self.erased_since_base(ppn) => 0,
            Some(Base::Fill(f)) => f.lpn_at(ppn).map_or(0, |l| f.token(l)),
            Some(Base::Tables(t)) => t.token(ppn),
            Some(Base::Sampled(s)) => s.token(ppn),
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
            + match &self.base {
                Some(Base::Fill(f)) => f.heap_bytes(),
                Some(Base::Sampled(s)) => s.heap_bytes(),
                // Shared: counted once, by whoever froze it.
                Some(Base::Tables(_)) | None => 0,
            }
    }

    /// Where `lpn` lives, if it is mapped.
    #[inline(always)]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        match self.l2p[lpn.idx()] {
            0 => match &self.base {
                Some(Base::Fill(f)) if lpn.0 < f.fill() => Some(f.ppn_of(lpn)),
                Some(Base::Tables(t)) => t.lookup(lpn),
                Some(Base::Sampled(s)) => s.lookup(lpn),
                _ => None,
            },
            L2P_UNMAPPED => None,
            v => Some(Ppn(v - 1)),
        }
    }

    /// The token `lpn` holds, if it is mapped: [`Mapping::lookup`] then
    /// [`Mapping::token`], without the reverse look-up a sampled base would make.
    #[inline]
    pub fn lpn_token(&self, lpn: Lpn) -> Option<u64> {
        if let (0, Some(Base::Sampled(s))) = (self.l2p[lpn.idx()], &self.base) {
            // An LPN nobody rewrote still lies where its sample put it, in a block not
            // erased since, and its content is all in the base (`set_token`).
            let token = s.lpn_token(lpn).map(|(_, t)| t);
            debug_assert_eq!(token, self.lookup(lpn).map(|p| self.token(p)), "{lpn}");
            return token;
        }
        self.lookup(lpn).map(|p| self.token(p))
    }

    /// Replaces the token of the page `lpn` maps to, which it returns (`None`, nothing
    /// done, if `lpn` is unmapped); on a sampled base without the reverse look-up.
    pub fn set_lpn_token(&mut self, lpn: Lpn, token: u64) -> Option<Ppn> {
        if let (0, Some(Base::Sampled(s))) = (self.l2p[lpn.idx()], &mut self.base) {
            return s.set_lpn_token(lpn, token);
        }
        let p = self.lookup(lpn)?;
        self.set_token(p, token);
        Some(p)
    }

    /// The valid pages among `first .. first + n` (those whose owner's forward map points
    /// to them) with their LPNs, in page order, into `out` (cleared first). In two
    /// passes, so that the forward-map reads, one per page and scattered over the map,
    /// are independent of each other and overlap; and a page the fill wrote, whose LPN
    /// nobody remapped, is valid without the fill's forward formula.
    pub fn valid_pages(&self, first: Ppn, n: u32, out: &mut Vec<(Ppn, Lpn)>) {
        out.clear();
        for ppn in (first.0..first.0 + n).map(Ppn) {
            if let PageOwner::Lpn(lpn) = self.owner(ppn) {
                out.push((ppn, lpn));
            }
        }
        let fill = self.has_fill();
        out.retain(|&(ppn, lpn)| match self.l2p[lpn.idx()] {
            // The fill's LPN at `ppn`, where the fill put it.
            0 if fill && self.p2l[ppn.idx()] == P2L_FREE => true,
            0 => self.lookup(lpn) == Some(ppn),
            v => v == ppn.0 + 1,
        });
    }

    /// Points `lpn` at `ppn`.
    #[inline]
    pub fn map(&mut self, lpn: Lpn, ppn: Ppn) {
        self.l2p[lpn.idx()] = ppn.0 + 1;
        self.mark(|w| w.l2p.mark(lpn.idx()));
    }

    /// Unmaps `lpn`.
    #[inline]
    pub fn unmap(&mut self, lpn: Lpn) {
        self.l2p[lpn.idx()] = L2P_UNMAPPED;
        self.mark(|w| w.l2p.mark(lpn.idx()));
    }

    /// The owner of `ppn`.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> PageOwner {
        match self.p2l[ppn.idx()] {
            P2L_FREE => self.base_owner(ppn),
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
        self.mark(|w| {
            w.p2l.mark(ppn.idx());
            w.tokens.mark(ppn.idx());
        });
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
        self.mark(|w| w.p2l.mark(ppn.idx()));
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
        self.mark(|w| w.p2l.mark(ppn.idx()));
    }

    /// Marks a free page written with no data (a block closed before it was full).
    pub fn skip(&mut self, ppn: Ppn) {
        debug_assert_eq!(self.owner(ppn), PageOwner::Free, "skipping page {ppn}");
        self.p2l[ppn.idx()] = P2L_INVALID;
        self.mark(|w| w.p2l.mark(ppn.idx()));
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
        self.tokens[range.clone()].fill(0);
        self.mark(|w| {
            w.p2l.mark_range(range.clone());
            w.tokens.mark_range(range);
        });
        if self.base.is_some() {
            let b = (first.0 / self.ppb) as usize;
            self.erased[b / 64] |= 1 << (b % 64);
        }
    }

    /// The content token of `ppn` (0 = never written since the last erase).
    #[inline]
    pub fn token(&self, ppn: Ppn) -> u64 {
        // Over a frozen base, a region never written is zero: not reading it spares a
        // page fault (the audits read every page's token).
        let t = self.own_token(ppn);
        if self.base.is_none() {
            return t;
        }
        t ^ self.base_token(ppn)
    }

    /// The content token of `ppn`, whose owner is `lpn` ([`Mapping::token`] without the
    /// fill's reverse formula on a page the fill wrote).
    #[inline]
    pub fn token_of(&self, ppn: Ppn, lpn: Lpn) -> u64 {
        debug_assert_eq!(self.owner(ppn), PageOwner::Lpn(lpn));
        match &self.base {
            // A free reverse entry with an owner: the page still holds the fill's data.
            Some(Base::Fill(f)) if self.p2l[ppn.idx()] == P2L_FREE => {
                self.own_token(ppn) ^ f.token(lpn)
            }
            _ => self.token(ppn),
        }
    }

    /// The token entry of `ppn` in these tables (zero where they never wrote one).
    #[inline(always)]
    fn own_token(&self, ppn: Ppn) -> u64 {
        match &self.written {
            Some(w) if !w.tokens.has(ppn.idx()) => 0,
            _ => self.tokens[ppn.idx()],
        }
    }

    /// Records a write in the written regions, if they are kept.
    #[inline(always)]
    fn mark(&mut self, f: impl FnOnce(&mut spare::Written)) {
        if let Some(w) = &mut self.written {
            f(w);
        }
    }

    /// Replaces the content token of a written page.
    pub fn set_token(&mut self, ppn: Ppn, token: u64) {
        debug_assert!(
            matches!(self.owner(ppn), PageOwner::Lpn(_)),
            "set_token on unwritten {ppn}"
        );
        if self.p2l[ppn.idx()] == P2L_FREE {
            // A page as the base left it (it holds data, so its block was not erased
            // since): a sampled base keeps the change itself, by LPN, and the page's
            // own entry stays zero.
            if let Some(Base::Sampled(s)) = &mut self.base {
                s.set_token(ppn, token);
                return;
            }
        }
        self.tokens[ppn.idx()] = token ^ self.base_token(ppn);
        self.mark(|w| w.tokens.mark(ppn.idx()));
    }

    /// True while a program into `ppn` is outstanding.
    #[inline]
    pub fn is_pending(&self, ppn: Ppn) -> bool {
        self.pending[ppn.idx() / 64] >> (ppn.0 % 64) & 1 == 1
    }

    #[inline]
    fn set_pending(&mut self, ppn: Ppn) {
        self.pending[ppn.idx() / 64] |= 1 << (ppn.0 % 64);
        self.mark(|w| w.pending.mark(ppn.idx() / 64));
    }

    /// Clears the pending bit; returns whether it was set.
    #[inline]
    pub fn clear_pending(&mut self, ppn: Ppn) -> bool {
        let was = self.is_pending(ppn);
        self.pending[ppn.idx() / 64] &= !(1 << (ppn.0 % 64));
        was
    }
}

impl Drop for Mapping {
    /// The tables of a run on a shared device are kept for the next such run
    /// ([`spare`]).
    fn drop(&mut self) {
        if let Some(written) = self.written.take() {
            spare::give(spare::Tables {
                l2p: std::mem::take(&mut self.l2p),
                p2l: std::mem::take(&mut self.p2l),
                tokens: std::mem::take(&mut self.tokens),
                pending: std::mem::take(&mut self.pending),
                written,
            });
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
