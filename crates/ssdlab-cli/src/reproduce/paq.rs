//! `ssdlab reproduce paq`: the experiment of the PAQ paper's §5–6 on the `paq` preset.
//!
//! ```text
//!  workloads ──► VAQ, PAQ0, PAQ1, PAQ2 (+ async-fifo) ─────────► paq-main.csv, fig8-12
//!           └──► the same at the die-bound 180 µs split; PAQ2 with one commit per package
//!  sweep ──────► queue depth, channels, dies (closed loop)  ────► paq-sweep.csv, fig14-*
//!  workloads └─► queue depth, channels (open loop, AWT)     ────► fig15-*
//!  fig. 13 ────► per-request latency, first 5 000 requests  ────► fig13-timeseries*
//!                                                                 paq-summary.md
//! ```
//!
//! Workloads are trace files or synthetic workloads (`.toml` files as for
//! `ssdlab run --synthetic-config`), given as files or directories. Every run is the
//! `paq` preset as shipped (closed loop at 32 outstanding requests) with `--set`
//! applied; the other settings are labelled rows (`setting` column). `--quick` drops the
//! die-bound split and the one-slot rows and sweeps one workload at fewer points. The
//! PAQ2 runs at the preset run with `verify = true`; the summary reports their
//! mismatches.

use super::common::{create_out_dir, find_traces, trace_name, write_out};
use super::runner::{self, Job};
use super::Output;
use crate::Failure;
use anyhow::anyhow;
use clap::Args;
use ssdlab::{ConfigBuilder, SimConfig};
use ssdlab_stats::{Counter, RequestLog};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plan::{keys, Base, Key, Points, Setting};

#[path = "paq_figures.rs"]
mod figures;
#[path = "paq_plan.rs"]
mod plan;
#[path = "paq_summary.rs"]
mod summary;

/// `reproduce paq` arguments.
#[derive(Args, Debug)]
pub struct PaqArgs {
    /// Workloads: trace files, synthetic workload files (`.toml`), or directories whose
    /// files (not subdirectories) are either; other files are skipped. Repeatable.
    #[arg(long, value_name = "DIR|FILE", required = true)]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
    /// Fewer runs: no die-bound split or one-slot rows; the sweeps on one workload at
    /// queue depths 8, 32, 256.
    #[arg(long)]
    pub quick: bool,
    /// Skip the sensitivity sweeps and time series (figures 13-15).
    #[arg(long)]
    pub no_sweeps: bool,
    /// Workloads to sweep, by name (file name without extensions; repeatable). Default:
    /// financial1-50k and websearch1-50k where given (only the first with --quick), else
    /// the first workload.
    #[arg(long, value_name = "NAME")]
    pub sweep: Vec<String>,
    /// Extra config overrides applied to every run, e.g. --set scheduler.paq.read_first=true.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// The schedulers the paper compares (§5.2), then ssdlab's `async-fifo` for reference.
const SCHEDULERS: [&str; 5] = ["vaq", "paq0", "paq1", "paq2", "async-fifo"];
/// The paper's four: indices into [`SCHEDULERS`].
const PAPER: [usize; 4] = [0, 1, 2, 3];
const VAQ: usize = 0;
const PAQ0: usize = 1;
const PAQ1: usize = 2;
const PAQ2: usize = 3;
const REFERENCE: usize = 4;
/// The die-bound reading of the paper's 180 µs read (docs/PAQ.md A11): 139.04 µs array +
/// 4096 B × 10 ns bus, against the preset's 77.6 µs + 102.4 µs.
const DIE_SPLIT: [&str; 2] = ["timing.t_read_ns=139040", "timing.bus_ps_per_byte=10000"];
/// Offered load of the open-loop runs of figure 15, as a share of VAQ's closed-loop IOPS
/// on the same workload (docs/PAQ.md A13: 0.8-1.0).
const AWT_LOAD: f64 = 0.9;
/// Requests of the time series of figure 13 (§6.4: "its first 5000 I/O requests").
const SERIES_REQUESTS: usize = 5000;
/// Stand-ins for figure 13's sql3: a database trace and a read-only one (docs/reproductions/paq.md).
const SERIES_WORKLOADS: [&str; 2] = ["tpcc-small", "websearch1-50k"];
const DEFAULT_SWEEP: [&str; 2] = ["financial1-50k", "websearch1-50k"];

/// What the experiment keeps of one run.
#[derive(Clone, Debug, Default)]
struct Row {
    requests: u64,
    reads: u64,
    iops: f64,
    mib_s: f64,
    mean_ns: f64,
    p99_ns: u64,
    read_mean_ns: f64,
    write_mean_ns: f64,
    idle_ns: u64,
    package_ns: u64,
    bus_ns: u64,
    mp_ops: u64,
    mp_pages: u64,
    /// Commits by conflict class: node, cluster, domain, none.
    commits: [u64; 4],
    clumps: u64,
    packed: u64,
    gc_runs: u64,
    erases: u64,
    channel_util: f64,
    die_util: f64,
    /// Mean host-queue wait of the requests that waited (AWT), and how many did.
    awt_ns: f64,
    host_queued: u64,
    /// Response times of the first [`SERIES_REQUESTS`] requests, by request id (fig. 13
    /// runs only).
    series: Vec<u64>,
    /// Host reads checked against the content last written (verify runs), and reads or
    /// audited pages that disagreed.
    verified: u64,
    mismatches: u64,
}

impl Row {
    fn new(run: &runner::Run, log: Option<&RequestLog>) -> Self {
        let r = &run.report;
        let c = |k| r.counter(k);
        Row {
            requests: r.requests.all,
            reads: r.requests.read,
            iops: r.iops,
            mib_s: r.bandwidth_mib_s,
            mean_ns: r.response.all.mean_ns,
            p99_ns: r.response.all.p99_ns,
            read_mean_ns: r.response.read.mean_ns,
            write_mean_ns: r.response.write.mean_ns,
            idle_ns: r.die_idle_ns_total,
            package_ns: r.package_contention_ns_total,
            bus_ns: r.bus_contention_ns_total,
            mp_ops: c(Counter::MultiPlaneOps),
            mp_pages: c(Counter::MultiPlanePages),
            commits: [
                c(Counter::PaqCommitsNode),
                c(Counter::PaqCommitsCluster),
                c(Counter::PaqCommitsDomain),
                c(Counter::PaqCommitsNone),
            ],
            clumps: c(Counter::PaqClumps),
            packed: c(Counter::PaqPackedPages),
            gc_runs: r.gc_runs,
            erases: r.erases,
            channel_util: r.utilization.channel.mean,
            die_util: r.utilization.die.mean,
            awt_ns: r.host_queue_wait_queued_ns_mean.all,
            host_queued: r.work.all.host_queued,
            series: log.map(first_responses).unwrap_or_default(),
            verified: c(Counter::VerifiedReads),
            mismatches: run.mismatches,
        }
    }
}

/// Response times of the requests with the [`SERIES_REQUESTS`] lowest ids, in id order.
fn first_responses(log: &RequestLog) -> Vec<u64> {
    let mut by_id: Vec<(u64, u64)> = (0..log.len())
        .map(|i| (log.id[i], log.response_ns(i)))
        .collect();
    by_id.sort_unstable();
    by_id.truncate(SERIES_REQUESTS);
    by_id.into_iter().map(|(_, r)| r).collect()
}

/// The workloads: trace files and synthetic workload files (`.toml`), given or inside
/// directories given, in order.
fn find_workloads(args: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = find_traces(args)?;
    out.sort_by_key(|p| trace_name(p));
    out.dedup();
    Ok(out)
}

/// The configuration of the preset with `--set` (and extra `sets`).
fn config(user: &[String], sets: &[String]) -> Result<SimConfig, Failure> {
    let mut b = ConfigBuilder::new().preset("paq").map_err(Failure::input)?;
    for s in user.iter().chain(sets) {
        b = b.set(s).map_err(Failure::input)?;
    }
    b.build().map_err(Failure::input)
}

/// The time scale that offers [`AWT_LOAD`] × `iops` on `workload`.
fn time_scale(workload: &Path, iops: f64) -> Result<f64, Failure> {
    let src = runner::source_of(workload).map_err(|e| Failure::input(anyhow!(e)))?;
    let mut stream = src.open().map_err(Failure::input)?;
    let stats = ssdlab_trace::analyze(&mut *stream).map_err(Failure::input)?;
    let duration_s = stats.duration_ns as f64 / 1e9;
    if duration_s <= 0.0 || iops <= 0.0 {
        return Err(Failure::input(anyhow!(
            "{}: no arrival times to scale for the open-loop runs",
            workload.display()
        )));
    }
    Ok(stats.requests as f64 / (duration_s * AWT_LOAD * iops))
}

/// Runs the experiment.
pub fn run(a: &PaqArgs) -> Result<(), Failure> {
    let workloads = find_workloads(&a.traces)?;
    let names: Vec<String> = workloads.iter().map(|p| trace_name(p)).collect();
    let cfg = config(&a.set, &[])?;
    let g = &cfg.geometry;
    let base = Base {
        queue: cfg.host.queue_depth,
        channels: g.channels,
        dies: g.dies_per_chip,
        blocks: g.blocks_per_plane,
    };
    let sweep = sweep_workloads(a, &names)?;
    let all = keys(a.quick, &base, workloads.len(), &sweep);
    let threads = runner::threads_or_cores(a.output.jobs);
    eprintln!(
        "reproduce paq: {} workloads, {} runs on {threads} threads",
        workloads.len(),
        all.len()
    );
    // Closed-loop runs first: the open-loop ones take their time scale from VAQ's IOPS.
    let (open, closed): (Vec<Key>, Vec<Key>) = all.into_iter().partition(|k| k.1.open_loop());
    let series = |k: &Key| {
        !a.no_sweeps
            && k.1 == Setting::Preset
            && (k.2 == VAQ || k.2 == PAQ2)
            && SERIES_WORKLOADS.contains(&names[k.0].as_str())
    };
    let jobs = |keys: Vec<Key>, scales: &BTreeMap<usize, f64>| {
        keys.into_iter()
            .map(|k| {
                let scale = scales.get(&k.0).copied().unwrap_or(1.0);
                let sets = base.sets(k.1, scale);
                let mut sets = sets;
                sets.push(format!("scheduler.name=\"{}\"", SCHEDULERS[k.2]));
                if (k.1, k.2) == (Setting::Preset, PAQ2) {
                    sets.push("verify=true".into());
                }
                let cfg = config(&a.set, &sets)?;
                let source =
                    runner::source_of(&workloads[k.0]).map_err(|e| Failure::input(anyhow!(e)))?;
                let job = Job {
                    label: format!("{} {} {}", names[k.0], k.1.label(), SCHEDULERS[k.2]),
                    preset: "paq",
                    cfg,
                    source,
                };
                Ok((k, job))
            })
            .collect::<Result<Vec<_>, Failure>>()
    };
    let run_keys = |keys: Vec<Key>, scales: &BTreeMap<usize, f64>| {
        runner::run_keyed_by(
            jobs(keys, scales)?,
            threads,
            |k, job| runner::run_logged(job, series(k)),
            |(run, log)| Row::new(run, log.as_ref()),
        )
    };
    let first = run_keys(closed, &BTreeMap::new())?;
    let mut results = first.results;
    let mut scales = BTreeMap::new();
    for &w in &sweep {
        let vaq = &results[&(w, Setting::Preset, VAQ)];
        scales.insert(w, time_scale(&workloads[w], vaq.iops)?);
    }
    let second = run_keys(open, &scales)?;
    results.extend(second.results);
    create_out_dir(&a.output.out)?;
    let synthetic: Vec<String> = workloads
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| trace_name(p))
        .collect();
    let ex = Experiment {
        names: &names,
        synthetic,
        results: &results,
        base,
        points: Points::new(a.quick),
        sweep,
        scales,
        sets: &a.set,
        quick: a.quick,
        no_sweeps: a.no_sweeps,
        wall_s: first.wall_s + second.wall_s,
        threads,
    };
    ex.write_all(&a.output.out)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary());
    Ok(())
}

/// The indices of the workloads to sweep.
fn sweep_workloads(a: &PaqArgs, names: &[String]) -> Result<Vec<usize>, Failure> {
    if a.no_sweeps {
        return Ok(Vec::new());
    }
    let index = |n: &str| names.iter().position(|x| x == n);
    if !a.sweep.is_empty() {
        return a
            .sweep
            .iter()
            .map(|n| {
                index(n).ok_or_else(|| {
                    Failure::input(anyhow!(
                        "--sweep {n}: not among the workloads ({})",
                        names.join(", ")
                    ))
                })
            })
            .collect();
    }
    let mut v: Vec<usize> = DEFAULT_SWEEP.iter().filter_map(|n| index(n)).collect();
    if v.is_empty() {
        v.push(0);
    }
    if a.quick {
        v.truncate(1);
    }
    Ok(v)
}

/// The finished runs and what is written from them.
struct Experiment<'a> {
    names: &'a [String],
    /// The names of the synthetic workloads.
    synthetic: Vec<String>,
    results: &'a BTreeMap<Key, Row>,
    base: Base,
    points: Points,
    sweep: Vec<usize>,
    /// Open-loop time scale per swept workload.
    scales: BTreeMap<usize, f64>,
    sets: &'a [String],
    quick: bool,
    no_sweeps: bool,
    wall_s: f64,
    threads: usize,
}

impl Experiment<'_> {
    /// The run of workload `w`, setting `s` (made canonical), scheduler `sched`.
    fn at(&self, w: usize, s: Setting, sched: usize) -> Option<&Row> {
        self.results.get(&(w, self.base.canonical(s), sched))
    }

    /// The preset run of workload `w` under scheduler `sched`.
    fn main(&self, w: usize, sched: usize) -> &Row {
        &self.results[&(w, Setting::Preset, sched)]
    }

    /// Metric `f` of `sched` over VAQ's on workload `w` at setting `s` (VAQ at the preset
    /// for a setting VAQ does not have: PAQ's own options).
    fn vs_vaq(&self, w: usize, s: Setting, sched: usize, f: Metric) -> Option<f64> {
        let base = if s == Setting::OneSlot {
            Setting::Preset
        } else {
            s
        };
        let (x, v) = (self.at(w, s, sched)?, self.at(w, base, VAQ)?);
        super::common::ratio(f(x), f(v))
    }

    fn write_all(&self, out: &Path) -> Result<(), String> {
        let w = |name: &str, text: String| write_out(out, name, text);
        w("paq-main.csv", self.main_csv())?;
        self.main_figures(out)?;
        if !self.sweep.is_empty() {
            w("paq-sweep.csv", self.sweep_csv())?;
            self.sweep_figures(out)?;
        }
        if self
            .names
            .iter()
            .any(|n| SERIES_WORKLOADS.contains(&n.as_str()))
            && !self.no_sweeps
        {
            w("fig13-timeseries.csv", self.series_csv())?;
            self.series_figures(out)?;
        }
        w("paq-summary.md", self.summary())
    }
}

/// A metric of one run.
type Metric = fn(&Row) -> f64;

/// The metrics normalized to VAQ, in CSV order.
const NORMALIZED: [(&str, Metric); 6] = [
    ("iops_vs_vaq", |r| r.iops),
    ("bandwidth_vs_vaq", |r| r.mib_s),
    ("latency_vs_vaq", |r| r.mean_ns),
    ("idle_vs_vaq", |r| r.idle_ns as f64),
    ("package_contention_vs_vaq", |r| r.package_ns as f64),
    ("bus_contention_vs_vaq", |r| r.bus_ns as f64),
];
