//! `study dsftl-surface`'s outputs: the CSV, the figures, the paper's eight traces placed
//! on the surface, and the Markdown summary.

use super::dsftl_surface::{Row, SurfaceArgs};
use super::plot;
use std::fmt::Write as _;
use std::path::Path;

/// A trace of the paper: name, read share (1 − Table 3's write ratio), and its
/// redirected-read ratio where §5.2.3 (Fig. 13) states it.
pub(super) const TRACES: [(&str, f64, Option<f64>); 8] = [
    ("home1", 1.0 - 0.990, None),
    ("home2", 1.0 - 0.909, None),
    ("home3", 1.0 - 0.990, Some(0.0146)),
    ("home4", 1.0 - 0.945, None),
    ("online", 1.0 - 0.739, None),
    ("webmail", 1.0 - 0.819, Some(0.156)),
    ("webresearch", 1.0 - 0.999, None),
    ("webusers", 1.0 - 0.900, None),
];
/// §5.2.3: the eight traces' average redirected-read ratio (Fig. 13).
pub(super) const PAPER_REDIRECTED_MEAN: f64 = 0.0821;
/// §5.2.1 (Fig. 10b): DS-FTL's read latency against static, average and best trace.
pub(super) const PAPER_GAIN_MEAN: f64 = -0.353;
pub(super) const PAPER_GAIN_BEST: f64 = -0.563;
/// §5.2.1: against dynamic, average.
pub(super) const PAPER_GAIN_DYNAMIC: f64 = -0.342;

/// What the surface predicts at a position: gains against static and dynamic, the
/// share of reads with a copy on another channel there, and whether the position lies
/// beyond the sweep (the prediction is then the sweep's end).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Prediction {
    pub vs_static: f64,
    pub vs_dynamic: f64,
    pub copies_channel: f64,
    pub beyond: bool,
}

/// The prediction at redirected-read share `target` along `line` (the rows of one load,
/// read share and DRAM setting, in duplicate-ratio order): linear between the two
/// neighbouring points in DS-FTL's measured redirected share, the nearest end outside.
pub(super) fn predict(line: &[&Row], target: f64) -> Option<Prediction> {
    let at = |r: &Row| Prediction {
        vs_static: r.gain(0),
        vs_dynamic: r.gain(1),
        copies_channel: r.runs[2].copies_channel,
        beyond: false,
    };
    let x = |r: &Row| r.runs[2].redirected;
    for w in line.windows(2) {
        let (a, b) = (x(w[0]), x(w[1]));
        if (a <= target && target <= b) && b > a {
            let t = (target - a) / (b - a);
            let (p, q) = (at(w[0]), at(w[1]));
            let mix = |u: f64, v: f64| u + t * (v - u);
            return Some(Prediction {
                vs_static: mix(p.vs_static, q.vs_static),
                vs_dynamic: mix(p.vs_dynamic, q.vs_dynamic),
                copies_channel: mix(p.copies_channel, q.copies_channel),
                beyond: false,
            });
        }
    }
    let last = line.iter().max_by(|a, b| x(a).total_cmp(&x(b)))?;
    let first = line.iter().min_by(|a, b| x(a).total_cmp(&x(b)))?;
    if target >= x(last) {
        Some(Prediction {
            beyond: true,
            ..at(last)
        })
    } else {
        Some(at(first))
    }
}

/// The rows of one line of the surface, in duplicate-ratio order.
fn line(rows: &[Row], load: u32, read: f64, dram: bool) -> Vec<&Row> {
    let mut v: Vec<&Row> = rows
        .iter()
        .filter(|r| r.load_pct == load && r.read_share == read && r.dram == dram)
        .collect();
    v.sort_by(|a, b| a.dup.total_cmp(&b.dup));
    v
}

/// The swept read share nearest `share`.
fn nearest(reads: &[f64], share: f64) -> f64 {
    reads
        .iter()
        .copied()
        .min_by(|a, b| (a - share).abs().total_cmp(&(b - share).abs()))
        .unwrap_or(share)
}

/// Where trace `t` is placed: its redirected-read share and what that is based on.
fn position(t: usize) -> (f64, &'static str) {
    match TRACES[t].2 {
        Some(x) => (x, "its redirected reads (§5.2.3, Fig. 13)"),
        None => (
            PAPER_REDIRECTED_MEAN,
            "the eight's average redirected reads (§5.2.3; its own bar is not in the text)",
        ),
    }
}

pub(super) fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "duplicate_ratio,offered_load_pct,read_share,dram,scheme,reads,read_mean_us,\
         write_mean_us,read_gain_vs_static,read_gain_vs_dynamic,channel_utilization_mean,\
         reads_with_copy_other_chip,reads_with_copy_other_channel,redirected_reads,gc_runs\n",
    );
    for r in rows {
        for (i, k) in r.runs.iter().enumerate() {
            let name = ["static", "dynamic", "ds-ftl"][i];
            let _ = writeln!(
                s,
                "{},{},{},{},{name},{},{:.3},{:.3},{:.5},{:.5},{:.5},{:.5},{:.5},{:.5},{}",
                r.dup,
                r.load_pct,
                r.read_share,
                if r.dram { "ssdsim-32mib" } else { "none" },
                k.reads,
                k.read_mean_us,
                k.write_mean_us,
                super::dsftl_surface::gain(k.read_mean_us, r.runs[0].read_mean_us),
                super::dsftl_surface::gain(k.read_mean_us, r.runs[1].read_mean_us),
                k.channel_util,
                k.copies_chip,
                k.copies_channel,
                k.redirected,
                k.gc_runs
            );
        }
    }
    s
}

type Pts = Vec<(String, Vec<(f64, f64)>)>;

/// One series per (load, read share) line: (x, y) of each point, in percent.
fn lines_of(
    a: &SurfaceArgs,
    rows: &[Row],
    dram: &[bool],
    loads: &[u32],
    f: &dyn Fn(&Row) -> (f64, f64),
) -> Pts {
    let mut v = Vec::new();
    for &d in dram {
        for &l in loads {
            for &r in &a.reads {
                let pts: Vec<(f64, f64)> = line(rows, l, r, d).into_iter().map(f).collect();
                if pts.is_empty() {
                    continue;
                }
                let util = line(rows, l, r, d)
                    .iter()
                    .map(|x| x.runs[0].channel_util)
                    .sum::<f64>()
                    / pts.len() as f64;
                let dr = if d { ", DRAM" } else { "" };
                v.push((
                    format!(
                        "load {l} % (ch. util. {:.0} %), reads {:.0} %{dr}",
                        util * 100.0,
                        r * 100.0
                    ),
                    pts,
                ));
            }
        }
    }
    v
}

pub(super) fn figures(out: &Path, a: &SurfaceArgs, rows: &[Row]) -> Result<(), String> {
    let pc = |x: f64| x * 100.0;
    let mid = a.loads[a.loads.len() / 2];
    let vs = |s: usize| move |r: &Row| (pc(r.runs[2].copies_channel), pc(r.gain(s)));
    let s = lines_of(a, rows, &[false], &a.loads, &vs(0));
    plot::scatter(
        &out.join("dsftl-surface.svg"),
        &plot::Scatter {
            title: "DS-FTL read latency vs static, by reads with a copy on another channel",
            x_label: "reads with a copy on another channel (%)",
            y_label: "read mean, DS-FTL / static − 1 (%)",
            series: &s,
        },
    )?;
    let s = lines_of(a, rows, &[false], &a.loads, &vs(1));
    plot::scatter(
        &out.join("dsftl-surface-dynamic.svg"),
        &plot::Scatter {
            title: "DS-FTL read latency vs dynamic, by reads with a copy on another channel",
            x_label: "reads with a copy on another channel (%)",
            y_label: "read mean, DS-FTL / dynamic − 1 (%)",
            series: &s,
        },
    )?;
    if !a.no_dram {
        let s = lines_of(a, rows, &[false, true], &[mid], &vs(0));
        plot::scatter(
            &out.join("dsftl-surface-dram.svg"),
            &plot::Scatter {
                title: "Without and behind a DRAM write buffer (middle load)",
                x_label: "reads with a copy on another channel (%)",
                y_label: "read mean, DS-FTL / static − 1 (%)",
                series: &s,
            },
        )?;
    }
    let redir = |r: &Row| (pc(r.runs[2].redirected), pc(r.gain(0)));
    let mut s = lines_of(a, rows, &[false], &[mid], &redir);
    // One series per position: the traces §5.2.3 gives no redirected share for share one.
    let mut placed: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (t, (name, share, own)) in TRACES.iter().enumerate() {
        let (x, _) = position(t);
        let l = line(rows, mid, nearest(&a.reads, *share), false);
        let Some(p) = predict(&l, x) else { continue };
        let label = match own {
            Some(_) => format!("{name} (its Fig. 13 share), our prediction"),
            None => "the other six (average share), our prediction".to_string(),
        };
        match placed.iter_mut().find(|(n, _)| *n == label) {
            Some((_, v)) => v.push((pc(x), pc(p.vs_static))),
            None => placed.push((label, vec![(pc(x), pc(p.vs_static))])),
        }
    }
    s.extend(placed);
    s.push((
        "paper: the eight's average (Fig. 13, Fig. 10b)".into(),
        vec![(pc(PAPER_REDIRECTED_MEAN), pc(PAPER_GAIN_MEAN))],
    ));
    plot::scatter(
        &out.join("dsftl-surface-traces.svg"),
        &plot::Scatter {
            title: "The paper's eight traces on the surface (middle load)",
            x_label: "reads served by a copy on another chip (%)",
            y_label: "read mean, DS-FTL / static − 1 (%)",
            series: &s,
        },
    )
}

/// `x` as a signed percentage with one decimal.
pub(super) fn signed_pct(x: f64) -> String {
    format!("{:+.1} %", x * 100.0)
}

pub(super) fn summary(a: &SurfaceArgs, rows: &[Row], wall_s: f64, threads: usize) -> String {
    super::dsftl_surface_text::summary(a, rows, wall_s, threads, &|t, load, dram| {
        let (x, based) = position(t);
        let read = nearest(&a.reads, TRACES[t].1);
        let p = predict(&line(rows, load, read, dram), x)?;
        Some((p, x, read, based))
    })
}

#[cfg(test)]
mod tests {
    use super::super::dsftl_surface::Kept;
    use super::*;

    fn row(dup: f64, redirected: f64, ds: f64) -> Row {
        let k = |mean: f64, red: f64| Kept {
            read_mean_us: mean,
            redirected: red,
            copies_channel: red * 2.0,
            ..Kept::default()
        };
        Row {
            dup,
            load_pct: 30,
            read_share: 0.1,
            dram: false,
            runs: [k(100.0, 0.0), k(200.0, 0.0), k(ds, redirected)],
        }
    }

    #[test]
    fn a_position_between_two_points_is_interpolated_and_past_the_end_is_flagged() {
        let (a, b) = (row(0.0, 0.0, 100.0), row(0.4, 0.1, 80.0));
        let l = vec![&a, &b];
        let p = predict(&l, 0.05).unwrap();
        assert!((p.vs_static + 0.1).abs() < 1e-12, "{p:?}");
        assert!((p.vs_dynamic + 0.55).abs() < 1e-12, "{p:?}");
        assert!((p.copies_channel - 0.1).abs() < 1e-12);
        assert!(!p.beyond);
        let q = predict(&l, 0.3).unwrap();
        assert!(q.beyond);
        assert!((q.vs_static + 0.2).abs() < 1e-12);
        assert_eq!(nearest(&[0.1, 0.5, 0.8], 0.261), 0.1);
    }
}
