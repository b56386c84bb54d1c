//! Event-queue throughput: a steady population of pending events, each pop scheduling
//! one new event a pseudo-random delay later (the simulator's access pattern).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdlab_engine::{EventQueue, SimDuration, SimRng, SimTime};
use std::hint::black_box;

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event-queue");
    for population in [64usize, 1024, 16384] {
        g.throughput(Throughput::Elements(100_000));
        g.bench_function(format!("hold-{population}"), |b| {
            b.iter(|| {
                let mut rng = SimRng::new(7);
                let mut q: EventQueue<u32> = EventQueue::new();
                for i in 0..population {
                    q.schedule(SimTime(rng.below(100_000)), i as u32).unwrap();
                }
                for _ in 0..100_000 {
                    let (_, e) = q.pop().unwrap();
                    q.schedule_in(SimDuration(1 + rng.below(200_000)), black_box(e));
                }
                q.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
