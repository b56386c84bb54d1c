//! Whole-simulator throughput on a real trace excerpt: host requests per second of
//! wall time, on the default device with async-fifo (the figure `ssdlab bench` prints
//! for the million-request benchmark, here on a small excerpt so it fits criterion).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdlab::{ConfigBuilder, Simulation};
use ssdlab_trace::{TraceOptions, TraceSource};
use std::path::PathBuf;

fn trace(rel: &str) -> TraceSource {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../traces")
        .join(rel);
    TraceSource::File {
        path,
        options: TraceOptions::default(),
    }
}

fn replay(c: &mut Criterion) {
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    for (name, rel, requests) in [
        (
            "financial1-50k",
            "spc-derived/financial1-50k.disksim.gz",
            50_000u64,
        ),
        ("hm_0-slice", "msr/hm_0-slice7016.csv.gz", 7_016),
    ] {
        let src = trace(rel);
        for sched in ["async-fifo", "sync-fifo"] {
            let cfg = ConfigBuilder::new()
                .preset("default")
                .unwrap()
                .set(&format!("scheduler.name={sched}"))
                .unwrap()
                .build()
                .unwrap();
            g.throughput(Throughput::Elements(requests));
            g.bench_function(format!("{name}/{sched}"), |b| {
                b.iter(|| {
                    let stream = src.open().unwrap();
                    let sim = Simulation::new(cfg.clone(), stream, "bench").unwrap();
                    sim.run().unwrap().requests.all
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
