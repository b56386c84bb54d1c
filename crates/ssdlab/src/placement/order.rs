//! Allocation orders without RAID (docs/ARCHITECTURE.md §8): static, dynamic round-robin and
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

use super::{FillRun, PageToPlace, PlacementPolicy, Role};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_ftl::{AllocOrder, StripeMap};
use ssdlab_nand::{ChipId, Geometry, Lpn, PlaneId};

/// `ftl.allocation = "static"`.
#[derive(Clone, Debug)]
pub struct StaticOrder {
    map: StripeMap,
    /// The plane of each LPN of one period of the order (it repeats after one LPN per
    /// plane): a table look-up instead of the order's divisions on every write.
    period: Vec<PlaneId>,
}

impl StaticOrder {
    /// Static placement under `order` on `geom`.
    pub fn new(order: AllocOrder, geom: &Geometry) -> Self {
        let map = order.stripe_map(geom);
        StaticOrder {
            map,
            period: (0..geom.planes()).map(|l| map.plane_of(Lpn(l))).collect(),
        }
    }

    /// The plane of `lpn`: [`StripeMap::plane_of`] read from the table.
    #[inline]
    fn plane_of(&self, lpn: Lpn) -> PlaneId {
        let n = self.period.len() as u32;
        let i = if n.is_power_of_two() {
            lpn.0 & (n - 1)
        } else {
            lpn.0 % n
        };
        self.period[i as usize]
    }
}

impl PlacementPolicy for StaticOrder {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
    fn name(&self) -> &'static str {
        "static"
    }

    #[inline]
    fn place(&mut self, page: &PageToPlace, _view: &DeviceView) -> PlaneId {
        self.plane_of(page.lpn)
    }

    fn fill_plane(&mut self, lpn: Lpn, _geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.plane_of(lpn)
    }

    fn fill_map(&self) -> Option<StripeMap> {
        Some(self.map)
    }

    fn fill_period(&self, geom: &Geometry, _raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        Some(striped(geom))
    }
}

/// An order over every plane repeats after one LPN per plane.
pub(super) fn striped(geom: &Geometry) -> Vec<FillRun> {
    vec![FillRun {
        start: 0,
        period: geom.planes(),
    }]
}

/// The state both dynamic policies share: the order, the run-time write counter and
/// the preconditioning counter.
#[derive(Clone, Debug)]
struct Counters {
    map: StripeMap,
    next: u64,
    precondition: u32,
}

impl Counters {
    fn new(order: AllocOrder, geom: &Geometry) -> Self {
        Counters {
            map: order.stripe_map(geom),
            next: 0,
            precondition: 0,
        }
    }

    /// A page recorded on a dead chip goes to its static plane; None for the others.
    #[inline]
    fn fixed(&self, page: &PageToPlace) -> Option<PlaneId> {
        (page.role == Role::Degraded).then(|| self.map.plane_of(page.lpn))
    }

    /// The first plane on a live chip in counter order from counter value `from`.
    fn live_from(&self, from: u64, view: &DeviceView) -> Option<PlaneId> {
        let planes = u64::from(view.geom.planes());
        (0..planes)
            .map(|k| self.map.plane_of(Lpn(((from + k) % planes) as u32)))
            .find(|&p| !view.dead.plane_dead(view.geom, p))
    }

    /// Preconditioning: the order applied to the fill's own write counter.
    fn fill(&mut self, geom: &Geometry) -> PlaneId {
        self.precondition = self.precondition.wrapping_add(1);
        self.map.plane_of(Lpn(self.precondition % geom.planes()))
    }

    /// From a fresh counter, the fill repeats after one write per plane.
    fn fill_period(&self, geom: &Geometry) -> Option<Vec<FillRun>> {
        (self.precondition == 0).then(|| striped(geom))
    }
}

/// `ftl.allocation = "dynamic"`, `ftl.dynamic_policy = "round-robin"`.
#[derive(Clone, Debug)]
pub struct RoundRobin {
    c: Counters,
}

impl RoundRobin {
    /// Round-robin placement under `order` on `geom`.
    pub fn new(order: AllocOrder, geom: &Geometry) -> Self {
        RoundRobin {
            c: Counters::new(order, geom),
        }
    }
}

impl PlacementPolicy for RoundRobin {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
    fn name(&self) -> &'static str {
        "dynamic-round-robin"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        if let Some(p) = self.c.fixed(page) {
            return p;
        }
        let g = view.geom;
        let planes = u64::from(g.planes());
        let c = &mut self.c;
        for _ in 0..planes {
            let p = c.map.plane_of(Lpn((c.next % planes) as u32));
            c.next += 1;
            if view.writable(p) {
                return p;
            }
        }
        // No plane has room: the write waits on the next live plane in turn.
        c.live_from(c.next, view)
            .unwrap_or_else(|| c.map.plane_of(Lpn((c.next % planes) as u32)))
    }

    fn fill_plane(&mut self, _lpn: Lpn, geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.c.fill(geom)
    }

    fn fill_period(&self, geom: &Geometry, _raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        self.c.fill_period(geom)
    }

    fn skip_fill(&mut self, n: u32) {
        self.c.precondition = self.c.precondition.wrapping_add(n);
    }
}

/// `ftl.allocation = "dynamic"`, `ftl.dynamic_policy = "least-busy"`.
#[derive(Clone, Debug)]
pub struct LeastBusy {
    c: Counters,
}

impl LeastBusy {
    /// Least-busy placement under `order` on `geom`.
    pub fn new(order: AllocOrder, geom: &Geometry) -> Self {
        LeastBusy {
            c: Counters::new(order, geom),
        }
    }
}

impl PlacementPolicy for LeastBusy {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
    fn name(&self) -> &'static str {
        "dynamic-least-busy"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        if let Some(p) = self.c.fixed(page) {
            return p;
        }
        let g = view.geom;
        let c = &mut self.c;
        let planes = u64::from(g.planes());
        let per_chip = g.dies_per_chip * g.planes_per_die;
        let start = c.map.plane_of(Lpn((c.next % planes) as u32));
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
        // No live plane has room: the write waits on the first live plane from `start`.
        best.map_or_else(
            || c.live_from(c.next - 1, view).unwrap_or(start),
            |(_, p)| p,
        )
    }

    fn fill_plane(&mut self, _lpn: Lpn, geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.c.fill(geom)
    }

    fn fill_period(&self, geom: &Geometry, _raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        self.c.fill_period(geom)
    }

    fn skip_fill(&mut self, n: u32) {
        self.c.precondition = self.c.precondition.wrapping_add(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;
    use crate::device::{DeadChips, GcJob};
    use crate::sched::Queues;
    use ssdlab_engine::SimRng;
    use ssdlab_ftl::Ftl;

    /// 2 channels × 2 ways of 1 die of 2 planes (8 planes, 4 chips), 16 blocks of 4 pages a
    /// plane, and a hand-built view of it.
    struct Fixture {
        geom: Geometry,
        ftl: Ftl,
        queues: Queues,
        dead: DeadChips,
        gc: Vec<GcJob>,
    }

    impl Fixture {
        fn new() -> Self {
            let cfg = ConfigBuilder::new()
                .text(
                    "[geometry]\nchannels = 2\nchips_per_channel = 2\ndies_per_chip = 1\n\
                     planes_per_die = 2\nblocks_per_plane = 16\npages_per_block = 4\n\
                     [ftl]\nover_provisioning = 0.25\n",
                    "t",
                )
                .unwrap()
                .build()
                .unwrap();
            let geom = cfg.geometry;
            let entries = cfg.ftl.logical_pages(&geom);
            let ftl = Ftl::new(&cfg.ftl, &geom, entries, SimRng::new(1).fork("ftl")).unwrap();
            Fixture {
                queues: Queues::new(&geom, 8),
                dead: DeadChips::new(geom.chips()),
                gc: vec![GcJob::none(); geom.planes() as usize],
                geom,
                ftl,
            }
        }

        fn view(&self) -> DeviceView<'_> {
            DeviceView {
                geom: &self.geom,
                ftl: &self.ftl,
                queues: &self.queues,
                dead: &self.dead,
                gc: &self.gc,
                raid: None,
            }
        }

        /// Writes one LPN over and over into `plane` until no host page is left there.
        fn fill(&mut self, plane: PlaneId) {
            let mut token = 1;
            while self.ftl.free_pages_in_plane(plane) > 0 {
                let ppn = self.ftl.host_write(Lpn(0), plane, token).unwrap();
                self.ftl.program_done(ppn);
                token += 1;
            }
        }

        fn chip_of(&self, plane: PlaneId) -> ChipId {
            self.geom.chip_of_die(self.geom.die_of_plane(plane))
        }

        /// Places one data page of `lpn`.
        fn place(&self, policy: &mut dyn PlacementPolicy, lpn: u32, role: Role) -> PlaneId {
            policy.place(&PageToPlace::new(Lpn(lpn), 7, role), &self.view())
        }
    }

    const ROLES: [Role; 6] = [
        Role::Data,
        Role::Mirror,
        Role::Parity,
        Role::Rebuild,
        Role::Materialize,
        Role::Degraded,
    ];

    fn order(s: &str) -> AllocOrder {
        s.parse().unwrap()
    }

    #[test]
    fn static_order_is_the_order_for_every_role_whatever_the_load() {
        let mut f = Fixture::new();
        for o in [AllocOrder::CWDP, order("pdwc")] {
            let mut policy = StaticOrder::new(o, &f.geom);
            for load in [[0, 0, 0, 0], [9, 0, 3, 1], [0, 7, 7, 0]] {
                f.queues.load.copy_from_slice(&load);
                for lpn in 0..40 {
                    let want = o.plane_of(Lpn(lpn), &f.geom);
                    for role in ROLES {
                        assert_eq!(f.place(&mut policy, lpn, role), want, "{o} lpn {lpn}");
                    }
                    assert_eq!(policy.fill_plane(Lpn(lpn), &f.geom, None), want);
                }
            }
        }
    }

    #[test]
    fn static_order_table_follows_the_order_on_planes_not_a_power_of_two() {
        let geom = Geometry {
            channels: 3,
            chips_per_channel: 5,
            dies_per_chip: 1,
            planes_per_die: 2,
            ..Geometry::default()
        };
        for o in [AllocOrder::CWDP, order("pdwc"), order("wcpd")] {
            let policy = StaticOrder::new(o, &geom);
            for lpn in (0..4 * geom.planes()).chain([u32::MAX - 7, u32::MAX]) {
                assert_eq!(
                    policy.plane_of(Lpn(lpn)),
                    o.plane_of(Lpn(lpn), &geom),
                    "{o} lpn {lpn}"
                );
            }
        }
    }

    #[test]
    fn round_robin_stripes_consecutive_writes_in_the_order_sequence() {
        let f = Fixture::new();
        let planes = f.geom.planes();
        for o in [AllocOrder::CWDP, order("pdwc")] {
            let mut policy = RoundRobin::new(o, &f.geom);
            // The LPN does not matter: the k-th write goes to the order's k-th plane.
            let got: Vec<PlaneId> = (0..2 * planes)
                .map(|k| f.place(&mut policy, 5 * k % 3, Role::Data))
                .collect();
            let want: Vec<PlaneId> = (0..2 * planes)
                .map(|k| o.plane_of(Lpn(k % planes), &f.geom))
                .collect();
            assert_eq!(got, want, "{o}");
        }
        // The two orders differ on this geometry, so the sequence is the order's own.
        assert_ne!(
            AllocOrder::CWDP.plane_of(Lpn(1), &f.geom),
            order("pdwc").plane_of(Lpn(1), &f.geom)
        );
    }

    #[test]
    fn round_robin_skips_full_planes_and_dead_chips() {
        let mut f = Fixture::new();
        let o = AllocOrder::CWDP;
        let seq: Vec<PlaneId> = (0..f.geom.planes())
            .map(|k| o.plane_of(Lpn(k), &f.geom))
            .collect();
        let full = seq[1];
        f.fill(full);
        let dead_chip = f.chip_of(seq[2]);
        assert_ne!(dead_chip, f.chip_of(full));
        assert!(f.dead.mark(dead_chip));
        let mut policy = RoundRobin::new(o, &f.geom);
        let got: Vec<PlaneId> = (0..8)
            .map(|_| f.place(&mut policy, 3, Role::Data))
            .collect();
        let live: Vec<PlaneId> = seq
            .iter()
            .copied()
            .filter(|&p| p != full && f.chip_of(p) != dead_chip)
            .collect();
        // Two of the chip's planes are dead, one plane is full: 5 of 8 planes are left.
        assert_eq!(live.len(), 5);
        let want: Vec<PlaneId> = live.iter().cycle().take(8).copied().collect();
        assert_eq!(got, want);
    }

    #[test]
    fn round_robin_fill_keeps_its_own_counter() {
        let f = Fixture::new();
        let g = &f.geom;
        let planes = g.planes();
        let mut alone = RoundRobin::new(AllocOrder::CWDP, &f.geom);
        let fills: Vec<PlaneId> = (0..2 * planes)
            .map(|k| alone.fill_plane(Lpn(k), g, None))
            .collect();
        let mut mixed = RoundRobin::new(AllocOrder::CWDP, &f.geom);
        let mut interleaved = Vec::new();
        for k in 0..2 * planes {
            // Run-time writes between fills do not move the fill's counter.
            for _ in 0..=k % 3 {
                f.place(&mut mixed, k, Role::Data);
            }
            interleaved.push(mixed.fill_plane(Lpn(k), g, None));
        }
        assert_eq!(interleaved, fills);
        // And fills do not move the run-time counter: the next write is the order's
        // (writes made) -th plane.
        let writes: u32 = (0..2 * planes).map(|k| k % 3 + 1).sum();
        assert_eq!(
            f.place(&mut mixed, 0, Role::Data),
            AllocOrder::CWDP.plane_of(Lpn(writes % planes), g)
        );
        // The fill walks the order's sequence: every plane once per `planes` fills.
        let index = |p: PlaneId| {
            (0..planes)
                .find(|&k| AllocOrder::CWDP.plane_of(Lpn(k), g) == p)
                .unwrap()
        };
        for w in fills.windows(2) {
            assert_eq!(index(w[1]), (index(w[0]) + 1) % planes);
        }
    }

    #[test]
    fn least_busy_takes_the_least_loaded_live_chip() {
        let mut f = Fixture::new();
        let mut policy = LeastBusy::new(AllocOrder::CWDP, &f.geom);
        f.queues.load.copy_from_slice(&[4, 2, 1, 3]);
        let p = f.place(&mut policy, 0, Role::Data);
        assert_eq!(f.chip_of(p), ChipId(2));
        assert!(f.ftl.free_pages_in_plane(p) > 0);
        // The idle chip dies: it is never taken, however idle.
        f.queues.load.copy_from_slice(&[4, 2, 0, 3]);
        f.dead.mark(ChipId(2));
        for lpn in 0..8 {
            assert_eq!(f.chip_of(f.place(&mut policy, lpn, Role::Data)), ChipId(1));
        }
        // A live chip whose planes are all full is not taken either.
        for p in f.geom.planes_of_chip(ChipId(1)).collect::<Vec<_>>() {
            f.fill(p);
        }
        assert_eq!(f.chip_of(f.place(&mut policy, 0, Role::Data)), ChipId(3));
    }

    #[test]
    fn least_busy_ties_go_to_the_round_robin_start_chip() {
        let mut f = Fixture::new();
        let o = AllocOrder::CWDP;
        let mut policy = LeastBusy::new(o, &f.geom);
        f.queues.load.copy_from_slice(&[3, 3, 3, 3]);
        for k in 0..8 {
            let start = o.chip_of(Lpn(k), &f.geom);
            assert_eq!(
                f.chip_of(f.place(&mut policy, 0, Role::Data)),
                start,
                "write {k}"
            );
        }
        // A tie among the least loaded: the first of them from the start chip on.
        f.queues.load.copy_from_slice(&[1, 5, 1, 5]);
        let mut policy = LeastBusy::new(o, &f.geom);
        let start = o.chip_of(Lpn(0), &f.geom);
        assert_eq!(start, ChipId(0));
        assert_eq!(f.chip_of(f.place(&mut policy, 0, Role::Data)), ChipId(0));
        // The next start is chip 1 (loaded): chip 2 comes before chip 0 from there.
        assert_eq!(o.chip_of(Lpn(1), &f.geom), ChipId(1));
        assert_eq!(f.chip_of(f.place(&mut policy, 0, Role::Data)), ChipId(2));
    }

    #[test]
    fn degraded_pages_go_to_the_static_plane_under_dynamic_policies() {
        let mut f = Fixture::new();
        let o = AllocOrder::CWDP;
        f.queues.load.copy_from_slice(&[0, 9, 9, 9]);
        let lpn = 6;
        let home = o.plane_of(Lpn(lpn), &f.geom);
        assert_ne!(f.chip_of(home), ChipId(0));
        f.dead.mark(f.chip_of(home));
        let mut rr = RoundRobin::new(o, &f.geom);
        let mut lb = LeastBusy::new(o, &f.geom);
        for policy in [&mut rr as &mut dyn PlacementPolicy, &mut lb] {
            for _ in 0..3 {
                assert_eq!(f.place(policy, lpn, Role::Degraded), home);
            }
        }
        // Degraded placements do not advance the round-robin counter.
        assert_eq!(
            f.place(&mut rr, lpn, Role::Data),
            o.plane_of(Lpn(0), &f.geom)
        );
    }
}
