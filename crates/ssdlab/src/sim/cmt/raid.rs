//! The cached map beside RAID and failure injection (docs/FTL.md §12, docs/RAID.md §8).
//!
//! Translation pages are written outside the stripes: no parity covers them, and they go
//! to any live plane of a chip in use (never to a hidden spare before it replaces a
//! member). RAID's redundancy pages (parity, mirror copies) are found through the stripe
//! table, not the CMT. Host pages that RAID maps outside the host write path (degraded
//! writes recorded on a dead member, pages rebuilt onto a spare) dirty their entries
//! like a write.

use crate::sim::Simulation;
use ssdlab_nand::{ChipId, Lpn, PlaneId, Ppn};
use ssdlab_raid::Domain;

impl Simulation {
    /// Whether a translation page may be programmed in `plane`: a live plane of a chip
    /// that holds host data (in RAID's chip domain, a member: a spare only once it
    /// replaced a failed member; under CR5M, not a mirror chip, which holds only copies).
    pub(super) fn tpage_plane_ok(&self, plane: PlaneId) -> bool {
        if self.plane_dead(plane) {
            return false;
        }
        match self.raid.as_ref() {
            Some(r) if r.map.domain == Domain::Chip => {
                let chip = self.geom.chip_of_die(self.geom.die_of_plane(plane));
                r.map.member_chip.contains(&chip.0)
            }
            Some(r) if r.map.mirror => {
                let chip = self.geom.chip_of_die(self.geom.die_of_plane(plane));
                !r.map.is_mirror_chip(&self.geom, chip)
            }
            _ => true,
        }
    }

    /// Whether the flash copy of a translation page at `ppn` can be read: programmed
    /// (not pending) and not on a dead chip.
    pub(super) fn tpage_readable(&self, ppn: Ppn) -> bool {
        !self.ftl.is_pending(ppn) && !self.on_dead_chip(ppn)
    }

    /// A host page's forward-map entry changed outside the host write path (a degraded
    /// write recorded on a dead member or unmapped, a page rebuilt onto a spare): its
    /// CMT entry turns dirty. Redundancy pages are not in the CMT.
    #[inline(never)]
    pub(in crate::sim) fn cmt_remapped(&mut self, lpn: Lpn, counted: bool) {
        if u64::from(lpn.0) < self.logical_pages {
            self.cmt_mapped(lpn, counted);
        }
    }

    /// `chip` died. Translation pages are not protected by parity: every one whose
    /// newest version was on the chip is lost, and the controller writes it again at
    /// once on a live plane (one program, no read; the scan of the data pages' spare
    /// areas a real controller would need to recreate it is not modelled). A page
    /// whose rewrite waits for its read-modify-write read is left to it (that read was
    /// queued before the failure and completes).
    #[inline(never)]
    pub(in crate::sim) fn cmt_chip_died(&mut self, chip: ChipId) {
        let c = self.cmt.as_ref().expect("cached map");
        let lost: Vec<u32> = (0..c.cmt.tpages())
            .filter(|&t| !c.rmw.contains(&t))
            .filter(|&t| {
                self.ftl
                    .lookup(c.slot(t))
                    .is_some_and(|p| self.geom.chip_of_die(self.geom.die_of_page(p)) == chip)
            })
            .collect();
        for t in lost {
            self.map_program(t);
        }
    }
}
