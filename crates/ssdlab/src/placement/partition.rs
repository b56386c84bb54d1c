//! Resource partitions per tenant (docs/HOST.md §5): a tenant whose `[[host.tenant]]`
//! lists `channels`, `chips`, `dies` or `planes` has its host pages written only to the
//! planes in the product of its lists, as MQSim confines a flow to its `Channel_IDs`,
//! `Chip_IDs`, `Die_IDs` and `Plane_IDs`.
//!
//! A wrapper around the allocation policy, built only when some tenant has a list: a
//! page of a partitioned tenant's namespace (host data, or a never-written page a read
//! materializes) is placed inside its partition by the same rule as the allocation
//! (static: the page's place in the namespace over the partition's planes in the
//! allocation order, as MQSim maps a flow's LPN over its lists; dynamic: round robin or
//! least busy over the partition's planes); every other page goes to the wrapped policy.
//! GC moves stay in their plane, so a tenant's data never leaves its partition.

use super::{PageToPlace, PlacementPolicy, Role};
use crate::config::partitions::planes_of;
use crate::config::tenants::namespace;
use crate::config::SimConfig;
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_ftl::{Allocation, DynamicPolicy};
use ssdlab_nand::{Geometry, Lpn, PlaneId};

/// How pages are spread over a partition's planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spread {
    /// By the page's place in its namespace.
    Static,
    /// Each write to the next writable plane.
    RoundRobin,
    /// Each write to a writable plane whose chip has the least outstanding work.
    LeastBusy,
}

/// One tenant's partition.
#[derive(Clone, Debug)]
struct Partition {
    /// Its namespace's LPNs, `[first, end)`.
    first: u32,
    end: u32,
    /// Its planes, in the allocation order.
    planes: Vec<PlaneId>,
    /// Run-time and preconditioning write counters (dynamic spreads).
    next: u64,
    fill_next: u64,
}

/// The allocation policy with the tenants' partitions around it.
#[derive(Clone)]
pub struct Partitioned {
    base: Box<dyn PlacementPolicy>,
    spread: Spread,
    /// The partitioned tenants' partitions, by namespace start.
    parts: Vec<Partition>,
}

/// True when some tenant of `cfg` lists channels, chips, dies or planes.
pub fn any(cfg: &SimConfig) -> bool {
    cfg.host.tenant.iter().any(|t| t.partitioned())
}

impl Partitioned {
    /// `base` with the partitions of `cfg`'s tenants (validated: ids in range, at least
    /// one plane each, static or dynamic allocation).
    pub fn new(base: Box<dyn PlacementPolicy>, cfg: &SimConfig) -> Self {
        let g = &cfg.geometry;
        let order = cfg.ftl.static_order.stripe_map(g);
        let order: Vec<PlaneId> = (0..g.planes()).map(|l| order.plane_of(Lpn(l))).collect();
        let page = u64::from(g.page_size_bytes);
        let bytes = u64::from(cfg.ftl.logical_pages(g)) * page;
        let ts = &cfg.host.tenant;
        let mut parts: Vec<Partition> = (0..ts.len())
            .filter(|&i| ts[i].partitioned() && !ts[i].shared)
            .map(|i| {
                let (off, size) = namespace(ts, i, page, bytes);
                Partition {
                    first: (off / page) as u32,
                    end: ((off + size) / page) as u32,
                    planes: planes_of(g, &order, ts[i].partition_lists()),
                    next: 0,
                    fill_next: 0,
                }
            })
            .collect();
        parts.sort_by_key(|p| p.first);
        let spread = match (cfg.ftl.allocation, cfg.ftl.dynamic_policy) {
            (Allocation::Dynamic, DynamicPolicy::RoundRobin) => Spread::RoundRobin,
            (Allocation::Dynamic, DynamicPolicy::LeastBusy) => Spread::LeastBusy,
            _ => Spread::Static,
        };
        Partitioned {
            base,
            spread,
            parts,
        }
    }

    /// The partition holding `lpn`, if any.
    #[inline]
    fn part_of(&self, lpn: Lpn) -> Option<usize> {
        let k = self.parts.partition_point(|p| p.first <= lpn.0);
        (k > 0 && lpn.0 < self.parts[k - 1].end).then(|| k - 1)
    }
}

impl PlacementPolicy for Partitioned {
    fn name(&self) -> &'static str {
        self.base.name()
    }

    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        let k = match page.role {
            Role::Data | Role::Materialize => self.part_of(page.lpn),
            _ => None,
        };
        let Some(k) = k else {
            return self.base.place(page, view);
        };
        let p = &mut self.parts[k];
        let n = p.planes.len() as u64;
        match self.spread {
            Spread::Static => p.planes[((page.lpn.0 - p.first) as u64 % n) as usize],
            Spread::RoundRobin => {
                let start = p.next;
                p.next += 1;
                (0..n)
                    .map(|j| p.planes[((start + j) % n) as usize])
                    .find(|&q| view.writable(q))
                    .unwrap_or(p.planes[(start % n) as usize])
            }
            Spread::LeastBusy => {
                let start = p.next;
                p.next += 1;
                let g = view.geom;
                (0..n)
                    .map(|j| p.planes[((start + j) % n) as usize])
                    .filter(|&q| view.writable(q))
                    .min_by_key(|&q| view.load(g.chip_of_die(g.die_of_plane(q))))
                    .unwrap_or(p.planes[(start % n) as usize])
            }
        }
    }

    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, raid: Option<&RaidMap>) -> PlaneId {
        let Some(k) = self.part_of(lpn) else {
            return self.base.fill_plane(lpn, geom, raid);
        };
        let p = &mut self.parts[k];
        let n = p.planes.len() as u64;
        let i = match self.spread {
            Spread::Static => u64::from(lpn.0 - p.first),
            _ => {
                p.fill_next += 1;
                p.fill_next - 1
            }
        };
        p.planes[(i % n) as usize]
    }

    fn counters(&self) -> Vec<(ssdlab_stats::Counter, u64)> {
        self.base.counters()
    }

    fn settle(&mut self) {
        self.base.settle();
    }

    fn settles(&self) -> bool {
        self.base.settles()
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

    /// 4 channels × 2 ways × 1 die × 2 planes; two tenants, the first on channels 0
    /// and 1 (LPNs 0 to 999), the second on channels 2 and 3, way 1, plane 0 only
    /// (LPNs 1000 to 1199), under `alloc`.
    fn cfg(alloc: &str) -> SimConfig {
        ConfigBuilder::new()
            .text(
                &format!(
                    "[geometry]\nchannels = 4\nchips_per_channel = 2\ndies_per_chip = 1\n\
                     planes_per_die = 2\nblocks_per_plane = 32\npages_per_block = 8\n\
                     [ftl]\nover_provisioning = 0.5\n{alloc}\n\
                     [[host.tenant]]\ntrace = \"a\"\nchannels = [0, 1]\n\
                     namespace_bytes = 4096000\n\
                     [[host.tenant]]\ntrace = \"b\"\nchannels = [3, 2]\nchips = [1]\nplanes = [0]\n\
                     namespace_offset_bytes = 4096000\nnamespace_bytes = 819200\n"
                ),
                "t",
            )
            .unwrap()
            .build()
            .unwrap()
    }

    /// The channels, ways and planes-in-die each tenant's pages go to, placing every
    /// LPN of both namespaces twice (and laying it out as preconditioning would).
    fn spread(alloc: &str) -> [Vec<(u32, u32, u32)>; 2] {
        let cfg = cfg(alloc);
        let g = cfg.geometry;
        let mut p = Partitioned::new(crate::placement::build_unpartitioned(&cfg), &cfg);
        let ftl = Ftl::new(&cfg.ftl, &g, cfg.ftl.logical_pages(&g), SimRng::new(1)).unwrap();
        let queues = Queues::new(&g, 8);
        let dead = DeadChips::new(g.chips());
        let gc = vec![GcJob::none(); g.planes() as usize];
        let view = DeviceView {
            geom: &g,
            ftl: &ftl,
            queues: &queues,
            dead: &dead,
            gc: &gc,
            raid: None,
        };
        let mut out = [Vec::new(), Vec::new()];
        for lpn in (0..1200).chain(0..1200) {
            let q = p.place(&PageToPlace::new(Lpn(lpn), 0, Role::Data), &view);
            let f = p.fill_plane(Lpn(lpn), &g, None);
            for q in [q, f] {
                let chip = g.chip_of_die(g.die_of_plane(q));
                let at = (g.channel_of_chip(chip).0, g.way_of_chip(chip), q.0 % 2);
                out[(lpn >= 1000) as usize].push(at);
            }
        }
        out
    }

    #[test]
    fn each_tenant_writes_only_to_its_partition() {
        for alloc in [
            "allocation = \"static\"",
            "allocation = \"dynamic\"\ndynamic_policy = \"round-robin\"",
            "allocation = \"dynamic\"\ndynamic_policy = \"least-busy\"",
        ] {
            let [a, b] = spread(alloc);
            assert!(a.iter().all(|&(c, _, _)| c < 2), "{alloc}: {a:?}");
            assert!(
                b.iter().all(|&(c, w, p)| c >= 2 && w == 1 && p == 0),
                "{alloc}"
            );
            // Every plane of each partition is used.
            let distinct = |v: &[(u32, u32, u32)]| {
                let mut v = v.to_vec();
                v.sort_unstable();
                v.dedup();
                v.len()
            };
            assert_eq!((distinct(&a), distinct(&b)), (8, 2), "{alloc}");
        }
    }

    #[test]
    fn static_spread_follows_the_allocation_order_over_the_partition() {
        let cfg = cfg("allocation = \"static\"");
        let g = cfg.geometry;
        let order = cfg.ftl.static_order.stripe_map(&g);
        let order: Vec<PlaneId> = (0..g.planes()).map(|l| order.plane_of(Lpn(l))).collect();
        let planes = planes_of(&g, &order, [Some(&[0, 1]), None, None, None]);
        assert_eq!(planes.len(), 8);
        // The order restricted to the partition: its planes in the order's sequence.
        let pos = |p: PlaneId| order.iter().position(|&q| q == p).unwrap();
        assert!(planes.windows(2).all(|w| pos(w[0]) < pos(w[1])));
        let none = planes_of(&g, &order, [Some(&[]), None, None, None]);
        assert!(none.is_empty());
    }
}
