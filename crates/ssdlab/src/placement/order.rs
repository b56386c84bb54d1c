//! Allocation orders without RAID (ARCHITECTURE §5): static, dynamic round-robin and
//! dynamic least-busy.
//!
//! * Static: the plane is a pure function of the LPN under a priority order (CWDP, …).
//! * Dynamic round-robin: the same order applied to a running write counter instead of
//!   the LPN, so consecutive writes stripe over channels, chips, dies and planes
//!   wherever their LPNs point.
//! * Dynamic least-busy: the chip with the fewest outstanding transactions (ties go to
//!   the round-robin choice), then die and plane in round-robin inside that chip.
//!
//! Dynamic policies skip planes without free pages and planes of dead chips; static
//! placement never moves an LPN. Preconditioning lays data out with the static order,
//! or (dynamic policies) with the order applied to its own write counter, as at run
//! time. A page recorded on a dead chip ([`Role::Degraded`]) goes to its static plane.

use super::{PageToPlace, PlacementPolicy, Role};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_ftl::AllocOrder;
use ssdlab_nand::{ChipId, Geometry, Lpn, PlaneId};

/// `ftl.allocation = "static"`.
#[derive(Clone, Debug)]
pub struct StaticOrder {
    order: AllocOrder,
}

impl StaticOrder {
    /// Static placement under `order`.
    pub fn new(order: AllocOrder) -> Self {
        StaticOrder { order }
    }
}

impl PlacementPolicy for StaticOrder {
    fn name(&self) -> &'static str {
        "static"
    }

    #[inline]
    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        self.order.plane_of(page.lpn, view.geom)
    }

    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.order.plane_of(lpn, geom)
    }
}

/// The state both dynamic policies share: the order, the run-time write counter and
/// the preconditioning counter.
#[derive(Clone, Debug)]
struct Counters {
    order: AllocOrder,
    next: u64,
    precondition: u32,
}

impl Counters {
    fn new(order: AllocOrder) -> Self {
        Counters {
            order,
            next: 0,
            precondition: 0,
        }
    }

    /// A page recorded on a dead chip goes to its static plane; None for the others.
    #[inline]
    fn fixed(&self, page: &PageToPlace, view: &DeviceView) -> Option<PlaneId> {
        (page.role == Role::Degraded).then(|| self.order.plane_of(page.lpn, view.geom))
    }

    /// Preconditioning: the order applied to the fill's own write counter.
    fn fill(&mut self, geom: &Geometry) -> PlaneId {
        self.precondition = self.precondition.wrapping_add(1);
        self.order
            .plane_of(Lpn(self.precondition % geom.planes()), geom)
    }
}

/// `ftl.allocation = "dynamic"`, `ftl.dynamic_policy = "round-robin"`.
#[derive(Clone, Debug)]
pub struct RoundRobin {
    c: Counters,
}

impl RoundRobin {
    /// Round-robin placement under `order`.
    pub fn new(order: AllocOrder) -> Self {
        RoundRobin {
            c: Counters::new(order),
        }
    }
}

impl PlacementPolicy for RoundRobin {
    fn name(&self) -> &'static str {
        "dynamic-round-robin"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        if let Some(p) = self.c.fixed(page, view) {
            return p;
        }
        let g = view.geom;
        let planes = u64::from(g.planes());
        let c = &mut self.c;
        for _ in 0..planes {
            let p = c.order.plane_of(Lpn((c.next % planes) as u32), g);
            c.next += 1;
            if view.writable(p) {
                return p;
            }
        }
        c.order.plane_of(Lpn((c.next % planes) as u32), g)
    }

    fn fill_plane(&mut self, _lpn: Lpn, geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.c.fill(geom)
    }
}

/// `ftl.allocation = "dynamic"`, `ftl.dynamic_policy = "least-busy"`.
#[derive(Clone, Debug)]
pub struct LeastBusy {
    c: Counters,
}

impl LeastBusy {
    /// Least-busy placement under `order`.
    pub fn new(order: AllocOrder) -> Self {
        LeastBusy {
            c: Counters::new(order),
        }
    }
}

impl PlacementPolicy for LeastBusy {
    fn name(&self) -> &'static str {
        "dynamic-least-busy"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        if let Some(p) = self.c.fixed(page, view) {
            return p;
        }
        let g = view.geom;
        let c = &mut self.c;
        let planes = u64::from(g.planes());
        let per_chip = g.dies_per_chip * g.planes_per_die;
        let start = c.order.plane_of(Lpn((c.next % planes) as u32), g);
        c.next += 1;
        let first_chip = g.chip_of_die(g.die_of_plane(start));
        let chips = g.chips();
        let mut best: Option<(u32, PlaneId)> = None;
        for k in 0..chips {
            let chip = ChipId((first_chip.0 + k) % chips);
            let l = view.load(chip);
            if best.is_some_and(|(b, _)| b <= l) || view.dead.is_dead(chip) {
                continue;
            }
            let in_chip = (c.next % u64::from(per_chip)) as u32;
            for j in 0..per_chip {
                let n = (in_chip + j) % per_chip;
                let die = g.die_of_chip(chip, n / g.planes_per_die);
                let p = g.plane_of_die(die, n % g.planes_per_die);
                if view.ftl.free_pages_in_plane(p) > 0 {
                    best = Some((l, p));
                    break;
                }
            }
        }
        best.map_or(start, |(_, p)| p)
    }

    fn fill_plane(&mut self, _lpn: Lpn, geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.c.fill(geom)
    }
}
