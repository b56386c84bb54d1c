//! Placement: which plane a host write goes to (ARCHITECTURE §5).
//!
//! * Static: the plane is a pure function of the LPN under a priority order (CWDP, …).
//! * Dynamic round-robin: the same order applied to a running write counter instead of
//!   the LPN, so consecutive writes stripe over channels, chips, dies and planes
//!   wherever their LPNs point.
//! * Dynamic least-busy: the chip with the fewest outstanding transactions (ties go to
//!   the round-robin choice), then die and plane in round-robin inside that chip.
//!
//! Dynamic policies skip planes without free pages; static placement never moves an LPN.

use ssdlab_ftl::{AllocOrder, Allocation, DynamicPolicy, Ftl, FtlConfig};
use ssdlab_nand::{ChipId, Geometry, Lpn, PlaneId};

/// A placement policy with its state.
#[derive(Clone, Debug)]
pub struct Placement {
    order: AllocOrder,
    kind: Kind,
    next: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Static,
    RoundRobin,
    LeastBusy,
}

impl Placement {
    /// The policy `cfg` selects.
    pub fn new(cfg: &FtlConfig) -> Self {
        let kind = match (cfg.allocation, cfg.dynamic_policy) {
            (Allocation::Static, _) => Kind::Static,
            (Allocation::Dynamic, DynamicPolicy::RoundRobin) => Kind::RoundRobin,
            (Allocation::Dynamic, DynamicPolicy::LeastBusy) => Kind::LeastBusy,
        };
        Placement {
            order: cfg.static_order,
            kind,
            next: 0,
        }
    }

    /// True when an LPN's plane never changes.
    pub fn is_static(&self) -> bool {
        self.kind == Kind::Static
    }

    /// The plane for a write of `lpn`. `load` is outstanding work per chip.
    #[inline]
    pub fn plane_for(&mut self, lpn: Lpn, geom: &Geometry, ftl: &Ftl, load: &[u32]) -> PlaneId {
        match self.kind {
            Kind::Static => self.order.plane_of(lpn, geom),
            Kind::RoundRobin => self.round_robin(geom, ftl),
            Kind::LeastBusy => self.least_busy(geom, ftl, load),
        }
    }

    fn round_robin(&mut self, geom: &Geometry, ftl: &Ftl) -> PlaneId {
        let planes = u64::from(geom.planes());
        for _ in 0..planes {
            let p = self.order.plane_of(Lpn((self.next % planes) as u32), geom);
            self.next += 1;
            if ftl.free_pages_in_plane(p) > 0 {
                return p;
            }
        }
        self.order.plane_of(Lpn((self.next % planes) as u32), geom)
    }

    fn least_busy(&mut self, geom: &Geometry, ftl: &Ftl, load: &[u32]) -> PlaneId {
        let planes = u64::from(geom.planes());
        let per_chip = geom.dies_per_chip * geom.planes_per_die;
        let start = self.order.plane_of(Lpn((self.next % planes) as u32), geom);
        self.next += 1;
        let first_chip = geom.chip_of_die(geom.die_of_plane(start));
        let chips = geom.chips();
        let mut best: Option<(u32, PlaneId)> = None;
        for k in 0..chips {
            let chip = ChipId((first_chip.0 + k) % chips);
            let l = load[chip.idx()];
            if best.is_some_and(|(b, _)| b <= l) {
                continue;
            }
            let in_chip = (self.next % u64::from(per_chip)) as u32;
            for j in 0..per_chip {
                let n = (in_chip + j) % per_chip;
                let die = geom.die_of_chip(chip, n / geom.planes_per_die);
                let p = geom.plane_of_die(die, n % geom.planes_per_die);
                if ftl.free_pages_in_plane(p) > 0 {
                    best = Some((l, p));
                    break;
                }
            }
        }
        best.map_or(start, |(_, p)| p)
    }
}
