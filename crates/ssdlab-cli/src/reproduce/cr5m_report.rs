//! The outputs of `reproduce cr5m`: CSVs, figures and the summary with the paper's
//! numbers beside ours (§IV-B to §IV-E).

use super::super::common::{cell, ratio};
use super::super::plot::{self, Bars, Lines, Mark};
use super::{
    out_file, sweep_point, Key, Row, Variant, ARCHS, SIZES_KIB, SSDS, SWEEP_POINTS, WRITE_PCTS,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

pub(super) const PURE: usize = 0;
pub(super) const CR1: usize = 1;
pub(super) const CR4: usize = 2;
pub(super) const CR5: usize = 3;
pub(super) const CR5M: usize = 4;

/// The paper's trace a source stands for, with §IV-B's CR5M-vs-CR5 gains in mean
/// response time (overall, and writes where stated).
pub(super) fn paper_trace(name: &str) -> Option<(&'static str, f64, Option<f64>)> {
    let n = name.to_ascii_lowercase();
    [
        ("financial1", "Financial1", 0.06, None),
        ("radius9", "Radius9", 0.258, Some(0.256)),
        ("atto", "ATTO", 0.085, None),
        ("build", "Build", 0.226, Some(0.272)),
        ("exchange", "Exchange", 0.086, None),
    ]
    .into_iter()
    .find(|(k, ..)| n.contains(k))
    .map(|(_, p, all, write)| (p, all, write))
}

/// `a/b − 1` as a signed percentage string (negative = `a` is lower).
pub(super) fn change(a: f64, b: f64) -> String {
    ratio(a, b).map_or("n/a".into(), |r| format!("{:+.1} %", (r - 1.0) * 100.0))
}

pub(super) fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1e3)
}

pub(in crate::reproduce) struct Experiment<'a> {
    pub names: &'a [String],
    /// Sources `0..traces` are traces; the rest are sweep workloads.
    pub traces: usize,
    /// The synthetic sweeps ran.
    pub sweeps: bool,
    pub results: &'a BTreeMap<Key, Row>,
    pub quick: bool,
    pub sets: &'a [String],
    pub verify_trace: usize,
}

impl Experiment<'_> {
    pub(super) fn at(&self, t: usize, s: usize, a: usize, v: Variant) -> Option<&Row> {
        self.results.get(&(t, s, a, v))
    }

    pub(super) fn main(&self, t: usize, s: usize, a: usize) -> &Row {
        &self.results[&(t, s, a, Variant::Main)]
    }

    pub(super) fn ssds(&self) -> usize {
        if self.quick {
            1
        } else {
            SSDS.len()
        }
    }

    /// Mean of metric class `c` of `a` over the same run of `base`.
    pub(super) fn norm(
        &self,
        t: usize,
        s: usize,
        a: usize,
        base: usize,
        v: Variant,
        c: usize,
    ) -> Option<f64> {
        ratio(
            self.at(t, s, a, v)?.mean[c],
            self.at(t, s, base, v)?.mean[c],
        )
    }

    pub fn write_all(&self, out: &Path, wall_s: f64, threads: usize) -> Result<(), String> {
        out_file(
            out,
            "cr5m-main.csv",
            self.main_csv(|_, v| !matches!(v, Variant::Dram | Variant::Sectors)),
        )?;
        // The buffer's sensitivity: SSD1 without it (the preset) and with it.
        let dram = |ssd, v| ssd == 0 && matches!(v, Variant::Main | Variant::Dram);
        out_file(out, "cr5m-dram.csv", self.main_csv(dram))?;
        // Sector transfers behind the same buffer: SSD1 with the buffer, without and with.
        let sectors = |ssd, v| ssd == 0 && matches!(v, Variant::Dram | Variant::Sectors);
        out_file(out, "cr5m-sectors.csv", self.main_csv(sectors))?;
        if self.sweeps {
            out_file(out, "cr5m-synth.csv", self.synth_csv())?;
        }
        self.figures(out)?;
        out_file(out, "cr5m-summary.md", self.summary(wall_s, threads))
    }

    /// The per-run table of the traces' runs that `keep(ssd, variant)` selects.
    fn main_csv(&self, keep: impl Fn(usize, Variant) -> bool) -> String {
        let mut s = String::from(
            "trace,ssd,arch,variant,requests,mean_us,read_mean_us,write_mean_us,p99_us,\
             norm_pure_all,norm_pure_read,norm_pure_write,norm_cr5_all,pre_reads_per_write,\
             pre_reads_with_reclaim,wpc_data_min,wpc_data_mean,wpc_data_max,wpc_all_mean,\
             mirror_chip_writes_mean,mirror_write_share,mirror_read_share,mirror_write_stripes,\
             reclaims_update,reclaims_full,reclaims_capacity,reclaims_pressure,\
             entries_at_end,gc_runs,write_amplification,materialized_stripes,verified_reads,\
             mismatches,degraded_reads,unrecoverable\n",
        );
        for (&(t, ssd, a, v), o) in self.results.range(..(self.traces, 0, 0, Variant::Main)) {
            if !keep(ssd, v) {
                continue;
            }
            let n = |c| cell(self.norm(t, ssd, a, PURE, v, c));
            let _ = writeln!(
                s,
                "{},{},{},{v:?},{},{},{},{},{:.1},{},{},{},{},{:.4},{:.4},{},{:.1},{},{:.1},{:.1},{:.4},{:.4},{},{},{},{},{},{},{},{:.4},{},{},{},{},{}",
                self.names[t],
                SSDS[ssd].0,
                ARCHS[a],
                o.requests,
                us(o.mean[0]),
                us(o.mean[1]),
                us(o.mean[2]),
                o.p99 as f64 / 1e3,
                n(0),
                n(1),
                n(2),
                cell(self.norm(t, ssd, a, CR5, v, 0)),
                o.pre_reads,
                o.pre_reads_reclaim,
                o.wpc_data.min,
                o.wpc_data.mean,
                o.wpc_data.max,
                o.wpc_all.mean,
                o.mirror_chip_writes,
                o.mw_share,
                o.mirror_read_share,
                o.mw_stripes,
                o.reclaims[0],
                o.reclaims[1],
                o.reclaims[2],
                o.reclaims[3],
                o.entries_end,
                o.gc_runs,
                o.write_amp,
                o.materialized,
                o.verified,
                o.mismatches,
                o.degraded_reads,
                o.unrecoverable,
            );
        }
        s
    }

    fn synth_csv(&self) -> String {
        let mut s = String::from(
            "figure,write_pct,mean_kib,arch,requests,mean_us,read_mean_us,write_mean_us,\
             norm_pure_all,norm_cr5_all,pre_reads_per_write,mirror_write_share\n",
        );
        for i in 0..SWEEP_POINTS {
            let w = self.traces + i;
            let (pct, kib) = sweep_point(i);
            let fig = if i < WRITE_PCTS.len() { 9 } else { 10 };
            for (a, arch) in ARCHS.iter().enumerate() {
                let o = self.main(w, 0, a);
                let _ = writeln!(
                    s,
                    "fig{fig},{pct},{kib},{arch},{},{},{},{},{},{},{:.4},{:.4}",
                    o.requests,
                    us(o.mean[0]),
                    us(o.mean[1]),
                    us(o.mean[2]),
                    cell(self.norm(w, 0, a, PURE, Variant::Main, 0)),
                    cell(self.norm(w, 0, a, CR5, Variant::Main, 0)),
                    o.pre_reads,
                    o.mw_share,
                );
            }
        }
        s
    }

    fn figures(&self, out: &Path) -> Result<(), String> {
        let traces: Vec<String> = self.names[..self.traces].to_vec();
        let classes = [
            ("", 0, "all requests"),
            ("-read", 1, "reads"),
            ("-write", 2, "writes"),
        ];
        for (s, ssd) in SSDS.iter().enumerate().take(self.ssds()) {
            for (suffix, c, what) in classes {
                let series: Vec<(String, Vec<f64>)> = ARCHS
                    .iter()
                    .enumerate()
                    .map(|(a, name)| {
                        let v = (0..self.traces)
                            .map(|t| self.norm(t, s, a, PURE, Variant::Main, c).unwrap_or(0.0))
                            .collect();
                        (name.to_string(), v)
                    })
                    .collect();
                let title = format!("{}: mean response time of {what}", ssd.0);
                let paper = if s == 0 {
                    self.paper_marks(c)
                } else {
                    Vec::new()
                };
                plot::bars(
                    &out.join(format!("fig{}-ssd{}{suffix}.svg", 6 + s, s + 1)),
                    &Bars {
                        title: &title,
                        y_label: "normalized to the pure SSD",
                        groups: &traces,
                        series: &series,
                        paper: &paper,
                        paper_label: "paper: its CR5M gain over CR5, from our CR5",
                        ..Default::default()
                    },
                )?;
            }
        }
        let per_trace = |f: &dyn Fn(&Row) -> f64, a: usize| -> Vec<f64> {
            (0..self.traces).map(|t| f(self.main(t, 0, a))).collect()
        };
        plot::bars(
            &out.join("fig11-prereads.svg"),
            &Bars {
                title: "Pre-reads per write request (SSD1)",
                y_label: "pages read for parity per write",
                groups: &traces,
                series: &[
                    ("cr5".into(), per_trace(&|r| r.pre_reads, CR5)),
                    ("cr5m".into(), per_trace(&|r| r.pre_reads, CR5M)),
                ],
                ..Default::default()
            },
        )?;
        plot::bars(
            &out.join("fig12-writes-per-channel.svg"),
            &Bars {
                title: "Pages written per channel (SSD1, data chips; min/max in the CSV)",
                y_label: "pages programmed",
                groups: &traces,
                series: &[
                    ("cr5".into(), per_trace(&|r| r.wpc_data.mean, CR5)),
                    ("cr5m".into(), per_trace(&|r| r.wpc_data.mean, CR5M)),
                    (
                        "cr5m mirror chip".into(),
                        per_trace(&|r| r.mirror_chip_writes, CR5M),
                    ),
                ],
                ..Default::default()
            },
        )?;
        if !self.sweeps {
            return Ok(());
        }
        self.sweep_figure(out, 0..WRITE_PCTS.len(), "fig9-write-ratio.svg", true)?;
        self.sweep_figure(
            out,
            WRITE_PCTS.len()..WRITE_PCTS.len() + SIZES_KIB.len(),
            "fig10-request-size.svg",
            false,
        )
    }

    /// The paper's CR5M-vs-CR5 gains of §IV-B on SSD1's axis, metric class `c` (all
    /// requests or writes): our CR5 bar reduced by the paper's gain, on the CR5M bar of
    /// each trace that stands for one of the paper's.
    fn paper_marks(&self, c: usize) -> Vec<Mark> {
        (0..self.traces)
            .filter_map(|t| {
                let (_, all, write) = paper_trace(&self.names[t])?;
                let gain = match c {
                    0 => all,
                    2 => write?,
                    _ => return None,
                };
                let cr5 = self.norm(t, 0, CR5, PURE, Variant::Main, c)?;
                Some(Mark {
                    series: CR5M,
                    at: t,
                    value: cr5 * (1.0 - gain),
                })
            })
            .collect()
    }

    fn sweep_figure(
        &self,
        out: &Path,
        points: std::ops::Range<usize>,
        file: &str,
        by_write: bool,
    ) -> Result<(), String> {
        let xs: Vec<String> = points
            .clone()
            .map(|i| {
                let (w, kib) = sweep_point(i);
                if by_write {
                    format!("{w} %")
                } else {
                    format!("{kib} KiB")
                }
            })
            .collect();
        let series: Vec<(String, Vec<f64>)> = ARCHS
            .iter()
            .enumerate()
            .map(|(a, name)| {
                let v = points
                    .clone()
                    .map(|i| {
                        let w = self.traces + i;
                        self.norm(w, 0, a, PURE, Variant::Main, 0).unwrap_or(0.0)
                    })
                    .collect();
                (name.to_string(), v)
            })
            .collect();
        let (title, x_label) = if by_write {
            (
                "Mean response vs write share (SSD1, 16 KiB, 240 req/s)",
                "writes",
            )
        } else {
            (
                "Mean response vs request size (SSD1, 60 % writes, 240 req/s)",
                "mean request size",
            )
        };
        plot::lines(
            &out.join(file),
            &Lines {
                title,
                x_label,
                y_label: "normalized to the pure SSD",
                xs: &xs,
                series: &series,
                ..Default::default()
            },
        )
    }
}
