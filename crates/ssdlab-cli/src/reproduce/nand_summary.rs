//! The summary of `reproduce nand`, as Markdown: what was run, the write cliff's levels
//! with the SLC cache and the back end's work, and the read latency with and without
//! suspend, each ratio beside its absolute values.

use super::figures::{at_quantile, gb, levels, LEVEL_TOLERANCE, LEVEL_WINDOW};
use super::{Experiment, Outcome, BIN_BYTES, FILLED, PRESET, SETUPS};
use ssdlab_stats::Report;
use std::fmt::Write as _;

/// A duration of `ns` in a readable unit.
fn dur(ns: f64) -> String {
    if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// `n` with its digits in groups of three, as the docs write numbers.
pub(super) fn group(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// A throughput in MB/s, rounded, its digits grouped.
pub(super) fn mb(v: f64) -> String {
    group(v.round().max(0.0) as u64)
}

/// `a` against `b`: both, and their ratio.
fn versus(a: f64, b: f64) -> String {
    let ratio = if b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "n/a".into()
    };
    format!("{} vs {} ({ratio})", dur(a), dur(b))
}

/// Requests per second of simulated time up to the last completion.
fn served_iops(o: &Outcome) -> f64 {
    let r = &o.run.report;
    r.requests.all as f64 / (o.last_completion_ns.max(1) as f64 / 1e9)
}

impl Experiment {
    pub(super) fn summary(&self) -> String {
        let mut s = String::from("# reproduce nand: summary\n\n");
        let _ = writeln!(
            s,
            "The two figures of the NAND model (issue 36, item 6) on the `{PRESET}` preset as \
             shipped (docs/PRESETS.md, docs/NAND.md): the write cliff of a fresh drive and the \
             host read latency with and without program/erase suspend. {} runs on {} threads, \
             {:.1} s wall time.\n",
            1 + 2 * SETUPS.len(),
            self.threads,
            self.wall_s
        );
        self.cliff_section(&mut s);
        self.suspend_section(&mut s);
        s.push_str(
            "## Files\n\n\
             | file | content |\n|---|---|\n\
             | `write-cliff.csv` | one row per bin: GB written at its start and end, simulated time at its start and end (s), throughput (MB/s), level (1, 2, ...) |\n\
             | `write-cliff.svg`, `.png` | throughput against data written, with the median of each level dashed |\n\
             | `suspend-cdf.csv` | host read response time (µs) of each mixed run at every 0.1 % quantile, 99.95 %, 99.99 % and the largest (nearest rank over every read) |\n\
             | `suspend-cdf.svg`, `.png` | those distributions: log x, y on a percentile scale (−log10(1 − F): 0, 90, 99, 99.9 %) |\n\
             | `nand-summary.md` | this summary |\n",
        );
        s
    }

    fn cliff_section(&self, s: &mut String) {
        let p = &self.plan;
        let r = &self.cliff.run.report;
        let _ = writeln!(
            s,
            "## Write cliff (`write-cliff.*`)\n\n\
             | setting | value |\n|---|---|\n\
             | device | `{PRESET}` as shipped: a fresh drive (`ftl.precondition.enabled = false`), its dynamic SLC cache, `when_full = \"direct\"`, idle folding |\n\
             | host | closed loop, {} requests outstanding (`host.mode = \"closed\"`, `host.queue_depth = {}`) |\n\
             | workload | {} writes of {} KiB, sequential from byte 0: {} B ({:.1} GB, {:.2} % of the logical capacity of {} B{}) |\n\
             | bins | {} GB of completed bytes each, in completion order: a bin's throughput is its bytes over the time between the completions that close it and the one before |\n\
             | levels | the median of the first {LEVEL_WINDOW} bins is the first level's reference; a bin starts a new level when it and the median of the {LEVEL_WINDOW} bins from it both differ from the reference by more than {:.0} %, that median being the new reference. Each level: the median of its bins, and its bytes over its time |\n",
            p.fill_queue,
            p.fill_queue,
            group(p.fill_bytes / p.fill_request),
            p.fill_request >> 10,
            group(p.fill_bytes),
            gb(p.fill_bytes),
            100.0 * p.fill_bytes as f64 / p.logical_bytes as f64,
            group(p.logical_bytes),
            if p.fill_bytes < p.logical_bytes / p.fill_request * p.fill_request {
                "; `--fill-bytes` asked for less than the whole drive"
            } else {
                ""
            },
            BIN_BYTES / 1_000_000_000,
            100.0 * LEVEL_TOLERANCE,
        );
        let bins = &self.cliff.bins;
        let _ = writeln!(
            s,
            "| level | from (GB written) | to (GB) | bins | median (MB/s) | bytes / time (MB/s) | slowest – fastest bin (MB/s) |\n\
             |---|---|---|---|---|---|---|"
        );
        let lv = levels(bins);
        for (i, l) in lv.iter().enumerate() {
            let _ = writeln!(
                s,
                "| {} | {:.0} | {:.1} | {} | {} | {} | {} – {} |",
                i + 1,
                gb(bins[l.first].start_bytes),
                gb(bins[l.last].end_bytes),
                l.last - l.first + 1,
                mb(l.median),
                mb(l.rate),
                mb(l.min),
                mb(l.max)
            );
        }
        let steps: Vec<String> = lv
            .windows(2)
            .map(|w| {
                format!(
                    "Level at {:.0} GB against the one before: {} vs {} MB/s ({:.2}×).",
                    gb(bins[w[1].first].start_bytes),
                    mb(w[1].median),
                    mb(w[0].median),
                    w[1].median / w[0].median
                )
            })
            .collect();
        if !steps.is_empty() {
            let _ = writeln!(s, "\n{}", steps.join(" "));
        }
        s.push('\n');
        if let Some(c) = r.nand.as_ref().and_then(|n| n.slc_cache.as_ref()) {
            let _ = writeln!(
                s,
                "SLC cache (report, `nand.slc_cache`): {} mode, at most {} blocks per plane of {} pages: \
                 `size_bytes` {} B ({:.1} GB), `peak_bytes` {} B ({:.1} GB) held at once. \
                 {} host pages written in SLC mode, {} directly in TLC (`when_full = \"{}\"`); \
                 {} folds ({} started in idle time), {} pages moved by folding, {} SLC-mode erases.\n",
                c.mode,
                c.blocks_per_plane,
                c.pages_per_block,
                group(c.size_bytes),
                gb(c.size_bytes),
                group(c.peak_bytes),
                gb(c.peak_bytes),
                group(c.slc_pages_written),
                group(c.direct_pages_written),
                c.when_full,
                group(c.folds),
                group(c.idle_folds),
                group(c.fold_pages_moved),
                group(c.slc_erases)
            );
        }
        let padded = r.nand.as_ref().map_or(0, |n| n.padded_wordlines);
        let _ = writeln!(
            s,
            "Back end: {} GC runs, {} pages moved by GC; {} erases; write amplification {:.3}; \
             {} padded wordlines.\n\n\
             Time: the last request completed at {:.1} s of simulated time; the report's run \
             length is {:.1} s (it ends at the last event: folding after the last request \
             counts in it, and so in its bandwidth, {:.0} MiB/s). The run took {:.1} s of wall \
             time.\n",
            group(r.gc_runs),
            group(r.gc_pages_moved),
            group(r.erases),
            r.write_amplification,
            group(padded),
            self.cliff.last_completion_ns as f64 / 1e9,
            r.sim_time_ns as f64 / 1e9,
            r.bandwidth_mib_s,
            self.cliff.wall_s
        );
    }

    fn suspend_section(&self, s: &mut String) {
        let p = &self.plan;
        let _ = writeln!(
            s,
            "## Read latency with and without suspend (`suspend-cdf.*`)\n\n\
             | setting | value |\n|---|---|\n\
             | device | `{PRESET}`, **filled first** (`{FILLED}`, a labelled setting: every logical page written once, sequentially, so that reads find data) |\n\
             | workload | {} requests of {} KiB, {:.0} % reads, uniform over the whole logical capacity ({} B), Poisson arrivals (open loop), seed 1 |\n\
             | runs | each setup twice: `scheduler.suspend = \"host-reads\"` (the preset's) and `\"off\"`, the only difference |\n\
             | latency | response time (arrival to completion) of every host read, from the per-request records |\n",
            group(p.mix_requests),
            p.mix_request >> 10,
            100.0 * p.mix_reads,
            group(p.logical_bytes)
        );
        s.push_str("| setup | what it changes | offered rate |\n|---|---|---|\n");
        for setup in &SETUPS {
            let sets = if setup.sets.is_empty() {
                "nothing: the preset as shipped".to_string()
            } else {
                setup
                    .sets
                    .iter()
                    .map(|x| format!("`{x}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let iops = group(setup.iops as u64);
            let _ = writeln!(s, "| {} | {sets} | {iops} IOPS |", setup.label);
        }
        s.push_str(
            "\nThe rates: as shipped at 20 000 IOPS the dies are about a sixth busy and the \
             SLC cache folds in the host's idle gaps; at 100 000 IOPS, the rate of the run \
             without the cache, the two setups differ only in the cache. Without it, 100 000 \
             IOPS keeps the dies about two thirds busy (reads and one-shot programs), short of \
             saturation (docs/reproductions/nand.md).\n\n\
             | run | reads | p50 | p99 | p99.9 | largest | reads over 10 ms | served IOPS | die busy | host-queue wait, mean | SLC / direct pages | folds (idle) | GC runs |\n\
             |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for (i, q, o) in self.mixed_runs() {
            let r = &o.run.report;
            let v = &o.reads_ns;
            let at = |x: f64| dur(at_quantile(v, x) as f64);
            let slc = r.nand.as_ref().and_then(|n| n.slc_cache.as_ref());
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {:.1} % | {} | {:.1} % | {} | {} | {} | {} |",
                Self::run_name(i, q),
                group(v.len() as u64),
                at(0.5),
                at(0.99),
                at(0.999),
                at(1.0),
                100.0 * v.iter().filter(|&&x| x > 10_000_000).count() as f64
                    / v.len().max(1) as f64,
                group(served_iops(o).round() as u64),
                100.0 * r.utilization.die.mean,
                dur(r.host_queue_wait.all.mean_ns),
                slc.map_or("no SLC cache".into(), |c| format!(
                    "{} / {}",
                    group(c.slc_pages_written),
                    group(c.direct_pages_written)
                )),
                slc.map_or("-".into(), |c| format!(
                    "{} ({})",
                    group(c.folds),
                    group(c.idle_folds)
                )),
                group(r.gc_runs)
            );
        }
        s.push_str(
            "\nServed IOPS: requests over the time to the last completion. Die busy: the \
             report's, over its run length, which includes folding after the last request.\n\n\
             | setup | read p50, suspend vs off | p99 | p99.9 |\n|---|---|---|---|\n",
        );
        for (i, pair) in self.mixed.iter().enumerate() {
            let q = |x: f64| {
                versus(
                    at_quantile(&pair[0].reads_ns, x) as f64,
                    at_quantile(&pair[1].reads_ns, x) as f64,
                )
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                SETUPS[i].label,
                q(0.5),
                q(0.99),
                q(0.999)
            );
        }
        s.push_str("\nSuspensions (report, `nand.suspend`, runs with suspend on):\n\n");
        s.push_str("| setup | programs suspended | erases suspended | refused | time suspended, mean |\n|---|---|---|---|---|\n");
        for (i, pair) in self.mixed.iter().enumerate() {
            if let Some(x) = pair[0]
                .run
                .report
                .nand
                .as_ref()
                .and_then(|n| n.suspend.as_ref())
            {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} |",
                    SETUPS[i].label,
                    group(x.program_suspends),
                    group(x.erase_suspends),
                    group(x.refused),
                    dur(x.suspended_ns_mean)
                );
            }
        }
        s.push_str(
            "\nHost read transactions by page type (report, `nand.reads_by_page_type`: from \
             the transaction's submission to the scheduler to its page delivered; the wait of \
             a request for a device-queue slot comes before and is not in it):\n\n\
             | setup | page type | array read | reads | mean, suspend vs off | p99, suspend vs off |\n\
             |---|---|---|---|---|---|\n",
        );
        for (i, pair) in self.mixed.iter().enumerate() {
            page_types(s, SETUPS[i].label, &pair[0].run.report, &pair[1].run.report);
        }
        let _ = writeln!(
            s,
            "\nWall time of each run: {}.\n",
            self.mixed_runs()
                .map(|(i, q, o)| format!("{} {:.1} s", Self::run_name(i, q), o.wall_s))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Rows of the per-page-type table of one setup: runs `on` and `off`.
fn page_types(s: &mut String, label: &str, on: &Report, off: &Report) {
    let types = |r: &Report| r.nand.as_ref().map(|n| n.reads_by_page_type.clone());
    let (Some(a), Some(b)) = (types(on), types(off)) else {
        return;
    };
    for (x, y) in a.iter().zip(&b) {
        let _ = writeln!(
            s,
            "| {label} | {} | {} | {} / {} | {} | {} |",
            x.page_type,
            dur(x.t_read_ns as f64),
            group(x.latency.count),
            group(y.latency.count),
            versus(x.latency.mean_ns, y.latency.mean_ns),
            versus(x.latency.p99_ns as f64, y.latency.p99_ns as f64)
        );
    }
}
