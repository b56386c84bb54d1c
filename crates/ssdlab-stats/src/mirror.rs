//! CR5M's measurements: the report's `mirror` section (present only when the device
//! has hidden mirror chips, `raid.mirror_chips`).
//!
//! The mirror chips are the last way of every channel. Chips are numbered in stripe
//! order (`chip = way × channels + channel`), so they are the last `channels` chips.

use serde::{Deserialize, Serialize};
use ssdlab_nand::TxnReason;

use crate::counter::Counter;
use crate::recorder::Recorder;
use crate::report::{ratio, CountSpread};

/// What only the simulator knows about the mirror chips at the end of a run
/// ([`Recorder::set_mirror`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MirrorEnd {
    /// Erase count per block of the mirror chips: min, mean, max.
    pub wear: CountSpread,
    /// The smallest fraction of erased pages host writes may still take on a mirror
    /// chip, at the end of the run.
    pub free_ratio_end: f64,
    /// The lowest available capacity (as `raid.mirror_avail` counts it) any mirror chip
    /// reached during the run, as a fraction of its pages.
    pub avail_ratio_min: f64,
}

/// CR5M's section of the report. See `docs/METRICS.md`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MirrorReport {
    /// Pages programmed on the data ways of each channel (host, parity, GC, reclaim),
    /// mirror chips excluded: CR5M figure 12 (docs/CR5M.md A9).
    pub data_writes_per_channel: CountSpread,
    /// Pages programmed on each channel's mirror chip (mirror copies and their GC moves).
    pub mirror_chip_writes: CountSpread,
    /// Erase count per block of the mirror chips.
    pub mirror_chip_wear: CountSpread,
    /// Smallest fraction of free pages on a mirror chip at the end of the run.
    pub mirror_free_ratio_end: f64,
    /// Lowest available capacity a mirror chip reached, as a fraction of its pages.
    pub mirror_avail_ratio_min: f64,
    /// Read pages served by a mirror copy / host read pages (§IV-B: 1.2 %).
    pub mirror_read_share: f64,
    /// Partial-stripe updates served by a mirror write / partial-stripe updates that
    /// were candidates for one (mirror writes plus refusals).
    pub mirror_write_share: f64,
    /// Pages read for parity by host writes' RMW/RCW and by background reclaims, per
    /// write request (the report's `pre_reads_per_write` leaves the latter out).
    pub pre_reads_per_write_with_reclaim: f64,
}

impl MirrorReport {
    /// The section from the recorder's per-chip programs and counters, and `end`.
    pub(crate) fn build(rec: &Recorder, end: &MirrorEnd, write_requests: u64) -> MirrorReport {
        let channels = rec.shape.channels as usize;
        let chips = rec.shape.chips as usize;
        let programs = rec.chip_programs.clone().unwrap_or_else(|| vec![0; chips]);
        let first_mirror = chips.saturating_sub(channels);
        let mut data = vec![0u64; channels];
        for (chip, &n) in programs.iter().enumerate().take(first_mirror) {
            data[chip % channels] += n;
        }
        let counter = |c: Counter| rec.counter(c) as f64;
        let refused = counter(Counter::MirrorWriteRefusedBusy)
            + counter(Counter::MirrorWriteRefusedFull)
            + counter(Counter::MirrorWriteRefusedOther);
        let mw = counter(Counter::MirrorWriteStripes);
        let reads = rec.reasons[TxnReason::PreRead.index()].pages
            + rec.reasons[TxnReason::ReclaimRead.index()].pages;
        MirrorReport {
            data_writes_per_channel: CountSpread::of(&data),
            mirror_chip_writes: CountSpread::of(&programs[first_mirror..]),
            mirror_chip_wear: end.wear,
            mirror_free_ratio_end: end.free_ratio_end,
            mirror_avail_ratio_min: end.avail_ratio_min,
            mirror_read_share: ratio(
                counter(Counter::RaidMirrorReads),
                rec.work.read.pages as f64,
            ),
            mirror_write_share: ratio(mw, mw + refused),
            pre_reads_per_write_with_reclaim: ratio(reads as f64, write_requests as f64),
        }
    }

    /// True if every floating-point field is finite.
    pub(crate) fn all_finite(&self) -> bool {
        [
            self.data_writes_per_channel.mean,
            self.mirror_chip_writes.mean,
            self.mirror_chip_wear.mean,
            self.mirror_free_ratio_end,
            self.mirror_avail_ratio_min,
            self.mirror_read_share,
            self.mirror_write_share,
            self.pre_reads_per_write_with_reclaim,
        ]
        .iter()
        .all(|v| v.is_finite())
    }
}
