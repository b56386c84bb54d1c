//! DS-FTL's secondary table in the cached map (docs/FTL.md §12, "With DS-FTL"; paper
//! §4.3.1): an LPN whose page is in a group (two or more mapped pages with its content)
//! has a primary entry naming the group, and the group's record lists its pages.
//!
//! ```text
//!  read of lpn ─► primary entry (hit, or map read) ─► page in a group? ─ no ─► the read
//!                                                      └ yes ─► group record: hit ─► the read
//!                                                               miss ─► map read of its
//!                                                               translation page, then the read
//!  FTL group changes (logged by the content index) ─► record dirty; a group formed or
//!  dissolved also dirties the primary entries of the LPNs that now name it or their page
//! ```
//!
//! Group `g`'s record is CMT key `logical_pages + g`; records take `cost` entries of the
//! table each and sit `per_tpage` to a translation page, after the LPNs' pages.

use super::Waiter;
use crate::sim::txn::ReqId;
use crate::sim::Simulation;
use ssdlab_ftl::{Ftl, GroupEvent, Lookup, PageOwner};
use ssdlab_nand::{Lpn, Ppn};
use ssdlab_stats::{ratio, GroupMapping};

/// The group records' side of the cached map.
pub(crate) struct GroupMap {
    /// The key of group 0's record (the host's logical pages).
    key0: u32,
    /// Group numbers covered: the content index reuses freed numbers first and every
    /// group holds two mapped host pages or more, so fewer than `logical / 2 + 1`.
    space: u32,
    /// Entries of the table one record takes.
    cost: u32,
    /// Records per translation page.
    per_tpage: u32,
    events: Vec<GroupEvent>,
    lookups: u64,
    hits: u64,
    miss_reads: u64,
    written: u64,
}

impl GroupMap {
    /// Records of `cost` entries for the groups of `logical` host pages, in translation
    /// pages of `entries_per_tpage` entries.
    pub fn new(logical: u32, cost: u32, entries_per_tpage: u32) -> GroupMap {
        GroupMap {
            key0: logical,
            space: logical / 2 + 1,
            cost,
            per_tpage: (entries_per_tpage / cost).max(1),
            events: Vec::new(),
            lookups: 0,
            hits: 0,
            miss_reads: 0,
            written: 0,
        }
    }

    /// Group numbers covered.
    pub fn space(&self) -> u32 {
        self.space
    }

    /// Translation pages of the records.
    pub fn tpages(&self) -> u32 {
        self.space.div_ceil(self.per_tpage)
    }

    /// `(groups, records per translation page, entries per record)` for the CMT.
    pub fn shape(&self) -> (u32, u32, u16) {
        (self.space, self.per_tpage, self.cost as u16)
    }

    /// A batch carried `keys`: counts its group records.
    pub fn count_written(&mut self, keys: &[u32]) {
        self.written += keys.iter().filter(|&&k| k >= self.key0).count() as u64;
    }

    /// The report's part.
    pub fn report(&self, tpages: u32) -> GroupMapping {
        GroupMapping {
            record_entries: u64::from(self.cost),
            records_per_tpage: u64::from(self.per_tpage),
            tpages: u64::from(tpages),
            lookups: self.lookups,
            hits: self.hits,
            hit_ratio: ratio(self.hits as f64, self.lookups as f64),
            miss_reads: self.miss_reads,
            written_records: self.written,
        }
    }
}

/// What a translation page records for `key` (verify mode's shadow and audit): an LPN's
/// page (`ppn + 1`, 0 unmapped) or, with group records, the group its page is in
/// (`1 << 32 | g`); for a group record, a fingerprint of the group's pages (0: unused).
pub(super) fn record(ftl: &Ftl, groups: Option<&GroupMap>, key: u32) -> u64 {
    let page = |k: u32| ftl.lookup(Lpn(k));
    if let Some(gm) = groups {
        if key >= gm.key0 {
            return ftl.content_group_fingerprint(key - gm.key0);
        }
        if let Some(g) = page(key).and_then(|p| ftl.content_group(p)) {
            return 1 << 32 | u64::from(g);
        }
    }
    page(key).map_or(0, |p| u64::from(p.0) + 1)
}

impl Simulation {
    /// A read of `lpn` whose primary entry is at hand: when its page is in a group, the
    /// group's record is looked up; true when the read waits for the record's
    /// translation page (a second dependent read when the entry missed too).
    pub(super) fn cmt_group_wait(&mut self, id: ReqId, lpn: Lpn, token: Option<u64>) -> bool {
        if self.cmt.as_ref().expect("cached map").groups.is_none() {
            return false;
        }
        let Some(g) = self.ftl.lookup(lpn).and_then(|p| self.ftl.content_group(p)) else {
            return false;
        };
        let c = self.cmt.as_mut().expect("cached map");
        let gm = c.groups.as_mut().expect("group records");
        let key = gm.key0 + g;
        gm.lookups += 1;
        let tpage = match c.cmt.lookup(key) {
            Lookup::Hit => {
                gm.hits += 1;
                return false;
            }
            Lookup::Miss { tpage } => tpage,
        };
        c.missed.insert(id);
        let w = Waiter {
            req: id,
            lpn,
            token,
            key,
        };
        if let Some(ws) = c.reading.get_mut(&tpage) {
            ws.push(w);
            return true;
        }
        let in_controller = c.rmw.contains(&tpage);
        let slot = c.slot(tpage);
        match self.ftl.lookup(slot).filter(|&p| self.tpage_readable(p)) {
            Some(ppn) if !in_controller => {
                let c = self.cmt.as_mut().expect("cached map");
                c.groups.as_mut().expect("group records").miss_reads += 1;
                c.reading.insert(tpage, vec![w]);
                self.map_read(ppn, tpage);
                true
            }
            _ => {
                // Its newest version is in the controller: no flash read.
                self.cmt_insert_key(key, false);
                false
            }
        }
    }

    /// Caches `key` (a group record: room for its entries is made first, each dirty
    /// entry evicted rewriting its translation page).
    pub(super) fn cmt_insert_key(&mut self, key: u32, dirty: bool) {
        while let Some(evicted) = self.cmt.as_mut().expect("cached map").cmt.make_room(key) {
            if let Some(batch) = evicted {
                self.writeback(batch);
            }
        }
        self.cmt_insert(Lpn(key), dirty);
    }

    /// A GC or fold move of `lpn`'s page finished: with group records, a page in a group
    /// changes its group's record, not `lpn`'s entry (which names the group). True when
    /// that was so (the move is accounted for).
    pub(super) fn cmt_group_moved(&mut self, lpn: Lpn) -> bool {
        if self.cmt.as_ref().expect("cached map").groups.is_none() {
            return false;
        }
        let grouped = self
            .ftl
            .lookup(lpn)
            .is_some_and(|p| self.ftl.content_group(p).is_some());
        if grouped {
            self.cmt_group_events();
        }
        grouped
    }

    /// The group changes the FTL logged since the last call: each changed group's
    /// record turns dirty; a group formed or dissolved also changes the primary entries
    /// of the LPNs whose pages it took in or left alone.
    pub(super) fn cmt_group_events(&mut self) {
        let c = self.cmt.as_mut().expect("cached map");
        let Some(gm) = c.groups.as_mut() else {
            return;
        };
        let key0 = gm.key0;
        let mut events = std::mem::take(&mut gm.events);
        loop {
            self.ftl.take_group_events(&mut events);
            if events.is_empty() {
                break;
            }
            for e in events.drain(..) {
                let g = match e {
                    GroupEvent::Changed(g) => g,
                    GroupEvent::Formed { g, a, b } => {
                        self.cmt_page_renamed(a);
                        self.cmt_page_renamed(b);
                        g
                    }
                    GroupEvent::Dissolved { g, last } => {
                        self.cmt_page_renamed(last);
                        g
                    }
                };
                self.cmt_insert_key(key0 + g, true);
            }
        }
        let c = self.cmt.as_mut().expect("cached map");
        c.groups.as_mut().expect("group records").events = events;
    }

    /// The primary entry of the LPN whose page `ppn` is changed (it names a group now,
    /// or its page again): dirty.
    fn cmt_page_renamed(&mut self, ppn: Ppn) {
        if let PageOwner::Lpn(l) = self.ftl.page_owner(ppn) {
            if u64::from(l.0) < self.logical_pages && self.ftl.lookup(l) == Some(ppn) {
                self.cmt_insert(l, true);
            }
        }
    }

    /// Before the run: the changes logged while the device was filled are in the map
    /// the directory writes, not in the table.
    pub(super) fn cmt_groups_settled(&mut self) {
        let c = self.cmt.as_mut().expect("cached map");
        if let Some(gm) = c.groups.as_mut() {
            self.ftl.take_group_events(&mut gm.events);
            gm.events.clear();
        }
    }
}
