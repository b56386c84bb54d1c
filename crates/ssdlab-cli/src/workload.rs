//! The workload a command names (a trace file or a synthetic description) and what is
//! said about a run's workload after it.

use crate::args::TraceArgs;
use crate::{toml_from_str, Failure};
use anyhow::{anyhow, Context};
use ssdlab_stats::{Counter, Report};
use ssdlab_trace::{SyntheticConfig, TraceOptions, TraceSource};
use std::path::Path;

/// The trace (or synthetic workload) the arguments name.
pub fn trace_source(t: &TraceArgs) -> Result<TraceSource, Failure> {
    if t.trace.len() > 1 {
        return Err(Failure::input(anyhow!(
            "several --trace flags make tenants, which only `ssdlab run` takes"
        )));
    }
    if let Some(path) = t.trace.first() {
        let max_gap_ns = t
            .max_gap
            .as_deref()
            .map(|d| duration_ns(d).map_err(|e| Failure::input(anyhow!("--max-gap {d}: {e}"))))
            .transpose()?;
        let options = TraceOptions {
            format: t.format,
            skip_bad_lines: t.skip_bad_lines,
            repeat: t.repeat,
            max_request_bytes: t.max_request_bytes,
            max_gap_ns,
            discards: t.discards,
            ..TraceOptions::default()
        };
        if t.repeat == 0 {
            return Err(Failure::input(anyhow!("--repeat must be at least 1")));
        }
        if t.max_request_bytes == 0 {
            return Err(Failure::input(anyhow!(
                "--max-request-bytes must be at least 1"
            )));
        }
        return Ok(TraceSource::File {
            path: path.clone(),
            options,
        });
    }
    let cfg = match &t.synthetic_config {
        Some(path) => synthetic_from_file(path)?,
        None if t.synthetic => SyntheticConfig::default(),
        None => {
            return Err(Failure::input(anyhow!(
                "no workload: give --trace FILE, or --synthetic for the built-in synthetic workload"
            )))
        }
    };
    cfg.validate()
        .map_err(|e| Failure::input(anyhow!("synthetic workload: {e}")))?;
    Ok(TraceSource::Synthetic(cfg))
}

/// The synthetic workload described by the TOML file `path` (not yet validated); errors
/// name the file.
pub fn synthetic_from_file(path: &Path) -> Result<SyntheticConfig, Failure> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}", path.display()))
        .map_err(Failure::input)?;
    toml_from_str(&text).map_err(|e| Failure::input(anyhow!("{}: {e}", path.display())))
}

/// A duration with its unit (`1s`, `2.5ms`, `90min`) in nanoseconds.
pub fn duration_ns(text: &str) -> Result<u64, String> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let ns_per_unit: f64 = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        "d" => 86400e9,
        "" => return Err("give a unit: ns, us, ms, s, min, h or d (e.g. 1s)".into()),
        other => return Err(format!("unknown unit `{other}` (ns, us, ms, s, min, h, d)")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{number}` is not a number"))?;
    let ns = (value * ns_per_unit).round();
    if !(1.0..=ssdlab_trace::MAX_ARRIVAL_NS as f64).contains(&ns) {
        return Err("must be at least 1 ns and at most 2^62 ns".into());
    }
    Ok(ns as u64)
}

/// A span of time in the largest unit that keeps it readable (`40.1 years`, `3.2 days`).
fn human_span(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    let day = 86_400.0;
    if s >= 365.25 * day {
        format!("{:.1} years", s / (365.25 * day))
    } else if s >= day {
        format!("{:.1} days", s / day)
    } else {
        format!("{s:.3} s")
    }
}

/// Says on stderr when the trace's clock jumped by more than 30 days between two
/// requests (a wall-clock stamp inside a relative trace), and what `--max-gap` cut.
pub(crate) fn warn_time_jumps(report: &Report) {
    let n = report.counter(Counter::TraceTimeJumps);
    let cut = report.counter(Counter::TraceGapsCut);
    if n > 0 {
        let line = report.counter(Counter::TraceFirstJumpLine);
        let gap = report.counter(Counter::TraceFirstJumpNs);
        let more = if n > 1 {
            format!(" ({n} such jumps in all)")
        } else {
            String::new()
        };
        let followed = if cut > 0 {
            "--max-gap cut it"
        } else {
            "the run's clock followed it, so rates and utilizations include the gap; \
             cut such gaps with --max-gap (e.g. --max-gap 1s)"
        };
        eprintln!(
            "warning: {}: line {line}: the trace's clock jumps {} ahead of the previous \
             request{more}, a wall-clock stamp inside relative times?; {followed}",
            report.meta.trace,
            human_span(gap)
        );
    }
    if cut > 0 {
        eprintln!(
            "note: --max-gap cut {cut} gap(s) between requests, {} removed from the trace's time",
            human_span(report.counter(Counter::TraceGapCutNs))
        );
    }
}

/// Says on stderr when timed failures fell after the last request and were not applied.
pub(crate) fn warn_unfired_failures(report: &Report) {
    let n = report.counter(Counter::FailuresNotFired);
    if n > 0 {
        eprintln!(
            "warning: {n} timed failure(s) fell after the last request completed and were not applied (counted as failures-not-fired)"
        );
    }
}
