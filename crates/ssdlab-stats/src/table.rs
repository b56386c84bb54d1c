//! The human-readable report: one section per concern, latencies in µs.

use std::fmt::{self, Write};

use crate::latency::{ClassStats, Latency};
use crate::report::{CountSpread, Report, Spread};

/// Section headings, in printing order.
pub(crate) const SECTIONS: [&str; 12] = [
    "Run",
    "Requests",
    "Response time (µs)",
    "Waiting time (µs)",
    "Host-queue wait (µs)",
    "Response-time breakdown (µs, mean per request)",
    "Throughput",
    "Utilization (%)",
    "Back end",
    "Transactions by reason",
    "FTL and RAID",
    "Counters",
];

/// `1234567` → `"1,234,567"`.
pub fn fmt_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A non-negative float with `decimals` decimals and a grouped integer part:
/// `1234.5` with 2 → `"1,234.50"`.
pub(crate) fn fmt_grouped(v: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, v.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let sign = if v < 0.0 && s.bytes().any(|b| matches!(b, b'1'..=b'9')) {
        "-"
    } else {
        ""
    };
    let int = int
        .parse::<u64>()
        .map(fmt_count)
        .unwrap_or_else(|_| int.to_owned());
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Nanoseconds as microseconds with 2 decimals, grouped.
pub(crate) fn fmt_us(ns: f64) -> String {
    fmt_grouped(ns / 1_000.0, 2)
}

fn heading(w: &mut dyn Write, i: usize) -> fmt::Result {
    if i > 0 {
        writeln!(w)?;
    }
    writeln!(w, "{}", SECTIONS[i])
}

pub(crate) fn kv(w: &mut dyn Write, label: &str, value: impl fmt::Display) -> fmt::Result {
    writeln!(w, "  {label:<28} {value}")
}

pub(crate) fn fmt_pct(v: f64) -> String {
    format!("{:.2}", v * 100.0)
}

fn fmt_count_spread(c: &CountSpread) -> String {
    format!(
        "min {}  mean {}  max {}",
        fmt_count(c.min),
        fmt_grouped(c.mean, 2),
        fmt_count(c.max)
    )
}

impl Report {
    /// Writes the report as a multi-section table for a terminal: latencies in µs with
    /// 2 decimals, counts with thousands separators, utilization in percent.
    pub fn write_table(&self, w: &mut dyn Write) -> fmt::Result {
        self.table_run(w)?;
        self.table_requests(w)?;
        latency_section(w, 2, &self.response)?;
        latency_section(w, 3, &self.waiting)?;
        latency_section(w, 4, &self.host_queue_wait)?;
        let awt = &self.host_queue_wait_queued_ns_mean;
        writeln!(
            w,
            "  mean of the requests that waited (µs): all {}, read {}, write {}",
            fmt_us(awt.all),
            fmt_us(awt.read),
            fmt_us(awt.write)
        )?;
        self.table_breakdown(w)?;
        self.table_throughput(w)?;
        self.table_utilization(w)?;
        self.table_back_end(w)?;
        self.table_transactions(w)?;
        self.table_ftl(w)?;
        self.table_dram(w)?;
        self.table_errors(w)?;
        if let Some(n) = &self.nand {
            n.table_nand(w)?;
        }
        self.table_dsftl(w)?;
        if let Some(t) = &self.tenants {
            t.write_table(w)?;
        }
        if let Some(p) = &self.placement {
            p.write_table(w)?;
        }
        self.table_counters(w)
    }

    /// [`Report::write_table`] into a new string.
    pub fn table(&self) -> String {
        let mut s = String::new();
        self.write_table(&mut s)
            .expect("writing to a String cannot fail");
        s
    }

    fn table_run(&self, w: &mut dyn Write) -> fmt::Result {
        let m = &self.meta;
        let s = &self.shape;
        heading(w, 0)?;
        kv(w, "trace", &m.trace)?;
        kv(w, "scheduler", &m.scheduler)?;
        kv(w, "preset", m.preset.as_deref().unwrap_or("-"))?;
        kv(w, "seed", m.seed)?;
        kv(w, "config hash", &m.config_hash)?;
        kv(w, "git revision", &m.git_rev)?;
        kv(w, "ssdlab version", &m.version)?;
        let device = format!(
            "{} channels, {} chips, {} dies, {}-byte pages",
            s.channels, s.chips, s.dies, s.page_size_bytes
        );
        kv(w, "device", device)?;
        kv(
            w,
            "simulated time (s)",
            format!("{:.6}", self.sim_time_ns as f64 / 1e9),
        )?;
        kv(w, "events", fmt_count(self.events))?;
        if let Some(wall_ns) = self.wall_time_ns {
            let secs = wall_ns as f64 / 1e9;
            kv(w, "wall time (s)", format!("{secs:.3}"))?;
            let rate = if secs > 0.0 {
                self.events as f64 / secs
            } else {
                0.0
            };
            kv(w, "events per wall second", fmt_grouped(rate, 0))?;
        }
        Ok(())
    }

    fn table_requests(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 1)?;
        writeln!(
            w,
            "  {:<6} {:>14} {:>14} {:>16} {:>14} {:>14} {:>14}",
            "class", "count", "pages", "bytes", "flash ops", "buffer hits", "host-queued"
        )?;
        for ((name, count), (_, wk)) in self.requests.named().into_iter().zip(self.work.named()) {
            writeln!(
                w,
                "  {:<6} {:>14} {:>14} {:>16} {:>14} {:>14} {:>14}",
                name,
                fmt_count(*count),
                fmt_count(wk.pages),
                fmt_count(wk.bytes),
                fmt_count(wk.flash_ops),
                fmt_count(wk.buffer_hits),
                fmt_count(wk.host_queued),
            )?;
        }
        Ok(())
    }

    fn table_breakdown(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 5)?;
        // With a DRAM stage, the wait for room in it (T_buffer_wait) is a column too,
        // with a PCIe link the time on it (T_pcie), and with the error model the
        // read-retry part of service (T_retry).
        let buffer = self.breakdown.all.buffer_wait_ns_mean.is_some();
        let pcie = self.breakdown.all.pcie_ns_mean.is_some();
        let retry = self.breakdown.all.retry_ns_mean.is_some();
        let mut extra = String::new();
        if buffer {
            extra.push_str("    buffer wait");
        }
        if pcie {
            extra.push_str("           PCIe");
        }
        if retry {
            extra.push_str("  retry (of svc)");
        }
        writeln!(
            w,
            "  {:<6} {:>14} {:>14} {:>14}{extra}",
            "class", "service", "GC wait", "other wait"
        )?;
        for (name, b) in self.breakdown.named() {
            let mut extra = String::new();
            for ns in [b.buffer_wait_ns_mean, b.pcie_ns_mean, b.retry_ns_mean]
                .into_iter()
                .flatten()
            {
                extra.push_str(&format!(" {:>14}", fmt_us(ns)));
            }
            writeln!(
                w,
                "  {:<6} {:>14} {:>14} {:>14}{extra}",
                name,
                fmt_us(b.service_ns_mean),
                fmt_us(b.gc_wait_ns_mean),
                fmt_us(b.other_wait_ns_mean)
            )?;
        }
        Ok(())
    }

    fn table_throughput(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 6)?;
        kv(w, "IOPS", fmt_grouped(self.iops, 2))?;
        kv(w, "bandwidth (MiB/s)", fmt_grouped(self.bandwidth_mib_s, 2))?;
        kv(
            w,
            "read bandwidth (MiB/s)",
            fmt_grouped(self.read_bandwidth_mib_s, 2),
        )?;
        kv(
            w,
            "write bandwidth (MiB/s)",
            fmt_grouped(self.write_bandwidth_mib_s, 2),
        )
    }

    fn table_utilization(&self, w: &mut dyn Write) -> fmt::Result {
        let u = &self.utilization;
        heading(w, 7)?;
        let sampled = format!(
            "{}  ({} samples)",
            fmt_pct(u.sampled_chip),
            fmt_count(u.samples)
        );
        kv(w, "chip, sampled at arrivals", sampled)?;
        writeln!(
            w,
            "  {:<10} {:>10} {:>10} {:>10} {:>10}",
            "busy", "mean", "std", "min", "max"
        )?;
        let row = |w: &mut dyn Write, name: &str, s: &Spread| {
            writeln!(
                w,
                "  {:<10} {:>10} {:>10} {:>10} {:>10}",
                name,
                fmt_pct(s.mean),
                fmt_pct(s.std),
                fmt_pct(s.min),
                fmt_pct(s.max)
            )
        };
        row(w, "chip", &u.chip)?;
        row(w, "channel", &u.channel)?;
        row(w, "die", &u.die)
    }

    fn table_back_end(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 8)?;
        kv(w, "die idle, mean (µs)", fmt_us(self.die_idle_ns_mean))?;
        kv(
            w,
            "die idle, total (µs)",
            fmt_us(self.die_idle_ns_total as f64),
        )?;
        kv(
            w,
            "bus contention/txn (µs)",
            fmt_us(self.bus_contention_ns_mean),
        )?;
        kv(
            w,
            "bus contention, total (µs)",
            fmt_us(self.bus_contention_ns_total as f64),
        )?;
        kv(
            w,
            "pkg contention/txn (µs)",
            fmt_us(self.package_contention_ns_mean),
        )?;
        kv(
            w,
            "pkg contention, total (µs)",
            fmt_us(self.package_contention_ns_total as f64),
        )
    }

    fn table_transactions(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 9)?;
        if self.transactions.is_empty() {
            return writeln!(w, "  (none)");
        }
        writeln!(
            w,
            "  {:<18} {:>14} {:>14} {:>12} {:>12} {:>12} {:>12}",
            "reason", "count", "pages", "queue µs", "bus-wait µs", "bus µs", "array µs"
        )?;
        for r in &self.transactions {
            writeln!(
                w,
                "  {:<18} {:>14} {:>14} {:>12} {:>12} {:>12} {:>12}",
                r.reason.name(),
                fmt_count(r.count),
                fmt_count(r.pages),
                fmt_us(r.queue_ns_mean),
                fmt_us(r.bus_wait_ns_mean),
                fmt_us(r.bus_ns_mean),
                fmt_us(r.array_ns_mean)
            )?;
        }
        Ok(())
    }

    fn table_ftl(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 10)?;
        kv(
            w,
            "write amplification",
            format!("{:.3}", self.write_amplification),
        )?;
        kv(w, "programmed pages", fmt_count(self.programmed_pages))?;
        kv(w, "host pages written", fmt_count(self.host_pages_written))?;
        kv(w, "erases", fmt_count(self.erases))?;
        kv(w, "GC runs", fmt_count(self.gc_runs))?;
        kv(w, "GC pages moved", fmt_count(self.gc_pages_moved))?;
        kv(w, "erases per block", fmt_count_spread(&self.wear))?;
        kv(
            w,
            "pre-reads per write",
            format!("{:.3}", self.pre_reads_per_write),
        )?;
        kv(
            w,
            "redirected reads (%)",
            fmt_pct(self.redirected_read_ratio),
        )?;
        kv(
            w,
            "redirected writes (%)",
            fmt_pct(self.redirected_write_ratio),
        )?;
        if let Some(c) = &self.writes_per_channel {
            kv(w, "pages written per channel", fmt_count_spread(c))?;
        }
        if let Some(c) = &self.writes_per_chip {
            kv(w, "pages written per chip", fmt_count_spread(c))?;
        }
        if let Some(m) = &self.mirror {
            kv(
                w,
                "per channel, data chips",
                fmt_count_spread(&m.data_writes_per_channel),
            )?;
            kv(
                w,
                "per mirror chip",
                fmt_count_spread(&m.mirror_chip_writes),
            )?;
            kv(
                w,
                "mirror erases per block",
                fmt_count_spread(&m.mirror_chip_wear),
            )?;
            kv(
                w,
                "mirror writes (% partial)",
                fmt_pct(m.mirror_write_share),
            )?;
            kv(w, "mirror reads (%)", fmt_pct(m.mirror_read_share))?;
            kv(w, "mirror avail min (%)", fmt_pct(m.mirror_avail_ratio_min))?;
            kv(
                w,
                "mirror free at end (%)",
                fmt_pct(m.mirror_free_ratio_end),
            )?;
            kv(
                w,
                "pre-reads+reclaim/write",
                format!("{:.3}", m.pre_reads_per_write_with_reclaim),
            )?;
        }
        if let Some(m) = &self.mapping {
            kv(
                w,
                "CMT entries, per tpage",
                format!(
                    "{} / {}",
                    fmt_count(m.cmt_entries),
                    fmt_count(m.entries_per_tpage)
                ),
            )?;
            kv(
                w,
                "CMT hits / lookups",
                format!("{} / {}", fmt_count(m.hits), fmt_count(m.lookups)),
            )?;
            kv(w, "CMT hit ratio (%)", fmt_pct(m.hit_ratio))?;
            kv(w, "translation reads (miss)", fmt_count(m.miss_reads))?;
            for (label, value) in m.groups.iter().flat_map(crate::GroupMapping::lines) {
                kv(w, label, value)?;
            }
            kv(w, "translation reads (RMW)", fmt_count(m.writeback_reads))?;
            kv(w, "translation writes", fmt_count(m.translation_writes))?;
            kv(
                w,
                "translation pages moved",
                fmt_count(m.translation_pages_moved),
            )?;
            kv(
                w,
                "mapping write amp.",
                format!("{:.3}", m.mapping_write_amplification),
            )?;
            for (name, l) in [("read hit", &m.read_hit), ("read miss", &m.read_miss)] {
                kv(
                    w,
                    &format!("{name} mean/p99 (us)"),
                    format!(
                        "{} / {} ({} reads)",
                        fmt_us(l.mean_ns),
                        fmt_us(l.p99_ns as f64),
                        fmt_count(l.count)
                    ),
                )?;
            }
        }
        Ok(())
    }

    fn table_counters(&self, w: &mut dyn Write) -> fmt::Result {
        heading(w, 11)?;
        if self.counters.is_empty() {
            return writeln!(w, "  (none)");
        }
        for (counter, v) in &self.counters {
            kv(w, counter.name(), fmt_count(*v))?;
        }
        Ok(())
    }
}

fn latency_section(w: &mut dyn Write, i: usize, c: &ClassStats<Latency>) -> fmt::Result {
    heading(w, i)?;
    writeln!(
        w,
        "  {:<6} {:>14} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "class", "count", "mean", "p50", "p90", "p99", "p99.9", "max"
    )?;
    for (name, l) in c.named() {
        writeln!(
            w,
            "  {:<6} {:>14} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}",
            name,
            fmt_count(l.count),
            fmt_us(l.mean_ns),
            fmt_us(l.p50_ns as f64),
            fmt_us(l.p90_ns as f64),
            fmt_us(l.p99_ns as f64),
            fmt_us(l.p999_ns as f64),
            fmt_us(l.max_ns as f64)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped() {
        assert_eq!(fmt_count(0), "0");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(1_000), "1,000");
        assert_eq!(fmt_count(1_234_567), "1,234,567");
        assert_eq!(fmt_count(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn floats_are_grouped_and_rounded() {
        assert_eq!(fmt_grouped(1234.5, 2), "1,234.50");
        assert_eq!(fmt_grouped(999.999, 2), "1,000.00");
        assert_eq!(fmt_grouped(0.0, 2), "0.00");
        assert_eq!(fmt_grouped(-1234.0, 1), "-1,234.0");
        assert_eq!(fmt_grouped(-0.001, 2), "0.00");
        assert_eq!(fmt_grouped(12345.6, 0), "12,346");
        assert_eq!(fmt_us(123_456.0), "123.46");
    }

    #[test]
    fn empty_report_prints_every_section() {
        let t = Report::default().table();
        for h in SECTIONS {
            assert!(t.lines().any(|l| l == h), "missing heading {h:?} in\n{t}");
        }
        assert!(!t.contains("NaN"));
    }
}
