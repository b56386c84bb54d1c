//! `ssdlab._native`: the Rust side of the `ssdlab` Python package.
//!
//! Thin by design: configuration layering is [`ssdlab::config::ConfigLayers`] (shared
//! with the command line), traces are read by `ssdlab_trace`, a run is a
//! [`ssdlab::Simulation`]. This crate only converts arguments in and results out, and
//! turns every error into one Python exception (`NativeError`) carrying a kind and the
//! key / file / line the Rust error names; `ssdlab/_errors.py` maps it onto the public
//! exception classes. Everything else (DataFrames, sweeps, plots) is Python.
//!
//! Functions return JSON text and raw columns rather than Python objects: the report's
//! JSON is the CLI's `--json` byte for byte, and the per-request results are the
//! columns of the CLI's `--per-request-csv` (the same [`ssdlab_stats::RequestLog`]
//! fields, each a `bytes` of little-endian integers that numpy reads without parsing),
//! so the two front ends cannot drift apart and no number is formatted or parsed.

mod cache;
mod errors;
mod tenants;

use errors::{argument, internal, NativeError, RunError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ssdlab::config::ConfigLayers;
use ssdlab::{SimConfig, Simulation};
use ssdlab_nand::ChipId;
use ssdlab_stats::RequestLog;
use ssdlab_trace::{
    RequestStream, SyntheticConfig, TraceError, TraceFormat, TraceOptions, TraceSource,
};
use std::path::PathBuf;
use std::sync::Arc;

/// The configuration arguments every entry point shares.
#[allow(clippy::too_many_arguments)]
fn layers(
    preset: Option<String>,
    config: Option<PathBuf>,
    config_text: Option<(String, String)>,
    set: Vec<String>,
    seed: Option<u64>,
    verify: bool,
    fail: Vec<String>,
    scheduler: Option<String>,
    dgc: bool,
) -> ConfigLayers {
    ConfigLayers {
        preset,
        config,
        config_text,
        scheduler,
        set,
        seed,
        verify,
        dgc,
        fail,
    }
}

/// The trace source a run names, with the command line's checks.
fn source(
    trace: Option<PathBuf>,
    format: Option<&str>,
    skip_bad_lines: bool,
    repeat: u32,
    synthetic: bool,
) -> Result<TraceSource, RunError> {
    match (trace, synthetic) {
        (Some(_), true) => Err(argument(
            "give either trace=FILE or synthetic=True, not both",
        )),
        (Some(path), false) => {
            if repeat == 0 {
                return Err(argument("repeat must be at least 1"));
            }
            let format = format
                .map(|f| f.parse::<TraceFormat>())
                .transpose()
                .map_err(|e| argument(&e.to_string()))?;
            Ok(TraceSource::File {
                path,
                options: TraceOptions {
                    format,
                    skip_bad_lines,
                    repeat,
                    ..TraceOptions::default()
                },
            })
        }
        (None, true) => Ok(TraceSource::Synthetic(SyntheticConfig::default())),
        (None, false) => Err(argument(
            "no workload: give trace=FILE, or synthetic=True for the built-in synthetic workload",
        )),
    }
}

/// What one run hands back to Python.
struct RunOutput {
    report_json: String,
    log: Option<RequestLog>,
    chips_json: Option<String>,
    config_json: String,
}

/// A resolved configuration as JSON: the TOML document `ssdlab config show` prints, as
/// a JSON object (tables as objects), so that it round-trips through `json_to_toml`.
fn config_json(cfg: &SimConfig) -> Result<String, RunError> {
    let value =
        toml::Value::try_from(cfg).map_err(|e| internal(&format!("configuration as TOML: {e}")))?;
    serde_json::to_string(&value).map_err(|e| internal(&format!("configuration as JSON: {e}")))
}

/// Per-chip busy time, wear and space, read at the end of a run: one JSON object of
/// equal-length columns, and the run's length (`end_ns`, the divisor of utilization).
fn chips_json(sim: &Simulation) -> String {
    let ftl = sim.ftl();
    let g = *ftl.geometry();
    let (busy, end_ns) = sim.chip_busy();
    let mut cols: [(&str, Vec<u64>); 11] = [
        ("chip", Vec::new()),
        ("channel", Vec::new()),
        ("way", Vec::new()),
        ("busy_ns", Vec::new()),
        ("erases", Vec::new()),
        ("erase_min", Vec::new()),
        ("erase_max", Vec::new()),
        ("valid_pages", Vec::new()),
        ("invalid_pages", Vec::new()),
        ("free_pages", Vec::new()),
        ("free_blocks", Vec::new()),
    ];
    for c in 0..g.chips() {
        let chip = ChipId(c);
        let (mut erases, mut emin, mut emax) = (0u64, u64::MAX, 0u64);
        let (mut valid, mut invalid, mut free, mut free_blocks) = (0u64, 0u64, 0u64, 0u64);
        for plane in g.planes_of_chip(chip) {
            for n in 0..g.blocks_per_plane {
                let e = u64::from(ftl.erase_count(g.block_of_plane(plane, n)));
                erases += e;
                emin = emin.min(e);
                emax = emax.max(e);
            }
            let s = ftl.plane_state(plane);
            valid += s.valid_pages;
            invalid += s.invalid_pages;
            free += s.free_pages;
            free_blocks += u64::from(s.free_blocks);
        }
        let row = [
            u64::from(c),
            u64::from(g.channel_of_chip(chip).0),
            u64::from(g.way_of_chip(chip)),
            busy[chip.idx()],
            erases,
            if emin == u64::MAX { 0 } else { emin },
            emax,
            valid,
            invalid,
            free,
            free_blocks,
        ];
        for (col, v) in cols.iter_mut().zip(row) {
            col.1.push(v);
        }
    }
    let mut map: serde_json::Map<String, serde_json::Value> = cols
        .into_iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(v)))
        .collect();
    map.insert("end_ns".into(), end_ns.into());
    serde_json::Value::Object(map).to_string()
}

/// One run, off the GIL: the command line's `prepare` + `simulate`, with the per-request
/// results kept as columns and the FTL read for per-chip figures before the report.
fn simulate(
    cfg: SimConfig,
    src: &TraceSource,
    preset: Option<&str>,
    per_request: bool,
    chips: bool,
    cache: bool,
) -> Result<RunOutput, RunError> {
    let config_json = config_json(&cfg)?;
    let src = &ssdlab::sim::workload_streams(&cfg, src)?;
    let cached = match src {
        TraceSource::File { path, options } if cache => Some(cache::load(path, options)?),
        _ => None,
    };
    let open = || -> Result<Box<dyn RequestStream>, TraceError> {
        match &cached {
            Some(c) => Ok(Box::new(cache::CachedStream::new(Arc::clone(c)))),
            None => src.open(),
        }
    };
    let mut sim = Simulation::on_trace(cfg, open, &src.describe())?;
    if let Some(p) = preset {
        sim.set_preset_name(p);
    }
    if per_request {
        sim.keep_request_log();
    }
    sim.run_to_end()?;
    let chips_json = chips.then(|| chips_json(&sim));
    let log = sim.take_request_log();
    let report = sim.into_report()?;
    Ok(RunOutput {
        report_json: report.to_json(),
        log,
        chips_json,
        config_json,
    })
}

/// Runs `f` with the GIL released, turning a panic into an internal error.
fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, RunError> + Send,
) -> PyResult<T> {
    let r = py.allow_threads(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(internal(&format!("internal error (please report): {msg}")))
        })
    });
    r.map_err(RunError::into_py)
}

/// `v` as one `bytes` of little-endian 64-bit integers (numpy's `<u8`).
fn le_bytes(py: Python<'_>, v: &[u64]) -> PyResult<Py<PyBytes>> {
    let b = PyBytes::new_with(py, v.len() * 8, |buf| {
        for (chunk, x) in buf.chunks_exact_mut(8).zip(v) {
            chunk.copy_from_slice(&x.to_le_bytes());
        }
        Ok(())
    })?;
    Ok(b.unbind())
}

/// The request log as `{column: bytes}`: `op` one byte per request (0 read, 1 write),
/// `tenant` (with tenants) two (little-endian `u16`, the tenant's index), every other
/// column eight (little-endian `u64`).
fn log_columns(py: Python<'_>, log: &RequestLog) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("op", PyBytes::new(py, &log.op))?;
    if let Some(status) = &log.status {
        d.set_item("status", PyBytes::new(py, status))?;
    }
    if let Some(tenant) = &log.tenant {
        let bytes: Vec<u8> = tenant.iter().flat_map(|t| t.to_le_bytes()).collect();
        d.set_item("tenant", PyBytes::new(py, &bytes))?;
    }
    for (name, col) in log.u64_columns() {
        d.set_item(name, le_bytes(py, col)?)?;
    }
    Ok(d.unbind())
}

/// Runs one configuration on one trace. Returns `(report_json, {column: bytes} | None,
/// chips_json | None, config_json)`, the last the configuration the run resolved (as
/// [`resolve_config`] gives it). See the Python wrapper `ssdlab.run` for the arguments.
/// What `run` gives Python: the summary JSON, the per-request columns, the chip table
/// (JSON) and the configuration the run resolved (JSON).
type RunToPython = (String, Option<Py<PyDict>>, Option<String>, String);

#[pyfunction]
#[pyo3(signature = (*, preset=None, config=None, config_text=None, trace=None, format=None,
    set=Vec::new(), seed=None, verify=false, fail=Vec::new(), scheduler=None, dgc=false,
    skip_bad_lines=false, repeat=1, synthetic=false, per_request=true, chips=true, cache=false))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    preset: Option<String>,
    config: Option<PathBuf>,
    config_text: Option<(String, String)>,
    trace: Option<PathBuf>,
    format: Option<String>,
    set: Vec<String>,
    seed: Option<u64>,
    verify: bool,
    fail: Vec<String>,
    scheduler: Option<String>,
    dgc: bool,
    skip_bad_lines: bool,
    repeat: u32,
    synthetic: bool,
    per_request: bool,
    chips: bool,
    cache: bool,
) -> PyResult<RunToPython> {
    let l = layers(
        preset.clone(),
        config,
        config_text,
        set,
        seed,
        verify,
        fail,
        scheduler,
        dgc,
    );
    let out = detached(py, move || {
        let cfg = l.build(&[])?;
        if !cfg.host.tenant.is_empty() {
            if trace.is_some() || synthetic {
                return Err(argument(
                    "the configuration names its tenants (host.tenant): give no trace",
                ));
            }
            let f = format.as_deref();
            return tenants::simulate(cfg, f, skip_bad_lines, preset.as_deref(), per_request);
        }
        let src = source(trace, format.as_deref(), skip_bad_lines, repeat, synthetic)?;
        simulate(cfg, &src, preset.as_deref(), per_request, chips, cache)
    })?;
    let log = out.log.as_ref().map(|l| log_columns(py, l)).transpose()?;
    Ok((out.report_json, log, out.chips_json, out.config_json))
}

/// The resolved configuration as `(toml_text, json_text, device_key)`; the device key
/// (`ssdlab::sim::shared_device_key`) is `None` when a run of it prepares a device of its
/// own, and runs with equal keys in one process share one preparation.
#[pyfunction]
#[pyo3(signature = (*, preset=None, config=None, config_text=None, set=Vec::new(), seed=None,
    verify=false, fail=Vec::new(), scheduler=None, dgc=false))]
#[allow(clippy::too_many_arguments)]
fn resolve_config(
    py: Python<'_>,
    preset: Option<String>,
    config: Option<PathBuf>,
    config_text: Option<(String, String)>,
    set: Vec<String>,
    seed: Option<u64>,
    verify: bool,
    fail: Vec<String>,
    scheduler: Option<String>,
    dgc: bool,
) -> PyResult<(String, String, Option<String>)> {
    let l = layers(
        preset,
        config,
        config_text,
        set,
        seed,
        verify,
        fail,
        scheduler,
        dgc,
    );
    detached(py, move || {
        let cfg = l.build(&[])?;
        let json = config_json(&cfg)?;
        Ok((cfg.to_toml(), json, ssdlab::sim::shared_device_key(&cfg)))
    })
}

/// The order to start runs in on `threads` threads of one process, given their device
/// keys (the third of [`resolve_config`]'s results; `ssdlab::sim::order_by_device`).
#[pyfunction]
fn device_order(keys: Vec<Option<String>>, threads: usize) -> Vec<usize> {
    ssdlab::sim::order_by_device(&keys, threads)
}

/// A JSON document (an object) as TOML text; errors name what cannot be represented.
#[pyfunction]
fn json_to_toml(json: &str) -> PyResult<String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| RunError::into_py(argument(&e.to_string())))?;
    let table = toml::Value::try_from(value)
        .map_err(|e| RunError::into_py(argument(&format!("not representable in TOML: {e}"))))?;
    toml::to_string(&table)
        .map_err(|e| RunError::into_py(argument(&format!("not representable in TOML: {e}"))))
}

/// The built-in presets' names.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    ssdlab::presets::NAMES.to_vec()
}

/// Statistics of a trace (what `ssdlab trace info` prints) as JSON text.
#[pyfunction]
#[pyo3(signature = (path, *, format=None, skip_bad_lines=false, repeat=1))]
fn trace_info(
    py: Python<'_>,
    path: PathBuf,
    format: Option<String>,
    skip_bad_lines: bool,
    repeat: u32,
) -> PyResult<String> {
    detached(py, move || {
        let src = source(Some(path), format.as_deref(), skip_bad_lines, repeat, false)?;
        let mut stream = src.open()?;
        let stats = ssdlab_trace::analyze(stream.as_mut())?;
        let mut value = serde_json::to_value(&stats)
            .map_err(|e| internal(&format!("trace statistics as JSON: {e}")))?;
        if let serde_json::Value::Object(m) = &mut value {
            m.insert("trace".into(), src.describe().into());
            m.insert("text".into(), stats.to_string().into());
        }
        Ok(value.to_string())
    })
}

/// Drops the parsed traces this process keeps for sweeps; returns how many there were.
#[pyfunction]
fn clear_trace_cache() -> usize {
    cache::clear()
}

/// Traces held by the cache of parsed traces.
#[pyfunction]
fn cached_traces() -> usize {
    cache::len()
}

/// Drops the prepared (aged) devices this process keeps for later runs, and the page
/// tables kept from a finished run on one; returns how many devices there were.
#[pyfunction]
fn release_shared_devices() -> usize {
    ssdlab::sim::release_shared_devices()
}

/// Prepared (aged) devices this process keeps for later runs.
#[pyfunction]
fn shared_devices() -> usize {
    ssdlab::sim::shared_devices()
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add("GIT_REV", ssdlab::GIT_REV)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add("CSV_HEADER", ssdlab_stats::CSV_HEADER)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(device_order, m)?)?;
    m.add_function(wrap_pyfunction!(json_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(clear_trace_cache, m)?)?;
    m.add_function(wrap_pyfunction!(cached_traces, m)?)?;
    m.add_function(wrap_pyfunction!(release_shared_devices, m)?)?;
    m.add_function(wrap_pyfunction!(shared_devices, m)?)?;
    Ok(())
}
