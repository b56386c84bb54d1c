//! The sensitivity study of `reproduce dgc`: what accounts for the gap between DGC's gain
//! here and in the paper. Time scale {1, 0.5, 0.1} × `dgc.idle_gc_blocks` {1, 4, 16} ×
//! aging {the preset's uniform random overwrites, the same followed by a replay of the
//! trace itself}, each against RAID-5 with the same settings; with `idle_gc_blocks` > 1
//! also against RAID-5 with background GC to the same target (so that DGC is not
//! credited for plain idle-time GC). The gain is set against the baseline's GC share of
//! response time (T_GC / mean response). It runs on the MSR excerpts (the paper's traces).

use super::super::common::{cell, mean, ratio};
use super::super::plot::{self, Scatter};
use super::{Experiment, Spec, METRICS};
use ssdlab::ConfigBuilder;
use std::fmt::Write as _;
use std::path::Path;

/// Host time scales (arrival times multiplied: 0.1 is ten times the load).
pub(super) const SCALES: [f64; 3] = [1.0, 0.5, 0.1];
/// Free blocks above the threshold that idle-time collection restores.
pub(super) const IDLE_BLOCKS: [u32; 3] = [1, 4, 16];
/// Agings: the preset's, and the preset's followed by a zero-time replay of the trace.
pub(super) const AGINGS: [(&str, &[&str]); 2] = [
    ("uniform", &[]),
    ("uniform+trace", &["ftl.precondition.warmup=\"trace\""]),
];

/// What runs at a point of the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    /// RAID-5.
    Baseline,
    /// RAID-5+DGC collecting `IDLE_BLOCKS[i]` blocks when idle.
    Dgc(usize),
    /// RAID-5 with background GC to the target of `IDLE_BLOCKS[i]`.
    Background(usize),
}

/// One point of the study: time scale, aging, what runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Point {
    scale: usize,
    aging: usize,
    kind: Kind,
}

/// Every point of the study.
pub(super) fn points() -> Vec<Point> {
    let mut v = Vec::new();
    for scale in 0..SCALES.len() {
        for aging in 0..AGINGS.len() {
            let mut kinds = vec![Kind::Baseline];
            kinds.extend((0..IDLE_BLOCKS.len()).map(Kind::Dgc));
            kinds.extend((1..IDLE_BLOCKS.len()).map(Kind::Background));
            v.extend(kinds.into_iter().map(|kind| Point { scale, aging, kind }));
        }
    }
    v
}

impl Point {
    /// The run's name.
    pub(super) fn label(&self) -> String {
        let what = match self.kind {
            Kind::Baseline => "raid5".to_string(),
            Kind::Dgc(i) => format!("raid5+dgc idle{}", IDLE_BLOCKS[i]),
            Kind::Background(i) => format!("raid5+bg{}", IDLE_BLOCKS[i]),
        };
        format!(
            "{what} scale{} {}",
            SCALES[self.scale], AGINGS[self.aging].0
        )
    }

    /// The overrides of the `dgc` preset.
    pub(super) fn sets(&self) -> Vec<String> {
        let mut v = vec![
            "scheduler.name=async-fifo".to_string(),
            format!("host.time_scale={}", SCALES[self.scale]),
        ];
        v.extend(AGINGS[self.aging].1.iter().map(|s| s.to_string()));
        match self.kind {
            Kind::Baseline => v.push("dgc.enabled=false".into()),
            Kind::Dgc(i) => {
                v.push("dgc.enabled=true".into());
                v.push(format!("dgc.idle_gc_blocks={}", IDLE_BLOCKS[i]));
            }
            Kind::Background(i) => {
                v.push("dgc.enabled=false".into());
                v.push("ftl.gc.background=true".into());
                v.push(format!(
                    "ftl.gc.background_free_ratio={}",
                    background_ratio(IDLE_BLOCKS[i])
                ));
            }
        }
        v
    }
}

/// The background free-block ratio whose target is `k` blocks above the `dgc` preset's
/// GC threshold (the target of `dgc.idle_gc_blocks = k`).
fn background_ratio(k: u32) -> f64 {
    let cfg = ConfigBuilder::new()
        .preset("dgc")
        .expect("the dgc preset exists")
        .build()
        .expect("the dgc preset builds");
    let blocks = f64::from(cfg.geometry.blocks_per_plane);
    let threshold = (cfg.ftl.gc.threshold_free_ratio * blocks)
        .ceil()
        .max(f64::from(cfg.ftl.gc.reserve_blocks + 1));
    (threshold + f64::from(k) - 0.5) / blocks
}

impl Experiment<'_> {
    fn point(&self, t: usize, scale: usize, aging: usize, kind: Kind) -> &super::Row {
        self.get(t, Spec::Sens(Point { scale, aging, kind }))
    }

    /// Change of metric `m` (0: mean, 3: p99) of `kind` against RAID-5 at a point.
    fn sens_change(
        &self,
        t: usize,
        scale: usize,
        aging: usize,
        kind: Kind,
        m: usize,
    ) -> Option<f64> {
        let f = METRICS[m].1;
        ratio(
            f(self.point(t, scale, aging, kind)),
            f(self.point(t, scale, aging, Kind::Baseline)),
        )
        .map(|r| r - 1.0)
    }

    pub(super) fn sens_csv(&self) -> String {
        let mut s = String::from(
            "trace,time_scale,aging,variant,idle_gc_blocks,mean_us,p99_us,gc_runs,\
             background_gc_runs,deferred_gc,t_gc_us,baseline_gc_share,mean_change,p99_change\n",
        );
        for t in self.msr() {
            let name = &self.names[t];
            for p in points() {
                let o = self.get(t, Spec::Sens(p));
                let base = self.point(t, p.scale, p.aging, Kind::Baseline);
                let (variant, k) = match p.kind {
                    Kind::Baseline => ("raid5", String::new()),
                    Kind::Dgc(i) => ("raid5+dgc", IDLE_BLOCKS[i].to_string()),
                    Kind::Background(i) => ("raid5+bg", IDLE_BLOCKS[i].to_string()),
                };
                let _ = writeln!(
                    s,
                    "{name},{},{},{variant},{k},{:.3},{:.3},{},{},{},{:.3},{},{},{}",
                    SCALES[p.scale],
                    AGINGS[p.aging].0,
                    o.mean[0] / 1e3,
                    o.p99[0] as f64 / 1e3,
                    o.gc_runs,
                    o.background_gc,
                    o.deferred_gc,
                    o.t_gc / 1e3,
                    cell(base.gc_share()),
                    cell(self.sens_change(t, p.scale, p.aging, p.kind, 0)),
                    cell(self.sens_change(t, p.scale, p.aging, p.kind, 3)),
                );
            }
        }
        s
    }

    /// DGC's gain (idle blocks 1 and 16) against the baseline's GC share, per trace,
    /// scale and aging.
    pub(super) fn sens_figure(&self, out: &Path) -> Result<(), String> {
        let mut series = Vec::new();
        for (a, (aging, _)) in AGINGS.iter().enumerate() {
            for i in [0, IDLE_BLOCKS.len() - 1] {
                let mut pts = Vec::new();
                for t in self.msr() {
                    for scale in 0..SCALES.len() {
                        let share = self.point(t, scale, a, Kind::Baseline).gc_share();
                        let gain = self.sens_change(t, scale, a, Kind::Dgc(i), 0);
                        if let (Some(x), Some(y)) = (share, gain) {
                            pts.push((100.0 * x, 100.0 * y));
                        }
                    }
                }
                series.push((format!("{aging}, idle {}", IDLE_BLOCKS[i]), pts));
            }
        }
        plot::scatter(
            &out.join("fig-sens-gain-vs-gc-share.svg"),
            &Scatter {
                title: "RAID-5+DGC against RAID-5: gain vs the baseline's GC share",
                x_label: "RAID-5's T_GC / mean response (%)",
                y_label: "change of mean response (%)",
                series: &series,
            },
        )
    }

    /// The study's averages over `traces`, as Markdown.
    pub(super) fn sens_summary(&self, s: &mut String, traces: &[usize], what: &str) {
        let avg = |f: &dyn Fn(usize) -> Option<f64>| {
            let v: Vec<f64> = traces.iter().filter_map(|&t| f(t)).collect();
            mean(&v)
        };
        let pct = |x: f64| {
            if x.is_nan() {
                "n/a".to_string()
            } else {
                format!("{:+.1} %", 100.0 * x)
            }
        };
        let _ = writeln!(
            s,
            "\nAverages over {what}: RAID-5's mean response (µs) and GC share (T_GC / mean), \
             then the change of mean response (and p99) of RAID-5+DGC collecting 1, 4 or 16 \
             blocks when idle, and of RAID-5 with background GC to the same 4 and 16 blocks.\n"
        );
        s.push_str(
            "| time scale | aging | RAID-5 mean | GC share | DGC idle 1 | DGC idle 4 | DGC idle 16 | bg GC 4 | bg GC 16 |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        for (scale, scale_v) in SCALES.iter().enumerate() {
            for (aging, (aging_name, _)) in AGINGS.iter().enumerate() {
                let base = avg(&|t| Some(self.point(t, scale, aging, Kind::Baseline).mean[0]));
                let share = avg(&|t| self.point(t, scale, aging, Kind::Baseline).gc_share());
                let change = |kind: Kind| {
                    format!(
                        "{} ({})",
                        pct(avg(&|t| self.sens_change(t, scale, aging, kind, 0))),
                        pct(avg(&|t| self.sens_change(t, scale, aging, kind, 3)))
                    )
                };
                let _ = writeln!(
                    s,
                    "| {} | {} | {:.1} | {:.1} % | {} | {} | {} | {} | {} |",
                    scale_v,
                    aging_name,
                    base / 1e3,
                    100.0 * share,
                    change(Kind::Dgc(0)),
                    change(Kind::Dgc(1)),
                    change(Kind::Dgc(2)),
                    change(Kind::Background(1)),
                    change(Kind::Background(2)),
                );
            }
        }
    }
}
