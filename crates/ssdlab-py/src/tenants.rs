//! A run whose configuration names tenants (`[[host.tenant]]`): each tenant's trace
//! opened with the run's trace options, the simulation fed from them (docs/HOST.md).
//! Its report carries the per-tenant results (`tenants`), which `Result.tenants` shows
//! as a frame.

use crate::errors::{argument, RunError};
use crate::RunOutput;
use ssdlab::{SimConfig, Simulation, VecStream};
use ssdlab_trace::{RequestStream, TraceFormat, TraceOptions, TraceSource};

/// Runs the tenants of `cfg`, their traces read as `format` (detected when `None`).
pub fn simulate(
    cfg: SimConfig,
    format: Option<&str>,
    skip_bad_lines: bool,
    preset: Option<&str>,
    per_request: bool,
) -> Result<RunOutput, RunError> {
    let config_json = crate::config_json(&cfg)?;
    let format = format
        .map(|f| f.parse::<TraceFormat>())
        .transpose()
        .map_err(|e| argument(&e.to_string()))?;
    let mut streams: Vec<Box<dyn RequestStream>> = Vec::new();
    let mut names = Vec::new();
    for (i, t) in cfg.host.tenant.iter().enumerate() {
        if t.trace.extension().is_some_and(|e| e == "toml") {
            return Err(argument(&format!(
                "host.tenant[{i}].trace: synthetic workloads as tenants run from the command line only; give a trace file"
            )));
        }
        let src = TraceSource::File {
            path: t.trace.clone(),
            options: TraceOptions {
                format,
                skip_bad_lines,
                ..TraceOptions::default()
            },
        };
        streams.push(src.open()?);
        names.push(t.trace.display().to_string());
    }
    let mut sim = Simulation::new(
        cfg,
        Box::new(VecStream::new(Vec::new())),
        &names.join(" + "),
    )?;
    if sim.needs_warm_up() {
        return Err(argument(
            "ftl.precondition: a warm-up from the trace is not modelled with tenants",
        ));
    }
    sim.set_tenants(streams)?;
    if let Some(p) = preset {
        sim.set_preset_name(p);
    }
    if per_request {
        sim.keep_request_log();
    }
    sim.run_to_end()?;
    let log = sim.take_request_log();
    let report = sim.into_report()?;
    Ok(RunOutput {
        report_json: report.to_json(),
        log,
        chips_json: None,
        config_json,
    })
}
