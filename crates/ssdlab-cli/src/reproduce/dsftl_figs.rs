//! The figures of `reproduce dsftl`, numbered as the paper's (`plot`): the paper's
//! averages (§5.2) drawn beside ours, and a whisker over the workloads each average takes.

use super::common::{mean, ratio};
use super::dsftl::{
    Experiment, Row, Sweep, Workload, DSFTL, DUPS_PERMILLE, DYNAMIC, HIPA, HIPA_HALVES, LOADS_PCT,
    MAIN, SCHEMES, STATIC, SWEPT, TIME_DIVISORS,
};
use super::plot::{self, Bars, Lines, Mark, Range};
use std::path::Path;

/// A workload's read latency means something when it has at least this many reads.
pub(super) const MIN_READS: u64 = 100;

type Metric = fn(&Row) -> f64;
/// A series: its name and one value per group.
type Named = (String, Vec<f64>);
/// A value of a scheme (index) on a workload (index), if defined.
type SchemeValue<'a> = &'a dyn Fn(usize, usize) -> Option<f64>;
/// (file, title, y label, workloads, value, the paper's averages: (scheme, value)).
type Figure<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a [usize],
    SchemeValue<'a>,
    &'a [(usize, f64)],
);

/// The paper's averages (§5.2) on figures 10a and 10b's axis: DS-FTL's write latency
/// −24.7 % and read latency −35.3 % against static.
const PAPER_WRITE: [(usize, f64); 1] = [(DSFTL, 0.753)];
const PAPER_READ: [(usize, f64); 1] = [(DSFTL, 0.647)];
/// Figure 11: the plane duplicate rate of static, dynamic and DS-FTL, in %.
const PAPER_PLANE_DUP: [(usize, f64); 3] = [(STATIC, 18.5), (DYNAMIC, 13.5), (DSFTL, 12.2)];
/// Figure 14: the standard deviation of channel utilization, percentage points.
const PAPER_CHANNEL_STD: [(usize, f64); 3] = [(STATIC, 1.12), (HIPA, 1.11), (DSFTL, 0.61)];
/// Figure 13: DS-FTL's redirected reads and writes in %, on average and on the traces
/// the paper names: (group, reads, writes).
const PAPER_REDIRECTED: [(&str, f64, f64); 3] = [
    ("average", 8.21, 10.5),
    ("webmail-like", 15.6, 29.2),
    ("home3-like", 1.46, 1.48),
];

impl Experiment<'_> {
    /// Workloads whose read latency is compared (at least [`MIN_READS`] reads).
    pub fn read_workloads(&self) -> Vec<usize> {
        (0..self.names.len())
            .filter(|&w| self.at(w, STATIC).reads >= MIN_READS)
            .collect()
    }

    /// Metric `f` of scheme `s` over static's, on workload `w`.
    pub fn norm(&self, w: usize, s: usize, f: Metric) -> Option<f64> {
        ratio(f(self.at(w, s)), f(self.at(w, STATIC)))
    }

    /// Bars of the main schemes for `workloads`, each value `f`, plus their average, and
    /// the range of each average.
    fn scheme_bars(
        &self,
        workloads: &[usize],
        f: SchemeValue,
    ) -> (Vec<String>, Vec<Named>, Vec<Range>) {
        let mut groups: Vec<String> = workloads.iter().map(|&w| self.names[w].clone()).collect();
        groups.push("average".into());
        let mut ranges = Vec::new();
        let series = (0..MAIN)
            .map(|s| {
                let vals: Vec<Option<f64>> = workloads.iter().map(|&w| f(w, s)).collect();
                ranges.extend(Range::over(s, workloads.len(), &vals));
                let present: Vec<f64> = vals.iter().flatten().copied().collect();
                let mut v: Vec<f64> = vals.iter().map(|x| x.unwrap_or(0.0)).collect();
                v.push(if present.is_empty() {
                    0.0
                } else {
                    mean(&present)
                });
                (SCHEMES[s].0.to_string(), v)
            })
            .collect();
        (groups, series, ranges)
    }

    pub(super) fn main_figures(&self, out: &Path) -> Result<(), String> {
        let all: Vec<usize> = (0..self.names.len()).collect();
        let read = self.read_workloads();
        let figs: [Figure; 4] = [
            (
                "fig10a-write-latency.svg",
                "Normalized mean write latency",
                "normalized to static",
                &all,
                &|w, s| self.norm(w, s, |r| r.write_mean),
                &PAPER_WRITE,
            ),
            (
                "fig10b-read-latency.svg",
                "Normalized mean read latency",
                "normalized to static",
                &read,
                &|w, s| self.norm(w, s, |r| r.read_mean),
                &PAPER_READ,
            ),
            (
                "fig11-plane-duplicate-rate.svg",
                "Duplicate rate per plane (mean over planes)",
                "%",
                &all,
                &|w, s| Some(self.at(w, s).plane_dup * 100.0),
                &PAPER_PLANE_DUP,
            ),
            (
                "fig14-channel-std.svg",
                "Standard deviation of channel utilization",
                "percentage points",
                &all,
                &|w, s| Some(self.at(w, s).channel_std * 100.0),
                &PAPER_CHANNEL_STD,
            ),
        ];
        for (file, title, y_label, workloads, f, paper) in figs {
            let (groups, series, ranges) = self.scheme_bars(workloads, f);
            let paper: Vec<Mark> = paper
                .iter()
                .map(|&(series, value)| Mark {
                    series,
                    at: workloads.len(),
                    value,
                })
                .collect();
            plot::bars(
                &out.join(file),
                &Bars {
                    title,
                    y_label,
                    groups: &groups,
                    series: &series,
                    paper: &paper,
                    ranges: &ranges,
                    ..Default::default()
                },
            )?;
        }
        self.redirected_figure(out)?;
        self.plane_figure(out)?;
        self.utilization_figures(out)
    }

    /// Figure 13: DS-FTL's redirected reads and writes per workload and on average, with
    /// the paper's numbers where it gives them.
    fn redirected_figure(&self, out: &Path) -> Result<(), String> {
        let mut groups = self.names.to_vec();
        let avg = groups.len();
        groups.push("average".into());
        let mut ranges = Vec::new();
        let redirected: Vec<(String, Vec<f64>)> = [
            ("reads", (|r| r.redirected_reads) as Metric),
            ("writes", |r| r.redirected_writes),
        ]
        .iter()
        .enumerate()
        .map(|(i, (n, f))| {
            let v: Vec<f64> = (0..avg).map(|w| f(self.at(w, DSFTL)) * 100.0).collect();
            let defined: Vec<Option<f64>> = v.iter().copied().map(Some).collect();
            ranges.extend(Range::over(i, avg, &defined));
            let mut v = v;
            v.push(mean(&v));
            (n.to_string(), v)
        })
        .collect();
        let paper: Vec<Mark> = PAPER_REDIRECTED
            .iter()
            .filter_map(|&(name, r, w)| {
                let at = groups.iter().position(|g| g == name)?;
                Some([(0, r), (1, w)].map(|(series, value)| Mark { series, at, value }))
            })
            .flatten()
            .collect();
        plot::bars(
            &out.join("fig13-redirected.svg"),
            &Bars {
                title: "DS-FTL: redirected read and write requests",
                y_label: "% of read / write pages",
                groups: &groups,
                series: &redirected,
                paper: &paper,
                ranges: &ranges,
                ..Default::default()
            },
        )
    }

    /// Per-item fractions `f` of static and DS-FTL on workload `w`, in percent, with the
    /// items' indices as labels.
    fn static_and_dsftl(
        &self,
        w: usize,
        f: fn(&Row) -> &[f64],
    ) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
        let labels = (0..f(self.at(w, STATIC)).len())
            .map(|i| i.to_string())
            .collect();
        let series = [STATIC, DSFTL]
            .iter()
            .map(|&s| {
                (
                    SCHEMES[s].0.to_string(),
                    f(self.at(w, s)).iter().map(|x| x * 100.0).collect(),
                )
            })
            .collect();
        (labels, series)
    }

    /// Figure 12: per-plane duplicate rate, static against DS-FTL, on the home2 stand-in
    /// (or the first workload).
    fn plane_figure(&self, out: &Path) -> Result<(), String> {
        let w = self
            .workloads
            .iter()
            .position(|x| matches!(x, Workload::Standin(1)))
            .unwrap_or(0);
        let (xs, series) = self.static_and_dsftl(w, |r| &r.planes);
        let title = format!("Duplicate rate of each plane, {}", self.names[w]);
        plot::lines(
            &out.join("fig12-plane-duplicates.svg"),
            &Lines {
                title: &title,
                x_label: "plane",
                y_label: "%",
                xs: &xs,
                series: &series,
                ..Default::default()
            },
        )
    }

    /// Figure 2: utilization of each channel and chip under static allocation, on the
    /// workload where channels are most uneven, with DS-FTL beside it.
    fn utilization_figures(&self, out: &Path) -> Result<(), String> {
        let w = (0..self.names.len())
            .max_by(|&a, &b| {
                self.at(a, STATIC)
                    .channel_std
                    .total_cmp(&self.at(b, STATIC).channel_std)
            })
            .unwrap_or(0);
        for (file, what, f) in [
            (
                "fig2-channel-utilization.svg",
                "channel",
                (|r: &Row| &r.channel_util[..]) as fn(&Row) -> &[f64],
            ),
            ("fig2-chip-utilization.svg", "chip", |r: &Row| &r.chip_util),
        ] {
            let (groups, series) = self.static_and_dsftl(w, f);
            let title = format!("Utilization of each {what}, {}", self.names[w]);
            plot::bars(
                &out.join(file),
                &Bars {
                    title: &title,
                    y_label: "% busy",
                    groups: &groups,
                    series: &series,
                    ..Default::default()
                },
            )?;
        }
        Ok(())
    }

    pub(super) fn sweep_figures(&self, out: &Path) -> Result<(), String> {
        // HIPA's threshold: its read latency over static's, per workload with reads.
        let xs: Vec<String> = HIPA_HALVES
            .iter()
            .map(|&h| format!("{}", f64::from(h) / 2.0))
            .collect();
        let mut series: Vec<(String, Vec<f64>)> = self
            .read_workloads()
            .into_iter()
            .map(|w| {
                let base = self.at(w, STATIC).read_mean;
                let v = HIPA_HALVES
                    .iter()
                    .map(|&h| self.point(w, HIPA, Sweep::HipaHalves(h)).read_mean / base)
                    .collect();
                (self.names[w].clone(), v)
            })
            .collect();
        series.truncate(5);
        plot::lines(
            &out.join("sweep-hipa-threshold.svg"),
            &Lines {
                title: "HIPA: read latency vs its imbalance threshold",
                x_label: "threshold (program service times)",
                y_label: "read mean, normalized to static",
                xs: &xs,
                series: &series,
                ..Default::default()
            },
        )?;
        if let Some(w) = self
            .workloads
            .iter()
            .position(|x| matches!(x, Workload::Standin(SWEPT)))
        {
            for (file, title, x_label, points) in [
                (
                    "sweep-duplicate-ratio.svg",
                    "Read latency vs duplicate ratio",
                    "duplicate ratio of writes and pre-existing data",
                    DUPS_PERMILLE
                        .iter()
                        .map(|&d| (format!("{}", f64::from(d) / 1000.0), Sweep::DupPermille(d)))
                        .collect::<Vec<_>>(),
                ),
                (
                    "sweep-load.svg",
                    "Read latency vs offered load",
                    "offered load (fraction of the channels' page rate)",
                    LOADS_PCT
                        .iter()
                        .map(|&l| (format!("{}", f64::from(l) / 100.0), Sweep::LoadPct(l)))
                        .collect(),
                ),
            ] {
                let xs: Vec<String> = points.iter().map(|p| p.0.clone()).collect();
                let series: Vec<(String, Vec<f64>)> = [STATIC, HIPA, DSFTL]
                    .iter()
                    .map(|&s| {
                        (
                            SCHEMES[s].0.to_string(),
                            points
                                .iter()
                                .map(|p| self.point(w, s, p.1).read_mean / 1e3)
                                .collect(),
                        )
                    })
                    .collect();
                let title = format!("{title}, {}", self.names[w]);
                plot::lines(
                    &out.join(file),
                    &Lines {
                        title: &title,
                        x_label,
                        y_label: "read mean (us)",
                        xs: &xs,
                        series: &series,
                        ..Default::default()
                    },
                )?;
            }
        }
        let files: Vec<usize> = (0..self.names.len())
            .filter(|&w| matches!(self.workloads[w], Workload::File(_)))
            .collect();
        if !files.is_empty() {
            let xs: Vec<String> = TIME_DIVISORS.iter().map(|&d| format!("1/{d}")).collect();
            let series: Vec<(String, Vec<f64>)> = files
                .iter()
                .flat_map(|&w| {
                    [STATIC, DSFTL].map(|s| {
                        let v = TIME_DIVISORS
                            .iter()
                            .map(|&d| self.point(w, s, Sweep::TimeDivisor(d)).read_mean / 1e3)
                            .collect();
                        (format!("{} {}", self.names[w], SCHEMES[s].0), v)
                    })
                })
                .collect();
            plot::lines(
                &out.join("sweep-time-scale.svg"),
                &Lines {
                    title: "Trace files replayed faster",
                    x_label: "host.time_scale",
                    y_label: "read mean (us)",
                    xs: &xs,
                    series: &series,
                    ..Default::default()
                },
            )?;
        }
        Ok(())
    }
}
