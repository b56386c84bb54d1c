//! `ssdlab config import FILE`: an MQSim or SSDsim device file as an ssdlab
//! configuration, and `ssdlab config export --to mqsim|ssdsim`, the other way (the
//! conversion itself is `ssdlab::anchors`, one table for both directions).

use crate::{create_output, print, Failure};
use anyhow::Context;
use clap::Args;
use std::io::Write as _;
use std::path::PathBuf;

/// `config import` arguments.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// An MQSim device file (ssdconfig.xml) or an SSDsim page.parameters; which one is
    /// detected from the content.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Write the configuration here instead of to standard output.
    #[arg(long, value_name = "FILE.toml")]
    pub out: Option<PathBuf>,
    /// Refuse the file when a parameter that changes the device's behaviour has no exact
    /// ssdlab counterpart (or is unknown to the simulator).
    #[arg(long)]
    pub strict: bool,
}

/// Runs `config import`.
pub fn cmd_import(a: &ImportArgs) -> Result<(), Failure> {
    let bytes = std::fs::read(&a.file)
        .with_context(|| a.file.display().to_string())
        .map_err(Failure::input)?;
    let name = a.file.display().to_string();
    let imported = ssdlab::anchors::import(&bytes, &name).map_err(Failure::input)?;
    if a.strict {
        imported.check_strict().map_err(Failure::input)?;
    }
    match &a.out {
        None => print(&imported.toml),
        Some(path) => {
            let mut f = create_output("--out", path)?;
            f.write_all(imported.toml.as_bytes())
                .with_context(|| format!("--out {}", path.display()))
                .map_err(Failure::input)?;
            let left = &imported.not_imported;
            let matters = left.iter().filter(|n| n.matters()).count();
            eprintln!(
                "{}: {} device file imported into {}; {} parameter(s) not imported, {matters} of them change the device's behaviour (listed at the end of the file)",
                name,
                imported.simulator.name(),
                path.display(),
                left.len()
            );
            Ok(())
        }
    }
}

/// The simulator `config export` writes for.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Target {
    /// An MQSim device file (ssdconfig.xml).
    Mqsim,
    /// An SSDsim page.parameters.
    Ssdsim,
}

/// `config export` arguments.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Which simulator's device file.
    #[arg(long, value_enum)]
    pub to: Target,
    /// The configuration (preset, file, overrides), as for `ssdlab run`.
    #[command(flatten)]
    pub device: crate::args::DeviceArgs,
    /// A device file of that simulator to write over: its parameters without an ssdlab
    /// counterpart keep their values there. Without it the file holds only the
    /// converted parameters and the simulator's defaults apply to the rest.
    #[arg(long, value_name = "FILE")]
    pub base: Option<PathBuf>,
    /// Write the device file here instead of to standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write the file even when the simulator cannot represent some keys: they are
    /// listed on standard error and keep the base's value (or the simulator's default).
    #[arg(long)]
    pub lenient: bool,
}

/// Runs `config export`.
pub fn cmd_export(a: &ExportArgs) -> Result<(), Failure> {
    let cfg = crate::build_config(&a.device, &[])?;
    let sim = match a.to {
        Target::Mqsim => ssdlab::anchors::Simulator::MqSim,
        Target::Ssdsim => ssdlab::anchors::Simulator::SsdSim,
    };
    let base = match &a.base {
        None => None,
        Some(p) => {
            // SSDsim's shipped files carry non-UTF-8 comments: keep them, lossily.
            let bytes = std::fs::read(p)
                .with_context(|| format!("--base {}", p.display()))
                .map_err(Failure::input)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if ssdlab::anchors::detect(&text) != Some(sim) {
                return Err(Failure::input(anyhow::anyhow!(
                    "--base {}: not an {} device file",
                    p.display(),
                    sim.name()
                )));
            }
            Some(text)
        }
    };
    let (text, refused) = ssdlab::anchors::export_file(&cfg, sim, base.as_deref(), a.lenient)
        .map_err(|e| Failure::input(anyhow::anyhow!(e)))?;
    for r in refused {
        eprintln!("not representable in {}: {r}", sim.name());
    }
    match &a.out {
        None => print(&text),
        Some(path) => create_output("--out", path)?
            .write_all(text.as_bytes())
            .with_context(|| format!("--out {}", path.display()))
            .map_err(Failure::input),
    }
}
