//! `ssdlab reproduce brr`: the experiment of the BRR paper's §IV on the `brr` preset.
//!
//! ```text
//!  traces ──► Async-FIFO, PIQ, BRR (queue 64, group 8) ─► brr-main.csv, fig10/11/12-*.svg
//!        │    the preset as shipped, then labelled sensitivity rows: write delay off,
//!        │    the shared 8 x 8 bus, an aged device with GC      ─► brr-main.csv (variant)
//!        └──► BRR, chip queue 1 … 256 (group 8)         ─► brr-queue.csv, fig13-*.svg
//!        └──► BRR, parity group 4, 8, 16 (queue 64)     ─► brr-group.csv, fig14-*.svg
//!                                                          brr-summary.md (headline numbers)
//! ```
//!
//! Every run uses the `brr` preset as shipped (with `--bus`, another bus reading for the
//! whole experiment, [`BusModel`]); a sensitivity row changes one setting for all three
//! schedulers alike ([`VARIANTS`]). Runs that appear in two experiments (BRR at queue 64
//! and group 8) run once. The BRR runs of the preset run with `verify = true` and the
//! summary reports their mismatches.
//!
//! Read-waiting ratios are only meaningful where reads wait: a trace enters the
//! read-waiting averages and figures when its Async-FIFO mean read waiting is at least
//! [`CONTENDED_NS`] (the CSVs keep every trace, with a `contended` column).

use super::common::{
    cell, create_out_dir, find_traces, mean, median, ratio, trace_name, write_out,
};
use super::runner::{self, Job, Run};
use super::{BrrArgs, BusModel};
use crate::Failure;
use anyhow::anyhow;
use ssdlab::ConfigBuilder;
use ssdlab_stats::Counter;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const SCHEDULERS: [&str; 3] = ["async-fifo", "piq", "brr"];

/// The rows of the main comparison: (name, what it is, overrides of the preset). The
/// first is the preset as shipped (the like-for-like comparison: every scheduler delays
/// writes behind reads, §III-C); the others are sensitivity rows.
pub(super) const VARIANTS: [(&str, &str, &[&str]); 4] = [
    ("preset", "the brr preset as shipped", &[]),
    (
        "write-delay-off",
        "no scheduler delays writes behind reads",
        &["scheduler.write_behind_read=false"],
    ),
    (
        "shared-bus",
        "8 channels of 8 chips sharing a 25 ns/byte bus",
        &["geometry.channels=8", "geometry.chips_per_channel=8"],
    ),
    (
        "aged-gc",
        "aged as the dgc preset (random overwrites of half the pages): GC runs",
        &["ftl.precondition.overwrite_ratio=0.5"],
    ),
];
const DEPTH: u32 = 64;
const GROUP: u32 = 8;
const GROUPS: [u32; 3] = [4, 8, 16];
/// Async-FIFO mean read waiting from which a trace counts as read-contended.
pub(super) const CONTENDED_NS: f64 = 1_000.0;

/// A metric of one run.
type Metric = fn(&Outcome) -> f64;

/// One run of the experiment: trace index, variant, scheduler, chip queue depth, group
/// size.
type Key = (usize, usize, &'static str, u32, u32);

/// What the experiment keeps of one run.
#[derive(Clone, Debug, Default)]
struct Outcome {
    /// Host requests completed.
    requests: u64,
    /// Mean pre-read service of writes (the read-modify-write reads before the parity
    /// program; not waiting).
    write_pre_read_ns: f64,
    /// GC runs and foreground GC starts.
    gc_runs: u64,
    gc_foreground: u64,
    /// Mean waiting time of reads and writes (BRR's T_w).
    read_wait_ns: f64,
    /// See `read_wait_ns`.
    write_wait_ns: f64,
    /// Mean response time of reads.
    read_response_ns: f64,
    /// BRR's chip utilization: busy-chip fraction sampled at each arrival.
    chip_util: f64,
    /// Redirected reads / host read pages.
    redirected_ratio: f64,
    /// Flash reads issued by reconstructions (BRR's extra reads).
    extra_reads: u64,
    /// Host reads checked against the content last written (verify runs).
    verified_reads: u64,
    /// Reads or audited pages that disagreed (verify runs).
    mismatches: u64,
}

impl From<&Run> for Outcome {
    fn from(run: &Run) -> Self {
        let r = &run.report;
        let starts = [
            Counter::GcStartsData,
            Counter::GcStartsParity,
            Counter::GcStartsChain,
            Counter::GcStartsOther,
        ];
        Outcome {
            requests: r.requests.all,
            write_pre_read_ns: r.breakdown.write.pre_read_ns_mean,
            gc_runs: r.gc_runs,
            gc_foreground: starts.iter().map(|&c| r.counter(c)).sum(),
            read_wait_ns: r.waiting.read.mean_ns,
            write_wait_ns: r.waiting.write.mean_ns,
            read_response_ns: r.response.read.mean_ns,
            chip_util: r.utilization.sampled_chip,
            redirected_ratio: r.redirected_read_ratio,
            extra_reads: r.counter(Counter::RaidReconstructReads),
            verified_reads: r.counter(Counter::VerifiedReads),
            mismatches: run.mismatches,
        }
    }
}

fn depths(quick: bool) -> Vec<u32> {
    if quick {
        vec![1, 4, 16, 64, 256]
    } else {
        (0..=8).map(|i| 1 << i).collect()
    }
}

/// True if variant `v` runs on the trace called `name`.
fn runs_variant(a: &BrrArgs, v: usize, name: &str) -> bool {
    v == 0
        || !a.no_sweeps
            && (VARIANTS[v].0 != "aged-gc"
                || a.gc_traces.is_empty()
                || a.gc_traces.iter().any(|g| name.contains(g.as_str())))
}

fn keys(a: &BrrArgs, names: &[String]) -> Vec<Key> {
    let mut keys = Vec::new();
    for (t, name) in names.iter().enumerate() {
        for v in (0..VARIANTS.len()).filter(|&v| runs_variant(a, v, name)) {
            keys.extend(SCHEDULERS.iter().map(|&s| (t, v, s, DEPTH, GROUP)));
        }
        if !a.no_sweeps {
            keys.extend(depths(a.quick).into_iter().map(|d| (t, 0, "brr", d, GROUP)));
            keys.extend(GROUPS.iter().map(|&g| (t, 0, "brr", DEPTH, g)));
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

fn job(a: &BrrArgs, traces: &[PathBuf], key: Key) -> Result<Job, Failure> {
    let (t, v, sched, depth, group) = key;
    let mut b = ConfigBuilder::new().preset("brr").map_err(Failure::input)?;
    let mut sets: Vec<String> = a.bus.sets().iter().map(|s| s.to_string()).collect();
    sets.extend(VARIANTS[v].2.iter().map(|s| s.to_string()));
    sets.extend(a.set.iter().cloned());
    sets.push(format!("scheduler.name={sched}"));
    sets.push(format!("scheduler.chip_queue_depth={depth}"));
    sets.push(format!("raid.group_size={group}"));
    if (v, sched, depth, group) == (0, "brr", DEPTH, GROUP) {
        sets.push("verify=true".into());
    }
    for s in &sets {
        b = b.set(s).map_err(Failure::input)?;
    }
    let cfg = b.build().map_err(Failure::input)?;
    Ok(Job {
        label: format!(
            "{} {} {sched} q{depth} g{group}",
            trace_name(&traces[t]),
            VARIANTS[v].0
        ),
        preset: "brr",
        cfg,
        source: runner::file(&traces[t]),
    })
}

/// Runs the experiment.
pub fn run(a: &BrrArgs) -> Result<(), Failure> {
    let traces = find_traces(&a.traces)?;
    let names: Vec<String> = traces.iter().map(|p| trace_name(p)).collect();
    let jobs = keys(a, &names)
        .into_iter()
        .map(|k| Ok((k, job(a, &traces, k)?)))
        .collect::<Result<Vec<_>, Failure>>()?;
    let done = runner::run_keyed(
        "reproduce brr",
        traces.len(),
        a.bus,
        jobs,
        a.output.jobs,
        |r| Outcome::from(r),
    )?;
    create_out_dir(&a.output.out)?;
    let ex = Experiment {
        names: &names,
        results: &done.results,
        bus: a.bus,
        depths: depths(a.quick),
        sweeps: !a.no_sweeps,
    };
    ex.write_all(&a.output.out, done.wall_s, done.threads)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary(done.wall_s, done.threads));
    Ok(())
}

/// The finished runs and what is written from them.
struct Experiment<'a> {
    names: &'a [String],
    results: &'a BTreeMap<Key, Outcome>,
    bus: BusModel,
    depths: Vec<u32>,
    sweeps: bool,
}

impl Experiment<'_> {
    fn main(&self, t: usize, s: &'static str) -> &Outcome {
        self.row(t, 0, s)
    }

    /// Scheduler `s` on trace `t` in variant `v` (queue 64, group 8).
    fn row(&self, t: usize, v: usize, s: &'static str) -> &Outcome {
        &self.results[&(t, v, s, DEPTH, GROUP)]
    }

    /// The variants that ran on some trace.
    fn variants(&self) -> Vec<usize> {
        (0..VARIANTS.len())
            .filter(|&v| (0..self.names.len()).any(|t| self.has(t, v)))
            .collect()
    }

    /// True if variant `v` ran on trace `t`.
    fn has(&self, t: usize, v: usize) -> bool {
        self.results
            .contains_key(&(t, v, "async-fifo", DEPTH, GROUP))
    }

    /// True if reads wait on trace `t` under Async-FIFO (see [`CONTENDED_NS`]).
    fn contended(&self, t: usize) -> bool {
        self.main(t, "async-fifo").read_wait_ns >= CONTENDED_NS
    }

    /// The read-contended traces.
    fn contended_traces(&self) -> Vec<usize> {
        (0..self.names.len())
            .filter(|&t| self.contended(t))
            .collect()
    }

    /// Metric `f` of scheduler `s` over Async-FIFO's, per read-contended trace.
    fn normalized(&self, s: &'static str, f: Metric) -> Vec<Option<f64>> {
        self.contended_traces()
            .into_iter()
            .map(|t| ratio(f(self.main(t, s)), f(self.main(t, "async-fifo"))))
            .collect()
    }

    fn write_all(&self, out: &Path, wall_s: f64, threads: usize) -> Result<(), String> {
        let w = |name: &str, text: String| write_out(out, name, text);
        w("brr-main.csv", self.main_csv())?;
        self.main_figures(out)?;
        if self.sweeps {
            w(
                "brr-queue.csv",
                self.sweep_csv("chip_queue_depth", &self.depths, true),
            )?;
            w(
                "brr-group.csv",
                self.sweep_csv("group_size", &GROUPS, false),
            )?;
            self.sweep_figures(out)?;
        }
        w("brr-summary.md", self.summary(wall_s, threads))
    }

    fn main_csv(&self) -> String {
        let mut s = String::from(
            "trace,bus,variant,scheduler,requests,read_wait_us,write_wait_us,write_pre_read_us,\
             read_response_us,chip_util,redirected_ratio,extra_reads,gc_runs,gc_foreground,\
             read_wait_norm,write_wait_norm,chip_util_norm,contended,verified_reads,mismatches\n",
        );
        for (t, name) in self.names.iter().enumerate() {
            for v in (0..VARIANTS.len()).filter(|&v| self.has(t, v)) {
                let vname = VARIANTS[v].0;
                let fifo = self.row(t, v, "async-fifo");
                for sched in SCHEDULERS {
                    let o = self.row(t, v, sched);
                    let _ = writeln!(
                        s,
                        "{name},{},{vname},{sched},{},{:.3},{:.3},{:.3},{:.3},{:.5},{:.5},{},{},{},{},{},{},{},{},{}",
                        self.bus.name(),
                        o.requests,
                        o.read_wait_ns / 1e3,
                        o.write_wait_ns / 1e3,
                        o.write_pre_read_ns / 1e3,
                        o.read_response_ns / 1e3,
                        o.chip_util,
                        o.redirected_ratio,
                        o.extra_reads,
                        o.gc_runs,
                        o.gc_foreground,
                        cell(ratio(o.read_wait_ns, fifo.read_wait_ns)),
                        cell(ratio(o.write_wait_ns, fifo.write_wait_ns)),
                        cell(ratio(o.chip_util, fifo.chip_util)),
                        self.contended(t),
                        o.verified_reads,
                        o.mismatches,
                    );
                }
            }
        }
        s
    }

    /// BRR's read waiting per trace at each sweep value, over the first value's (None
    /// for traces without read contention).
    fn sweep(&self, values: &[u32], queue: bool) -> Vec<Vec<Option<f64>>> {
        (0..self.names.len())
            .map(|t| {
                if !self.contended(t) {
                    return vec![None; values.len()];
                }
                let at = |v: u32| {
                    let k = if queue {
                        (t, 0, "brr", v, GROUP)
                    } else {
                        (t, 0, "brr", DEPTH, v)
                    };
                    self.results[&k].read_wait_ns
                };
                values
                    .iter()
                    .map(|&v| ratio(at(v), at(values[0])))
                    .collect()
            })
            .collect()
    }

    fn sweep_csv(&self, column: &str, values: &[u32], queue: bool) -> String {
        let mut s = format!("trace,bus,{column},read_wait_us,read_wait_norm\n");
        let norm = self.sweep(values, queue);
        for (t, name) in self.names.iter().enumerate() {
            for (i, &v) in values.iter().enumerate() {
                let k = if queue {
                    (t, 0, "brr", v, GROUP)
                } else {
                    (t, 0, "brr", DEPTH, v)
                };
                let o = &self.results[&k];
                let _ = writeln!(
                    s,
                    "{name},{},{v},{:.3},{}",
                    self.bus.name(),
                    o.read_wait_ns / 1e3,
                    cell(norm[t][i])
                );
            }
        }
        s
    }

    /// Per-value averages over the traces with reads.
    fn sweep_average(&self, values: &[u32], queue: bool) -> Vec<f64> {
        let norm = self.sweep(values, queue);
        (0..values.len())
            .map(|i| mean(&norm.iter().filter_map(|row| row[i]).collect::<Vec<_>>()))
            .collect()
    }
}

#[path = "brr_figures.rs"]
mod figures;
#[path = "brr_summary.rs"]
mod summary;

#[cfg(test)]
mod tests {
    use super::*;

    fn args(quick: bool, no_sweeps: bool) -> BrrArgs {
        BrrArgs {
            traces: Vec::new(),
            output: super::super::Output {
                out: PathBuf::new(),
                jobs: None,
            },
            quick,
            bus: BusModel::Private,
            no_sweeps,
            gc_traces: Vec::new(),
            set: Vec::new(),
        }
    }

    #[test]
    fn runs_shared_by_two_experiments_run_once() {
        // 3 schedulers x 4 variants + 9 queue lengths + 3 group sizes, BRR at (64, 8) of
        // the preset counted once.
        let rows = 3 * VARIANTS.len();
        let names = ["hm_0".to_string(), "wdev_3".to_string()];
        assert_eq!(
            keys(&args(false, false), &names).len(),
            2 * (rows + 9 + 3 - 2)
        );
        assert_eq!(
            keys(&args(true, false), &names).len(),
            2 * (rows + 5 + 3 - 2)
        );
        assert_eq!(keys(&args(false, true), &names).len(), 2 * 3);
        // The GC-active rows only where asked for.
        let mut a = args(false, false);
        a.gc_traces = vec!["wdev".into()];
        assert_eq!(keys(&a, &names).len(), 2 * (rows + 9 + 3 - 2) - 3);
    }

    #[test]
    fn trace_names_drop_extensions() {
        assert_eq!(
            trace_name(Path::new("a/hm_0-slice7016.csv.gz")),
            "hm_0-slice7016"
        );
    }
}
