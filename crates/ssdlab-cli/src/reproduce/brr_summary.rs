//! The headline numbers of `reproduce brr`, in the terms the paper states them (§IV-B to
//! §IV-D), as Markdown.

use super::{mean, ratio, Experiment, Outcome, CONTENDED_NS, GROUPS};
use std::fmt::Write as _;

/// Reduction (1 − x) per read-contended trace of `s` against `base` for metric `f`, traces without a
/// baseline value left out.
fn reductions(
    ex: &Experiment,
    s: &'static str,
    base: &'static str,
    f: fn(&Outcome) -> f64,
) -> Vec<(String, f64)> {
    ex.contended_traces()
        .into_iter()
        .filter_map(|t| {
            ratio(f(ex.main(t, s)), f(ex.main(t, base))).map(|r| (ex.names[t].clone(), 1.0 - r))
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

fn line_for(out: &mut String, what: &str, v: &[(String, f64)]) {
    let values: Vec<f64> = v.iter().map(|x| x.1).collect();
    let best = v.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let worst = v.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let _ = write!(out, "| {what} | {} |", pct(mean(&values)));
    match (best, worst) {
        (Some(b), Some(w)) => {
            let _ = writeln!(out, " {} ({}) | {} ({}) |", pct(b.1), b.0, pct(w.1), w.0);
        }
        _ => out.push_str(" – | – |\n"),
    }
}

impl Experiment<'_> {
    /// The summary table and verification result.
    pub(super) fn summary(&self, wall_s: f64, threads: usize) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# reproduce brr: summary\n\nbus model: {}; traces: {}; runs: {}; wall time {:.0} s on {threads} threads\n",
            self.bus.name(),
            self.names.join(", "),
            self.results.len(),
            wall_s
        );
        let used: Vec<&str> = self
            .contended_traces()
            .into_iter()
            .map(|t| self.names[t].as_str())
            .collect();
        let _ = writeln!(
            s,
            "read-contended traces (Async-FIFO read waiting >= {:.0} us), used below: {}\n",
            CONTENDED_NS / 1e3,
            used.join(", ")
        );
        s.push_str("| metric (reduction: positive is better) | average | best | worst |\n|---|---|---|---|\n");
        let read = |o: &Outcome| o.read_wait_ns;
        let write = |o: &Outcome| o.write_wait_ns;
        let util = |o: &Outcome| o.chip_util;
        line_for(
            &mut s,
            "read waiting, BRR vs Async-FIFO",
            &reductions(self, "brr", "async-fifo", read),
        );
        line_for(
            &mut s,
            "read waiting, BRR vs PIQ",
            &reductions(self, "brr", "piq", read),
        );
        line_for(
            &mut s,
            "read waiting, PIQ vs Async-FIFO",
            &reductions(self, "piq", "async-fifo", read),
        );
        line_for(
            &mut s,
            "write waiting, BRR vs Async-FIFO",
            &reductions(self, "brr", "async-fifo", write),
        );
        line_for(
            &mut s,
            "write waiting, BRR vs PIQ",
            &reductions(self, "brr", "piq", write),
        );
        let gain = |v: Vec<(String, f64)>| v.into_iter().map(|(n, x)| (n, -x)).collect::<Vec<_>>();
        line_for(
            &mut s,
            "chip utilization gain, BRR vs Async-FIFO",
            &gain(reductions(self, "brr", "async-fifo", util)),
        );
        line_for(
            &mut s,
            "chip utilization gain, BRR vs PIQ",
            &gain(reductions(self, "brr", "piq", util)),
        );
        let redirected: Vec<f64> = self
            .contended_traces()
            .into_iter()
            .map(|t| self.main(t, "brr").redirected_ratio)
            .collect();
        let _ = writeln!(
            s,
            "\nBRR redirected-read ratio, average over traces: {}",
            pct(mean(&redirected))
        );
        if self.sweeps {
            self.sweep_summary(&mut s);
        }
        self.verify_summary(&mut s);
        s
    }

    fn sweep_summary(&self, s: &mut String) {
        let q = self.sweep_average(&self.depths, true);
        let _ = write!(
            s,
            "\nFig. 13, BRR read waiting normalized to queue length 1 (average):"
        );
        for (d, v) in self.depths.iter().zip(&q) {
            let _ = write!(s, " {d}: {v:.3};");
        }
        let last = q.last().copied().unwrap_or(f64::NAN);
        let _ = writeln!(
            s,
            "\n  change from queue 1 to {}: {}",
            self.depths.last().unwrap_or(&0),
            pct(last - 1.0)
        );
        if let Some(i) = self.depths.iter().position(|&d| d == 32) {
            let _ = writeln!(
                s,
                "  change from queue 32 to 256: {}",
                pct(last / q[i] - 1.0)
            );
        }
        let g = self.sweep_average(&GROUPS, false);
        let _ = write!(
            s,
            "\nFig. 14, BRR read waiting normalized to group size 4 (average):"
        );
        for (n, v) in GROUPS.iter().zip(&g) {
            let _ = write!(s, " {n}: {v:.3};");
        }
        let _ = writeln!(s, "\n  change from group 4 to 16: {}", pct(g[2] - 1.0));
    }

    fn verify_summary(&self, s: &mut String) {
        let verified: Vec<(&String, &Outcome)> = (0..self.names.len())
            .map(|t| (&self.names[t], self.main(t, "brr")))
            .filter(|(_, o)| o.verified_reads > 0 || o.mismatches > 0)
            .collect();
        for (name, o) in verified {
            let _ = writeln!(
                s,
                "\nverify (BRR on {name}): {} reads checked, {} mismatches",
                o.verified_reads, o.mismatches
            );
        }
    }
}
