//! `ssdlab bench`: simulator speed on a real trace.
//!
//! Three wall times, all measured here in the CLI (wall time never enters a report):
//! set-up (building the FTL, preconditioning, opening the trace), simulation (replay,
//! including the streamed parse of the trace) and the whole process, from the first line
//! of `main` to the last byte of output.

use crate::args::BenchArgs;
use crate::{build_config, create_output, print, trace_source, write_json, Failure, STARTED};
use anyhow::Context;
use serde::Serialize;
use ssdlab::Simulation;
use ssdlab_nand::TxnReason;
use ssdlab_stats::Report;
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The flash work of a run: what two builds must agree on before their speeds compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FlashWork {
    /// Pages read from the array, for any reason.
    pub page_reads: u64,
    /// Pages programmed, for any reason.
    pub programs: u64,
    /// Pages GC moved.
    pub gc_moves: u64,
    /// Blocks erased.
    pub erases: u64,
}

impl FlashWork {
    /// Counts it from a report.
    pub fn of(r: &Report) -> FlashWork {
        let page_reads = r
            .transactions
            .iter()
            .filter(|t| {
                matches!(
                    t.reason,
                    TxnReason::HostRead
                        | TxnReason::ReconstructRead
                        | TxnReason::PreRead
                        | TxnReason::GcRead
                        | TxnReason::FoldRead
                        | TxnReason::ReclaimRead
                )
            })
            .map(|t| t.pages)
            .sum();
        FlashWork {
            page_reads,
            programs: r.programmed_pages,
            gc_moves: r.gc_pages_moved,
            erases: r.erases,
        }
    }
}

/// One run's speed figures: the JSON line `--jsonl` appends.
#[derive(Clone, Debug, Serialize)]
struct BenchLine {
    label: String,
    version: String,
    git_rev: String,
    config_hash: String,
    workload: String,
    device_pages: u64,
    setup_s: f64,
    simulation_s: f64,
    whole_process_s: f64,
    host_requests: u64,
    requests_per_s_whole_process: f64,
    requests_per_s_simulation: f64,
    flash_transactions: u64,
    events: u64,
    gc_runs: u64,
    flash_work: FlashWork,
    peak_rss_bytes: Option<u64>,
    peak_rss_bytes_per_device_page: Option<f64>,
}

/// Runs the workload once and prints speed figures.
pub fn cmd_bench(a: &BenchArgs) -> Result<(), Failure> {
    let cfg = build_config(&a.replay.device, &[])?;
    let device_pages = u64::from(cfg.geometry.pages());
    let config_hash = cfg.hash_hex();
    let src = trace_source(&a.replay.trace)?;
    let json = a
        .replay
        .json
        .as_ref()
        .map(|p| create_output("--json", p).map(|f| (f, p)))
        .transpose()?;
    let jsonl = a
        .jsonl
        .as_ref()
        .map(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("--jsonl {}", p.display()))
                .map_err(Failure::input)
                .map(|f| (f, p))
        })
        .transpose()?;
    let src = &ssdlab::sim::workload_streams(&cfg, &src)?;
    let start = Instant::now();
    let sim = Simulation::on_trace(cfg, || src.open(), &src.describe())?;
    let setup = start.elapsed();
    let report = sim.run()?;
    let run = start.elapsed() - setup;
    let secs = run.as_secs_f64().max(1e-9);
    let requests = report.requests.all;
    let txns: u64 = report.transactions.iter().map(|t| t.count).sum();
    let rss = peak_rss_bytes();
    let mut s = String::new();
    let _ = writeln!(s, "workload:            {}", src.describe());
    let _ = writeln!(
        s,
        "setup (incl. precondition): {:.3} s",
        setup.as_secs_f64()
    );
    let _ = writeln!(s, "simulation wall time: {secs:.3} s");
    let _ = writeln!(s, "host requests:       {requests}");
    let _ = writeln!(s, "host requests/s:     {:.0}", requests as f64 / secs);
    let _ = writeln!(s, "flash transactions:  {txns}");
    let _ = writeln!(s, "flash transactions/s: {:.0}", txns as f64 / secs);
    let _ = writeln!(s, "events/s:            {:.0}", report.events as f64 / secs);
    let _ = writeln!(s, "gc runs:             {}", report.gc_runs);
    match rss {
        Some(b) => {
            let _ = writeln!(
                s,
                "peak memory (VmHWM): {:.1} MiB ({:.2} bytes per device page)",
                b as f64 / (1024.0 * 1024.0),
                b as f64 / device_pages as f64
            );
        }
        None => {
            let _ = writeln!(s, "peak memory:         unknown (no /proc)");
        }
    }
    if let Some((file, path)) = json {
        write_json(file, path, &report)?;
    }
    let whole = STARTED.get().map_or(start, |t| *t).elapsed().as_secs_f64();
    let _ = writeln!(
        s,
        "whole process:       {whole:.3} s ({:.0} host requests/s)",
        requests as f64 / whole
    );
    print(&s)?;
    if let Some((mut file, path)) = jsonl {
        let line = BenchLine {
            label: a.label.clone(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_rev: ssdlab::GIT_REV.to_string(),
            config_hash,
            workload: src.describe(),
            device_pages,
            setup_s: setup.as_secs_f64(),
            simulation_s: secs,
            whole_process_s: whole,
            host_requests: requests,
            requests_per_s_whole_process: requests as f64 / whole,
            requests_per_s_simulation: requests as f64 / secs,
            flash_transactions: txns,
            events: report.events,
            gc_runs: report.gc_runs,
            flash_work: FlashWork::of(&report),
            peak_rss_bytes: rss,
            peak_rss_bytes_per_device_page: rss.map(|b| b as f64 / device_pages as f64),
        };
        let text = serde_json::to_string(&line).map_err(Failure::internal)?;
        writeln!(file, "{text}")
            .with_context(|| format!("--jsonl {}", path.display()))
            .map_err(Failure::input)?;
    }
    Ok(())
}
