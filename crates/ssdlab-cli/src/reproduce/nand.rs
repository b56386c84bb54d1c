//! `ssdlab reproduce nand`: the two figures of the NAND model (issue 36, item 6) on the
//! `tlc-1tb` preset as shipped.
//!
//! ```text
//!  fresh drive ─► 128 KiB sequential writes, closed loop at 32 ─► completed bytes per
//!                 over the logical capacity (--fill-bytes)        1 GB bin ─► write-cliff.*
//!  filled drive ─► 16 KiB random, 70 % reads, open loop ─► read latency of every read,
//!                  suspend "host-reads" / "off"; as shipped      quantiles ─► suspend-cdf.*
//!                  and with the SLC cache off (labelled)                      nand-summary.md
//! ```
//!
//! The runs stream their per-request records through the library (`keep_request_log`,
//! drained every [`DRAIN_EVENTS`] events), so that the terabyte fill keeps no per-request
//! table: the cliff keeps one row per bin, the mixed runs the response time of each read.

use super::common::{create_out_dir, write_out};
use super::runner::{self, Job, Run};
use super::Output;
use crate::Failure;
use anyhow::anyhow;
use clap::Args;
use ssdlab::{ConfigBuilder, SimConfig, Simulation};
use ssdlab_stats::RequestLog;
use ssdlab_trace::{AddressPattern, Arrival, SizeDist, SyntheticConfig, TraceSource};
use std::path::Path;
use std::time::Instant;

#[path = "nand_figures.rs"]
mod figures;
#[path = "nand_summary.rs"]
mod summary;

/// `reproduce nand` arguments.
#[derive(Args, Debug)]
pub struct NandArgs {
    #[command(flatten)]
    pub output: Output,
    /// Bytes the write-cliff run writes, in whole 128 KiB requests (rounded down).
    /// Default: the drive's whole logical capacity (1 005 513 080 832 B on tlc-1tb). A
    /// smaller fill is a shorter experiment; the summary states the bytes written.
    #[arg(long, value_name = "BYTES")]
    pub fill_bytes: Option<u64>,
    /// Requests of each mixed-workload run (the summary states it).
    #[arg(long, value_name = "N", default_value_t = MIX_REQUESTS)]
    pub requests: u64,
}

/// The preset every run starts from.
const PRESET: &str = "tlc-1tb";
/// Write-cliff requests: 128 KiB, sequential from byte 0.
const FILL_REQUEST: u64 = 128 << 10;
/// Write-cliff host: closed loop with this many requests outstanding.
const FILL_QUEUE: u32 = 32;
/// Bytes of a write-cliff bin: 1 GB.
pub(super) const BIN_BYTES: u64 = 1_000_000_000;
/// Mixed workload: request size, read share, requests per run.
const MIX_REQUEST: u64 = 16 << 10;
const MIX_READS: f64 = 0.7;
const MIX_REQUESTS: u64 = 1_000_000;
/// Events between two drains of the per-request log.
const DRAIN_EVENTS: u32 = 1 << 18;

/// The drive filled first (every logical page written once, sequentially).
const FILLED: &str = "ftl.precondition.enabled=true";
/// Every `[nand.slc_cache]` key at its default: no SLC cache.
const SLC_OFF: [&str; 5] = [
    "nand.slc_cache.mode=\"off\"",
    "nand.slc_cache.blocks_per_plane=0",
    "nand.slc_cache.free_share=0.5",
    "nand.slc_cache.t_read_ns=0",
    "nand.slc_cache.t_prog_ns=0",
];

/// A setup of the mixed workload: its name, the offered rate, what it changes.
pub(super) struct Setup {
    pub name: &'static str,
    pub label: &'static str,
    pub iops: f64,
    pub sets: &'static [&'static str],
}

/// The setups, in the order of the CSV and the figure. As shipped, at 20 000 IOPS (the
/// dies about a sixth busy, folding in the host's idle gaps) and at 100 000 IOPS; without
/// the SLC cache at 100 000 IOPS, which keeps the dies about two thirds busy with reads
/// and one-shot programs (150 000: 88 %, the median read 0.78 ms). The two setups at
/// 100 000 IOPS differ only in the cache.
pub(super) const SETUPS: [Setup; 3] = [
    Setup {
        name: "as-shipped",
        label: "as shipped, 20k IOPS",
        iops: 20_000.0,
        sets: &[],
    },
    Setup {
        name: "as-shipped-100k",
        label: "as shipped, 100k IOPS",
        iops: 100_000.0,
        sets: &[],
    },
    Setup {
        name: "slc-off",
        label: "SLC cache off, 100k IOPS",
        iops: 100_000.0,
        sets: &SLC_OFF,
    },
];
/// `scheduler.suspend` of the two runs of a setup: the preset's, then off.
pub(super) const SUSPEND: [&str; 2] = ["host-reads", "off"];

/// One run of the experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Cliff,
    /// Setup, suspend setting (indices).
    Mix(usize, usize),
}

/// One bin of the write cliff: the completions that brought the bytes written from
/// `start_bytes` to `end_bytes`, between `start_ns` and `end_ns`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Bin {
    pub start_bytes: u64,
    pub end_bytes: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Bin {
    /// Throughput in MB/s (10^6 B/s).
    pub fn mb_s(&self) -> f64 {
        let ns = self.end_ns.saturating_sub(self.start_ns).max(1);
        (self.end_bytes - self.start_bytes) as f64 / ns as f64 * 1e3
    }
}

/// Cuts completed bytes into bins of `size` bytes, in completion order.
struct Binner {
    size: u64,
    bytes: u64,
    next: u64,
    open: Bin,
    bins: Vec<Bin>,
}

impl Binner {
    fn new(size: u64) -> Self {
        Binner {
            size,
            bytes: 0,
            next: size,
            open: Bin::default(),
            bins: Vec::new(),
        }
    }

    /// `bytes` completed at `t_ns`.
    fn add(&mut self, bytes: u64, t_ns: u64) {
        self.bytes += bytes;
        if self.bytes >= self.next {
            self.close(t_ns);
            while self.next <= self.bytes {
                self.next += self.size;
            }
        }
    }

    fn close(&mut self, t_ns: u64) {
        let bin = Bin {
            end_bytes: self.bytes,
            end_ns: t_ns,
            ..self.open
        };
        self.bins.push(bin);
        self.open = Bin {
            start_bytes: self.bytes,
            end_bytes: self.bytes,
            start_ns: t_ns,
            end_ns: t_ns,
        };
    }

    /// The bins, with the last, partial one if it holds anything.
    fn finish(mut self, last_ns: u64) -> Vec<Bin> {
        if self.bytes > self.open.start_bytes {
            self.close(last_ns);
        }
        self.bins
    }
}

/// What the experiment keeps of a run.
pub(super) struct Outcome {
    pub run: Run,
    /// Write cliff: its bins.
    pub bins: Vec<Bin>,
    /// Mixed runs: the response time of every read, sorted, ns.
    pub reads_ns: Vec<u64>,
    /// The last request's completion, ns.
    pub last_completion_ns: u64,
    /// Wall time of the run, s.
    pub wall_s: f64,
}

/// Runs `job` to its end, handing its per-request records to `each` (size, completion,
/// response, is a read) as they complete.
fn run_streamed(job: &Job, mut each: impl FnMut(&RequestLog, usize)) -> Result<Run, String> {
    let src = &job.source;
    let mut sim = Simulation::on_trace(job.cfg.clone(), || src.open(), &src.describe())
        .map_err(|e| e.to_string())?;
    sim.set_preset_name(job.preset);
    sim.keep_request_log();
    let mut drain = |sim: &mut Simulation| {
        if let Some(log) = sim.take_request_log() {
            (0..log.len()).for_each(|i| each(&log, i));
        }
        sim.keep_request_log();
    };
    let mut n = 0;
    while sim.step().map_err(|e| e.to_string())? {
        n += 1;
        if n == DRAIN_EVENTS {
            n = 0;
            drain(&mut sim);
        }
    }
    drain(&mut sim);
    let report = sim.into_report().map_err(|e| e.to_string())?;
    Ok(Run {
        report,
        mismatches: 0,
    })
}

/// Runs the job of `key`.
fn run_one(key: Key, job: &Job) -> Result<Outcome, String> {
    let start = Instant::now();
    let mut last = 0;
    let mut binner = Binner::new(BIN_BYTES);
    let mut reads_ns = Vec::new();
    let run = run_streamed(job, |log, i| {
        let t = log.completion_ns[i];
        last = last.max(t);
        match key {
            Key::Cliff => binner.add(log.size_bytes[i], t),
            Key::Mix(..) => {
                if log.op[i] == RequestLog::op_code(ssdlab_stats::OpClass::Read) {
                    reads_ns.push(log.response_ns(i));
                }
            }
        }
    })?;
    reads_ns.sort_unstable();
    Ok(Outcome {
        run,
        bins: binner.finish(last),
        reads_ns,
        last_completion_ns: last,
        wall_s: start.elapsed().as_secs_f64(),
    })
}

/// The preset with `sets` applied.
fn config(sets: &[String]) -> Result<SimConfig, Failure> {
    let mut b = ConfigBuilder::new()
        .preset(PRESET)
        .map_err(Failure::input)?;
    for s in sets {
        b = b.set(s).map_err(Failure::input)?;
    }
    b.build().map_err(Failure::input)
}

/// The drive's logical capacity in bytes.
pub(super) fn logical_bytes(cfg: &SimConfig) -> u64 {
    u64::from(cfg.ftl.logical_pages(&cfg.geometry)) * u64::from(cfg.geometry.page_size_bytes)
}

/// The synthetic workload: `requests` of `size` bytes, `reads` of them reads, at
/// `addresses` over `footprint` bytes, arriving at `iops` (open loop).
fn workload(
    requests: u64,
    size: u64,
    reads: f64,
    address: AddressPattern,
    footprint: u64,
    iops: f64,
) -> TraceSource {
    TraceSource::Synthetic(SyntheticConfig {
        requests,
        arrival: Arrival::Poisson { iops },
        read_ratio: reads,
        size: SizeDist::Fixed { bytes: size },
        address,
        footprint_bytes: footprint,
        alignment_bytes: size,
        duplicate_ratio: 0.0,
        seed: 1,
        ..SyntheticConfig::default()
    })
}

/// What was asked for and what it came to.
pub(super) struct Plan {
    /// Bytes the cliff run writes.
    pub fill_bytes: u64,
    /// The drive's logical capacity.
    pub logical_bytes: u64,
    pub fill_queue: u32,
    pub fill_request: u64,
    pub mix_requests: u64,
    pub mix_request: u64,
    pub mix_reads: f64,
}

/// The jobs of the experiment.
fn jobs(a: &NandArgs) -> Result<(Plan, Vec<(Key, Job)>), Failure> {
    let shipped = config(&[])?;
    let logical = logical_bytes(&shipped);
    let asked = a.fill_bytes.unwrap_or(logical);
    if asked > logical || asked < FILL_REQUEST {
        return Err(Failure::input(anyhow!(
            "--fill-bytes {asked}: must be between {FILL_REQUEST} (one request) and the \
             drive's logical capacity, {logical}"
        )));
    }
    if a.requests == 0 {
        return Err(Failure::input(anyhow!("--requests must be at least 1")));
    }
    let plan = Plan {
        fill_bytes: asked / FILL_REQUEST * FILL_REQUEST,
        logical_bytes: logical,
        fill_queue: FILL_QUEUE,
        fill_request: FILL_REQUEST,
        mix_requests: a.requests,
        mix_request: MIX_REQUEST,
        mix_reads: MIX_READS,
    };
    let mut jobs = Vec::new();
    let closed = [
        "host.mode=\"closed\"".to_string(),
        format!("host.queue_depth={FILL_QUEUE}"),
    ];
    jobs.push((
        Key::Cliff,
        Job {
            label: "write cliff".into(),
            preset: PRESET,
            cfg: config(&closed)?,
            source: workload(
                plan.fill_bytes / FILL_REQUEST,
                FILL_REQUEST,
                0.0,
                AddressPattern::Sequential,
                logical,
                1.0,
            ),
        },
    ));
    for (s, setup) in SETUPS.iter().enumerate() {
        for (p, policy) in SUSPEND.iter().enumerate() {
            let mut sets = vec![
                FILLED.to_string(),
                format!("scheduler.suspend=\"{policy}\""),
            ];
            sets.extend(setup.sets.iter().map(|s| s.to_string()));
            let source = workload(
                a.requests,
                MIX_REQUEST,
                MIX_READS,
                AddressPattern::Uniform,
                logical,
                setup.iops,
            );
            let job = Job {
                label: format!("{} suspend={policy}", setup.name),
                preset: PRESET,
                cfg: config(&sets)?,
                source,
            };
            jobs.push((Key::Mix(s, p), job));
        }
    }
    Ok((plan, jobs))
}

/// Runs the experiment.
pub fn run(a: &NandArgs) -> Result<(), Failure> {
    let (plan, jobs) = jobs(a)?;
    let threads = runner::threads_or_cores(a.output.jobs);
    eprintln!(
        "reproduce nand: {} runs on {threads} threads (the write cliff writes {} bytes)",
        jobs.len(),
        plan.fill_bytes
    );
    let (keys, jobs): (Vec<Key>, Vec<Job>) = jobs.into_iter().unzip();
    let start = Instant::now();
    let runs = runner::run_all_by(&jobs, threads, |i, job| run_one(keys[i], job));
    let wall_s = start.elapsed().as_secs_f64();
    let mut runs = runs
        .into_iter()
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| Failure::internal(anyhow!(e)))?
        .into_iter();
    create_out_dir(&a.output.out)?;
    let mut take = || runs.next().expect("every run");
    let cliff = take();
    let mixed = std::array::from_fn(|_| [take(), take()]);
    debug_assert!(runs.next().is_none(), "a run left out");
    let ex = Experiment {
        plan,
        cliff,
        mixed,
        wall_s,
        threads,
    };
    ex.write_all(&a.output.out)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary());
    Ok(())
}

/// The finished runs.
pub(super) struct Experiment {
    pub plan: Plan,
    pub cliff: Outcome,
    /// By setup, then suspend setting (as [`SETUPS`], [`SUSPEND`]).
    pub mixed: [[Outcome; 2]; SETUPS.len()],
    pub wall_s: f64,
    pub threads: usize,
}

impl Experiment {
    fn write_all(&self, out: &Path) -> Result<(), String> {
        let w = |name: &str, text: String| write_out(out, name, text);
        w("write-cliff.csv", self.cliff_csv())?;
        self.cliff_figure(out)?;
        w("suspend-cdf.csv", self.cdf_csv())?;
        self.cdf_figure(out)?;
        w("nand-summary.md", self.summary())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_close_when_the_bytes_cross_each_boundary() {
        let mut b = Binner::new(100);
        for (bytes, t) in [(60, 10), (60, 20), (30, 30), (250, 40), (10, 50)] {
            b.add(bytes, t);
        }
        let bins = b.finish(50);
        let spans: Vec<_> = bins
            .iter()
            .map(|b| (b.start_bytes, b.end_bytes, b.start_ns, b.end_ns))
            .collect();
        assert_eq!(
            spans,
            [(0, 120, 0, 20), (120, 400, 20, 40), (400, 410, 40, 50)]
        );
        assert!((bins[0].mb_s() - 120.0 / 20.0 * 1e3).abs() < 1e-9);
    }
}
