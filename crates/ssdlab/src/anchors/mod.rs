//! The reference simulators' device files: MQSim's `ssdconfig.xml` and SSDsim's
//! `page.parameters`, imported into an ssdlab configuration (and, through the same
//! table, exported back).
//!
//! ```text
//!  device file ─► detect ─► mqsim::read / ssdsim::read ─► Params
//!                                                           │  table::TABLE: one row per
//!                                                           ▼  ssdlab key, a Conv per side
//!  Import { entries, not_imported, toml, config } ◄─ emit ◄─ Conv::import
//! ```
//!
//! Principal types: [`TABLE`] (ssdlab key ↔ MQSim parameters ↔ SSDsim parameters),
//! [`Conv`] (each conversion, both ways), [`Import`] (the result: the commented TOML,
//! the validated [`SimConfig`], and every parameter left out with why), [`ImportError`].
//! docs/IMPORT.md documents the unit and reading of every parameter.

mod conv;
mod emit;
mod error;
mod mqsim;
mod params;
mod ssdsim;
mod table;
mod value;

pub use conv::Conv;
pub use error::{ImportError, Loc};
pub use params::{Param, Params, Read};
pub use table::{Row, Side, TABLE};
pub use value::{Exported, Outcome, Val};

use crate::config::{ConfigBuilder, ConfigError, SimConfig};

/// A reference simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// MQSim (CMU-SAFARI/MQSim), XML device files.
    MqSim,
    /// SSDsim (Hu et al., ICS 2011), `page.parameters`.
    SsdSim,
}

impl Simulator {
    /// The simulator's name as written in messages and comments.
    pub fn name(self) -> &'static str {
        match self {
            Simulator::MqSim => "MQSim",
            Simulator::SsdSim => "SSDsim",
        }
    }

    fn defaults(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Simulator::MqSim => mqsim::DEFAULTS,
            Simulator::SsdSim => ssdsim::DEFAULTS,
        }
    }

    /// The simulator's parameters that have no ssdlab counterpart.
    pub fn unmapped(self) -> &'static [Unmapped] {
        match self {
            Simulator::MqSim => mqsim::UNMAPPED,
            Simulator::SsdSim => ssdsim::UNMAPPED,
        }
    }
}

/// Whether a parameter without counterpart changes what the device does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Never (an output option, an energy figure, a value the simulator never uses).
    Never,
    /// Unless the named parameter has one of these values (compared without case, or
    /// as numbers).
    Unless(&'static str, &'static [&'static str]),
    /// Always.
    Always,
}

/// A simulator parameter with no ssdlab counterpart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmapped {
    /// The parameter.
    pub name: &'static str,
    /// When it changes the device's behaviour.
    pub effect: Effect,
    /// Why ssdlab has no counterpart (or why none is needed).
    pub why: &'static str,
}

impl Unmapped {
    /// A catalogue entry.
    pub const fn new(name: &'static str, effect: Effect, why: &'static str) -> Self {
        Unmapped { name, effect, why }
    }
}

/// One key of the imported configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The dotted ssdlab key.
    pub key: &'static str,
    /// What it was set to, and from what.
    pub kind: EntryKind,
}

/// How a key was imported.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    /// From the file's parameters.
    Value {
        /// The value.
        value: Val,
        /// The parameters it came from.
        sources: Vec<Read>,
        /// How it was computed, when more than a copy.
        note: Option<String>,
    },
    /// From the simulator's fixed behaviour (no parameter).
    Fixed {
        /// The value, as a TOML literal.
        value: &'static str,
        /// The behaviour.
        why: &'static str,
    },
    /// Not set: ssdlab's default applies.
    NotSet {
        /// Why.
        why: String,
    },
}

/// Why a parameter was not imported (exactly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// No counterpart; `true` when the device behaves differently without it.
    Unmapped(bool),
    /// Converted, but ssdlab's value leaves out a behaviour (always a change).
    Approximated,
    /// The simulator does not know the name (it ignores it).
    Unknown,
}

/// A parameter of the file that the configuration does not carry (exactly).
#[derive(Debug, Clone, PartialEq)]
pub struct NotImported {
    /// The parameter (several, comma-separated, for an approximated key).
    pub name: String,
    /// Its value as written.
    pub value: String,
    /// Why it is left out.
    pub why: String,
    /// What kind of omission.
    pub left: Left,
}

impl NotImported {
    /// True unless the device behaves the same without it (`--strict` refuses these).
    pub fn matters(&self) -> bool {
        !matches!(self.left, Left::Unmapped(false))
    }
}

/// An imported device file.
#[derive(Debug, Clone)]
pub struct Import {
    /// Which simulator the file is for.
    pub simulator: Simulator,
    /// Every key of the table, in order.
    pub entries: Vec<Entry>,
    /// Every parameter left out, with why.
    pub not_imported: Vec<NotImported>,
    /// The configuration as commented TOML.
    pub toml: String,
    /// The configuration, validated.
    pub config: SimConfig,
    file: String,
}

impl Import {
    /// `--strict`: an error listing every parameter whose omission changes the device.
    ///
    /// # Errors
    /// [`ImportError::Strict`] when there is at least one.
    pub fn check_strict(&self) -> Result<(), ImportError> {
        let params: Vec<String> = self
            .not_imported
            .iter()
            .filter(|n| n.matters())
            .map(|n| format!("{} = {} — {}", n.name, n.value, n.why))
            .collect();
        if params.is_empty() {
            Ok(())
        } else {
            Err(ImportError::Strict {
                file: self.file.clone(),
                params,
            })
        }
    }
}

/// Which simulator's device file `text` is, from its content.
pub fn detect(text: &str) -> Option<Simulator> {
    if text.trim_start().starts_with('<') {
        Some(Simulator::MqSim)
    } else if ssdsim::looks_like(text) {
        Some(Simulator::SsdSim)
    } else {
        None
    }
}

/// Imports the device file `bytes`, reported as `file` in messages.
///
/// # Errors
/// An unknown format, malformed syntax, a missing or out-of-range parameter (each
/// naming the file, the line or element, and the parameter), or a configuration that
/// ssdlab's validation refuses.
pub fn import(bytes: &[u8], file: &str) -> Result<Import, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let sim = detect(text).ok_or_else(|| ImportError::UnknownFormat {
        file: file.to_string(),
        why: if text.trim().is_empty() {
            "the file is empty".into()
        } else {
            "neither XML nor lines naming SSDsim's parameters".into()
        },
    })?;
    let mapped = table::mapped_names(sim);
    let items = match sim {
        Simulator::MqSim => mqsim::read(text, file, &mapped)?,
        Simulator::SsdSim => ssdsim::read(text, file)?,
    };
    let mut p = Params::new(sim, file, items, sim.defaults())?;
    let mut entries = Vec::new();
    let mut not_imported = Vec::new();
    for row in TABLE {
        let kind = match row.side(sim) {
            Side::Param(names, conv) => {
                let out = conv.import(&mut p, names)?;
                let sources = p.take_reads();
                match out {
                    Outcome::Value {
                        value,
                        note,
                        approx,
                    } => {
                        for why in approx {
                            not_imported.push(approximated(row.key, &value, &sources, why));
                        }
                        EntryKind::Value {
                            value,
                            sources,
                            note,
                        }
                    }
                    Outcome::Skip(why) => EntryKind::NotSet { why },
                }
            }
            Side::Fixed(value, why) => EntryKind::Fixed { value, why },
            Side::Absent(why) => EntryKind::NotSet { why: why.into() },
        };
        entries.push(Entry { key: row.key, kind });
    }
    not_imported.extend(left_over(&p));
    let toml = emit::render(sim, file, &entries, &not_imported);
    let config = ConfigBuilder::new()
        .text(&toml, file)
        .map_err(crate::config::ConfigErrors::from)
        .and_then(|b| b.build())
        .map_err(|e| invalid(file, &e.0, &entries))?;
    Ok(Import {
        simulator: sim,
        entries,
        not_imported,
        toml,
        config,
        file: file.to_string(),
    })
}

fn approximated(key: &str, value: &Val, sources: &[Read], why: String) -> NotImported {
    let given: Vec<&Read> = sources.iter().filter(|r| !r.defaulted).collect();
    let shown = if given.is_empty() {
        sources.iter().collect()
    } else {
        given
    };
    NotImported {
        name: shown
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        value: shown
            .iter()
            .map(|r| r.value.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        why: format!("{why} ({key} = {value})"),
        left: Left::Approximated,
    }
}

/// The file's parameters no conversion used: without counterpart, or unknown.
fn left_over(p: &Params) -> Vec<NotImported> {
    let sim = p.simulator();
    let mapped = table::mapped_names(sim);
    let mut out = Vec::new();
    for (param, used) in p.items() {
        if used {
            continue;
        }
        let (why, left) = if let Some(name) = param.name.strip_prefix(' ') {
            (
                format!("the line starts with a blank, so SSDsim skips `{name}`"),
                Left::Unmapped(false),
            )
        } else if mapped.contains(&param.name.as_str()) {
            let keys: Vec<&str> = TABLE
                .iter()
                .filter(|r| matches!(r.side(sim), Side::Param(n, _) if n.contains(&param.name.as_str())))
                .map(|r| r.key)
                .collect();
            (
                format!(
                    "{} does not use it with this file's other settings (it belongs to {})",
                    sim.name(),
                    keys.join(", ")
                ),
                Left::Unmapped(false),
            )
        } else if let Some(u) = sim.unmapped().iter().find(|u| u.name == param.name) {
            (u.why.to_string(), Left::Unmapped(changes(u.effect, p)))
        } else {
            (
                format!(
                    "not a parameter {} reads (it ignores it): check the spelling",
                    sim.name()
                ),
                Left::Unknown,
            )
        };
        out.push(NotImported {
            name: param.name.trim().to_string(),
            value: param.value.clone(),
            why,
            left,
        });
    }
    out
}

/// Whether a parameter of effect `e` changes this device's behaviour.
fn changes(e: Effect, p: &Params) -> bool {
    match e {
        Effect::Never => false,
        Effect::Always => true,
        Effect::Unless(name, values) => {
            let v = p.peek(name).map(|q| q.value.clone()).or_else(|| {
                let d = p.simulator().defaults().iter().find(|(n, _)| *n == name);
                d.map(|(_, v)| v.to_string())
            });
            let Some(v) = v else { return true };
            !values.iter().any(|w| {
                w.eq_ignore_ascii_case(v.trim())
                    || matches!((w.parse::<f64>(), v.trim().parse::<f64>()), (Ok(a), Ok(b)) if a == b)
            })
        }
    }
}

/// ssdlab's refusal of the imported configuration, with the source parameters of the key.
fn invalid(file: &str, errs: &[ConfigError], entries: &[Entry]) -> ImportError {
    let message = errs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    let key = errs.iter().find_map(|e| match e {
        ConfigError::Invalid { key, .. } | ConfigError::Key { key, .. } => Some(key.as_str()),
        _ => None,
    });
    let sources: Vec<String> = entries
        .iter()
        .filter(|en| key.is_some_and(|k| en.key == k || en.key.starts_with(&format!("{k}."))))
        .flat_map(|en| match &en.kind {
            EntryKind::Value { sources, .. } => sources
                .iter()
                .map(|r| format!("{} = {}", r.name, r.value))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    ImportError::Invalid {
        file: file.to_string(),
        message,
        sources: if sources.is_empty() {
            "the file's parameters as a whole".into()
        } else {
            sources.join(", ")
        },
    }
}

/// The parameters `cfg` gives `sim`, key by key (`Err`: what the simulator cannot
/// represent). The inverse of [`import`] through the same [`TABLE`].
pub fn export(cfg: &SimConfig, sim: Simulator) -> Vec<(&'static str, Result<Exported, String>)> {
    let table: toml::Table = cfg
        .to_toml()
        .parse()
        .expect("a SimConfig serializes to TOML");
    TABLE
        .iter()
        .map(|row| {
            let r = match row.side(sim) {
                Side::Param(names, conv) => conv.export(&table, row.key, names),
                Side::Absent(_) => Ok(Exported::default()),
                Side::Fixed(lit, why) => {
                    let want: toml::Value = toml::from_str::<toml::Table>(&format!("v = {lit}"))
                        .expect("fixed values are TOML literals")["v"]
                        .clone();
                    if value::lookup(&table, row.key) == Some(&want) {
                        Ok(Exported::default())
                    } else {
                        Err(format!("{} cannot change it: {why}", sim.name()))
                    }
                }
            };
            (row.key, r)
        })
        .collect()
}
