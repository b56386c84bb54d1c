//! The cached map's measurements: the report's `mapping` section, present only with
//! `ftl.mapping = "cached"` (docs/FTL.md §12, docs/METRICS.md).

use serde::{Deserialize, Serialize};

use crate::latency::{Latency, LatencyAcc};

/// What the cached mapping table did over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MappingReport {
    /// Entries the CMT holds.
    pub cmt_entries: u64,
    /// Entries per translation page.
    pub entries_per_tpage: u64,
    /// Lookups of host reads and writes (one per page).
    pub lookups: u64,
    /// Lookups that found their entry cached.
    pub hits: u64,
    /// `hits / lookups` (0 without lookups).
    pub hit_ratio: f64,
    /// Translation-page reads for read misses (flash reads issued; misses that joined
    /// a read already running or found the page in the controller are not counted).
    pub miss_reads: u64,
    /// Translation-page reads before a rewrite (read-modify-write of a page not wholly
    /// cached).
    pub writeback_reads: u64,
    /// Translation-page programs (rewrites of evicted dirty entries).
    pub translation_writes: u64,
    /// Dirty entries those programs carried.
    pub written_entries: u64,
    /// Translation pages GC moved (each move updated the directory).
    pub translation_pages_moved: u64,
    /// Translation-page programs per host page written (0 without host writes): the
    /// mapping's share of the write amplification.
    pub mapping_write_amplification: f64,
    /// Response time of host reads that missed in the CMT for at least one page.
    pub read_miss: Latency,
    /// Response time of host reads whose every page hit.
    pub read_hit: Latency,
    /// DS-FTL's group records (with the content index and multi-path reads only; the
    /// fields above count LPN entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<GroupMapping>,
}

/// The cached map's group records: DS-FTL's secondary table (docs/FTL.md §12, "With
/// DS-FTL").
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupMapping {
    /// Entries of the table one group record takes.
    pub record_entries: u64,
    /// Group records per translation page.
    pub records_per_tpage: u64,
    /// Translation pages of group records (after the LPNs' pages).
    pub tpages: u64,
    /// Lookups of a group's record (host read pages whose page is in a group).
    pub lookups: u64,
    /// Those that found the record cached.
    pub hits: u64,
    /// `hits / lookups` (0 without lookups).
    pub hit_ratio: f64,
    /// Translation-page reads for record misses (each a second dependent read when the
    /// LPN's entry missed too).
    pub miss_reads: u64,
    /// Group records carried by translation-page programs.
    pub written_records: u64,
}

impl MappingReport {
    /// True when no value is NaN or infinite.
    pub fn all_finite(&self) -> bool {
        self.hit_ratio.is_finite()
            && self.mapping_write_amplification.is_finite()
            && self.read_miss.mean_ns.is_finite()
            && self.read_hit.mean_ns.is_finite()
            && self.groups.is_none_or(|g| g.hit_ratio.is_finite())
    }
}

impl GroupMapping {
    /// The text summary's lines.
    pub fn lines(&self) -> [(&'static str, String); 4] {
        use crate::table::{fmt_count as n, fmt_pct};
        [
            (
                "group record size, per tpage",
                format!("{} / {}", n(self.record_entries), n(self.records_per_tpage)),
            ),
            (
                "group hits / lookups",
                format!("{} / {}", n(self.hits), n(self.lookups)),
            ),
            ("group hit ratio (%)", fmt_pct(self.hit_ratio)),
            ("translation reads (group)", n(self.miss_reads)),
        ]
    }
}

/// Response times of host reads split by whether they missed in the CMT.
#[derive(Clone, Debug)]
pub struct HitMissLatency {
    hit: LatencyAcc,
    miss: LatencyAcc,
}

impl Default for HitMissLatency {
    fn default() -> Self {
        HitMissLatency {
            hit: LatencyAcc::new(),
            miss: LatencyAcc::new(),
        }
    }
}

impl HitMissLatency {
    /// Adds one read's response time.
    pub fn record(&mut self, missed: bool, ns: u64) {
        if missed {
            self.miss.record(ns);
        } else {
            self.hit.record(ns);
        }
    }

    /// `(hit, miss)` summaries.
    pub fn summaries(&self) -> (Latency, Latency) {
        (self.hit.summary(), self.miss.summary())
    }
}
