//! `ssdlab study dsftl-surface` (docs/reproductions/dsftl.md, "Where the gain lives"):
//! DS-FTL's read-latency change against static and dynamic allocation as a surface over
//! what should drive it, and the paper's eight traces placed on it.
//!
//! ```text
//!  duplicate ratio (--dups) × offered load (--loads) × read share (--reads)
//!    ─► one synthetic workload each (content drawn with the duplicate ratio, reads of
//!       unwritten pages given content too), the `dsftl` preset as shipped
//!    ─► static, dynamic, DS-FTL (the reproduction's schemes), without a DRAM stage and,
//!       at the middle load, behind SSDsim's write buffer (the paper's Fig. 6 path)
//!    ─► read means, gains, reads with a copy on another channel, reads that took one,
//!       channel utilization, GC ─► dsftl-surface.csv, dsftl-surface*.svg, dsftl-surface.md
//! ```

use super::common::{create_out_dir, write_out, SSDSIM_BUFFER};
use super::dsftl::{DSFTL, DYNAMIC, SCHEMES, STATIC};
use super::runner::{self, Job, Run};
use super::{BusModel, Output};
use crate::Failure;
use anyhow::anyhow;
use clap::Args;
use ssdlab::{ConfigBuilder, SimConfig};
use ssdlab_trace::{AddressPattern, Arrival, SizeDist, SyntheticConfig, TraceSource};
use std::collections::BTreeMap;

/// `study dsftl-surface` arguments.
#[derive(Args, Debug)]
pub struct SurfaceArgs {
    #[command(flatten)]
    pub output: Output,
    /// Synthetic duplicate ratios (`duplicate_ratio`), one surface point each.
    #[arg(long, value_name = "R,..", value_delimiter = ',', default_values_t = [0.0, 0.2, 0.4, 0.6, 0.8])]
    pub dups: Vec<f64>,
    /// Offered loads, percent of the channels' aggregate page rate (the measured channel
    /// utilization is reported beside it).
    #[arg(long, value_name = "PCT,..", value_delimiter = ',', default_values_t = [10u32, 30, 60])]
    pub loads: Vec<u32>,
    /// Read shares of the requests.
    #[arg(long, value_name = "R,..", value_delimiter = ',', default_values_t = [0.1, 0.5, 0.8])]
    pub reads: Vec<f64>,
    /// Requests per run.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub requests: u64,
    /// Leave out the rows behind the DRAM write buffer.
    #[arg(long)]
    pub no_dram: bool,
}

/// The schemes compared, as indices into the reproduction's [`SCHEMES`].
pub(super) const COMPARED: [usize; 3] = [STATIC, DYNAMIC, DSFTL];

/// One surface point: duplicate-ratio, load and read-share indices, DRAM stage on.
pub(super) type Point = (usize, usize, usize, bool);
/// One run: a point and a scheme (index into [`COMPARED`]).
type Key = (Point, usize);

/// What one run keeps (times in µs, ratios as fractions).
#[derive(Clone, Debug, Default)]
pub(super) struct Kept {
    pub reads: u64,
    pub read_mean_us: f64,
    pub write_mean_us: f64,
    pub channel_util: f64,
    pub copies_chip: f64,
    pub copies_channel: f64,
    pub redirected: f64,
    pub gc_runs: u64,
}

fn keep(run: &Run) -> Kept {
    let r = &run.report;
    let d = r.dsftl.clone().unwrap_or_default();
    Kept {
        reads: r.requests.read,
        read_mean_us: r.response.read.mean_ns / 1e3,
        write_mean_us: r.response.write.mean_ns / 1e3,
        channel_util: d.channel_utilization.mean,
        copies_chip: d.reads_with_copies_ratio,
        copies_channel: d.reads_with_channel_copies_ratio,
        redirected: d.duplicate_read_ratio,
        gc_runs: r.gc_runs,
    }
}

/// A surface point's three runs.
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    pub dup: f64,
    pub load_pct: u32,
    pub read_share: f64,
    pub dram: bool,
    /// static, dynamic, DS-FTL.
    pub runs: [Kept; 3],
}

impl Row {
    /// DS-FTL's read mean against scheme `s` (index into [`COMPARED`]): DS-FTL / it − 1.
    pub fn gain(&self, s: usize) -> f64 {
        gain(self.runs[2].read_mean_us, self.runs[s].read_mean_us)
    }
}

/// `ours / baseline − 1` (0 when the baseline read nothing).
pub(super) fn gain(ours: f64, baseline: f64) -> f64 {
    if baseline > 0.0 {
        ours / baseline - 1.0
    } else {
        0.0
    }
}

/// The workload of a point: requests of 4–12 KiB (mean 8 KiB, Table 3's 7.99 KiB of
/// online, webmail and home4), Zipf 0.9 over 8 GiB, Poisson arrivals at `load` of the
/// channels' aggregate page rate, content drawn with duplicate ratio `dup`.
pub(super) fn workload(
    cfg: &SimConfig,
    requests: u64,
    dup: f64,
    load: f64,
    read: f64,
) -> SyntheticConfig {
    SyntheticConfig {
        requests,
        arrival: Arrival::Poisson {
            iops: load * super::dsftl::channel_pages_per_s(cfg) / 2.0,
        },
        read_ratio: read,
        size: SizeDist::Uniform {
            min_bytes: 4096,
            max_bytes: 12_288,
        },
        address: AddressPattern::Zipf { theta: 0.9 },
        footprint_bytes: 8 << 30,
        duplicate_ratio: dup,
        read_content: true,
        seed: 42,
        ..SyntheticConfig::default()
    }
}

fn check(a: &SurfaceArgs) -> Result<(), Failure> {
    let bad = |m: String| Err(Failure::input(anyhow!(m)));
    if a.dups.is_empty() || a.loads.is_empty() || a.reads.is_empty() {
        return bad("--dups, --loads and --reads each need at least one value".into());
    }
    if let Some(d) = a.dups.iter().find(|d| !(0.0..1.0).contains(*d)) {
        return bad(format!("--dups: {d} is not in [0, 1)"));
    }
    if let Some(r) = a.reads.iter().find(|r| !(0.0..=1.0).contains(*r)) {
        return bad(format!("--reads: {r} is not in [0, 1]"));
    }
    if let Some(l) = a.loads.iter().find(|l| **l == 0 || **l > 1000) {
        return bad(format!("--loads: {l} is not in 1..=1000 (percent)"));
    }
    if a.requests == 0 {
        return bad("--requests: give at least one request".into());
    }
    Ok(())
}

/// The points run: every combination without DRAM, and with the write buffer at the
/// middle load.
pub(super) fn points(a: &SurfaceArgs) -> Vec<Point> {
    let mut v = Vec::new();
    for d in 0..a.dups.len() {
        for l in 0..a.loads.len() {
            for r in 0..a.reads.len() {
                v.push((d, l, r, false));
                if !a.no_dram && l == a.loads.len() / 2 {
                    v.push((d, l, r, true));
                }
            }
        }
    }
    v
}

fn job(a: &SurfaceArgs, p: Point, s: usize) -> Result<Job, Failure> {
    let (d, l, r, dram) = p;
    let mut b = ConfigBuilder::new()
        .preset("dsftl")
        .map_err(Failure::input)?;
    let scheme = SCHEMES[COMPARED[s]];
    let buffer: &[&str] = if dram { &SSDSIM_BUFFER } else { &[] };
    for x in scheme.1.iter().chain(buffer) {
        b = b.set(x).map_err(Failure::input)?;
    }
    let cfg = b.build().map_err(Failure::input)?;
    let load = f64::from(a.loads[l]) / 100.0;
    let syn = workload(&cfg, a.requests, a.dups[d], load, a.reads[r]);
    Ok(Job {
        label: format!(
            "dup {} load {}% reads {} {}{}",
            a.dups[d],
            a.loads[l],
            a.reads[r],
            scheme.0,
            if dram { " +dram" } else { "" }
        ),
        preset: "dsftl",
        cfg,
        source: TraceSource::Synthetic(syn),
    })
}

/// Runs `study dsftl-surface`.
pub fn run(a: &SurfaceArgs) -> Result<(), Failure> {
    check(a)?;
    let out = &a.output.out;
    create_out_dir(out)?;
    let mut jobs = Vec::new();
    for p in points(a) {
        for s in 0..COMPARED.len() {
            jobs.push(((p, s), job(a, p, s)?));
        }
    }
    let done = runner::run_keyed(
        "study dsftl-surface",
        1,
        BusModel::Shared,
        jobs,
        a.output.jobs,
        keep,
    )?;
    let rows = rows(a, &done.results);
    let io = |e: String| Failure::internal(anyhow!(e));
    write_out(
        out,
        "dsftl-surface.csv",
        super::dsftl_surface_report::csv(&rows),
    )
    .map_err(io)?;
    super::dsftl_surface_report::figures(out, a, &rows).map_err(io)?;
    let md = super::dsftl_surface_report::summary(a, &rows, done.wall_s, done.threads);
    write_out(out, "dsftl-surface.md", md).map_err(io)?;
    eprintln!("wrote {}", out.join("dsftl-surface.md").display());
    Ok(())
}

fn rows(a: &SurfaceArgs, results: &BTreeMap<Key, Kept>) -> Vec<Row> {
    points(a)
        .into_iter()
        .map(|p| Row {
            dup: a.dups[p.0],
            load_pct: a.loads[p.1],
            read_share: a.reads[p.2],
            dram: p.3,
            runs: [0, 1, 2].map(|s| results[&(p, s)].clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gain_is_the_ratio_less_one() {
        assert!((gain(90.0, 100.0) + 0.1).abs() < 1e-12);
        assert!((gain(110.0, 100.0) - 0.1).abs() < 1e-12);
        assert_eq!(gain(5.0, 0.0), 0.0);
    }

    #[test]
    fn the_workload_offers_the_load_asked_for() {
        let cfg = SimConfig::preset("dsftl").unwrap();
        let s = workload(&cfg, 10, 0.4, 0.3, 0.5);
        let Arrival::Poisson { iops } = s.arrival else {
            panic!("Poisson arrivals")
        };
        // 8 channels at 102.575 µs a page, 30 %, 2 pages a request on average.
        assert!((iops - 0.3 * 8.0 * 1e9 / 102_575.0 / 2.0).abs() < 1e-6);
        assert_eq!((s.duplicate_ratio, s.read_ratio), (0.4, 0.5));
        assert!(s.read_content);
    }
}
