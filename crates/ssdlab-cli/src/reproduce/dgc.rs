//! `ssdlab reproduce dgc`: the experiment of the DGC paper's §5 on the `dgc` preset.
//!
//! ```text
//!  traces ──► RAID-5, RAID-5+DGC, BRR, BRR+DGC (group 8) ─► dgc-main.csv, fig4/8/9/10-*.svg
//!        └──► RAID-5, RAID-5+DGC, group 4, 8, 16         ─► dgc-group.csv, fig11-*.svg
//!                                                           dgc-summary.md
//! ```
//!
//! The RAID-5+DGC runs at group 8 run with `verify = true`; the summary reports their
//! mismatches. `--quick` skips the group-size sweep. `--bus` picks the reading of the
//! channel bus ([`BusModel`]), per-chip links by default as in DiskSim's ssdmodel.

use super::common::{cell, create_out_dir, find_traces, mean, ratio, trace_name, write_out};
use super::plot::{self, Bars, Lines};
use super::runner::{self, Job, Run};
use super::{BusModel, DgcArgs};
use crate::Failure;
use anyhow::anyhow;
use ssdlab::ConfigBuilder;
use ssdlab_stats::Counter;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// (name, scheduler, DGC enabled).
const VARIANTS: [(&str, &str, bool); 4] = [
    ("raid5", "async-fifo", false),
    ("raid5+dgc", "async-fifo", true),
    ("brr", "brr", false),
    ("brr+dgc", "brr", true),
];
const GROUP: u32 = 8;
const GROUPS: [u32; 3] = [4, 8, 16];
/// Overrides of the preset every run gets, before `--set`: the preset's sequential fill
/// alone leaves every plane above the GC threshold, so GC never ran on the MSR excerpts;
/// random overwrites after the fill age the device (docs/reproductions/dgc.md).
pub(super) const EXPERIMENT_SETS: [&str; 1] = ["ftl.precondition.overwrite_ratio=0.5"];

/// One run: trace index, variant index, group size.
type Key = (usize, usize, u32);

/// What the experiment keeps of one run (times in ns).
#[derive(Clone, Debug, Default)]
struct Row {
    requests: u64,
    mean: [f64; 3],
    p99: [u64; 3],
    deferred_gc: u64,
    redirected_write_ratio: f64,
    gc_runs: u64,
    t_chip: f64,
    t_gc: f64,
    t_wait: f64,
    verified_reads: u64,
    mismatches: u64,
}

fn keys(quick: bool, traces: usize) -> Vec<Key> {
    let mut keys = Vec::new();
    for t in 0..traces {
        keys.extend((0..VARIANTS.len()).map(|v| (t, v, GROUP)));
        if !quick {
            for g in GROUPS {
                keys.extend([(t, 0, g), (t, 1, g)]);
            }
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

impl From<&Run> for Row {
    fn from(run: &Run) -> Self {
        let r = &run.report;
        let (all, read, write) = (&r.response.all, &r.response.read, &r.response.write);
        let bd = &r.breakdown.all;
        Row {
            requests: r.requests.all,
            mean: [all.mean_ns, read.mean_ns, write.mean_ns],
            p99: [all.p99_ns, read.p99_ns, write.p99_ns],
            deferred_gc: r.counter(Counter::DeferredGc),
            redirected_write_ratio: r.redirected_write_ratio,
            gc_runs: r.gc_runs,
            t_chip: bd.service_ns_mean,
            t_gc: bd.gc_wait_ns_mean,
            t_wait: bd.other_wait_ns_mean,
            verified_reads: r.counter(Counter::VerifiedReads),
            mismatches: run.mismatches,
        }
    }
}

fn job(a: &DgcArgs, traces: &[PathBuf], key: Key) -> Result<Job, Failure> {
    let (t, v, group) = key;
    let (vname, sched, dgc) = VARIANTS[v];
    let mut b = ConfigBuilder::new().preset("dgc").map_err(Failure::input)?;
    let mut sets: Vec<String> = a.bus.sets().iter().map(|s| s.to_string()).collect();
    sets.extend(EXPERIMENT_SETS.iter().map(|s| s.to_string()));
    sets.extend(a.set.iter().cloned());
    sets.push(format!("scheduler.name={sched}"));
    sets.push(format!("dgc.enabled={dgc}"));
    sets.push(format!("raid.group_size={group}"));
    if v == 1 && group == GROUP {
        sets.push("verify=true".into());
    }
    for s in &sets {
        b = b.set(s).map_err(Failure::input)?;
    }
    Ok(Job {
        label: format!("{} {vname} g{group}", trace_name(&traces[t])),
        preset: "dgc",
        cfg: b.build().map_err(Failure::input)?,
        source: runner::file(&traces[t]),
    })
}

/// Runs the experiment.
pub fn run(a: &DgcArgs) -> Result<(), Failure> {
    let traces = find_traces(&a.traces)?;
    let names: Vec<String> = traces.iter().map(|p| trace_name(p)).collect();
    let jobs = keys(a.quick, traces.len())
        .into_iter()
        .map(|k| Ok((k, job(a, &traces, k)?)))
        .collect::<Result<Vec<_>, Failure>>()?;
    let done = runner::run_keyed("reproduce dgc", traces.len(), a.bus, jobs, a.jobs, |r| {
        Row::from(r)
    })?;
    create_out_dir(&a.out)?;
    let ex = Experiment {
        names: &names,
        results: &done.results,
        bus: a.bus,
        sweep: !a.quick,
        sets: &a.set,
    };
    ex.write_all(&a.out, done.wall_s, done.threads)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary(done.wall_s, done.threads));
    Ok(())
}

struct Experiment<'a> {
    names: &'a [String],
    results: &'a BTreeMap<Key, Row>,
    bus: BusModel,
    sweep: bool,
    sets: &'a [String],
}

/// Reduction in percent (positive = faster), or "n/a".
fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |x| format!("{:+.1} %", (x - 1.0) * 100.0))
}

type Metric = fn(&Row) -> f64;

const METRICS: [(&str, Metric); 6] = [
    ("mean", |r| r.mean[0]),
    ("read mean", |r| r.mean[1]),
    ("write mean", |r| r.mean[2]),
    ("p99", |r| r.p99[0] as f64),
    ("read p99", |r| r.p99[1] as f64),
    ("write p99", |r| r.p99[2] as f64),
];

impl Experiment<'_> {
    fn at(&self, t: usize, v: usize, g: u32) -> &Row {
        &self.results[&(t, v, g)]
    }

    /// Metric `f` of variant `v` over RAID-5's, at group `g`.
    fn norm(&self, t: usize, v: usize, g: u32, f: Metric) -> Option<f64> {
        ratio(f(self.at(t, v, g)), f(self.at(t, 0, g)))
    }

    fn avg_norm(&self, v: usize, g: u32, f: Metric) -> Option<f64> {
        let vals: Vec<f64> = (0..self.names.len())
            .filter_map(|t| self.norm(t, v, g, f))
            .collect();
        (!vals.is_empty()).then(|| mean(&vals))
    }

    fn write_all(&self, out: &Path, wall_s: f64, threads: usize) -> Result<(), String> {
        let w = |name: &str, text: String| write_out(out, name, text);
        w("dgc-main.csv", self.main_csv())?;
        self.main_figures(out)?;
        if self.sweep {
            w("dgc-group.csv", self.group_csv())?;
            self.group_figure(out)?;
        }
        w("dgc-summary.md", self.summary(wall_s, threads))
    }

    fn main_csv(&self) -> String {
        let mut s = String::from(
            "trace,bus,variant,group_size,experiment_sets,requests,mean_us,read_mean_us,\
             write_mean_us,p99_us,read_p99_us,write_p99_us,deferred_gc,redirected_write_ratio,\
             gc_runs,t_chip_us,t_gc_us,t_wait_us,mean_norm,read_mean_norm,write_mean_norm,\
             p99_norm,read_p99_norm,write_p99_norm,verified_reads,mismatches\n",
        );
        let (bus, sets) = (self.bus.name(), EXPERIMENT_SETS.join(" "));
        for (t, name) in self.names.iter().enumerate() {
            for (v, (vname, _, _)) in VARIANTS.iter().enumerate() {
                let o = self.at(t, v, GROUP);
                let norms: Vec<String> = METRICS
                    .iter()
                    .map(|(_, f)| cell(self.norm(t, v, GROUP, *f)))
                    .collect();
                let _ = writeln!(
                    s,
                    "{name},{bus},{vname},{GROUP},{sets},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{},{:.5},{},{:.3},{:.3},{:.3},{},{},{}",
                    o.requests,
                    o.mean[0] / 1e3,
                    o.mean[1] / 1e3,
                    o.mean[2] / 1e3,
                    o.p99[0] as f64 / 1e3,
                    o.p99[1] as f64 / 1e3,
                    o.p99[2] as f64 / 1e3,
                    o.deferred_gc,
                    o.redirected_write_ratio,
                    o.gc_runs,
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

    fn main_figures(&self, out: &Path) -> Result<(), String> {
        let mut groups: Vec<String> = self.names.to_vec();
        groups.push("average".into());
        for (file, title, f) in [
            (
                "fig8-mean-response.svg",
                "Normalized mean response time",
                METRICS[0].1,
            ),
            (
                "fig9-p99-response.svg",
                "Normalized 99th-percentile response time",
                METRICS[3].1,
            ),
        ] {
            let series: Vec<(String, Vec<f64>)> = VARIANTS
                .iter()
                .enumerate()
                .map(|(v, (name, _, _))| {
                    let mut vals: Vec<f64> = (0..self.names.len())
                        .map(|t| self.norm(t, v, GROUP, f).unwrap_or(0.0))
                        .collect();
                    vals.push(self.avg_norm(v, GROUP, f).unwrap_or(0.0));
                    (name.to_string(), vals)
                })
                .collect();
            let b = Bars {
                title,
                y_label: "normalized to RAID-5",
                groups: &groups,
                series: &series,
            };
            plot::bars(&out.join(file), &b)?;
        }
        let names = self.names.to_vec();
        let deferred: Vec<(String, Vec<f64>)> = [1, 3]
            .iter()
            .map(|&v| {
                let vals = (0..self.names.len())
                    .map(|t| self.at(t, v, GROUP).deferred_gc as f64)
                    .collect();
                (VARIANTS[v].0.to_string(), vals)
            })
            .collect();
        plot::bars(
            &out.join("fig10-deferred-gc.svg"),
            &Bars {
                title: "Deferred GCs",
                y_label: "deferred GC count",
                groups: &names,
                series: &deferred,
            },
        )?;
        let parts: [(&str, Metric); 3] = [
            ("T_chip", |r| r.t_chip),
            ("T_GC", |r| r.t_gc),
            ("T_wait", |r| r.t_wait),
        ];
        let mut breakdown = Vec::new();
        for v in [0, 1] {
            for (p, f) in parts {
                let vals = (0..self.names.len())
                    .map(|t| f(self.at(t, v, GROUP)) / 1e3)
                    .collect();
                breakdown.push((format!("{} {p}", VARIANTS[v].0), vals));
            }
        }
        plot::bars(
            &out.join("fig4-breakdown.svg"),
            &Bars {
                title: "Response time breakdown (mean, all requests)",
                y_label: "us",
                groups: &names,
                series: &breakdown,
            },
        )
    }

    fn group_figure(&self, out: &Path) -> Result<(), String> {
        let f = METRICS[0].1;
        let mut series: Vec<(String, Vec<f64>)> = self
            .names
            .iter()
            .enumerate()
            .map(|(t, n)| {
                let vals = GROUPS
                    .iter()
                    .map(|&g| self.norm(t, 1, g, f).unwrap_or(0.0))
                    .collect();
                (n.clone(), vals)
            })
            .collect();
        series.push((
            "average".into(),
            GROUPS
                .iter()
                .map(|&g| self.avg_norm(1, g, f).unwrap_or(0.0))
                .collect(),
        ));
        let xs: Vec<String> = GROUPS.iter().map(u32::to_string).collect();
        plot::lines(
            &out.join("fig11-group-size.svg"),
            &Lines {
                title: "RAID-5+DGC mean response vs parity group size",
                x_label: "parity group size",
                y_label: "normalized to RAID-5 at the same group size",
                xs: &xs,
                series: &series,
            },
        )
    }

    fn summary(&self, wall_s: f64, threads: usize) -> String {
        let mut s = String::from("# reproduce dgc: summary\n\n");
        let _ = writeln!(
            s,
            "{} traces, {} runs, {wall_s:.1} s on {threads} threads; preset dgc, bus {}, \
             group {GROUP}; experiment overrides: [{}]; user overrides: [{}]\n",
            self.names.len(),
            self.results.len(),
            self.bus.name(),
            EXPERIMENT_SETS.join(", "),
            self.sets.join(", ")
        );
        s.push_str("Change vs RAID-5 (negative = faster):\n\n| trace | variant |");
        for (m, _) in METRICS {
            let _ = write!(s, " {m} |");
        }
        s.push_str(" deferred GCs | GC runs |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (t, name) in self.names.iter().enumerate() {
            for (v, (vname, _, _)) in VARIANTS.iter().enumerate().skip(1) {
                let _ = write!(s, "| {name} | {vname} |");
                for (_, f) in METRICS {
                    let _ = write!(s, " {} |", pct(self.norm(t, v, GROUP, f)));
                }
                let o = self.at(t, v, GROUP);
                let _ = writeln!(s, " {} | {} |", o.deferred_gc, o.gc_runs);
            }
        }
        for (v, (vname, _, _)) in VARIANTS.iter().enumerate().skip(1) {
            let _ = write!(s, "| average | {vname} |");
            for (_, f) in METRICS {
                let _ = write!(s, " {} |", pct(self.avg_norm(v, GROUP, f)));
            }
            s.push_str(" | |\n");
        }
        if self.sweep {
            s.push_str("\nRAID-5+DGC mean response vs RAID-5 by parity group size (average):");
            for g in GROUPS {
                let _ = write!(s, " g{g}: {};", pct(self.avg_norm(1, g, METRICS[0].1)));
            }
            s.push('\n');
        }
        let (checked, bad) = (0..self.names.len()).fold((0, 0), |(c, b), t| {
            let o = self.at(t, 1, GROUP);
            (c + o.verified_reads, b + o.mismatches)
        });
        let _ = writeln!(
            s,
            "\nverify (raid5+dgc, group {GROUP}): {checked} reads checked, {bad} mismatches"
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_sweep_shares_the_main_runs() {
        // 4 variants + 2 variants x 3 groups, the two group-8 runs counted once.
        assert_eq!(keys(false, 2).len(), 2 * (4 + 6 - 2));
        assert_eq!(keys(true, 2).len(), 2 * 4);
    }
}
