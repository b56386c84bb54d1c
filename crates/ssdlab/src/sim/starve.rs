//! Starved planes: planes that need GC and found no victim, checked again as writes
//! elsewhere invalidate their pages (docs/SIMULATOR.md, *Garbage collection as traffic*).

use super::gc::Parked;
use super::gc_trigger::GcCause;
use super::txn::NONE;
use super::Simulation;
use crate::placement::{PageToPlace, Role};
use ssdlab_nand::{PlaneId, TxnReason};

/// Starved planes (docs/SIMULATOR.md, *Garbage collection as traffic*). A plane that
/// needs GC but has no full block with an invalid page cannot free space itself: under
/// a placement that spreads an LPN's versions over planes, its pages are invalidated by
/// writes placed elsewhere, which never check it. It is kept in `starved`, checked again
/// after every admission and erase, and its parked host writes are offered to the
/// placement policy again whenever space may have appeared elsewhere.
impl Simulation {
    /// `plane` needs GC and found no victim.
    pub(super) fn starve(&mut self, plane: PlaneId) {
        if !self.starved.contains(&plane) {
            self.counters.gc_starved += 1;
            self.starved.push(plane);
        }
        self.replace_parked(plane);
    }

    /// Starts GC in the starved planes that have a victim now, and forgets those that
    /// no longer need it.
    pub(super) fn revive_starved(&mut self) {
        let mut k = 0;
        while let Some(&plane) = self.starved.get(k) {
            let needed = self.ftl.gc_needed(plane) && !self.plane_dead(plane);
            if needed && !self.ftl.gc_has_candidate(plane) {
                k += 1;
                continue;
            }
            self.starved.remove(k);
            if needed {
                // Starts a job (or leaves it to the lazy trigger): a plane with a
                // candidate has a victim under every victim policy, so it does not starve
                // again here and the loop ends.
                self.maybe_start_gc(plane, false);
            }
        }
    }

    /// Where parked host write `p` of starved `plane` may go now: the placement
    /// policy's choice; with binding at dispatch (the die was the placement's choice,
    /// the plane is the die's), first another plane of the same die with a free page.
    pub(super) fn replacement_plane(&mut self, p: &Parked, plane: PlaneId) -> PlaneId {
        if self.bind.is_some() {
            let die = self.geom.die_of_plane(plane);
            let sibling = (0..self.geom.planes_per_die)
                .map(|n| self.geom.plane_of_die(die, n))
                .find(|&q| q != plane && self.ftl.free_pages_in_plane(q) > 0);
            if let Some(q) = sibling {
                return q;
            }
        }
        self.place(PageToPlace::new(p.lpn, p.token, Role::Data))
    }

    /// The parked host writes of starved `plane`, placed again by the policy: each it
    /// puts on another plane with a free page is programmed there; the rest keep their
    /// place in the queue. Writes under RAID keep their plane (their chunk fixes it),
    /// except under CR5's SDA, which fixes only the chunk's channel and chooses the
    /// chip, die and plane at run time for data and parity pages alike.
    pub(super) fn replace_parked(&mut self, plane: PlaneId) {
        let fixed =
            self.raid.is_some() && self.cfg.raid.chip_in_channel != ssdlab_raid::ChipChoice::Sda;
        if fixed || self.parked[plane.idx()].is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut self.parked[plane.idx()]);
        let mut still = Vec::with_capacity(waiting.len());
        let mut moved: Vec<PlaneId> = Vec::new();
        for p in waiting {
            let to = if p.job != NONE {
                let to = self.place(PageToPlace::new(p.lpn, p.token, Role::Parity));
                let ok = to != plane
                    && !self.plane_dead(to)
                    && self.unpark_parity(p.job, p.lpn, to, p.token);
                ok.then_some(to)
            } else if p.reason == TxnReason::HostWrite {
                if self.drop_if_superseded(&p) {
                    continue;
                }
                let to = self.replacement_plane(&p, plane);
                let ok = to != plane && !self.plane_dead(to) && self.requeue_parked(&p, to);
                ok.then_some(to)
            } else {
                None
            };
            match to {
                Some(to) => {
                    self.counters.parked_moved += 1;
                    if !moved.contains(&to) {
                        moved.push(to);
                    }
                }
                None => still.push(p),
            }
        }
        self.keep_parked(plane, still);
        for to in moved {
            self.note_gc_cause(to, GcCause::Data);
            self.maybe_start_gc(to, false);
        }
    }
}
