//! The run configuration: one TOML document, strict, with named presets.
//!
//! A configuration is built in layers: the built-in defaults, then a preset or a
//! file (both partial TOML documents: a key that is absent keeps its default), then
//! `--set key=value` overrides. Unknown keys are errors that name their full path;
//! [`SimConfig::validate`] then reports every inconsistent value with its key.

use crate::presets;
use serde::{Deserialize, Serialize};
use ssdlab_ftl::FtlConfig;
use ssdlab_nand::{Geometry, NandTiming};
use ssdlab_raid::{RaidConfig, RaidLevel};
use std::fmt;
use std::path::Path;

/// Everything a run needs besides its trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// The one seed every random stream of the run is forked from.
    pub seed: u64,
    /// Flash array shape.
    pub geometry: Geometry,
    /// Flash timing.
    pub timing: NandTiming,
    /// Flash translation layer.
    pub ftl: FtlConfig,
    /// Host model: arrivals and queue depths.
    pub host: HostConfig,
    /// I/O scheduler.
    pub scheduler: SchedulerConfig,
    /// RAID inside the SSD (`level = "none"` by default).
    pub raid: RaidConfig,
    /// DGC: deferring garbage collection by redirecting writes (chip-level RAID-4/5).
    pub dgc: DgcConfig,
    /// Check that every host read returns the content token last written to its LPN.
    pub verify: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            geometry: Geometry::default(),
            timing: NandTiming::default(),
            ftl: FtlConfig::default(),
            host: HostConfig::default(),
            scheduler: SchedulerConfig::default(),
            raid: RaidConfig::default(),
            dgc: DgcConfig::default(),
            verify: false,
        }
    }
}

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostMode {
    /// Requests arrive at their trace timestamps (times `time_scale`).
    Open,
    /// Timestamps are ignored; `queue_depth` requests are kept outstanding.
    Closed,
}

/// What a read of a never-written LPN does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnwrittenReads {
    /// Treat the page as written before the trace began: it is placed (zero time)
    /// and read from flash like any other page (DiskSim and MQSim behave this way).
    Materialize,
    /// Answer from the controller without touching flash (zeros).
    Zero,
}

/// The host side of the device: arrival model and queue depths (ARCHITECTURE §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Open loop (trace timestamps) or closed loop (fixed outstanding requests).
    pub mode: HostMode,
    /// Multiplies trace inter-arrival times (0.5 = twice as fast). Open loop only.
    pub time_scale: f64,
    /// Outstanding requests in closed loop.
    pub queue_depth: u32,
    /// Requests the device accepts at once (NCQ depth); the rest wait in the host queue.
    pub device_queue_depth: u32,
    /// What a read of a never-written page does.
    pub unwritten_reads: UnwrittenReads,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            mode: HostMode::Open,
            time_scale: 1.0,
            queue_depth: 32,
            device_queue_depth: 64,
            unwritten_reads: UnwrittenReads::Materialize,
        }
    }
}

/// `[dgc]`: the DGC paper's write redirection and deferred GC (its §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DgcConfig {
    /// Redirect writes away from chips about to start GC; collect them when idle.
    pub enabled: bool,
    /// How the arrival time `AT` of a candidate chip's next request is estimated for the
    /// `CT + L_w <= AT` test.
    pub arrival_estimate: ArrivalEstimate,
    /// Deferred GC on an idle chip collects until every plane of the chip has this many
    /// free blocks above the GC threshold (at least 1).
    pub idle_gc_blocks: u32,
}

impl Default for DgcConfig {
    fn default() -> Self {
        DgcConfig {
            enabled: false,
            arrival_estimate: ArrivalEstimate::MeanGap,
            idle_gc_blocks: 1,
        }
    }
}

/// `dgc.arrival_estimate`: how DGC estimates when a chip's next request arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArrivalEstimate {
    /// `AT = now + ` the chip's mean gap between request arrivals (an exponentially
    /// weighted mean, weight 1/8 for the newest gap): arrivals taken as memoryless.
    MeanGap,
    /// No bound: `CT + L_w <= AT` always holds.
    Unbounded,
}

/// Scheduler names accepted by `scheduler.name` and `--scheduler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerKind {
    /// Requests in strict arrival order; a request's sub-requests start together once
    /// every chip it needs is free (BRR paper, Sync_FIFO).
    SyncFifo,
    /// Every sub-request goes straight to its chip's FIFO queue (BRR paper, Async_FIFO).
    AsyncFifo,
    /// Parallel Issue Queuing, asynchronous: batches of requests without chip conflicts,
    /// read and write batch lists (BRR paper §II-D, Algorithm 1).
    Piq,
    /// Balanced Redirected Read: PIQ plus reconstruction of reads on busy chips from
    /// their parity group on idle chips (BRR paper §III-E, Algorithm 2).
    Brr,
}

impl SchedulerKind {
    /// The names `--scheduler` accepts.
    pub const NAMES: &'static [&'static str] = &["sync-fifo", "async-fifo", "piq", "brr"];

    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::SyncFifo => "sync-fifo",
            SchedulerKind::AsyncFifo => "async-fifo",
            SchedulerKind::Piq => "piq",
            SchedulerKind::Brr => "brr",
        }
    }
}

/// Scheduler selection and its queues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// Which policy.
    pub name: SchedulerKind,
    /// Transactions a chip's queue holds (BRR: 64; its sensitivity study: 1..256).
    pub chip_queue_depth: u32,
    /// Pack queued reads or programs of one die into multi-plane operations when they
    /// obey the plane-addressing rule (different planes, same page offset).
    pub multi_plane: bool,
    /// `piq`, `brr`: a die whose next transaction is a program first serves the host
    /// reads already queued behind it; reads queued later wait for the program (BRR
    /// §III-C: writes are delayed behind reads, then served before newly arriving reads).
    pub write_behind_read: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            name: SchedulerKind::AsyncFifo,
            chip_queue_depth: 64,
            multi_plane: false,
            write_behind_read: false,
        }
    }
}

/// A configuration problem, naming the key (or file) it concerns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The TOML could not be parsed.
    #[error("{source_name}: {message}")]
    Syntax {
        /// File name or preset name.
        source_name: String,
        /// The parser's message.
        message: String,
    },
    /// A key is unknown or has the wrong type.
    #[error("{source_name}: key `{key}`: {message}")]
    Key {
        /// File name or preset name.
        source_name: String,
        /// Full dotted path of the key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A value is inconsistent with the rest of the configuration.
    #[error("key `{key}`: {message}")]
    Invalid {
        /// Full dotted path of the key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// No preset by that name.
    #[error("unknown preset `{name}`; presets: {}", presets::NAMES.join(", "))]
    UnknownPreset {
        /// The requested name.
        name: String,
    },
    /// A `--set` argument is not `key=value`.
    #[error("--set `{arg}`: expected KEY=VALUE, e.g. --set scheduler.chip_queue_depth=32")]
    BadOverride {
        /// The argument as given.
        arg: String,
    },
    /// The configuration file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
}

/// Several configuration problems at once (all of them, so a user fixes them in one go).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

impl From<ConfigError> for ConfigErrors {
    fn from(e: ConfigError) -> Self {
        ConfigErrors(vec![e])
    }
}

/// A partial configuration document, kept as TOML until every layer is applied.
#[derive(Clone, Debug, Default)]
pub struct ConfigBuilder {
    doc: toml::Table,
    sources: Vec<String>,
}

impl ConfigBuilder {
    /// Starts from the built-in defaults.
    pub fn new() -> Self {
        ConfigBuilder::default()
    }

    /// Layers a preset over what is there.
    pub fn preset(mut self, name: &str) -> Result<Self, ConfigError> {
        let text = presets::text(name).ok_or_else(|| ConfigError::UnknownPreset {
            name: name.to_string(),
        })?;
        self.layer_text(text, &format!("preset `{name}`"))?;
        Ok(self)
    }

    /// Layers a TOML file over what is there.
    pub fn file(mut self, path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.layer_text(&text, &path.display().to_string())?;
        Ok(self)
    }

    /// Layers TOML text over what is there; `name` is used in error messages.
    pub fn text(mut self, text: &str, name: &str) -> Result<Self, ConfigError> {
        self.layer_text(text, name)?;
        Ok(self)
    }

    fn layer_text(&mut self, text: &str, name: &str) -> Result<(), ConfigError> {
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ConfigError::Syntax {
                    source_name: name.to_string(),
                    message: e.to_string(),
                })?;
        merge(&mut self.doc, table);
        self.sources.push(name.to_string());
        Ok(())
    }

    /// Applies one `key=value` override. The value is read as a TOML value (number,
    /// boolean, quoted string, array); anything else is taken as a bare string.
    pub fn set(mut self, arg: &str) -> Result<Self, ConfigError> {
        let (key, raw) = arg
            .split_once('=')
            .ok_or_else(|| ConfigError::BadOverride {
                arg: arg.to_string(),
            })?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(ConfigError::BadOverride {
                arg: arg.to_string(),
            });
        }
        let raw = raw.trim();
        let value = format!("v = {raw}")
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        let mut table = &mut self.doc;
        let parts: Vec<&str> = key.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            let entry = table
                .entry(part.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = match entry {
                toml::Value::Table(t) => t,
                _ => {
                    return Err(ConfigError::Key {
                        source_name: "--set".into(),
                        key: key.to_string(),
                        message: format!("`{part}` is not a section"),
                    })
                }
            };
        }
        table.insert(parts[parts.len() - 1].to_string(), value);
        self.sources.push(format!("--set {key}"));
        Ok(self)
    }

    /// Resolves the layers into a validated configuration.
    pub fn build(self) -> Result<SimConfig, ConfigErrors> {
        let source_name = if self.sources.is_empty() {
            "defaults".to_string()
        } else {
            self.sources.join(" + ")
        };
        let value = toml::Value::Table(self.doc);
        let cfg: SimConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            ConfigErrors(vec![ConfigError::Key {
                source_name,
                key: e.path().to_string(),
                message: e.inner().to_string(),
            }])
        })?;
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Recursively merges `over` into `base`: tables merge key by key, other values replace.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

impl SimConfig {
    /// A named preset, fully resolved.
    pub fn preset(name: &str) -> Result<SimConfig, ConfigErrors> {
        ConfigBuilder::new().preset(name)?.build()
    }

    /// Reports every inconsistent value, each with its key.
    pub fn validate(&self) -> Result<(), ConfigErrors> {
        let mut errs: Vec<ConfigError> = Vec::new();
        let mut invalid = |key: &str, message: String| {
            errs.push(ConfigError::Invalid {
                key: key.to_string(),
                message,
            })
        };
        let geometry_errs = self.geometry.validate();
        for e in &geometry_errs {
            invalid("geometry", e.to_string());
        }
        for e in self.timing.validate() {
            invalid("timing", e.to_string());
        }
        let ftl_errs = if geometry_errs.is_empty() {
            self.ftl.validate_for(&self.geometry)
        } else {
            self.ftl.validate()
        };
        for e in ftl_errs {
            invalid(e.key(), e.to_string());
        }
        if self.seed > i64::MAX as u64 {
            invalid(
                "seed",
                format!(
                    "must be at most {} (TOML integers are signed 64-bit), found {}",
                    i64::MAX,
                    self.seed
                ),
            );
        }
        let h = &self.host;
        if !(h.time_scale.is_finite() && h.time_scale > 0.0) {
            invalid(
                "host.time_scale",
                format!("must be a positive number, found {}", h.time_scale),
            );
        }
        if h.queue_depth == 0 {
            invalid("host.queue_depth", "must be at least 1".into());
        }
        if h.device_queue_depth == 0 {
            invalid("host.device_queue_depth", "must be at least 1".into());
        }
        if self.scheduler.chip_queue_depth == 0 {
            invalid("scheduler.chip_queue_depth", "must be at least 1".into());
        }
        if geometry_errs.is_empty() {
            self.validate_raid(&mut errs);
        }
        if errs.is_empty() && self.ftl.logical_pages(&self.geometry) == 0 {
            errs.push(ConfigError::Invalid {
                key: "ftl.over_provisioning".into(),
                message: "leaves no logical capacity for this geometry".into(),
            });
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errs))
        }
    }

    fn validate_raid(&self, errs: &mut Vec<ConfigError>) {
        let r = &self.raid;
        if self.dgc.enabled && (!r.level.has_parity() || r.domain != ssdlab_raid::Domain::Chip) {
            errs.push(ConfigError::Invalid {
                key: "dgc.enabled".into(),
                message: "DGC redirects writes between the parity groups of chip-level RAID-4/5: set raid.level = 5 and raid.domain = \"chip\"".into(),
            });
        }
        if self.dgc.idle_gc_blocks == 0 {
            errs.push(ConfigError::Invalid {
                key: "dgc.idle_gc_blocks".into(),
                message: "must be at least 1 (deferred GC must leave the chip room to write)"
                    .into(),
            });
        }
        for e in r.validate_for(&self.geometry) {
            errs.push(ConfigError::Invalid {
                key: e.key().to_string(),
                message: e.to_string(),
            });
        }
        if r.level == RaidLevel::None {
            return;
        }
        if r.level.has_parity() && r.group_size > 64 {
            errs.push(ConfigError::Invalid {
                key: "raid.group_size".into(),
                message: format!(
                    "at most 64 members per parity group are supported, found {}",
                    r.group_size
                ),
            });
        }
    }

    /// The full configuration as TOML (what `ssdlab config show` prints).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a SimConfig always serializes")
    }

    /// A stable 64-bit FNV-1a hash of the resolved configuration, in hex.
    pub fn hash_hex(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.to_toml().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let cfg = ConfigBuilder::new().build().unwrap();
        assert_eq!(cfg, SimConfig::default());
    }

    #[test]
    fn unknown_key_is_named_with_its_path() {
        let err = ConfigBuilder::new()
            .text("[scheduler]\nqueue_dpeth = 3\n", "x.toml")
            .unwrap()
            .build();
        let msg = err.unwrap_err().to_string();
        assert!(msg.contains("scheduler.queue_dpeth"), "{msg}");
        assert!(msg.contains("x.toml"), "{msg}");
    }

    #[test]
    fn a_partial_section_keeps_the_other_defaults() {
        let cfg = ConfigBuilder::new()
            .set("geometry.channels=9")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(cfg.geometry.channels, 9);
        assert_eq!(
            cfg.geometry.pages_per_block,
            Geometry::default().pages_per_block
        );
        let cfg = ConfigBuilder::new()
            .text("[timing]\nt_read_ns = 50000\n", "t")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(cfg.timing.t_prog_ns, NandTiming::default().t_prog_ns);
    }

    #[test]
    fn set_overrides_and_types() {
        let cfg = ConfigBuilder::new()
            .set("scheduler.chip_queue_depth=8")
            .unwrap()
            .set("scheduler.name=sync-fifo")
            .unwrap()
            .set("host.time_scale=0.5")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(cfg.scheduler.chip_queue_depth, 8);
        assert_eq!(cfg.scheduler.name, SchedulerKind::SyncFifo);
        assert_eq!(cfg.host.time_scale, 0.5);
    }

    #[test]
    fn bad_override_syntax_and_bad_value() {
        assert!(matches!(
            ConfigBuilder::new().set("novalue"),
            Err(ConfigError::BadOverride { .. })
        ));
        let err = ConfigBuilder::new()
            .set("scheduler.name=lifo")
            .unwrap()
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("scheduler.name"), "{err}");
    }

    #[test]
    fn inconsistent_values_are_all_reported() {
        let err = ConfigBuilder::new()
            .set("geometry.pages_per_block=0")
            .unwrap()
            .set("host.device_queue_depth=0")
            .unwrap()
            .set("ftl.over_provisioning=1.0")
            .unwrap()
            .build()
            .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("pages_per_block"), "{msg}");
        assert!(msg.contains("host.device_queue_depth"), "{msg}");
        assert!(msg.contains("over_provisioning"), "{msg}");
    }

    #[test]
    fn every_preset_resolves_and_round_trips() {
        for name in presets::NAMES {
            let cfg = SimConfig::preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let again = ConfigBuilder::new()
                .text(&cfg.to_toml(), "shown")
                .unwrap()
                .build()
                .unwrap();
            assert_eq!(cfg, again, "{name}");
        }
    }
}
