//! Expired-data reclaim (§III-B 1c, 1d): the release of a stripe's entries once a new
//! parity covers their current versions, and the reclaims no host write starts — a
//! mirror chip short of space (oldest entries first), a data plane that cannot collect
//! garbage while expired pages fill it, a mirror chip that failed.

use crate::sim::raid::{JobOrigin, JobPlan};
use crate::sim::txn::NONE;
use crate::sim::Simulation;
use ssdlab_nand::{ChipId, Lpn, PlaneId};

impl Simulation {
    /// Entry `k` is claimed by a job being created.
    pub(super) fn cr5m_mark_claimed(&mut self, k: u32) {
        let c = self.cr5m_mut();
        let e = &mut c.entries[k as usize];
        debug_assert!(e.live && !e.claimed);
        e.claimed = true;
        if e.mirror_live {
            c.claimed_live[e.channel as usize] += 1;
        }
    }

    /// The mirror copy of entry `k` no longer holds its page's content: invalidated.
    pub(super) fn cr5m_drop_copy(&mut self, k: u32) {
        let c = self.cr5m_mut();
        let e = &mut c.entries[k as usize];
        if !e.mirror_live {
            return;
        }
        e.mirror_live = false;
        let ch = e.channel as usize;
        c.live[ch] -= 1;
        if e.claimed {
            c.claimed_live[ch] -= 1;
        }
        let slot = c.mirror_slot(k);
        self.cr5m_release_slot(slot);
    }

    /// Invalidates slot `lpn`'s page (a write of it waiting for space is dropped: its
    /// parked program finds itself superseded).
    fn cr5m_release_slot(&mut self, lpn: Lpn) {
        if self.held.remove(&lpn.0).is_some() {
            self.raid_note_held(lpn, false);
        }
        if let Some(p) = self.ftl.lookup(lpn) {
            self.ftl.release(lpn);
            self.gc_check.push(self.geom.plane_of_page(p));
        }
    }

    /// A job's parity is on flash: its claimed entries are released (their expired
    /// version and copy invalidated, MA cleared). All released pages are reclaimed by
    /// GC (§III-B 1c).
    pub(in crate::sim) fn cr5m_release(&mut self, stripe: u64, claimed: &[u32], origin: JobOrigin) {
        if origin == JobOrigin::Pressure {
            let c = self.cr5m_mut();
            if let Some(plane) = c.pressure_stripes.remove(&stripe) {
                let n = c
                    .pressure_planes
                    .get_mut(&plane)
                    .expect("a plane under pressure");
                *n -= 1;
                if *n == 0 {
                    c.pressure_planes.remove(&plane);
                    // Its GC may find a victim now, or ask again.
                    self.gc_check.push(PlaneId(plane));
                }
            }
        }
        for &k in claimed {
            self.cr5m_drop_copy(k);
            let c = self.cr5m_mut();
            let e = &mut c.entries[k as usize];
            debug_assert!(e.live && e.claimed);
            e.live = false;
            e.claimed = false;
            let lpn = e.lpn;
            c.ma.remove(&lpn);
            c.free.push(k);
            let eppn = c.eppn_slot(k);
            self.cr5m_release_slot(eppn);
            if self.cmt.is_some() {
                // MA is a field of the page's map entry (§III-B): clearing it changes
                // the entry.
                self.cmt_remapped(Lpn(lpn), false);
            }
        }
    }

    /// A mirror write allocated a copy on `channel`'s mirror chip: below the reclaim
    /// threshold, the oldest entries of the chip are reclaimed until the capacity they
    /// free brings it back to `raid.mirror_reclaim_stop_ratio` (§III-B 1d).
    pub(super) fn cr5m_note_mirror_use(&mut self, channel: u32) {
        let avail = self.cr5m_avail(channel);
        let c = self.cr5m_mut();
        let pages = c.chip_pages as f64;
        c.avail_min = c.avail_min.min(avail as f64 / pages);
        if (avail as f64) >= c.free_ratio * pages {
            return;
        }
        let target = (c.stop_ratio * pages).ceil() as u64;
        let ch = channel as usize;
        loop {
            let c = self.cr5m_state();
            let projected = c.chip_pages - (c.live[ch] - c.claimed_live[ch]);
            if projected >= target {
                break;
            }
            let Some((k, generation)) = self.cr5m_mut().fifo[ch].pop_front() else {
                break;
            };
            let e = self.cr5m_state().entries[k as usize];
            if !e.live || e.generation != generation || e.claimed {
                continue;
            }
            self.cr5m_reclaim_stripe_of(Lpn(e.lpn), JobOrigin::Capacity);
        }
    }

    /// A parity update of the stripe of host page `lpn` that no host write asked for:
    /// it reads what RMW or RCW needs (fewer reads; RCW on ties), programs the new
    /// parity and releases the stripe's entries. Nothing happens if none is unclaimed.
    fn cr5m_reclaim_stripe_of(&mut self, lpn: Lpn, origin: JobOrigin) -> Option<u64> {
        let r = self.raid();
        let chunk = r.map.layout.locate(u64::from(lpn.0));
        let (row, group) = (chunk.row, chunk.group);
        let stripe = r.map.stripe_of(&chunk);
        let mut old_w = self.raid_mut().new_capture();
        let claimed = self.cr5m_claim(row, group, 0, &mut old_w, origin);
        if claimed.is_empty() {
            self.raid_mut().give_vec(old_w.reads);
            return None;
        }
        let mut others = self.raid_mut().new_capture();
        let d = self.raid().map.layout.group_size();
        for pos in 0..d {
            if let Some(x) = self.raid().map.layout.lpn_at(row, group, pos) {
                let source = self.cr5m_current_source(Lpn(x as u32));
                self.capture(source, &mut others);
            }
        }
        let plan = JobPlan {
            stripe,
            row,
            group,
            known: 0,
            parity_mapped: self.parity_ppn(row, group).is_some(),
            req: NONE,
            origin,
        };
        let j = self.choose_job(plan, old_w, others);
        self.raid_mut().jobs[j].claimed = claimed;
        self.enqueue_job(j);
        Some(stripe)
    }

    /// GC found no victim in data plane `plane`: if expired pages fill it, the stripes
    /// owning them are reclaimed (oldest first, a block's worth), so that their pages
    /// become invalid (`raid.mirror_pressure_reclaim`).
    pub(in crate::sim) fn cr5m_pressure(&mut self, plane: PlaneId) {
        let Some(c) = self.cr5m.as_deref() else {
            return;
        };
        if !c.pressure || c.ma.is_empty() || c.pressure_planes.contains_key(&plane.0) {
            return;
        }
        let mut found: Vec<(u64, u32)> = Vec::new();
        for (k, e) in c.entries.iter().enumerate() {
            if !e.live || e.claimed {
                continue;
            }
            let in_plane = self
                .ftl
                .lookup(c.eppn_slot(k as u32))
                .is_some_and(|p| self.geom.plane_of_page(p) == plane);
            if in_plane {
                found.push((e.born, k as u32));
            }
        }
        found.sort_unstable();
        found.truncate(self.geom.pages_per_block as usize);
        for (_, k) in found {
            let e = self.cr5m_state().entries[k as usize];
            if !e.live || e.claimed {
                continue;
            }
            // Registered before the job runs: it may finish at once.
            let stripe = {
                let r = self.raid();
                r.map.stripe_of(&r.map.layout.locate(u64::from(e.lpn)))
            };
            let c = self.cr5m_mut();
            c.pressure_stripes.insert(stripe, plane.0);
            *c.pressure_planes.entry(plane.0).or_default() += 1;
            if self
                .cr5m_reclaim_stripe_of(Lpn(e.lpn), JobOrigin::Pressure)
                .is_none()
            {
                let c = self.cr5m_mut();
                c.pressure_stripes.remove(&stripe);
                let n = c.pressure_planes.get_mut(&plane.0).expect("just counted");
                *n -= 1;
                if *n == 0 {
                    c.pressure_planes.remove(&plane.0);
                }
            }
        }
    }

    /// `chip` failed: if it is a mirror chip, the pages it mirrored lost their second
    /// copy, and their stripes are reclaimed at once.
    pub(in crate::sim) fn cr5m_chip_died(&mut self, chip: ChipId) {
        if self.cr5m.is_none() || !self.raid().map.is_mirror_chip(&self.geom, chip) {
            return;
        }
        let channel = self.raid().map.mirrored_channel(&self.geom, chip);
        let mut lost: Vec<(u64, u32)> = self
            .cr5m_state()
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.live && e.channel == channel)
            .map(|(k, e)| (e.born, k as u32))
            .collect();
        lost.sort_unstable();
        for &(_, k) in &lost {
            self.cr5m_drop_copy(k);
        }
        for (_, k) in lost {
            let e = self.cr5m_state().entries[k as usize];
            if e.live && !e.claimed {
                self.cr5m_reclaim_stripe_of(Lpn(e.lpn), JobOrigin::MirrorLost);
            }
        }
    }

    /// A mirror copy parked on a chip that died will never be written: its entry loses
    /// its copy (the data page still holds the content). True if `lpn` was such a slot.
    pub(in crate::sim) fn cr5m_parked_copy_lost(&mut self, lpn: Lpn) -> bool {
        let Some(k) = self
            .cr5m
            .as_deref()
            .and_then(|c| c.entry_of_mirror_slot(lpn))
        else {
            return false;
        };
        self.cr5m_drop_copy(k);
        true
    }
}
