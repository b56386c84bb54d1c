//! The cached mapping table (CMT) of a DFTL-style cached map (`ftl.mapping = "cached"`,
//! docs/FTL.md §12): which forward-map entries the controller's DRAM holds, in LRU
//! order, with a dirty bit each, grouped by translation page.
//!
//! The CMT decides *traffic*, not addresses: the forward map of the [`crate::Ftl`] stays
//! the ground truth of where every LPN lives, and the controller asks the CMT whether an
//! access finds its entry in DRAM (a hit) or must first read its translation page from
//! flash (a miss), and which translation pages an eviction must rewrite. The global
//! translation directory (GTD: translation page → its flash page) is the forward map of
//! the controller's slot LPNs, one per translation page, so that GC moves translation
//! pages like any page and the move updates the directory.
//!
//! ```text
//!  lookup(lpn) ─► Hit (entry moved to the MRU end) | Miss { tpage }
//!  insert(lpn, dirty) ─► None | Some(DirtyBatch)   (the LRU entry evicted was dirty:
//!                                                   every dirty entry of its page, cleaned)
//!  mark_dirty(lpn)    ─► true if cached (the entry now differs from its flash page)
//! ```
//!
//! With DS-FTL's two-level map ([`Cmt::enable_groups`]) the keys after the LPNs are the
//! secondary table's group records (key `lpns + g` for group `g`), in translation pages
//! of their own after the LPNs' (`groups_per_tpage` records each); a record takes
//! `group_cost` entries of the capacity, an LPN entry one. [`Cmt::make_room`] evicts
//! for a record before it is inserted.

use rustc_hash::FxHashMap;

const NIL: u32 = u32::MAX;

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The entry is cached (now the most recently used).
    Hit,
    /// The entry is not cached: translation page `tpage` holds it.
    Miss {
        /// The translation page (virtual number) of the LPN.
        tpage: u32,
    },
}

/// The dirty entries of one translation page, cleaned together: what its rewrite
/// carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirtyBatch {
    /// The translation page to rewrite.
    pub tpage: u32,
    /// Dirty entries written back (the evicted one included).
    pub entries: u32,
    /// Every entry of the page was cached (the evicted one included): the page can be
    /// written without reading its old version first.
    pub all_cached: bool,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    lpn: u32,
    prev: u32,
    next: u32,
    dirty: bool,
    /// Entries of the capacity it takes (1 for an LPN's entry).
    cost: u16,
}

/// Hit, miss and eviction counts of a [`Cmt`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CmtStats {
    /// Lookups that found their entry.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Entries evicted clean.
    pub clean_evictions: u64,
    /// Entries evicted dirty (each started or joined a batch).
    pub dirty_evictions: u64,
    /// Batches taken (translation page rewrites asked for).
    pub batches: u64,
    /// Dirty entries those batches carried.
    pub batched_entries: u64,
}

/// The cached mapping table: at most `capacity` entries of a map of `lpns` LPNs, in LRU
/// order, `per_tpage` consecutive LPNs per translation page.
#[derive(Clone, Debug)]
pub struct Cmt {
    capacity: u32,
    per_tpage: u32,
    lpns: u32,
    /// Entries of the capacity in use (the cached keys' costs).
    used: u32,
    /// Group records after the LPNs (0: none), per translation page, and the entries
    /// each takes.
    groups: u32,
    groups_per_tpage: u32,
    group_cost: u16,
    index: FxHashMap<u32, u32>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used: the next victim.
    tail: u32,
    /// Per translation page: cached entries.
    cached: FxHashMap<u32, u32>,
    /// Per translation page: its dirty cached entries.
    dirty: FxHashMap<u32, Vec<u32>>,
    /// The LPNs of the last batch taken.
    last_batch: Vec<u32>,
    stats: CmtStats,
}

impl Cmt {
    /// An empty CMT of `capacity` entries (at least 1) over a map of `lpns` LPNs with
    /// `per_tpage` entries per translation page (at least 1).
    pub fn new(capacity: u32, per_tpage: u32, lpns: u32) -> Cmt {
        assert!(capacity > 0 && per_tpage > 0, "a CMT needs room and pages");
        Cmt {
            capacity,
            per_tpage,
            lpns,
            used: 0,
            groups: 0,
            groups_per_tpage: 1,
            group_cost: 1,
            index: FxHashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            cached: FxHashMap::default(),
            dirty: FxHashMap::default(),
            last_batch: Vec::new(),
            stats: CmtStats::default(),
        }
    }

    /// Entries it can hold.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Adds `groups` group records after the LPNs (keys `lpns..lpns + groups`),
    /// `per_tpage` to a translation page after the LPNs' pages, each taking `cost`
    /// entries of the capacity (1..=capacity).
    pub fn enable_groups(&mut self, groups: u32, per_tpage: u32, cost: u16) {
        assert!(per_tpage > 0 && cost > 0 && u32::from(cost) <= self.capacity);
        self.groups = groups;
        self.groups_per_tpage = per_tpage;
        self.group_cost = cost;
    }

    /// The key of group `g`'s record.
    #[inline]
    pub fn group_key(&self, g: u32) -> u32 {
        debug_assert!(g < self.groups, "group {g} beyond the group space");
        self.lpns + g
    }

    /// Entries of the capacity `key` takes.
    #[inline]
    pub fn cost_of(&self, key: u32) -> u32 {
        if key < self.lpns {
            1
        } else {
            u32::from(self.group_cost)
        }
    }

    /// Entries of the capacity in use.
    pub fn used(&self) -> u32 {
        self.used
    }

    /// Translation pages of the LPNs (the group records' pages follow).
    pub fn lpn_tpages(&self) -> u32 {
        self.lpns.div_ceil(self.per_tpage)
    }

    /// Entries per translation page.
    pub fn per_tpage(&self) -> u32 {
        self.per_tpage
    }

    /// Translation pages of the whole map (the group records' included).
    pub fn tpages(&self) -> u32 {
        self.lpn_tpages() + self.groups.div_ceil(self.groups_per_tpage)
    }

    /// The translation page holding `lpn`'s entry (or a group record's).
    #[inline]
    pub fn tpage_of(&self, lpn: u32) -> u32 {
        if lpn < self.lpns {
            lpn / self.per_tpage
        } else {
            self.lpn_tpages() + (lpn - self.lpns) / self.groups_per_tpage
        }
    }

    /// The keys (LPNs, or group records' keys) whose entries translation page `tpage`
    /// holds.
    pub fn lpns_of(&self, tpage: u32) -> std::ops::Range<u32> {
        let lpn_pages = self.lpn_tpages();
        if tpage < lpn_pages {
            let first = tpage * self.per_tpage;
            return first..(first + self.per_tpage).min(self.lpns);
        }
        let first = self.lpns + (tpage - lpn_pages) * self.groups_per_tpage;
        first..(first + self.groups_per_tpage).min(self.lpns + self.groups)
    }

    /// Entries cached now.
    pub fn len(&self) -> u32 {
        self.index.len() as u32
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Counters so far.
    pub fn stats(&self) -> &CmtStats {
        &self.stats
    }

    /// True when `lpn`'s entry is cached (no LRU change, not counted).
    pub fn contains(&self, lpn: u32) -> bool {
        self.index.contains_key(&lpn)
    }

    /// True when `lpn`'s entry is cached and dirty.
    pub fn is_dirty(&self, lpn: u32) -> bool {
        self.index
            .get(&lpn)
            .is_some_and(|&s| self.slots[s as usize].dirty)
    }

    /// The LPNs whose entries the last batch carried (the evicted one included).
    pub fn last_batch(&self) -> &[u32] {
        &self.last_batch
    }

    /// Dirty entries cached now.
    pub fn dirty_entries(&self) -> u64 {
        self.dirty.values().map(|v| v.len() as u64).sum()
    }

    /// The translation pages with dirty cached entries, in increasing order.
    pub fn dirty_tpages(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.dirty.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Cached entries of translation page `tpage`.
    pub fn cached_in(&self, tpage: u32) -> u32 {
        self.cached.get(&tpage).copied().unwrap_or(0)
    }

    /// Takes every dirty cached entry of `tpage` (they stay cached, clean): their page is
    /// being rewritten by a batch another table started (a partitioned table,
    /// [`crate::CmtTable`]). Their LPNs, in the order they turned dirty.
    pub fn take_dirty(&mut self, tpage: u32) -> Vec<u32> {
        let lpns = self.dirty.remove(&tpage).unwrap_or_default();
        for &l in &lpns {
            if let Some(&s) = self.index.get(&l) {
                self.slots[s as usize].dirty = false;
            }
        }
        lpns
    }

    /// Looks `lpn` up, counting a hit or a miss; a hit becomes the most recently used.
    pub fn lookup(&mut self, lpn: u32) -> Lookup {
        match self.index.get(&lpn) {
            Some(&s) => {
                self.stats.hits += 1;
                self.touch(s);
                Lookup::Hit
            }
            None => {
                self.stats.misses += 1;
                Lookup::Miss {
                    tpage: self.tpage_of(lpn),
                }
            }
        }
    }

    /// Marks `lpn`'s cached entry dirty (its flash copy is stale now); false if it is
    /// not cached. No LRU change.
    pub fn mark_dirty(&mut self, lpn: u32) -> bool {
        let Some(&s) = self.index.get(&lpn) else {
            return false;
        };
        self.set_dirty(s);
        true
    }

    /// Caches `lpn`'s entry as the most recently used, dirty if `dirty` (an entry already
    /// cached is touched, and made dirty if asked). When the CMT is full the least
    /// recently used entry leaves first; if it was dirty, every dirty entry of its
    /// translation page is cleaned and returned as the batch the page's rewrite carries.
    pub fn insert(&mut self, lpn: u32, dirty: bool) -> Option<DirtyBatch> {
        debug_assert!(lpn < self.lpns + self.groups, "lpn {lpn} beyond the map");
        if let Some(&s) = self.index.get(&lpn) {
            self.touch(s);
            if dirty {
                self.set_dirty(s);
            }
            return None;
        }
        let cost = self.cost_of(lpn);
        // An LPN's entry needs one eviction at most; a group record's room is made
        // first ([`Cmt::make_room`]).
        let batch = if self.used + cost > self.capacity {
            self.evict()
        } else {
            None
        };
        debug_assert!(self.used + cost <= self.capacity, "no room made for {lpn}");
        self.used += cost;
        let slot = Slot {
            lpn,
            prev: NIL,
            next: self.head,
            dirty: false,
            cost: cost as u16,
        };
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = slot;
                s
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        if self.head != NIL {
            self.slots[self.head as usize].prev = s;
        }
        self.head = s;
        if self.tail == NIL {
            self.tail = s;
        }
        self.index.insert(lpn, s);
        *self.cached.entry(self.tpage_of(lpn)).or_insert(0) += 1;
        if dirty {
            self.set_dirty(s);
        }
        batch
    }

    /// Before inserting `key` (not cached): `None` when it fits; else evicts the least
    /// recently used entry and returns `Some` of its batch (`Some(None)`: evicted clean).
    /// Called until it returns `None`.
    pub fn make_room(&mut self, key: u32) -> Option<Option<DirtyBatch>> {
        if self.index.contains_key(&key) || self.used + self.cost_of(key) <= self.capacity {
            return None;
        }
        Some(self.evict())
    }

    /// Evicts the least recently used entry; `Some(batch)` if it was dirty.
    fn evict(&mut self) -> Option<DirtyBatch> {
        let s = self.tail;
        debug_assert_ne!(s, NIL, "evicting from an empty CMT");
        let slot = self.slots[s as usize];
        self.used -= u32::from(slot.cost);
        self.unlink(s);
        self.free.push(s);
        self.index.remove(&slot.lpn);
        let tpage = self.tpage_of(slot.lpn);
        let left = {
            let c = self.cached.get_mut(&tpage).expect("a cached page count");
            *c -= 1;
            *c
        };
        if left == 0 {
            self.cached.remove(&tpage);
        }
        if !slot.dirty {
            self.stats.clean_evictions += 1;
            return None;
        }
        self.stats.dirty_evictions += 1;
        let lpns = self
            .dirty
            .remove(&tpage)
            .expect("a dirty entry's page list");
        for &l in &lpns {
            if let Some(&t) = self.index.get(&l) {
                self.slots[t as usize].dirty = false;
            }
        }
        let all = self.lpns_of(tpage).len() as u32;
        self.stats.batches += 1;
        self.stats.batched_entries += lpns.len() as u64;
        let entries = lpns.len() as u32;
        self.last_batch = lpns;
        Some(DirtyBatch {
            tpage,
            entries,
            all_cached: left + 1 == all,
        })
    }

    fn set_dirty(&mut self, s: u32) {
        let slot = &mut self.slots[s as usize];
        if !slot.dirty {
            slot.dirty = true;
            let lpn = slot.lpn;
            let tpage = self.tpage_of(lpn);
            self.dirty.entry(tpage).or_default().push(lpn);
        }
    }

    fn touch(&mut self, s: u32) {
        if self.head == s {
            return;
        }
        self.unlink(s);
        let slot = &mut self.slots[s as usize];
        slot.prev = NIL;
        slot.next = self.head;
        if self.head != NIL {
            self.slots[self.head as usize].prev = s;
        }
        self.head = s;
        if self.tail == NIL {
            self.tail = s;
        }
    }

    fn unlink(&mut self, s: u32) {
        let Slot { prev, next, .. } = self.slots[s as usize];
        if prev != NIL {
            self.slots[prev as usize].next = next;
        } else {
            self.head = next;
        }
        if next != NIL {
            self.slots[next as usize].prev = prev;
        } else {
            self.tail = prev;
        }
    }

    /// The cached LPNs from most to least recently used (for tests and audits).
    pub fn lru_order(&self) -> Vec<u32> {
        let mut v = Vec::with_capacity(self.index.len());
        let mut s = self.head;
        while s != NIL {
            v.push(self.slots[s as usize].lpn);
            s = self.slots[s as usize].next;
        }
        v
    }

    /// Checks the list, the index and the per-page counts against one another.
    ///
    /// # Panics
    /// On the first inconsistency.
    pub fn check(&self) {
        let order = self.lru_order();
        assert_eq!(order.len(), self.index.len(), "list and index disagree");
        let used: u32 = order.iter().map(|&k| self.cost_of(k)).sum();
        assert_eq!(used, self.used, "entries in use");
        assert!(used <= self.capacity, "over capacity");
        let mut cached: FxHashMap<u32, u32> = FxHashMap::default();
        let mut dirty = 0u64;
        for &l in &order {
            *cached.entry(self.tpage_of(l)).or_insert(0) += 1;
            if self.is_dirty(l) {
                dirty += 1;
                let t = self.tpage_of(l);
                assert!(
                    self.dirty.get(&t).is_some_and(|v| v.contains(&l)),
                    "dirty entry {l} missing from its page's list"
                );
            }
        }
        assert_eq!(cached, self.cached, "per-page counts");
        assert_eq!(
            dirty,
            self.dirty_entries(),
            "dirty lists hold clean entries"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_hit_after_insert_and_lru_evicts_the_oldest() {
        let mut c = Cmt::new(2, 4, 100);
        assert_eq!(c.lookup(5), Lookup::Miss { tpage: 1 });
        assert_eq!(c.insert(5, false), None);
        assert_eq!(c.lookup(5), Lookup::Hit);
        c.insert(6, false);
        assert_eq!(c.lookup(5), Lookup::Hit); // 5 is now the MRU
        c.insert(7, false); // evicts 6
        assert!(c.contains(5) && c.contains(7) && !c.contains(6));
        assert_eq!(c.lru_order(), vec![7, 5]);
        assert_eq!(c.stats().hits, 2);
        assert_eq!(c.stats().misses, 1);
        assert_eq!(c.stats().clean_evictions, 1);
        c.check();
    }

    #[test]
    fn a_dirty_eviction_batches_every_dirty_entry_of_its_page() {
        // Pages of 4 entries: LPNs 8..12 are page 2, 12..16 page 3.
        let mut c = Cmt::new(4, 4, 64);
        assert_eq!(c.insert(8, true), None);
        assert_eq!(c.insert(9, false), None);
        assert_eq!(c.insert(10, true), None);
        assert_eq!(c.insert(12, true), None);
        assert!(c.mark_dirty(9));
        assert!(!c.mark_dirty(40), "not cached");
        // Full: inserting evicts 8 (dirty): 8, 9 and 10 go in one batch.
        let b = c.insert(13, false).expect("a dirty eviction");
        assert_eq!(
            b,
            DirtyBatch {
                tpage: 2,
                entries: 3,
                all_cached: false
            }
        );
        assert!(!c.is_dirty(9) && !c.is_dirty(10), "cleaned by the batch");
        assert_eq!(c.last_batch(), &[8, 10, 9]);
        assert!(c.is_dirty(12), "another page's entry stays dirty");
        // Evicting 9 (now clean) writes nothing.
        assert_eq!(c.insert(14, false), None);
        assert_eq!(c.stats().batches, 1);
        assert_eq!(c.stats().batched_entries, 3);
        c.check();
    }

    #[test]
    fn a_batch_of_a_page_fully_cached_needs_no_read() {
        let mut c = Cmt::new(4, 4, 64);
        for l in 0..4 {
            c.insert(l, l == 0);
        }
        let b = c.insert(20, false).unwrap();
        assert!(b.all_cached && b.entries == 1 && b.tpage == 0);
        // The last page of a map that does not fill it: 2 entries (62, 63).
        let mut c = Cmt::new(2, 4, 64);
        assert_eq!(c.tpages(), 16);
        let mut c2 = Cmt::new(2, 4, 62);
        assert_eq!(c2.tpages(), 16);
        assert_eq!(c2.lpns_of(15), 60..62);
        c2.insert(60, true);
        c2.insert(61, false);
        assert!(c2.insert(0, false).unwrap().all_cached);
        c.insert(62, true);
        c.insert(0, false);
        assert!(!c.insert(1, false).unwrap().all_cached);
    }

    #[test]
    fn reinserting_a_cached_entry_touches_it_and_keeps_its_dirt() {
        let mut c = Cmt::new(3, 8, 64);
        c.insert(1, true);
        c.insert(2, false);
        c.insert(1, false);
        assert!(c.is_dirty(1), "a clean insert keeps the entry dirty");
        assert_eq!(c.lru_order(), vec![1, 2]);
        c.insert(2, true);
        assert_eq!(c.dirty_entries(), 2);
        assert_eq!(c.dirty_tpages(), vec![0]);
        assert_eq!(c.len(), 2);
        c.check();
    }

    /// 64 LPNs in pages of 4 entries (16 pages), then 10 group records of 3 entries,
    /// 2 to a page (5 pages, 16..21).
    fn with_groups(capacity: u32) -> Cmt {
        let mut c = Cmt::new(capacity, 4, 64);
        c.enable_groups(10, 2, 3);
        c
    }

    #[test]
    fn group_records_take_their_cost_in_entries_and_pages_of_their_own() {
        let mut c = with_groups(6);
        assert_eq!(c.tpages(), 16 + 5);
        assert_eq!(c.group_key(3), 67);
        assert_eq!(c.tpage_of(67), 17);
        assert_eq!(c.lpns_of(17), 66..68);
        assert_eq!(c.lpns_of(20), 72..74);
        assert_eq!(c.lookup(67), Lookup::Miss { tpage: 17 });
        for l in 0..4 {
            c.insert(l, false);
        }
        // A record needs 3 entries: two LPN entries leave first, LRU order.
        assert_eq!(c.make_room(67), Some(None));
        assert_eq!(c.make_room(67), None, "4 - 1 + 3 = 6 fits");
        assert_eq!(c.used(), 3);
        assert_eq!(c.insert(67, false), None);
        assert_eq!((c.used(), c.len()), (6, 4));
        assert_eq!(c.lru_order(), vec![67, 3, 2, 1]);
        assert_eq!(c.make_room(67), None, "already cached");
        // An LPN entry evicts one entry; when that is a record, 3 entries free up.
        for l in 1..4 {
            c.lookup(l);
        }
        assert_eq!(c.insert(10, false), None);
        assert_eq!((c.used(), c.len()), (4, 4));
        assert!(!c.contains(67));
        c.check();
    }

    #[test]
    fn dirty_group_records_of_a_page_leave_in_one_batch() {
        // Records 2 and 3 share page 17; record 4 is on page 18.
        let mut c = with_groups(9);
        for g in [2, 3, 4] {
            let k = c.group_key(g);
            assert_eq!(c.make_room(k), None);
            c.insert(k, true);
        }
        assert_eq!(c.used(), 9);
        let b = c.make_room(5).expect("full").expect("record 2 was dirty");
        assert_eq!(
            b,
            DirtyBatch {
                tpage: 17,
                entries: 2,
                all_cached: true
            }
        );
        assert_eq!(c.last_batch(), &[66, 67]);
        assert!(!c.is_dirty(67) && c.is_dirty(68));
        c.check();
    }

    #[test]
    fn uniform_random_lookups_hit_at_the_cached_share() {
        // Working set 4× the cache: LRU under uniform random access hits ≈ 1/4.
        let mut c = Cmt::new(1000, 1024, 4000);
        let mut x: u64 = 0x1234_5678;
        let (mut hits, mut n) = (0u64, 0u64);
        for i in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let lpn = (x % 4000) as u32;
            let hit = c.lookup(lpn) == Lookup::Hit;
            if !hit {
                c.insert(lpn, false);
            }
            if i >= 20_000 {
                n += 1;
                hits += u64::from(hit);
            }
        }
        let ratio = hits as f64 / n as f64;
        assert!((ratio - 0.25).abs() < 0.01, "hit ratio {ratio}");
        c.check();
    }
}
