//! [`CacheConfig`]: the `[cache]` section of a run's configuration.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the controller's DRAM holds for host data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMode {
    /// No DRAM stage: every host page goes to flash as it is admitted.
    #[default]
    Off,
    /// A write buffer: writes are acknowledged from DRAM and leave it once programmed;
    /// reads hit only pages still buffered.
    WriteBuffer,
    /// A data cache: written pages stay as clean copies once programmed, and pages read
    /// from flash are kept too, so later reads of them hit.
    ReadWrite,
}

/// When a write is acknowledged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// When its pages are in DRAM; they reach flash later (destaging).
    #[default]
    WriteBack,
    /// When its pages are programmed; DRAM keeps a clean copy (`read-write`) or nothing.
    WriteThrough,
}

/// Which page leaves DRAM first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// The least recently used page (a read or a write of a page makes it the most
    /// recent).
    #[default]
    Lru,
    /// The page that entered DRAM first (accesses do not reorder).
    Fifo,
    /// The least recently used clean page while there is one, then the least recently
    /// used dirty page (clean pages leave without a program).
    CleanFirstLru,
}

/// When dirty pages are written to flash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Destage {
    /// In the background: once the dirty pages reach `high_watermark` of the capacity,
    /// until they are down to `low_watermark`; a write that finds DRAM full waits.
    #[default]
    Watermark,
    /// Only when a write finds DRAM full: the replacement victim is written to flash and
    /// the write waits for it (SSDsim's buffer, `buffer_management`/`insert2buffer`).
    OnDemand,
}

/// How tenants (`[[host.tenant]]`) share the stage (`cache.sharing`; docs/DRAM.md,
/// "Tenants").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheSharing {
    /// One stage for every tenant: one capacity, one replacement order, one set of
    /// watermarks, one queue of writes waiting for room (MQSim's `SHARED`).
    #[default]
    Shared,
    /// Each tenant a partition of `capacity / tenants` pages (rounded down) with its own
    /// replacement order, watermarks, queue of waiting writes and destaging (MQSim's
    /// `EQUAL_PARTITIONING`).
    Equal,
}

impl CacheSharing {
    /// True for the default (`"shared"`), which is not written out.
    pub fn is_shared(&self) -> bool {
        *self == CacheSharing::Shared
    }
}

/// The controller's DRAM stage between the host and the FTL (`[cache]`).
///
/// DRAM timing defaults are MQSim's data-cache defaults (`Device_Parameter_Set.cpp`:
/// `Data_Cache_DRAM_tRCD` = `tCL` = 13 ns, 800 MT/s × 4-byte bursts = 3,200 MB/s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// What DRAM holds: `"off"`, `"write-buffer"` or `"read-write"`.
    pub mode: CacheMode,
    /// The controller's DRAM, MiB (> 0 when the stage is on; at most the device's raw
    /// capacity): room for host data, less the cached map's table when
    /// `ftl.mapping = "cached"`.
    #[schemars(extend("x-unit" = "MiB", "x-constraint" = ">= 1 when mode is not off; at most the raw capacity"))]
    pub capacity_mib: u64,
    /// `"write-back"` (acknowledge from DRAM) or `"write-through"` (acknowledge when
    /// programmed).
    pub write_policy: WritePolicy,
    /// Which page leaves first: `"lru"`, `"fifo"` or `"clean-first-lru"`.
    pub replacement: Replacement,
    /// When dirty pages go to flash: `"watermark"` (background) or `"on-demand"`
    /// (SSDsim's rule: a write that finds DRAM full waits for its victim's program).
    pub destage: Destage,
    /// Dirty share of the capacity that starts background destaging (`watermark`).
    #[schemars(range(min = 0.0, max = 1.0), extend("x-unit" = "fraction of the capacity", "x-constraint" = "> low_watermark"))]
    pub high_watermark: f64,
    /// Dirty share of the capacity at which background destaging stops (`watermark`).
    #[schemars(range(min = 0.0, max = 1.0), extend("x-unit" = "fraction of the capacity", "x-constraint" = "< high_watermark"))]
    pub low_watermark: f64,
    /// The most destage programs in flight at once; 0: one per plane of the device (with
    /// one-shot programs, a wordline's pages per plane).
    #[schemars(extend("x-unit" = "programs"))]
    pub max_destage_in_flight: u32,
    /// DRAM access latency per transfer, ns (MQSim default tRCD + tCL = 26 ns).
    #[schemars(range(max = 1_000_000))]
    pub t_access_ns: u64,
    /// DRAM bandwidth, MB/s (10^6 bytes; MQSim default 800 MT/s × 4 B = 3,200).
    #[schemars(range(min = 1), extend("x-unit" = "MB/s (10^6 bytes)"))]
    pub bandwidth_mb_s: u64,
    /// Power-loss protection: dirty pages the controller can still program after power
    /// is lost (an energy budget in pages); 0 without PLP.
    #[schemars(extend("x-unit" = "pages"))]
    pub plp_pages: u64,
    /// Power-loss protection as a hold-up time, µs: converted into pages from the
    /// device's program time and its dies; 0 without. At most one of the two is set.
    #[schemars(range(max = 10_000_000), extend("x-unit" = "µs", "x-constraint" = "not with plp_pages"))]
    pub plp_hold_up_us: u64,
    /// Points kept of the dirty-occupancy time series in the report.
    #[schemars(range(min = 2), extend("x-unit" = "points"))]
    pub occupancy_points: u32,
    /// How tenants share the stage: `"shared"`, one stage for all, or `"equal"`, a
    /// partition of `capacity / tenants` pages each with its own replacement order,
    /// watermarks, queue of waiting writes and destaging (MQSim's
    /// `Data_Cache_Sharing_Mode`; docs/DRAM.md, "Tenants"). `"equal"` needs tenants.
    /// Written out only when not `"shared"`.
    #[serde(skip_serializing_if = "CacheSharing::is_shared")]
    #[schemars(extend("default" = "shared"))]
    pub sharing: CacheSharing,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            mode: CacheMode::Off,
            capacity_mib: 0,
            write_policy: WritePolicy::WriteBack,
            replacement: Replacement::Lru,
            destage: Destage::Watermark,
            high_watermark: 0.8,
            low_watermark: 0.6,
            max_destage_in_flight: 0,
            t_access_ns: 26,
            bandwidth_mb_s: 3_200,
            plp_pages: 0,
            plp_hold_up_us: 0,
            occupancy_points: 512,
            sharing: CacheSharing::Shared,
        }
    }
}

/// A problem with the `[cache]` section, naming its key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("key `cache.{key}`: {message}")]
pub struct CacheConfigError {
    /// The key under `cache.`.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl CacheConfig {
    /// The keys read only while the stage is on (all but `mode`): set while `mode` is
    /// `"off"` they would be ignored, and the configuration refuses them.
    pub const KEYS_READ_WHEN_ON: &'static [&'static str] = &[
        "capacity_mib",
        "write_policy",
        "replacement",
        "destage",
        "high_watermark",
        "low_watermark",
        "max_destage_in_flight",
        "t_access_ns",
        "bandwidth_mb_s",
        "plp_pages",
        "plp_hold_up_us",
        "occupancy_points",
        "sharing",
    ];

    /// Whether the stage exists.
    pub fn is_on(&self) -> bool {
        self.mode != CacheMode::Off
    }

    /// Every problem of the section, for a device of `device_bytes` raw capacity.
    pub fn validate(&self, device_bytes: u64) -> Vec<CacheConfigError> {
        let mut errs = Vec::new();
        let mut bad = |key, message: String| errs.push(CacheConfigError { key, message });
        if !self.is_on() {
            return errs;
        }
        if self.capacity_mib == 0 {
            bad(
                "capacity_mib",
                "must be at least 1 when the cache is on".into(),
            );
        } else if self.capacity_mib.saturating_mul(1 << 20) > device_bytes {
            bad(
                "capacity_mib",
                format!(
                    "{} MiB is more than the device's raw capacity of {} MiB",
                    self.capacity_mib,
                    device_bytes >> 20
                ),
            );
        }
        for (key, v) in [
            ("high_watermark", self.high_watermark),
            ("low_watermark", self.low_watermark),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                bad(key, format!("must be a share between 0 and 1, found {v}"));
            }
        }
        if self.low_watermark >= self.high_watermark {
            bad(
                "low_watermark",
                format!(
                    "must be below high_watermark ({} >= {})",
                    self.low_watermark, self.high_watermark
                ),
            );
        }
        if self.high_watermark == 0.0 {
            bad("high_watermark", "must be above 0".into());
        }
        if self.bandwidth_mb_s == 0 {
            bad("bandwidth_mb_s", "must be at least 1".into());
        }
        if self.t_access_ns > 1_000_000 {
            bad(
                "t_access_ns",
                format!(
                    "{} ns is not a DRAM access time (at most 1 ms)",
                    self.t_access_ns
                ),
            );
        }
        if self.plp_pages > 0 && self.plp_hold_up_us > 0 {
            bad(
                "plp_hold_up_us",
                "give the PLP budget as plp_pages or as plp_hold_up_us, not both".into(),
            );
        }
        if self.plp_hold_up_us > 10_000_000 {
            bad(
                "plp_hold_up_us",
                format!(
                    "{} µs is no hold-up time (at most 10 s)",
                    self.plp_hold_up_us
                ),
            );
        }
        if self.write_policy == WritePolicy::WriteThrough && self.mode == CacheMode::WriteBuffer {
            bad(
                "write_policy",
                "a write-through write buffer would hold nothing: use mode = \"read-write\" \
                 (programmed and read pages kept as clean copies) or write-back"
                    .into(),
            );
        }
        if self.occupancy_points < 2 {
            bad("occupancy_points", "must be at least 2".into());
        }
        errs
    }

    /// The capacity in whole pages of `page_bytes`, when `reserved_bytes` of the DRAM
    /// hold something else (the cached map's table).
    pub fn capacity_pages(&self, page_bytes: u32, reserved_bytes: u64) -> u64 {
        (self.capacity_mib << 20).saturating_sub(reserved_bytes) / u64::from(page_bytes.max(1))
    }

    /// Time to move `bytes` between the host (or flash) and DRAM, ns.
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        // bytes / (MB/s) = µs × 10^-6 … in ns: bytes × 1000 / MB/s, rounded up.
        self.t_access_ns + (bytes * 1000).div_ceil(self.bandwidth_mb_s.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on() -> CacheConfig {
        CacheConfig {
            mode: CacheMode::WriteBuffer,
            capacity_mib: 64,
            ..CacheConfig::default()
        }
    }

    fn keys(c: &CacheConfig) -> Vec<&'static str> {
        c.validate(1 << 40)
            .iter()
            .map(|e| e.key)
            .collect::<Vec<_>>()
    }

    #[test]
    fn off_is_valid_whatever_else_it_holds_and_on_needs_a_capacity() {
        assert!(keys(&CacheConfig::default()).is_empty());
        assert!(keys(&on()).is_empty());
        let zero = CacheConfig {
            capacity_mib: 0,
            ..on()
        };
        assert_eq!(keys(&zero), ["capacity_mib"]);
        let huge = CacheConfig {
            capacity_mib: 2 << 20,
            ..on()
        };
        let e = &huge.validate(1 << 40)[0];
        assert_eq!(e.key, "capacity_mib");
        assert!(
            e.to_string().starts_with("key `cache.capacity_mib`: "),
            "{e}"
        );
    }

    #[test]
    fn watermarks_in_order_and_in_range() {
        let swapped = CacheConfig {
            high_watermark: 0.3,
            low_watermark: 0.6,
            ..on()
        };
        assert_eq!(keys(&swapped), ["low_watermark"]);
        let nan = CacheConfig {
            high_watermark: f64::NAN,
            ..on()
        };
        assert!(keys(&nan).contains(&"high_watermark"));
        let over = CacheConfig {
            high_watermark: 1.5,
            ..on()
        };
        assert!(keys(&over).contains(&"high_watermark"));
    }

    #[test]
    fn plp_is_pages_or_hold_up_and_absurd_values_are_refused() {
        let both = CacheConfig {
            plp_pages: 10,
            plp_hold_up_us: 100,
            ..on()
        };
        assert_eq!(keys(&both), ["plp_hold_up_us"]);
        let absurd = CacheConfig {
            plp_hold_up_us: 3_600_000_000,
            ..on()
        };
        assert_eq!(keys(&absurd), ["plp_hold_up_us"]);
        let slow = CacheConfig {
            bandwidth_mb_s: 0,
            ..on()
        };
        assert_eq!(keys(&slow), ["bandwidth_mb_s"]);
    }

    #[test]
    fn every_key_but_mode_is_read_only_when_on() {
        let every = CacheConfig {
            sharing: CacheSharing::Equal,
            ..CacheConfig::default()
        };
        let all = toml::Value::try_from(every).unwrap();
        let mut keys: Vec<&str> = all.as_table().unwrap().keys().map(String::as_str).collect();
        keys.retain(|k| *k != "mode");
        let mut listed = CacheConfig::KEYS_READ_WHEN_ON.to_vec();
        keys.sort_unstable();
        listed.sort_unstable();
        assert_eq!(keys, listed);
    }

    #[test]
    fn transfer_time_is_access_plus_bytes_over_bandwidth() {
        let c = on();
        // 4096 B at 3,200 MB/s = 1,280 ns, plus 26 ns.
        assert_eq!(c.transfer_ns(4096), 1_306);
        assert_eq!(c.transfer_ns(0), 26);
        assert_eq!(c.capacity_pages(4096, 0), 64 * 256);
        assert_eq!(c.capacity_pages(4096, 4000), 64 * 256 - 1);
        assert_eq!(c.capacity_pages(4096, 4096), 64 * 256 - 1);
        assert_eq!(c.capacity_pages(4096, 4097), 64 * 256 - 2);
    }

    #[test]
    fn the_section_reads_from_toml_with_kebab_case_values() {
        let c: CacheConfig = toml::from_str(
            "mode = \"read-write\"\ncapacity_mib = 8\nreplacement = \"clean-first-lru\"\n\
             destage = \"on-demand\"\nwrite_policy = \"write-through\"\n",
        )
        .unwrap();
        assert_eq!(c.mode, CacheMode::ReadWrite);
        assert_eq!(c.replacement, Replacement::CleanFirstLru);
        assert_eq!(c.destage, Destage::OnDemand);
        assert_eq!(c.write_policy, WritePolicy::WriteThrough);
        assert!(toml::from_str::<CacheConfig>("capacity = 8").is_err());
        let e: CacheConfig = toml::from_str("sharing = \"equal\"").unwrap();
        assert_eq!(e.sharing, CacheSharing::Equal);
        let plain = toml::to_string(&CacheConfig::default()).unwrap();
        assert!(
            !plain.contains("sharing"),
            "the default is not written: {plain}"
        );
    }
}
