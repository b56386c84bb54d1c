//! [`DsftlReport`]: the content metrics of a run that kept DS-FTL's content index (its
//! figures 2, 4, 11, 12 and 13), and its section of the table.

use std::fmt::{self, Write};

use serde::{Deserialize, Serialize};

use crate::report::Report;
use crate::table::{fmt_count, fmt_grouped, fmt_pct as pct, kv};

/// Minimum, mean and maximum of per-item fractions (in `[0, 1]`), and the items.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Fractions {
    /// Mean over the items.
    pub mean: f64,
    /// Smallest item.
    pub min: f64,
    /// Largest item.
    pub max: f64,
    /// Every item, by index.
    pub items: Vec<f64>,
}

impl Fractions {
    /// The statistics of `items` (all zero when empty).
    pub fn of(items: Vec<f64>) -> Fractions {
        if items.is_empty() {
            return Fractions::default();
        }
        let n = items.len() as f64;
        Fractions {
            mean: items.iter().sum::<f64>() / n,
            min: items.iter().copied().fold(f64::INFINITY, f64::min),
            max: items.iter().copied().fold(0.0, f64::max),
            items,
        }
    }
}

/// What a run with the content index measured about content (`docs/METRICS.md`,
/// "Content"). Present in a [`Report`] only when the index was kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DsftlReport {
    /// Host page writes whose content a valid page already held when they were placed
    /// (`duplicate-writes`), over write pages.
    pub duplicate_write_ratio: f64,
    /// Read pages served by another page of their content (`duplicate-reads`), over read
    /// pages (DS-FTL figure 13's redirected reads).
    pub duplicate_read_ratio: f64,
    /// Read pages whose content had a valid, programmed copy on another chip when they
    /// were admitted (the reads a multi-path read could send elsewhere), over read pages.
    pub reads_with_copies_ratio: f64,
    /// Read pages whose content had a valid, programmed copy on another channel when
    /// they were admitted (a subset of the above: the reads a copy could take off their
    /// own channel's bus), over read pages.
    #[serde(default)]
    pub reads_with_channel_copies_ratio: f64,
    /// Distinct contents held by valid pages at the end.
    pub tokens: u64,
    /// Contents held by two or more valid pages at the end (the secondary table's entries).
    pub groups: u64,
    /// Valid pages in those groups.
    pub grouped_pages: u64,
    /// Heap bytes of the content index (token table, groups, page links) at the end;
    /// allocations only grow, so this is also the peak.
    pub index_bytes: u64,
    /// Heap bytes of the fingerprint filters (0 with exact tables).
    pub filter_bytes: u64,
    /// `(index_bytes + filter_bytes)` per physical page of the device.
    pub bytes_per_page: f64,
    /// Per plane, `1 − distinct contents / pages` over the pages written since their
    /// block's last erase, valid or not (DS-FTL figures 4, 11, 12).
    pub plane_duplicate_rate: Fractions,
    /// The same over valid pages only.
    pub plane_duplicate_rate_valid: Fractions,
    /// Busy fraction of each channel bus (DS-FTL figure 2).
    pub channel_utilization: Fractions,
    /// Busy fraction of each chip (DS-FTL figure 2).
    pub chip_utilization: Fractions,
}

impl DsftlReport {
    /// True if every float is finite (JSON cannot hold NaN or ∞).
    pub(crate) fn all_finite(&self) -> bool {
        let f = |x: &Fractions| {
            [x.mean, x.min, x.max].iter().all(|v| v.is_finite())
                && x.items.iter().all(|v| v.is_finite())
        };
        [
            self.duplicate_write_ratio,
            self.duplicate_read_ratio,
            self.reads_with_copies_ratio,
            self.reads_with_channel_copies_ratio,
            self.bytes_per_page,
        ]
        .iter()
        .all(|v| v.is_finite())
            && f(&self.plane_duplicate_rate)
            && f(&self.plane_duplicate_rate_valid)
            && f(&self.channel_utilization)
            && f(&self.chip_utilization)
    }
}

fn spread(f: &Fractions) -> String {
    format!(
        "mean {}  min {}  max {}",
        pct(f.mean),
        pct(f.min),
        pct(f.max)
    )
}

impl Report {
    /// The content section of the table, when the run kept the content index.
    pub(crate) fn table_dsftl(&self, w: &mut dyn Write) -> fmt::Result {
        let Some(d) = &self.dsftl else {
            return Ok(());
        };
        writeln!(w)?;
        writeln!(w, "Content (DS-FTL, %)")?;
        kv(w, "duplicate writes", pct(d.duplicate_write_ratio))?;
        kv(w, "reads served by a copy", pct(d.duplicate_read_ratio))?;
        kv(
            w,
            "reads with a copy elsewhere",
            pct(d.reads_with_copies_ratio),
        )?;
        kv(
            w,
            "  on another channel",
            pct(d.reads_with_channel_copies_ratio),
        )?;
        kv(w, "plane duplicate rate", spread(&d.plane_duplicate_rate))?;
        kv(
            w,
            "  valid pages only",
            spread(&d.plane_duplicate_rate_valid),
        )?;
        kv(
            w,
            "contents / shared",
            format!(
                "{} / {} ({} pages)",
                fmt_count(d.tokens),
                fmt_count(d.groups),
                fmt_count(d.grouped_pages)
            ),
        )?;
        kv(
            w,
            "index + filter memory",
            format!(
                "{} + {} B ({} B per page)",
                fmt_count(d.index_bytes),
                fmt_count(d.filter_bytes),
                fmt_grouped(d.bytes_per_page, 2)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_of_items() {
        let f = Fractions::of(vec![0.5, 0.1, 0.3]);
        assert!((f.mean - 0.3).abs() < 1e-12);
        assert_eq!((f.min, f.max), (0.1, 0.5));
        assert_eq!(Fractions::of(Vec::new()), Fractions::default());
    }

    #[test]
    fn the_section_prints_only_with_the_index() {
        let mut r = Report::default();
        assert!(!r.table().contains("Content (DS-FTL"));
        r.dsftl = Some(DsftlReport {
            duplicate_read_ratio: 0.25,
            ..DsftlReport::default()
        });
        let t = r.table();
        assert!(t.contains("Content (DS-FTL, %)"), "{t}");
        assert!(t.contains("reads served by a copy"), "{t}");
        assert!(t.contains("25.00"), "{t}");
    }
}
