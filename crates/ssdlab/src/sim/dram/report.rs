//! The report's `dram` section, and each tenant's use of the stage in the tenants'
//! section (`cache.sharing`; docs/DRAM.md, "Tenants").

use super::super::Simulation;
use ssdlab_stats::{ratio, DramReport, TenantDramReport};

impl Simulation {
    /// The report's `dram` section at the end of the run (`end_ns`).
    pub(in crate::sim) fn dram_report(&mut self, end_ns: u64) -> Option<DramReport> {
        let d = self.dram.as_mut()?;
        let c = d.stage.counters();
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let dirty_at_end = u64::from(d.stage.dirty_pages());
        let capacity_pages = u64::from(d.stage.capacity());
        let occupancy = d.stage.occupancy(end_ns);
        Some(DramReport {
            mode: kebab(&d.cfg.mode),
            write_policy: kebab(&d.cfg.write_policy),
            replacement: kebab(&d.cfg.replacement),
            destage: kebab(&d.cfg.destage),
            capacity_pages,
            read_hits: c.read_hits,
            read_misses: c.read_misses,
            read_hit_ratio: ratio(c.read_hits, c.read_hits + c.read_misses),
            writes_absorbed: c.writes_absorbed,
            write_hits: c.write_hits,
            write_hit_ratio: ratio(c.write_hits, c.writes_absorbed),
            superseded: c.superseded,
            never_reached_flash: ratio(c.superseded, c.writes_absorbed),
            destaged: c.destaged,
            destage_pages_per_s: ratio(c.destaged * 1_000_000_000, end_ns),
            evicted: c.evicted,
            fills: c.fills,
            buffer_waits: d.waits,
            buffer_wait_ns_mean: ratio(d.wait_ns, d.waits),
            buffer_wait_ns_max: d.wait_ns_max,
            dirty_at_end,
            dirty_peak: occupancy.dirty_pages.iter().copied().max().unwrap_or(0),
            power_losses: c.power_losses,
            lost_pages: c.lost,
            plp_saved_pages: c.plp_saved,
            plp_budget_pages: d.dur.plp_pages,
            flushes: d.dur.flushes_done,
            flush_wait_ns_mean: ratio(d.dur.flush_wait_ns, d.dur.flushes_done),
            flush_wait_ns_max: d.dur.flush_wait_ns_max,
            fua_pages: d.dur.fua_pages,
            interrupted: d.dur.interrupted,
            lost: d.lost.clone(),
            occupancy_t_ns: occupancy.t_ns.clone(),
            occupancy_dirty_pages: occupancy.dirty_pages.clone(),
        })
    }

    /// Each tenant's use of the stage at the end of the run (`end_ns`), for the tenants'
    /// section, with the configured `cache.sharing` as written; `None` without tenants.
    pub(in crate::sim) fn dram_tenants_report(
        &mut self,
        end_ns: u64,
    ) -> Option<(String, Vec<TenantDramReport>)> {
        let d = self.dram.as_mut()?;
        let counts = d.stage.tenant_counts(end_ns)?;
        let per = counts
            .into_iter()
            .map(|c| TenantDramReport {
                capacity_pages: u64::from(c.capacity),
                read_hits: c.read_hits,
                read_misses: c.read_misses,
                read_hit_ratio: ratio(c.read_hits as f64, (c.read_hits + c.read_misses) as f64),
                writes_absorbed: c.writes_absorbed,
                full: c.full,
                buffer_waits: c.waits,
                buffer_wait_ns_mean: ratio(c.wait_ns as f64, c.waits as f64),
                buffer_wait_ns_max: c.wait_ns_max,
                peak_dirty_pages: c.peak_dirty,
            })
            .collect();
        Some((kebab(&d.cfg.sharing), per))
    }
}

/// A configuration enum's name as it is written in TOML (`"write-buffer"`).
fn kebab<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
