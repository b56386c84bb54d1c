//! What the controller's policies may see of the device: the read-only [`DeviceView`]
//! that placement and read-plan choice decide from, and the state it is made of that
//! no single policy owns ([`DeadChips`], each plane's [`GcJob`]).
//!
//! A view borrows; it is built at the call and never stored, so a policy cannot keep a
//! stale picture of the device.

use crate::layout::RaidMap;
use crate::sched::Queues;
use ssdlab_ftl::Ftl;
use ssdlab_nand::{BlockId, ChipId, Geometry, PlaneId, Ppn};

/// Which chips have failed (docs/ARCHITECTURE.md §14: failure injection).
#[derive(Clone, Debug, Default)]
pub struct DeadChips {
    dead: Vec<bool>,
    any: bool,
}

impl DeadChips {
    /// No chip of `chips` is dead.
    pub fn new(chips: u32) -> Self {
        DeadChips {
            dead: vec![false; chips as usize],
            any: false,
        }
    }

    /// Marks `chip` dead; false if it already was.
    pub fn mark(&mut self, chip: ChipId) -> bool {
        let was = std::mem::replace(&mut self.dead[chip.idx()], true);
        self.any = true;
        !was
    }

    /// True once any chip has died.
    #[inline]
    pub fn any(&self) -> bool {
        self.any
    }

    /// True if `chip` is dead.
    #[inline]
    pub fn is_dead(&self, chip: ChipId) -> bool {
        self.any && self.dead[chip.idx()]
    }

    /// True if `plane` belongs to a dead chip.
    #[inline]
    pub fn plane_dead(&self, g: &Geometry, plane: PlaneId) -> bool {
        self.any && self.dead[g.chip_of_die(g.die_of_plane(plane)).idx()]
    }

    /// True if page `ppn` sits on a dead chip.
    #[inline]
    pub fn page_dead(&self, g: &Geometry, ppn: Ppn) -> bool {
        self.any && self.dead[g.chip_of_page(ppn).idx()]
    }
}

/// Why a collector job moves its victim's data, when not for space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relocation {
    /// Garbage collection (or a fold): for space.
    No,
    /// For its bit errors or its data's age (read reclaim, retention refresh).
    Refresh,
    /// The block failed a program: its data moves out before it is retired.
    Retire,
}

/// The GC job of one plane.
#[derive(Clone, Copy, Debug)]
pub struct GcJob {
    /// The victim, or `u32::MAX` when the plane has no job.
    pub block: BlockId,
    /// Moves not yet finished.
    pub moves_left: u32,
    /// The erase transaction is in flight.
    pub erasing: bool,
    /// The victim is an SLC-mode block being folded.
    pub fold: bool,
    /// The victim is relocated for its bit errors (read reclaim, retention refresh) or
    /// retired as a grown bad block, not collected for space.
    pub reloc: Relocation,
}

impl GcJob {
    /// No job.
    pub fn none() -> Self {
        GcJob {
            block: BlockId(u32::MAX),
            moves_left: 0,
            erasing: false,
            fold: false,
            reloc: Relocation::No,
        }
    }

    /// The job's page read, program and erase reasons: GC's, folding's or a
    /// relocation's.
    #[inline]
    pub fn reasons(&self) -> [ssdlab_nand::TxnReason; 3] {
        match self.reloc {
            Relocation::No => ssdlab_nand::TxnReason::collector(self.fold),
            Relocation::Refresh => ssdlab_nand::TxnReason::REFRESH,
            Relocation::Retire => ssdlab_nand::TxnReason::RETIRE,
        }
    }

    /// True while the plane is collecting.
    pub fn active(&self) -> bool {
        self.block.0 != u32::MAX
    }
}

/// A read-only view of the device at one instant.
#[derive(Clone, Copy)]
pub struct DeviceView<'a> {
    /// The device shape.
    pub geom: &'a Geometry,
    /// Mapping, free pages per plane, pages before the GC threshold.
    pub ftl: &'a Ftl,
    /// Chip queues, outstanding work per chip, queued reads and programs per chip.
    pub queues: &'a Queues,
    /// Failed chips.
    pub dead: &'a DeadChips,
    /// Each plane's GC job.
    pub gc: &'a [GcJob],
    /// The RAID map, when the device runs RAID.
    pub raid: Option<&'a RaidMap>,
}

impl DeviceView<'_> {
    /// Outstanding transactions of `chip` (queued, running, or held by the scheduler).
    #[inline]
    pub fn load(&self, chip: ChipId) -> u32 {
        self.queues.load[chip.idx()]
    }

    /// True if `plane` is collecting now.
    #[inline]
    pub fn collecting(&self, plane: PlaneId) -> bool {
        self.gc[plane.idx()].active()
    }

    /// True if a page can be programmed in `plane` now: its chip is alive and it has a
    /// free page.
    #[inline]
    pub fn writable(&self, plane: PlaneId) -> bool {
        !self.dead.plane_dead(self.geom, plane) && self.ftl.free_pages_in_plane(plane) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 channels × 2 ways of 2 dies of 2 planes: 4 chips of 4 planes.
    fn geometry() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 4,
            pages_per_block: 8,
            page_size_bytes: 4096,
        }
    }

    #[test]
    fn dead_chips_track_the_chips_marked_and_their_planes_and_pages() {
        let g = geometry();
        let mut dead = DeadChips::new(g.chips());
        assert!(!dead.any());
        assert!((0..4).all(|c| !dead.is_dead(ChipId(c))));
        assert!((0..g.planes()).all(|p| !dead.plane_dead(&g, PlaneId(p))));
        assert!((0..g.pages()).all(|p| !dead.page_dead(&g, Ppn(p))));

        assert!(dead.mark(ChipId(2)), "the first mark kills the chip");
        assert!(!dead.mark(ChipId(2)), "it was dead already");
        assert!(dead.any());
        for c in 0..4 {
            assert_eq!(dead.is_dead(ChipId(c)), c == 2, "chip {c}");
        }
        for p in 0..g.planes() {
            // Chip 2 holds planes 8..12.
            assert_eq!(
                dead.plane_dead(&g, PlaneId(p)),
                (8..12).contains(&p),
                "plane {p}"
            );
        }
        let per_chip = g.pages() / g.chips();
        for p in 0..g.pages() {
            let on_2 = (2 * per_chip..3 * per_chip).contains(&p);
            assert_eq!(dead.page_dead(&g, Ppn(p)), on_2, "page {p}");
        }

        assert!(dead.mark(ChipId(0)));
        assert!(dead.is_dead(ChipId(0)) && dead.is_dead(ChipId(2)));
        assert!(!dead.is_dead(ChipId(1)) && !dead.is_dead(ChipId(3)));
    }

    #[test]
    fn no_gc_job_is_inactive_and_a_victim_makes_one_active() {
        let none = GcJob::none();
        assert!(!none.active());
        assert_eq!(none.moves_left, 0);
        assert!(!none.erasing);
        let job = GcJob {
            block: BlockId(0),
            ..none
        };
        assert!(job.active());
    }
}
