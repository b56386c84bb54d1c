//! The CSVs and figures of `reproduce paq` (the paper's figures 8-15). Figure 11 has the
//! paper's average beside ours; the averages of figures 11 and 12 have a whisker over the
//! workloads they take.

use super::summary::stands_for;
use super::{
    Experiment, Metric, Row, Setting, NORMALIZED, PAPER, PAQ2, SCHEDULERS, SERIES_REQUESTS,
    SERIES_WORKLOADS, VAQ,
};
use crate::reproduce::common::{cell, mean, with_average};
use crate::reproduce::plot::{self, Bars, Lines, Mark, Range, Series};
use std::fmt::Write as _;
use std::path::Path;

/// The paper's average die idle time of PAQ2 against VAQ (§6.2, "about −20 %"), on
/// figure 11's axis.
const PAPER_IDLE: f64 = 0.8;

/// The rows of the main experiment: the preset, then the labelled sensitivities.
const MAIN_SETTINGS: [Setting; 3] = [Setting::Preset, Setting::DieSplit, Setting::OneSlot];

/// One sweep: its name in files, its title, the x label, the settings in order.
struct Study {
    file: &'static str,
    title: &'static str,
    x_label: &'static str,
    open: bool,
    points: Vec<(u32, Setting)>,
}

impl Experiment<'_> {
    pub(super) fn main_csv(&self) -> String {
        let mut s = String::from(
            "workload,stands_for,setting,scheduler,requests,read_share,iops,bandwidth_mib_s,\
             mean_us,p99_us,read_mean_us,write_mean_us,little_us,die_idle_s,\
             package_contention_ms,bus_contention_ms,channel_util,die_util,multi_plane_ops,\
             multi_plane_pages,commits_node,commits_cluster,commits_domain,commits_none,\
             clumps,packed_pages,gc_runs,erases",
        );
        for (name, _) in NORMALIZED {
            let _ = write!(s, ",{name}");
        }
        s.push('\n');
        for (w, name) in self.names.iter().enumerate() {
            for setting in MAIN_SETTINGS {
                for (sched, sname) in SCHEDULERS.iter().enumerate() {
                    let Some(r) = self.results.get(&(w, setting, sched)) else {
                        continue;
                    };
                    let queue = self.base.queue as f64;
                    let _ = write!(
                        s,
                        "{name},{},{},{sname},{},{:.4},{:.1},{:.2},{:.2},{:.2},{:.2},{:.2},{:.2},\
                         {:.3},{:.3},{:.3},{:.4},{:.4},{},{},{},{},{},{},{},{},{},{}",
                        stands_for(name).0,
                        setting.label(),
                        r.requests,
                        share(r.reads, r.requests),
                        r.iops,
                        r.mib_s,
                        r.mean_ns / 1e3,
                        r.p99_ns as f64 / 1e3,
                        r.read_mean_ns / 1e3,
                        r.write_mean_ns / 1e3,
                        queue / r.iops.max(1e-9) * 1e6,
                        r.idle_ns as f64 / 1e9,
                        r.package_ns as f64 / 1e6,
                        r.bus_ns as f64 / 1e6,
                        r.channel_util,
                        r.die_util,
                        r.mp_ops,
                        r.mp_pages,
                        r.commits[0],
                        r.commits[1],
                        r.commits[2],
                        r.commits[3],
                        r.clumps,
                        r.packed,
                        r.gc_runs,
                        r.erases,
                    );
                    for (_, f) in NORMALIZED {
                        let _ = write!(s, ",{}", cell(self.vs_vaq(w, setting, sched, f)));
                    }
                    s.push('\n');
                }
            }
        }
        s
    }

    /// The sweeps in the order they are written.
    fn studies(&self) -> Vec<Study> {
        let p = &self.points;
        let pts = |v: &[u32], f: fn(u32) -> Setting| v.iter().map(|&x| (x, f(x))).collect();
        vec![
            Study {
                file: "fig14-iops-queue",
                title: "IOPS vs queue size",
                x_label: "device queue depth (closed loop)",
                open: false,
                points: pts(&p.queues, Setting::Queue),
            },
            Study {
                file: "fig14-iops-channels",
                title: "IOPS vs channels",
                x_label: "channels",
                open: false,
                points: pts(&p.channels, Setting::Channels),
            },
            Study {
                file: "fig14-iops-dies",
                title: "IOPS vs dies per package",
                x_label: "dies per package",
                open: false,
                points: pts(&p.dies, Setting::Dies),
            },
            Study {
                file: "fig15-awt-queue",
                title: "Average waiting time vs queue size",
                x_label: "device queue depth (open loop)",
                open: true,
                points: pts(&p.queues, Setting::AwtQueue),
            },
            Study {
                file: "fig15-awt-channels",
                title: "Average waiting time vs channels",
                x_label: "channels (open loop)",
                open: true,
                points: pts(&p.channels, Setting::AwtChannels),
            },
        ]
    }

    pub(super) fn sweep_csv(&self) -> String {
        let mut s = String::from(
            "workload,study,value,scheduler,time_scale,iops,mean_us,awt_ms,host_queued,\
             requests,multi_plane_ops,multi_plane_pages,package_contention_ms,gc_runs\n",
        );
        for &w in &self.sweep {
            for study in self.studies() {
                for &(x, setting) in &study.points {
                    for &sched in &PAPER {
                        let Some(r) = self.at(w, setting, sched) else {
                            continue;
                        };
                        let scale = if study.open { self.scales[&w] } else { 1.0 };
                        let _ = writeln!(
                            s,
                            "{},{},{x},{},{scale:.6},{:.1},{:.2},{:.3},{},{},{},{},{:.3},{}",
                            self.names[w],
                            study.file,
                            SCHEDULERS[sched],
                            r.iops,
                            r.mean_ns / 1e3,
                            r.awt_ns / 1e6,
                            r.host_queued,
                            r.requests,
                            r.mp_ops,
                            r.mp_pages,
                            r.package_ns as f64 / 1e6,
                            r.gc_runs,
                        );
                    }
                }
            }
        }
        s
    }

    /// The value of a sweep point: IOPS closed, AWT in ms open.
    fn sweep_value(study: &Study, r: &Row) -> f64 {
        if study.open {
            r.awt_ns / 1e6
        } else {
            r.iops
        }
    }

    pub(super) fn sweep_figures(&self, out: &Path) -> Result<(), String> {
        for &w in &self.sweep {
            for study in self.studies() {
                let series: Vec<(String, Vec<f64>)> = PAPER
                    .iter()
                    .map(|&sched| {
                        let vals = study
                            .points
                            .iter()
                            .map(|&(_, st)| {
                                self.at(w, st, sched)
                                    .map_or(0.0, |r| Self::sweep_value(&study, r))
                            })
                            .collect();
                        (SCHEDULERS[sched].to_string(), vals)
                    })
                    .collect();
                let xs: Vec<String> = study.points.iter().map(|p| p.0.to_string()).collect();
                let title = format!("{} ({})", study.title, self.names[w]);
                let y_label = if study.open {
                    "AWT of the requests that waited (ms)"
                } else {
                    "IOPS"
                };
                let l = Lines {
                    title: &title,
                    x_label: study.x_label,
                    y_label,
                    xs: &xs,
                    series: &series,
                    ..Default::default()
                };
                let file = format!("{}-{}.svg", study.file, self.names[w]);
                plot::lines(&out.join(file), &l)?;
            }
        }
        Ok(())
    }

    pub(super) fn main_figures(&self, out: &Path) -> Result<(), String> {
        let names = self.names.to_vec();
        let absolute: [(&str, &str, &str, Metric); 3] = [
            ("fig8-bandwidth.svg", "Average bandwidth", "MiB/s", |r| {
                r.mib_s
            }),
            ("fig9-iops.svg", "I/Os per second", "IOPS", |r| r.iops),
            ("fig10-latency.svg", "Average latency", "ms", |r| {
                r.mean_ns / 1e6
            }),
        ];
        for (file, title, y_label, f) in absolute {
            let series: Vec<(String, Vec<f64>)> = PAPER
                .iter()
                .map(|&sched| {
                    let vals = (0..names.len()).map(|w| f(self.main(w, sched))).collect();
                    (SCHEDULERS[sched].to_string(), vals)
                })
                .collect();
            let b = Bars {
                title,
                y_label,
                groups: &names,
                series: &series,
                ..Default::default()
            };
            plot::bars(&out.join(file), &b)?;
        }
        let mut groups = names.clone();
        groups.push("average".into());
        let normalized: [(&str, &str, Metric); 3] = [
            ("fig11-idle.svg", "Die idle time", NORMALIZED[3].1),
            (
                "fig12-contention.svg",
                "Package contention time (bus wait behind another die of the package)",
                NORMALIZED[4].1,
            ),
            (
                "fig12b-bus-contention.svg",
                "Channel bus wait (all of it)",
                NORMALIZED[5].1,
            ),
        ];
        let avg = names.len();
        for (file, title, f) in normalized {
            let mut ranges = Vec::new();
            let series: Vec<(String, Vec<f64>)> = PAPER
                .iter()
                .enumerate()
                .map(|(i, &sched)| {
                    let v: Vec<Option<f64>> = (0..names.len())
                        .map(|w| self.vs_vaq(w, Setting::Preset, sched, f))
                        .collect();
                    ranges.extend(Range::over(i, avg, &v));
                    (SCHEDULERS[sched].to_string(), with_average(&v))
                })
                .collect();
            let paper: Vec<Mark> = (file == "fig11-idle.svg")
                .then_some(Mark {
                    series: PAQ2,
                    at: avg,
                    value: PAPER_IDLE,
                })
                .into_iter()
                .collect();
            let b = Bars {
                title,
                y_label: "normalized to VAQ",
                groups: &groups,
                series: &series,
                paper: &paper,
                ranges: &ranges,
                ..Default::default()
            };
            plot::bars(&out.join(file), &b)?;
        }
        Ok(())
    }

    /// The workloads of figure 13 among those run.
    fn series_workloads(&self) -> Vec<usize> {
        (0..self.names.len())
            .filter(|&w| SERIES_WORKLOADS.contains(&self.names[w].as_str()))
            .collect()
    }

    pub(super) fn series_csv(&self) -> String {
        let mut s = String::from("workload,request,vaq_us,paq2_us\n");
        for w in self.series_workloads() {
            let (v, p) = (&self.main(w, VAQ).series, &self.main(w, PAQ2).series);
            for (i, (a, b)) in v.iter().zip(p).enumerate() {
                let _ = writeln!(
                    s,
                    "{},{i},{:.1},{:.1}",
                    self.names[w],
                    *a as f64 / 1e3,
                    *b as f64 / 1e3
                );
            }
        }
        s
    }

    pub(super) fn series_figures(&self, out: &Path) -> Result<(), String> {
        for w in self.series_workloads() {
            let series: Vec<Series> = [VAQ, PAQ2]
                .iter()
                .map(|&sched| {
                    let ys: Vec<f64> = self
                        .main(w, sched)
                        .series
                        .iter()
                        .map(|&r| r as f64 / 1e3)
                        .collect();
                    Series {
                        name: SCHEDULERS[sched].to_string(),
                        mean: mean(&ys),
                        ys,
                    }
                })
                .collect();
            let title = format!(
                "Latency of the first {SERIES_REQUESTS} requests ({})",
                self.names[w]
            );
            let file = format!("fig13-timeseries-{}.svg", self.names[w]);
            plot::series(&out.join(file), &title, "latency (us)", &series)?;
        }
        Ok(())
    }
}

/// `part / all`, 0 for none.
fn share(part: u64, all: u64) -> f64 {
    if all == 0 {
        0.0
    } else {
        part as f64 / all as f64
    }
}
