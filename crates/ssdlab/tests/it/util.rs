//! Helpers shared by the integration tests.

use ssdlab::{ConfigBuilder, SimConfig, Simulation, VecStream};
use ssdlab_trace::{IoRequest, Op, TraceOptions, TraceSource};
use std::path::PathBuf;

/// A path inside the repository's sample traces (`traces/`).
pub fn sample_trace(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../traces")
        .join(rel)
}

/// A small device (4 ch × 2 chips × 1 die × 2 planes × 64 blocks × 32 pages × 4 KiB
/// = 128 MiB raw) on which real traces fold and GC runs often, with `sets` applied.
pub fn small_config(sets: &[&str]) -> SimConfig {
    let mut b = ConfigBuilder::new()
        .text(
            "[geometry]\nchannels = 4\nchips_per_channel = 2\ndies_per_chip = 1\nplanes_per_die = 2\n\
             blocks_per_plane = 64\npages_per_block = 32\npage_size_bytes = 4096\n",
            "small",
        )
        .unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    b.build().unwrap()
}

/// `cfg` with its `[host]` section (tenants and host keys) replaced by the one that
/// `cfg` plus the TOML `text` gives.
pub fn with_host(mut cfg: SimConfig, text: &str) -> SimConfig {
    let with: SimConfig = ConfigBuilder::new()
        .text(&cfg.to_toml(), "small")
        .unwrap()
        .text(text, "tenants")
        .unwrap()
        .build()
        .unwrap();
    cfg.host = with.host;
    cfg
}

/// The real trace at `rel` (under `traces/`), read with the default options.
pub fn sample_source(rel: &str) -> TraceSource {
    TraceSource::File {
        path: sample_trace(rel),
        options: TraceOptions::default(),
    }
}

/// The requests of the real trace at `rel`.
pub fn sample_stream(rel: &str) -> Box<dyn ssdlab_trace::RequestStream> {
    sample_source(rel).open().unwrap()
}

/// A simulation of `cfg` over the real trace at `rel`.
pub fn trace_sim(cfg: SimConfig, rel: &str) -> Simulation {
    let src = sample_source(rel);
    let stream = src.open().unwrap();
    Simulation::new(cfg, stream, &src.describe()).unwrap()
}

/// A simulation of `cfg` over in-memory requests.
pub fn vec_sim(cfg: SimConfig, reqs: Vec<IoRequest>) -> Simulation {
    Simulation::new(cfg, Box::new(VecStream::new(reqs)), "memory").unwrap()
}

/// Runs `cfg` with one tenant per request list (`label` names the run), audits it,
/// and gives its report.
pub fn run_tenants(cfg: SimConfig, label: &str, tenants: Vec<Vec<IoRequest>>) -> ssdlab::Report {
    run_tenants_csv(cfg, label, tenants).0
}

/// [`run_tenants`] with the per-request CSV it wrote.
pub fn run_tenants_csv(
    cfg: SimConfig,
    label: &str,
    tenants: Vec<Vec<IoRequest>>,
) -> (ssdlab::Report, String) {
    let mut sim = Simulation::new(cfg, Box::new(VecStream::new(Vec::new())), label).unwrap();
    let csv = Shared::default();
    let streams: Vec<Box<dyn ssdlab_trace::RequestStream>> = tenants
        .into_iter()
        .map(|r| Box::new(VecStream::new(r)) as Box<dyn ssdlab_trace::RequestStream>)
        .collect();
    sim.set_tenants(streams).unwrap();
    sim.set_per_request_csv(Box::new(csv.clone()));
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    let r = sim.into_report().unwrap();
    let text = String::from_utf8(csv.0.lock().unwrap().clone()).unwrap();
    (r, text)
}

/// An in-memory writer that clones share (for a per-request CSV read after the run).
#[derive(Clone, Default)]
pub struct Shared(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A one-page request.
pub fn page(arrival_ns: u64, op: Op, lpn: u64) -> IoRequest {
    IoRequest {
        arrival_ns,
        op,
        fua: false,
        offset_bytes: lpn * 4096,
        size_bytes: 4096,
        content: None,
        stream: None,
    }
}

/// A request of `pages` pages from `lpn` at `t_us` µs.
pub fn io(t_us: u64, op: Op, lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        arrival_ns: t_us * 1_000,
        op,
        fua: false,
        offset_bytes: lpn * 4096,
        size_bytes: pages * 4096,
        content: None,
        stream: None,
    }
}

/// Asserts that `r` counted `n` of `c`, showing every counter when it did not.
#[track_caller]
pub fn assert_counter(r: &ssdlab::Report, c: ssdlab_stats::Counter, n: u64) {
    assert_eq!(r.counter(c), n, "{c:?}: {:?}", r.counters);
}

/// `n` random one- to four-page writes over `pages` pages, 20 µs apart, then reads.
pub fn churn(n: u64, pages: u64, seed: u64) -> Vec<IoRequest> {
    let mut rng = ssdlab_engine::SimRng::new(seed);
    let mut v: Vec<IoRequest> = (0..n)
        .map(|i| io(i * 20, Op::Write, rng.below(pages - 4), 1 + rng.below(4)))
        .collect();
    v.extend((0..n / 4).map(|i| io(n * 20 + i * 20, Op::Read, rng.below(pages - 4), 1)));
    v
}
