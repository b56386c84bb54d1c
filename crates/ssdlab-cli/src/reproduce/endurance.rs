//! `ssdlab study endurance` (docs/ERRORS.md, "The endurance study"): what in-SSD RAID
//! buys an ageing TLC drive. Not a paper's experiment: ssdlab's own, on the `tlc-1tb`
//! preset.
//!
//! ```text
//!  P/E cycles before the run (--pe) × scheme (none, chip RAID-5, channel RAID-5, CR5M)
//!    ─► tlc-1tb, filled, SLC cache off for all, verify on, the error model on with
//!       the RBER fitted to Li et al. (HotStorage '21) or the stress set (--rber)
//!    ─► one real trace (--trace) ─► read p99 / p99.9, retries per read, uncorrectable,
//!       rebuilt and lost reads ─► endurance.csv, endurance-*.svg, endurance.md
//! ```

use super::common::{create_out_dir, trace_name, write_out};
use super::runner::{self, Job, Run};
use super::{plot, Output};
use crate::Failure;
use anyhow::anyhow;
use clap::Args;
use ssdlab::ConfigBuilder;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `study endurance` arguments.
#[derive(Args, Debug)]
pub struct EnduranceArgs {
    #[command(flatten)]
    pub output: Output,
    /// The trace every point replays (any supported format). Default: the sample
    /// `traces/msr/hm_0-slice7016.csv.gz`.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// P/E cycles every block has been through before the run, one point each.
    #[arg(long, value_name = "N,..", value_delimiter = ',', default_values_t = [0u32, 1000, 3000, 5000, 7000])]
    pub pe: Vec<u32>,
    /// The RBER parameters: `paper`, the default fitted to a 3D TLC chip (Li et al.,
    /// HotStorage '21), or `stress`, a set not fitted to any paper whose wear grows with
    /// the square of the P/E count (docs/ERRORS.md §1).
    #[arg(long, value_enum, default_value_t = Rber::Paper)]
    pub rber: Rber,
}

/// Which RBER parameters the study runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Rber {
    /// `RberModel::default()`: fitted to Li et al., HotStorage '21 (CT flash B).
    Paper,
    /// `RberModel::stress()`: not fitted to a paper.
    Stress,
}

impl Rber {
    /// The parameters.
    fn model(self) -> ssdlab_nand::RberModel {
        match self {
            Rber::Paper => ssdlab_nand::RberModel::default(),
            Rber::Stress => ssdlab_nand::RberModel::stress(),
        }
    }

    /// Where they come from, in a figure's title.
    fn label(self) -> &'static str {
        match self {
            Rber::Paper => "RBER of Li et al., HotStorage '21",
            Rber::Stress => "stress RBER, not fitted",
        }
    }

    /// Where they come from, for the summary.
    fn source(self) -> &'static str {
        match self {
            Rber::Paper => {
                "its default parameters, **fitted to a 3D charge-trap TLC chip held a year at \
                 25 °C**: Q. Li, M. Ye, T.-W. Kuo, C. J. Xue, \"How the Common Retention \
                 Acceleration Method of 3D NAND Flash Memory Goes Wrong?\", HotStorage '21 \
                 (chip \"CT flash B\", Figs. 4, 5 and 7; measured up to 5000 P/E, so the 7000 \
                 point is an extrapolation; docs/ERRORS.md §1.1)"
            }
            Rber::Stress => {
                "the **stress** parameters (`RberModel::stress`), which are **not fitted to a \
                 paper**: wear grows with the square of the P/E count, so that a worn drive \
                 loses data (docs/ERRORS.md §1.3)"
            }
        }
    }
}

/// The device every point runs on.
const PRESET: &str = "tlc-1tb";
/// Keys every point sets: a drive holding data; the SLC cache off (the simulator does
/// not model it with RAID, and every scheme gets the same device); verify on.
const COMMON: [&str; 8] = [
    "ftl.precondition.enabled=true",
    "nand.slc_cache.mode=\"off\"",
    "nand.slc_cache.blocks_per_plane=0",
    "nand.slc_cache.free_share=0.5",
    "nand.slc_cache.t_read_ns=0",
    "nand.slc_cache.t_prog_ns=0",
    "verify=true",
    "errors.mode=\"on\"",
];
/// The wear spread and the data's age at every point (docs/ERRORS.md).
pub(super) const PE_SPREAD: f64 = 0.2;
pub(super) const AGE_S: f64 = 31_536_000.0;

/// A redundancy scheme: its name and the keys it sets.
pub(super) struct Scheme {
    pub name: &'static str,
    pub sets: &'static [&'static str],
}

/// The schemes, in the order of the figures' series.
pub(super) const SCHEMES: [Scheme; 4] = [
    Scheme {
        name: "no RAID",
        sets: &[],
    },
    Scheme {
        name: "chip RAID-5",
        sets: &["raid.level=5"],
    },
    Scheme {
        name: "channel RAID-5",
        sets: &["raid.level=5", "raid.domain=\"channel\""],
    },
    Scheme {
        name: "CR5M",
        sets: &[
            "raid.level=5",
            "raid.domain=\"channel\"",
            "raid.mirror_chips=true",
            "raid.buffer_new_writes=false",
        ],
    },
];

/// What one point keeps.
#[derive(Clone, Debug, Default)]
pub(super) struct Point {
    pub reads: u64,
    pub read_mean_us: f64,
    pub read_p99_us: f64,
    pub read_p999_us: f64,
    pub retry_us: f64,
    pub steps_per_read: f64,
    pub rber_mean: f64,
    pub uncorrectable: u64,
    pub host_uncorrectable: u64,
    pub rebuilt: u64,
    pub rebuilt_verified: u64,
    pub lost: u64,
    pub media_error_requests: u64,
    pub failed_rebuilds: u64,
    pub background: u64,
    pub gc_runs: u64,
    pub gc_pages_moved: u64,
    pub mismatches: u64,
}

fn keep(run: &Run) -> Point {
    let r = &run.report;
    let e = r.errors.clone().unwrap_or_default();
    let read = &r.response.read;
    Point {
        reads: read.count,
        read_mean_us: read.mean_ns / 1e3,
        read_p99_us: read.p99_ns as f64 / 1e3,
        read_p999_us: read.p999_ns as f64 / 1e3,
        retry_us: r.breakdown.read.retry_ns_mean.unwrap_or(0.0) / 1e3,
        steps_per_read: e.steps_per_read,
        rber_mean: e.rber_mean,
        uncorrectable: e.uncorrectable_reads,
        host_uncorrectable: e.host_uncorrectable,
        rebuilt: e.rebuilt_reads,
        rebuilt_verified: e.rebuilt_verified,
        lost: e.lost_reads,
        media_error_requests: e.media_error_requests,
        failed_rebuilds: e.failed_rebuilds,
        background: e.background_uncorrectable,
        gc_runs: r.gc_runs,
        gc_pages_moved: r.gc_pages_moved,
        mismatches: run.mismatches,
    }
}

/// The default trace: the sample hm_0 slice of the repository.
fn default_trace() -> Result<PathBuf, Failure> {
    let dir = crate::traces::traces_dir(None)?;
    Ok(dir.join("msr/hm_0-slice7016.csv.gz"))
}

/// Runs `study endurance`.
pub fn run(a: &EnduranceArgs) -> Result<(), Failure> {
    let trace = match &a.trace {
        Some(t) => t.clone(),
        None => default_trace()?,
    };
    if !trace.is_file() {
        return Err(Failure::input(anyhow!(
            "--trace {}: no such file",
            trace.display()
        )));
    }
    if a.pe.is_empty() {
        return Err(Failure::input(anyhow!("--pe: give at least one P/E count")));
    }
    let out = &a.output.out;
    create_out_dir(out)?;
    let source = runner::source_of(&trace).map_err(|e| Failure::input(anyhow!(e)))?;
    let mut jobs = Vec::new();
    for (si, s) in SCHEMES.iter().enumerate() {
        for (pi, &pe) in a.pe.iter().enumerate() {
            let mut b = ConfigBuilder::new()
                .preset(PRESET)
                .map_err(Failure::input)?;
            let point = [
                format!("errors.initial_pe={pe}"),
                format!("errors.pe_spread={PE_SPREAD}"),
                format!("errors.initial_age_s={AGE_S}"),
            ];
            for set in COMMON.iter().copied().chain(s.sets.iter().copied()) {
                b = b.set(set).map_err(Failure::input)?;
            }
            for set in &point {
                b = b.set(set).map_err(Failure::input)?;
            }
            let mut cfg = b.build().map_err(Failure::input)?;
            cfg.errors.rber = a.rber.model();
            let label = format!("{} at {pe} P/E", s.name);
            let job = Job {
                label,
                preset: PRESET,
                cfg,
                source: source.clone(),
            };
            jobs.push(((si, pi), job));
        }
    }
    let threads = runner::threads_or_cores(a.output.jobs);
    eprintln!(
        "study endurance: {} on {PRESET}, {} runs on {threads} threads",
        trace_name(&trace),
        jobs.len()
    );
    let done = runner::run_keyed_by(
        jobs,
        threads,
        |_, job| runner::run_logged(job, false).map(|r| r.0),
        keep,
    )?;
    let grid: Vec<Vec<Point>> = (0..SCHEMES.len())
        .map(|si| {
            (0..a.pe.len())
                .map(|pi| done.results[&(si, pi)].clone())
                .collect()
        })
        .collect();
    let bad: u64 = grid.iter().flatten().map(|p| p.mismatches).sum();
    if bad > 0 {
        return Err(Failure::internal(anyhow!("verify found {bad} wrong reads")));
    }
    write_out(out, "endurance.csv", csv(&a.pe, &grid))
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    figures(out, &a.pe, &grid, a.rber).map_err(|e| Failure::internal(anyhow!(e)))?;
    let md = summary(&trace, a, &grid, done.wall_s, done.threads);
    write_out(out, "endurance.md", md).map_err(|e| Failure::internal(anyhow!(e)))?;
    eprintln!("wrote {}", out.join("endurance.md").display());
    Ok(())
}

fn csv(pe: &[u32], grid: &[Vec<Point>]) -> String {
    let mut s = String::from(
        "scheme,pe_cycles,reads,read_mean_us,read_p99_us,read_p999_us,read_retry_us,\
         steps_per_read,rber_mean,uncorrectable_reads,host_uncorrectable,rebuilt_reads,\
         rebuilt_verified,lost_reads,media_error_requests,failed_rebuilds,\
         background_uncorrectable,gc_runs,gc_pages_moved\n",
    );
    for (si, row) in grid.iter().enumerate() {
        for (p, x) in pe.iter().zip(row) {
            let _ = writeln!(
                s,
                "{},{p},{},{:.2},{:.2},{:.2},{:.2},{:.4},{:.4e},{},{},{},{},{},{},{},{},{},{}",
                SCHEMES[si].name,
                x.reads,
                x.read_mean_us,
                x.read_p99_us,
                x.read_p999_us,
                x.retry_us,
                x.steps_per_read,
                x.rber_mean,
                x.uncorrectable,
                x.host_uncorrectable,
                x.rebuilt,
                x.rebuilt_verified,
                x.lost,
                x.media_error_requests,
                x.failed_rebuilds,
                x.background,
                x.gc_runs,
                x.gc_pages_moved
            );
        }
    }
    s
}

/// A figure: its file, title, y label and the value it plots.
type Chart = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn Fn(&Point) -> f64>,
);

fn figures(out: &Path, pe: &[u32], grid: &[Vec<Point>], rber: Rber) -> Result<(), String> {
    let xs: Vec<String> = pe.iter().map(|p| p.to_string()).collect();
    let series = |f: &dyn Fn(&Point) -> f64| -> Vec<(String, Vec<f64>)> {
        grid.iter()
            .enumerate()
            .map(|(si, row)| (SCHEMES[si].name.to_string(), row.iter().map(f).collect()))
            .collect()
    };
    let charts: [Chart; 5] = [
        (
            "endurance-read-p99.svg",
            "Read p99 latency by wear",
            "read p99 (µs)",
            Box::new(|p| p.read_p99_us),
        ),
        (
            "endurance-read-p999.svg",
            "Read p99.9 latency by wear",
            "read p99.9 (µs)",
            Box::new(|p| p.read_p999_us),
        ),
        (
            "endurance-retries.svg",
            "Read-retry steps and soft decodes per page read",
            "steps per read",
            Box::new(|p| p.steps_per_read),
        ),
        (
            "endurance-uncorrectable.svg",
            "Uncorrectable host page reads",
            "host page reads",
            Box::new(|p| p.host_uncorrectable as f64),
        ),
        (
            "endurance-lost.svg",
            "Host page reads lost (media errors)",
            "page reads lost",
            Box::new(|p| p.lost as f64),
        ),
    ];
    for (file, title, y, f) in &charts {
        let s = series(f.as_ref());
        let title = format!("{title} ({})", rber.label());
        let l = plot::Lines {
            title: &title,
            x_label: "P/E cycles before the run",
            y_label: y,
            xs: &xs,
            series: &s,
            ..plot::Lines::default()
        };
        plot::lines(&out.join(file), &l)?;
    }
    Ok(())
}

fn summary(
    trace: &Path,
    a: &EnduranceArgs,
    grid: &[Vec<Point>],
    wall_s: f64,
    threads: usize,
) -> String {
    let pe = &a.pe;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Endurance study: what in-SSD RAID buys an ageing TLC drive\n"
    );
    let _ = writeln!(
        s,
        "`ssdlab study endurance` on the `{PRESET}` preset, filled before the trace, its SLC \
         cache off for every scheme (not modelled with RAID), verify on; trace `{}`; seed 1. \
         The error model (`errors.mode = \"on\"`) with {}; the ECC and retry ladder at their \
         defaults (docs/ERRORS.md §2). Every block's P/E count is drawn around the \
         point's value with a {:.0} % coefficient of variation, and the data on the drive is \
         {:.0} days old. {} runs on {threads} threads in {wall_s:.1} s.\n",
        trace_name(trace),
        a.rber.source(),
        PE_SPREAD * 100.0,
        AGE_S / 86_400.0,
        pe.len() * SCHEMES.len()
    );
    let _ = writeln!(
        s,
        "| scheme | P/E | reads | read mean (µs) | read p99 (µs) | read p99.9 (µs) | T_retry (µs) | steps/read | uncorrectable host reads | rebuilt (verified) | lost | requests with media errors | GC runs |"
    );
    let _ = writeln!(
        s,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for (si, row) in grid.iter().enumerate() {
        for (p, x) in pe.iter().zip(row) {
            let _ = writeln!(
                s,
                "| {} | {p} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.3} | {} | {} ({}) | {} | {} | {} |",
                SCHEMES[si].name,
                x.reads,
                x.read_mean_us,
                x.read_p99_us,
                x.read_p999_us,
                x.retry_us,
                x.steps_per_read,
                x.host_uncorrectable,
                x.rebuilt,
                x.rebuilt_verified,
                x.lost,
                x.media_error_requests,
                x.gc_runs
            );
        }
    }
    let gc: u64 = grid.iter().flatten().map(|p| p.gc_runs).sum();
    let _ = writeln!(
        s,
        "\nGC {} during these runs ({gc} GC runs in all). A rebuilt read is verified when \
         verify checked its content (every one here: verify is on). Figures: \
         `endurance-read-p99.svg`, `endurance-read-p999.svg`, `endurance-retries.svg`, \
         `endurance-uncorrectable.svg`, `endurance-lost.svg`; every number is in `endurance.csv`.",
        if gc > 0 { "ran" } else { "did not run" }
    );
    s
}
