//! `study dsftl-surface`'s Markdown summary.

use super::dsftl_surface::{Row, SurfaceArgs};
use super::dsftl_surface_report::{
    signed_pct as sp, Prediction, PAPER_GAIN_BEST, PAPER_GAIN_DYNAMIC, PAPER_GAIN_MEAN,
    PAPER_REDIRECTED_MEAN, TRACES,
};
use std::fmt::Write as _;

/// What the surface predicts for trace `t` at a load with or without DRAM: the
/// prediction, the redirected share it is placed at, the read share used, the basis.
pub(super) type Place<'a> =
    &'a dyn Fn(usize, u32, bool) -> Option<(Prediction, f64, f64, &'static str)>;

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

pub(super) fn summary(
    a: &SurfaceArgs,
    rows: &[Row],
    wall_s: f64,
    threads: usize,
    place: Place,
) -> String {
    let mut s = String::new();
    let mid = a.loads[a.loads.len() / 2];
    let _ = writeln!(s, "# DS-FTL: where the read-latency gain lives\n");
    let _ = writeln!(
        s,
        "`ssdlab study dsftl-surface` on the `dsftl` preset as shipped (the reproduction's \
         device, docs/reproductions/dsftl.md), static (`cpwd`), dynamic and DS-FTL, each with \
         the same workload and the same keys apart from `ftl.allocation`. One synthetic \
         workload per point: {} requests of 4–12 KiB (mean 8 KiB), Zipf 0.9 over 8 GiB, \
         seed 42, Poisson arrivals at the offered load (percent of 8 channels × one page per \
         102.575 µs), content drawn with the duplicate ratio, reads of unwritten pages given \
         content too (`read_content`). Duplicate ratios {:?}, offered loads {:?} %, read \
         shares {:?}; {} the rows behind SSDsim's 32 MiB write buffer (the paper's Fig. 6 \
         path: pages placed when they leave DRAM) at the {mid} % load. {} runs on {threads} \
         threads in {wall_s:.1} s.\n",
        a.requests,
        a.dups,
        a.loads,
        a.reads,
        if a.no_dram { "without" } else { "with" },
        rows.len() * 3
    );
    let _ = writeln!(
        s,
        "A gain is DS-FTL's read mean over the baseline's, less one (negative: DS-FTL \
         faster). \"Copy on another channel\" counts DS-FTL's read pages whose content a \
         programmed, valid page on another channel held when the read was admitted \
         (`reads_with_channel_copies_ratio`); \"redirected\" the read pages that took a copy \
         (`duplicate_read_ratio`, the paper's Fig. 13). Channel utilization is the mean \
         busy share of the 8 channel buses under static.\n"
    );
    let _ = writeln!(s, "## The surface\n");
    let _ = writeln!(
        s,
        "| dup | load | reads | DRAM | ch. util. | copy on other chip | copy on other channel | redirected | read µs static / dynamic / DS-FTL | vs static | vs dynamic | GC runs |"
    );
    let _ = writeln!(
        s,
        "|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"
    );
    for r in rows {
        let d = &r.runs[2];
        let gc: u64 = r.runs.iter().map(|k| k.gc_runs).sum();
        let _ = writeln!(
            s,
            "| {} | {} % | {:.0} % | {} | {} | {} | {} | {} | {:.1} / {:.1} / {:.1} | {} | {} | {gc} |",
            r.dup,
            r.load_pct,
            r.read_share * 100.0,
            if r.dram { "32 MiB" } else { "—" },
            pct(r.runs[0].channel_util),
            pct(d.copies_chip),
            pct(d.copies_channel),
            pct(d.redirected),
            r.runs[0].read_mean_us,
            r.runs[1].read_mean_us,
            d.read_mean_us,
            sp(r.gain(0)),
            sp(r.gain(1)),
        );
    }
    let gc: u64 = rows
        .iter()
        .flat_map(|r| r.runs.iter())
        .map(|k| k.gc_runs)
        .sum();
    let best = rows.iter().min_by(|x, y| x.gain(0).total_cmp(&y.gain(0)));
    if let Some(b) = best {
        let _ = writeln!(
            s,
            "\nGC {} in these runs ({gc} GC runs). The largest gain against static: {} \
             (read mean {:.1} → {:.1} µs) at duplicate ratio {}, load {} %, reads {:.0} %{}, \
             where {} of the reads had a copy on another channel and {} took one.",
            if gc > 0 { "ran" } else { "did not run" },
            sp(b.gain(0)),
            b.runs[0].read_mean_us,
            b.runs[2].read_mean_us,
            b.dup,
            b.load_pct,
            b.read_share * 100.0,
            if b.dram { " behind DRAM" } else { "" },
            pct(b.runs[2].copies_channel),
            pct(b.runs[2].redirected)
        );
    }
    traces(&mut s, a, mid, place);
    let _ = writeln!(
        s,
        "\nFigures: `dsftl-surface.svg` (gain against static by the share of reads with a \
         copy on another channel, one series per load and read share), \
         `dsftl-surface-dynamic.svg` (the same against dynamic), `dsftl-surface-traces.svg` \
         (gain against static by redirected reads at the {mid} % load, the eight traces \
         placed on it and the paper's average), `dsftl-surface-dram.svg` (the {mid} % load \
         without and behind the write buffer). Every number is in `dsftl-surface.csv`."
    );
    s
}

fn traces(s: &mut String, a: &SurfaceArgs, mid: u32, place: Place) {
    let _ = writeln!(s, "\n## The paper's eight traces on the surface\n");
    let _ = writeln!(
        s,
        "The paper publishes per trace only Table 3 (requests, write ratio, mean size); Fig. \
         3's duplicate ratios and Fig. 10b's per-trace read latencies are bars whose values \
         its text does not give (the text gives the largest duplicate ratio, 70.4 %, without \
         naming the trace, and for read latency against static the average, {}, and the \
         best, {}; against dynamic the average, {}). The position of a trace on our surface \
         therefore uses: its read share (1 − Table 3's write ratio), rounded to the nearest \
         swept read share; the share of reads DS-FTL served from a copy, which §5.2.3 gives \
         for webmail (15.6 %) and home3 (1.46 %) and as an average, {}, for all eight (the \
         others take that average); and, since the paper does not say how fast it replayed \
         the traces, every swept load. Along a line of the surface the prediction is \
         interpolated linearly in DS-FTL's measured redirected share; \"≥ end\" marks a \
         position past the sweep's largest duplicate ratio (the value shown is the sweep's \
         end).\n",
        sp(PAPER_GAIN_MEAN),
        sp(PAPER_GAIN_BEST),
        sp(PAPER_GAIN_DYNAMIC),
        pct(PAPER_REDIRECTED_MEAN)
    );
    let _ = write!(s, "| trace | paper's gain vs static |");
    for l in &a.loads {
        let _ = write!(s, " ours at {l} % load |");
    }
    let _ = write!(s, " ours vs dynamic ({mid} %) |");
    if !a.no_dram {
        let _ = write!(s, " ours, DRAM ({mid} %) |");
    }
    let _ = writeln!(
        s,
        " copy on other channel there ({mid} %) | what the position is based on |"
    );
    let cols = a.loads.len() + 5 + usize::from(!a.no_dram);
    let _ = writeln!(s, "|---|{}", "---:|".repeat(cols - 2) + "---|");
    for (t, (name, share, _)) in TRACES.iter().enumerate() {
        let cell = |p: Option<(Prediction, f64, f64, &str)>, f: fn(&Prediction) -> f64| match p {
            Some((p, ..)) => format!("{}{}", if p.beyond { "≥ end " } else { "" }, sp(f(&p))),
            None => "—".into(),
        };
        let _ = write!(
            s,
            "| {name} | not in the text (Fig. 10b); average {}, best {} |",
            sp(PAPER_GAIN_MEAN),
            sp(PAPER_GAIN_BEST)
        );
        for &l in &a.loads {
            let _ = write!(s, " {} |", cell(place(t, l, false), |p| p.vs_static));
        }
        let at_mid = place(t, mid, false);
        let _ = write!(s, " {} |", cell(at_mid, |p| p.vs_dynamic));
        if !a.no_dram {
            let _ = write!(s, " {} |", cell(place(t, mid, true), |p| p.vs_static));
        }
        let (copies, basis) = match at_mid {
            Some((p, x, read, based)) => (
                pct(p.copies_channel),
                format!(
                    "read share {} (Table 3) → swept {:.0} %; {} redirected: {based}",
                    pct(*share),
                    read * 100.0,
                    pct(x)
                ),
            ),
            None => ("—".into(), "—".into()),
        };
        let _ = writeln!(s, " {copies} | {basis} |");
    }
}
