//! The results of a run: the per-request outputs as it goes; at its end the audit of
//! every written page, consistency checks, and the report.

use super::dgc::DgcState;
use super::Simulation;
use crate::error::SimError;
use crate::sched::IoScheduler;
use ssdlab_nand::Lpn;
use ssdlab_stats::{Counter, EndState, Report};
use std::collections::VecDeque;

/// How many LPNs ahead the audit asks for the pages' tokens.
const AUDIT_AHEAD: u32 = 16;

impl Simulation {
    /// Streams one CSV line per completed request to `w`.
    pub fn set_per_request_csv(&mut self, w: Box<dyn std::io::Write + Send>) {
        match self.tenants.as_ref() {
            // With tenants (set before), each line names its request's tenant.
            Some(t) => self.rec.set_per_request_sink_tenants(w, t.results.names()),
            None => self.rec.set_per_request_sink(w),
        }
    }

    /// Keeps every completed request in memory as columns, for
    /// [`Simulation::take_request_log`] (the per-request CSV's data without the text).
    /// With tenants (set before), the log has a tenant column.
    pub fn keep_request_log(&mut self) {
        self.rec.keep_request_log(0);
        if self.tenants.is_some() {
            self.rec.log_tenants();
        }
    }

    /// The request log kept since [`Simulation::keep_request_log`], leaving none.
    pub fn take_request_log(&mut self) -> Option<ssdlab_stats::RequestLog> {
        self.rec.take_request_log()
    }

    /// Checks that every LPN written (or preconditioned) is mapped to a page holding the
    /// token last written to it. Needs `verify = true` (the shadow of expected tokens).
    /// Returns the number of pages checked.
    ///
    /// # Errors
    /// [`SimError::Stuck`] if requests remain that can never complete (checked first);
    /// [`SimError::VerifyMismatch`] for the first page that disagrees.
    pub fn audit(&self) -> Result<u64, SimError> {
        // Writes still waiting are in the expected tokens, not on flash: the run's
        // failure is that they never completed, not a mismatch.
        self.check_finished()?;
        let mut checked = 0;
        for (lpn, expected) in self.verify.iter().flat_map(|v| v.written()) {
            // The pages lie all over the device: asking for the token of a page some
            // LPNs ahead lets the misses of the pass overlap.
            self.ftl
                .prefetch_lpn_token(Lpn(lpn.0.saturating_add(AUDIT_AHEAD)));
            checked += u64::from(self.audit_page(lpn, expected)?);
        }
        self.audit_trimmed()?;
        self.raid_audit()?;
        self.cmt_audit()?;
        Ok(checked)
    }

    /// Checks that every page a trim left holding nothing is mapped nowhere and held by
    /// nothing in the controller (a mismatch names the token found; 0 is expected).
    fn audit_trimmed(&self) -> Result<(), SimError> {
        let Some(v) = self.verify.as_ref() else {
            return Ok(());
        };
        for lpn in v.trimmed_lpns() {
            let found = self
                .ftl
                .lookup(lpn)
                .map(|p| self.ftl.token(p))
                .or_else(|| self.held_get(lpn).map(|h| h.1))
                .or_else(|| self.dram.as_ref().and_then(|d| d.stage.peek_dirty(lpn)));
            if let Some(found) = found {
                return Err(SimError::VerifyMismatch {
                    lpn: lpn.0,
                    expected: 0,
                    found,
                    at_ns: self.now().as_ns(),
                });
            }
        }
        Ok(())
    }

    /// [`Simulation::audit`] of what the run changed: the LPNs it wrote, those whose
    /// page or data the FTL's tables may hold differently from the snapshot verify mode
    /// took at the end of set-up ([`ssdlab_ftl::Ftl::changed_lpns`]: written forward-map
    /// entries, and the owners of every page whose reverse-map entry or token was
    /// written or whose block was erased), and under RAID every stripe or mirror pair
    /// holding one of them. Every other LPN maps to the page the snapshot gave it, which
    /// holds the snapshot's token, and the snapshot is where its expected token comes
    /// from, so checking it would compare the snapshot with itself. The set-up state
    /// itself (the fill and its redundancy) is not checked again. Falls back to the full
    /// audit where the tables keep no record of their writes, and where failures or
    /// CR5M's mirror make pages depend on more than the tables (a page on a dead chip is
    /// read through its redundancy). Returns the number of pages checked.
    ///
    /// # Errors
    /// As [`Simulation::audit`].
    pub fn audit_changes(&self) -> Result<u64, SimError> {
        let changes = match &self.verify {
            Some(v) if self.fail.is_none() && self.cr5m.is_none() => {
                self.ftl.changed_lpns().map(|lpns| (v, lpns))
            }
            _ => None,
        };
        let Some((v, mut lpns)) = changes else {
            return self.audit();
        };
        self.check_finished()?;
        lpns.extend(v.run_lpns());
        lpns.sort_unstable();
        lpns.dedup();
        let mut checked = 0;
        for (i, &lpn) in lpns.iter().enumerate() {
            if let Some(&ahead) = lpns.get(i + AUDIT_AHEAD as usize) {
                self.ftl.prefetch_lpn_token(Lpn(ahead));
            }
            if let Some(expected) = v.must_hold(Lpn(lpn)) {
                checked += u64::from(self.audit_page(Lpn(lpn), expected)?);
            }
        }
        self.audit_trimmed()?;
        self.raid_audit_of(&lpns)?;
        self.cmt_audit()?;
        Ok(checked)
    }

    /// [`SimError::Stuck`] if requests remain that can never complete (the run stopped
    /// with writes waiting for space GC cannot free).
    fn check_finished(&self) -> Result<(), SimError> {
        let unfinished = u64::from(self.outstanding) + self.host_queue.len() as u64;
        if unfinished > 0 {
            let parked: usize = self.parked.iter().map(Vec::len).sum();
            return Err(SimError::Stuck {
                unfinished,
                parked_writes: parked as u64,
            });
        }
        Ok(())
    }

    /// Checks that `lpn` holds `expected` (read through its redundancy when its page is
    /// on a dead chip or its content is known only through redundancy); `false` when it
    /// cannot be checked (lost, or its redundancy is not readable).
    fn audit_page(&self, lpn: Lpn, expected: u64) -> Result<bool, SimError> {
        if self.is_lost(lpn) {
            return Ok(false);
        }
        // Content in DRAM not yet programmed is the page's newest.
        let dirty = if self.dram.is_some() {
            self.dram_dirty_token(lpn)
        } else {
            None
        };
        if let Some(found) = dirty {
            if found != expected {
                return Err(SimError::VerifyMismatch {
                    lpn: lpn.0,
                    expected,
                    found,
                    at_ns: self.now().as_ns(),
                });
            }
            return Ok(true);
        }
        let found = match self.ftl.lookup(lpn) {
            // A page on a dead chip is checked through its redundancy, if any.
            Some(p) if self.on_dead_chip(p) => {
                let mut sources = Vec::new();
                if !self.has_redundancy() || !self.raid_sources_ignoring_busy(lpn, &mut sources) {
                    return Ok(false);
                }
                sources.iter().fold(0, |acc, &p| acc ^ self.ftl.token(p))
            }
            Some(p) => self.ftl.token(p),
            None if self.is_redundant_only(lpn) => {
                let mut sources = Vec::new();
                if !self.raid_sources_ignoring_busy(lpn, &mut sources) {
                    return Ok(false);
                }
                sources.iter().fold(0, |acc, &p| acc ^ self.ftl.token(p))
            }
            None => 0,
        };
        if found != expected {
            return Err(SimError::VerifyMismatch {
                lpn: lpn.0,
                expected,
                found,
                at_ns: self.now().as_ns(),
            });
        }
        Ok(true)
    }

    /// Full consistency checks of every component (slow; for tests).
    pub fn check_invariants(&self) {
        self.ftl.check_invariants();
        self.queues.check_invariants(&self.txns);
        let queued: usize = self.queues.chip.iter().map(VecDeque::len).sum();
        let loads: u64 = self.queues.load.iter().map(|&l| u64::from(l)).sum();
        assert!(
            queued as u64 <= loads,
            "chip queues hold {queued} but loads sum to {loads}"
        );
        for (chip, q) in self.queues.chip.iter().enumerate() {
            assert!(q.len() <= self.queues.depth, "chip {chip} queue over depth");
        }
        let busy = self.chip_run.iter().filter(|c| c.busy_dies > 0).count() as u32;
        assert_eq!(busy, self.busy_chips, "busy chip count");
        self.dgc_check_invariants();
        if let Some(d) = &self.dram {
            d.stage.check_invariants();
        }
    }

    /// The report of a finished run.
    ///
    /// # Errors
    /// [`SimError::Stuck`] if requests remain that can never complete.
    pub fn into_report(mut self) -> Result<Report, SimError> {
        self.check_finished()?;
        let c = self.counters;
        for (counter, v) in [
            (Counter::BufferHits, c.buffer_hits),
            (Counter::MaterializedReads, c.materialized_reads),
            (Counter::UnwrittenZeroReads, c.zero_reads),
            (Counter::VerifiedReads, c.verified_reads),
            (Counter::ParkedWrites, c.parked_writes),
            (Counter::GcStarvedPlanes, c.gc_starved),
            (Counter::ParkedWritesMoved, c.parked_moved),
            (Counter::BackgroundGcRuns, c.background_gc_runs),
            (Counter::MultiPlaneOps, c.multi_plane_ops),
            (Counter::MultiPlanePages, c.multi_plane_pages),
            (Counter::RedirectedReads, c.redirected_reads),
            (Counter::TraceSkippedLines, self.source.skipped_lines()),
            (Counter::TraceIgnoredLines, self.source.ignored_lines()),
            (
                Counter::TraceClampedTimestamps,
                self.source.clamped_timestamps(),
            ),
        ] {
            self.rec.count(counter, v);
        }
        let jumps = self.source.time_jumps();
        if jumps.count > 0 {
            self.rec.count(Counter::TraceTimeJumps, jumps.count);
            self.rec
                .count(Counter::TraceFirstJumpLine, jumps.first_line);
            self.rec
                .count(Counter::TraceFirstJumpNs, jumps.first_gap_ns);
        }
        if jumps.cut > 0 {
            self.rec.count(Counter::TraceGapsCut, jumps.cut);
            self.rec.count(Counter::TraceGapCutNs, jumps.cut_ns);
        }
        // Flush commands and FUA writes: listed only when the trace had any.
        if self.counters.flushes > 0 {
            self.rec.count(Counter::Flushes, self.counters.flushes);
        }
        if self.counters.fua_writes > 0 {
            self.rec.count(Counter::FuaWrites, self.counters.fua_writes);
        }
        // Trims likewise.
        if self.counters.trims > 0 {
            self.rec.count(Counter::Trims, self.counters.trims);
            self.rec
                .count(Counter::TrimmedPages, self.counters.trimmed_pages);
        }
        if self.counters.verified_trimmed_reads > 0 {
            self.rec.count(
                Counter::VerifiedTrimmedReads,
                self.counters.verified_trimmed_reads,
            );
        }
        let design = self
            .raid_counters()
            .into_iter()
            .chain(self.partial_counters())
            .chain(self.fail_counters())
            .chain(self.cr5m_counters());
        if let Some(end) = self.cr5m_end() {
            self.rec.set_mirror(end);
        }
        let dgc = self
            .dgc
            .as_ref()
            .map(DgcState::counters)
            .unwrap_or_default();
        let bind = self
            .bind
            .as_ref()
            .map(|b| b.counters().to_vec())
            .unwrap_or_default();
        let sched = self.sched.counters();
        let placement = self.placement.counters();
        let dsftl = self.dsftl_counters();
        let gc = self.gc_starts.counters();
        for (counter, v) in design.chain(dgc).chain(bind).chain(sched).chain(gc) {
            self.rec.count(counter, v);
        }
        for (counter, v) in placement.into_iter().chain(dsftl) {
            self.rec.count(counter, v);
        }
        let end = self.last_completion_ns.max(self.last_event_ns);
        if let Some(d) = self.dram_report(end) {
            self.rec.set_dram(d);
        }
        let dram_tenants = self.dram_tenants_report(end);
        let end_state = self.end_state(end);
        let dsftl = self.dsftl_report(end);
        let slc = self.ftl.slc_counters().map(|c| self.slc_cache_report(c));
        let mapping = self.mapping_report();
        let errors = self.errors_report();
        let placement = self.placement_report();
        let mut report = self
            .rec
            .finish(end_state)
            .map_err(|e| SimError::Io(e.to_string()))?;
        report.dsftl = dsftl;
        report.mapping = mapping;
        report.errors = errors;
        report.placement = placement;
        if let Some(t) = &self.tenants {
            let arb = serde_json::to_value(self.cfg.host.arbitration).ok();
            let arb = arb
                .as_ref()
                .and_then(|v| v.as_str())
                .unwrap_or("round-robin");
            let mut r = t.results.report(arb);
            if let Some((sharing, per)) = dram_tenants {
                r.dram_sharing = Some(sharing);
                for (t, d) in r.tenants.iter_mut().zip(per) {
                    t.dram = Some(d);
                }
            }
            if let Some(c) = &self.cmt {
                let sharing = serde_json::to_value(self.cfg.ftl.cmt.sharing).ok();
                c.tenants_report(
                    sharing.as_ref().and_then(|v| v.as_str()).unwrap_or(""),
                    &mut r,
                );
            }
            report.tenants = Some(r);
        }
        report.nand = self.nand.as_ref().map(|n| n.report());
        if let Some(r) = report.nand.as_mut() {
            r.slc_cache = slc;
        }
        Ok(report)
    }

    /// Write amplification per placement handle, when handles are on.
    fn placement_report(&self) -> Option<ssdlab_stats::PlacementReport> {
        let counts: Vec<(u64, u64)> = self
            .ftl
            .handle_counters()?
            .iter()
            .map(|c| (c.host_pages, c.gc_copies))
            .collect();
        let ts = &self.cfg.host.tenant;
        let mut names = vec![Vec::new(); counts.len()];
        for (i, t) in ts.iter().enumerate() {
            let h = crate::config::tenants::placement_handle(ts, i, counts.len() as u32);
            let name = if t.name.is_empty() {
                format!("t{i}")
            } else {
                t.name.clone()
            };
            names[h as usize].push(name);
        }
        let report = ssdlab_stats::PlacementReport::new(&counts, names);
        Some(match &self.stream_tags {
            Some(t) => report.with_streams(t.labels()),
            None => report,
        })
    }

    /// What the recorder needs at the end of the run.
    pub(in crate::sim) fn end_state(&self, end_ns: u64) -> EndState {
        let c = self.ftl.counters();
        let wear = self.ftl.erase_count_summary();
        EndState {
            end_ns,
            die_busy_ns: self.dies.iter().map(|d| d.busy_ns).collect(),
            chip_busy_ns: self.chip_busy_ns.clone(),
            channel_busy_ns: self.channels.iter().map(|c| c.busy_ns).collect(),
            package_contention_ns: self.counters.package_contention_ns,
            ftl: ssdlab_stats::FtlSummary {
                host_pages_written: self.counters.host_pages_programmed,
                gc_pages_moved: c.gc_pages_moved,
                erases: c.erases,
                gc_runs: c.gc_victims,
                wear: ssdlab_stats::CountSpread {
                    min: u64::from(wear.min),
                    mean: wear.mean,
                    max: u64::from(wear.max),
                },
            },
            meta: self.meta.clone(),
            wall_time_ns: None,
            events: self.events.popped(),
        }
    }
}
