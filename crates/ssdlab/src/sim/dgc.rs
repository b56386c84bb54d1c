//! DGC: deferring garbage collection on chip-level RAID-5 (the DGC paper, §4).
//!
//! * **Predict GC** (§4.3): for each chip, `C_r` = host pages its planes can still take
//!   before a write starts foreground GC, `C_w` = programs allocated on it and not yet
//!   done. A data write that would make `C_w` exceed `C_r` is *warned*.
//! * **Redirect**: a warned write goes to a chip of *another* parity group (never the
//!   stripe's own group, and never a chip already holding a page of the same stripe, so
//!   one chip failure still costs at most one page per stripe), the one with the
//!   smallest estimated completion time `CT` (`t_read × queued reads + t_prog × queued
//!   programs`) among those not themselves close to GC, provided `CT + t_prog ≤ AT`. The
//!   chunk keeps its stripe: parity, reads and reconstruction follow the FTL's mapping,
//!   which records the chip it went to (the paper's extra bit plus log2 N bits).
//!   `AT` is the arrival time of the next request queued for that chip in the
//!   controller; with FIFO schedulers every admitted transaction is already in a chip
//!   queue, so no such request is known and `AT` is unbounded (documented reading).
//! * **Deferred GC**: a chip spared by redirection does not start foreground GC while it
//!   has work (unless a plane is down to its reserve); it collects when its queue is
//!   empty (idle detection), counted as `deferred-gc`.

use super::Simulation;
use ssdlab_nand::{ChipId, PlaneId};

/// DGC state of a run.
#[derive(Default)]
pub(crate) struct DgcState {
    pub enabled: bool,
    /// Programs allocated per chip and not yet done (`C_w`).
    pub pending_writes: Vec<u32>,
    /// Chips whose GC is deferred to their next idle period.
    pub deferred: Vec<bool>,
    pub redirected: u64,
    pub deferred_runs: u64,
    pub warned: u64,
}

impl DgcState {
    /// DGC for a device of `chips` chips.
    pub fn new(enabled: bool, chips: u32) -> Self {
        DgcState {
            enabled,
            pending_writes: vec![0; chips as usize],
            deferred: vec![false; chips as usize],
            ..DgcState::default()
        }
    }
}

impl Simulation {
    /// `C_r` of `chip`: host pages its planes take before one of them starts GC.
    fn pages_before_gc(&self, chip: ChipId) -> u64 {
        let g = &self.geom;
        let mut total = 0;
        for d in 0..g.dies_per_chip {
            let die = g.die_of_chip(chip, d);
            for p in 0..g.planes_per_die {
                total += self.ftl.pages_before_gc(g.plane_of_die(die, p));
            }
        }
        total
    }

    /// The plane a RAID data write of `lpn` (stripe position in `row`, `group`) should
    /// go to: its own, or with DGC a plane of another group's chip when its own chip is
    /// about to start GC.
    pub(super) fn dgc_place(&mut self, lpn: ssdlab_nand::Lpn, home: PlaneId) -> PlaneId {
        if !self.dgc.enabled {
            return home;
        }
        let g = self.geom;
        let chip = g.chip_of_die(g.die_of_plane(home));
        let c_w = u64::from(self.dgc.pending_writes[chip.idx()]) + 1;
        // A dead home chip is not a GC case: its writes are degraded writes (a permanent
        // redirection would pile its pages onto other chips beyond their share).
        if self.fail.is_dead(chip) || self.pages_before_gc(chip) >= c_w {
            return home;
        }
        self.dgc.warned += 1;
        let Some(target) = self.dgc_target(lpn, chip) else {
            return home;
        };
        let c = self.raid_chunk(lpn);
        let plane = crate::sim::raid::RaidState::plane_in_chip_pub(&g, target, c.row);
        if self.ftl.free_pages_in_plane(plane) == 0 {
            return home;
        }
        self.dgc.redirected += 1;
        self.dgc.deferred[chip.idx()] = true;
        plane
    }

    /// The best chip of another parity group for a warned write of `lpn` now on `home`.
    fn dgc_target(&self, lpn: ssdlab_nand::Lpn, home: ChipId) -> Option<ChipId> {
        let r = self.raid.as_ref()?;
        let chunk = r.layout.locate(u64::from(lpn.0));
        // Chips already holding a page of this stripe (data or parity), wherever DGC
        // put them.
        let mut taken: Vec<ChipId> = vec![home];
        let mut lpns = Vec::new();
        r.layout.stripe_lpns(chunk.row, chunk.group, &mut lpns);
        let parity = r.red_lpn(r.layout.parity_index(chunk.row, chunk.group));
        for l in lpns
            .iter()
            .map(|&x| ssdlab_nand::Lpn(x as u32))
            .chain([parity])
        {
            if let Some(p) = self.ftl.lookup(l) {
                taken.push(self.geom.chip_of_page(p));
            }
        }
        let (t_read, t_prog) = (self.t_read.as_ns(), self.t_prog.as_ns());
        let mut best: Option<(u64, ChipId)> = None;
        for (member, &chip_idx) in r.member_chip.iter().enumerate() {
            let chip = ChipId(chip_idx);
            if r.layout.group_of(member as u32) == chunk.group
                || taken.contains(&chip)
                || self.fail.is_dead(chip)
            {
                continue;
            }
            let c_w = u64::from(self.dgc.pending_writes[chip.idx()]) + 1;
            if self.pages_before_gc(chip) < c_w {
                continue; // the candidate is close to GC itself
            }
            let ct = t_read * u64::from(self.queues.queued_reads[chip.idx()])
                + t_prog * u64::from(self.queues.queued_writes[chip.idx()]);
            // CT + L_w <= AT holds: no later arrival is known for the chip (see above).
            if best.is_none_or(|(b, _)| ct < b) {
                best = Some((ct, chip));
            }
        }
        best.map(|(_, c)| c)
    }

    /// A program was allocated on the chip of `plane` (C_w + 1).
    #[inline]
    pub(super) fn dgc_alloc(&mut self, plane: PlaneId) {
        if self.dgc.enabled {
            let chip = self.geom.chip_of_die(self.geom.die_of_plane(plane));
            self.dgc.pending_writes[chip.idx()] += 1;
        }
    }

    /// A program finished on `chip` (C_w − 1).
    #[inline]
    pub(super) fn dgc_done(&mut self, chip: ChipId) {
        if self.dgc.enabled {
            self.dgc.pending_writes[chip.idx()] -= 1;
        }
    }

    /// True when foreground GC of `plane` is deferred: its chip was spared by
    /// redirection, has work queued, and the plane still has free blocks beyond its
    /// reserve.
    pub(super) fn dgc_defers(&self, plane: PlaneId) -> bool {
        if !self.dgc.enabled {
            return false;
        }
        let chip = self.geom.chip_of_die(self.geom.die_of_plane(plane));
        self.dgc.deferred[chip.idx()]
            && self.queues.load[chip.idx()] > 0
            && self.ftl.free_blocks(plane) > self.cfg.ftl.gc.reserve_blocks
    }

    /// An idle die of a chip whose GC was deferred: collect now.
    pub(super) fn dgc_on_idle(&mut self, chip: ChipId) {
        if !self.dgc.enabled || !self.dgc.deferred[chip.idx()] {
            return;
        }
        self.dgc.deferred[chip.idx()] = false;
        let g = self.geom;
        for d in 0..g.dies_per_chip {
            for p in 0..g.planes_per_die {
                let plane = g.plane_of_die(g.die_of_chip(chip, d), p);
                if self.ftl.gc_needed(plane) {
                    self.dgc.deferred_runs += 1;
                    self.maybe_start_gc(plane, false);
                }
            }
        }
    }

    /// DGC counters for the report.
    pub(super) fn dgc_counters(&self) -> Vec<(&'static str, u64)> {
        if !self.dgc.enabled {
            return Vec::new();
        }
        vec![
            (
                ssdlab_stats::counter::REDIRECTED_WRITES,
                self.dgc.redirected,
            ),
            (ssdlab_stats::counter::DEFERRED_GC, self.dgc.deferred_runs),
            ("dgc-warned-writes", self.dgc.warned),
        ]
    }
}
