//! A power loss: which dirty pages the PLP budget still programs and which are lost,
//! and the sequence numbers a stage shares with the other partitions of its tenants
//! (so that "oldest" and a flush's mark mean the same in every partition).

use super::{DramStage, Victim, DESTAGING, DIRTY};
use crate::stage::PowerLoss;
use ssdlab_nand::Lpn;

impl DramStage {
    /// Power is lost at `now_ns`: the `plp_pages` oldest dirty pages not yet being
    /// programmed are saved (to program on the hold-up energy), the other dirty pages
    /// are lost, and DRAM is empty afterwards. Programs already in flight complete.
    pub fn power_loss(&mut self, now_ns: u64, plp_pages: u64) -> PowerLoss {
        let dirty = self.drain(now_ns);
        let loss = split_loss(dirty, plp_pages);
        self.count_loss(loss.saved.len() as u64, loss.lost.len() as u64);
        loss
    }

    /// Power is lost at `now_ns`: every dirty page that is not only being programmed
    /// (a page being programmed is lost only in a version written since), keyed by its
    /// oldest write not yet durable and in that order; DRAM is empty afterwards.
    pub(crate) fn drain(&mut self, now_ns: u64) -> Vec<(u64, Victim)> {
        self.counters.power_losses += 1;
        let mut by_age = self.by_age.in_order(DIRTY);
        by_age.extend(self.by_age.in_order(DESTAGING));
        by_age.sort_unstable();
        let mut dirty = Vec::with_capacity(by_age.len());
        for (since, slot) in by_age {
            let e = &self.entries[slot as usize];
            if e.destaging != 0 && e.rewritten_at == 0 {
                continue;
            }
            let v = Victim {
                lpn: Lpn(e.lpn),
                token: e.token,
                seq: e.seq,
            };
            dirty.push((since, v));
        }
        self.entries.clear();
        self.wheres.clear();
        self.free.clear();
        self.index.clear();
        self.by_age.clear();
        self.urgent.clear();
        self.by_stamp.clear();
        self.destaging = 0;
        self.draining = false;
        self.flush_upto = 0;
        self.note(now_ns);
        dirty
    }

    /// A power loss saved `saved` of this stage's dirty pages and lost `lost`.
    pub(crate) fn count_loss(&mut self, saved: u64, lost: u64) {
        self.counters.lost += lost;
        self.counters.plp_saved += saved;
    }

    /// The sequence number the next write takes.
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The next write takes sequence number `seq` (not below the stage's own): the
    /// partitions of a tenants' stage number their writes from one counter.
    pub(crate) fn set_next_seq(&mut self, seq: u64) {
        debug_assert!(seq >= self.next_seq);
        self.next_seq = seq;
    }
}

/// Dirty pages in age order: the first `plp_pages` saved, the others lost.
pub(crate) fn split_loss(dirty: Vec<(u64, Victim)>, plp_pages: u64) -> PowerLoss {
    let mut loss = PowerLoss::default();
    for (_, v) in dirty {
        if (loss.saved.len() as u64) < plp_pages {
            loss.saved.push(v);
        } else {
            loss.lost.push(v);
        }
    }
    loss
}
