//! The NAND model's measurements: the report's `nand` section (present only when the
//! device has page types or suspends programs and erases; docs/NAND.md).

use crate::latency::{Latency, LatencyAcc};
use serde::{Deserialize, Serialize};

/// Host reads of one page type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageTypeReads {
    /// `slc`, `lsb`, `csb`, `msb` or `tsb`.
    pub page_type: String,
    /// The type's array read time, ns.
    pub t_read_ns: u64,
    /// Host read transactions of this type, from queued to their page delivered.
    pub latency: Latency,
}

/// What program/erase suspension did in a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SuspendReport {
    /// `scheduler.suspend`: which reads may suspend.
    pub policy: String,
    /// Programs suspended (each suspension counted).
    pub program_suspends: u64,
    /// Erases suspended.
    pub erase_suspends: u64,
    /// Time operations spent suspended, from the suspend command to the end of the
    /// resume, summed.
    pub suspended_ns_total: u64,
    /// Its mean per suspension.
    pub suspended_ns_mean: f64,
    /// Times a die programming or erasing, with a read queued for it that the policy
    /// suspends for, was woken and could not suspend (the limit reached, or the
    /// operation too close to its end).
    pub refused: u64,
}

/// What the SLC cache did in a run (docs/NAND.md, *SLC cache*).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlcCacheReport {
    /// `static` or `dynamic`.
    pub mode: String,
    /// The region's blocks per plane (static), or the most a plane may hold (dynamic).
    pub blocks_per_plane: u32,
    /// Pages of an SLC-mode block (one per wordline).
    pub pages_per_block: u32,
    /// What the configured region holds at most over the device, bytes.
    pub size_bytes: u64,
    /// The most SLC-mode blocks held at once over the device, and their bytes.
    pub peak_blocks_held: u64,
    /// Its bytes.
    pub peak_bytes: u64,
    /// SLC-mode read and program times, ns.
    pub t_read_ns: u64,
    /// Program time of an SLC-mode page, ns.
    pub t_prog_ns: u64,
    /// `direct` or `wait`.
    pub when_full: String,
    /// Host pages written in SLC mode.
    pub slc_pages_written: u64,
    /// Host pages written directly in native mode (region full).
    pub direct_pages_written: u64,
    /// Host writes refused while waiting for a fold (each retry counted).
    pub full_waits: u64,
    /// SLC blocks folded, of which started in idle time.
    pub folds: u64,
    /// Folds started in idle time (the host idle for `idle_after_ns`, the chip with
    /// nothing queued).
    pub idle_folds: u64,
    /// Times an idle fold stopped handing out moves because the host had requests
    /// outstanding.
    #[serde(default)]
    pub idle_fold_pauses: u64,
    /// Pages moved by folding.
    pub fold_pages_moved: u64,
    /// Erases of SLC-mode blocks.
    pub slc_erases: u64,
}

/// What ONFI cache read and cache program did in a run (`nand.cache_mode` not
/// `"off"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheReport {
    /// `nand.cache_mode`: `read`, `program` or `both`.
    pub mode: String,
    /// Read transactions whose array read overlapped the transfer of the die's previous
    /// read out of its cache register.
    pub cached_reads: u64,
    /// Program transactions whose data crossed the bus into the cache register while
    /// the die programmed the previous page.
    pub cached_programs: u64,
    /// Read groups that finished their array read while the cache register still held
    /// the previous page, and waited in the data register for it to leave.
    pub read_register_waits: u64,
}

/// The NAND model of a run ([`crate::Report::nand`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NandReport {
    /// `slc`, `mlc`, `tlc` or `qlc`.
    pub cell: String,
    /// `wordline` or `mqsim`.
    pub page_order: String,
    /// `per-page` or `one-shot`.
    pub program: String,
    /// Host reads per page type, in page-type order.
    pub reads_by_page_type: Vec<PageTypeReads>,
    /// One-shot programs: wordlines programmed with pages still missing (padded when
    /// nothing else could run).
    pub padded_wordlines: u64,
    /// Suspension, when `scheduler.suspend` is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<SuspendReport>,
    /// The SLC cache, when on (its host reads are the `slc-mode` entry of
    /// `reads_by_page_type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slc_cache: Option<SlcCacheReport>,
    /// Cache operations, when `nand.cache_mode` is not `"off"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheReport>,
}

impl NandReport {
    pub(crate) fn all_finite(&self) -> bool {
        self.reads_by_page_type
            .iter()
            .all(|r| r.latency.mean_ns.is_finite())
            && self
                .suspend
                .as_ref()
                .is_none_or(|s| s.suspended_ns_mean.is_finite())
    }

    pub(crate) fn table_nand(&self, w: &mut dyn std::fmt::Write) -> std::fmt::Result {
        use crate::table::{fmt_count, fmt_us, kv};
        writeln!(w, "\nNAND")?;
        kv(
            w,
            "cell",
            format!("{}, {} order, {}", self.cell, self.page_order, self.program),
        )?;
        for r in &self.reads_by_page_type {
            kv(
                w,
                &format!("{} reads (µs)", r.page_type),
                format!(
                    "n {}  mean {}  p99 {}  (array {})",
                    fmt_count(r.latency.count),
                    fmt_us(r.latency.mean_ns),
                    fmt_us(r.latency.p99_ns as f64),
                    fmt_us(r.t_read_ns as f64)
                ),
            )?;
        }
        if self.padded_wordlines > 0 {
            kv(w, "padded wordlines", fmt_count(self.padded_wordlines))?;
        }
        if let Some(c) = &self.cache {
            kv(
                w,
                "cache mode",
                format!(
                    "{}: {} reads, {} programs overlapped; {} register waits",
                    c.mode,
                    fmt_count(c.cached_reads),
                    fmt_count(c.cached_programs),
                    fmt_count(c.read_register_waits)
                ),
            )?;
        }
        if let Some(s) = &self.suspend {
            kv(w, "suspend policy", &s.policy)?;
            kv(
                w,
                "suspends",
                format!(
                    "{} programs, {} erases, {} refused",
                    fmt_count(s.program_suspends),
                    fmt_count(s.erase_suspends),
                    fmt_count(s.refused)
                ),
            )?;
            kv(
                w,
                "time suspended (µs)",
                format!(
                    "total {}  mean {}",
                    fmt_us(s.suspended_ns_total as f64),
                    fmt_us(s.suspended_ns_mean)
                ),
            )?;
        }
        if let Some(c) = &self.slc_cache {
            c.table(w)?;
        }
        Ok(())
    }
}

impl SlcCacheReport {
    fn table(&self, w: &mut dyn std::fmt::Write) -> std::fmt::Result {
        use crate::table::{fmt_count, kv};
        let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
        kv(
            w,
            "SLC cache",
            format!(
                "{}, {} blocks/plane of {} pages, {:.2} GiB (peak held {:.2} GiB), when full: {}",
                self.mode,
                self.blocks_per_plane,
                self.pages_per_block,
                gib(self.size_bytes),
                gib(self.peak_bytes),
                self.when_full
            ),
        )?;
        kv(
            w,
            "SLC cache writes",
            format!(
                "{} SLC pages, {} direct, {} refused waiting",
                fmt_count(self.slc_pages_written),
                fmt_count(self.direct_pages_written),
                fmt_count(self.full_waits)
            ),
        )?;
        kv(
            w,
            "folding",
            format!(
                "{} blocks ({} started idle, paused {} times for the host), {} pages moved, {} SLC erases",
                fmt_count(self.folds),
                fmt_count(self.idle_folds),
                fmt_count(self.idle_fold_pauses),
                fmt_count(self.fold_pages_moved),
                fmt_count(self.slc_erases)
            ),
        )
    }
}

/// Accumulates one latency distribution (a histogram), for a layer that reports its
/// own (the NAND section's reads per page type).
#[derive(Clone, Debug)]
pub struct LatencyRecorder(LatencyAcc);

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder(LatencyAcc::new())
    }
}

impl LatencyRecorder {
    /// Adds one value, ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.0.record(ns);
    }

    /// The summary (all zeros when nothing was recorded).
    pub fn summary(&self) -> Latency {
        self.0.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_prints_page_types_and_suspends() {
        let mut lat = LatencyRecorder::default();
        lat.record(50_000);
        lat.record(70_000);
        let r = NandReport {
            cell: "tlc".into(),
            page_order: "wordline".into(),
            program: "per-page".into(),
            reads_by_page_type: vec![PageTypeReads {
                page_type: "lsb".into(),
                t_read_ns: 50_000,
                latency: lat.summary(),
            }],
            padded_wordlines: 0,
            suspend: Some(SuspendReport {
                policy: "reads".into(),
                program_suspends: 3,
                suspended_ns_total: 90_000,
                suspended_ns_mean: 30_000.0,
                ..SuspendReport::default()
            }),
            slc_cache: Some(SlcCacheReport {
                mode: "dynamic".into(),
                folds: 4,
                idle_folds: 1,
                idle_fold_pauses: 7,
                ..SlcCacheReport::default()
            }),
            cache: None,
        };
        assert!(r.all_finite());
        let mut s = String::new();
        r.table_nand(&mut s).unwrap();
        assert!(s.contains("lsb reads (µs)"), "{s}");
        assert!(s.contains("n 2  mean 60.00"), "{s}");
        assert!(s.contains("3 programs"), "{s}");
        assert!(!s.contains("padded"), "{s}");
        assert!(
            s.contains("4 blocks (1 started idle, paused 7 times for the host)"),
            "{s}"
        );
        assert!(!s.contains("cache mode"), "{s}");
        let r = NandReport {
            cache: Some(CacheReport {
                mode: "both".into(),
                cached_reads: 12,
                cached_programs: 5,
                read_register_waits: 2,
            }),
            ..r
        };
        let mut s = String::new();
        r.table_nand(&mut s).unwrap();
        assert!(
            s.contains("both: 12 reads, 5 programs overlapped; 2 register waits"),
            "{s}"
        );
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"cached_reads\":12"), "{json}");
    }
}
