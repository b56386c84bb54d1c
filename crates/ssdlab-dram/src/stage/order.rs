//! The stage's bookkeeping: entries in and out of DRAM, their order under the
//! replacement policy, and the choice of the pages to destage.

use super::{DramStage, Entry, Victim, Where, CLEAN, DESTAGING, DIRTY};
use crate::config::Replacement;
use ssdlab_nand::Lpn;

impl DramStage {
    pub(super) fn note(&mut self, now_ns: u64) {
        let dirty = u64::from(self.dirty_pages());
        self.occupancy.note(now_ns, dirty);
    }

    pub(super) fn insert(&mut self, lpn: Lpn, token: u64, seq: u64) -> u32 {
        self.clock += 1;
        let e = Entry {
            lpn: lpn.0,
            token,
            seq,
            stamp: self.clock,
            ..Entry::default()
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.entries[s as usize] = e;
                s
            }
            None => {
                let s = self.entries.len() as u32;
                self.entries.push(e);
                self.wheres.push(Where::Destaging);
                self.by_stamp.add_slot(s);
                self.by_age.add_slot(s);
                s
            }
        };
        self.index.insert(lpn.0, slot);
        slot
    }

    /// Takes `slot` out of DRAM (it must be listed clean or dirty, not destaging).
    pub(super) fn remove(&mut self, slot: u32) {
        let lpn = self.entries[slot as usize].lpn;
        self.unlist(slot);
        self.index.remove(&lpn);
        self.free.push(slot);
    }

    /// Lists `slot` as `w` (clean or dirty) at its stamp.
    pub(super) fn list(&mut self, slot: u32, w: Where) {
        self.wheres[slot as usize] = w;
        let stamp = self.entries[slot as usize].stamp;
        match w {
            Where::Clean => self.by_stamp.insert(CLEAN, slot, stamp),
            Where::Dirty => self.by_stamp.insert(DIRTY, slot, stamp),
            Where::Destaging => {}
        }
    }

    /// Takes `slot` out of its list (clean or dirty; a destaging entry is in none).
    pub(super) fn unlist(&mut self, slot: u32) {
        match self.wheres[slot as usize] {
            Where::Clean => self.by_stamp.remove(CLEAN, slot),
            Where::Dirty => self.by_stamp.remove(DIRTY, slot),
            Where::Destaging => {}
        }
    }

    /// A clean entry becomes dirty from write `seq`.
    pub(super) fn mark_dirty(&mut self, slot: u32, seq: u64) {
        self.entries[slot as usize].dirty_since = seq;
        self.by_age.insert(DIRTY, slot, seq);
        self.list(slot, Where::Dirty);
    }

    /// A write of a page DRAM holds; true when it replaced a dirty version that was not
    /// being programmed.
    pub(super) fn rewrite(&mut self, slot: u32, token: u64, seq: u64) -> bool {
        let e = &mut self.entries[slot as usize];
        e.token = token;
        e.seq = seq;
        match self.wheres[slot as usize] {
            Where::Clean => {
                self.unlist(slot);
                self.mark_dirty(slot, seq);
                false
            }
            Where::Dirty => true,
            Where::Destaging => {
                if e.rewritten_at == 0 {
                    e.rewritten_at = seq;
                    false
                } else {
                    true
                }
            }
        }
    }

    /// Makes `slot` the most recent under LRU (FIFO keeps arrival order).
    pub(super) fn touch(&mut self, slot: u32) {
        if self.replacement == Replacement::Fifo {
            return;
        }
        let w = self.wheres[slot as usize];
        self.unlist(slot);
        self.clock += 1;
        self.entries[slot as usize].stamp = self.clock;
        self.list(slot, w);
    }

    /// The page the replacement policy would drop first, clean or dirty.
    pub(super) fn policy_victim(&self) -> Option<u32> {
        let (c, d) = (self.by_stamp.first(CLEAN), self.by_stamp.first(DIRTY));
        let pick = match self.replacement {
            Replacement::CleanFirstLru => c.or(d),
            Replacement::Lru | Replacement::Fifo => match (c, d) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
        };
        pick.map(|(_, slot)| slot)
    }

    /// Drops the replacement victim if it is clean; false if it is dirty or there is none.
    pub(super) fn evict_clean(&mut self) -> bool {
        match self.policy_victim() {
            Some(slot) if self.wheres[slot as usize] == Where::Clean => {
                self.counters.evicted += 1;
                self.remove(slot);
                true
            }
            _ => false,
        }
    }

    /// The next dirty page to destage, or none when nothing needs one now.
    pub(super) fn next_victim(&mut self) -> Option<u32> {
        // Urgent pages written again while an older version is programmed: their
        // urgent version goes once that program is done (a page is not programmed twice
        // at once), so they stay urgent.
        let mut later: Vec<u32> = Vec::new();
        let mut found = None;
        while let Some(lpn) = self.urgent.pop() {
            match self.index.get(&lpn) {
                Some(&slot) if self.wheres[slot as usize] == Where::Dirty => {
                    found = Some(slot);
                    break;
                }
                Some(&slot)
                    if self.wheres[slot as usize] == Where::Destaging
                        && self.entries[slot as usize].rewritten_at != 0 =>
                {
                    later.push(lpn);
                }
                _ => {}
            }
        }
        self.urgent.extend(later.into_iter().rev());
        if found.is_some() {
            return found;
        }
        if let Some((since, slot)) = self.by_age.first(DIRTY) {
            if since <= self.flush_upto {
                return Some(slot);
            }
        }
        let need_room = self.waiting > self.destaging;
        let background = self.draining && self.dirty_pages() - self.destaging > self.low;
        if !(need_room || background) {
            return None;
        }
        // The page the policy would drop, when it is dirty; else the least recent dirty.
        match self.policy_victim() {
            Some(s) if self.wheres[s as usize] == Where::Dirty => Some(s),
            _ => self.by_stamp.first(DIRTY).map(|(_, s)| s),
        }
    }

    /// Marks `slot` and the other waiting dirty pages of its group as destaging.
    pub(super) fn take_group(&mut self, slot: u32, out: &mut Vec<Victim>) {
        let lpn = self.entries[slot as usize].lpn;
        let first = lpn - lpn % self.group;
        for l in first..first.saturating_add(self.group) {
            // The victim's own slot is known: the index is asked only for the others.
            let s = if l == lpn {
                slot
            } else if let Some(&s) = self.index.get(&l) {
                s
            } else {
                continue;
            };
            if self.wheres[s as usize] != Where::Dirty {
                continue;
            }
            self.unlist(s);
            self.wheres[s as usize] = Where::Destaging;
            self.destaging += 1;
            let e = &mut self.entries[s as usize];
            e.destaging = e.seq;
            self.by_age.remove(DIRTY, s);
            self.by_age.insert(DESTAGING, s, e.dirty_since);
            self.counters.destaged += 1;
            out.push(Victim {
                lpn: Lpn(l),
                token: e.token,
                seq: e.seq,
            });
        }
    }
}
