//! Per-tenant results of a run with several tenants (`host.tenant`), and their
//! slowdowns and fairness against runs alone (FLIN, Tavakkol et al., ISCA 2018, §3).

use crate::{Latency, LatencyRecorder};
use serde::{Deserialize, Serialize};
use std::fmt::{self, Write};

/// One tenant's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantReport {
    /// Its name (`host.tenant[i].name`, or `t<i>`).
    pub name: String,
    /// Completed reads.
    pub reads: u64,
    /// Completed writes.
    pub writes: u64,
    /// Completed flushes and trims.
    pub other: u64,
    /// Bytes read and written.
    pub bytes: u64,
    /// Response time (completion − arrival) of its reads and writes.
    pub response: Latency,
    /// Of its reads.
    pub read_response: Latency,
    /// Of its writes.
    pub write_response: Latency,
    /// Completed requests per simulated second, from its first arrival to its last
    /// completion.
    pub iops: f64,
    /// Its bytes per simulated second over the same span, MiB/s.
    pub bandwidth_mib_s: f64,
    /// Mean response time of the same tenant run alone on the same device and set-up
    /// (`--alone`), ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alone_response_ns_mean: Option<f64>,
    /// Mean response time shared / alone (FLIN's slowdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// Its use of the cached mapping table (`ftl.mapping = "cached"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmt: Option<TenantCmtReport>,
    /// Its use of the DRAM stage (`cache.mode` on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram: Option<TenantDramReport>,
}

/// One tenant's use of the DRAM stage (`cache.sharing`, docs/DRAM.md, "Tenants").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantDramReport {
    /// Pages it may hold: its partition (`"equal"`) or the whole stage (`"shared"`).
    pub capacity_pages: u64,
    /// Its host read pages found in DRAM.
    pub read_hits: u64,
    /// Its host read pages not in DRAM.
    pub read_misses: u64,
    /// read_hits / (read_hits + read_misses) (0 without reads).
    pub read_hit_ratio: f64,
    /// Its host write pages taken into DRAM.
    pub writes_absorbed: u64,
    /// Times one of its write pages found DRAM (its partition) full, on arrival or
    /// behind a waiting one; a waiting page counts again each time it tries for room
    /// and finds none.
    pub full: u64,
    /// Its write pages that waited for room and were taken.
    pub buffer_waits: u64,
    /// Their mean wait, ns.
    pub buffer_wait_ns_mean: f64,
    /// Their longest wait, ns.
    pub buffer_wait_ns_max: u64,
    /// The most dirty pages its partition held at once (`"equal"` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_dirty_pages: Option<u64>,
}

/// One tenant's use of the cached mapping table (`ftl.cmt.sharing`, docs/FTL.md §12).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantCmtReport {
    /// Entries it may hold: its partition (`"equal"`) or the whole table (`"shared"`).
    pub entries: u64,
    /// Lookups of its pages (host reads and writes, one per page).
    pub lookups: u64,
    /// Those that found the entry cached.
    pub hits: u64,
    /// hits / lookups (0 without lookups).
    pub hit_ratio: f64,
    /// The most entries its partition held at once (`"equal"` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_entries: Option<u64>,
}

/// The tenants' results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantsReport {
    /// The submission-queue arbitration of the run.
    pub arbitration: String,
    /// One per tenant, in configuration order.
    pub tenants: Vec<TenantReport>,
    /// Smallest slowdown / largest slowdown (FLIN's fairness; 1 = every tenant slowed
    /// down alike), with `--alone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<f64>,
    /// `ftl.cmt.sharing` of a run with the cached map (each tenant's `cmt` then set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmt_sharing: Option<String>,
    /// `cache.sharing` of a run with a DRAM stage (each tenant's `dram` then set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_sharing: Option<String>,
}

impl TenantsReport {
    /// Adds each tenant's mean response time alone, its slowdown and the fairness index.
    pub fn set_alone(&mut self, alone_ns_mean: &[f64]) {
        for (t, &a) in self.tenants.iter_mut().zip(alone_ns_mean) {
            t.alone_response_ns_mean = Some(a);
            t.slowdown = (a > 0.0).then(|| t.response.mean_ns / a);
        }
        let s: Vec<f64> = self.tenants.iter().filter_map(|t| t.slowdown).collect();
        if s.len() == self.tenants.len() && !s.is_empty() {
            let min = s.iter().copied().fold(f64::INFINITY, f64::min);
            let max = s.iter().copied().fold(0.0, f64::max);
            self.fairness = (max > 0.0).then(|| min / max);
        }
    }

    /// The per-tenant section of the text report.
    pub fn write_table(&self, w: &mut dyn Write) -> fmt::Result {
        writeln!(w, "\nTenants ({})", self.arbitration)?;
        writeln!(
            w,
            "  {:<12} {:>8} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}",
            "tenant",
            "reads",
            "writes",
            "mean µs",
            "rd p99 µs",
            "wr p99 µs",
            "MiB/s",
            "IOPS",
            "alone µs",
            "slowdown"
        )?;
        for t in &self.tenants {
            let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".into(), f);
            writeln!(
                w,
                "  {:<12} {:>8} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>10.2} {:>9.0} {:>9} {:>9}",
                t.name,
                t.reads,
                t.writes,
                t.response.mean_ns / 1e3,
                t.read_response.p99_ns as f64 / 1e3,
                t.write_response.p99_ns as f64 / 1e3,
                t.bandwidth_mib_s,
                t.iops,
                opt(t.alone_response_ns_mean, &|a| format!("{:.1}", a / 1e3)),
                opt(t.slowdown, &|s| format!("{s:.3}")),
            )?;
        }
        if let Some(f) = self.fairness {
            writeln!(w, "  fairness (min slowdown / max slowdown): {f:.3}")?;
        }
        if let Some(sharing) = &self.cmt_sharing {
            writeln!(
                w,
                "  cached map per tenant (ftl.cmt.sharing = \"{sharing}\")"
            )?;
            writeln!(
                w,
                "  {:<12} {:>10} {:>12} {:>12} {:>9} {:>10}",
                "tenant", "entries", "lookups", "hits", "hit %", "peak"
            )?;
            for t in &self.tenants {
                let Some(c) = &t.cmt else { continue };
                writeln!(
                    w,
                    "  {:<12} {:>10} {:>12} {:>12} {:>9.2} {:>10}",
                    t.name,
                    c.entries,
                    c.lookups,
                    c.hits,
                    100.0 * c.hit_ratio,
                    c.peak_entries.map_or("-".into(), |p| p.to_string()),
                )?;
            }
        }
        if let Some(sharing) = &self.dram_sharing {
            self.write_dram(w, sharing)?;
        }
        Ok(())
    }

    /// Each tenant's use of the DRAM stage, under the tenants table.
    fn write_dram(&self, w: &mut dyn Write, sharing: &str) -> fmt::Result {
        writeln!(w, "  DRAM per tenant (cache.sharing = \"{sharing}\")")?;
        writeln!(
            w,
            "  {:<12} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10} {:>12} {:>12} {:>10}",
            "tenant",
            "pages",
            "rd hits",
            "hit %",
            "wr pages",
            "found full",
            "waits",
            "wait mean µs",
            "wait max µs",
            "peak dirty"
        )?;
        for t in &self.tenants {
            let Some(d) = &t.dram else { continue };
            writeln!(
                w,
                "  {:<12} {:>10} {:>10} {:>7.2} {:>10} {:>10} {:>10} {:>12.1} {:>12.1} {:>10}",
                t.name,
                d.capacity_pages,
                d.read_hits,
                100.0 * d.read_hit_ratio,
                d.writes_absorbed,
                d.full,
                d.buffer_waits,
                d.buffer_wait_ns_mean / 1e3,
                d.buffer_wait_ns_max as f64 / 1e3,
                d.peak_dirty_pages.map_or("-".into(), |p| p.to_string()),
            )?;
        }
        Ok(())
    }
}

/// Accumulates one tenant's results.
#[derive(Default)]
pub struct TenantAcc {
    reads: u64,
    writes: u64,
    other: u64,
    bytes: u64,
    all: LatencyRecorder,
    read: LatencyRecorder,
    write: LatencyRecorder,
    first_arrival_ns: Option<u64>,
    last_completion_ns: u64,
}

impl TenantAcc {
    /// A request of the tenant arrived at `now`.
    pub fn arrived(&mut self, now: u64) {
        self.first_arrival_ns.get_or_insert(now);
    }

    /// A request completed: `read`/`write` (`None` for a flush or a trim), `bytes`, its
    /// response time and its completion.
    pub fn done(&mut self, read: Option<bool>, bytes: u64, response_ns: u64, now: u64) {
        self.last_completion_ns = self.last_completion_ns.max(now);
        match read {
            None => self.other += 1,
            Some(r) => {
                self.bytes += bytes;
                self.all.record(response_ns);
                if r {
                    self.reads += 1;
                    self.read.record(response_ns);
                } else {
                    self.writes += 1;
                    self.write.record(response_ns);
                }
            }
        }
    }

    /// The tenant's report under `name`.
    pub fn report(&self, name: &str) -> TenantReport {
        let span = self
            .last_completion_ns
            .saturating_sub(self.first_arrival_ns.unwrap_or(0)) as f64
            / 1e9;
        let per_s = |x: f64| if span > 0.0 { x / span } else { 0.0 };
        TenantReport {
            name: name.to_string(),
            reads: self.reads,
            writes: self.writes,
            other: self.other,
            bytes: self.bytes,
            response: self.all.summary(),
            read_response: self.read.summary(),
            write_response: self.write.summary(),
            iops: per_s((self.reads + self.writes + self.other) as f64),
            bandwidth_mib_s: per_s(self.bytes as f64 / (1024.0 * 1024.0)),
            alone_response_ns_mean: None,
            slowdown: None,
            cmt: None,
            dram: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round robin over tenants `a` (mean 300 ns) and `b` (200 ns), nothing else set.
    fn two_tenants() -> TenantsReport {
        TenantsReport {
            arbitration: "round-robin".into(),
            tenants: vec![tenant("a", 300), tenant("b", 200)],
            fairness: None,
            cmt_sharing: None,
            dram_sharing: None,
        }
    }

    fn tenant(name: &str, mean_ns: u64) -> TenantReport {
        let mut a = TenantAcc::default();
        a.arrived(0);
        a.done(Some(true), 4096, mean_ns, mean_ns);
        a.report(name)
    }

    #[test]
    fn slowdown_and_fairness_as_flin_defines_them() {
        let mut r = two_tenants();
        r.set_alone(&[100.0, 100.0]);
        assert_eq!(r.tenants[0].slowdown, Some(3.0));
        assert_eq!(r.tenants[1].slowdown, Some(2.0));
        assert_eq!(r.fairness, Some(2.0 / 3.0));
        let mut s = String::new();
        r.write_table(&mut s).unwrap();
        assert!(
            s.contains("fairness (min slowdown / max slowdown): 0.667"),
            "{s}"
        );
    }

    #[test]
    fn counts_split_by_class() {
        let mut a = TenantAcc::default();
        a.arrived(0);
        a.done(Some(true), 4096, 10, 1_000_000_000);
        a.done(Some(false), 8192, 30, 1_000_000_000);
        a.done(None, 0, 5, 1_000_000_000);
        let r = a.report("x");
        assert_eq!((r.reads, r.writes, r.other, r.bytes), (1, 1, 1, 12288));
        assert_eq!(r.response.count, 2);
        assert_eq!(r.iops, 3.0);
    }

    #[test]
    fn the_table_lists_each_tenants_share_of_the_cached_map_when_there_is_one() {
        let mut r = two_tenants();
        let mut plain = String::new();
        r.write_table(&mut plain).unwrap();
        assert!(!plain.contains("cached map"), "{plain}");
        r.cmt_sharing = Some("equal".into());
        for (t, hits) in r.tenants.iter_mut().zip([25, 50]) {
            t.cmt = Some(TenantCmtReport {
                entries: 256,
                lookups: 100,
                hits,
                hit_ratio: hits as f64 / 100.0,
                peak_entries: Some(256),
            });
        }
        let mut s = String::new();
        r.write_table(&mut s).unwrap();
        assert!(
            s.contains("cached map per tenant (ftl.cmt.sharing = \"equal\")"),
            "{s}"
        );
        assert!(s.contains("25.00") && s.contains("50.00"), "{s}");
    }

    #[test]
    fn the_table_lists_each_tenants_use_of_the_dram_stage_when_there_is_one() {
        let mut r = two_tenants();
        let mut plain = String::new();
        r.write_table(&mut plain).unwrap();
        assert!(!plain.contains("DRAM per tenant"), "{plain}");
        r.dram_sharing = Some("equal".into());
        for (t, waits) in r.tenants.iter_mut().zip([7, 0]) {
            t.dram = Some(TenantDramReport {
                capacity_pages: 128,
                read_hits: 1,
                read_misses: 3,
                read_hit_ratio: 0.25,
                writes_absorbed: 40,
                full: waits,
                buffer_waits: waits,
                buffer_wait_ns_mean: 1500.0,
                buffer_wait_ns_max: 2500,
                peak_dirty_pages: Some(100),
            });
        }
        let mut s = String::new();
        r.write_table(&mut s).unwrap();
        assert!(
            s.contains("DRAM per tenant (cache.sharing = \"equal\")"),
            "{s}"
        );
        assert!(
            s.contains("25.00") && s.contains("1.5") && s.contains("2.5"),
            "{s}"
        );
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"dram_sharing\":\"equal\""), "{json}");
        assert!(json.contains("\"peak_dirty_pages\":100"), "{json}");
    }
}
