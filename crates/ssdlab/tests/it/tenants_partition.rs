//! Resource partitions per tenant (docs/HOST.md §5): a tenant's host writes go only to
//! the planes of its channel/chip/die/plane lists, through GC too.

use crate::util::{churn, small_config};
use ssdlab::config::tenants::namespace;
use ssdlab::{SimConfig, Simulation, VecStream};
use ssdlab_nand::Lpn;
use ssdlab_trace::RequestStream;

/// The small device with two tenants, `a` on channels 0 and 1 and `b` on 2 and 3
/// (`extra` added to each), under `alloc`.
fn partitioned(alloc: &str) -> SimConfig {
    let mut cfg = small_config(&["verify=true", alloc]);
    let text = "[[host.tenant]]\nname = \"a\"\ntrace = \"a\"\nchannels = [0, 1]\n\
                [[host.tenant]]\nname = \"b\"\ntrace = \"b\"\nchannels = [2, 3]\n";
    cfg = crate::util::with_host(cfg, text);
    cfg.validate().unwrap();
    cfg
}

/// Runs the two tenants; returns the simulation after the run, audited.
fn run(cfg: SimConfig) -> Simulation {
    let share = u64::from(cfg.ftl.logical_pages(&cfg.geometry)) / 2;
    let streams: Vec<Box<dyn RequestStream>> = vec![
        Box::new(VecStream::new(churn(40_000, share, 1))),
        Box::new(VecStream::new(churn(40_000, share, 2))),
    ];
    let mut sim = Simulation::new(cfg, Box::new(VecStream::new(Vec::new())), "a + b").unwrap();
    sim.set_tenants(streams).unwrap();
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim
}

/// Two tenants with disjoint channel lists: every page of each namespace lies on its
/// own channels after a run long enough for GC to erase blocks, and verify finds every
/// read right. Static and dynamic allocation alike.
#[test]
fn tenants_with_disjoint_channels_never_write_to_each_others() {
    for alloc in ["ftl.allocation=\"static\"", "ftl.allocation=\"dynamic\""] {
        let cfg = partitioned(alloc);
        let g = cfg.geometry;
        let page = u64::from(g.page_size_bytes);
        let bytes = u64::from(cfg.ftl.logical_pages(&g)) * page;
        let ns: Vec<(u64, u64)> = (0..2)
            .map(|i| namespace(&cfg.host.tenant, i, page, bytes))
            .collect();
        let sim = run(cfg);
        let ftl = sim.ftl();
        let mut mapped = [0u64; 2];
        for (t, &(off, size)) in ns.iter().enumerate() {
            for lpn in off / page..(off + size) / page {
                let Some(ppn) = ftl.lookup(Lpn(lpn as u32)) else {
                    continue;
                };
                let channel = g.channel_of_chip(g.chip_of_page(ppn)).0;
                assert_eq!(
                    channel / 2,
                    t as u32,
                    "{alloc}: tenant {t}'s LPN {lpn} on channel {channel}"
                );
                mapped[t] += 1;
            }
        }
        assert!(mapped.iter().all(|&m| m > 1000), "{alloc}: {mapped:?}");
        let r = sim.into_report().unwrap();
        assert!(
            r.gc_pages_moved > 0,
            "{alloc}: GC moved pages: {}",
            r.gc_runs
        );
    }
}
