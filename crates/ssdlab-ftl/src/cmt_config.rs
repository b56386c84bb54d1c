//! The cached map's configuration (`ftl.mapping`, `[ftl.cmt]`; docs/FTL.md §12).

use crate::config::FtlConfig;
use crate::error::FtlConfigError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::Geometry;

/// `ftl.mapping`: where the forward map lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MapMode {
    /// The whole map in the controller's DRAM: a lookup costs nothing.
    #[default]
    Ideal,
    /// DFTL-style: a cached mapping table (`[ftl.cmt]`) in DRAM, the map in translation
    /// pages on flash; a miss reads its translation page first, evicting a dirty entry
    /// rewrites its page (docs/FTL.md §12).
    Cached,
}

impl MapMode {
    /// True for the default.
    pub fn is_ideal(&self) -> bool {
        *self == MapMode::Ideal
    }
}

/// `[ftl.cmt]`: the cached mapping table of `ftl.mapping = "cached"`. Written out only
/// when set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CmtConfig {
    /// Capacity in entries (set this or `bytes`).
    pub entries: u64,
    /// Capacity in bytes of DRAM, `entry_bytes` per entry (set this or `entries`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes: u64,
    /// Bytes of one map entry, in DRAM and in a translation page.
    #[schemars(range(min = 1), extend("x-unit" = "bytes"))]
    pub entry_bytes: u32,
    /// Entries per translation page; 0: as many as fit a flash page
    /// (`geometry.page_size_bytes / entry_bytes`).
    pub entries_per_tpage: u32,
    /// How tenants (`[[host.tenant]]`) share the table: `"shared"`, one LRU over every
    /// tenant's entries, or `"equal"`, a partition of `capacity / tenants` entries each
    /// with its own LRU (MQSim's `CMT_Sharing_Mode`; docs/FTL.md §12). Written out only
    /// when not `"shared"`.
    #[serde(skip_serializing_if = "CmtSharing::is_shared")]
    #[schemars(extend("default" = "shared"))]
    pub sharing: CmtSharing,
    /// With DS-FTL's content index and multi-path reads: entries one group record of the
    /// secondary table takes, in the table and in a translation page; 0: one per chip of
    /// the device (a record keeps one page per chip, the copies a multi-path read
    /// chooses among; docs/FTL.md §12, "With DS-FTL"). Written out only when set.
    #[serde(skip_serializing_if = "is_zero")]
    #[schemars(extend("default" = 0))]
    pub group_entries: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// `ftl.cmt.sharing`: how the tenants share the cached mapping table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CmtSharing {
    /// One LRU over every tenant's entries (MQSim's `SHARED`).
    #[default]
    Shared,
    /// Each tenant its own partition of `capacity / tenants` entries, LRU within it
    /// (MQSim's `EQUAL_SIZE_PARTITIONING`).
    Equal,
}

impl CmtSharing {
    /// True for the default (`"shared"`), which is not written out.
    pub fn is_shared(&self) -> bool {
        *self == CmtSharing::Shared
    }
}

impl Default for CmtConfig {
    fn default() -> Self {
        CmtConfig {
            entries: 0,
            bytes: 0,
            entry_bytes: 4,
            entries_per_tpage: 0,
            sharing: CmtSharing::Shared,
            group_entries: 0,
        }
    }
}

impl CmtConfig {
    /// True for the default (nothing set).
    pub fn is_default(&self) -> bool {
        *self == CmtConfig::default()
    }

    /// Entries per translation page with pages of `page_bytes`.
    pub fn per_tpage(&self, page_bytes: u32) -> u32 {
        if self.entries_per_tpage > 0 {
            self.entries_per_tpage
        } else {
            page_bytes / self.entry_bytes.max(1)
        }
    }

    /// Entries one group record takes on a device of `chips` chips.
    pub fn group_cost(&self, chips: u32) -> u32 {
        if self.group_entries > 0 {
            self.group_entries
        } else {
            chips
        }
    }

    /// The capacity in entries.
    pub fn capacity(&self) -> u64 {
        if self.entries > 0 {
            self.entries
        } else {
            self.bytes / u64::from(self.entry_bytes.max(1))
        }
    }
}

impl FtlConfig {
    /// Bytes of controller DRAM the map takes out of the DRAM stage's budget: the
    /// cached map's table (`entries × entry_bytes`); 0 with the ideal map, whose DRAM is
    /// not modelled (it is not part of `cache.capacity_mib`).
    pub fn dram_bytes(&self) -> u64 {
        match self.mapping {
            MapMode::Ideal => 0,
            MapMode::Cached => self.cmt.capacity() * u64::from(self.cmt.entry_bytes),
        }
    }

    /// The `[ftl.cmt]` checks: a capacity that is positive and smaller than the map,
    /// translation pages whose entries fit a flash page; keys set without
    /// `mapping = "cached"` are refused (configured but never used).
    pub(crate) fn check_cmt(&self, geom: &Geometry, errs: &mut Vec<FtlConfigError>) {
        let c = &self.cmt;
        let mut bad = |key: &'static str, message: String| {
            errs.push(FtlConfigError::Invalid { key, message })
        };
        if c.entry_bytes == 0 {
            bad("ftl.cmt.entry_bytes", "must be at least 1".into());
        }
        if self.mapping == MapMode::Ideal {
            if !c.is_default() {
                bad(
                    "ftl.cmt",
                    "is set while ftl.mapping = \"ideal\", which caches nothing: set ftl.mapping = \"cached\" or leave [ftl.cmt] out".into(),
                );
            }
            return;
        }
        if c.entry_bytes == 0 {
            return;
        }
        if c.entries > 0 && c.bytes > 0 {
            bad(
                "ftl.cmt.bytes",
                "set the capacity once: ftl.cmt.entries or ftl.cmt.bytes, not both".into(),
            );
        }
        let cap = c.capacity();
        let map = u64::from(self.logical_pages(geom));
        if cap == 0 {
            let key = if c.bytes > 0 {
                "ftl.cmt.bytes"
            } else {
                "ftl.cmt.entries"
            };
            bad(
                key,
                format!(
                    "the cached mapping table holds no entry: set ftl.cmt.entries or ftl.cmt.bytes (at least ftl.cmt.entry_bytes = {})",
                    c.entry_bytes
                ),
            );
        } else if cap > map {
            let key = if c.entries > 0 {
                "ftl.cmt.entries"
            } else {
                "ftl.cmt.bytes"
            };
            bad(
                key,
                format!(
                    "a cache of {cap} entries is larger than the map ({map} logical pages): use ftl.mapping = \"ideal\" for a map wholly in DRAM"
                ),
            );
        }
        let page = geom.page_size_bytes;
        let per = c.per_tpage(page);
        if per == 0 {
            bad(
                "ftl.cmt.entry_bytes",
                format!(
                    "an entry of {} bytes does not fit a page of {page} bytes",
                    c.entry_bytes
                ),
            );
        } else if u64::from(per) * u64::from(c.entry_bytes) > u64::from(page) {
            bad(
                "ftl.cmt.entries_per_tpage",
                format!(
                    "{per} entries of {} bytes do not fit a translation page of {page} bytes (at most {})",
                    c.entry_bytes,
                    page / c.entry_bytes
                ),
            );
        }
    }
}
