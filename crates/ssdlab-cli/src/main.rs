//! `ssdlab`: the command line of the simulator.
//!
//! Exit codes: 0 on success, 2 on bad input (trace, configuration, arguments), 1 on an
//! internal error.

mod args;
mod bench;
mod config_doc;
mod explain;
mod import;
mod names;
mod progress;
mod reproduce;
mod sweep;
mod table;
mod tenants;
mod traces;
mod verify;
mod workload;

use anyhow::{anyhow, Context};
use args::{Cli, Cmd, CompareArgs, ConfigCmd, DeviceArgs, RaidCmd, RunArgs, TraceArgs, TraceCmd};
use clap::Parser;
use ssdlab::config::ConfigLayers;
use ssdlab::{ConfigBuilder, SimConfig, SimError, Simulation};
use ssdlab_stats::Report;
use ssdlab_trace::{RequestStream, SyntheticConfig, TraceSource};
use std::io::Write as _;
use std::process::ExitCode;
pub use workload::trace_source;
use workload::{warn_time_jumps, warn_unfired_failures};

/// An error with the exit code it deserves.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    err: anyhow::Error,
}

impl Failure {
    /// Bad input from the user: exit code 2.
    pub fn input(err: impl Into<anyhow::Error>) -> Self {
        Failure {
            code: 2,
            err: err.into(),
        }
    }
    /// Something went wrong inside: exit code 1.
    pub fn internal(err: impl Into<anyhow::Error>) -> Self {
        Failure {
            code: 1,
            err: err.into(),
        }
    }
}

impl From<SimError> for Failure {
    fn from(e: SimError) -> Self {
        if e.is_bad_input() {
            Failure::input(e)
        } else {
            Failure::internal(e)
        }
    }
}

/// When the process started (the first thing `main` does): `bench` reports whole-process
/// wall time from here.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

fn main() -> ExitCode {
    STARTED.get_or_init(std::time::Instant::now);
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {:#}", f.err);
            ExitCode::from(f.code)
        }
    }
}

fn dispatch(cli: Cli) -> Result<(), Failure> {
    match cli.cmd {
        Cmd::Run(a) => {
            ssdlab::sim::set_device_sharing(false);
            cmd_run(&a)
        }
        Cmd::Verify(a) => {
            ssdlab::sim::set_device_sharing(false);
            verify::cmd_verify(&a)
        }
        Cmd::Compare(a) => cmd_compare(&a),
        Cmd::Trace {
            cmd: TraceCmd::Info(t),
        } => cmd_trace_info(&t.to_trace_args()),
        Cmd::Config { cmd } => cmd_config(&cmd),
        Cmd::Raid {
            cmd: RaidCmd::Layout { device, rows },
        } => cmd_raid_layout(&device, rows),
        Cmd::Demo => cmd_demo(),
        Cmd::Traces { dir } => traces::cmd_traces(dir.as_deref()),
        Cmd::Bench(a) => {
            ssdlab::sim::set_device_sharing(false);
            bench::cmd_bench(&a)
        }
        Cmd::Sweep(a) => sweep::cmd_sweep(&a),
        Cmd::Reproduce { cmd } => reproduce::run(&cmd),
        Cmd::Study {
            cmd: args::StudyCmd::Endurance(a),
        } => reproduce::endurance::run(&a),
        Cmd::Study {
            cmd: args::StudyCmd::DsftlSurface(a),
        } => reproduce::dsftl_surface::run(&a),
    }
}

/// Resolves `--preset`/`--config`/`--set`/`--seed`/`--scheduler`/`--verify`/`--dgc`/`--fail`
/// (the order is [`ConfigLayers`]'s, shared with the Python bindings).
pub fn build_config(d: &DeviceArgs, extra: &[String]) -> Result<SimConfig, Failure> {
    let layers = ConfigLayers {
        preset: d.preset.clone(),
        config: d.config.clone(),
        config_text: None,
        scheduler: d.scheduler.clone(),
        set: d.set.clone(),
        seed: d.seed,
        verify: d.verify,
        dgc: d.dgc,
        fail: d.fail.clone(),
    };
    layers.build(extra).map_err(Failure::input)
}

fn toml_from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let value: toml::Value = text
        .parse::<toml::Table>()
        .map_err(|e| e.to_string())?
        .into();
    serde_path_to_error::deserialize(value)
        .map_err(|e| format!("key `{}`: {}", e.path(), e.inner()))
}

fn open_source(src: &TraceSource) -> Result<Box<dyn RequestStream>, Failure> {
    src.open().map_err(Failure::input)
}

/// How a run shows its progress.
pub enum Shown {
    /// Its own display on a terminal: a spinner while the device is set up, then the
    /// requests done.
    Bar,
    /// Calls back with its completed requests (one run of several, [`progress::Runs`]).
    Callback(ssdlab::sim::ProgressFn),
    /// Nothing.
    Silent,
}

/// Runs one configuration on one source, showing its progress as `shown` says.
pub fn simulate(
    cfg: SimConfig,
    src: &TraceSource,
    preset: Option<&str>,
    csv: Option<&std::path::Path>,
    shown: Shown,
) -> Result<Report, Failure> {
    let (sim, bar) = prepare(cfg, src, preset, csv, shown)?;
    let report = sim.run();
    if let Some(bar) = bar {
        bar.finish();
    }
    let report = report?;
    warn_unfired_failures(&report);
    warn_time_jumps(&report);
    Ok(report)
}

/// What setting up `cfg`'s device does, for the spinner shown meanwhile.
fn setup_step(cfg: &SimConfig) -> &'static str {
    if cfg.ftl.precondition.enabled {
        "preparing the device: fill and aging (ftl.precondition)"
    } else {
        "setting up the device"
    }
}

/// Builds a simulation of `cfg` on `src` with its outputs and progress display; counts
/// the trace's requests first when a failure is given as a fraction of them.
pub fn prepare(
    cfg: SimConfig,
    src: &TraceSource,
    preset: Option<&str>,
    csv: Option<&std::path::Path>,
    shown: Shown,
) -> Result<(Simulation, Option<progress::Progress>), Failure> {
    let step = match shown {
        Shown::Bar => progress::Progress::step(setup_step(&cfg)),
        _ => None,
    };
    let src = &with_capacity(&ssdlab::sim::workload_streams(&cfg, src)?, &cfg);
    let mut sim = Simulation::on_trace(cfg, || src.open(), &src.describe())?;
    drop(step);
    if let Some(p) = preset {
        sim.set_preset_name(p);
    }
    if let Some(path) = csv {
        let f = create_output("--per-request-csv", path)?;
        sim.set_per_request_csv(Box::new(std::io::BufWriter::new(f)));
    }
    let bar = match shown {
        Shown::Bar => progress::Progress::new(),
        Shown::Callback(f) => {
            sim.set_progress(f);
            None
        }
        Shown::Silent => None,
    };
    if let Some(bar) = &bar {
        sim.set_progress(bar.callback());
    }
    Ok((sim, bar))
}

/// `src`, told the device's logical capacity when it keeps discards as trims, so that
/// its reader refuses a trim past the end with its line (the simulator refuses it too,
/// by request number, and any trim under RAID).
fn with_capacity(src: &TraceSource, cfg: &SimConfig) -> TraceSource {
    let mut src = src.clone();
    if let TraceSource::File { options, .. } = &mut src {
        if options.discards == ssdlab_trace::Discards::Trim && cfg.raid.level.number().is_none() {
            let pages = u64::from(cfg.ftl.logical_pages(&cfg.geometry));
            options.device_bytes = Some(pages * u64::from(cfg.geometry.page_size_bytes));
        }
    }
    src
}

/// Creates an output file before a run, so that a bad path fails at once.
pub fn create_output(flag: &str, path: &std::path::Path) -> Result<std::fs::File, Failure> {
    std::fs::File::create(path)
        .with_context(|| format!("{flag} {}", path.display()))
        .map_err(Failure::input)
}

/// Writes a report as JSON into a file made by [`create_output`].
pub fn write_json(
    mut file: std::fs::File,
    path: &std::path::Path,
    report: &Report,
) -> Result<(), Failure> {
    file.write_all(report.to_json().as_bytes())
        .with_context(|| format!("--json {}", path.display()))
        .map_err(Failure::input)
}

fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).map_err(Failure::internal)
}

fn cmd_run(a: &RunArgs) -> Result<(), Failure> {
    let cfg = build_config(&a.replay.device, &[])?;
    if tenants::has_tenants(a, &cfg) {
        return tenants::cmd_run_tenants(a, cfg);
    }
    let src = trace_source(&a.replay.trace)?;
    let json = open_json(a.replay.json.as_ref())?;
    let report = simulate(
        cfg,
        &src,
        a.replay.device.preset.as_deref(),
        a.per_request_csv.as_deref(),
        Shown::Bar,
    )?;
    show_report(&report, json)
}

/// `--json`'s file, created before the run so that a bad path fails at once.
pub fn open_json(
    path: Option<&std::path::PathBuf>,
) -> Result<Option<(std::fs::File, &std::path::PathBuf)>, Failure> {
    path.map(|p| create_output("--json", p).map(|f| (f, p)))
        .transpose()
}

/// The report as a table on standard output, and as JSON into `json` when given.
pub fn show_report(
    report: &Report,
    json: Option<(std::fs::File, &std::path::PathBuf)>,
) -> Result<(), Failure> {
    let mut table = String::new();
    report.write_table(&mut table).map_err(Failure::internal)?;
    print(&table)?;
    if let Some((file, path)) = json {
        write_json(file, path, report)?;
    }
    Ok(())
}

fn cmd_compare(a: &CompareArgs) -> Result<(), Failure> {
    let src = trace_source(&a.trace)?;
    let mut variants: Vec<(String, SimConfig, Option<String>)> = Vec::new();
    for s in &a.schedulers {
        let cfg = build_config(&a.device, &[format!("scheduler.name=\"{s}\"")])?;
        variants.push((s.clone(), cfg, a.device.preset.clone()));
    }
    for p in &a.presets {
        let d = DeviceArgs {
            preset: Some(p.clone()),
            config: None,
            ..a.device.clone()
        };
        variants.push((p.clone(), build_config(&d, &[])?, Some(p.clone())));
    }
    for f in &a.configs {
        let d = DeviceArgs {
            config: Some(f.clone()),
            ..a.device.clone()
        };
        variants.push((f.display().to_string(), build_config(&d, &[])?, None));
    }
    for v in &a.variants {
        let sets: Vec<String> = v.split(',').map(str::to_string).collect();
        variants.push((
            v.clone(),
            build_config(&a.device, &sets)?,
            a.device.preset.clone(),
        ));
    }
    if variants.len() < 2 {
        return Err(Failure::input(anyhow!(
            "compare needs at least two variants (--schedulers a,b / --presets / --configs / --variant)"
        )));
    }
    let reports = run_parallel(variants.clone(), &src)?;
    let names: Vec<String> = variants.iter().map(|v| v.0.clone()).collect();
    print(&ssdlab_stats::compare_table(&names, &reports))?;
    if let Some(dir) = &a.json_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--json-dir {}", dir.display()))
            .map_err(Failure::input)?;
        for (i, r) in reports.iter().enumerate() {
            let path = dir.join(format!("run-{i}.json"));
            write_json(create_output("--json-dir", &path)?, &path, r)?;
        }
    }
    Ok(())
}

/// Runs variants on the machine's cores, with one progress bar over all of them on a
/// terminal; results keep the variants' order.
pub fn run_parallel(
    variants: Vec<(String, SimConfig, Option<String>)>,
    src: &TraceSource,
) -> Result<Vec<Report>, Failure> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs: Vec<_> = variants.into_iter().enumerate().collect();
    let runs = progress::Runs::new(jobs.len(), "runs");
    let mut results: Vec<Option<Result<Report, Failure>>> = (0..jobs.len()).map(|_| None).collect();
    for chunk in jobs.chunks(threads) {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|(i, (_, cfg, preset))| {
                    let cfg = cfg.clone();
                    let preset = preset.clone();
                    let (i, runs) = (*i, &runs);
                    let run = move || {
                        let shown = Shown::Callback(runs.callback(i));
                        let r = simulate(cfg, src, preset.as_deref(), None, shown);
                        runs.done(i, r.as_ref().map_or(0, |r| r.requests.all));
                        r
                    };
                    (i, s.spawn(run))
                })
                .collect();
            for (i, h) in handles {
                results[i] = Some(h.join().unwrap_or_else(|_| {
                    Err(Failure::internal(anyhow!("a simulation thread panicked")))
                }));
            }
        });
    }
    runs.finish();
    results
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

fn cmd_trace_info(t: &TraceArgs) -> Result<(), Failure> {
    let src = trace_source(t)?;
    let mut stream = open_source(&src)?;
    let stats = ssdlab_trace::analyze(stream.as_mut()).map_err(Failure::input)?;
    print(&format!("trace: {}\n{stats}", src.describe()))
}

fn cmd_config(cmd: &ConfigCmd) -> Result<(), Failure> {
    match cmd {
        ConfigCmd::Show { preset, explain } if *explain => print(&explain::explain(preset)?),
        ConfigCmd::Show { preset, .. } => {
            let cfg = SimConfig::preset(preset).map_err(Failure::input)?;
            print(&format!("# preset {preset}\n{}", cfg.to_toml()))
        }
        ConfigCmd::Import(a) => import::cmd_import(a),
        ConfigCmd::Export(a) => import::cmd_export(a),
        ConfigCmd::Doc { key, markdown } => print(&config_doc::doc(key.as_deref(), *markdown)?),
        ConfigCmd::List => print(&names::preset_list().map_err(Failure::internal)?),
    }
}

fn cmd_raid_layout(device: &DeviceArgs, rows: u64) -> Result<(), Failure> {
    let cfg = build_config(device, &[])?;
    if cfg.raid.level == ssdlab_raid::RaidLevel::None {
        return Err(Failure::input(anyhow!(
            "the configuration has no RAID layer (raid.level = \"none\"); e.g. --set raid.level=5"
        )));
    }
    let members = cfg.raid.members(&cfg.geometry);
    let layout = ssdlab_raid::RaidLayout::new(&cfg.raid, members).map_err(Failure::input)?;
    print(&format!(
        "RAID-{} over {} {}s, {} groups of {} ({} layout); first {rows} rows:\n{}",
        cfg.raid.level.number().unwrap_or(0),
        members,
        match cfg.raid.domain {
            ssdlab_raid::Domain::Chip => "chip",
            ssdlab_raid::Domain::Channel => "channel",
        },
        layout.groups(),
        layout.group_size(),
        format!("{:?}", cfg.raid.layout).to_lowercase(),
        layout.table(rows)
    ))
}

fn cmd_demo() -> Result<(), Failure> {
    let src = TraceSource::Synthetic(SyntheticConfig::default());
    print(&format!(
        "ssdlab demo: the built-in synthetic workload ({}) on the `default` preset\n\n",
        src.describe()
    ))?;
    let mk = |s: &str| -> Result<SimConfig, Failure> {
        ConfigBuilder::new()
            .preset("default")
            .and_then(|b| b.set(&format!("scheduler.name=\"{s}\"")))
            .map_err(Failure::internal)?
            .build()
            .map_err(Failure::internal)
    };
    let variants = vec![
        (
            "async-fifo".to_string(),
            mk("async-fifo")?,
            Some("default".to_string()),
        ),
        (
            "sync-fifo".to_string(),
            mk("sync-fifo")?,
            Some("default".to_string()),
        ),
    ];
    let reports = run_parallel(variants, &src)?;
    let mut table = String::new();
    reports[0]
        .write_table(&mut table)
        .map_err(Failure::internal)?;
    print(&table)?;
    print("\nasync-fifo against sync-fifo on the same workload:\n")?;
    print(&ssdlab_stats::compare_table(
        &["async-fifo".into(), "sync-fifo".into()],
        &reports,
    ))
}
