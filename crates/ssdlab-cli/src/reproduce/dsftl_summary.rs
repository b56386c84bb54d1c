//! The summary of `reproduce dsftl`: the paper's stated numbers (§5.2) beside ours, the
//! absolute values behind every ratio, the sensitivity rows and sweeps, and the checks.

use super::common::{mean, ratio, SSDSIM_BUFFER};
use super::dsftl::{
    Experiment, Row, Sweep, Workload, AGED, AGED_SETS, BUFFERED, DSFTL, DUPS_PERMILLE, DYNAMIC,
    HIPA, HIPA_HALVES, LOADS_PCT, LOAD_PCT, MAIN, SCHEMES, STATIC, SWEPT, TIME_DIVISORS,
};
use super::dsftl_figs::MIN_READS;
use std::fmt::Write as _;

type Metric = fn(&Row) -> f64;

/// A change as a signed percentage (negative = lower than the reference).
fn change(x: f64) -> String {
    format!("{:+.1} %", (x - 1.0) * 100.0)
}

fn pct(x: f64) -> String {
    format!("{:.2} %", x * 100.0)
}

impl Experiment<'_> {
    /// Per workload of `workloads`, scheme `a`'s metric over scheme `b`'s.
    fn changes(&self, workloads: &[usize], a: usize, b: usize, f: Metric) -> Vec<(String, f64)> {
        workloads
            .iter()
            .filter_map(|&w| {
                ratio(f(self.at(w, a)), f(self.at(w, b))).map(|r| (self.names[w].clone(), r))
            })
            .collect()
    }

    /// "average (lowest on X, highest on Y)" of a list of ratios.
    fn spread(v: &[(String, f64)]) -> (String, String) {
        if v.is_empty() {
            return ("n/a".into(), "n/a".into());
        }
        let avg = mean(&v.iter().map(|x| x.1).collect::<Vec<_>>());
        let lo = v
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("not empty");
        let hi = v
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("not empty");
        (
            change(avg),
            format!("{} ({}) … {} ({})", change(lo.1), lo.0, change(hi.1), hi.0),
        )
    }

    fn headline(&self, s: &mut String) {
        let all: Vec<usize> = (0..self.names.len()).collect();
        let reads = self.read_workloads();
        let read: Metric = |r| r.read_mean;
        let write: Metric = |r| r.write_mean;
        s.push_str("| comparison (DS-FTL against) | paper | ours: average | ours: lowest … highest |\n|---|---|---|---|\n");
        for (what, paper, ws, base, f) in [
            (
                "read latency, static (cpwd)",
                "−35.3 % average, down to −56.3 % (two static schemes)",
                &reads,
                STATIC,
                read,
            ),
            (
                "read latency, static (cwdp)",
                "(the second static scheme)",
                &reads,
                1,
                read,
            ),
            ("read latency, dynamic", "−34.2 %", &reads, DYNAMIC, read),
            (
                "read latency, HIPA",
                "−9.8 % average, down to −23.0 %; HIPA better on online",
                &reads,
                HIPA,
                read,
            ),
            (
                "write latency, static (cpwd)",
                "−24.7 % average, down to −54.0 %",
                &all,
                STATIC,
                write,
            ),
            ("write latency, dynamic", "−36.7 %", &all, DYNAMIC, write),
            (
                "write latency, HIPA",
                "−19.0 % average (−30.3 % on home3, webusers)",
                &all,
                HIPA,
                write,
            ),
        ] {
            let (avg, range) = Self::spread(&self.changes(ws, DSFTL, base, f));
            let _ = writeln!(s, "| {what} | {paper} | {avg} | {range} |");
        }
        let avg = |sc: usize, f: Metric| {
            mean(&all.iter().map(|&w| f(self.at(w, sc))).collect::<Vec<_>>())
        };
        let std_pp: Metric = |r| r.channel_std * 100.0;
        let _ = writeln!(
            s,
            "| channel-utilization std (percentage points): static / HIPA / DS-FTL | 1.12 / 1.11 / 0.61 | {:.3} / {:.3} / {:.3} | |",
            avg(STATIC, std_pp),
            avg(HIPA, std_pp),
            avg(DSFTL, std_pp)
        );
        let dup: Metric = |r| r.plane_dup;
        let _ = writeln!(
            s,
            "| plane duplicate rate: static / dynamic / DS-FTL | 18.5 % / 13.5 % / 12.2 % | {} / {} / {} | |",
            pct(avg(STATIC, dup)),
            pct(avg(DYNAMIC, dup)),
            pct(avg(DSFTL, dup))
        );
        let _ = writeln!(
            s,
            "| DS-FTL redirected reads / writes | 8.21 % / 10.5 % (webmail 15.6 / 29.2, home3 1.46 / 1.48) | {} / {} | |",
            pct(avg(DSFTL, |r| r.redirected_reads)),
            pct(avg(DSFTL, |r| r.redirected_writes))
        );
    }

    fn absolute(&self, s: &mut String) {
        s.push_str(
            "\n## Absolute values\n\n| workload | scheme | reads | read mean µs | write mean µs | channel std pp | plane dup | redirected r / w | reads with a copy | duplicate writes | GC runs | WA |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for (w, name) in self.names.iter().enumerate() {
            for (sc, (scheme, _)) in SCHEMES.iter().enumerate() {
                let o = self.at(w, sc);
                let _ = writeln!(
                    s,
                    "| {name} | {scheme} | {} | {:.1} | {:.1} | {:.3} | {} | {} / {} | {} | {} | {} | {:.3} |",
                    o.reads,
                    o.read_mean / 1e3,
                    o.write_mean / 1e3,
                    o.channel_std * 100.0,
                    pct(o.plane_dup),
                    pct(o.redirected_reads),
                    pct(o.redirected_writes),
                    pct(o.reads_with_copies),
                    pct(o.duplicate_writes),
                    o.gc_runs,
                    o.write_amplification
                );
            }
        }
    }

    fn sensitivity(&self, s: &mut String) {
        let reads = self.read_workloads();
        s.push_str("\n## Sensitivity rows (read latency against static, average over the workloads with reads)\n\n");
        for (sc, (name, _)) in SCHEMES.iter().enumerate().skip(MAIN) {
            let (avg, range) = Self::spread(&self.changes(&reads, sc, STATIC, |r| r.read_mean));
            let _ = writeln!(s, "- {name}: {avg} ({range})");
        }
        // Like for like: both sides with SSDsim's merging.
        let (a, b) = (SCHEMES.len() - 1, SCHEMES.len() - 2);
        let (avg, range) = Self::spread(&self.changes(&reads, a, b, |r| r.read_mean));
        let _ = writeln!(
            s,
            "- {} against {}: {avg} ({range})",
            SCHEMES[a].0, SCHEMES[b].0
        );
        if !self.sweeps {
            return;
        }
        s.push_str("\n## Sweeps\n\n");
        let _ = write!(
            s,
            "HIPA threshold (program service times) → HIPA read latency against static, average:"
        );
        for h in HIPA_HALVES {
            let v: Vec<f64> = reads
                .iter()
                .filter_map(|&w| {
                    ratio(
                        self.point(w, HIPA, Sweep::HipaHalves(h)).read_mean,
                        self.at(w, STATIC).read_mean,
                    )
                })
                .collect();
            let _ = write!(
                s,
                " {}: {};",
                f64::from(h) / 2.0,
                if v.is_empty() {
                    "n/a".into()
                } else {
                    change(mean(&v))
                }
            );
        }
        s.push('\n');
        if let Some(w) = self
            .workloads
            .iter()
            .position(|x| matches!(x, Workload::Standin(SWEPT)))
        {
            let points: [(&str, Vec<(String, Sweep)>); 2] = [
                (
                    "duplicate ratio",
                    DUPS_PERMILLE
                        .iter()
                        .map(|&d| (format!("{}", f64::from(d) / 1000.0), Sweep::DupPermille(d)))
                        .collect(),
                ),
                (
                    "offered load",
                    LOADS_PCT
                        .iter()
                        .map(|&l| (format!("{}", f64::from(l) / 100.0), Sweep::LoadPct(l)))
                        .collect(),
                ),
            ];
            for (what, pts) in points {
                let _ = writeln!(
                    s,
                    "\n{}, {what} → read mean µs static / HIPA / DS-FTL (DS-FTL against static):\n",
                    self.names[w]
                );
                for (label, p) in pts {
                    let [a, b, c] = [STATIC, HIPA, DSFTL].map(|sc| self.point(w, sc, p).read_mean);
                    let _ = writeln!(
                        s,
                        "- {label}: {:.1} / {:.1} / {:.1} ({})",
                        a / 1e3,
                        b / 1e3,
                        c / 1e3,
                        ratio(c, a).map_or("n/a".into(), change)
                    );
                }
            }
        }
        if let Some(w) = self
            .workloads
            .iter()
            .position(|x| matches!(x, Workload::Standin(SWEPT)))
        {
            let _ = writeln!(s, "\n{}, aged device ({}) → read mean µs, write mean µs, GC runs, write amplification:\n", self.names[w], AGED_SETS.join(", "));
            for sc in AGED {
                let o = self.point(w, sc, Sweep::Aged);
                let _ = writeln!(
                    s,
                    "- {}: {:.1}, {:.1}, {}, {:.3}",
                    SCHEMES[sc].0,
                    o.read_mean / 1e3,
                    o.write_mean / 1e3,
                    o.gc_runs,
                    o.write_amplification
                );
            }
        }
        for w in (0..self.names.len()).filter(|&w| matches!(self.workloads[w], Workload::File(_))) {
            let _ = write!(
                s,
                "\n{}, time scale → read mean µs static / DS-FTL:",
                self.names[w]
            );
            for d in TIME_DIVISORS {
                let [a, c] =
                    [STATIC, DSFTL].map(|sc| self.point(w, sc, Sweep::TimeDivisor(d)).read_mean);
                let _ = write!(s, " 1/{d}: {:.1} / {:.1};", a / 1e3, c / 1e3);
            }
            s.push('\n');
        }
    }

    /// The DRAM write buffer's sensitivity rows: DS-FTL against each scheme, every
    /// scheme without and with the buffer (like for like), beside the paper.
    fn dram_rows(&self, s: &mut String) {
        let _ = write!(
            s,
            "\n## Sensitivity: behind a DRAM write buffer\n\n\
             Not the preset (the paper caches host pages in DRAM, §4.1 and Fig. 6, but gives \
             no size): every scheme behind `{}`; pages are placed when they leave DRAM. \
             `dsftl-dram.csv` has every run.\n\n\
             | comparison (DS-FTL against) | paper | no buffer | with the buffer | \
             mean µs, no buffer → with (scheme / DS-FTL) |\n|---|---|---|---|---|\n",
            SSDSIM_BUFFER.join(" ")
        );
        let all: Vec<usize> = (0..self.names.len()).collect();
        let reads = self.read_workloads();
        let avg = |ws: &[usize], sc: usize, sweep: Sweep, f: Metric| {
            let v: Vec<f64> = ws
                .iter()
                .filter_map(|&w| ratio(f(self.point(w, DSFTL, sweep)), f(self.point(w, sc, sweep))))
                .collect();
            if v.is_empty() {
                "n/a".to_string()
            } else {
                change(mean(&v))
            }
        };
        // Mean of `f` in µs over the workloads `ws`.
        let abs = |ws: &[usize], sc: usize, sweep: Sweep, f: Metric| {
            mean(
                &ws.iter()
                    .map(|&w| f(self.point(w, sc, sweep)) / 1e3)
                    .collect::<Vec<_>>(),
            )
        };
        let read: Metric = |r| r.read_mean;
        let write: Metric = |r| r.write_mean;
        for (what, paper, ws, sc, f) in [
            (
                "write latency, static (cpwd)",
                "−24.7 %",
                &all,
                STATIC,
                write,
            ),
            ("write latency, dynamic", "−36.7 %", &all, DYNAMIC, write),
            ("write latency, HIPA", "−19.0 %", &all, HIPA, write),
            (
                "read latency, static (cpwd)",
                "−35.3 %",
                &reads,
                STATIC,
                read,
            ),
            ("read latency, dynamic", "−34.2 %", &reads, DYNAMIC, read),
            ("read latency, HIPA", "−9.8 %", &reads, HIPA, read),
        ] {
            let _ = writeln!(
                s,
                "| {what} | {paper} | {} | {} | {:.1} / {:.1} → {:.1} / {:.1} |",
                avg(ws, sc, Sweep::Main, f),
                avg(ws, sc, Sweep::Dram, f),
                abs(ws, sc, Sweep::Main, f),
                abs(ws, DSFTL, Sweep::Main, f),
                abs(ws, sc, Sweep::Dram, f),
                abs(ws, DSFTL, Sweep::Dram, f),
            );
        }
        let gc = |sweep| {
            all.iter()
                .flat_map(|&w| BUFFERED.map(|sc| self.point(w, sc, sweep).gc_runs))
                .filter(|&g| g > 0)
                .count()
        };
        let _ = writeln!(
            s,
            "\nGC ran in {} of the {} unbuffered runs and {} of the {} buffered ones.",
            gc(Sweep::Main),
            all.len() * BUFFERED.len(),
            gc(Sweep::Dram),
            all.len() * BUFFERED.len()
        );
    }

    /// The summary as Markdown.
    pub(super) fn summary(&self, wall_s: f64, threads: usize) -> String {
        let mut s = String::from("# reproduce dsftl: summary\n\n");
        let standins = self
            .workloads
            .iter()
            .filter(|w| matches!(w, Workload::Standin(_)))
            .count();
        let _ = writeln!(
            s,
            "{} workloads ({} trace files, {standins} stand-ins{}), {} runs, {wall_s:.1} s on {threads} threads; preset dsftl as shipped; stand-ins at {LOAD_PCT} % offered load; user overrides: [{}]\n",
            self.names.len(),
            self.names.len() - standins,
            if self.quick { ", quick" } else { "" },
            self.results.len(),
            self.sets.join(", ")
        );
        let reads = self.read_workloads();
        let _ =
            writeln!(
            s,
            "Read latencies are compared on the workloads with at least {MIN_READS} reads: {}.\n",
            reads.iter().map(|&w| self.names[w].as_str()).collect::<Vec<_>>().join(", ")
        );
        self.headline(&mut s);
        self.absolute(&mut s);
        self.sensitivity(&mut s);
        if self.sweeps {
            self.dram_rows(&mut s);
        }
        let gc = self.results.values().filter(|r| r.gc_runs > 0).count();
        let _ = writeln!(s, "\nGC ran in {gc} of {} runs.", self.results.len());
        let (checked, bad) = (0..self.names.len()).fold((0, 0), |(c, b), w| {
            let o = self.at(w, DSFTL);
            (c + o.verified_reads, b + o.mismatches)
        });
        let _ = writeln!(
            s,
            "verify (ds-ftl): {checked} reads checked, {bad} mismatches"
        );
        s
    }
}
