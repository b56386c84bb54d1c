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
    if let Some(path) = &t.trace {
        let options = TraceOptions {
            format: t.format,
            skip_bad_lines: t.skip_bad_lines,
            repeat: t.repeat,
            max_request_bytes: t.max_request_bytes,
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

/// Says on stderr when timed failures fell after the last request and were not applied.
pub(crate) fn warn_unfired_failures(report: &Report) {
    let n = report.counter(Counter::FailuresNotFired);
    if n > 0 {
        eprintln!(
            "warning: {n} timed failure(s) fell after the last request completed and were not applied (counted as failures-not-fired)"
        );
    }
}
