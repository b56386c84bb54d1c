//! `ssdlab reproduce`: a paper's headline experiment as one command that writes CSVs and
//! figures, SVG and PNG (docs/ARCHITECTURE.md §18).

mod brr;
mod common;
mod cr5m;
mod dgc;
mod dsftl;
mod dsftl_csv;
mod dsftl_figs;
mod dsftl_summary;
pub(crate) mod dsftl_surface;
mod dsftl_surface_report;
mod dsftl_surface_text;
pub(crate) mod endurance;
mod nand;
mod paq;
mod plot;
mod runner;

use crate::Failure;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// `reproduce` subcommands.
#[derive(Subcommand, Debug)]
pub enum ReproduceCmd {
    /// BRR (Liang et al., NAS 2016): Async-FIFO, PIQ and BRR on every trace, figures
    /// 10-12, the queue-length and parity-group sweeps of figures 13 and 14, and labelled
    /// sensitivity rows (write delay off, shared bus, aged device with GC).
    Brr(BrrArgs),
    /// DGC (Liang et al.): RAID-5, RAID-5+DGC (also with parity redirection), BRR and
    /// BRR+DGC on every trace, figures 4 and 8-10, the parity-group sweep of figure 11,
    /// and the sensitivity study behind the gap to the paper.
    Dgc(DgcArgs),
    /// DS-FTL (Nie et al. 2023): static, dynamic, HIPA and DS-FTL on the trace files and
    /// eight stand-ins for the paper's traces, figures 2 and 10-14, and sweeps of HIPA's
    /// threshold, the duplicate ratio, the load and the time scale.
    Dsftl(DsftlArgs),
    /// PAQ (Jung et al., ISCA 2012): VAQ, PAQ0, PAQ1 and PAQ2 on every workload, figures
    /// 8-13, and the queue-depth, channel and die sweeps of figures 14 and 15.
    Paq(paq::PaqArgs),
    /// CR5M (Wang et al.): pure SSD, CR1, CR4, CR5 and CR5M on SSD1-SSD3 for every trace
    /// (figures 6-8, 11, 12), the write-ratio and request-size sweeps (figures 9, 10), the
    /// write-acknowledgement and SDA sensitivities, and a verified run with a failure.
    Cr5m(Cr5mArgs),
    /// The NAND model on the tlc-1tb preset as shipped (issue 36): the write cliff of a
    /// fresh drive filled sequentially, and the host read latency of a mixed random
    /// workload on a filled drive with and without program/erase suspend.
    Nand(nand::NandArgs),
}

/// How the channel bus is read for a whole experiment (docs/reproductions/brr.md). The
/// `brr` and `dgc` presets give every chip its own 25 ns/byte link, as DiskSim's ssdmodel
/// does; the other readings are sensitivity settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BusModel {
    /// The presets as shipped: every chip has its own 25 ns/byte link (64 channels of
    /// one chip each), DiskSim ssdmodel's link.
    Private,
    /// The papers' 8 channels of 8 chips, each channel 25 ns/byte, shared.
    Shared,
    /// 8 shared channels at 3.125 ns/byte (ssdmodel's aggregate bandwidth of 64 links).
    Aggregate,
}

impl BusModel {
    /// Config overrides of this reading (none for the presets' own).
    pub fn sets(self) -> &'static [&'static str] {
        match self {
            BusModel::Private => &[],
            BusModel::Shared => &["geometry.channels=8", "geometry.chips_per_channel=8"],
            BusModel::Aggregate => &[
                "geometry.channels=8",
                "geometry.chips_per_channel=8",
                "timing.bus_ps_per_byte=3125",
            ],
        }
    }

    /// The name used in CSVs.
    pub fn name(self) -> &'static str {
        match self {
            BusModel::Private => "private",
            BusModel::Shared => "shared",
            BusModel::Aggregate => "aggregate",
        }
    }
}

/// Where a reproduction writes and how many runs it keeps going at once (every
/// `reproduce` command takes these).
#[derive(Args, Debug)]
pub struct Output {
    /// Output directory for the CSVs, figures and summary (and, for cr5m, the synthetic
    /// workloads it generates).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Parallel runs (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// `reproduce brr` arguments.
#[derive(Args, Debug)]
pub struct BrrArgs {
    /// Trace files, or directories whose files (not subdirectories) are traces in any
    /// supported format; files whose format is not recognized are skipped. Repeatable.
    #[arg(long, value_name = "DIR|FILE", required = true)]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
    /// A shorter sweep: queue lengths 1, 4, 16, 64, 256 instead of every power of two.
    #[arg(long)]
    pub quick: bool,
    /// How the channel bus is modelled.
    #[arg(long, value_enum, default_value_t = BusModel::Private)]
    pub bus: BusModel,
    /// Skip the sensitivity sweeps (figures 13 and 14) and the sensitivity rows (write
    /// delay off, shared bus, aged device).
    #[arg(long)]
    pub no_sweeps: bool,
    /// Run the GC-active rows (the device aged by random overwrites of half its pages,
    /// minutes a run on the 256 GiB device) only on the traces whose name contains one
    /// of these (repeatable; default: every trace).
    #[arg(long = "gc-trace", value_name = "NAME")]
    pub gc_traces: Vec<String>,
    /// Extra config overrides applied to every run, e.g. --set raid.layout=adjacent.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// `reproduce dgc` arguments.
#[derive(Args, Debug)]
pub struct DgcArgs {
    /// Trace files, or directories whose files (not subdirectories) are traces in any
    /// supported format; files whose format is not recognized are skipped. Repeatable.
    #[arg(long, value_name = "DIR|FILE", required = true)]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
    /// Only the main variants at group 8: skip the group-size sweep (figure 11) and the
    /// sensitivity study.
    #[arg(long)]
    pub quick: bool,
    /// How the channel bus is modelled.
    #[arg(long, value_enum, default_value_t = BusModel::Private)]
    pub bus: BusModel,
    /// Extra config overrides applied to every run, e.g. --set raid.group_size=4.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// `reproduce dsftl` arguments.
#[derive(Args, Debug)]
pub struct DsftlArgs {
    /// Trace files (FIU traces carry content), or directories whose files (not
    /// subdirectories) are traces in any supported format; files whose format is not
    /// recognized are skipped. Repeatable; optional beside the stand-ins.
    #[arg(long, value_name = "DIR|FILE")]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
    /// Shorter stand-ins (20,000 requests instead of 100,000) and no sweeps.
    #[arg(long)]
    pub quick: bool,
    /// Only the trace files: no synthetic stand-ins for the paper's traces.
    #[arg(long)]
    pub no_standins: bool,
    /// Skip the sweeps (HIPA threshold, duplicate ratio, load, time scale).
    #[arg(long)]
    pub no_sweeps: bool,
    /// Extra config overrides applied to every run, e.g. --set dsftl.filter=exact.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// `reproduce cr5m` arguments.
#[derive(Args, Debug)]
pub struct Cr5mArgs {
    /// Trace files, directories of traces, or synthetic workload descriptions (`.toml`,
    /// as --synthetic-config takes; directories contribute theirs too). Repeatable.
    #[arg(long, value_name = "DIR|FILE", required = true)]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub output: Output,
    /// SSD1 only, and synthetic workloads cut to 20 000 requests.
    #[arg(long)]
    pub quick: bool,
    /// Skip the synthetic sweeps (figures 9 and 10).
    #[arg(long)]
    pub no_sweeps: bool,
    /// Extra config overrides applied to every run, e.g. --set timing.write_ack=transfer.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Runs a `reproduce` subcommand.
pub fn run(cmd: &ReproduceCmd) -> Result<(), Failure> {
    match cmd {
        ReproduceCmd::Brr(a) => brr::run(a),
        ReproduceCmd::Dgc(a) => dgc::run(a),
        ReproduceCmd::Dsftl(a) => dsftl::run(a),
        ReproduceCmd::Paq(a) => paq::run(a),
        ReproduceCmd::Cr5m(a) => cr5m::run(a),
        ReproduceCmd::Nand(a) => nand::run(a),
    }
}
