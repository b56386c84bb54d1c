//! CR5M (Wang et al., "CR5M: A Mirroring-Powered Channel-RAID5 Architecture for An SSD"):
//! channel-level RAID-5 with a hidden mirror chip per channel (§III-B).
//!
//! ```text
//!  partial-stripe update ──► mirror chips of its channels idle and above 2 %?
//!     │ yes: mirror write (write.rs)            │ no: RMW / RCW (sim/raid/job.rs) that
//!     │   new data ─► data chip (SDA)            │     reclaims the stripe's expired data:
//!     │   copy     ─► the channel's mirror chip  │     its entries are released when the
//!     │   old page kept as EPPN, parity untouched│     new parity is on flash (reclaim.rs)
//!     ▼                                          ▼
//!  mirror table: host LPN ─MA─► entry {EPPN, MPPN}      capacity reclaim: mirror chip
//!  reads may take the copy (plans)                       below 2 % → oldest entries first
//! ```
//!
//! **The mirror table.** Entry `k` owns two FTL slots ([`ssdlab_ftl::Ftl::with_slots`]):
//! the mirror copy at `mirror_base + k` (MPPN) and the expired version at `eppn_base + k`
//! (EPPN). They are mapped pages, so GC moves them like any page and the table never
//! holds a physical address that GC could make stale: MPPN and EPPN are the slots'
//! current pages. At a mirror write the old version of the page is *renamed* to the
//! EPPN slot (no flash work). `ma` is the MA field of the mapping entries, kept only for
//! pages that have an entry.
//!
//! **What the parity covers.** A stripe's parity is the XOR of, for every data position,
//! its expired version when the position has an entry and its current version otherwise
//! (`cov`, [`Simulation::cr5m_covered`]). Reconstruction and the audit use `cov`; a
//! mirrored page itself is recovered from its copy, never from the parity.
//!
//! **Claims.** A stripe job (host RMW/RCW/full-stripe write, or a reclaim) *claims* the
//! entries of its stripe when it is created: its parity covers their current versions,
//! and when the parity is on flash the entries are released (EPPN and MPPN invalidated,
//! MA cleared). A mirror write needs a stripe without jobs, so a claimed entry is never
//! mirror-written again.

mod check;
mod reclaim;
mod write;

#[cfg(test)]
mod tests;

use super::raid::RaidState;
use super::Simulation;
use crate::device::DeadChips;
use crate::layout::RaidMap;
use rustc_hash::FxHashMap;
use ssdlab_ftl::Ftl;
use ssdlab_nand::{ChannelId, ChipId, Geometry, Lpn, Ppn};
use ssdlab_raid::{MirrorAvail, MirrorIdle, MirrorReadChoice, RaidConfig};
use ssdlab_stats::{Counter, MirrorEnd};
use std::collections::VecDeque;

/// One mirror table entry: a host page written by a mirror write whose stripe's parity
/// still covers its expired version.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entry {
    /// The host LPN.
    pub lpn: u32,
    /// Its channel (the mirror chip's).
    pub channel: u32,
    /// Bumped every time the slot is reused, so that stale queue positions are skipped.
    pub generation: u32,
    /// Creation order (oldest first when reclaims choose).
    pub born: u64,
    /// In use.
    pub live: bool,
    /// A stripe job's parity covers the page's current version: released when it lands.
    pub claimed: bool,
    /// The mirror copy holds the page's current content (false once a parity update
    /// rewrote the page, or the mirror chip died).
    pub mirror_live: bool,
}

/// Counters the report shows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cr5mCounters {
    pub mw_stripes: u64,
    pub refused_busy: u64,
    pub refused_full: u64,
    pub refused_other: u64,
    pub reclaims_update: u64,
    pub reclaims_full: u64,
    pub reclaims_capacity: u64,
    pub reclaims_pressure: u64,
    pub reclaims_failure: u64,
    pub peak_entries: u64,
}

/// CR5M's state of a run.
pub(crate) struct Cr5m {
    /// MA: host LPN → entry.
    pub ma: FxHashMap<u32, u32>,
    pub entries: Vec<Entry>,
    pub free: Vec<u32>,
    /// Per channel, entries in creation order (entry, generation): capacity reclaim
    /// releases the oldest first.
    pub fifo: Vec<VecDeque<(u32, u32)>>,
    /// Per channel: entries whose mirror copy is live on the channel's mirror chip.
    pub live: Vec<u64>,
    /// Per channel: of those, entries claimed by a job in flight (about to be freed).
    pub claimed_live: Vec<u64>,
    /// FTL LPN of mirror slot 0 and of expired slot 0.
    pub mirror_base: u32,
    pub eppn_base: u32,
    /// Entries the slots allow.
    pub capacity: u32,
    /// Pages of one mirror chip.
    pub chip_pages: u64,
    pub write: bool,
    pub reads: bool,
    pub idle: MirrorIdle,
    pub idle_max: u32,
    pub free_ratio: f64,
    pub stop_ratio: f64,
    pub avail: MirrorAvail,
    pub read_choice: MirrorReadChoice,
    pub pressure: bool,
    /// Pressure reclaims in flight: stripe → the plane that asked for it, and the jobs
    /// each such plane waits for (one episode per plane at a time).
    pub pressure_stripes: FxHashMap<u64, u32>,
    pub pressure_planes: FxHashMap<u32, u32>,
    /// The lowest available-capacity fraction a mirror chip reached.
    pub avail_min: f64,
    /// Entries made so far (the creation stamp).
    pub seq: u64,
    pub counters: Cr5mCounters,
}

impl Cr5m {
    /// The state for `cfg` over `raid`, with `slots` FTL slots after map entry
    /// `slot_base` (half mirror copies, half expired versions).
    pub fn new(
        cfg: &RaidConfig,
        raid: &RaidState,
        slot_base: u32,
        slots: u32,
        g: &Geometry,
    ) -> Cr5m {
        let capacity = slots / 2;
        let channels = g.channels as usize;
        debug_assert!(raid.map.mirror);
        Cr5m {
            ma: FxHashMap::default(),
            entries: Vec::new(),
            free: Vec::new(),
            fifo: vec![VecDeque::new(); channels],
            live: vec![0; channels],
            claimed_live: vec![0; channels],
            mirror_base: slot_base,
            eppn_base: slot_base + capacity,
            capacity,
            chip_pages: u64::from(g.pages() / g.chips()),
            write: cfg.mirror_write,
            reads: cfg.mirror_reads,
            idle: cfg.mirror_idle,
            idle_max: cfg.mirror_idle_max_outstanding,
            free_ratio: cfg.mirror_reclaim_free_ratio,
            stop_ratio: cfg.mirror_reclaim_stop_ratio,
            avail: cfg.mirror_avail,
            read_choice: cfg.mirror_read_choice,
            pressure: cfg.mirror_pressure_reclaim,
            pressure_stripes: FxHashMap::default(),
            pressure_planes: FxHashMap::default(),
            avail_min: 1.0,
            seq: 0,
            counters: Cr5mCounters::default(),
        }
    }

    /// The mirror slot of entry `k`.
    #[inline]
    pub fn mirror_slot(&self, k: u32) -> Lpn {
        Lpn(self.mirror_base + k)
    }

    /// The expired slot of entry `k`.
    #[inline]
    pub fn eppn_slot(&self, k: u32) -> Lpn {
        Lpn(self.eppn_base + k)
    }

    /// The entry of host page `lpn`, if it has one.
    #[inline]
    pub fn entry_of(&self, lpn: Lpn) -> Option<u32> {
        if self.ma.is_empty() {
            None
        } else {
            self.ma.get(&lpn.0).copied()
        }
    }

    /// True when `lpn` is one of the slots.
    #[inline]
    pub fn is_slot(&self, lpn: Lpn) -> bool {
        lpn.0 >= self.mirror_base && lpn.0 < self.eppn_base + self.capacity
    }

    /// The entry whose mirror slot is `lpn`.
    #[inline]
    pub fn entry_of_mirror_slot(&self, lpn: Lpn) -> Option<u32> {
        (lpn.0 >= self.mirror_base && lpn.0 < self.eppn_base).then(|| lpn.0 - self.mirror_base)
    }

    /// Entries in use.
    pub fn live_entries(&self) -> u64 {
        self.ma.len() as u64
    }

    /// The FTL LPN holding the version of host page `lpn` that its stripe's parity
    /// covers: its expired version when it has an entry no job has claimed, else itself.
    #[inline]
    pub fn covered(&self, lpn: Lpn) -> Lpn {
        match self.entry_of(lpn) {
            Some(k) if !self.entries[k as usize].claimed => self.eppn_slot(k),
            _ => lpn,
        }
    }

    /// The page holding the mirror copy of host page `lpn` that a read may take now
    /// (mirror reads on): a live copy, programmed, not waiting for space (`held`), on a
    /// live chip.
    pub fn live_copy(
        &self,
        lpn: Lpn,
        ftl: &Ftl,
        held: &FxHashMap<u32, (u64, u64)>,
        dead: &DeadChips,
        geom: &Geometry,
    ) -> Option<Ppn> {
        if !self.reads {
            return None;
        }
        let k = self.entry_of(lpn)?;
        if !self.entries[k as usize].mirror_live {
            return None;
        }
        let slot = self.mirror_slot(k);
        if !held.is_empty() && held.contains_key(&slot.0) {
            return None;
        }
        let m = ftl.lookup(slot)?;
        (!ftl.is_pending(m) && !dead.page_dead(geom, m)).then_some(m)
    }
}

impl Simulation {
    #[inline]
    pub(in crate::sim) fn cr5m_state(&self) -> &Cr5m {
        self.cr5m.as_deref().expect("CR5M is configured")
    }

    #[inline]
    pub(in crate::sim) fn cr5m_mut(&mut self) -> &mut Cr5m {
        self.cr5m.as_deref_mut().expect("CR5M is configured")
    }

    /// The FTL LPN holding the version of host page `lpn` that its stripe's parity
    /// covers ([`Cr5m::covered`]; `lpn` itself without CR5M).
    #[inline]
    pub(in crate::sim) fn cr5m_covered(&self, lpn: Lpn) -> Lpn {
        self.cr5m.as_deref().map_or(lpn, |c| c.covered(lpn))
    }

    /// The mirror copy of host page `lpn` a read may take now ([`Cr5m::live_copy`]).
    #[inline]
    pub(in crate::sim) fn cr5m_copy(&self, lpn: Lpn) -> Option<Ppn> {
        let c = self.cr5m.as_deref()?;
        c.live_copy(lpn, &self.ftl, &self.held, &self.dead, &self.geom)
    }

    /// The FTL LPN a parity update reads host page `lpn`'s current content from: its
    /// mirror copy when its data page is on a dead chip or not on flash at all (the copy
    /// may still be in the controller: a capture takes it from there), or when the read
    /// rule prefers the copy's chip; else itself.
    pub(in crate::sim) fn cr5m_current_source(&self, lpn: Lpn) -> Lpn {
        let Some(c) = self.cr5m.as_deref() else {
            return lpn;
        };
        let Some(k) = c.entry_of(lpn) else {
            return lpn;
        };
        let slot = c.mirror_slot(k);
        let copy_there = self.held_get(slot).is_some()
            || self.ftl.lookup(slot).is_some_and(|m| !self.on_dead_chip(m));
        if !c.entries[k as usize].mirror_live || !copy_there {
            return lpn;
        }
        let p = match self.ftl.lookup(lpn) {
            // Its new data page waits for space: the controller holds the content.
            None if self.held_get(lpn).is_some() => return lpn,
            // No data page: the mirror write moved the old version to the EPPN, and its
            // new data page waited for space until its chip died (then it is known only
            // through redundancy). The copy holds the content.
            None => return slot,
            Some(p) if self.on_dead_chip(p) || self.is_redundant_only(lpn) => return slot,
            Some(p) => p,
        };
        let Some(m) = self.cr5m_copy(lpn) else {
            return lpn;
        };
        let (data, copy) = (
            self.queues.load[self.geom.chip_of_page(p).idx()],
            self.queues.load[self.geom.chip_of_page(m).idx()],
        );
        let take_copy = match c.read_choice {
            MirrorReadChoice::BusyFallback => data > 0 && copy == 0,
            MirrorReadChoice::ShortestQueue => copy < data,
        };
        if take_copy {
            slot
        } else {
            lpn
        }
    }

    /// True when host page `lpn` has an entry whose copy holds its current content.
    #[inline]
    pub(in crate::sim) fn cr5m_has_live_copy(&self, lpn: Lpn) -> bool {
        self.cr5m.as_deref().is_some_and(|c| {
            c.entry_of(lpn)
                .is_some_and(|k| c.entries[k as usize].mirror_live)
        })
    }

    /// The mirror slot of host page `lpn`'s entry (it has one).
    pub(in crate::sim) fn cr5m_mirror_slot_of(&self, lpn: Lpn) -> Lpn {
        let c = self.cr5m_state();
        c.mirror_slot(c.entry_of(lpn).expect("a mirrored page"))
    }

    /// The mirror chip of `channel`.
    #[inline]
    pub(in crate::sim) fn cr5m_mirror_chip(&self, channel: u32) -> ChipId {
        self.raid().map.mirror_chip(&self.geom, ChannelId(channel))
    }

    /// Available capacity of `channel`'s mirror chip, in pages, as `raid.mirror_avail`
    /// counts it.
    pub(in crate::sim) fn cr5m_avail(&self, channel: u32) -> u64 {
        let c = self.cr5m_state();
        match c.avail {
            MirrorAvail::NotLive => c.chip_pages.saturating_sub(c.live[channel as usize]),
            MirrorAvail::Erased => {
                let chip = self.cr5m_mirror_chip(channel);
                self.geom
                    .planes_of_chip(chip)
                    .map(|p| self.ftl.free_pages_in_plane(p))
                    .sum()
            }
        }
    }

    /// CR5M's counters for the report.
    pub(in crate::sim) fn cr5m_counters(&self) -> Vec<(Counter, u64)> {
        let Some(c) = self.cr5m.as_deref() else {
            return Vec::new();
        };
        let n = c.counters;
        vec![
            (Counter::MirrorWriteStripes, n.mw_stripes),
            (Counter::MirrorWriteRefusedBusy, n.refused_busy),
            (Counter::MirrorWriteRefusedFull, n.refused_full),
            (Counter::MirrorWriteRefusedOther, n.refused_other),
            (Counter::MirrorReclaimsUpdate, n.reclaims_update),
            (Counter::MirrorReclaimsFull, n.reclaims_full),
            (Counter::MirrorReclaimsCapacity, n.reclaims_capacity),
            (Counter::MirrorReclaimsPressure, n.reclaims_pressure),
            (Counter::MirrorReclaimsFailure, n.reclaims_failure),
            (Counter::MirrorEntriesAtEnd, c.live_entries()),
            (Counter::MirrorEntriesPeak, n.peak_entries),
        ]
    }

    /// The mirror chips' state at the end of the run, for the report.
    pub(in crate::sim) fn cr5m_end(&self) -> Option<MirrorEnd> {
        let c = self.cr5m.as_deref()?;
        let g = &self.geom;
        let map: &RaidMap = &self.raid().map;
        let mut counts = Vec::new();
        let mut free_min = f64::INFINITY;
        for ch in 0..g.channels {
            let chip = map.mirror_chip(g, ChannelId(ch));
            let mut free = 0;
            for plane in g.planes_of_chip(chip) {
                free += self.ftl.free_pages_in_plane(plane);
                for b in 0..g.blocks_per_plane {
                    counts.push(u64::from(self.ftl.erase_count(g.block_of_plane(plane, b))));
                }
            }
            free_min = free_min.min(free as f64 / c.chip_pages as f64);
        }
        Some(MirrorEnd {
            wear: ssdlab_stats::CountSpread::of(&counts),
            free_ratio_end: if free_min.is_finite() { free_min } else { 0.0 },
            avail_ratio_min: c.avail_min,
        })
    }
}
