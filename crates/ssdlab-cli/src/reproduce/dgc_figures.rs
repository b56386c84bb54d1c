//! The figures of `reproduce dgc`: 4 (response-time breakdown), 8 and 9 (mean and p99
//! response normalized to RAID-5, with the paper's averages beside ours and a whisker
//! over the traces each average takes), 10 (deferred GCs) and 11 (gain against the
//! parity group size).

use super::super::plot::{self, Bars, Lines, Mark, Range};
use super::{Experiment, Metric, GROUP, GROUPS, METRICS, VARIANTS};
use std::path::Path;

/// The paper's average change of RAID-5+DGC against RAID-5 (§5.2: mean −22.9 %, p99
/// −48.9 %, over its five MSR volumes), on figures 8 and 9's axis.
const PAPER: [f64; 2] = [0.771, 0.511];
/// RAID-5+DGC in [`VARIANTS`].
const DGC: usize = 1;

impl Experiment<'_> {
    pub(super) fn main_figures(&self, out: &Path) -> Result<(), String> {
        let mut groups: Vec<String> = self.names.to_vec();
        groups.push("average".into());
        let avg = self.names.len();
        for ((file, title, f), paper) in [
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
        ]
        .into_iter()
        .zip(PAPER)
        {
            let mut ranges = Vec::new();
            let series: Vec<(String, Vec<f64>)> = VARIANTS
                .iter()
                .enumerate()
                .map(|(v, (name, _))| {
                    let norms: Vec<Option<f64>> = (0..self.names.len())
                        .map(|t| self.norm(t, v, GROUP, f))
                        .collect();
                    ranges.extend(Range::over(v, avg, &norms));
                    let mut vals: Vec<f64> = norms.iter().map(|x| x.unwrap_or(0.0)).collect();
                    vals.push(self.avg_norm(v, GROUP, f).unwrap_or(0.0));
                    (name.to_string(), vals)
                })
                .collect();
            let b = Bars {
                title,
                y_label: "normalized to RAID-5",
                groups: &groups,
                series: &series,
                paper: &[Mark {
                    series: DGC,
                    at: avg,
                    value: paper,
                }],
                ranges: &ranges,
                ..Default::default()
            };
            plot::bars(&out.join(file), &b)?;
        }
        let names = self.names.to_vec();
        let deferred: Vec<(String, Vec<f64>)> = [1, 4]
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
                ..Default::default()
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
                title: "Response time breakdown (mean, all requests; log scale)",
                y_label: "us",
                groups: &names,
                series: &breakdown,
                log_y: true,
                ..Default::default()
            },
        )
    }

    pub(super) fn group_figure(&self, out: &Path) -> Result<(), String> {
        let f = METRICS[0].1;
        let mut series: Vec<(String, Vec<f64>)> = self
            .names
            .iter()
            .enumerate()
            .map(|(t, n)| {
                let vals = GROUPS
                    .iter()
                    .map(|&g| self.norm(t, DGC, g, f).unwrap_or(0.0))
                    .collect();
                (n.clone(), vals)
            })
            .collect();
        // Every trace the average takes is a line of its own: no whiskers.
        series.push((
            "average".into(),
            GROUPS
                .iter()
                .map(|&g| self.avg_norm(DGC, g, f).unwrap_or(0.0))
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
                ..Default::default()
            },
        )
    }
}
