//! The error model's measurements: the report's `errors` section, present only with
//! `errors.mode = "on"` (docs/ERRORS.md, docs/METRICS.md).

use serde::{Deserialize, Serialize};

use crate::report::CountSpread;

/// What bit errors, ECC and read retry did over a run. Page reads unless said otherwise.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorsReport {
    /// `errors.initial_pe`: P/E cycles every block had before the run.
    pub initial_pe: u32,
    /// P/E cycles per block at the end (the initial ones and the run's erases).
    pub pe_cycles: CountSpread,
    /// Page reads decoded through the model (copyback moves never leave the chip and
    /// are not decoded).
    pub reads_decoded: u64,
    /// Mean raw bit error rate of those reads.
    pub rber_mean: f64,
    /// Reads that needed at least one read-retry step.
    pub reads_retried: u64,
    /// Read-retry steps taken, all reads.
    pub retry_steps: u64,
    /// Soft-decode tiers taken, all reads.
    pub soft_decodes: u64,
    /// `(retry_steps + soft_decodes) / reads_decoded`.
    pub steps_per_read: f64,
    /// Reads by steps taken: entry `i` counts reads decoded after `i` retry steps and
    /// soft tiers; the last entry counts the uncorrectable ones.
    pub steps_histogram: Vec<u64>,
    /// Reads that no step corrected, all reasons.
    pub uncorrectable_reads: u64,
    /// Host page reads among them, with the pages whose data a background read had
    /// already lost.
    pub host_uncorrectable: u64,
    /// Host page reads rebuilt from their RAID stripe (or read again from a duplicate of
    /// their content) instead.
    pub rebuilt_reads: u64,
    /// Among them, those read again from a DS-FTL duplicate of their content (a copy on
    /// another chip the content index knows of).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rebuilt_from_duplicates: u64,
    /// Rebuilt reads whose content verify mode checked (0 without verify).
    pub rebuilt_verified: u64,
    /// Host page reads answered with a media error (data lost for the host), failed
    /// rebuilds included.
    pub lost_reads: u64,
    /// Host requests completed with a media error status.
    pub media_error_requests: u64,
    /// Stripe pages a rebuild read that were themselves uncorrectable.
    pub double_faults: u64,
    /// Rebuilds that failed because of them (each a lost host page read).
    pub failed_rebuilds: u64,
    /// Uncorrectable reads of GC, folds, parity updates and rebuilds.
    pub background_uncorrectable: u64,
    /// Of those, pages a parity stripe covers (recovered by the controller from the
    /// stripe; the stripe reads of that recovery are not simulated).
    pub background_recovered: u64,
    /// Of those, pages without redundancy whose logical page now holds bad data until
    /// the host writes it again.
    pub background_lost: u64,
    /// Blocks relocated for their reads' bit errors (read reclaim,
    /// `errors.reclaim_steps`); their moves are the `refresh-*` transactions.
    #[serde(default)]
    pub reclaimed_blocks: u64,
    /// Valid pages those relocations moved.
    #[serde(default)]
    pub reclaimed_pages: u64,
    /// Relocations dropped: the block was no longer full (erased meanwhile, or still
    /// open).
    #[serde(default)]
    pub reclaim_skipped: u64,
    /// Grown bad blocks and retention refresh, when either is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub housekeeping: Option<HousekeepingReport>,
}

/// Grown bad blocks (failed programs and erases, retired blocks, the read-only drive)
/// and retention refresh (docs/ERRORS.md §5).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HousekeepingReport {
    /// Block erases that failed.
    pub erase_failures: u64,
    /// Page programs that failed.
    pub program_failures: u64,
    /// Blocks retired, all causes.
    pub retired_blocks: u64,
    /// Of those, after a failed erase.
    pub retired_by_erase: u64,
    /// Of those, after a failed program.
    pub retired_by_program: u64,
    /// Erases of doomed blocks that did not retire them, their plane having no other
    /// free block (the block stays in service, still doomed).
    pub retire_deferred: u64,
    /// Blocks whose valid data a retirement moved out (the `retire-*` transactions).
    pub retire_relocations: u64,
    /// Valid pages those moves took.
    pub retire_pages: u64,
    /// Fewest good (not retired) blocks in a plane at the end.
    pub good_blocks_min: u64,
    /// When the drive turned read-only (a plane's good blocks could no longer hold its
    /// share of the data beside the GC reserve), ns; none if it did not.
    pub read_only_at_ns: Option<u64>,
    /// Blocks retired at that moment.
    pub retired_at_read_only: u64,
    /// Host write requests refused with the `read-only` status.
    pub refused_writes: u64,
    /// Retention-refresh scans run.
    pub refresh_scans: u64,
    /// Blocks relocated for their data's age (the `refresh-*` transactions, with read
    /// reclaim's).
    pub refreshed_blocks: u64,
    /// Valid pages those relocations moved.
    pub refreshed_pages: u64,
}

impl ErrorsReport {
    /// True when no value is NaN or infinite.
    pub fn all_finite(&self) -> bool {
        self.rber_mean.is_finite()
            && self.steps_per_read.is_finite()
            && self.pe_cycles.mean.is_finite()
    }
}

impl crate::Report {
    /// The error model's section of the table, when there is one.
    pub(crate) fn table_errors(&self, w: &mut dyn std::fmt::Write) -> std::fmt::Result {
        use crate::table::{fmt_count, fmt_grouped, kv};
        let Some(e) = &self.errors else {
            return Ok(());
        };
        writeln!(w, "\nBit errors and read retry")?;
        let pe = &e.pe_cycles;
        kv(
            w,
            "P/E cycles min / mean / max",
            format!("{} / {:.0} / {}", pe.min, pe.mean, pe.max),
        )?;
        kv(w, "page reads decoded", fmt_count(e.reads_decoded))?;
        kv(w, "mean raw bit error rate", format!("{:.3e}", e.rber_mean))?;
        kv(w, "reads with retries", fmt_count(e.reads_retried))?;
        kv(
            w,
            "retry steps / soft decodes",
            format!(
                "{} / {}",
                fmt_count(e.retry_steps),
                fmt_count(e.soft_decodes)
            ),
        )?;
        kv(w, "steps per read", fmt_grouped(e.steps_per_read, 4))?;
        kv(w, "uncorrectable reads", fmt_count(e.uncorrectable_reads))?;
        kv(w, "  host reads", fmt_count(e.host_uncorrectable))?;
        kv(w, "  rebuilt from RAID", fmt_count(e.rebuilt_reads))?;
        if e.rebuilt_from_duplicates > 0 {
            kv(
                w,
                "    of which read from a duplicate",
                fmt_count(e.rebuilt_from_duplicates),
            )?;
        }
        kv(w, "  rebuilt and verified", fmt_count(e.rebuilt_verified))?;
        kv(w, "  lost (media error)", fmt_count(e.lost_reads))?;
        kv(
            w,
            "  failed rebuilds (unreadable stripe pages)",
            format!(
                "{} ({})",
                fmt_count(e.failed_rebuilds),
                fmt_count(e.double_faults)
            ),
        )?;
        kv(w, "  background", fmt_count(e.background_uncorrectable))?;
        kv(
            w,
            "    recovered / lost",
            format!(
                "{} / {}",
                fmt_count(e.background_recovered),
                fmt_count(e.background_lost)
            ),
        )?;
        kv(
            w,
            "requests with media errors",
            fmt_count(e.media_error_requests),
        )?;
        if let Some(h) = &e.housekeeping {
            table_housekeeping(w, h)?;
        }
        Ok(())
    }
}

/// The grown-bad-block and retention-refresh lines of the table.
fn table_housekeeping(w: &mut dyn std::fmt::Write, h: &HousekeepingReport) -> std::fmt::Result {
    use crate::table::{fmt_count, kv};
    kv(
        w,
        "failed erases / programs",
        format!(
            "{} / {}",
            fmt_count(h.erase_failures),
            fmt_count(h.program_failures)
        ),
    )?;
    kv(
        w,
        "retired blocks (erase / program)",
        format!(
            "{} ({} / {})",
            fmt_count(h.retired_blocks),
            fmt_count(h.retired_by_erase),
            fmt_count(h.retired_by_program)
        ),
    )?;
    kv(
        w,
        "  moved out (blocks / pages)",
        format!(
            "{} / {}",
            fmt_count(h.retire_relocations),
            fmt_count(h.retire_pages)
        ),
    )?;
    kv(
        w,
        "  deferred (no other free block)",
        fmt_count(h.retire_deferred),
    )?;
    kv(
        w,
        "  fewest good blocks in a plane",
        fmt_count(h.good_blocks_min),
    )?;
    let ro = match h.read_only_at_ns {
        Some(t) => format!(
            "at {:.3} ms, {} blocks retired",
            t as f64 / 1e6,
            fmt_count(h.retired_at_read_only)
        ),
        None => "no".into(),
    };
    kv(w, "read-only", ro)?;
    kv(w, "  writes refused", fmt_count(h.refused_writes))?;
    kv(
        w,
        "retention refresh (scans / blocks / pages)",
        format!(
            "{} / {} / {}",
            fmt_count(h.refresh_scans),
            fmt_count(h.refreshed_blocks),
            fmt_count(h.refreshed_pages)
        ),
    )
}

/// `serde` skips a zero count.
fn is_zero(v: &u64) -> bool {
    *v == 0
}
