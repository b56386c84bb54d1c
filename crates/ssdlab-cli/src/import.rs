//! `ssdlab config import FILE`: an MQSim or SSDsim device file as an ssdlab
//! configuration (the conversion itself is `ssdlab::anchors`).

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
