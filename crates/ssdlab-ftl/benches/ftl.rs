//! Host-write throughput of the FTL under random overwrites with GC, on a preconditioned
//! mid-size device (16 planes × 256 blocks × 64 pages = 262 144 pages, 15 % OP), and
//! lookup throughput. GC runs whole (select → moves → erase) in zero time whenever a plane
//! needs it, so the figure covers the full bookkeeping cost per host page.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdlab_engine::SimRng;
use ssdlab_ftl::{token_for, Ftl, FtlConfig, PreconditionConfig, StripeMap, VictimPolicy};
use ssdlab_nand::{Geometry, Lpn, PlaneId, Ppn};
use std::hint::black_box;

const BATCH: u64 = 100_000;

fn geometry() -> Geometry {
    Geometry {
        channels: 4,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 256,
        pages_per_block: 64,
        page_size_bytes: 4096,
    }
}

struct Bench {
    ftl: Ftl,
    stripe: StripeMap,
    rng: SimRng,
    pages: Vec<(Ppn, Lpn)>,
    version: u32,
}

impl Bench {
    fn new(victim: VictimPolicy) -> Bench {
        let g = geometry();
        let mut cfg = FtlConfig::default();
        cfg.gc.victim = victim;
        let n = cfg.logical_pages(&g);
        let mut ftl = Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap();
        let stripe = cfg.static_order.stripe_map(&g);
        let pre = PreconditionConfig {
            enabled: true,
            fill_ratio: 1.0,
            overwrite_ratio: 0.5,
            ..PreconditionConfig::default()
        };
        let r = ftl.precondition(&pre, None, &mut |l| stripe.plane_of(l), &mut SimRng::new(2));
        Bench {
            ftl,
            stripe,
            rng: SimRng::new(3),
            pages: Vec::new(),
            version: r.last_version,
        }
    }

    /// One whole GC in `plane`, as the controller would run it with zero-time transactions.
    fn gc(&mut self, plane: PlaneId) -> bool {
        let Some(v) = self.ftl.select_victim(plane) else {
            return false;
        };
        self.ftl.victim_valid_pages(v, &mut self.pages);
        for &(src, _) in &self.pages {
            if let Some(dst) = self.ftl.gc_begin_move(src) {
                self.ftl.gc_finish_move(src, dst);
            }
        }
        self.ftl.erase_done(v);
        true
    }

    fn write_random(&mut self) {
        let n = u64::from(self.ftl.map_entries());
        let lpn = Lpn(self.rng.below(n) as u32);
        let plane = self.stripe.plane_of(lpn);
        self.version = self.version.wrapping_add(1);
        let token = token_for(lpn, self.version);
        let ppn = loop {
            match self.ftl.host_write(lpn, plane, token) {
                Ok(ppn) => break ppn,
                Err(_) => assert!(self.gc(plane), "no victim"),
            }
        };
        self.ftl.program_done(ppn);
        while self.ftl.gc_needed(plane) && self.gc(plane) {}
    }
}

fn host_writes(c: &mut Criterion) {
    let mut group = c.benchmark_group("ftl");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH));
    for victim in [VictimPolicy::Greedy, VictimPolicy::CostBenefit] {
        let mut b = Bench::new(victim);
        let name = format!("host_write_random_overwrite_gc/{victim:?}");
        group.bench_function(name, |bench| {
            bench.iter(|| {
                for _ in 0..BATCH {
                    b.write_random();
                }
            })
        });
    }
    let b = Bench::new(VictimPolicy::Greedy);
    let n = b.ftl.map_entries();
    group.bench_function("lookup", |bench| {
        let mut l = 0u32;
        bench.iter(|| {
            for _ in 0..BATCH {
                l = (l + 7919) % n;
                black_box(b.ftl.lookup(Lpn(l)));
            }
        })
    });
    group.bench_function("stripe_plane_of", |bench| {
        let mut l = 0u32;
        bench.iter(|| {
            for _ in 0..BATCH {
                l = l.wrapping_add(7919);
                black_box(b.stripe.plane_of(Lpn(l)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, host_writes);
criterion_main!(benches);
