//! `ssdlab reproduce dgc`: the experiment of the DGC paper's §5 on the `dgc` preset.
//!
//! ```text
//!  traces ──► RAID-5, RAID-5+DGC (also with parity redirection), BRR, BRR+DGC (group 8)
//!        │                                          ─► dgc-main.csv, fig4/8/9/10-*.svg
//!        ├──► RAID-5, RAID-5+DGC, group 4, 8, 16     ─► dgc-group.csv, fig11-*.svg
//!        ├──► RAID-5, RAID-5+DGC with eager GC      ─► dgc-main.csv (sensitivity rows)
//!        └──► time scale × idle_gc_blocks × aging   ─► dgc-sensitivity.csv,
//!             (and RAID-5 with background GC)          fig-sens-gain-vs-gc-share.svg
//!                                                      dgc-summary.md
//! ```
//!
//! Every run starts from the `dgc` preset as shipped (lazy GC, the device aged by random
//! overwrites of half its pages); a variant changes the settings it names. The
//! RAID-5+DGC runs at group 8 run with `verify = true`; the summary reports their
//! mismatches. `--quick` runs the main variants only. `--bus` picks another reading of
//! the channel bus for the whole experiment ([`BusModel`]).

use super::common::{cell, create_out_dir, find_traces, mean, ratio, trace_name, write_out};
use super::runner::{self, Job, Run};
use super::{BusModel, DgcArgs};
use crate::Failure;
use anyhow::anyhow;
use ssdlab::ConfigBuilder;
use ssdlab_stats::Counter;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "dgc_figures.rs"]
mod figures;
#[path = "dgc_sens.rs"]
mod sens;
#[path = "dgc_summary.rs"]
mod summary;

/// The main variants: (name, overrides of the preset). RAID-5 is the baseline.
pub(super) const VARIANTS: [(&str, &[&str]); 5] = [
    ("raid5", &["scheduler.name=async-fifo", "dgc.enabled=false"]),
    (
        "raid5+dgc",
        &["scheduler.name=async-fifo", "dgc.enabled=true"],
    ),
    (
        "raid5+dgc+parity",
        &[
            "scheduler.name=async-fifo",
            "dgc.enabled=true",
            "dgc.redirect_parity=true",
        ],
    ),
    ("brr", &["scheduler.name=brr", "dgc.enabled=false"]),
    ("brr+dgc", &["scheduler.name=brr", "dgc.enabled=true"]),
];
/// The eager-GC sensitivity rows: RAID-5 and RAID-5+DGC with the GC model the
/// reproduction used before (GC starts as soon as a write crosses the threshold).
const EAGER: &str = "ftl.gc.trigger=\"eager\"";
const GROUP: u32 = 8;
const GROUPS: [u32; 3] = [4, 8, 16];

/// What a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Spec {
    /// Main variant `v` at parity group size `g`.
    Main(usize, u32),
    /// RAID-5 (false) or RAID-5+DGC (true) with the eager GC trigger.
    Eager(bool),
    /// A point of the sensitivity study (see `dgc_sens.rs`).
    Sens(sens::Point),
}

/// One run: trace index and what it is.
type Key = (usize, Spec);

/// What the experiment keeps of one run (times in ns).
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    requests: u64,
    mean: [f64; 3],
    p99: [u64; 3],
    deferred_gc: u64,
    redirected_write_ratio: f64,
    redirected_parity: u64,
    gc_runs: u64,
    /// Foreground GC starts by cause: data, parity, chain, other.
    starts: [u64; 4],
    background_gc: u64,
    t_chip: f64,
    t_gc: f64,
    t_wait: f64,
    verified_reads: u64,
    mismatches: u64,
}

impl Row {
    /// T_GC over the mean response time: the share of response time spent behind GC.
    pub(super) fn gc_share(&self) -> Option<f64> {
        ratio(self.t_gc, self.mean[0])
    }
}

impl From<&Run> for Row {
    fn from(run: &Run) -> Self {
        let r = &run.report;
        let (all, read, write) = (&r.response.all, &r.response.read, &r.response.write);
        let bd = &r.breakdown.all;
        let starts = [
            Counter::GcStartsData,
            Counter::GcStartsParity,
            Counter::GcStartsChain,
            Counter::GcStartsOther,
        ];
        Row {
            requests: r.requests.all,
            mean: [all.mean_ns, read.mean_ns, write.mean_ns],
            p99: [all.p99_ns, read.p99_ns, write.p99_ns],
            deferred_gc: r.counter(Counter::DeferredGc),
            redirected_write_ratio: r.redirected_write_ratio,
            redirected_parity: r.counter(Counter::DgcRedirectedParity),
            gc_runs: r.gc_runs,
            starts: starts.map(|c| r.counter(c)),
            background_gc: r.counter(Counter::BackgroundGcRuns),
            t_chip: bd.service_ns_mean,
            t_gc: bd.gc_wait_ns_mean,
            t_wait: bd.other_wait_ns_mean,
            verified_reads: r.counter(Counter::VerifiedReads),
            mismatches: run.mismatches,
        }
    }
}

/// The runs of a trace; the sensitivity study runs on `msr` traces only.
fn specs(quick: bool, msr: bool) -> Vec<Spec> {
    let mut v: Vec<Spec> = (0..VARIANTS.len()).map(|i| Spec::Main(i, GROUP)).collect();
    if !quick {
        for g in GROUPS {
            v.extend([Spec::Main(0, g), Spec::Main(1, g)]);
        }
        v.extend([Spec::Eager(false), Spec::Eager(true)]);
        if msr {
            v.extend(sens::points().into_iter().map(Spec::Sens));
        }
    }
    v.sort();
    v.dedup();
    v
}

fn keys(quick: bool, names: &[String]) -> Vec<Key> {
    (0..names.len())
        .flat_map(|t| {
            specs(quick, is_msr(&names[t]))
                .into_iter()
                .map(move |s| (t, s))
        })
        .collect()
}

/// True for an excerpt of an MSR Cambridge volume (the paper's traces).
fn is_msr(name: &str) -> bool {
    [
        "hm_", "wdev_", "stg_", "src", "rsrch_", "prxy_", "proj_", "prn_", "usr_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// The overrides of spec `s` and its label.
fn spec_sets(s: Spec) -> (String, Vec<String>) {
    let own = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match s {
        Spec::Main(v, g) => {
            let mut sets = own(VARIANTS[v].1);
            sets.push(format!("raid.group_size={g}"));
            (format!("{} g{g}", VARIANTS[v].0), sets)
        }
        Spec::Eager(dgc) => {
            let mut sets = own(VARIANTS[usize::from(dgc)].1);
            sets.push(EAGER.to_string());
            (format!("{} eager", VARIANTS[usize::from(dgc)].0), sets)
        }
        Spec::Sens(p) => (p.label(), p.sets()),
    }
}

fn job(a: &DgcArgs, traces: &[PathBuf], key: Key) -> Result<Job, Failure> {
    let (t, spec) = key;
    let mut b = ConfigBuilder::new().preset("dgc").map_err(Failure::input)?;
    let (label, own) = spec_sets(spec);
    let mut sets: Vec<String> = a.bus.sets().iter().map(|s| s.to_string()).collect();
    sets.extend(a.set.iter().cloned());
    sets.extend(own);
    if spec == Spec::Main(1, GROUP) {
        sets.push("verify=true".into());
    }
    for s in &sets {
        b = b.set(s).map_err(Failure::input)?;
    }
    Ok(Job {
        label: format!("{} {label}", trace_name(&traces[t])),
        preset: "dgc",
        cfg: b.build().map_err(Failure::input)?,
        source: runner::file(&traces[t]),
    })
}

/// Runs the experiment.
pub fn run(a: &DgcArgs) -> Result<(), Failure> {
    let traces = find_traces(&a.traces)?;
    let names: Vec<String> = traces.iter().map(|p| trace_name(p)).collect();
    let jobs = keys(a.quick, &names)
        .into_iter()
        .map(|k| Ok((k, job(a, &traces, k)?)))
        .collect::<Result<Vec<_>, Failure>>()?;
    let done = runner::run_keyed(
        "reproduce dgc",
        traces.len(),
        a.bus,
        jobs,
        a.output.jobs,
        |r| Row::from(r),
    )?;
    create_out_dir(&a.output.out)?;
    let ex = Experiment {
        names: &names,
        results: &done.results,
        bus: a.bus,
        full: !a.quick,
        sets: &a.set,
    };
    ex.write_all(&a.output.out, done.wall_s, done.threads)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary(done.wall_s, done.threads));
    Ok(())
}

pub(super) struct Experiment<'a> {
    names: &'a [String],
    results: &'a BTreeMap<Key, Row>,
    bus: BusModel,
    /// The group sweep, the eager rows and the sensitivity study ran.
    full: bool,
    sets: &'a [String],
}

pub(super) type Metric = fn(&Row) -> f64;

pub(super) const METRICS: [(&str, Metric); 6] = [
    ("mean", |r| r.mean[0]),
    ("read mean", |r| r.mean[1]),
    ("write mean", |r| r.mean[2]),
    ("p99", |r| r.p99[0] as f64),
    ("read p99", |r| r.p99[1] as f64),
    ("write p99", |r| r.p99[2] as f64),
];

impl Experiment<'_> {
    pub(super) fn get(&self, t: usize, s: Spec) -> &Row {
        &self.results[&(t, s)]
    }

    fn at(&self, t: usize, v: usize, g: u32) -> &Row {
        self.get(t, Spec::Main(v, g))
    }

    /// Metric `f` of variant `v` over RAID-5's, at group `g`.
    fn norm(&self, t: usize, v: usize, g: u32, f: Metric) -> Option<f64> {
        ratio(f(self.at(t, v, g)), f(self.at(t, 0, g)))
    }

    /// The MSR excerpts among the traces (the paper replays MSR volumes only).
    pub(super) fn msr(&self) -> Vec<usize> {
        (0..self.names.len())
            .filter(|&t| is_msr(&self.names[t]))
            .collect()
    }

    /// The average of `f`'s ratio (variant `v` over RAID-5 at group `g`) over `traces`.
    pub(super) fn avg_norm_over(
        &self,
        traces: &[usize],
        v: usize,
        g: u32,
        f: Metric,
    ) -> Option<f64> {
        let vals: Vec<f64> = traces
            .iter()
            .filter_map(|&t| self.norm(t, v, g, f))
            .collect();
        (!vals.is_empty()).then(|| mean(&vals))
    }

    fn avg_norm(&self, v: usize, g: u32, f: Metric) -> Option<f64> {
        let all: Vec<usize> = (0..self.names.len()).collect();
        self.avg_norm_over(&all, v, g, f)
    }

    fn write_all(&self, out: &Path, wall_s: f64, threads: usize) -> Result<(), String> {
        let w = |name: &str, text: String| write_out(out, name, text);
        w("dgc-main.csv", self.main_csv())?;
        self.main_figures(out)?;
        if self.full {
            w("dgc-group.csv", self.group_csv())?;
            self.group_figure(out)?;
            w("dgc-sensitivity.csv", self.sens_csv())?;
            self.sens_figure(out)?;
        }
        w("dgc-summary.md", self.summary(wall_s, threads))
    }

    /// The rows of `dgc-main.csv`: the main variants at group 8, then the eager rows.
    fn main_rows(&self) -> Vec<(String, Spec, Spec)> {
        let mut rows: Vec<(String, Spec, Spec)> = VARIANTS
            .iter()
            .enumerate()
            .map(|(v, (n, _))| (n.to_string(), Spec::Main(v, GROUP), Spec::Main(0, GROUP)))
            .collect();
        if self.full {
            for dgc in [false, true] {
                let name = format!("{} (eager GC)", VARIANTS[usize::from(dgc)].0);
                rows.push((name, Spec::Eager(dgc), Spec::Eager(false)));
            }
        }
        rows
    }

    fn main_csv(&self) -> String {
        let mut s = String::from(
            "trace,bus,variant,group_size,requests,mean_us,read_mean_us,write_mean_us,p99_us,\
             read_p99_us,write_p99_us,deferred_gc,redirected_write_ratio,redirected_parity,\
             gc_runs,gc_starts_data,gc_starts_parity,gc_starts_chain,gc_starts_other,t_chip_us,\
             t_gc_us,t_wait_us,mean_norm,read_mean_norm,write_mean_norm,p99_norm,read_p99_norm,\
             write_p99_norm,verified_reads,mismatches\n",
        );
        let bus = self.bus.name();
        for (t, name) in self.names.iter().enumerate() {
            for (vname, spec, base) in self.main_rows() {
                let o = self.get(t, spec);
                let b = self.get(t, base);
                let norms: Vec<String> = METRICS
                    .iter()
                    .map(|(_, f)| cell(ratio(f(o), f(b))))
                    .collect();
                let st = o.starts;
                let _ = writeln!(
                    s,
                    "{name},{bus},{vname},{GROUP},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{},{:.5},{},{},{},{},{},{},{:.3},{:.3},{:.3},{},{},{}",
                    o.requests,
                    o.mean[0] / 1e3,
                    o.mean[1] / 1e3,
                    o.mean[2] / 1e3,
                    o.p99[0] as f64 / 1e3,
                    o.p99[1] as f64 / 1e3,
                    o.p99[2] as f64 / 1e3,
                    o.deferred_gc,
                    o.redirected_write_ratio,
                    o.redirected_parity,
                    o.gc_runs,
                    st[0],
                    st[1],
                    st[2],
                    st[3],
                    o.t_chip / 1e3,
                    o.t_gc / 1e3,
                    o.t_wait / 1e3,
                    norms.join(","),
                    o.verified_reads,
                    o.mismatches,
                );
            }
        }
        s
    }

    fn group_csv(&self) -> String {
        let mut s = String::from(
            "trace,bus,variant,group_size,mean_us,p99_us,deferred_gc,gc_runs,mean_norm,p99_norm\n",
        );
        let bus = self.bus.name();
        for (t, name) in self.names.iter().enumerate() {
            for g in GROUPS {
                for v in [0, 1] {
                    let o = self.at(t, v, g);
                    let _ = writeln!(
                        s,
                        "{name},{bus},{},{g},{:.3},{:.3},{},{},{},{}",
                        VARIANTS[v].0,
                        o.mean[0] / 1e3,
                        o.p99[0] as f64 / 1e3,
                        o.deferred_gc,
                        o.gc_runs,
                        cell(self.norm(t, v, g, METRICS[0].1)),
                        cell(self.norm(t, v, g, METRICS[3].1)),
                    );
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_sweep_shares_the_main_runs() {
        // 5 variants + 2 variants x 3 groups (the two group-8 runs counted once) + 2 eager
        // rows, and on MSR excerpts the sensitivity points.
        let n = 5 + 6 - 2 + 2;
        let names = ["hm_1-writes".to_string(), "desktop".to_string()];
        assert_eq!(keys(false, &names).len(), 2 * n + sens::points().len());
        assert_eq!(keys(true, &names).len(), 2 * 5);
    }
}
