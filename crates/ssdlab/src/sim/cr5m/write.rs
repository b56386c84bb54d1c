//! CR5M's write policy for a partial-stripe update (§III-B 1b, 1c): a mirror write when
//! every mirror chip it needs is idle and above the reclaim threshold, else a parity
//! update that claims the stripe's entries.

use super::Entry;
use crate::placement::{PageToPlace, Role};
use crate::sim::raid::{Captured, JobOrigin, StripeWrite};
use crate::sim::txn::{ReqId, TxnId};
use crate::sim::Simulation;
use ssdlab_nand::{ChipId, Lpn, TxnReason};
use ssdlab_raid::MirrorIdle;

/// Why a partial-stripe update could not take a mirror write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// A mirror chip it needs has work.
    Busy,
    /// A mirror chip it needs is below its threshold or has no free page, or the
    /// mirror table is full.
    Full,
    /// The stripe is being updated, holds a page waiting for space, touches a failed
    /// chip, or holds no data yet.
    Other,
}

impl Simulation {
    /// Serves the pages `ws` of request `id` to stripe (row, group) by a mirror write if
    /// it may take one (§III-B 1b); false (nothing done) if it must update the parity.
    pub(in crate::sim) fn cr5m_mirror_write(
        &mut self,
        id: ReqId,
        row: u64,
        group: u32,
        ws: &[StripeWrite],
        txns: &mut Vec<TxnId>,
    ) -> bool {
        if !self.cr5m_state().write {
            return false;
        }
        let d = self.raid().map.layout.group_size() - 1;
        let mut positions: u64 = 0;
        for w in ws {
            positions |= 1 << w.pos;
        }
        let n = positions.count_ones();
        if n == 0 || n >= d {
            return false; // a full-stripe write: its parity costs no read
        }
        if let Err(why) = self.cr5m_eligible(row, group, ws) {
            let c = &mut self.cr5m_mut().counters;
            match why {
                Refusal::Busy => c.refused_busy += 1,
                Refusal::Full => c.refused_full += 1,
                Refusal::Other => c.refused_other += 1,
            }
            return false;
        }
        // The newest write of each position gets the entry and the mirror copy.
        let mut copies: Vec<StripeWrite> = Vec::with_capacity(n as usize);
        for w in ws.iter().rev() {
            if !copies.iter().any(|c| c.pos == w.pos) {
                copies.push(*w);
            }
        }
        copies.reverse();
        for w in &copies {
            self.cr5m_entry_for_write(w);
        }
        for w in ws {
            self.raid_place_data(id, w, txns);
        }
        for w in &copies {
            let c = self.cr5m_state();
            let k = c.entry_of(w.lpn).expect("the entry was just made");
            let slot = c.mirror_slot(k);
            let page = PageToPlace::new(slot, w.token, Role::Mirror).with_chunk(w.chunk);
            let plane = self.place(page);
            self.reqs[id].pending += 1;
            self.write_or_park(id, slot, plane, w.token, TxnReason::MirrorWrite, txns);
        }
        let c = self.cr5m_mut();
        c.counters.mw_stripes += 1;
        c.counters.peak_entries = c.counters.peak_entries.max(c.live_entries());
        for w in &copies {
            self.cr5m_note_mirror_use(w.chunk.member);
        }
        self.debug_check_stripe(row, group);
        true
    }

    /// Whether stripe (row, group) may take a mirror write of `ws` now (the state as it
    /// stands when the request is admitted).
    fn cr5m_eligible(&self, row: u64, group: u32, ws: &[StripeWrite]) -> Result<(), Refusal> {
        let r = self.raid();
        let stripe = r.map.layout.parity_index(row, group);
        if r.locks.contains_key(&stripe)
            || r.buffers.contains_key(&stripe)
            || r.parked_stripes.contains_key(&stripe)
            || self.parity_ppn(row, group).is_none()
            || (self.dead.any() && self.cr5m_stripe_touches_dead(row, group))
        {
            return Err(Refusal::Other);
        }
        let c = self.cr5m_state();
        let new_entries = ws.iter().filter(|w| c.entry_of(w.lpn).is_none()).count() as u64;
        let in_use = c.entries.len() as u64 - c.free.len() as u64;
        if in_use + new_entries > u64::from(c.capacity) {
            return Err(Refusal::Full);
        }
        let mut busy = false;
        for w in ws {
            let channel = w.chunk.member;
            let chip = self.cr5m_mirror_chip(channel);
            if self.dead.is_dead(chip) {
                return Err(Refusal::Other);
            }
            busy |= !self.cr5m_mirror_idle(chip);
            // Below the threshold MW is disabled (§III-B); a write that takes the chip
            // below it starts the reclaim (reclaim.rs).
            let writable = self
                .geom
                .planes_of_chip(chip)
                .any(|p| self.ftl.free_pages_in_plane(p) > 0);
            if !writable || (self.cr5m_avail(channel) as f64) < c.free_ratio * c.chip_pages as f64 {
                return Err(Refusal::Full);
            }
        }
        if busy {
            return Err(Refusal::Busy);
        }
        Ok(())
    }

    /// True when mirror chip `chip` counts as idle (`raid.mirror_idle`).
    fn cr5m_mirror_idle(&self, chip: ChipId) -> bool {
        let c = self.cr5m_state();
        match c.idle {
            MirrorIdle::Chip => self.queues.load[chip.idx()] <= c.idle_max,
            MirrorIdle::Die => (0..self.geom.dies_per_chip).any(|n| {
                let die = self.geom.die_of_chip(chip, n);
                !self.queues.die_busy[die.idx()] && self.queues.queued_for_die(die) == 0
            }),
        }
    }

    /// True when a page of stripe (row, group) — current, expired, parity or mirror copy
    /// — lies on a dead chip, or a data page is known only through redundancy.
    fn cr5m_stripe_touches_dead(&self, row: u64, group: u32) -> bool {
        let dead = |l: Lpn| self.ftl.lookup(l).is_some_and(|p| self.on_dead_chip(p));
        let r = self.raid();
        let parity = r.map.red_lpn(r.map.layout.parity_index(row, group));
        if dead(parity) {
            return true;
        }
        let c = self.cr5m_state();
        (0..r.map.layout.group_size()).any(|pos| {
            let Some(x) = r.map.layout.lpn_at(row, group, pos) else {
                return false;
            };
            let l = Lpn(x as u32);
            dead(l)
                || self.is_redundant_only(l)
                || self.is_lost(l)
                || c.entry_of(l)
                    .is_some_and(|k| dead(c.eppn_slot(k)) || dead(c.mirror_slot(k)))
        })
    }

    /// Makes `w`'s page mirrored: a new entry keeps its current version as the expired
    /// one (what the parity covers). A page mirrored before keeps its expired version:
    /// only the parity of the last update will be computed (§IV-E); its previous data
    /// and copy are overwritten by this write.
    fn cr5m_entry_for_write(&mut self, w: &StripeWrite) {
        let c = self.cr5m_mut();
        if c.entry_of(w.lpn).is_some() {
            return;
        }
        let k = match c.free.pop() {
            Some(k) => k,
            None => {
                c.entries.push(Entry::default());
                (c.entries.len() - 1) as u32
            }
        };
        c.seq += 1;
        let born = c.seq;
        let e = &mut c.entries[k as usize];
        *e = Entry {
            lpn: w.lpn.0,
            channel: w.chunk.member,
            generation: e.generation.wrapping_add(1),
            born,
            live: true,
            claimed: false,
            mirror_live: true,
        };
        let generation = e.generation;
        c.ma.insert(w.lpn.0, k);
        c.fifo[w.chunk.member as usize].push_back((k, generation));
        c.live[w.chunk.member as usize] += 1;
        let eppn = c.eppn_slot(k);
        self.ftl.rename(w.lpn, eppn);
    }

    /// A parity update of stripe (row, group) writing positions `written`: claims the
    /// entries of the stripe (their release waits for its parity) and adds to `old_w`
    /// what read-modify-write needs for the mirrored pages it does not write (their
    /// expired and current versions). The copies of mirrored pages it writes are stale
    /// from now on and are dropped. Returns the entries claimed.
    pub(in crate::sim) fn cr5m_claim(
        &mut self,
        row: u64,
        group: u32,
        written: u64,
        old_w: &mut Captured,
        origin: JobOrigin,
    ) -> Vec<u32> {
        let mut claimed = Vec::new();
        if self.cr5m.as_deref().is_none_or(|c| c.ma.is_empty()) {
            return claimed;
        }
        let d = self.raid().map.layout.group_size();
        let mut all = true;
        for pos in 0..d {
            let Some(x) = self.raid().map.layout.lpn_at(row, group, pos) else {
                continue;
            };
            let lpn = Lpn(x as u32);
            let in_w = written & (1 << pos) != 0;
            all &= in_w;
            let Some(k) = self.cr5m_state().entry_of(lpn) else {
                continue;
            };
            if in_w {
                self.cr5m_drop_copy(k);
            }
            if self.cr5m_state().entries[k as usize].claimed {
                continue;
            }
            if !in_w {
                let eppn = self.cr5m_state().eppn_slot(k);
                self.capture(eppn, old_w);
                let source = self.cr5m_current_source(lpn);
                self.capture(source, old_w);
            }
            self.cr5m_mark_claimed(k);
            claimed.push(k);
        }
        let n = claimed.len() as u64;
        let c = &mut self.cr5m_mut().counters;
        match origin {
            JobOrigin::Host if all => c.reclaims_full += n,
            JobOrigin::Host => c.reclaims_update += n,
            JobOrigin::Capacity => c.reclaims_capacity += n,
            JobOrigin::Pressure => c.reclaims_pressure += n,
            JobOrigin::MirrorLost => c.reclaims_failure += n,
        }
        claimed
    }
}
