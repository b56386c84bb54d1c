//! HIPA: hybrid page allocation by die-level load (Sun, Cheng, Zhang, Yue, Qin, "HIPA: A
//! hybrid load balancing method in SSDs for improved parallelism performance", J. Syst.
//! Archit. 131, 2022), as DS-FTL's baseline (its §3.1, §5.1.4).
//!
//! ```text
//!  write ─► static target (ftl.static_order) ─► its unit's load − least unit load ≤ threshold?
//!             yes: static gear ─► the static plane
//!             no:  dynamic gear ─► the least-loaded unit (ties: round-robin after the
//!                  target), its planes in round-robin, skipping full ones
//! ```
//!
//! HIPA's abstract names three modules: a static mapping unit, a die-level load profiler
//! and a dynamic reallocation module; "a static page allocation policy is triggered in
//! case of balanced die-level load", and an imbalance switches writes to dynamic
//! allocation. Its thresholds are not public: `[ftl.hipa]` makes the unit (die or chip),
//! the load measure, the threshold and the trigger keys. Reads are never remapped (the
//! page-level map keeps each page where it was written); preconditioning, and pages a
//! read materializes (data that was on the device before the run), keep the static
//! order.

use super::{FillRun, PageToPlace, PlacementPolicy, Role};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_ftl::{AllocOrder, HipaConfig, HipaLevel, HipaLoad, HipaTrigger, StripeMap};
use ssdlab_nand::{ChipId, DieId, FlashOp, Geometry, Lpn, NandTiming, PlaneId};
use ssdlab_stats::Counter;

/// `ftl.allocation = "hipa"`.
#[derive(Clone, Debug)]
pub struct Hipa {
    map: StripeMap,
    cfg: HipaConfig,
    /// Expected service of a read, a program and an erase, in ns.
    cost_ns: [u64; 3],
    /// Per unit: the next of its planes the dynamic gear tries.
    cursor: Vec<u32>,
    /// Scratch: each unit's load.
    loads: Vec<u64>,
    dynamic_writes: u64,
}

impl Hipa {
    /// HIPA under `order` on `geom` with `timing`'s operation costs.
    pub fn new(order: AllocOrder, cfg: &HipaConfig, geom: &Geometry, timing: &NandTiming) -> Self {
        let xfer = timing.page_transfer_ns(geom.page_size_bytes);
        let units = match cfg.level {
            HipaLevel::Die => geom.dies(),
            HipaLevel::Chip => geom.chips(),
        } as usize;
        Hipa {
            map: order.stripe_map(geom),
            cfg: cfg.clone(),
            cost_ns: [
                timing.t_read_ns + xfer,
                timing.t_prog_ns + xfer,
                timing.t_erase_ns,
            ],
            cursor: vec![0; units],
            loads: vec![0; units],
            dynamic_writes: 0,
        }
    }

    /// The predicted load of `die`: its queued operations and the one it runs.
    fn die_load(&self, view: &DeviceView, die: DieId) -> u64 {
        let (reads, programs, erases) = view.queues.queued_ops_for_die(die);
        let running = view.queues.running_op(die);
        match self.cfg.load {
            HipaLoad::Count => u64::from(reads + programs + erases) + u64::from(running.is_some()),
            HipaLoad::Time => {
                let [r, p, e] = self.cost_ns;
                let now = running.map_or(0, |op| match op {
                    FlashOp::Read => r,
                    FlashOp::Program => p,
                    FlashOp::Erase => e,
                });
                u64::from(reads) * r + u64::from(programs) * p + u64::from(erases) * e + now
            }
        }
    }

    /// The predicted load of unit `u`.
    fn unit_load(&self, view: &DeviceView, u: u32) -> u64 {
        let g = view.geom;
        match self.cfg.level {
            HipaLevel::Die => self.die_load(view, DieId(u)),
            HipaLevel::Chip => (0..g.dies_per_chip)
                .map(|n| self.die_load(view, g.die_of_chip(ChipId(u), n)))
                .sum(),
        }
    }

    /// The planes of unit `u` (a die, or a chip's dies one after the other).
    fn planes_of(&self, geom: &Geometry, u: u32) -> (u32, u32) {
        let per_die = geom.planes_per_die;
        match self.cfg.level {
            HipaLevel::Die => (u * per_die, per_die),
            HipaLevel::Chip => {
                let n = per_die * geom.dies_per_chip;
                (u * n, n)
            }
        }
    }

    fn unit_of(&self, geom: &Geometry, plane: PlaneId) -> u32 {
        let die = geom.die_of_plane(plane);
        match self.cfg.level {
            HipaLevel::Die => die.0,
            HipaLevel::Chip => geom.chip_of_die(die).0,
        }
    }

    fn chip_of_unit(&self, geom: &Geometry, u: u32) -> ChipId {
        match self.cfg.level {
            HipaLevel::Die => geom.chip_of_die(DieId(u)),
            HipaLevel::Chip => ChipId(u),
        }
    }

    /// The next writable plane of unit `u` in round-robin, if any.
    fn plane_in(&mut self, view: &DeviceView, u: u32) -> Option<PlaneId> {
        let (first, n) = self.planes_of(view.geom, u);
        let c = &mut self.cursor[u as usize];
        for k in 0..n {
            let p = PlaneId(first + (*c + k) % n);
            if view.writable(p) {
                *c = (*c + k + 1) % n;
                return Some(p);
            }
        }
        None
    }
}

impl PlacementPolicy for Hipa {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
    fn name(&self) -> &'static str {
        "hipa"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        let home = self.map.plane_of(page.lpn);
        // Pages recorded on a dead chip, and data that was on the device before the run
        // (materialized in zero time), keep the static layout, as preconditioning does.
        if matches!(page.role, Role::Degraded | Role::Materialize) {
            return home;
        }
        let g = view.geom;
        let units = self.loads.len() as u32;
        let target = self.unit_of(g, home);
        let threshold = match self.cfg.load {
            HipaLoad::Time => self.cfg.threshold_ns,
            HipaLoad::Count => u64::from(self.cfg.threshold_txns),
        };
        // No unit is below 0: a target loaded up to the threshold stays static.
        if self.cfg.trigger == HipaTrigger::Target && self.unit_load(view, target) <= threshold {
            return home;
        }
        for u in 0..units {
            self.loads[u as usize] = self.unit_load(view, u);
        }
        // The least-loaded live unit, ties to the first after the target.
        let mut best: Option<(u64, u32)> = None;
        let mut max = 0;
        for k in 1..=units {
            let u = (target + k) % units;
            if view.dead.is_dead(self.chip_of_unit(g, u)) {
                continue;
            }
            let l = self.loads[u as usize];
            max = max.max(l);
            if best.is_none_or(|(b, _)| l < b) {
                best = Some((l, u));
            }
        }
        let Some((min, least)) = best else {
            return home;
        };
        let imbalance = match self.cfg.trigger {
            HipaTrigger::Target => self.loads[target as usize].saturating_sub(min),
            HipaTrigger::Global => max - min,
        };
        if imbalance <= threshold || least == target {
            return home;
        }
        match self.plane_in(view, least) {
            Some(p) => {
                self.dynamic_writes += 1;
                p
            }
            None => home,
        }
    }

    fn fill_plane(&mut self, lpn: Lpn, _geom: &Geometry, _raid: Option<&RaidMap>) -> PlaneId {
        self.map.plane_of(lpn)
    }

    fn fill_map(&self) -> Option<StripeMap> {
        Some(self.map)
    }

    fn fill_period(&self, geom: &Geometry, _raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        Some(super::order::striped(geom))
    }

    fn counters(&self) -> Vec<(Counter, u64)> {
        vec![(Counter::HipaDynamicWrites, self.dynamic_writes)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;
    use crate::device::{DeadChips, GcJob};
    use crate::sched::Queues;
    use crate::sim::txn::{Txn, TxnSlab};
    use ssdlab_engine::SimRng;
    use ssdlab_ftl::Ftl;
    use ssdlab_nand::{Ppn, TxnReason};

    /// 2 channels × 1 chip × 2 dies × 1 plane: 4 dies of one plane each.
    fn setup(sets: &[&str]) -> (crate::config::SimConfig, Ftl, Queues) {
        let mut b = ConfigBuilder::new()
            .text(
                "[geometry]\nchannels = 2\nchips_per_channel = 1\ndies_per_chip = 2\n\
                 planes_per_die = 1\nblocks_per_plane = 16\npages_per_block = 4\n\
                 [ftl]\nover_provisioning = 0.25\nallocation = \"hipa\"\nstatic_order = \"cdwp\"\n",
                "t",
            )
            .unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        let cfg = b.build().unwrap();
        let g = cfg.geometry;
        let ftl = Ftl::new(&cfg.ftl, &g, cfg.ftl.logical_pages(&g), SimRng::new(1)).unwrap();
        let queues = Queues::new(&g, 8);
        (cfg, ftl, queues)
    }

    /// Queues `n` programs for `die` (through the real queue operations).
    fn queue_programs(q: &mut Queues, txns: &mut TxnSlab, g: &Geometry, die: u32, n: u32) {
        for _ in 0..n {
            let t = Txn::new(
                FlashOp::Program,
                TxnReason::HostWrite,
                Ppn(0),
                DieId(die),
                Lpn(0),
                0,
            );
            let id = txns.insert(t);
            q.push_for_test(g.chip_of_die(DieId(die)), id, &txns[id]);
        }
    }

    #[test]
    fn balanced_load_keeps_the_static_plane_and_imbalance_moves_to_the_least_loaded_die() {
        let (cfg, ftl, mut q) = setup(&["ftl.hipa.load=\"count\"", "ftl.hipa.threshold_txns=1"]);
        let g = cfg.geometry;
        let mut hipa = Hipa::new(cfg.ftl.static_order, &cfg.ftl.hipa, &g, &cfg.timing);
        let (dead, gc) = (
            DeadChips::new(g.chips()),
            vec![GcJob::none(); g.planes() as usize],
        );
        let page = |lpn| PageToPlace::new(Lpn(lpn), 1, Role::Data);
        let mut txns = TxnSlab::default();
        let mut place = |q: &Queues, dead: &DeadChips, lpn| {
            let v = DeviceView {
                geom: &g,
                ftl: &ftl,
                queues: q,
                dead,
                gc: &gc,
                raid: None,
            };
            hipa.place(&page(lpn), &v)
        };
        // cdwp: LPN 0 goes to die 0 (channel 0), LPN 1 to die 2 (channel 1).
        assert_eq!(place(&q, &dead, 0), PlaneId(0), "idle device: static");
        // One program queued on die 0: an imbalance of 1, not beyond the threshold.
        queue_programs(&mut q, &mut txns, &g, 0, 1);
        assert_eq!(place(&q, &dead, 0), PlaneId(0));
        // Three queued on die 0, one on die 1 and one on die 2: die 3 is the least loaded.
        queue_programs(&mut q, &mut txns, &g, 0, 2);
        queue_programs(&mut q, &mut txns, &g, 1, 1);
        queue_programs(&mut q, &mut txns, &g, 2, 1);
        assert_eq!(place(&q, &dead, 0), PlaneId(3), "dynamic gear");
        assert_eq!(place(&q, &dead, 1), PlaneId(2), "die 2's imbalance is 1");
        let mut dead2 = DeadChips::new(g.chips());
        dead2.mark(ChipId(1));
        assert_eq!(
            place(&q, &dead2, 0),
            PlaneId(1),
            "die 3 is on the dead chip: die 1 is the least loaded live one"
        );
        assert_eq!(hipa.counters(), [(Counter::HipaDynamicWrites, 2)]);
    }
}
