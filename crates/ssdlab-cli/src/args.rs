//! Command-line arguments. The shape of `run` is relied on by scripts and docs.

use clap::{Args, Parser, Subcommand};
use ssdlab_trace::{Discards, TraceFormat};
use std::path::PathBuf;

/// ssdlab: a fast, deterministic, trace-driven simulator of SSD internals.
#[derive(Parser, Debug)]
#[command(name = "ssdlab", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Replay a trace (or the synthetic workload) on one configuration and print the report.
    #[command(after_help = crate::names::device_lists())]
    Run(RunArgs),
    /// Run with every read checked against the content last written, failures injected
    /// (`--fail chip:3@150ms`), and a full audit of data and redundancy at the end.
    #[command(after_help = crate::names::device_lists())]
    Verify(RunArgs),
    /// Replay one trace on several schedulers or configurations; a table normalized to the first.
    #[command(after_help = crate::names::device_lists())]
    Compare(CompareArgs),
    /// Trace tools.
    Trace {
        /// Trace subcommand.
        #[command(subcommand)]
        cmd: TraceCmd,
    },
    /// Configuration tools.
    Config {
        /// Config subcommand.
        #[command(subcommand)]
        cmd: ConfigCmd,
    },
    /// RAID tools.
    Raid {
        /// RAID subcommand.
        #[command(subcommand)]
        cmd: RaidCmd,
    },
    /// Run the built-in synthetic workload on the default device and print the results.
    Demo,
    /// List the sample traces that come with the repository (statistics, format) and
    /// say where the full public trace sets are published.
    Traces {
        /// The sample-trace folder (default: `traces/` here, else the repository the
        /// binary was built from).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Measure simulator speed (host requests/s, flash transactions/s, peak memory).
    #[command(after_help = crate::names::device_lists())]
    Bench(BenchArgs),
    /// Run the cross product of a grid of --set values, traces and seeds on this
    /// machine's cores into one CSV table (one row per point).
    #[command(after_help = crate::names::device_lists())]
    Sweep(SweepArgs),
    /// ssdlab's own experiments (not a paper's): CSVs, SVG figures and a summary.
    Study {
        /// Which study.
        #[command(subcommand)]
        cmd: StudyCmd,
    },
    /// Reproduce a paper's headline experiment: CSVs, SVG figures and a summary.
    Reproduce {
        /// Which paper.
        #[command(subcommand)]
        cmd: crate::reproduce::ReproduceCmd,
    },
}

/// `study` subcommands.
#[derive(Subcommand, Debug)]
pub enum StudyCmd {
    /// Read latency, retries, uncorrectable, rebuilt and lost reads of the tlc-1tb drive
    /// as it wears (P/E cycles), without RAID and with chip RAID-5, channel RAID-5 and
    /// CR5M (docs/ERRORS.md).
    Endurance(crate::reproduce::endurance::EnduranceArgs),
    /// DS-FTL's read-latency change against static and dynamic allocation over the share
    /// of reads with a copy on another channel, load and read share, with the paper's
    /// eight traces placed on it (docs/reproductions/dsftl.md).
    DsftlSurface(crate::reproduce::dsftl_surface::SurfaceArgs),
}

/// `trace` subcommands.
#[derive(Subcommand, Debug)]
pub enum TraceCmd {
    /// Statistics of a trace: requests, read ratio, sizes, working set, duplicate content.
    Info(InfoArgs),
}

/// `raid` subcommands.
#[derive(Subcommand, Debug)]
pub enum RaidCmd {
    /// Print the RAID layout of a configuration: which member holds which data page
    /// and parity, row by row (e.g. `ssdlab raid layout --preset brr`).
    Layout {
        /// Device (its `[raid]` section).
        #[command(flatten)]
        device: DeviceArgs,
        /// Rows to print.
        #[arg(long, default_value_t = 8)]
        rows: u64,
    },
}

/// `config` subcommands.
#[derive(Subcommand, Debug)]
pub enum ConfigCmd {
    /// Print the fully resolved configuration of a preset as TOML.
    Show {
        /// Preset name (see `ssdlab config list`).
        preset: String,
        /// Give each key the preset's comment for it (where its value comes from), or mark
        /// it as a default with its meaning; the output stays a valid config file.
        #[arg(long)]
        explain: bool,
    },
    /// The configuration reference: every key with its type, default, unit, allowed
    /// values and meaning, read from the configuration types' documentation.
    Doc {
        /// A key (`ftl.gc.victim`) or a section (`ftl.gc`); every key when absent.
        key: Option<String>,
        /// Markdown instead of text (docs/CONFIG.md is this output).
        #[arg(long)]
        markdown: bool,
    },
    /// List the presets.
    List,
    /// Convert an MQSim device file (ssdconfig.xml) or an SSDsim page.parameters into
    /// an ssdlab configuration; every parameter left out is listed in it.
    Import(crate::import::ImportArgs),
    /// Write an ssdlab configuration as an MQSim device file (ssdconfig.xml) or an
    /// SSDsim page.parameters, through the same table as `config import`.
    Export(crate::import::ExportArgs),
}

/// Which device configuration.
#[derive(Args, Debug, Clone, Default)]
pub struct DeviceArgs {
    // Help: the names of `ssdlab::presets::NAMES`.
    #[arg(long, value_name = "NAME", help = crate::names::preset_help())]
    pub preset: Option<String>,
    /// A TOML configuration file (layered over the preset, if both are given).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    // Help: the names of the `schedulers!` registry.
    #[arg(long, value_name = "NAME", help = crate::names::scheduler_help())]
    pub scheduler: Option<String>,
    /// Override one key, e.g. --set scheduler.chip_queue_depth=16 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The run's seed (sets seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Check every host read against the content last written to its page.
    #[arg(long)]
    pub verify: bool,
    /// Enable DGC (sets dgc.enabled): redirect writes away from chips about to start GC.
    #[arg(long)]
    pub dgc: bool,
    /// Inject a failure: `chip:K@T`, `channel:K@T` or `power@T` (DRAM loses what it did
    /// not program, beyond the PLP budget), T a time with unit (`150ms`, `2s`) or a
    /// fraction of the trace's requests (`0.25`). Repeatable; adds to raid.fail.
    #[arg(long, value_name = "SPEC")]
    pub fail: Vec<String>,
}

/// Which workload.
#[derive(Args, Debug, Clone)]
pub struct TraceArgs {
    /// Trace file (.gz or plain); its format is detected from its content. Repeated
    /// (`ssdlab run` only), each is a tenant of its own (docs/HOST.md).
    #[arg(long, value_name = "FILE")]
    pub trace: Vec<PathBuf>,
    /// Force the trace format.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<TraceFormat>,
    /// Skip (and count) malformed lines instead of stopping at the first.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Replay the trace N times back to back with shifted timestamps.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub repeat: u32,
    /// The largest request accepted, in bytes; a larger one is a bad line.
    #[arg(long, default_value_t = ssdlab_trace::DEFAULT_MAX_REQUEST_BYTES, value_name = "BYTES")]
    pub max_request_bytes: u64,
    /// Cut every gap between consecutive requests longer than DURATION to DURATION
    /// (e.g. `1s`, `500ms`; units ns, us, ms, s, min, h, d): for traces whose clock
    /// jumps (a wall-clock stamp inside relative times).
    #[arg(long, value_name = "DURATION")]
    pub max_gap: Option<String>,
    /// What to do with the trace's discards (blkparse `D…` events): `drop` them (the
    /// default, as every replay did before trims) or replay them as `trim` commands
    /// (docs/TRACES.md, "Trims").
    #[arg(long, default_value = "drop", value_name = "drop|trim")]
    pub discards: Discards,
    /// Use the built-in synthetic workload instead of a trace.
    #[arg(long, conflicts_with = "trace")]
    pub synthetic: bool,
    /// A synthetic workload description (TOML) instead of a trace.
    #[arg(long, value_name = "FILE", conflicts_with = "trace")]
    pub synthetic_config: Option<PathBuf>,
}

/// A replay's arguments: the device, the workload and the JSON report (`run`, `verify`
/// and `bench`).
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Device.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Workload.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Write the report as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// `run` and `verify` arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Device, workload and report.
    #[command(flatten)]
    pub replay: ReplayArgs,
    /// Write one CSV line per completed request.
    #[arg(long, value_name = "FILE")]
    pub per_request_csv: Option<PathBuf>,
    /// With tenants: run each alone on the same device and set-up as well, and report
    /// its slowdown and the fairness index (docs/HOST.md).
    #[arg(long)]
    pub alone: bool,
}

/// `bench` arguments.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Device, workload and report.
    #[command(flatten)]
    pub replay: ReplayArgs,
    /// Append the speed figures as one JSON line to FILE (a series of runs is one file;
    /// `scripts/bench.sh` collects them).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// A label stored in the JSON line (e.g. the build or the case).
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub label: String,
}

/// `compare` arguments.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Device shared by all variants.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Workload.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Variants by scheduler name, e.g. --schedulers async-fifo,sync-fifo.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub schedulers: Vec<String>,
    /// Variants by preset.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub presets: Vec<String>,
    /// Variants by configuration file.
    #[arg(long, value_delimiter = ',', value_name = "FILES")]
    pub configs: Vec<PathBuf>,
    /// A variant given as overrides, e.g. --variant scheduler.chip_queue_depth=8,host.time_scale=0.5 (repeatable).
    #[arg(long = "variant", value_name = "KEY=VALUE,...")]
    pub variants: Vec<String>,
    /// Also write each run's JSON report into this directory.
    #[arg(long, value_name = "DIR")]
    pub json_dir: Option<PathBuf>,
}

/// `sweep` arguments.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Device every point starts from (the grid's values are applied as --set after).
    #[command(flatten)]
    pub device: DeviceArgs,
    /// The grid: a TOML file with one [grid] table of KEY = [values], KEY as --set
    /// names it, e.g. "scheduler.chip_queue_depth" = [4, 8, 16].
    #[arg(long, value_name = "FILE.toml")]
    pub grid: PathBuf,
    /// Trace files (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "FILES", required = true)]
    pub traces: Vec<PathBuf>,
    /// Force the trace format.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<TraceFormat>,
    /// Seeds to run every point with (default: the configuration's seed).
    #[arg(long, value_delimiter = ',', value_name = "SEEDS")]
    pub seeds: Vec<u64>,
    /// The results table: CSV, or Parquet when the name ends in .parquet.
    #[arg(long, value_name = "FILE.csv|FILE.parquet")]
    pub out: PathBuf,
    /// Points run at once (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// `trace info` arguments: the trace file is positional (or a synthetic workload).
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Trace file (.gz or plain).
    #[arg(value_name = "FILE", required_unless_present = "synthetic_config")]
    pub file: Option<PathBuf>,
    /// Force the trace format.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<TraceFormat>,
    /// Skip (and count) malformed lines instead of stopping at the first.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Count the trace N times back to back.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub repeat: u32,
    /// The largest request accepted, in bytes; a larger one is a bad line.
    #[arg(long, default_value_t = ssdlab_trace::DEFAULT_MAX_REQUEST_BYTES, value_name = "BYTES")]
    pub max_request_bytes: u64,
    /// Cut every gap between consecutive requests longer than DURATION (e.g. `1s`).
    #[arg(long, value_name = "DURATION")]
    pub max_gap: Option<String>,
    /// Count the trace's discards as trims (`trim`) or pass over them (`drop`).
    #[arg(long, default_value = "drop", value_name = "drop|trim")]
    pub discards: Discards,
    /// A synthetic workload description (TOML) instead of a trace.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub synthetic_config: Option<PathBuf>,
}

impl InfoArgs {
    /// The same workload as `--trace FILE` (or `--synthetic-config FILE`) would name.
    pub fn to_trace_args(&self) -> TraceArgs {
        TraceArgs {
            trace: self.file.clone().into_iter().collect(),
            format: self.format,
            skip_bad_lines: self.skip_bad_lines,
            repeat: self.repeat,
            max_request_bytes: self.max_request_bytes,
            max_gap: self.max_gap.clone(),
            discards: self.discards,
            synthetic: false,
            synthetic_config: self.synthetic_config.clone(),
        }
    }
}
