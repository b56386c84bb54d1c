//! The run configuration: one TOML document, strict, with named presets.
//!
//! A configuration is built in layers: the built-in defaults, then a preset or a
//! file (both partial TOML documents: a key that is absent keeps its default), then
//! `--set key=value` overrides. Unknown keys are errors that name their full path;
//! [`SimConfig::validate`] then reports every inconsistent value with its key.
//!
//! ```text
//!  mod.rs      SimConfig: the whole document, validate(), hash
//!  builder.rs  ConfigBuilder: defaults + preset/file + --set, then validate
//!  layers.rs   ConfigLayers: a front end's flags (CLI, bindings) in their order
//!  error.rs    ConfigError, ConfigErrors
//!  doc.rs      the reference of every key, read from the types' schema and docs
//!  host.rs, pcie.rs, placement.rs, dgc.rs, dsftl.rs: one section each (scheduler:
//!  crate::sched)
//! ```

mod written;
pub use written::WRITTEN_WHEN_SET;
mod builder;
mod cmt_groups;
mod dgc;
pub mod doc;
mod dsftl;
mod error;
mod errors;
mod host;
mod layers;
mod nand;
pub mod partitions;
mod pcie;
mod placement;
pub(crate) mod sharing;
pub mod tenants;

pub use crate::sched::{SchedulerConfig, SchedulerKind};
pub use builder::ConfigBuilder;
pub use dgc::{ArrivalEstimate, DgcConfig};
pub use dsftl::{BaseAllocation, DsftlConfig, Multipath, OnSaturated, RrStart};
pub use error::{ConfigError, ConfigErrors};
pub use errors::{ErrorsConfig, ErrorsMode};
pub use host::{HostConfig, HostMode, UnwrittenReads};
pub use layers::ConfigLayers;
pub use pcie::PcieConfig;
pub use placement::{Bind, PlacementConfig};
pub use tenants::{Arbitration, PriorityClass, TenantConfig};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub use ssdlab_dram::CacheConfig;
use ssdlab_ftl::{Aging, Allocation, FtlConfig};
use ssdlab_nand::{Geometry, NandConfig, NandTiming};
use ssdlab_raid::{ChipChoice, Domain, RaidConfig, RaidLevel};

/// Everything a run needs besides its trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// The one seed every random stream of the run is forked from.
    #[schemars(range(max = i64::MAX))]
    pub seed: u64,
    /// Flash array shape.
    pub geometry: Geometry,
    /// Flash timing.
    pub timing: NandTiming,
    /// Cell type, page types and their latencies, program/erase suspend (SLC with
    /// `timing`'s times by default: docs/NAND.md). Written out in the resolved
    /// configuration (and so part of its hash) only when a key is not the default.
    #[serde(skip_serializing_if = "NandConfig::is_default")]
    pub nand: NandConfig,
    /// Flash translation layer.
    pub ftl: FtlConfig,
    /// Host model: arrivals and queue depths.
    pub host: HostConfig,
    /// I/O scheduler.
    pub scheduler: SchedulerConfig,
    /// When written pages get their physical place.
    pub placement: PlacementConfig,
    /// RAID inside the SSD (`level = "none"` by default).
    pub raid: RaidConfig,
    /// DGC: deferring garbage collection by redirecting writes (chip-level RAID-4/5).
    pub dgc: DgcConfig,
    /// Check that every host read returns the content token last written to its LPN.
    pub verify: bool,
    /// DS-FTL: the content index, content-aware placement (`ftl.allocation =
    /// "content-aware"`) and multi-path reads.
    pub dsftl: DsftlConfig,
    /// The controller's DRAM stage: write buffer or data cache (`mode = "off"` by
    /// default).
    pub cache: CacheConfig,
    /// Bit errors, ECC and read retry (`mode = "off"` by default: docs/ERRORS.md).
    /// Written out in the resolved configuration only when a key is set.
    #[serde(skip_serializing_if = "ErrorsConfig::is_default")]
    pub errors: ErrorsConfig,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            geometry: Geometry::default(),
            timing: NandTiming::default(),
            nand: NandConfig::default(),
            ftl: FtlConfig::default(),
            host: HostConfig::default(),
            scheduler: SchedulerConfig::default(),
            placement: PlacementConfig::default(),
            raid: RaidConfig::default(),
            dgc: DgcConfig::default(),
            verify: false,
            dsftl: DsftlConfig::default(),
            cache: CacheConfig::default(),
            errors: ErrorsConfig::default(),
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
        if geometry_errs.is_empty() {
            let page = u64::from(self.geometry.page_size_bytes);
            let bytes = u64::from(self.ftl.logical_pages(&self.geometry)) * page;
            if !h.tenant.is_empty() && self.raid.level.number().is_some() {
                invalid(
                    "host.tenant",
                    "tenants are not modelled on a RAID device".into(),
                );
            }
            for (key, message) in
                tenants::validate(&h.tenant, &h.weights, h.arbitration_burst, page, bytes)
            {
                invalid(&key, message);
            }
            let g = &self.geometry;
            let per_plane = (bytes / page).div_ceil(u64::from(g.planes()));
            let used = per_plane.div_ceil(u64::from(g.pages_per_block)) as u32;
            let spare = g.blocks_per_plane.saturating_sub(used);
            let reserve = self.ftl.gc.reserve_blocks;
            for (key, message) in
                tenants::validate_placement(&h.tenant, h.placement_handles, spare, reserve)
            {
                invalid(&key, message);
            }
            let from = h.validate_placement_from();
            for (key, message) in partitions::validate(self).into_iter().chain(from) {
                invalid(&key, message);
            }
            for (key, message) in sharing::validate(self) {
                invalid(&key, message);
            }
            if h.placement_handles > 0 && self.nand.slc_cache.is_on() {
                invalid(
                    "host.placement_handles",
                    "placement handles are not modelled with the SLC cache".into(),
                );
            }
        }
        for (key, message) in h.pcie.validate() {
            invalid(&key, message);
        }
        if self.scheduler.chip_queue_depth == 0 {
            invalid("scheduler.chip_queue_depth", "must be at least 1".into());
        }
        let dispatch = self.placement.bind == Bind::Dispatch;
        for (key, message) in self.scheduler.validate(&self.geometry, dispatch) {
            invalid(&key, message);
        }
        if geometry_errs.is_empty() {
            self.validate_raid(&mut errs);
        }
        if self.placement.bind == Bind::Dispatch {
            self.validate_dispatch_binding(&mut errs);
        }
        self.validate_dsftl(&mut errs);
        self.validate_nand(&mut errs);
        self.validate_sampled_aging(&mut errs);
        self.validate_cached_mapping(&mut errs);
        for (key, message) in errors::validate(self) {
            errs.push(ConfigError::Invalid { key, message });
        }
        // The device's size bounds the DRAM's; a geometry that is refused gives none.
        let device_bytes = if geometry_errs.is_empty() {
            self.geometry.capacity_bytes()
        } else {
            u64::MAX
        };
        for e in self.cache.validate(device_bytes) {
            errs.push(ConfigError::Invalid {
                key: format!("cache.{}", e.key),
                message: e.message,
            });
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

    /// The `[nand]` section, and suspend limits when `scheduler.suspend` is on.
    fn validate_nand(&self, errs: &mut Vec<ConfigError>) {
        for e in self.nand.validate(self.geometry.pages_per_block.max(1)) {
            errs.push(ConfigError::Invalid {
                key: format!("nand.{}", e.key),
                message: e.message,
            });
        }
        if !self.scheduler.suspend.is_on()
            && self.nand.suspend != ssdlab_nand::SuspendConfig::default()
        {
            // Configured but never used: refused rather than ignored.
            errs.push(ConfigError::Invalid {
                key: "nand.suspend".into(),
                message: "is set while scheduler.suspend = \"off\", which never suspends: \
                          set scheduler.suspend = \"host-reads\" or \"reads\", or leave \
                          [nand.suspend] out"
                    .into(),
            });
        }
        self.validate_slc_cache(errs);
        self.validate_one_shot_destage(errs);
        self.validate_cache_mode(errs);
        if self.scheduler.suspend.is_on() && self.nand.suspend.max_per_op == 0 {
            errs.push(ConfigError::Invalid {
                key: "nand.suspend.max_per_op".into(),
                message: format!(
                    "must be at least 1 with scheduler.suspend = \"{}\" (0 never suspends: set scheduler.suspend = \"off\" instead)",
                    self.scheduler.suspend.name()
                ),
            });
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
        if r.mirror_chips && r.buffer_new_writes {
            errs.push(ConfigError::Invalid {
                key: "raid.buffer_new_writes".into(),
                message: "CR5M (raid.mirror_chips = true) updates parity per request, as CR5 does: set raid.buffer_new_writes = false".into(),
            });
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

    /// Binding at dispatch covers host data without redundancy: parity, mirror copies
    /// and failure handling keep admission-time placement, so their combinations are
    /// refused rather than half applied.
    fn validate_dispatch_binding(&self, errs: &mut Vec<ConfigError>) {
        let r = &self.raid;
        let mut refuse = |message: String| {
            errs.push(ConfigError::Invalid {
                key: "placement.bind".into(),
                message,
            })
        };
        if !matches!(r.level, RaidLevel::None | RaidLevel::Raid0) {
            refuse(format!(
                "\"dispatch\" binds host data pages only: it needs raid.level = \"none\" or 0, found {} (parity and mirror pages are placed at admission)",
                r.level
            ));
        }
        if !r.fail.is_empty() {
            refuse("\"dispatch\" cannot be combined with failure injection (raid.fail / --fail): use bind = \"admission\"".into());
        }
    }

    /// True when the FTL keeps the content index: content-aware placement, or
    /// `dsftl.index`.
    pub fn content_index(&self) -> bool {
        self.ftl.allocation == Allocation::ContentAware || self.dsftl.index
    }

    /// True when reads may take another page of their content.
    pub fn multipath_reads(&self) -> bool {
        match self.dsftl.multipath_read {
            Multipath::WithPlacement => self.ftl.allocation == Allocation::ContentAware,
            Multipath::Always => self.content_index(),
            Multipath::Never => false,
        }
    }

    /// Sampled aging needs planes that age independently, each holding its share of
    /// LPNs by the static stripe map (docs/SIMULATOR.md); anything else would be aged by
    /// the replay instead, which is not what was asked.
    fn validate_sampled_aging(&self, errs: &mut Vec<ConfigError>) {
        let pre = &self.ftl.precondition;
        if !(pre.enabled && pre.aging == Aging::Sampled && pre.overwrite_ratio > 0.0) {
            return;
        }
        // The placements whose fill_is_static holds (placement::build): the RAID layout
        // but SDA, static and HIPA allocation.
        let r = &self.raid;
        let why: Option<String> = if r.level != RaidLevel::None {
            if r.domain == Domain::Channel && r.chip_in_channel == ChipChoice::Sda {
                Some("raid.chip_in_channel = \"static\" (found \"sda\")".into())
            } else if r.mirror_chips {
                Some("raid.mirror_chips = false (CR5M's mirror chips keep controller slots)".into())
            } else {
                None
            }
        } else if self.content_index() {
            Some("no content index (ftl.allocation = \"content-aware\" or dsftl.index)".into())
        } else if !matches!(self.ftl.allocation, Allocation::Static | Allocation::Hipa) {
            Some("ftl.allocation = \"static\" or \"hipa\" (found \"dynamic\")".into())
        } else {
            None
        };
        if let Some(why) = why {
            errs.push(ConfigError::Invalid {
                key: "ftl.precondition.aging".into(),
                message: format!(
                    "\"sampled\" needs planes that age independently of one another: {why}; \
                     use aging = \"replay\""
                ),
            });
        }
    }

    /// The cached map (`ftl.mapping = "cached"`) follows host data pages through the
    /// host write, read, GC and fold paths, RAID's degraded writes and rebuilds, CR5M's
    /// mirror table and DS-FTL's group records (docs/FTL.md §12); what it does not
    /// follow yet is refused ([`cmt_groups::validate`]), and its table must fit the DRAM.
    fn validate_cached_mapping(&self, errs: &mut Vec<ConfigError>) {
        if self.ftl.mapping != ssdlab_ftl::MapMode::Cached {
            return;
        }
        cmt_groups::validate(self, errs);
        // The CMT lives in the controller's DRAM: with a DRAM stage it takes its bytes
        // from the stage's budget, which must keep room for at least one page.
        let dram = self.cache.capacity_mib << 20;
        let table = self.ftl.dram_bytes();
        if self.cache.is_on() && table + u64::from(self.geometry.page_size_bytes) > dram {
            let key = if self.ftl.cmt.entries > 0 {
                "ftl.cmt.entries"
            } else {
                "ftl.cmt.bytes"
            };
            errs.push(ConfigError::Invalid {
                key: key.into(),
                message: format!(
                    "the cached mapping table takes {table} bytes of the controller's DRAM, which leaves the DRAM stage less than one page of cache.capacity_mib = {} MiB: shrink the table or enlarge the DRAM",
                    self.cache.capacity_mib
                ),
            });
        }
    }

    /// DS-FTL has no RAID in its paper, and the content index follows data pages only.
    fn validate_dsftl(&self, errs: &mut Vec<ConfigError>) {
        for (key, message) in self.dsftl.validate() {
            errs.push(ConfigError::Invalid {
                key: key.into(),
                message,
            });
        }
        if self.scheduler.merge.reads != crate::sched::MergeReads::Off
            && self.raid.level != RaidLevel::None
        {
            errs.push(ConfigError::Invalid {
                key: "scheduler.merge.reads".into(),
                message: format!(
                    "read merging needs raid.level = \"none\" (found {}): reconstructions take reads out of the queues before they start",
                    self.raid.level
                ),
            });
        }
        if self.content_index() && self.raid.level != RaidLevel::None {
            let key = if self.ftl.allocation == Allocation::ContentAware {
                "ftl.allocation"
            } else {
                "dsftl.index"
            };
            errs.push(ConfigError::Invalid {
                key: key.into(),
                message: format!(
                    "DS-FTL's content index is not defined with RAID (found {}): use raid.level = \"none\"",
                    self.raid.level
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
    use crate::presets;

    #[test]
    fn defaults_are_valid() {
        let cfg = ConfigBuilder::new().build().unwrap();
        assert_eq!(cfg, SimConfig::default());
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

    #[test]
    fn a_transfer_left_at_page_leaves_the_text_and_hash_as_they_were() {
        let default = SimConfig::default();
        assert!(!default.to_toml().contains("transfer"));
        let page = ConfigBuilder::new()
            .set("timing.transfer=\"page\"")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(page.to_toml(), default.to_toml());
        assert_eq!(page.hash_hex(), default.hash_hex());
        let sectors = ConfigBuilder::new()
            .set("timing.transfer=\"sectors\"")
            .unwrap()
            .build()
            .unwrap();
        assert!(sectors.to_toml().contains("transfer = \"sectors\""));
        assert_ne!(sectors.hash_hex(), default.hash_hex());
        let again = ConfigBuilder::new()
            .text(&sectors.to_toml(), "shown")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(again, sectors);
    }

    #[test]
    fn suspend_settings_without_suspend_are_refused() {
        let e = ConfigBuilder::new()
            .set("nand.suspend.t_suspend_ns=10000")
            .unwrap()
            .build()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("nand.suspend") && e.contains("scheduler.suspend"),
            "{e}"
        );
        ConfigBuilder::new()
            .set("nand.suspend.t_suspend_ns=10000")
            .unwrap()
            .set("scheduler.suspend=\"reads\"")
            .unwrap()
            .build()
            .unwrap();
    }

    #[test]
    fn keys_added_after_the_presets_are_written_only_when_set() {
        // At their defaults they leave the resolved text, and so every preset's hash, as
        // it was before they existed.
        let text: toml::Table = SimConfig::default().to_toml().parse().unwrap();
        for (key, _) in WRITTEN_WHEN_SET {
            let mut table = Some(&text);
            let (section, name) = key.rsplit_once('.').unwrap();
            for part in section.split('.') {
                table = table.and_then(|t| t.get(part)).and_then(|v| v.as_table());
            }
            assert!(
                table.is_none_or(|t| !t.contains_key(name)),
                "{key} written at its default"
            );
        }
        assert!(
            !text.contains_key("nand"),
            "the nand section at its default"
        );
        // Set, each is written and read back.
        for set in [
            "nand.cell=\"tlc\"",
            "scheduler.suspend=\"host-reads\"",
            "timing.transfer=\"sectors\"",
        ] {
            let mut b = ConfigBuilder::new().set(set).unwrap();
            if set.starts_with("nand") {
                b = b
                    .set("nand.t_read_ns_by_type=[50000, 70000, 90000]")
                    .unwrap();
                b = b.set("geometry.pages_per_block=63").unwrap();
            }
            let cfg = b.build().unwrap();
            let text = cfg.to_toml();
            let key = set.split_once('=').unwrap().0.rsplit_once('.').unwrap().1;
            assert!(text.contains(&format!("{key} =")), "{set}: {text}");
            let back: SimConfig = toml::from_str(&text).unwrap();
            assert_eq!(back, cfg, "{set}");
        }
    }

    #[test]
    fn dispatch_binding_refuses_redundancy_and_failures() {
        let build = |sets: &[&str]| {
            let mut b = ConfigBuilder::new();
            for s in sets {
                b = b.set(s).unwrap();
            }
            b.build()
        };
        let ok = build(&["placement.bind=\"dispatch\""]).unwrap();
        assert_eq!(ok.placement.bind, Bind::Dispatch);
        build(&["placement.bind=\"dispatch\"", "raid.level=0"]).unwrap();
        for sets in [
            &["placement.bind=\"dispatch\"", "raid.level=5"][..],
            &["placement.bind=\"dispatch\"", "raid.level=1"][..],
            &[
                "placement.bind=\"dispatch\"",
                "raid.level=0",
                "raid.fail=[\"chip:1@0.5\"]",
            ][..],
        ] {
            let e = build(sets).unwrap_err().to_string();
            assert!(e.contains("placement.bind"), "{sets:?}: {e}");
        }
        let e = build(&["placement.bind=\"later\""])
            .unwrap_err()
            .to_string();
        assert!(e.contains("placement.bind"), "{e}");
    }
}
