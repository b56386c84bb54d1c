//! The DRAM stage's measurements: the report's `dram` section (present only when the
//! device has a DRAM stage, `cache.mode` other than `"off"`).

use serde::{Deserialize, Serialize};

/// What the DRAM stage did in a run ([`crate::Recorder::set_dram`]). Pages unless said
/// otherwise. See `docs/METRICS.md`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DramReport {
    /// `write-buffer` or `read-write`.
    pub mode: String,
    /// `write-back` or `write-through`.
    pub write_policy: String,
    /// `lru`, `fifo` or `clean-first-lru`.
    pub replacement: String,
    /// `watermark` or `on-demand`.
    pub destage: String,
    /// Capacity in pages.
    pub capacity_pages: u64,
    /// Host read pages found in DRAM.
    pub read_hits: u64,
    /// Host read pages not in DRAM.
    pub read_misses: u64,
    /// `read_hits / (read_hits + read_misses)`.
    pub read_hit_ratio: f64,
    /// Host write pages taken into DRAM.
    pub writes_absorbed: u64,
    /// Host write pages that found their page in DRAM.
    pub write_hits: u64,
    /// `write_hits / writes_absorbed`.
    pub write_hit_ratio: f64,
    /// Dirty versions replaced in DRAM before they were programmed.
    pub superseded: u64,
    /// `superseded / writes_absorbed`: the share of host writes that never reached flash.
    pub never_reached_flash: f64,
    /// Pages programmed from DRAM (destaged).
    pub destaged: u64,
    /// Destaged pages per second of simulated time.
    pub destage_pages_per_s: f64,
    /// Clean pages dropped for room.
    pub evicted: u64,
    /// Pages read from flash and kept (`read-write`).
    pub fills: u64,
    /// Write pages that found DRAM full and waited for room.
    pub buffer_waits: u64,
    /// Their mean wait, ns.
    pub buffer_wait_ns_mean: f64,
    /// The longest wait, ns.
    pub buffer_wait_ns_max: u64,
    /// Dirty pages at the end of the run (acknowledged, not yet programmed).
    pub dirty_at_end: u64,
    /// The most dirty pages at once (the highest point of the series).
    pub dirty_peak: u64,
    /// Power losses.
    pub power_losses: u64,
    /// Dirty pages lost to them.
    pub lost_pages: u64,
    /// Dirty pages the PLP budget programmed after them.
    pub plp_saved_pages: u64,
    /// The PLP budget: dirty pages a power loss still programs (`cache.plp_pages`, or
    /// what `cache.plp_hold_up_us` allows).
    #[serde(default)]
    pub plp_budget_pages: u64,
    /// Flush commands completed (not counting those a power loss interrupted).
    #[serde(default)]
    pub flushes: u64,
    /// Their mean wait for the writes acknowledged before them to reach flash, ns.
    #[serde(default)]
    pub flush_wait_ns_mean: f64,
    /// The longest such wait, ns.
    #[serde(default)]
    pub flush_wait_ns_max: u64,
    /// FUA write pages DRAM took (each done only once programmed).
    #[serde(default)]
    pub fua_pages: u64,
    /// Flushes and FUA write pages a power loss completed before they were durable.
    #[serde(default)]
    pub interrupted: u64,
    /// Every lost page as `[lpn, token]`: acknowledged content that never reached
    /// flash (verify mode checks that reads see the page's previous content).
    pub lost: Vec<(u32, u64)>,
    /// Dirty pages over simulated time: the times, ns.
    pub occupancy_t_ns: Vec<u64>,
    /// Dirty pages at those times (the most since the previous point).
    pub occupancy_dirty_pages: Vec<u64>,
}

impl DramReport {
    /// True when every float of the section is finite.
    pub(crate) fn all_finite(&self) -> bool {
        [
            self.read_hit_ratio,
            self.write_hit_ratio,
            self.never_reached_flash,
            self.destage_pages_per_s,
            self.buffer_wait_ns_mean,
            self.flush_wait_ns_mean,
        ]
        .iter()
        .all(|x| x.is_finite())
    }
}

impl crate::Report {
    /// The DRAM stage's section of the table, when there is one.
    pub(crate) fn table_dram(&self, w: &mut dyn std::fmt::Write) -> std::fmt::Result {
        use crate::table::{fmt_count, fmt_grouped, fmt_pct, fmt_us, kv};
        let Some(d) = &self.dram else {
            return Ok(());
        };
        writeln!(w, "\nDRAM stage")?;
        kv(
            w,
            "mode",
            format!(
                "{}, {}, {}, {} destage, {} pages",
                d.mode,
                d.write_policy,
                d.replacement,
                d.destage,
                fmt_count(d.capacity_pages)
            ),
        )?;
        kv(w, "read hits (%)", fmt_pct(d.read_hit_ratio))?;
        kv(w, "write hits (%)", fmt_pct(d.write_hit_ratio))?;
        kv(w, "writes absorbed", fmt_count(d.writes_absorbed))?;
        kv(w, "never reached flash (%)", fmt_pct(d.never_reached_flash))?;
        kv(w, "destaged pages", fmt_count(d.destaged))?;
        kv(w, "destaged pages/s", fmt_grouped(d.destage_pages_per_s, 1))?;
        kv(w, "writes that waited", fmt_count(d.buffer_waits))?;
        kv(w, "their mean wait (µs)", fmt_us(d.buffer_wait_ns_mean))?;
        kv(w, "longest wait (µs)", fmt_us(d.buffer_wait_ns_max as f64))?;
        kv(
            w,
            "dirty peak / at end",
            format!(
                "{} / {}",
                fmt_count(d.dirty_peak),
                fmt_count(d.dirty_at_end)
            ),
        )?;
        if d.flushes > 0 {
            kv(w, "flushes", fmt_count(d.flushes))?;
            kv(w, "their mean wait (µs)", fmt_us(d.flush_wait_ns_mean))?;
            kv(
                w,
                "longest flush wait (µs)",
                fmt_us(d.flush_wait_ns_max as f64),
            )?;
        }
        if d.fua_pages > 0 {
            kv(w, "FUA write pages", fmt_count(d.fua_pages))?;
        }
        if d.power_losses > 0 {
            kv(w, "power losses", fmt_count(d.power_losses))?;
            kv(w, "pages lost", fmt_count(d.lost_pages))?;
            kv(
                w,
                "pages saved by PLP",
                format!(
                    "{} (budget {})",
                    fmt_count(d.plp_saved_pages),
                    fmt_count(d.plp_budget_pages)
                ),
            )?;
            kv(w, "flushes/FUA interrupted", fmt_count(d.interrupted))?;
        }
        Ok(())
    }
}
