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
    /// Host page reads rebuilt from their RAID stripe instead.
    pub rebuilt_reads: u64,
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
        Ok(())
    }
}
