//! `ssdlab bench`: simulator speed on a real trace.

use crate::args::RunArgs;
use crate::{build_config, create_output, print, trace_source, write_json, Failure};
use anyhow::anyhow;
use ssdlab::Simulation;
use std::time::Instant;

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Runs the workload once and prints speed figures (wall time is measured here, in the
/// CLI, and never enters a report).
pub fn cmd_bench(a: &RunArgs) -> Result<(), Failure> {
    let cfg = build_config(&a.device, &[])?;
    let src = trace_source(&a.trace)?;
    let json = a
        .json
        .as_ref()
        .map(|p| create_output("--json", p).map(|f| (f, p)))
        .transpose()?;
    let start = Instant::now();
    let sim = Simulation::on_trace(cfg, || src.open(), &src.describe())?;
    let setup = start.elapsed();
    let report = sim.run()?;
    let total = start.elapsed();
    let run = total - setup;
    let secs = run.as_secs_f64().max(1e-9);
    let requests = report.requests.all;
    let txns: u64 = report.transactions.iter().map(|t| t.count).sum();
    let rss = peak_rss_bytes()
        .ok_or_else(|| anyhow!("no /proc/self/status"))
        .ok();
    let mut s = String::new();
    use std::fmt::Write as _;
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
                "peak memory (VmHWM): {:.1} MiB",
                b as f64 / (1024.0 * 1024.0)
            );
        }
        None => {
            let _ = writeln!(s, "peak memory:         unknown (no /proc)");
        }
    }
    print(&s)?;
    if let Some((file, path)) = json {
        write_json(file, path, &report)?;
    }
    Ok(())
}
