//! [`CmtTable`]: the cached mapping table as the tenants share it (`ftl.cmt.sharing`,
//! docs/FTL.md §12).
//!
//! Without tenants the table is one [`Cmt`] and nothing here runs but the forwarding
//! `match`. With tenants every LPN belongs to one of them ([`LpnOwners`]: the tenant
//! whose namespace starts at or below it, the nearest; a page between namespaces
//! belongs to the tenant below it, one before every namespace to the first namespace's
//! tenant). Then:
//!
//! - `"shared"` keeps one LRU over every tenant's entries (the run is the same as
//!   without tenants) and counts each tenant's lookups and hits;
//! - `"equal"` gives each tenant a table of its own of `capacity / tenants` entries
//!   (rounded down, as MQSim's `EQUAL_SIZE_PARTITIONING` does: the remainder is
//!   unused), LRU within it: a tenant's insertions evict only its own entries.
//!
//! A translation page is one flash page whatever tenants its LPNs belong to (with
//! disjoint namespaces a page can still straddle a namespace boundary). When a tenant's
//! partition evicts a dirty entry, the rewrite of its translation page carries every
//! dirty cached entry of that page, the other partitions' too: those are cleaned (their
//! new values are in the page's new version) and stay cached where they are. The
//! rewrite needs no read of the old version when the partitions together cache every
//! entry of the page.

use crate::cmt::{Cmt, DirtyBatch, Lookup};
use crate::CmtSharing;
use ssdlab_nand::LpnOwners;

/// One tenant's use of the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TenantCmtCounts {
    /// Entries it may hold: its partition (`"equal"`), or the whole table (`"shared"`).
    pub entries: u32,
    /// Lookups of its pages (host reads and writes, one per page).
    pub lookups: u64,
    /// Those that found the entry cached.
    pub hits: u64,
    /// The most entries its partition held at once (`"equal"` only).
    pub peak: Option<u32>,
}

/// The tenants' side of the table.
#[derive(Clone, Debug)]
pub struct TenantCmt {
    /// The tenant of each LPN.
    owners: LpnOwners,
    /// One table (`"shared"`) or one per tenant (`"equal"`).
    parts: Vec<Cmt>,
    counts: Vec<TenantCmtCounts>,
    /// The LPNs of the last batch over every partition (`"equal"`).
    batch: Vec<u32>,
}

/// The cached mapping table: one [`Cmt`], or the tenants' ([`TenantCmt`]).
// The table without tenants stays inline: no indirection on its path.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum CmtTable {
    /// Without tenants.
    One(Cmt),
    /// With tenants.
    Tenants(Box<TenantCmt>),
}

impl CmtTable {
    /// A table of `capacity` entries over `lpns` LPNs, `per_tpage` to a translation page,
    /// shared by tenants whose namespaces are `namespaces` (first LPN, in tenant order;
    /// empty without tenants) as `sharing` says.
    ///
    /// # Panics
    /// If a tenant's partition would hold no entry (the configuration is refused first).
    pub fn new(
        capacity: u32,
        per_tpage: u32,
        lpns: u32,
        namespaces: &[u32],
        sharing: CmtSharing,
    ) -> Self {
        if namespaces.is_empty() {
            return CmtTable::One(Cmt::new(capacity, per_tpage, lpns));
        }
        let n = namespaces.len() as u32;
        let (parts, share) = match sharing {
            CmtSharing::Shared => (1, capacity),
            CmtSharing::Equal => (n, capacity / n),
        };
        let equal = parts > 1;
        CmtTable::Tenants(Box::new(TenantCmt {
            owners: LpnOwners::new(namespaces),
            parts: (0..parts)
                .map(|_| Cmt::new(share, per_tpage, lpns))
                .collect(),
            counts: vec![
                TenantCmtCounts {
                    entries: share,
                    peak: equal.then_some(0),
                    ..TenantCmtCounts::default()
                };
                n as usize
            ],
            batch: Vec::new(),
        }))
    }

    fn first(&self) -> &Cmt {
        match self {
            CmtTable::One(c) => c,
            CmtTable::Tenants(t) => &t.parts[0],
        }
    }

    /// The one table of every entry: without tenants, or shared by them. DS-FTL's group
    /// records live only there (the configuration refuses them with `"equal"`).
    fn single(&mut self) -> &mut Cmt {
        match self {
            CmtTable::One(c) => c,
            CmtTable::Tenants(t) => {
                assert_eq!(t.parts.len(), 1, "group records in a partitioned table");
                &mut t.parts[0]
            }
        }
    }

    /// [`Cmt::enable_groups`] (one table only).
    pub fn enable_groups(&mut self, groups: u32, per_tpage: u32, cost: u16) {
        self.single().enable_groups(groups, per_tpage, cost);
    }

    /// [`Cmt::group_key`].
    pub fn group_key(&self, g: u32) -> u32 {
        self.first().group_key(g)
    }

    /// Translation pages of the LPNs (the group records' pages follow).
    pub fn lpn_tpages(&self) -> u32 {
        self.first().lpn_tpages()
    }

    /// [`Cmt::make_room`] (one table only).
    pub fn make_room(&mut self, key: u32) -> Option<Option<DirtyBatch>> {
        self.single().make_room(key)
    }

    /// Entries the table may hold (the partitions' sum with `"equal"`).
    pub fn capacity(&self) -> u32 {
        match self {
            CmtTable::One(c) => c.capacity(),
            CmtTable::Tenants(t) => t.parts.iter().map(Cmt::capacity).sum(),
        }
    }

    /// Entries per translation page.
    pub fn per_tpage(&self) -> u32 {
        self.first().per_tpage()
    }

    /// Translation pages of the map.
    pub fn tpages(&self) -> u32 {
        self.first().tpages()
    }

    /// The LPNs of translation page `tpage`.
    pub fn lpns_of(&self, tpage: u32) -> std::ops::Range<u32> {
        self.first().lpns_of(tpage)
    }

    /// Cached entries.
    pub fn len(&self) -> u32 {
        match self {
            CmtTable::One(c) => c.len(),
            CmtTable::Tenants(t) => t.parts.iter().map(Cmt::len).sum(),
        }
    }

    /// No entry cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `lpn`'s entry is cached.
    pub fn contains(&self, lpn: u32) -> bool {
        match self {
            CmtTable::One(c) => c.contains(lpn),
            CmtTable::Tenants(t) => t.parts[t.part(lpn)].contains(lpn),
        }
    }

    /// Whether `lpn`'s entry is cached and dirty.
    pub fn is_dirty(&self, lpn: u32) -> bool {
        match self {
            CmtTable::One(c) => c.is_dirty(lpn),
            CmtTable::Tenants(t) => t.parts[t.part(lpn)].is_dirty(lpn),
        }
    }

    /// [`Cmt::lookup`] in `lpn`'s table.
    pub fn lookup(&mut self, lpn: u32) -> Lookup {
        match self {
            CmtTable::One(c) => c.lookup(lpn),
            CmtTable::Tenants(t) => {
                let p = t.part(lpn);
                t.parts[p].lookup(lpn)
            }
        }
    }

    /// Counts a host lookup of `lpn` (hit or not) against its tenant.
    pub fn note(&mut self, lpn: u32, hit: bool) {
        if let CmtTable::Tenants(t) = self {
            let i = t.owner(lpn);
            let c = &mut t.counts[i];
            c.lookups += 1;
            c.hits += u64::from(hit);
        }
    }

    /// [`Cmt::insert`] in `lpn`'s table; with partitions, the batch of a dirty eviction
    /// carries the other partitions' dirty entries of its translation page (module
    /// documentation).
    pub fn insert(&mut self, lpn: u32, dirty: bool) -> Option<DirtyBatch> {
        match self {
            CmtTable::One(c) => c.insert(lpn, dirty),
            CmtTable::Tenants(t) => t.insert(lpn, dirty),
        }
    }

    /// The LPNs of the last dirty batch.
    pub fn last_batch(&self) -> &[u32] {
        match self {
            CmtTable::One(c) => c.last_batch(),
            CmtTable::Tenants(t) if t.parts.len() == 1 => t.parts[0].last_batch(),
            CmtTable::Tenants(t) => &t.batch,
        }
    }

    /// Per tenant, its share and counts (`None` without tenants).
    pub fn tenant_counts(&self) -> Option<&[TenantCmtCounts]> {
        match self {
            CmtTable::One(_) => None,
            CmtTable::Tenants(t) => Some(&t.counts),
        }
    }

    /// Checks every table ([`Cmt::check`]) and, with partitions, that each holds only
    /// its tenant's entries, never more than its share.
    ///
    /// # Panics
    /// On the first inconsistency.
    pub fn check(&self) {
        match self {
            CmtTable::One(c) => c.check(),
            CmtTable::Tenants(t) => {
                for (p, c) in t.parts.iter().enumerate() {
                    c.check();
                    if t.parts.len() > 1 {
                        assert!(
                            c.lru_order().iter().all(|&l| t.owner(l) == p),
                            "partition {p} holds another tenant's entry"
                        );
                        assert!(
                            t.counts[p].peak.is_some_and(|k| k <= c.capacity()),
                            "partition {p} held more than its share"
                        );
                    }
                }
            }
        }
    }
}

impl TenantCmt {
    /// The tenant `lpn` belongs to.
    fn owner(&self, lpn: u32) -> usize {
        self.owners.owner(lpn)
    }

    /// The table `lpn`'s entry lives in.
    #[inline]
    fn part(&self, lpn: u32) -> usize {
        if self.parts.len() == 1 {
            0
        } else {
            self.owner(lpn)
        }
    }

    fn insert(&mut self, lpn: u32, dirty: bool) -> Option<DirtyBatch> {
        if self.parts.len() == 1 {
            return self.parts[0].insert(lpn, dirty);
        }
        let p = self.owner(lpn);
        let b = self.parts[p].insert(lpn, dirty);
        let len = self.parts[p].len();
        let peak = self.counts[p].peak.get_or_insert(0);
        *peak = (*peak).max(len);
        let b = b?;
        self.batch.clear();
        self.batch.extend_from_slice(self.parts[p].last_batch());
        let mut left = 0;
        for (q, c) in self.parts.iter_mut().enumerate() {
            if q != p {
                self.batch.extend(c.take_dirty(b.tpage));
            }
            left += c.cached_in(b.tpage);
        }
        let all = self.parts[p].lpns_of(b.tpage).len() as u32;
        Some(DirtyBatch {
            tpage: b.tpage,
            entries: self.batch.len() as u32,
            // The evicted entry's value is known too.
            all_cached: left + 1 == all,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tenants: LPNs 0..32 and 32..64 (a gap 30..32 below the second), pages of 4
    /// entries.
    fn two(capacity: u32, sharing: CmtSharing) -> CmtTable {
        CmtTable::new(capacity, 4, 64, &[0, 32], sharing)
    }

    fn counts(t: &CmtTable) -> Vec<TenantCmtCounts> {
        t.tenant_counts().unwrap().to_vec()
    }

    #[test]
    fn without_tenants_the_table_is_one_cmt() {
        let mut t = CmtTable::new(2, 4, 64, &[], CmtSharing::Equal);
        assert!(matches!(t, CmtTable::One(_)));
        t.insert(1, false);
        t.insert(40, false);
        t.insert(41, false); // evicts 1: one LRU
        assert!(!t.contains(1) && t.contains(40));
        t.note(1, true);
        assert_eq!(t.tenant_counts(), None);
    }

    #[test]
    fn an_lpn_belongs_to_the_namespace_at_or_below_it() {
        // Namespaces listed out of address order: tenant 0 at 32, tenant 1 at 8.
        let CmtTable::Tenants(t) = CmtTable::new(4, 4, 64, &[32, 8], CmtSharing::Equal) else {
            panic!("tenants")
        };
        assert_eq!(t.owner(8), 1);
        assert_eq!(t.owner(31), 1);
        assert_eq!(t.owner(32), 0);
        assert_eq!(t.owner(63), 0);
        assert_eq!(
            t.owner(3),
            1,
            "before every namespace: the first one's tenant"
        );
    }

    #[test]
    fn equal_partitions_take_the_capacity_divided_rounded_down() {
        let t = two(5, CmtSharing::Equal);
        assert_eq!(t.capacity(), 4, "2 + 2: MQSim leaves the remainder unused");
        assert!(counts(&t)
            .iter()
            .all(|c| c.entries == 2 && c.peak == Some(0)));
        let s = two(5, CmtSharing::Shared);
        assert_eq!(s.capacity(), 5);
        assert!(counts(&s)
            .iter()
            .all(|c| c.entries == 5 && c.peak.is_none()));
    }

    #[test]
    fn an_equal_partition_evicts_only_its_own_tenants_entries() {
        let mut t = two(4, CmtSharing::Equal);
        t.insert(40, false);
        t.insert(41, false);
        for l in 0..6 {
            t.insert(l, false);
        }
        assert!(
            t.contains(40) && t.contains(41),
            "tenant 1 keeps its entries"
        );
        assert!(
            t.contains(4) && t.contains(5) && !t.contains(3),
            "LRU within tenant 0"
        );
        assert_eq!(counts(&t)[0].peak, Some(2));
        assert_eq!(counts(&t)[1].peak, Some(2));
        t.check();
    }

    #[test]
    fn a_shared_table_is_one_lru_over_every_tenant() {
        let mut t = two(4, CmtSharing::Shared);
        t.insert(40, false);
        t.insert(41, false);
        for l in 0..4 {
            t.insert(l, false);
        }
        assert!(
            !t.contains(40) && !t.contains(41),
            "tenant 0 evicted tenant 1's"
        );
        assert_eq!(t.len(), 4);
        t.check();
    }

    #[test]
    fn lookups_and_hits_are_counted_per_tenant() {
        let mut t = two(4, CmtSharing::Equal);
        t.insert(40, false);
        assert_eq!(t.lookup(40), Lookup::Hit);
        t.note(40, true);
        assert_eq!(t.lookup(2), Lookup::Miss { tpage: 0 });
        t.note(2, false);
        t.note(31, false); // the gap below tenant 1's namespace: tenant 0's
        assert_eq!((counts(&t)[0].lookups, counts(&t)[0].hits), (2, 0));
        assert_eq!((counts(&t)[1].lookups, counts(&t)[1].hits), (1, 1));
    }

    #[test]
    fn a_batch_carries_every_partitions_dirty_entries_of_its_page() {
        // Translation page 7 (LPNs 28..32) straddles the boundary at 30.
        let mut t = CmtTable::new(4, 4, 64, &[0, 30], CmtSharing::Equal);
        t.insert(28, true); // tenant 0
        t.insert(30, true); // tenant 1
        t.insert(31, false); // tenant 1, clean
        t.insert(1, false); // tenant 0: full now (2 of 2)
        let b = t.insert(2, false).expect("28 is evicted dirty");
        assert_eq!(b.tpage, 7);
        assert_eq!(b.entries, 2, "28 and tenant 1's 30");
        assert_eq!(t.last_batch(), &[28, 30]);
        assert!(!b.all_cached, "29 is not cached");
        assert!(t.contains(30) && !t.is_dirty(30), "cleaned, still cached");
        t.check();
    }

    #[test]
    fn a_straddling_page_cached_by_both_partitions_needs_no_read() {
        let mut t = CmtTable::new(6, 4, 64, &[0, 30], CmtSharing::Equal);
        t.insert(28, true);
        t.insert(29, false);
        t.insert(30, false);
        t.insert(31, true);
        t.insert(1, false); // tenant 0 full (3 of 3): 28 is its least recent
        let b = t.insert(2, false).expect("28 is evicted dirty");
        assert_eq!((b.tpage, b.entries), (7, 2));
        assert_eq!(t.last_batch(), &[28, 31]);
        assert!(b.all_cached, "29, 30 and 31 cached, 28's value known");
        assert!(!t.is_dirty(31), "31 rode 28's batch");
        t.check();
    }

    #[test]
    fn a_shared_batch_is_the_one_tables_batch() {
        let mut t = two(2, CmtSharing::Shared);
        t.insert(28, true);
        t.insert(40, false);
        let b = t.insert(41, false).expect("28 dirty");
        assert_eq!((b.tpage, b.entries), (7, 1));
        assert_eq!(t.last_batch(), &[28]);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn partitions_never_exceed_their_share_and_batches_hold_one_page(
                ops in prop::collection::vec((0u32..64, any::<bool>()), 1..300),
                cap in 3u32..12,
            ) {
                let mut t = CmtTable::new(cap, 4, 64, &[0, 20, 41], CmtSharing::Equal);
                for (lpn, dirty) in ops {
                    let was: Vec<u32> = (0..64).filter(|&l| t.is_dirty(l)).collect();
                    if let Some(b) = t.insert(lpn, dirty) {
                        let batch = t.last_batch().to_vec();
                        prop_assert_eq!(batch.len() as u32, b.entries);
                        for l in batch {
                            prop_assert_eq!(l / 4, b.tpage);
                            prop_assert!(was.contains(&l), "a batch of dirty entries only");
                            prop_assert!(!t.is_dirty(l));
                        }
                        let left = (0..64).any(|l| l / 4 == b.tpage && l != lpn && t.is_dirty(l));
                        prop_assert!(!left, "every dirty entry of the page left with it");
                    }
                    t.check();
                }
                for c in counts(&t) {
                    prop_assert!(c.peak.unwrap() <= cap / 3);
                }
            }
        }
    }
}
