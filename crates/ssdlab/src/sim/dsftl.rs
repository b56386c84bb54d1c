//! DS-FTL in the request path: multi-path reads (the `duplicate` read plan, paper
//! §4.3.2), the content counters, and the content section of the report. Content-aware
//! placement is a placement policy (`placement/content.rs`); the content index is the
//! FTL's (`ssdlab_ftl`, `content.rs`).
//!
//! ```text
//!  read of LPN ─► its page p (programmed, live) ─► the index: p's content on other chips?
//!                   none ─► direct
//!                   some ─► plans: direct + one duplicate per other chip ─► the read choice
//!                           (the copy whose chip has the least outstanding work; ties: p)
//! ```

use super::plan::Enumerated;
use super::Simulation;
use crate::plans::{PlanKind, ReadPlan};
use ssdlab_nand::Ppn;
use ssdlab_stats::{Counter, DsftlReport, Fractions, OpClass};

/// The simulator's DS-FTL counters.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DsftlCounters {
    /// Host page writes whose content a valid page already held.
    pub duplicate_writes: u64,
    /// Read pages served by another page of their content.
    pub duplicate_reads: u64,
    /// Read pages whose content had a programmed copy on another chip.
    pub reads_with_copies: u64,
    /// Read pages whose content had a programmed copy on another channel.
    pub reads_with_channel_copies: u64,
}

impl Simulation {
    /// The plans of a read of programmed, live page `ppn` with the content index kept:
    /// the page itself, and with multi-path reads one copy per other chip holding its
    /// content (not being programmed, not on a dead chip).
    pub(in crate::sim) fn enumerate_copies(&mut self, ppn: Ppn) -> Enumerated {
        let direct = ReadPlan::only(PlanKind::Direct, Some(ppn), false);
        let mut plans = std::mem::take(&mut self.read_plans);
        plans.clear();
        let own_chip = self.geom.chip_of_page(ppn);
        plans.push_copy(PlanKind::Direct, ppn, own_chip);
        let (geom, dead) = (&self.geom, &self.dead);
        let own_channel = geom.channel_of_chip(own_chip);
        let mut other_channel = false;
        self.ftl.duplicate_copies(ppn, |p| {
            if !dead.page_dead(geom, p) {
                let chip = geom.chip_of_page(p);
                other_channel |= geom.channel_of_chip(chip) != own_channel;
                plans.push_copy(PlanKind::Duplicate, p, chip);
            }
        });
        let several = plans.len() > 1;
        self.dsftl_counters.reads_with_copies += u64::from(several);
        self.dsftl_counters.reads_with_channel_copies += u64::from(other_channel);
        self.read_plans = plans;
        if several && self.multipath {
            Enumerated::Plans
        } else {
            Enumerated::One(direct)
        }
    }

    /// A host page write of `token` is being placed: counts it when its content is on
    /// the device already.
    #[inline]
    pub(in crate::sim) fn note_content_write(&mut self, token: u64) {
        if self.ftl.has_content_index() && self.ftl.content_copies(token) > 0 {
            self.dsftl_counters.duplicate_writes += 1;
        }
    }

    /// DS-FTL's counters for the report: merged reads (with merging on), duplicate
    /// writes and reads (with the content index).
    pub(in crate::sim) fn dsftl_counters(&self) -> Vec<(Counter, u64)> {
        let mut out = Vec::new();
        if let Some(m) = &self.merge {
            out.push((Counter::MergedReads, m.merged()));
        }
        if self.ftl.has_content_index() {
            let c = &self.dsftl_counters;
            out.push((Counter::DuplicateWrites, c.duplicate_writes));
            out.push((Counter::DuplicateReads, c.duplicate_reads));
        }
        out
    }

    /// The report's content section (None without the content index) at the end of a
    /// run of `end_ns`: the counters as ratios, the index's size, per-plane duplicate
    /// rates and per-unit utilization.
    pub(in crate::sim) fn dsftl_report(&self, end_ns: u64) -> Option<DsftlReport> {
        let stats = self.ftl.content_stats()?;
        let c = &self.dsftl_counters;
        let ratio = |n: u64, d: u64| if d == 0 { 0.0 } else { n as f64 / d as f64 };
        let busy = |ns: &[u64]| Fractions::of(ns.iter().map(|&b| ratio(b, end_ns)).collect());
        let read_pages = self.rec.pages(OpClass::Read);
        let channel_busy: Vec<u64> = self.channels.iter().map(|c| c.busy_ns).collect();
        Some(DsftlReport {
            duplicate_write_ratio: ratio(c.duplicate_writes, self.rec.pages(OpClass::Write)),
            duplicate_read_ratio: ratio(c.duplicate_reads, read_pages),
            reads_with_copies_ratio: ratio(c.reads_with_copies, read_pages),
            reads_with_channel_copies_ratio: ratio(c.reads_with_channel_copies, read_pages),
            tokens: stats.tokens,
            groups: stats.groups,
            grouped_pages: stats.grouped_pages,
            index_bytes: stats.index_bytes,
            filter_bytes: stats.filter_bytes,
            bytes_per_page: (stats.index_bytes + stats.filter_bytes) as f64
                / f64::from(self.geom.pages()),
            plane_duplicate_rate: Fractions::of(self.ftl.plane_duplicate_rates(false)),
            plane_duplicate_rate_valid: Fractions::of(self.ftl.plane_duplicate_rates(true)),
            channel_utilization: busy(&channel_busy),
            chip_utilization: busy(&self.chip_busy_ns),
        })
    }
}
