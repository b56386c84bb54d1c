//! `ssdlab run` with tenants: repeated `--trace` flags or `[[host.tenant]]` sections,
//! and `--alone` (docs/HOST.md).

use crate::args::{RunArgs, TraceArgs};
use crate::workload::trace_source;
use crate::{create_output, open_json, show_report, Failure};
use anyhow::anyhow;
use ssdlab::config::TenantConfig;
use ssdlab::{SimConfig, Simulation, VecStream};
use ssdlab_stats::Report;
use ssdlab_trace::RequestStream;

/// `true` when the run has tenants: several `--trace` flags, or `host.tenant` sections.
pub fn has_tenants(a: &RunArgs, cfg: &SimConfig) -> bool {
    a.replay.trace.trace.len() > 1 || !cfg.host.tenant.is_empty()
}

/// Runs the tenants, and each alone with `--alone`; prints the report.
pub fn cmd_run_tenants(a: &RunArgs, mut cfg: SimConfig) -> Result<(), Failure> {
    let traces = &a.replay.trace.trace;
    if traces.len() > 1 {
        if !cfg.host.tenant.is_empty() {
            return Err(Failure::input(anyhow!(
                "host.tenant: give tenants either as --trace flags or as [[host.tenant]] sections, not both"
            )));
        }
        cfg.host.tenant = traces
            .iter()
            .map(|p| TenantConfig {
                trace: p.clone(),
                ..TenantConfig::default()
            })
            .collect();
        cfg.validate().map_err(Failure::input)?;
    } else if !traces.is_empty() {
        return Err(Failure::input(anyhow!(
            "--trace: the configuration names its tenants (host.tenant); give no --trace, or several"
        )));
    }
    let json = open_json(a.replay.json.as_ref())?;
    let mut report = run(&cfg, None, a)?;
    if a.alone {
        let alone = (0..cfg.host.tenant.len())
            .map(|k| {
                let r = run(&cfg, Some(k), a)?;
                let t = r.tenants.as_ref().expect("a run with tenants reports them");
                Ok(t.tenants[k].response.mean_ns)
            })
            .collect::<Result<Vec<f64>, Failure>>()?;
        if let Some(t) = report.tenants.as_mut() {
            t.set_alone(&alone);
        }
    }
    show_report(&report, json)
}

/// The stream of tenant `t`: its trace read with the run's trace options, or its
/// synthetic workload (`.toml`).
fn open(t: &TenantConfig, args: &TraceArgs) -> Result<Box<dyn RequestStream>, Failure> {
    let mut one = args.clone();
    let toml = t.trace.extension().is_some_and(|e| e == "toml");
    if toml {
        one.trace = Vec::new();
        one.synthetic_config = Some(t.trace.clone());
    } else {
        one.trace = vec![t.trace.clone()];
    }
    let src = trace_source(&one)?;
    src.open()
        .map_err(|e| Failure::input(anyhow!("host.tenant {}: {e}", t.trace.display())))
}

/// One run of every tenant (`only` = None) or of tenant `only` alone, its namespace and
/// queue as in the shared run and the other tenants idle.
fn run(cfg: &SimConfig, only: Option<usize>, a: &RunArgs) -> Result<Report, Failure> {
    let streams = cfg
        .host
        .tenant
        .iter()
        .enumerate()
        .map(|(i, t)| match only {
            Some(k) if k != i => Ok(Box::new(VecStream::new(Vec::new())) as Box<dyn RequestStream>),
            _ => open(t, &a.replay.trace),
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let names: Vec<String> = cfg
        .host
        .tenant
        .iter()
        .map(|t| t.trace.display().to_string())
        .collect();
    let mut sim = Simulation::new(
        cfg.clone(),
        Box::new(VecStream::new(Vec::new())),
        &names.join(" + "),
    )?;
    if sim.needs_warm_up() {
        return Err(Failure::input(anyhow!(
            "ftl.precondition: a warm-up from the trace is not modelled with tenants"
        )));
    }
    sim.set_tenants(streams)?;
    if let (None, Some(path)) = (only, &a.per_request_csv) {
        let f = create_output("--per-request-csv", path)?;
        sim.set_per_request_csv(Box::new(std::io::BufWriter::new(f)));
    }
    if let Some(p) = a.replay.device.preset.as_deref() {
        sim.set_preset_name(p);
    }
    Ok(sim.run()?)
}
