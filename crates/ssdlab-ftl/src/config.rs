//! The `[ftl]` section of a configuration, its defaults and its validation.

pub use crate::cmt_config::{CmtConfig, CmtSharing, MapMode};
use crate::error::FtlConfigError;
use crate::order::AllocOrder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::Geometry;

/// How the controller places host writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Allocation {
    /// Channel, way, die and plane are a function of the LPN (`ftl.static_order`).
    #[default]
    Static,
    /// The plane is chosen at write time (`ftl.dynamic_policy`).
    Dynamic,
    /// HIPA: static while the dies' loads are balanced, dynamic (to the least-loaded
    /// die) when they are not (`[ftl.hipa]`).
    Hipa,
    /// DS-FTL: a base allocation (the controller's `dsftl.base`), then a page whose
    /// content its target channel already holds moves to the next channel that lacks it.
    ContentAware,
}

/// The unit whose load HIPA profiles (`ftl.hipa.level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HipaLevel {
    /// Dies (HIPA's own paper: a die-level load profiler).
    #[default]
    Die,
    /// Chips (DS-FTL's description of HIPA: "chip-level load").
    Chip,
}

/// How HIPA measures a unit's load (`ftl.hipa.load`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HipaLoad {
    /// Predicted work: the expected service time of the transactions queued for the unit
    /// and of the one it runs (read: command + t_R + transfer; program: command +
    /// transfer + t_PROG; erase: t_BERS).
    #[default]
    Time,
    /// Transactions queued for the unit and running on it.
    Count,
}

/// When HIPA leaves the static gear (`ftl.hipa.trigger`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HipaTrigger {
    /// Per write: when the static target's load exceeds the least-loaded unit's by more
    /// than the threshold.
    #[default]
    Target,
    /// For every write while the most- and least-loaded units differ by more than the
    /// threshold.
    Global,
}

/// `[ftl.hipa]`: HIPA's load profiler and gear switch (Sun et al., J. Syst. Archit.
/// 131, 2022; its thresholds are not public, so they are keys).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HipaConfig {
    /// The unit whose load is profiled.
    pub level: HipaLevel,
    /// How load is measured.
    pub load: HipaLoad,
    /// Imbalance beyond which writes go dynamic, with `load = "time"`: ns of predicted
    /// work.
    pub threshold_ns: u64,
    /// Imbalance beyond which writes go dynamic, with `load = "count"`: transactions.
    pub threshold_txns: u32,
    /// When the dynamic gear applies.
    pub trigger: HipaTrigger,
}

impl Default for HipaConfig {
    fn default() -> Self {
        HipaConfig {
            level: HipaLevel::Die,
            load: HipaLoad::Time,
            threshold_ns: 200_000,
            threshold_txns: 1,
            trigger: HipaTrigger::Target,
        }
    }
}

/// Plane choice under dynamic allocation (applied by the controller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DynamicPolicy {
    /// Next plane in stripe order.
    #[default]
    RoundRobin,
    /// The plane whose queue holds the least work.
    LeastBusy,
}

/// What the host does with an address beyond the logical capacity (applied by the controller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AddressFold {
    /// Fold it back: `lpn % logical_pages`.
    #[default]
    Modulo,
    /// Reject the request with an error.
    Error,
}

/// Which full block garbage collection reclaims.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    /// Fewest valid pages (most gain per erase).
    #[default]
    Greedy,
    /// Highest `(1 − u) / (1 + u) × age` (Rosenblum & Ousterhout, LFS, SOSP 1991).
    CostBenefit,
    /// Uniformly random among full blocks with at least one invalid page.
    Random,
}

/// When foreground GC starts in a plane whose free blocks fell below the threshold
/// (applied by the controller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GcTrigger {
    /// At once, when the write that crossed the threshold is queued: GC traffic joins
    /// the queues behind the work already there, and idle time absorbs it.
    #[default]
    Eager,
    /// Only when the plane's die is about to serve a request that waits for it, and
    /// then before that request (blocking): DiskSim's SSD model, where an element
    /// cleans when it is activated with requests waiting (`ssd_activate_elem`), and the
    /// DGC paper's baseline (§4.3: no GC on a chip without a request to trigger it).
    Lazy,
}

/// `[ftl.gc]`: garbage collection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GcConfig {
    /// Victim selection policy.
    pub victim: VictimPolicy,
    /// Foreground GC starts in a plane when its free blocks fall below
    /// `ratio × blocks_per_plane` (never fewer than `reserve_blocks + 1`).
    #[schemars(range(min = 0.0), extend("exclusiveMaximum" = 1.0, "x-unit" = "fraction of blocks_per_plane"))]
    pub threshold_free_ratio: f64,
    /// Free blocks per plane that only GC may take.
    #[schemars(range(min = 1))]
    pub reserve_blocks: u32,
    /// Whether idle-time (background) GC is allowed.
    pub background: bool,
    /// Background GC wants at least `ratio × blocks_per_plane` free blocks.
    #[schemars(range(min = 0.0), extend("exclusiveMaximum" = 1.0, "x-unit" = "fraction of blocks_per_plane", "x-constraint" = ">= threshold_free_ratio"))]
    pub background_free_ratio: f64,
    /// Page moves stay inside the die without crossing the bus (carried for the controller).
    pub copyback: bool,
    /// When foreground GC starts (carried for the controller).
    pub trigger: GcTrigger,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            victim: VictimPolicy::Greedy,
            threshold_free_ratio: 0.05,
            reserve_blocks: 2,
            background: false,
            background_free_ratio: 0.10,
            copyback: false,
            trigger: GcTrigger::Eager,
        }
    }
}

/// `[ftl.wear_leveling]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WearLevelingConfig {
    /// Open the least-worn free block (else the lowest-numbered one).
    pub dynamic: bool,
    /// 0 = off; else, when max − min erase count in a plane exceeds it, the next victim is
    /// the least-worn full block (cold data moves off it so that it can take hot data).
    #[schemars(extend("x-unit" = "erases"))]
    pub static_spread: u32,
}

impl Default for WearLevelingConfig {
    fn default() -> Self {
        WearLevelingConfig {
            dynamic: true,
            static_spread: 0,
        }
    }
}

/// `[ftl.precondition]`: zero-time filling and aging before replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Whether to precondition: fill (and age) the device in zero time before the run.
    /// `fill_ratio`, `overwrite_ratio`, `hot_set_ratio`, `aging` and `sample_planes` are
    /// read only when it is true, and refused when set without it.
    pub enabled: bool,
    /// Fraction of the logical pages written sequentially first.
    #[schemars(range(min = 0.0, max = 1.0), extend("x-unit" = "fraction of the logical pages"))]
    pub fill_ratio: f64,
    /// Random overwrites of filled pages, × the logical pages (default 0.5; 0: fill only).
    #[schemars(range(min = 0.0, max = 100.0), extend("x-unit" = "× the logical pages"))]
    pub overwrite_ratio: f64,
    /// The hot set the random overwrites draw from: the first `hot_set_ratio` of the
    /// filled pages (1: all of them, uniform aging). With a small hot set the same
    /// `overwrite_ratio` rewrites it many times, so its blocks end mostly stale and the
    /// rest of the device stays wholly valid, as a volume that rewrites a small working
    /// set leaves it.
    #[schemars(range(min = 0.0, max = 1.0), extend("x-unit" = "fraction of the filled pages", "x-constraint" = "> 0"))]
    #[serde(skip_serializing_if = "is_whole_fill")]
    #[schemars(extend("default" = 1.0))]
    pub hot_set_ratio: f64,
    /// Age the device with the workload itself: the controller replays the trace's writes
    /// in zero time before the run, after the fill and overwrites when `enabled`, and on
    /// its own when not.
    pub warmup: Warmup,
    /// How the random overwrites are carried out: page by page over the whole device, or
    /// replayed on a few sample planes whose state every plane then takes.
    pub aging: Aging,
    /// Sample planes of `aging = "sampled"` (at least 1).
    #[schemars(range(min = 1, max = 65536))]
    pub sample_planes: u32,
}

/// `ftl.precondition.aging`: how the random overwrites age the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Aging {
    /// Every overwrite written, with instant GC, on the whole device (docs/FTL.md §8).
    #[default]
    Replay,
    /// With static allocation, planes age independently of one another: the replay's
    /// draws are made, but only `sample_planes` planes are aged (exactly as the replay
    /// ages them), and every other plane takes the state of one of them with its own
    /// logical pages. Refused where planes do not age alone (RAID, content, dynamic).
    Sampled,
}

/// `ftl.precondition.warmup`: a zero-time replay of the workload before the measured one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Warmup {
    /// No warm-up.
    #[default]
    None,
    /// Every write of the trace once, in order, in zero time (with instant GC), so the
    /// device starts with the valid-page distribution the workload itself leaves.
    Trace,
}

/// True for `hot_set_ratio = 1` (the whole fill: uniform aging), which is not written.
fn is_whole_fill(ratio: &f64) -> bool {
    *ratio == 1.0
}

impl PreconditionConfig {
    /// The keys read only when `enabled` is true (every key but `enabled` and `warmup`,
    /// which runs with or without preconditioning). Set while preconditioning is off, they
    /// would be ignored, so the configuration builder refuses them.
    pub const KEYS_READ_WHEN_ENABLED: &'static [&'static str] = &[
        "fill_ratio",
        "overwrite_ratio",
        "hot_set_ratio",
        "aging",
        "sample_planes",
    ];
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        PreconditionConfig {
            enabled: false,
            fill_ratio: 1.0,
            overwrite_ratio: 0.5,
            hot_set_ratio: 1.0,
            warmup: Warmup::None,
            aging: Aging::Replay,
            sample_planes: 8,
        }
    }
}

/// `[ftl]`: the flash translation layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical pages hidden from the host, `0 <= op < 1`.
    #[schemars(
        range(min = 0.0),
        extend(
            "exclusiveMaximum" = 1.0,
            "x-unit" = "fraction of the physical pages",
            "x-constraint" = "large enough for every plane's reserve and GC frontier blocks"
        )
    )]
    pub over_provisioning: f64,
    /// Static, dynamic, HIPA or content-aware write placement (applied by the controller).
    pub allocation: Allocation,
    /// The priority order of static allocation.
    pub static_order: AllocOrder,
    /// Plane choice of dynamic allocation (carried for the controller).
    pub dynamic_policy: DynamicPolicy,
    /// Handling of host addresses beyond the logical capacity (carried for the controller).
    pub address_fold: AddressFold,
    /// `"ideal"` (the whole map in DRAM) or `"cached"` (DFTL-style, `[ftl.cmt]`).
    /// Written out only when not `"ideal"`.
    #[serde(skip_serializing_if = "MapMode::is_ideal")]
    #[schemars(extend("default" = "ideal"))]
    pub mapping: MapMode,
    /// Garbage collection.
    pub gc: GcConfig,
    /// Wear leveling.
    pub wear_leveling: WearLevelingConfig,
    /// Preconditioning.
    pub precondition: PreconditionConfig,
    /// HIPA (`allocation = "hipa"`, or DS-FTL over HIPA; carried for the controller).
    pub hipa: HipaConfig,
    /// The cached mapping table of `mapping = "cached"`.
    #[serde(skip_serializing_if = "CmtConfig::is_default")]
    pub cmt: CmtConfig,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            over_provisioning: 0.15,
            allocation: Allocation::Static,
            static_order: AllocOrder::CWDP,
            dynamic_policy: DynamicPolicy::RoundRobin,
            address_fold: AddressFold::Modulo,
            gc: GcConfig::default(),
            wear_leveling: WearLevelingConfig::default(),
            precondition: PreconditionConfig::default(),
            hipa: HipaConfig::default(),
            mapping: MapMode::Ideal,
            cmt: CmtConfig::default(),
        }
    }
}

/// Pushes an error if `value` is not finite or not inside `lo..hi` (`hi` inclusive if asked).
fn check_range(
    errs: &mut Vec<FtlConfigError>,
    key: &'static str,
    value: f64,
    (lo, hi, hi_inclusive): (f64, f64, bool),
    range: &'static str,
) {
    let below_hi = if hi_inclusive {
        value <= hi
    } else {
        value < hi
    };
    if !(value.is_finite() && value >= lo && below_hi) {
        errs.push(FtlConfigError::OutOfRange { key, value, range });
    }
}

impl FtlConfig {
    /// Checks every geometry-independent value; returns all problems, each naming its key.
    pub fn validate(&self) -> Vec<FtlConfigError> {
        let mut errs = Vec::new();
        let (op, gc, pre) = (self.over_provisioning, &self.gc, &self.precondition);
        check_range(
            &mut errs,
            "ftl.over_provisioning",
            op,
            (0.0, 1.0, false),
            "[0, 1)",
        );
        let ratio = (0.0, 1.0, false);
        let key = "ftl.gc.threshold_free_ratio";
        check_range(&mut errs, key, gc.threshold_free_ratio, ratio, "[0, 1)");
        let key = "ftl.gc.background_free_ratio";
        check_range(&mut errs, key, gc.background_free_ratio, ratio, "[0, 1)");
        if gc.reserve_blocks == 0 {
            errs.push(FtlConfigError::NoReserve);
        }
        if gc.background_free_ratio < gc.threshold_free_ratio {
            errs.push(FtlConfigError::BackgroundBelowForeground {
                background: gc.background_free_ratio,
                foreground: gc.threshold_free_ratio,
            });
        }
        let key = "ftl.precondition.fill_ratio";
        check_range(&mut errs, key, pre.fill_ratio, (0.0, 1.0, true), "[0, 1]");
        let key = "ftl.precondition.overwrite_ratio";
        check_range(
            &mut errs,
            key,
            pre.overwrite_ratio,
            (0.0, 100.0, true),
            "[0, 100]",
        );
        let key = "ftl.precondition.hot_set_ratio";
        check_range(
            &mut errs,
            key,
            pre.hot_set_ratio,
            (0.0, 1.0, true),
            "(0, 1]",
        );
        if pre.hot_set_ratio == 0.0 {
            errs.push(FtlConfigError::OutOfRange {
                key,
                value: 0.0,
                range: "(0, 1]",
            });
        }
        let key = "ftl.precondition.sample_planes";
        let n = f64::from(pre.sample_planes);
        check_range(&mut errs, key, n, (1.0, 65536.0, true), "[1, 65536]");
        errs
    }

    /// [`FtlConfig::validate`] plus the checks that need the geometry, assuming the map
    /// holds exactly [`FtlConfig::logical_pages`] entries.
    pub fn validate_for(&self, geom: &Geometry) -> Vec<FtlConfigError> {
        let mut errs = self.validate();
        let geom_errs = geom.validate();
        if !geom_errs.is_empty() {
            errs.extend(geom_errs.into_iter().map(FtlConfigError::from));
            return errs;
        }
        if !errs.is_empty() {
            return errs;
        }
        if let Err(e) = self.check_capacity(geom, u64::from(self.logical_pages(geom))) {
            errs.push(e);
        }
        self.check_cmt(geom, &mut errs);
        errs
    }

    /// Host-visible logical pages: `floor(pages × (1 − over_provisioning))`.
    pub fn logical_pages(&self, geom: &Geometry) -> u32 {
        let pages = f64::from(geom.pages());
        (pages * (1.0 - self.over_provisioning)).floor() as u32
    }

    /// The most map entries the geometry can hold: in every plane, all blocks but the
    /// reserve and one GC frontier block, full of valid pages, less one page. A plane whose
    /// host writes are refused has at most `reserve_blocks` free blocks and one open GC
    /// frontier; every other block is a full victim candidate. Holding fewer LPNs than
    /// those candidates have pages guarantees one of them an invalid page, so GC can always
    /// gain (assuming placement gives each plane at most its even share of LPNs).
    pub fn max_map_entries(&self, geom: &Geometry) -> u64 {
        let usable =
            u64::from(geom.blocks_per_plane).saturating_sub(u64::from(self.gc.reserve_blocks) + 1);
        let per_plane = (usable * u64::from(geom.pages_per_block)).saturating_sub(1);
        u64::from(geom.planes()) * per_plane
    }

    /// The geometry-dependent checks for a map of `map_entries` entries.
    pub(crate) fn check_capacity(
        &self,
        geom: &Geometry,
        map_entries: u64,
    ) -> Result<(), FtlConfigError> {
        if geom.blocks_per_plane < self.gc.reserve_blocks.saturating_add(2) {
            return Err(FtlConfigError::TooFewBlocks {
                reserve_blocks: self.gc.reserve_blocks,
                blocks_per_plane: geom.blocks_per_plane,
            });
        }
        let max = self.max_map_entries(geom);
        if map_entries > max {
            return Err(FtlConfigError::MapTooLarge { map_entries, max });
        }
        Ok(())
    }

    /// Foreground GC threshold in blocks: `max(ceil(ratio × blocks_per_plane), reserve + 1)`.
    pub fn gc_threshold_blocks(&self, geom: &Geometry) -> u32 {
        let r = (self.gc.threshold_free_ratio * f64::from(geom.blocks_per_plane)).ceil() as u32;
        r.max(self.gc.reserve_blocks + 1)
    }

    /// Background GC target in blocks: `max(ceil(ratio × blocks_per_plane), foreground)`.
    pub fn bg_threshold_blocks(&self, geom: &Geometry) -> u32 {
        let r = (self.gc.background_free_ratio * f64::from(geom.blocks_per_plane)).ceil() as u32;
        r.max(self.gc_threshold_blocks(geom))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::tiny;

    #[test]
    fn defaults_are_valid_and_documented_values() {
        let c = FtlConfig::default();
        assert!(c.validate().is_empty(), "{:?}", c.validate());
        assert_eq!(c.over_provisioning, 0.15);
        assert_eq!(c.gc.reserve_blocks, 2);
        assert_eq!(c.static_order.to_string(), "cwdp");
        assert!(c.wear_leveling.dynamic);
        assert!(!c.precondition.enabled);
    }

    #[test]
    fn every_bad_value_is_reported_with_its_key() {
        let mut c = FtlConfig {
            over_provisioning: 1.0,
            ..FtlConfig::default()
        };
        c.gc.threshold_free_ratio = 0.3;
        c.gc.background_free_ratio = 0.2;
        c.gc.reserve_blocks = 0;
        c.precondition.fill_ratio = f64::NAN;
        c.precondition.overwrite_ratio = -1.0;
        c.precondition.hot_set_ratio = 0.0;
        let keys: Vec<_> = c.validate().iter().map(|e| e.key()).collect();
        assert_eq!(
            keys,
            [
                "ftl.over_provisioning",
                "ftl.gc.reserve_blocks",
                "ftl.gc.background_free_ratio",
                "ftl.precondition.fill_ratio",
                "ftl.precondition.overwrite_ratio",
                "ftl.precondition.hot_set_ratio",
            ]
        );
        for e in c.validate() {
            assert!(e.to_string().contains(e.key()), "{e}");
        }
        for bad in [1.5, f64::NAN, -0.1] {
            c.precondition.hot_set_ratio = bad;
            let keys: Vec<_> = c.validate().iter().map(|e| e.key()).collect();
            assert!(keys.contains(&"ftl.precondition.hot_set_ratio"), "{bad}");
        }
    }

    #[test]
    fn toml_is_strict_and_kebab_case() {
        let c: FtlConfig = toml::from_str(
            "over_provisioning = 0.2\nstatic_order = \"pdcw\"\nallocation = \"dynamic\"\n\
             dynamic_policy = \"least-busy\"\n[gc]\nvictim = \"cost-benefit\"\n",
        )
        .unwrap();
        assert_eq!(c.over_provisioning, 0.2);
        assert_eq!(c.gc.victim, VictimPolicy::CostBenefit);
        assert_eq!(c.dynamic_policy, DynamicPolicy::LeastBusy);
        assert_eq!(c.static_order.to_string(), "pdcw");
        assert_eq!(c.gc.reserve_blocks, 2, "unset keys keep their defaults");
        let e = toml::from_str::<FtlConfig>("[gc]\nvictims = \"greedy\"\n").unwrap_err();
        assert!(e.to_string().contains("victims"), "{e}");
        let e = toml::from_str::<FtlConfig>("static_order = \"cwdx\"\n").unwrap_err();
        assert!(e.to_string().contains("ftl.static_order"), "{e}");
        assert!(e.to_string().contains("cwdx"), "{e}");
        let back = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<FtlConfig>(&back).unwrap(), c);
    }

    #[test]
    fn capacity_checks_need_the_geometry() {
        let g = tiny(); // 8 blocks per plane, 4 pages per block, 8 planes
        let c = FtlConfig::default();
        assert_eq!(c.max_map_entries(&g), 8 * (5 * 4 - 1));
        assert_eq!(c.logical_pages(&g), 217);
        let errs = c.validate_for(&g);
        assert!(matches!(
            errs[0],
            FtlConfigError::MapTooLarge {
                map_entries: 217,
                max: 152
            }
        ));
        let ok = FtlConfig {
            over_provisioning: 0.45,
            ..FtlConfig::default()
        };
        assert!(ok.validate_for(&g).is_empty());
        let mut few = ok.clone();
        few.gc.reserve_blocks = 7;
        assert_eq!(few.validate_for(&g)[0].key(), "ftl.gc.reserve_blocks");
    }

    #[test]
    fn thresholds_never_fall_to_the_reserve() {
        let g = tiny();
        let c = FtlConfig::default();
        assert_eq!(
            c.gc_threshold_blocks(&g),
            3,
            "0.05 × 8 rounds up to 1, raised to reserve + 1"
        );
        assert_eq!(c.bg_threshold_blocks(&g), 3);
        let mut c2 = c.clone();
        c2.gc.background_free_ratio = 0.5;
        assert_eq!(c2.bg_threshold_blocks(&g), 4);
    }

    /// Every key of `[ftl.precondition]` is either read only with `enabled = true` or
    /// named here as read without it, so a new key has to be placed in one list.
    #[test]
    fn every_precondition_key_is_classified() {
        // Every key written: hot_set_ratio is left out at its default.
        let all = PreconditionConfig {
            hot_set_ratio: 0.5,
            ..PreconditionConfig::default()
        };
        let text = toml::to_string(&all).unwrap();
        let table: toml::Table = text.parse().unwrap();
        let mut keys: Vec<&str> = table.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut classified = vec!["enabled", "warmup"];
        classified.extend_from_slice(PreconditionConfig::KEYS_READ_WHEN_ENABLED);
        classified.sort_unstable();
        assert_eq!(keys, classified);
    }
}
