//! `[dsftl]`: DS-FTL's content index, content-aware placement and multi-path reads
//! (Nie et al., "Exploiting Data Similarity to Improve SSD Read Performance", Applied
//! Sciences 13(24) 13017, 2023). Content-aware placement itself is selected by
//! `ftl.allocation = "content-aware"`; this section holds its settings. See
//! `docs/DSFTL.md` for each reading of the paper.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_ftl::{ContentFilter, ContentIndexConfig, ContentUnit, MAX_HASHES};

/// The allocation content-aware placement starts from (`dsftl.base`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BaseAllocation {
    /// Static, under `ftl.static_order` (the paper's headline baseline, §5.2.1).
    #[default]
    Static,
    /// Dynamic, under `ftl.dynamic_policy`.
    Dynamic,
    /// HIPA, under `[ftl.hipa]`.
    Hipa,
}

/// Where the round-robin search for a unit without the content starts
/// (`dsftl.rr_start`; the paper says only "round-robin", §4.2.1 (3)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RrStart {
    /// The unit after the base allocation's target.
    #[default]
    AfterHome,
    /// One pointer shared by every write, advanced past each unit it hands out
    /// (SSDsim's dynamic-allocation token).
    GlobalPointer,
}

/// Where a page goes when every unit already holds its content (`dsftl.on_saturated`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OnSaturated {
    /// The base allocation's target.
    #[default]
    Home,
    /// The same plane position on the unit whose chip has the least outstanding work.
    LeastLoaded,
}

/// When a read may take another page of its content (`dsftl.multipath_read`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Multipath {
    /// With content-aware placement (DS-FTL as the paper builds it).
    #[default]
    WithPlacement,
    /// Whenever the content index is kept (multi-path reads over any allocation).
    Always,
    /// Never (content-aware placement alone).
    Never,
}

/// `[dsftl]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DsftlConfig {
    /// Keep the content index under any allocation, so that the baselines report the
    /// same content metrics (content-aware placement always keeps it).
    pub index: bool,
    /// The allocation content-aware placement redirects from.
    pub base: BaseAllocation,
    /// The unit of the fingerprint tables and of the round-robin search: channel (the
    /// paper, §4.2.1 (2)) or chip.
    pub scope: ContentUnit,
    /// How a unit's fingerprint table answers: a counting Bloom filter (§4.2.2), a plain
    /// one, or exactly.
    pub filter: ContentFilter,
    /// Bloom filter positions per physical page of the unit (m / pages; not in paper).
    #[schemars(range(min = 1))]
    pub bloom_bits_per_page: u32,
    /// Bloom filter hash functions (k; not in paper).
    #[schemars(range(min = 1, max = MAX_HASHES))]
    pub bloom_hashes: u32,
    /// `filter = "bloom-plain"`: rebuild the filters from the index after this many
    /// insertions; 0 = never.
    pub bloom_rebuild_writes: u64,
    /// Where the round-robin search starts.
    pub rr_start: RrStart,
    /// Where a page goes when every unit holds its content.
    pub on_saturated: OnSaturated,
    /// A rewrite of an LPN finds its own old page (still valid when its place is chosen,
    /// §4.2.1 (2)–(4)) and moves away from it; false: the LPN's own page does not count.
    pub self_copy_counts: bool,
    /// A unit is a candidate only where its plane has more free pages than this many
    /// blocks' worth (the FTL's capacity bound assumes even placement).
    pub space_guard_blocks: u32,
    /// Never-written pages that reads materialize are placed content-aware too (with the
    /// read's content, when the trace carries it).
    pub place_materialized: bool,
    /// When a read may take another page of its content, on the chip with the least
    /// outstanding work (§4.3.2).
    pub multipath_read: Multipath,
}

impl Default for DsftlConfig {
    fn default() -> Self {
        DsftlConfig {
            index: false,
            base: BaseAllocation::Static,
            scope: ContentUnit::Channel,
            filter: ContentFilter::Bloom,
            bloom_bits_per_page: 10,
            bloom_hashes: 7,
            bloom_rebuild_writes: 0,
            rr_start: RrStart::AfterHome,
            on_saturated: OnSaturated::Home,
            self_copy_counts: true,
            space_guard_blocks: 1,
            place_materialized: true,
            multipath_read: Multipath::WithPlacement,
        }
    }
}

impl DsftlConfig {
    /// What the FTL's content index is built with.
    pub fn index_config(&self) -> ContentIndexConfig {
        ContentIndexConfig {
            unit: self.scope,
            filter: self.filter,
            bloom_bits_per_page: self.bloom_bits_per_page,
            bloom_hashes: self.bloom_hashes,
            bloom_rebuild_writes: self.bloom_rebuild_writes,
        }
    }

    /// Inconsistent values, each with its key.
    pub fn validate(&self) -> Vec<(&'static str, String)> {
        let mut errs = Vec::new();
        if self.bloom_bits_per_page == 0 {
            errs.push((
                "dsftl.bloom_bits_per_page",
                "must be at least 1".to_string(),
            ));
        }
        if !(1..=MAX_HASHES).contains(&self.bloom_hashes) {
            errs.push((
                "dsftl.bloom_hashes",
                format!("must be in 1..={MAX_HASHES}, found {}", self.bloom_hashes),
            ));
        }
        errs
    }
}
