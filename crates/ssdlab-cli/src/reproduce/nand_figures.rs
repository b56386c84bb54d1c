//! The CSVs and figures of `reproduce nand`: the write cliff with its levels, and the
//! read-latency distributions with and without suspend.

use super::summary::mb;
use super::{Bin, Experiment, Outcome, BIN_BYTES, SETUPS, SUSPEND};
use crate::reproduce::common::median;
use crate::reproduce::plot::{self, Curve, Curves};
use std::fmt::Write as _;
use std::path::Path;

/// A level of the write cliff is found by the median of this many bins from its start.
pub(super) const LEVEL_WINDOW: usize = 9;
/// A bin starts a new level when it and the median of the [`LEVEL_WINDOW`] bins from it
/// both differ from the current level's reference by more than this share.
pub(super) const LEVEL_TOLERANCE: f64 = 0.15;

/// A level of the write cliff: bins `first..=last`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Level {
    pub first: usize,
    pub last: usize,
    /// Median of its bins' throughput, MB/s.
    pub median: f64,
    /// Its bytes over its time, MB/s.
    pub rate: f64,
    /// Its slowest and fastest bin, MB/s.
    pub min: f64,
    pub max: f64,
}

/// The levels of the curve `bins`. The first level's reference is the median of the
/// first [`LEVEL_WINDOW`] bins; bin `i` starts a new level when its throughput and the
/// median of bins `i..i + LEVEL_WINDOW` both differ from the reference by more than
/// [`LEVEL_TOLERANCE`] (a whole window must be left), and that median is the new
/// reference. A single odd bin does not start a level, nor does a level that alternates
/// around its median; a transition bin joins the level it leads into.
pub(super) fn levels(bins: &[Bin]) -> Vec<Level> {
    let x: Vec<f64> = bins.iter().map(Bin::mb_s).collect();
    let n = x.len();
    if n == 0 {
        return Vec::new();
    }
    let ahead = |i: usize| median(&x[i..(i + LEVEL_WINDOW).min(n)]);
    let off = |v: f64, r: f64| (v - r).abs() > LEVEL_TOLERANCE * r;
    let mut starts = vec![0];
    let mut reference = ahead(0);
    for (i, &v) in x.iter().enumerate().skip(1) {
        if i + LEVEL_WINDOW <= n && off(v, reference) && off(ahead(i), reference) {
            starts.push(i);
            reference = ahead(i);
        }
    }
    let ends = starts.iter().skip(1).map(|&s| s - 1).chain([n - 1]);
    starts
        .iter()
        .zip(ends)
        .map(|(&first, last)| {
            let v = &x[first..=last];
            let (a, b) = (&bins[first], &bins[last]);
            let ns = b.end_ns.saturating_sub(a.start_ns).max(1);
            Level {
                first,
                last,
                median: median(v),
                rate: (b.end_bytes - a.start_bytes) as f64 / ns as f64 * 1e3,
                min: v.iter().copied().fold(f64::INFINITY, f64::min),
                max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            }
        })
        .collect()
}

/// Gigabytes (10^9 B) of `bytes`.
pub(super) fn gb(bytes: u64) -> f64 {
    bytes as f64 / 1e9
}

/// The quantiles the CSV lists: every 0.1 %, then 99.95 %, 99.99 % and the largest.
pub(super) fn quantiles() -> Vec<f64> {
    let mut q: Vec<f64> = (1..1000).map(|k| f64::from(k) / 1000.0).collect();
    q.extend([0.9995, 0.9999, 1.0]);
    q
}

/// The value at quantile `q` of the sorted `v` (nearest rank), ns; 0 when empty.
pub(super) fn at_quantile(v: &[u64], q: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let rank = (q * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// The label of a tick of a log10 axis of microseconds: 1 µs, 10 µs, ... 1 ms, ... 1 s.
fn latency_tick(v: f64) -> String {
    if (v - v.round()).abs() > 1e-9 {
        return String::new();
    }
    let e = v.round() as i32;
    let (unit, shift) = match e {
        i32::MIN..=2 => ("µs", 0),
        3..=5 => ("ms", 3),
        _ => ("s", 6),
    };
    format!("{} {unit}", plot_number(10f64.powi(e - shift)))
}

/// A tick number without a needless fraction.
fn plot_number(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

impl Experiment {
    /// The name of the mixed run of setup `s` with suspend setting `p`.
    pub(super) fn run_name(s: usize, p: usize) -> String {
        format!("{} suspend={}", SETUPS[s].name, SUSPEND[p])
    }

    /// The mixed runs with their setup and suspend indices.
    pub(super) fn mixed_runs(&self) -> impl Iterator<Item = (usize, usize, &Outcome)> {
        self.mixed
            .iter()
            .enumerate()
            .flat_map(|(s, pair)| pair.iter().enumerate().map(move |(p, o)| (s, p, o)))
    }

    pub(super) fn cliff_csv(&self) -> String {
        let levels = levels(&self.cliff.bins);
        let mut s = String::from("bin,start_gb,end_gb,start_s,end_s,mb_s,level\n");
        for (i, b) in self.cliff.bins.iter().enumerate() {
            let level = levels.iter().position(|l| l.first <= i && i <= l.last);
            let _ = writeln!(
                s,
                "{i},{:.6},{:.6},{:.6},{:.6},{:.1},{}",
                gb(b.start_bytes),
                gb(b.end_bytes),
                b.start_ns as f64 / 1e9,
                b.end_ns as f64 / 1e9,
                b.mb_s(),
                level.map_or(0, |l| l + 1),
            );
        }
        s
    }

    pub(super) fn cliff_figure(&self, out: &Path) -> Result<(), String> {
        let bins = &self.cliff.bins;
        let levels = levels(bins);
        let curve: Vec<(f64, f64)> = bins.iter().map(|b| (gb(b.end_bytes), b.mb_s())).collect();
        let steps: Vec<(f64, f64)> = levels
            .iter()
            .flat_map(|l| {
                let (a, b) = (gb(bins[l.first].start_bytes), gb(bins[l.last].end_bytes));
                [(a, l.median), (b, l.median)]
            })
            .collect();
        let medians: Vec<String> = levels.iter().map(|l| mb(l.median)).collect();
        let curves = [
            Curve {
                name: format!("each {} GB written", BIN_BYTES / 1_000_000_000),
                points: curve,
                color: 1,
                dashed: false,
            },
            Curve {
                name: format!("median of each level: {} MB/s", medians.join(" / ")),
                points: steps,
                color: 2,
                dashed: true,
            },
        ];
        let c = Curves {
            title: "Write cliff: 128 KiB sequential writes, queue depth 32, fresh tlc-1tb",
            x_label: "data written (GB)",
            y_label: "write throughput (MB/s)",
            curves: &curves,
            ..Default::default()
        };
        plot::curves(&out.join("write-cliff.svg"), &c)
    }

    pub(super) fn cdf_csv(&self) -> String {
        let mut s = String::from("quantile");
        for (i, p, _) in self.mixed_runs() {
            let _ = write!(s, ",{}_suspend_{}_us", SETUPS[i].name, SUSPEND[p]);
        }
        s.push('\n');
        for q in quantiles() {
            let _ = write!(s, "{q:.4}");
            for (_, _, o) in self.mixed_runs() {
                let _ = write!(s, ",{:.2}", at_quantile(&o.reads_ns, q) as f64 / 1e3);
            }
            s.push('\n');
        }
        s
    }

    pub(super) fn cdf_figure(&self, out: &Path) -> Result<(), String> {
        let curves: Vec<Curve> = self
            .mixed_runs()
            .map(|(s, p, o)| Curve {
                name: format!("{}: suspend {}", SETUPS[s].label, SUSPEND[p]),
                points: quantiles()
                    .into_iter()
                    .filter(|&q| q < 1.0)
                    .map(|q| (at_quantile(&o.reads_ns, q) as f64 / 1e3, q))
                    .collect(),
                color: s + 1,
                dashed: p == 1,
            })
            .collect();
        let c = Curves {
            title:
                "Host read latency, 16 KiB random reads and writes (70 % reads) on a filled tlc-1tb",
            x_label: "read response time (log scale)",
            y_label: "reads at or below (%)",
            curves: &curves,
            log_x: true,
            x_tick: Some(latency_tick),
            percentile_y: true,
            ..Default::default()
        };
        plot::curves(&out.join("suspend-cdf.svg"), &c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bins of 1 GB at the given MB/s, back to back.
    fn curve(mb_s: &[f64]) -> Vec<Bin> {
        let mut t = 0;
        mb_s.iter()
            .enumerate()
            .map(|(i, &v)| {
                let ns = (1e9 / v * 1e3) as u64;
                let b = Bin {
                    start_bytes: i as u64 * BIN_BYTES,
                    end_bytes: (i as u64 + 1) * BIN_BYTES,
                    start_ns: t,
                    end_ns: t + ns,
                };
                t += ns;
                b
            })
            .collect()
    }

    #[test]
    fn levels_start_at_a_lasting_change_and_keep_an_alternating_level_whole() {
        let mut v = vec![6500.0; 20];
        v.push(4400.0); // a transition bin
        v.extend([2300.0; 30]);
        v.push(6000.0); // a single odd bin
        v.extend([2300.0; 10]);
        for _ in 0..10 {
            v.extend([450.0, 760.0, 2430.0]);
        }
        let l = levels(&curve(&v));
        let spans: Vec<_> = l.iter().map(|l| (l.first, l.last)).collect();
        assert_eq!(spans, [(0, 19), (20, 61), (62, 91)]);
        // Whole nanoseconds per bin: the values come back within 0.01 MB/s.
        let near = |a: f64, b: f64| assert!((a - b).abs() < 0.01, "{a} is not {b}");
        near(l[0].median, 6500.0);
        near(l[1].median, 2300.0);
        near(l[2].median, 760.0);
        near(l[2].rate, 3.0 / (1.0 / 450.0 + 1.0 / 760.0 + 1.0 / 2430.0));
        near(l[2].min, 450.0);
        near(l[2].max, 2430.0);
    }

    #[test]
    fn a_short_curve_is_one_level() {
        let l = levels(&curve(&[6500.0, 2300.0]));
        assert_eq!(l.len(), 1);
        assert_eq!((l[0].first, l[0].last), (0, 1));
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let v: Vec<u64> = (1..=1000).collect();
        assert_eq!(at_quantile(&v, 0.5), 500);
        assert_eq!(at_quantile(&v, 0.999), 999);
        assert_eq!(at_quantile(&v, 1.0), 1000);
        assert_eq!(at_quantile(&[7], 0.001), 7);
        assert_eq!(at_quantile(&[], 0.5), 0);
        assert_eq!(quantiles().len(), 1002);
    }

    #[test]
    fn latency_ticks_name_whole_decades_in_their_unit() {
        let t: Vec<String> = [0.0, 1.0, 2.0, 3.0, 4.5, 5.0, 6.0, 7.0]
            .map(latency_tick)
            .to_vec();
        assert_eq!(
            t,
            ["1 µs", "10 µs", "100 µs", "1 ms", "", "100 ms", "1 s", "10 s"]
        );
        assert_eq!(latency_tick(-1.0), "0.1 µs");
    }
}
