//! The content index: DS-FTL's 1-to-n map (paper §4.3.1) and its per-unit fingerprint
//! tables (§4.2.2), kept by the FTL so that every path that changes which pages hold
//! data (host writes, overwrites, trims, GC moves, preconditioning) keeps it right.
//!
//! ```text
//!  token ─► table ─► One(ppn)                       the content has one valid page
//!                └─► Group ─► bucket (chip 0) ─► ppn ⇄ ppn ⇄ …   pages on chip 0
//!                             bucket (chip 5) ─► ppn            (buckets by chip order)
//!  unit (channel or chip) ─► fingerprint table: exact (from the buckets) or a Bloom filter
//! ```
//!
//! The forward map stays one-to-one: each LPN maps to its own page, and each valid page
//! has one owner. The index adds, for every content token held by at least one *mapped*
//! page (the page its LPN maps to, its program possibly still outstanding), the set of
//! those pages: the paper's secondary table, whose groups of two or more pages are its
//! virtual PPNs. Invalid pages, free pages and GC copies not yet finished are never
//! members. A group's pages are kept per chip in intrusive doubly linked lists (two
//! `u32` links per physical page, zero until a page joins a group), so that every update
//! and every query is O(chips holding the content), whatever the group's size.
//!
//! A unit's fingerprint table answers "does this unit hold a page with this content?".
//! The exact answer comes from the buckets; with a Bloom filter (`ContentFilter::Bloom`,
//! counting, or `BloomPlain`) the filter answers and may say yes wrongly, never no
//! wrongly. A token enters a unit's filter when the unit gains its first page of that
//! content and leaves it when the unit loses its last one, so a filter holds the set of
//! contents resident in its unit.

mod groups;

use crate::bloom::Bloom;
use groups::Groups;
use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::{ChipId, Geometry, Ppn};

/// The unit a fingerprint table covers (`dsftl.scope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ContentUnit {
    /// One table per channel (paper §4.2.1 (2): "the least parallelism restriction").
    #[default]
    Channel,
    /// One table per chip.
    Chip,
}

/// How a unit's fingerprint table answers (`dsftl.filter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ContentFilter {
    /// Exactly, from the index.
    Exact,
    /// A counting Bloom filter per unit (4-bit counters, deletion on the last page).
    #[default]
    Bloom,
    /// A plain Bloom filter per unit: never deletes, rebuilt from the index every
    /// `bloom_rebuild_writes` inserts (0: never).
    BloomPlain,
}

/// What the content index is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContentIndexConfig {
    /// The unit of the fingerprint tables.
    pub unit: ContentUnit,
    /// How the tables answer.
    pub filter: ContentFilter,
    /// Bloom filter positions per physical page of the unit (m / pages per unit).
    pub bloom_bits_per_page: u32,
    /// Bloom filter hash functions (k).
    pub bloom_hashes: u32,
    /// Plain Bloom filters: rebuild from the index after this many insertions (0: never).
    pub bloom_rebuild_writes: u64,
}

/// The answer of a unit's fingerprint table, beside the exact one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// What the table says (the filter, or the index when the table is exact).
    pub table: bool,
    /// Whether the unit really holds the content.
    pub exact: bool,
}

/// Sizes of the index, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContentIndexStats {
    /// Distinct contents held by at least one valid page.
    pub tokens: u64,
    /// Contents held by two or more valid pages (the paper's secondary entries).
    pub groups: u64,
    /// Valid pages in those groups.
    pub grouped_pages: u64,
    /// Heap bytes of the index: token table, groups, buckets, page links.
    pub index_bytes: u64,
    /// Heap bytes of the fingerprint filters (0 when exact).
    pub filter_bytes: u64,
}

/// A change of a group (the paper's secondary entry), logged for the cached map when
/// [`crate::Ftl::log_group_changes`] asked for it (docs/FTL.md §12, "With DS-FTL").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupEvent {
    /// The group's set of pages changed (a page joined, left or was moved).
    Changed(u32),
    /// Group `g` was formed by page `b` joining the content of page `a`: both pages'
    /// LPNs now point to the group.
    Formed {
        /// The group.
        g: u32,
        /// The page that held the content alone.
        a: Ppn,
        /// The page that joined it.
        b: Ppn,
    },
    /// Group `g` fell to one page, `last`, and is gone: `last`'s LPN maps to it again.
    Dissolved {
        /// The group (free now).
        g: u32,
        /// The page left.
        last: Ppn,
    },
}

/// Where a token's pages are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    /// One valid page.
    One(Ppn),
    /// Two or more: a group.
    Group(u32),
}

/// Per-unit filters.
#[derive(Clone, Debug)]
struct Filters {
    per_unit: Vec<Bloom>,
    rebuild_every: u64,
    since_rebuild: u64,
}

/// The content index. See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct ContentIndex {
    geom: Geometry,
    unit: ContentUnit,
    table: FxHashMap<u64, Entry>,
    groups: Groups,
    filters: Option<Filters>,
    /// Group changes since the last [`ContentIndex::take_events`], when logged.
    events: Option<Vec<GroupEvent>>,
}

impl ContentIndex {
    /// An empty index over `geom`.
    pub fn new(geom: &Geometry, cfg: &ContentIndexConfig) -> ContentIndex {
        let units = match cfg.unit {
            ContentUnit::Channel => geom.channels,
            ContentUnit::Chip => geom.chips(),
        };
        let pages_per_unit = u64::from(geom.pages() / units);
        let filters = (cfg.filter != ContentFilter::Exact).then(|| {
            let m = (pages_per_unit * u64::from(cfg.bloom_bits_per_page)).max(1);
            let plain = cfg.filter == ContentFilter::BloomPlain;
            Filters {
                per_unit: (0..units)
                    .map(|_| Bloom::new(m, cfg.bloom_hashes, plain))
                    .collect(),
                rebuild_every: if plain { cfg.bloom_rebuild_writes } else { 0 },
                since_rebuild: 0,
            }
        });
        ContentIndex {
            geom: *geom,
            unit: cfg.unit,
            table: FxHashMap::default(),
            groups: Groups::new(geom.pages()),
            filters,
            events: None,
        }
    }

    /// The unit (channel or chip index) of `chip`.
    #[inline]
    pub fn unit_of_chip(&self, chip: u32) -> u32 {
        match self.unit {
            ContentUnit::Channel => self.geom.channel_of_chip(ChipId(chip)).0,
            ContentUnit::Chip => chip,
        }
    }

    #[inline]
    fn chip(&self, ppn: Ppn) -> u32 {
        self.geom.chip_of_page(ppn).0
    }

    /// Logs group changes from now on ([`ContentIndex::take_events`]).
    pub fn log_events(&mut self) {
        self.events.get_or_insert_with(Vec::new);
    }

    /// Moves the group changes logged so far to `out`.
    pub fn take_events(&mut self, out: &mut Vec<GroupEvent>) {
        if let Some(e) = self.events.as_mut() {
            out.append(e);
        }
    }

    fn log(&mut self, e: GroupEvent) {
        if let Some(v) = self.events.as_mut() {
            v.push(e);
        }
    }

    /// The group holding `token`'s pages, if two or more pages hold it.
    #[inline]
    pub fn group_of(&self, token: u64) -> Option<u32> {
        match self.table.get(&token) {
            Some(&Entry::Group(g)) => Some(g),
            _ => None,
        }
    }

    /// A fingerprint of group `g`'s pages (order-independent; 0 for a group not in
    /// use): what its secondary entry records, for verify mode's audit.
    pub fn group_fingerprint(&self, g: u32) -> u64 {
        if !self.groups.in_use(g) {
            return 0;
        }
        let mut sum = 0u64;
        for b in self.groups.buckets(g) {
            let mut p = Some(b.head);
            while let Some(q) = p {
                let mut x = u64::from(q.0) + 1;
                x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                sum = sum.wrapping_add(x ^ (x >> 31));
                p = self.groups.next_page(q);
            }
        }
        sum
    }

    /// Valid pages holding `token`.
    #[inline]
    pub fn copies(&self, token: u64) -> u32 {
        match self.table.get(&token) {
            None => 0,
            Some(Entry::One(_)) => 1,
            Some(&Entry::Group(g)) => self.groups.len(g),
        }
    }

    /// Pages of `token` on the chips of `unit`.
    fn count_in_unit(&self, token: u64, unit: u32) -> u32 {
        match self.table.get(&token) {
            None => 0,
            Some(&Entry::One(q)) => u32::from(self.unit_of_chip(self.chip(q)) == unit),
            Some(&Entry::Group(g)) => self
                .groups
                .buckets(g)
                .filter(|b| self.unit_of_chip(b.chip) == unit)
                .map(|b| b.count)
                .sum(),
        }
    }

    /// Whether `unit` holds `token`, not counting page `except` (a member of `token`'s
    /// pages, or None): the table's answer and the exact one.
    pub fn probe(&self, token: u64, unit: u32, except: Option<Ppn>) -> Probe {
        let mut n = self.count_in_unit(token, unit);
        if let Some(p) = except {
            n -= u32::from(self.unit_of_chip(self.chip(p)) == unit);
        }
        let exact = n > 0;
        let table = match &self.filters {
            Some(f) => f.per_unit[unit as usize].may_contain(token),
            None => exact,
        };
        Probe { table, exact }
    }

    /// For each chip other than `own_chip` holding `token`, in chip order: the first of
    /// its pages (newest first) that `usable` accepts, handed to `out`.
    pub fn copies_elsewhere(
        &self,
        token: u64,
        own_chip: ChipId,
        mut usable: impl FnMut(Ppn) -> bool,
        mut out: impl FnMut(Ppn),
    ) {
        let Some(&Entry::Group(g)) = self.table.get(&token) else {
            return;
        };
        for b in self.groups.buckets(g).filter(|b| b.chip != own_chip.0) {
            let mut p = Some(b.head);
            while let Some(q) = p {
                if usable(q) {
                    out(q);
                    break;
                }
                p = self.groups.next_page(q);
            }
        }
    }

    /// `ppn` (mapped now) holds `token`.
    pub fn insert(&mut self, ppn: Ppn, token: u64) {
        if token == 0 {
            return;
        }
        let unit = self.unit_of_chip(self.chip(ppn));
        let gained = self.count_in_unit(token, unit) == 0;
        match self.table.get(&token).copied() {
            None => {
                self.table.insert(token, Entry::One(ppn));
            }
            Some(Entry::One(q)) => {
                debug_assert_ne!(q, ppn, "page {ppn} joins its content twice");
                let g = self.groups.create();
                self.groups.link(g, q, self.chip(q));
                self.groups.link(g, ppn, self.chip(ppn));
                self.table.insert(token, Entry::Group(g));
                self.log(GroupEvent::Formed { g, a: q, b: ppn });
            }
            Some(Entry::Group(g)) => {
                self.groups.link(g, ppn, self.chip(ppn));
                self.log(GroupEvent::Changed(g));
            }
        }
        if gained {
            self.filter_insert(unit, token);
        }
    }

    /// `ppn`, which held `token`, is no longer mapped.
    pub fn remove(&mut self, ppn: Ppn, token: u64) {
        if token == 0 {
            return;
        }
        match self.table.get(&token).copied() {
            Some(Entry::One(q)) => {
                assert_eq!(q, ppn, "page {ppn} leaves content {token:#x} it never held");
                self.table.remove(&token);
            }
            Some(Entry::Group(g)) => {
                self.groups.unlink(g, ppn, self.chip(ppn));
                if self.groups.len(g) == 1 {
                    let last = self.groups.buckets(g).next().expect("one page left").head;
                    self.groups.unlink(g, last, self.chip(last));
                    self.groups.free(g);
                    self.table.insert(token, Entry::One(last));
                    self.log(GroupEvent::Dissolved { g, last });
                } else {
                    self.log(GroupEvent::Changed(g));
                }
            }
            None => panic!("page {ppn} leaves content {token:#x}, which no page holds"),
        }
        let unit = self.unit_of_chip(self.chip(ppn));
        if self.count_in_unit(token, unit) == 0 {
            if let Some(f) = self.filters.as_mut() {
                f.per_unit[unit as usize].remove(token);
            }
        }
    }

    /// A GC move: `dst` (same chip) replaces `src` as the page holding `token`.
    pub fn replace(&mut self, src: Ppn, dst: Ppn, token: u64) {
        if token == 0 {
            return;
        }
        if self.chip(src) != self.chip(dst) {
            self.remove(src, token);
            self.insert(dst, token);
            return;
        }
        match self.table.get(&token).copied() {
            Some(Entry::One(q)) => {
                assert_eq!(q, src, "move of page {src}, which does not hold {token:#x}");
                self.table.insert(token, Entry::One(dst));
            }
            Some(Entry::Group(g)) => {
                self.groups.replace(g, src, dst, self.chip(src));
                self.log(GroupEvent::Changed(g));
            }
            None => panic!("move of page {src}, content {token:#x} held by no page"),
        }
    }

    fn filter_insert(&mut self, unit: u32, token: u64) {
        let Some(f) = self.filters.as_mut() else {
            return;
        };
        f.per_unit[unit as usize].insert(token);
        if f.rebuild_every == 0 {
            return;
        }
        f.since_rebuild += 1;
        if f.since_rebuild >= f.rebuild_every {
            self.rebuild_filters();
        }
    }

    /// Refills every filter from the index (plain filters shed their stale tokens). The
    /// result does not depend on the order the table is walked in.
    fn rebuild_filters(&mut self) {
        let Some(mut f) = self.filters.take() else {
            return;
        };
        f.per_unit.iter_mut().for_each(Bloom::clear);
        for (&token, &e) in &self.table {
            match e {
                Entry::One(q) => f.per_unit[self.unit_of_chip(self.chip(q)) as usize].insert(token),
                Entry::Group(g) => {
                    for b in self.groups.buckets(g) {
                        f.per_unit[self.unit_of_chip(b.chip) as usize].insert(token);
                    }
                }
            }
        }
        f.since_rebuild = 0;
        self.filters = Some(f);
    }

    /// Sizes and memory of the index.
    pub fn stats(&self) -> ContentIndexStats {
        let grouped_pages = self
            .table
            .values()
            .map(|e| match *e {
                Entry::Group(g) => u64::from(self.groups.len(g)),
                Entry::One(_) => 0,
            })
            .sum();
        // The table's buckets (hashbrown keeps at most 7/8 of them full, in a power of
        // two), each an entry and a control byte.
        let cap = self.table.capacity();
        let buckets = match cap {
            0 => 0,
            1..=6 => (cap + 1).next_power_of_two(),
            _ => (cap * 8 / 7).next_power_of_two(),
        };
        let entry = std::mem::size_of::<(u64, Entry)>() + 1;
        let index_bytes = buckets * entry + self.groups.heap_bytes();
        let filter_bytes = self
            .filters
            .as_ref()
            .map_or(0, |f| f.per_unit.iter().map(Bloom::heap_bytes).sum());
        ContentIndexStats {
            tokens: self.table.len() as u64,
            groups: self.groups.live(),
            grouped_pages,
            index_bytes: index_bytes as u64,
            filter_bytes,
        }
    }

    /// Checks the index against `members`, the mapped pages with their tokens (non-zero),
    /// in any order; panics on the first broken rule.
    pub fn check(&self, members: &[(Ppn, u64)]) {
        let mut counted = 0u64;
        for &(ppn, token) in members {
            match self.table.get(&token) {
                Some(&Entry::One(q)) => assert_eq!(q, ppn, "content {token:#x}: page"),
                Some(&Entry::Group(g)) => assert!(
                    self.groups.contains(g, ppn, self.chip(ppn)),
                    "page {ppn} missing from its content's group"
                ),
                None => panic!("mapped page {ppn} with content {token:#x} is not indexed"),
            }
            let unit = self.unit_of_chip(self.chip(ppn));
            if let Some(f) = &self.filters {
                assert!(
                    f.per_unit[unit as usize].may_contain(token),
                    "false negative: unit {unit} holds {token:#x}"
                );
            }
        }
        for e in self.table.values() {
            counted += match *e {
                Entry::One(_) => 1,
                Entry::Group(g) => u64::from(self.groups.check(g, |p| self.chip(p))),
            };
        }
        assert_eq!(
            counted,
            members.len() as u64,
            "indexed pages vs mapped pages"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::tiny;

    fn index(filter: ContentFilter) -> ContentIndex {
        ContentIndex::new(
            &tiny(),
            &ContentIndexConfig {
                unit: ContentUnit::Channel,
                filter,
                bloom_bits_per_page: 10,
                bloom_hashes: 7,
                bloom_rebuild_writes: 0,
            },
        )
    }

    /// Pages of tiny(): 64 per chip; chips 0 and 2 on channel 0, 1 and 3 on channel 1.
    fn page_on_chip(chip: u32, n: u32) -> Ppn {
        Ppn(chip * 64 + n)
    }

    #[test]
    fn groups_form_split_and_answer_by_unit() {
        let mut ix = index(ContentFilter::Exact);
        let (a, b, c) = (page_on_chip(0, 1), page_on_chip(1, 2), page_on_chip(2, 3));
        ix.insert(a, 7);
        assert_eq!(ix.copies(7), 1);
        assert!(ix.probe(7, 0, None).exact);
        assert!(!ix.probe(7, 0, Some(a)).exact, "its own page excluded");
        assert!(!ix.probe(7, 1, None).exact);
        ix.insert(b, 7);
        ix.insert(c, 7);
        ix.check(&[(a, 7), (b, 7), (c, 7)]);
        assert_eq!(ix.copies(7), 3);
        assert!(ix.probe(7, 1, None).exact);
        let mut out = Vec::new();
        ix.copies_elsewhere(7, ChipId(0), |_| true, |p| out.push(p));
        assert_eq!(out, [b, c], "one page per other chip, in chip order");
        // A GC move within chip 2, then the page on chip 1 leaves.
        let c2 = page_on_chip(2, 40);
        ix.replace(c, c2, 7);
        ix.remove(b, 7);
        ix.check(&[(a, 7), (c2, 7)]);
        ix.remove(a, 7);
        ix.check(&[(c2, 7)]);
        assert_eq!(ix.copies(7), 1);
        assert!(ix.probe(7, 0, None).exact);
        assert!(!ix.probe(7, 1, None).exact);
        ix.remove(c2, 7);
        ix.check(&[]);
        assert_eq!(ix.stats().tokens, 0);
    }

    #[test]
    fn buckets_keep_every_page_of_a_chip() {
        let mut ix = index(ContentFilter::Bloom);
        let pages: Vec<Ppn> = (0..6).map(|n| page_on_chip(1, n)).collect();
        for &p in &pages {
            ix.insert(p, 9);
        }
        let mut members: Vec<(Ppn, u64)> = pages.iter().map(|&p| (p, 9)).collect();
        ix.check(&members);
        // Remove from the middle, the head and the tail of the list.
        for p in [pages[2], pages[5], pages[0]] {
            ix.remove(p, 9);
            members.retain(|&(q, _)| q != p);
            ix.check(&members);
        }
        let mut out = Vec::new();
        ix.copies_elsewhere(9, ChipId(0), |p| p != pages[4], |p| out.push(p));
        assert_eq!(out, [pages[3]], "the newest usable page of chip 1");
        assert_eq!(ix.stats().groups, 1);
        assert_eq!(ix.stats().grouped_pages, 3);
        assert!(ix.stats().filter_bytes > 0);
    }

    #[test]
    fn filters_hold_the_contents_resident_in_their_unit() {
        let mut ix = index(ContentFilter::Bloom);
        let (a, b) = (page_on_chip(0, 1), page_on_chip(2, 1));
        ix.insert(a, 5);
        ix.insert(b, 5);
        assert!(ix.probe(5, 0, None).table);
        ix.remove(a, 5);
        assert!(ix.probe(5, 0, None).table, "chip 2 is on channel 0 too");
        ix.remove(b, 5);
        let p = ix.probe(5, 0, None);
        assert!(
            !p.exact && !p.table,
            "the last page left: the filter forgot"
        );
    }

    #[test]
    fn plain_filters_are_rebuilt_from_the_index() {
        let mut ix = ContentIndex::new(
            &tiny(),
            &ContentIndexConfig {
                unit: ContentUnit::Chip,
                filter: ContentFilter::BloomPlain,
                bloom_bits_per_page: 10,
                bloom_hashes: 7,
                bloom_rebuild_writes: 2,
            },
        );
        ix.insert(page_on_chip(3, 0), 11);
        ix.remove(page_on_chip(3, 0), 11);
        assert!(
            ix.probe(11, 3, None).table,
            "a plain filter does not delete"
        );
        ix.insert(page_on_chip(3, 1), 12); // the second insertion rebuilds
        assert!(!ix.probe(11, 3, None).table);
        assert!(ix.probe(12, 3, None).table);
    }
}
