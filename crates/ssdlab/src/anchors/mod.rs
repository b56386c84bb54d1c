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

mod cmt;
mod conv;
mod emit;
mod error;
mod export;
mod link;
mod mqsim;
mod params;
mod ssdsim;
mod table;
mod value;

pub use conv::Conv;
pub use error::{ImportError, Loc};
pub use export::{export_file, export_params};
pub use params::{Param, Params, Read};
pub use table::{Row, Side, TABLE};
pub use value::{Exported, Outcome, Val};

use crate::config::{ConfigBuilder, ConfigError, SimConfig, WRITTEN_WHEN_SET};

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
                    // A key written only when set holds its default when absent.
                    let got = value::lookup(&table, row.key).cloned().or_else(|| {
                        let (_, d) = WRITTEN_WHEN_SET.iter().find(|(k, _)| *k == row.key)?;
                        toml::from_str::<toml::Table>(&format!("v = {d}"))
                            .ok()?
                            .remove("v")
                    });
                    if got.as_ref() == Some(&want) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SchedulerKind;
    use ssdlab_ftl::{Allocation, VictimPolicy};

    const MQSIM: &str = include_str!("../../tests/data/anchors/mqsim-small.xml");
    const SSDSIM: &str = include_str!("../../tests/data/anchors/ssdsim-small.parameters");

    #[test]
    fn mqsim_file_gives_every_mapped_key() {
        let imp = import(MQSIM.as_bytes(), "small.xml").unwrap();
        assert_eq!(imp.simulator, Simulator::MqSim);
        let c = &imp.config;
        let g = c.geometry;
        assert_eq!(
            (
                g.channels,
                g.chips_per_channel,
                g.dies_per_chip,
                g.planes_per_die
            ),
            (2, 2, 1, 2)
        );
        assert_eq!(
            (g.blocks_per_plane, g.pages_per_block, g.page_size_bytes),
            (64, 32, 4096)
        );
        assert_eq!(c.seed, 7);
        let t = c.timing;
        assert_eq!(
            (t.t_read_ns, t.t_prog_ns, t.t_erase_ns),
            (50_000, 500_000, 3_000_000)
        );
        assert_eq!((t.bus_ps_per_byte, t.t_cmd_ns), (2500, 0));
        assert_eq!(c.ftl.over_provisioning, 0.25);
        assert_eq!(c.ftl.allocation, Allocation::Static);
        assert_eq!(c.ftl.static_order.to_string(), "cwpd");
        assert_eq!(c.ftl.gc.victim, VictimPolicy::Random);
        assert_eq!(
            c.ftl.gc_threshold_blocks(&g),
            13,
            "floor(0.2 × 64) + MQSim's mapping frontier"
        );
        assert!(c.ftl.gc.copyback);
        assert!(c.ftl.wear_leveling.dynamic);
        assert_eq!(c.ftl.wear_leveling.static_spread, 50);
        assert_eq!(c.host.device_queue_depth, 16);
        assert!(c.scheduler.multi_plane);
        assert!(imp.toml.contains(
            "# MQSim Channel_Transfer_Rate = 200, Flash_Channel_Width = 2: 10^6 / (200 MT/s × 2 B) = 2500 ps/byte\nbus_ps_per_byte = 2500\n"
        ), "{}", imp.toml);
        assert!(imp
            .toml
            .contains("# not imported: Caching_Mechanism = ADVANCED — "));
        assert!(
            imp.toml
                .contains("# MQSim Ideal_Mapping_Table = true\nmapping = \"ideal\"\n"),
            "{}",
            imp.toml
        );
        let names: Vec<&str> = imp.not_imported.iter().map(|n| n.name.as_str()).collect();
        for n in ["CMT_Capacity", "Page_Metadat_Capacity"] {
            assert!(names.contains(&n), "{n} in {names:?}");
        }
        assert!(
            !names.iter().any(|n| n.starts_with("PCIe")),
            "the link is imported: {names:?}"
        );
        let l = &c.host.pcie;
        assert_eq!(
            (
                l.lanes,
                l.lane_gbytes_per_s,
                l.max_payload_bytes,
                l.tlp_overhead_bytes
            ),
            (4, 1.0, 128, 28),
            "MQSim's link and its TLP constants"
        );
        assert!(l.is_on() && l.generation == 0);
        let latency = imp
            .not_imported
            .iter()
            .find(|n| n.name.contains("Page_Read_Latency_MSB"));
        assert_eq!(latency.map(|n| n.left), Some(Left::Approximated));
    }

    #[test]
    fn ssdsim_file_gives_every_mapped_key() {
        let imp = import(SSDSIM.as_bytes(), "page.parameters").unwrap();
        assert_eq!(imp.simulator, Simulator::SsdSim);
        let c = &imp.config;
        let g = c.geometry;
        assert_eq!(
            (
                g.channels,
                g.chips_per_channel,
                g.dies_per_chip,
                g.planes_per_die
            ),
            (2, 2, 2, 2)
        );
        assert_eq!(
            (g.blocks_per_plane, g.pages_per_block, g.page_size_bytes),
            (64, 32, 2048)
        );
        let t = c.timing;
        assert_eq!(
            (t.t_read_ns, t.t_prog_ns, t.t_erase_ns),
            (30_000, 300_000, 2_000_000)
        );
        assert_eq!((t.bus_ps_per_byte, t.t_cmd_ns), (20_000, 140));
        assert_eq!(t.write_ack, ssdlab_nand::WriteAck::Transfer);
        assert_eq!(c.ftl.over_provisioning, 0.2);
        assert_eq!(c.ftl.static_order.to_string(), "cdwp", "static mode 3");
        assert_eq!(c.ftl.gc.threshold_free_ratio, 0.1);
        assert!(c.ftl.gc.copyback && c.scheduler.multi_plane);
        assert!(!c.ftl.wear_leveling.dynamic);
        assert_eq!(c.host.device_queue_depth, 32);
        assert_eq!(c.scheduler.name, SchedulerKind::AsyncFifo);
        imp.check_strict().unwrap();
        let gc = imp
            .not_imported
            .iter()
            .find(|n| n.name == "gc threshold")
            .unwrap();
        assert_eq!(
            gc.left,
            Left::Unmapped(false),
            "SSDsim never uses `gc threshold`"
        );
    }

    #[test]
    fn strict_lists_what_changes_the_device() {
        let imp = import(MQSIM.as_bytes(), "small.xml").unwrap();
        let e = imp.check_strict().unwrap_err().to_string();
        assert!(!e.contains("PCIe_Lane"), "the link is imported: {e}");
        assert!(e.contains("Transaction_Scheduling_Policy"), "{e}");
        assert!(
            !e.contains("Page_Metadat_Capacity"),
            "no effect, not refused: {e}"
        );
        let text = format!("{SSDSIM}\nt_DBSY = 50;\nbogus = 1;\n");
        let e = import(text.as_bytes(), "p")
            .unwrap()
            .check_strict()
            .unwrap_err()
            .to_string();
        assert!(e.contains("t_DBSY = 50") && e.contains("bogus = 1"), "{e}");
        let text = format!("{SSDSIM}\nt_DBSY = 0;\n");
        import(text.as_bytes(), "p")
            .unwrap()
            .check_strict()
            .unwrap();
    }

    #[test]
    fn bad_files_are_errors_naming_file_place_and_parameter() {
        let e = import(b"", "e").unwrap_err().to_string();
        assert!(e.starts_with("e: unknown format: the file is empty"), "{e}");
        let e = import(b"hello world\n", "h").unwrap_err();
        assert!(matches!(e, ImportError::UnknownFormat { .. }), "{e}");
        let text = MQSIM.replace("<Block_No_Per_Plane>64</Block_No_Per_Plane>", "");
        let e = import(text.as_bytes(), "m.xml").unwrap_err().to_string();
        assert!(
            e.contains("m.xml: missing parameter `Block_No_Per_Plane`"),
            "{e}"
        );
        let text = MQSIM.replace(
            ">0.25</Overprovisioning_Ratio>",
            ">1.5</Overprovisioning_Ratio>",
        );
        let e = import(text.as_bytes(), "m.xml").unwrap_err().to_string();
        assert!(
            e.contains("element <Device_Parameter_Set/Overprovisioning_Ratio>"),
            "{e}"
        );
        assert!(e.contains("line 21"), "{e}");
        let text = SSDSIM.replace("t_R = 30000;", "t_R = fast;");
        let e = import(text.as_bytes(), "p").unwrap_err().to_string();
        assert!(
            e.starts_with("p: line 19: `t_R` = \"fast\": expected a whole number"),
            "{e}"
        );
        let text = SSDSIM.replace("page capacity = 2048;", "page capacity = 1536;\n");
        let text = text.replace("subpage page = 4;", "subpage page = 3;");
        let e = import(text.as_bytes(), "p").unwrap_err().to_string();
        assert!(
            e.contains("geometry.page_size_bytes") && e.contains("page capacity = 1536"),
            "{e}"
        );
    }

    /// The exported parameters as a device file of `sim`.
    fn render(sim: Simulator, params: &[(String, String)]) -> String {
        match sim {
            Simulator::SsdSim => params
                .iter()
                .map(|(n, v)| format!("{n} = {v};\n"))
                .collect(),
            Simulator::MqSim => {
                let mut sections = [String::new(), String::new(), String::new()];
                for (n, v) in params {
                    let i = match mqsim::section_of(n) {
                        "Host_Parameter_Set" => 0,
                        "Device_Parameter_Set" => 1,
                        _ => 2,
                    };
                    sections[i] += &format!("<{n}>{v}</{n}>\n");
                }
                format!(
                    "<Execution_Parameter_Set><Host_Parameter_Set>{}</Host_Parameter_Set>\
                     <Device_Parameter_Set>{}<Flash_Parameter_Set>{}</Flash_Parameter_Set>\
                     </Device_Parameter_Set></Execution_Parameter_Set>",
                    sections[0], sections[1], sections[2]
                )
            }
        }
    }

    #[test]
    fn export_then_import_gives_the_same_configuration() {
        for (sim, text) in [(Simulator::MqSim, MQSIM), (Simulator::SsdSim, SSDSIM)] {
            let first = import(text.as_bytes(), "f").unwrap().config;
            let mut params: Vec<(String, String)> = Vec::new();
            for (key, r) in export(&first, sim) {
                let e = r.unwrap_or_else(|why| panic!("{sim:?} {key}: {why}"));
                for p in e.params {
                    if let Some(q) = params.iter().find(|q| q.0 == p.0) {
                        assert_eq!(q.1, p.1, "{sim:?}: two rows disagree on {}", p.0);
                    } else {
                        params.push(p);
                    }
                }
            }
            let again = import(render(sim, &params).as_bytes(), "g").unwrap().config;
            assert_eq!(again, first, "{sim:?}");
        }
    }

    #[test]
    fn export_refuses_what_a_simulator_cannot_represent() {
        let mut c = import(SSDSIM.as_bytes(), "p").unwrap().config;
        c.timing.t_cmd_ns = 0;
        c.ftl.gc.victim = VictimPolicy::CostBenefit;
        let out = export(&c, Simulator::SsdSim);
        let err = |key: &str| {
            out.iter()
                .find(|(k, _)| *k == key)
                .unwrap()
                .1
                .clone()
                .unwrap_err()
        };
        assert!(err("timing.t_cmd_ns").contains("7 × t_WC"));
        assert!(err("ftl.gc.victim").contains("most invalid pages"));
        let out = export(&c, Simulator::MqSim);
        let e = out
            .iter()
            .find(|(k, _)| *k == "ftl.gc.victim")
            .unwrap()
            .1
            .clone();
        assert!(e.unwrap_err().contains("cost-benefit"));
    }

    #[test]
    fn every_table_name_is_known_to_its_simulator() {
        for sim in [Simulator::MqSim, Simulator::SsdSim] {
            for n in table::mapped_names(sim) {
                assert!(
                    !sim.unmapped().iter().any(|u| u.name == n),
                    "{n} is both mapped and unmapped"
                );
            }
        }
    }
}
