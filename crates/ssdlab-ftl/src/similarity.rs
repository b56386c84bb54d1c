//! What the FTL knows about content: the content index's queries (DS-FTL's placement
//! and multi-path reads ask them) and the per-plane duplicate-content rate (DS-FTL
//! figures 4, 11 and 12).
//!
//! The index itself is `content.rs`; the FTL calls its hooks wherever a page becomes or
//! stops being mapped: [`Ftl::host_write`] (the new page, and the old one it
//! invalidates), [`Ftl::trim`], [`Ftl::gc_finish_move`] and [`Ftl::set_token`].

use ssdlab_nand::{ChipId, Lpn, PlaneId, Ppn};

use crate::content::{ContentIndex, ContentIndexConfig, ContentIndexStats, GroupEvent, Probe};
use crate::ftl::Ftl;

impl Ftl {
    /// Keeps a content index from now on (pages already mapped are indexed at once, from
    /// the written pages of the blocks: nothing to walk on a fresh device).
    pub fn enable_content_index(&mut self, cfg: &ContentIndexConfig) {
        let mut ix = ContentIndex::new(&self.geom, cfg);
        for b in 0..self.geom.blocks() {
            let written = u32::from(self.blocks.blocks[b as usize].write_ptr);
            let first = self.geom.page_of_block(ssdlab_nand::BlockId(b), 0).0;
            for p in (first..first + written).map(Ppn) {
                let data = matches!(self.map.owner(p),
                    crate::PageOwner::Lpn(l) if l.0 < self.map_entries() - self.slots);
                if data && self.is_valid(p) {
                    ix.insert(p, self.map.token(p));
                }
            }
        }
        self.content = Some(Box::new(ix));
    }

    /// True when the FTL keeps a content index.
    #[inline]
    pub fn has_content_index(&self) -> bool {
        self.content.is_some()
    }

    /// Valid pages holding `token` (0 without a content index).
    #[inline]
    pub fn content_copies(&self, token: u64) -> u32 {
        self.content.as_ref().map_or(0, |ix| ix.copies(token))
    }

    /// The fingerprint-table unit (channel or chip index) of `chip`. Panics without a
    /// content index.
    #[inline]
    pub fn content_unit_of(&self, chip: ChipId) -> u32 {
        self.index().unit_of_chip(chip.0)
    }

    /// Whether `unit` holds a valid page with `token`, as its fingerprint table says and
    /// exactly; the page `own` maps to does not count when `own` is given. Panics
    /// without a content index.
    pub fn content_probe(&self, token: u64, unit: u32, own: Option<Lpn>) -> Probe {
        let except = own
            .and_then(|l| self.map.lookup(l))
            .filter(|&p| self.map.token(p) == token);
        self.index().probe(token, unit, except)
    }

    /// Calls `f` with one page per chip other than `ppn`'s that holds `ppn`'s content,
    /// is valid and programmed (not pending), in chip order: the copies a read of `ppn`
    /// may take instead. Nothing without a content index.
    pub fn duplicate_copies(&self, ppn: Ppn, mut f: impl FnMut(Ppn)) {
        if let Some(ix) = &self.content {
            let own_chip = self.geom.chip_of_page(ppn);
            let token = self.map.token(ppn);
            ix.copies_elsewhere(token, own_chip, |p| !self.map.is_pending(p), &mut f);
        }
    }

    /// Sizes and memory of the content index, if there is one.
    pub fn content_stats(&self) -> Option<ContentIndexStats> {
        self.content.as_ref().map(|ix| ix.stats())
    }

    fn index(&self) -> &ContentIndex {
        self.content
            .as_deref()
            .expect("the FTL keeps no content index")
    }

    /// `ppn` became mapped with `token`.
    #[inline]
    pub(crate) fn content_insert(&mut self, ppn: Ppn, token: u64) {
        if let Some(ix) = self.content.as_mut() {
            ix.insert(ppn, token);
        }
    }

    /// `ppn` is no longer mapped (before its reverse entry changes).
    #[inline]
    pub(crate) fn content_remove(&mut self, ppn: Ppn) {
        if let Some(ix) = self.content.as_mut() {
            ix.remove(ppn, self.map.token(ppn));
        }
    }

    /// A GC move made `dst` the mapped page of `lpn` instead of `src` (translation pages,
    /// the slots [`Ftl::map_write`] writes, are not indexed).
    #[inline]
    pub(crate) fn content_replace(&mut self, src: Ppn, dst: Ppn, lpn: Lpn) {
        if self.content.is_none() || lpn.0 >= self.map_entries() - self.slots {
            return;
        }
        let token = self.map.token(dst);
        if let Some(ix) = self.content.as_mut() {
            ix.replace(src, dst, token);
        }
    }

    /// Logs every change of a group from now on, for [`Ftl::take_group_events`] (the
    /// cached map's cost of DS-FTL's secondary table). Panics without a content index.
    pub fn log_group_changes(&mut self) {
        self.content
            .as_mut()
            .expect("the FTL keeps no content index")
            .log_events();
    }

    /// Moves the group changes logged since the last call to `out`.
    #[inline]
    pub fn take_group_events(&mut self, out: &mut Vec<GroupEvent>) {
        if let Some(ix) = self.content.as_mut() {
            ix.take_events(out);
        }
    }

    /// The group (the paper's virtual page number) holding `ppn`'s content when two or
    /// more mapped pages hold it; `None` for unique content or without a content index.
    #[inline]
    pub fn content_group(&self, ppn: Ppn) -> Option<u32> {
        let ix = self.content.as_ref()?;
        ix.group_of(self.map.token(ppn))
    }

    /// A fingerprint of group `g`'s pages (0 for a group not in use, or without a
    /// content index): for verify mode's audit of the cached map.
    pub fn content_group_fingerprint(&self, g: u32) -> u64 {
        self.content
            .as_ref()
            .map_or(0, |ix| ix.group_fingerprint(g))
    }

    /// Checks the content index against the forward map (the index invariants of
    /// `docs/FTL.md`).
    pub(crate) fn check_content_index(&self) {
        let Some(ix) = &self.content else { return };
        let members: Vec<(Ppn, u64)> = (0..self.map_entries() - self.slots)
            .filter_map(|l| self.map.lookup(Lpn(l)))
            .map(|p| (p, self.map.token(p)))
            .filter(|&(_, t)| t != 0)
            .collect();
        ix.check(&members);
    }

    /// Per plane, `1 − distinct tokens / pages` over its written pages: every page
    /// programmed (or being programmed) since its block's last erase when `valid_only` is
    /// false, the valid pages only when true; 0 for a plane without such pages. One pass
    /// over the written pages (DS-FTL's per-plane data redundancy rate).
    pub fn plane_duplicate_rates(&self, valid_only: bool) -> Vec<f64> {
        let mut tokens = Vec::new();
        (0..self.geom.planes())
            .map(|p| {
                tokens.clear();
                for b in self.blocks.blocks_of(PlaneId(p)) {
                    let first = self.geom.page_of_block(ssdlab_nand::BlockId(b), 0).0;
                    let written = u32::from(self.blocks.blocks[b as usize].write_ptr);
                    tokens.extend(
                        (first..first + written)
                            .map(Ppn)
                            .filter(|&q| !valid_only || self.is_valid(q))
                            .map(|q| self.map.token(q)),
                    );
                }
                if tokens.is_empty() {
                    return 0.0;
                }
                tokens.sort_unstable();
                let n = tokens.len();
                tokens.dedup();
                1.0 - tokens.len() as f64 / n as f64
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::content::{ContentFilter, ContentIndexConfig, ContentUnit};
    use crate::testutil::{small_cfg, tiny};
    use crate::Ftl;
    use ssdlab_engine::SimRng;
    use ssdlab_nand::{Lpn, PlaneId};

    fn ftl() -> Ftl {
        let mut f = Ftl::new(&small_cfg(), &tiny(), 100, SimRng::new(1)).unwrap();
        f.enable_content_index(&ContentIndexConfig {
            unit: ContentUnit::Channel,
            filter: ContentFilter::Exact,
            bloom_bits_per_page: 10,
            bloom_hashes: 7,
            bloom_rebuild_writes: 0,
        });
        f
    }

    #[test]
    fn writes_overwrites_trims_and_moves_keep_the_index() {
        let mut f = ftl();
        // Planes 0 and 4 are on chips 0 and 2 (channel 0), plane 2 on chip 1 (channel 1).
        let a = f.host_write(Lpn(1), PlaneId(0), 50).unwrap();
        let b = f.host_write(Lpn(2), PlaneId(2), 50).unwrap();
        f.check_invariants();
        assert_eq!(f.content_copies(50), 2);
        let copies = |f: &Ftl, p| {
            let mut out = Vec::new();
            f.duplicate_copies(p, |q| out.push(q));
            out
        };
        assert!(
            copies(&f, a).is_empty(),
            "the copy on chip 1 is still being programmed"
        );
        f.program_done(a);
        f.program_done(b);
        assert_eq!(copies(&f, a), [b]);
        let unit = f.content_unit_of(f.geometry().chip_of_page(a));
        assert!(f.content_probe(50, unit, None).exact);
        assert!(
            !f.content_probe(50, unit, Some(Lpn(1))).exact,
            "own page excluded"
        );
        // Overwrite LPN 2 with other content: the group shrinks to LPN 1's page.
        let c = f.host_write(Lpn(2), PlaneId(4), 60).unwrap();
        f.program_done(c);
        f.check_invariants();
        assert_eq!(f.content_copies(50), 1);
        assert!(copies(&f, a).is_empty());
        f.trim(Lpn(1));
        assert_eq!(f.content_copies(50), 0);
        f.check_invariants();
    }

    #[test]
    fn plane_duplicate_rates_count_written_or_valid_pages() {
        let mut f = ftl();
        for (lpn, token) in [(0, 5), (1, 5), (2, 6), (0, 7)] {
            let p = f.host_write(Lpn(lpn), PlaneId(0), token).unwrap();
            f.program_done(p);
        }
        let written = f.plane_duplicate_rates(false);
        let valid = f.plane_duplicate_rates(true);
        // Written: tokens 5, 5, 6, 7 (one repeat in four); valid: 5, 6, 7.
        assert_eq!(written[0], 0.25);
        assert_eq!(valid[0], 0.0);
        assert_eq!(written[1], 0.0, "an empty plane");
    }
}
