//! The summary of `reproduce paq`: the paper's headline numbers beside ours, workload by
//! workload, and the checks of docs/reproductions/paq.md, as Markdown.

use super::{
    Experiment, Metric, Row, Setting, PAPER, PAQ0, PAQ1, PAQ2, REFERENCE, SCHEDULERS, VAQ,
};
use crate::reproduce::common::mean;
use std::fmt::Write as _;

/// What each stand-in stands for: (Table 1 traces, their read share there, what the paper
/// says of them; no commas, the first goes into a CSV). Workloads not listed stand for
/// nothing in particular.
const STANDS_FOR: [(&str, (&str, &str, &str)); 13] = [
    ("financial1-50k", ("fin1", "23.2 %", "")),
    (
        "websearch1-50k",
        ("web1 (web2 / web3)", "100 %", "gain > 100 MB/s (§6.1)"),
    ),
    (
        "wsrch-small",
        ("web1 (another excerpt)", "100 %", "gain > 100 MB/s (§6.1)"),
    ),
    ("tpcc-small", ("sql class (sql2)", "54.1 %", "")),
    (
        "hm_0-slice7016",
        ("usr2 / usr3 / prn2 class", "75-92 %", ""),
    ),
    ("hm_1-writes13069", ("prn1 / msnfs1-3 class", "3-11 %", "")),
    ("msr-writes-only", ("prn1 / msnfs1-3 class", "3-11 %", "")),
    ("desktop", ("usr1-like mix", "40.4 %", "")),
    ("jpeg_copy", ("none (large and partly sequential)", "-", "")),
    (
        "fin2",
        (
            "fin2 (synthetic)",
            "82.3 %",
            "low bandwidth and many IOPS (§6.1)",
        ),
    ),
    ("sql3", ("sql3 / web2 / web3 (synthetic)", "99.2 %", "")),
    (
        "usr2",
        ("usr2 / prn2 / msnfs5-6 (synthetic)", "75-92 %", ""),
    ),
    (
        "msnfs4",
        (
            "msnfs4 (synthetic)",
            "7.8 %",
            "PAQ 1.41x IOPS and bandwidth (§6.1)",
        ),
    ),
];

/// The Table 1 traces workload `name` stands for, their read share and the paper's
/// statement about them.
pub(super) fn stands_for(name: &str) -> (&'static str, &'static str, &'static str) {
    STANDS_FOR
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(("-", "-", ""), |(_, s)| *s)
}

/// A change in percent.
fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:+.1} %", 100.0 * x)
    } else {
        "n/a".into()
    }
}

/// The mean of `v`, its best and its worst change, each with its workload (`lower`: a
/// lower value is better).
fn spread(v: &[(String, f64)], lower: bool) -> [String; 3] {
    let values: Vec<f64> = v.iter().map(|x| x.1).collect();
    let key = |x: &(String, f64)| if lower { -x.1 } else { x.1 };
    let best = v.iter().max_by(|a, b| key(a).total_cmp(&key(b)));
    let worst = v.iter().min_by(|a, b| key(a).total_cmp(&key(b)));
    let at =
        |x: Option<&(String, f64)>| x.map_or("n/a".into(), |x| format!("{} ({})", pct(x.1), x.0));
    [pct(mean(&values)), at(best), at(worst)]
}

impl Experiment<'_> {
    /// PAQ2 / VAQ − 1 for `f` at `setting`, per workload that has both.
    fn change(&self, setting: Setting, sched: usize, f: Metric) -> Vec<(String, f64)> {
        (0..self.names.len())
            .filter_map(|w| {
                let r = self.vs_vaq(w, setting, sched, f)?;
                Some((self.names[w].clone(), r - 1.0))
            })
            .collect()
    }

    fn headline(&self, s: &mut String, setting: Setting) {
        let _ = writeln!(
            s,
            "| PAQ2 against VAQ | paper: average | paper: best | ssdlab: average | best | worst |\n\
             |---|---|---|---|---|---|"
        );
        let rows: [(&str, &str, &str, Metric); 5] = [
            ("bandwidth", "+32.6 %", "+62.7 %", |r| r.mib_s),
            ("IOPS", "+32.7 %", "+62.6 %", |r| r.iops),
            ("mean latency", "-25.1 %", "-41.6 %", |r| r.mean_ns),
            ("die idle time", "about -20 %", "about -60 %", |r| {
                r.idle_ns as f64
            }),
            (
                "package contention time",
                "\"very significant reduction across all traces\"",
                "",
                |r| r.package_ns as f64,
            ),
        ];
        for (i, (what, avg, max, f)) in rows.into_iter().enumerate() {
            let _ = writeln!(
                s,
                "| {what} | {avg} | {max} | {} |",
                spread(&self.change(setting, PAQ2, f), i >= 2).join(" | ")
            );
        }
        let contention = self.change(setting, PAQ2, |r| r.package_ns as f64);
        let lower = contention.iter().filter(|x| x.1 < 0.0).count();
        let _ = writeln!(
            s,
            "| package contention below VAQ's | all 20 traces | | {lower} of {} | | |",
            contention.len()
        );
        let iops = self.change(setting, PAQ2, |r| r.iops);
        let worse: Vec<&str> = iops
            .iter()
            .filter(|x| x.1 < 0.0)
            .map(|x| x.0.as_str())
            .collect();
        let _ = writeln!(
            s,
            "| PAQ2 never worse than VAQ (IOPS) | all 20 traces | | {} of {} | {} | |",
            iops.len() - worse.len(),
            iops.len(),
            if worse.is_empty() {
                "none worse".to_string()
            } else {
                format!("worse: {}", worse.join(", "))
            }
        );
        let real = |f: Metric| {
            let v: Vec<f64> = self
                .change(setting, PAQ2, f)
                .into_iter()
                .filter(|(n, _)| !self.synthetic.contains(n))
                .map(|x| x.1)
                .collect();
            (v.len(), pct(mean(&v)))
        };
        let ((n, bw), (_, iops), (_, lat)) =
            (real(|r| r.mib_s), real(|r| r.iops), real(|r| r.mean_ns));
        let _ = writeln!(
            s,
            "\nOver the trace files alone ({n}; synthetic stand-ins left out): bandwidth {bw}, \
             IOPS {iops}, mean latency {lat} on average."
        );
    }

    /// One line per workload at `setting`: IOPS of every scheduler run there, PAQ2's
    /// gains over VAQ, multi-plane operations, GC runs and what the paper says.
    fn per_workload(&self, s: &mut String, setting: Setting) {
        s.push_str(
            "| workload | stands for (Table 1 reads) | reads here | IOPS VAQ | PAQ0 | PAQ1 | PAQ2 | \
             async-fifo | PAQ2/VAQ | bandwidth VAQ → PAQ2 (MiB/s) | latency | idle | package \
             contention | multi-plane ops VAQ / PAQ0 / PAQ2 | GC runs | the paper says |\n\
             |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for (w, name) in self.names.iter().enumerate() {
            let (traces, share, says) = stands_for(name);
            let (Some(vaq), Some(paq2)) = (self.at(w, setting, VAQ), self.at(w, setting, PAQ2))
            else {
                continue;
            };
            let iops = |x| {
                self.at(w, setting, x)
                    .map_or("-".into(), |r| format!("{:.0}", r.iops))
            };
            let mp = |x| {
                self.at(w, setting, x)
                    .map_or("-".into(), |r| r.mp_ops.to_string())
            };
            let change = |f: Metric| {
                self.vs_vaq(w, setting, PAQ2, f)
                    .map_or("n/a".into(), |x| pct(x - 1.0))
            };
            let gc: u64 = (0..SCHEDULERS.len())
                .filter_map(|x| self.at(w, setting, x))
                .map(|r| r.gc_runs)
                .sum();
            let _ = writeln!(
                s,
                "| {name} | {traces} ({share}) | {:.1} % | {} | {} | {} | {} | {} | {:.3} | \
                 {:.1} → {:.1} | {} | {} | {} | {} / {} / {} | {gc} | {says} |",
                100.0 * vaq.reads as f64 / vaq.requests.max(1) as f64,
                iops(VAQ),
                iops(PAQ0),
                iops(PAQ1),
                iops(PAQ2),
                iops(REFERENCE),
                paq2.iops / vaq.iops.max(1e-9),
                vaq.mib_s,
                paq2.mib_s,
                change(|x| x.mean_ns),
                change(|x| x.idle_ns as f64),
                change(|x| x.package_ns as f64),
                mp(VAQ),
                mp(PAQ0),
                mp(PAQ2),
            );
        }
    }

    /// The workloads whose bandwidth PAQ2 raises by more than 100 MB/s over VAQ's at
    /// `setting` (the paper: five of twenty, every web trace, §6.1).
    fn over_100(&self, s: &mut String, setting: Setting) {
        let gains: Vec<String> = (0..self.names.len())
            .filter_map(|w| {
                let (v, p) = (self.at(w, setting, VAQ)?, self.at(w, setting, PAQ2)?);
                let mb_s = (p.mib_s - v.mib_s) * 1.048576;
                (mb_s > 100.0).then(|| format!("{} (+{mb_s:.0})", self.names[w]))
            })
            .collect();
        let _ = writeln!(
            s,
            "- {}: PAQ2's bandwidth exceeds VAQ's by more than 100 MB/s on {} of {} workloads{}{} \
             (the paper: 5 of 20, every web trace)",
            setting.label(),
            gains.len(),
            self.names.len(),
            if gains.is_empty() { "" } else { ": " },
            gains.join(", ")
        );
    }

    /// What the per-workload table does not say itself.
    fn legend(s: &mut String) {
        s.push_str(
            "\nasync-fifo is ssdlab's per-die FIFO, not in the paper: every die drains its own \
             queue, which is most of what PAQ1 does. Latency, idle and package \
             contention are PAQ2's change against VAQ.\n",
        );
    }

    /// PAQ2 against PAQ0 and PAQ1 in IOPS at `setting`, per workload.
    fn against(&self, s: &mut String, setting: Setting) {
        let iops = |w, x| self.at(w, setting, x).map(|r| r.iops);
        for (other, name) in [(PAQ0, "PAQ0"), (PAQ1, "PAQ1")] {
            let pairs: Vec<(usize, f64, f64)> = (0..self.names.len())
                .filter_map(|w| Some((w, iops(w, PAQ2)?, iops(w, other)?)))
                .collect();
            let ge = pairs.iter().filter(|p| p.1 >= p.2).count();
            let ratios: Vec<String> = pairs
                .iter()
                .map(|&(w, a, b)| format!("{} {:.4}", self.names[w], a / b.max(1e-9)))
                .collect();
            let _ = writeln!(
                s,
                "- {}: PAQ2 ≥ {name} in IOPS on {ge} of {} workloads; PAQ2/{name}: {}",
                setting.label(),
                pairs.len(),
                ratios.join(", ")
            );
        }
    }

    /// PAQ2 against PAQ0 and PAQ1, Little's law and GC.
    fn checks(&self, s: &mut String) {
        let n = self.names.len();
        self.against(s, Setting::Preset);
        self.over_100(s, Setting::Preset);
        if !self.quick {
            self.against(s, Setting::DieSplit);
            self.over_100(s, Setting::DieSplit);
        }
        let worst_little = (0..n)
            .flat_map(|w| PAPER.iter().map(move |&x| (w, x)))
            .map(|(w, x)| {
                let r = self.main(w, x);
                let little = f64::from(self.base.queue) / r.iops.max(1e-9) * 1e9;
                (r.mean_ns / little - 1.0).abs()
            })
            .fold(0.0f64, f64::max);
        let _ = writeln!(
            s,
            "- Little's law (closed loop: mean latency = {} / IOPS): largest deviation {} \
             over the preset runs",
            self.base.queue,
            pct(worst_little)
        );
        let (checked, bad) = (0..n).fold((0, 0), |(c, b), w| {
            let r = self.main(w, PAQ2);
            (c + r.verified, b + r.mismatches)
        });
        let _ = writeln!(
            s,
            "- verify (PAQ2, preset, every workload): {checked} reads checked, {bad} mismatches"
        );
        let gc: u64 = self.results.values().map(|r| r.gc_runs).sum();
        let _ = writeln!(
            s,
            "- GC runs over all {} runs: {gc}{}",
            self.results.len(),
            if gc == 0 { " (GC did not run)" } else { "" }
        );
    }

    fn sweeps(&self, s: &mut String) {
        let at = |w, st, sched| self.at(w, st, sched);
        for &w in &self.sweep {
            let name = &self.names[w];
            let _ = writeln!(s, "\n### Sweeps on {name}\n");
            s.push_str("| closed loop | ");
            let line = |s: &mut String,
                        label: &str,
                        pts: &[u32],
                        f: fn(u32) -> Setting,
                        v: fn(&Row) -> String| {
                let _ = write!(s, "{label} |");
                for &sched in &PAPER {
                    let cells: Vec<String> = pts
                        .iter()
                        .map(|&x| at(w, f(x), sched).map_or("-".into(), v))
                        .collect();
                    let _ = write!(s, " {} |", cells.join(" / "));
                }
                s.push('\n');
            };
            s.push_str("VAQ | PAQ0 | PAQ1 | PAQ2 |\n|---|---|---|---|---|\n");
            let q = &self.points.queues;
            let iops = |r: &Row| format!("{:.0}", r.iops);
            let mp = |r: &Row| r.mp_ops.to_string();
            let awt = |r: &Row| format!("{:.2}", r.awt_ns / 1e6);
            let joined = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            let (qs, cs, ds) = (
                joined(q),
                joined(&self.points.channels),
                joined(&self.points.dies),
            );
            line(s, &format!("| IOPS at queue {qs}"), q, Setting::Queue, iops);
            line(
                s,
                &format!("| multi-plane ops at queue {qs}"),
                q,
                Setting::Queue,
                mp,
            );
            line(
                s,
                &format!("| IOPS at {cs} channels"),
                &self.points.channels,
                Setting::Channels,
                iops,
            );
            line(
                s,
                &format!("| IOPS at {ds} dies per package"),
                &self.points.dies,
                Setting::Dies,
                iops,
            );
            line(
                s,
                &format!("| AWT (ms), open loop, queue {qs}"),
                q,
                Setting::AwtQueue,
                awt,
            );
            line(
                s,
                &format!("| AWT (ms), open loop, {cs} channels"),
                &self.points.channels,
                Setting::AwtChannels,
                awt,
            );
            let growth = |sched| {
                let first = at(w, Setting::Queue(q[0]), sched)?.iops;
                let last = at(w, Setting::Queue(*q.last()?), sched)?.iops;
                Some(last / first - 1.0)
            };
            let _ = writeln!(
                s,
                "\nIOPS from queue {} to {}: VAQ {}, PAQ0 {}, PAQ1 {}, PAQ2 {} (the paper: VAQ \
                 \"almost no improvements\", every PAQ \"significant gains\", PAQ0 \"rapidly \
                 increasing\"). Open-loop time scale {:.6} (offered load {:.0} % of VAQ's \
                 closed-loop IOPS at queue {}).",
                q[0],
                q.last().unwrap_or(&0),
                growth(VAQ).map_or("n/a".into(), pct),
                growth(PAQ0).map_or("n/a".into(), pct),
                growth(PAQ1).map_or("n/a".into(), pct),
                growth(PAQ2).map_or("n/a".into(), pct),
                self.scales.get(&w).copied().unwrap_or(f64::NAN),
                super::AWT_LOAD * 100.0,
                self.base.queue,
            );
        }
    }

    fn series_summary(&self, s: &mut String) {
        for (w, name) in self.names.iter().enumerate() {
            let (v, p) = (&self.main(w, VAQ).series, &self.main(w, PAQ2).series);
            if v.is_empty() || p.is_empty() {
                continue;
            }
            let lower = v.iter().zip(p).filter(|(a, b)| b < a).count();
            let doubled = v.iter().zip(p).filter(|(a, b)| **b > 2 * **a).count();
            let m = |x: &[u64]| mean(&x.iter().map(|&y| y as f64 / 1e3).collect::<Vec<_>>());
            let _ = writeln!(
                s,
                "- Fig. 13 on {name}, first {} requests: mean latency VAQ {:.0} µs, PAQ2 {:.0} µs; \
                 PAQ2 lower for {lower}, more than twice VAQ's for {doubled} (the paper, sql3: \
                 PAQ2 lower for a majority, \"a small subset\" above twice VAQ's)",
                v.len(),
                m(v),
                m(p)
            );
        }
    }

    /// The summary as Markdown.
    pub(super) fn summary(&self) -> String {
        let mut s = String::from("# reproduce paq: summary\n\n");
        let _ = writeln!(
            s,
            "{} workloads, {} runs, {:.0} s on {} threads{}; preset paq as shipped (closed \
             loop, {} outstanding requests; read 77.6 µs array + 102.4 µs bus); user \
             overrides: [{}]\n",
            self.names.len(),
            self.results.len(),
            self.wall_s,
            self.threads,
            if self.quick { " (--quick)" } else { "" },
            self.base.queue,
            self.sets.join(", ")
        );
        s.push_str("## Headline (preset)\n\n");
        self.headline(&mut s, Setting::Preset);
        if !self.quick {
            let _ = writeln!(
                s,
                "\n## Headline at the die-bound split (read 139.04 µs array + 41 µs bus)\n"
            );
            self.headline(&mut s, Setting::DieSplit);
            s.push_str(
                "\n## Headline with one commit per package (`scheduler.paq.chip_slots=1`, PAQ2 \
                 only, against VAQ at the preset)\n\n",
            );
            self.headline(&mut s, Setting::OneSlot);
        }
        s.push_str("\n## Workload by workload (preset)\n\n");
        self.per_workload(&mut s, Setting::Preset);
        Self::legend(&mut s);
        if !self.quick {
            s.push_str("\n## Workload by workload at the die-bound split\n\n");
            self.per_workload(&mut s, Setting::DieSplit);
        }
        s.push_str("\n## Checks\n\n");
        self.checks(&mut s);
        self.series_summary(&mut s);
        self.sweeps(&mut s);
        s
    }
}
