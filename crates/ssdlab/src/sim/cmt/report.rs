//! The cached map's section of the report (`mapping`).

use crate::sim::Simulation;
use ssdlab_stats::{ratio, MappingReport};

impl Simulation {
    /// The report's `mapping` section.
    pub(in crate::sim) fn mapping_report(&self) -> Option<MappingReport> {
        let c = self.cmt.as_ref()?;
        let (read_hit, read_miss) = c.latency.summaries();
        let host = self.counters.host_pages_programmed;
        Some(MappingReport {
            cmt_entries: u64::from(c.cmt.capacity()),
            entries_per_tpage: u64::from(c.cmt.per_tpage()),
            lookups: c.lookups,
            hits: c.hits,
            hit_ratio: ratio(c.hits as f64, c.lookups as f64),
            miss_reads: c.miss_reads,
            writeback_reads: c.writeback_reads,
            translation_writes: c.writes,
            written_entries: c.written_entries,
            translation_pages_moved: c.tpages_moved,
            mapping_write_amplification: ratio(c.writes as f64, host as f64),
            read_miss,
            read_hit,
            groups: c
                .groups
                .as_ref()
                .map(|g| g.report(c.cmt.tpages() - c.cmt.lpn_tpages())),
        })
    }
}
