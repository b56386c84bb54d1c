//! The placement seam in the request path: every page the controller programs gets
//! its plane from [`Simulation::place`], which asks the configured policy (see
//! [`crate::placement`]) against a [`DeviceView`] and, for host data under DGC, lets
//! DGC redirect it.

use super::Simulation;
use crate::placement::PageToPlace;
use ssdlab_nand::{Lpn, PlaneId, Ppn};

/// A read-only view of the device borrowing only the fields it shows, so that a policy
/// (another field) can be called with it.
macro_rules! device_view {
    ($s:ident) => {
        $crate::device::DeviceView {
            geom: &$s.geom,
            ftl: &$s.ftl,
            queues: &$s.queues,
            dead: &$s.dead,
            gc: &$s.gc_jobs,
            raid: $s.raid.as_ref().map(|r| &r.map),
        }
    };
}
pub(crate) use device_view;

impl Simulation {
    /// The plane `page` is written to: the placement policy's choice, redirected by DGC
    /// for host data when its home plane is about to collect.
    #[inline(always)]
    pub(in crate::sim) fn place(&mut self, page: PageToPlace) -> PlaneId {
        let view = device_view!(self);
        let home = self.placement.place(&page, &view);
        match self.dgc.as_mut() {
            Some(d) if d.redirects(page.role) => d.redirect(&page, home, &view),
            _ => home,
        }
    }

    /// The plane FTL page `lpn` occupies under the static RAID layout (a query about the
    /// layout, not a placement decision).
    #[inline]
    pub(in crate::sim) fn raid_static_plane(&self, lpn: Lpn) -> PlaneId {
        self.raid().map.static_plane(&self.geom, lpn)
    }

    /// True when `ppn` lives on a dead chip.
    #[inline]
    pub(in crate::sim) fn on_dead_chip(&self, ppn: Ppn) -> bool {
        self.dead.page_dead(&self.geom, ppn)
    }

    /// True when `plane` belongs to a dead chip.
    #[inline]
    pub(in crate::sim) fn plane_dead(&self, plane: PlaneId) -> bool {
        self.dead.plane_dead(&self.geom, plane)
    }
}
