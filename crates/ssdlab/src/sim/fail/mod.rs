//! Failure injection and rebuild (docs/ARCHITECTURE.md §14).
//!
//! A failure (`raid.fail = ["chip:3@150ms", "channel:1@0.25"]`) marks chips dead at a
//! simulated time, or when the given fraction of the trace's requests has arrived.
//! Operations already queued on a chip when it dies still complete (the failure takes
//! effect for work issued afterwards); from then on:
//!
//! * a read of a page on a dead chip is a *degraded read*: reconstructed from the rest
//!   of its stripe (RAID-4/5) or read from the other copy (RAID-1); when that is not
//!   possible (no redundancy, or a second failure in the same group) the page is
//!   *unrecoverable*: counted, never answered with wrong data;
//! * a write whose page lives on a dead chip is not programmed; RAID-4/5 still updates
//!   the parity with its content (a degraded write), RAID-1 keeps the surviving copy;
//! * a stripe job never plans a pre-read on a dead chip (RMW and RCW read disjoint
//!   pages, so with one failure per group one of them always avoids it);
//! * GC stops on dead chips.
//!
//! Rebuild (chip domain, `raid.spare_chips > 0`): the failed member is remapped to a
//! hidden spare chip at once, so new writes of its pages go to the spare; a background
//! process walks the rows and rewrites every page still on the dead chip from its
//! stripe (or mirror), paced to `raid.rebuild_rate_mib_s`, with its own transactions
//! (reason `rebuild`) in the same queues as host work.

mod degraded;
mod rebuild;

use super::txn::{ReqId, NONE};
use super::{Event, Simulation};
use crate::error::SimError;
use crate::placement::{PageToPlace, Role};
use ssdlab_nand::{ChipId, Lpn, Ppn, TxnReason};
use ssdlab_raid::{FailAt, FailSpec, FailTarget};
use ssdlab_stats::Counter;

/// Failure and rebuild state of a run.
#[derive(Default)]
pub(crate) struct FailState {
    /// Specs not yet applied: (spec, resolved request index for fractions).
    pub pending: Vec<(FailSpec, Option<u64>)>,
    /// Spare chips not yet used.
    pub spares: Vec<u32>,
    /// Rebuilds waiting or running, in failure order.
    pub rebuilds: Vec<Rebuild>,
    pub counters: FailCounters,
    /// Host LPNs whose current content exists only through redundancy (written while
    /// their chip was dead and no page could record them there).
    pub redundant_only: rustc_hash::FxHashSet<u32>,
    /// Host LPNs whose content was lost (two members of their group failed) until they
    /// are written again.
    pub lost_lpns: rustc_hash::FxHashSet<u32>,
    /// Degraded reads waiting for their stripe to settle (request, LPN), in the order
    /// they began to wait.
    pub degraded_wait: Vec<(ReqId, Lpn)>,
    /// The trace's length, for failures given as a fraction of it.
    pub trace_requests: Option<u64>,
}

/// One member being rebuilt onto a spare.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rebuild {
    pub member: u32,
    pub next_row: u64,
    pub rows: u64,
    pub started_ns: u64,
    pub finished_ns: Option<u64>,
    /// Reads outstanding for the row in progress.
    pub reads_left: u32,
    pub acc: u64,
    pub lpn: Lpn,
    /// The lost version being rebuilt (None: a parity page never written).
    pub lost: Option<Ppn>,
    pub row_started_ns: u64,
}

/// Counters the report shows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FailCounters {
    pub failures: u64,
    pub not_fired: u64,
    pub degraded_reads: u64,
    pub degraded_writes: u64,
    pub unrecoverable_reads: u64,
    pub lost_writes: u64,
    /// Response-time sums and counts of requests completed before any failure, while a
    /// rebuild ran, and otherwise after a failure (the rebuild's effect on latency).
    pub phase_response_ns: [u128; 3],
    pub phase_requests: [u64; 3],
    pub rebuilt_pages: u64,
    pub rebuild_deferrals: u64,
    pub power_losses: u64,
}

impl Simulation {
    /// Reads `raid.fail` and `raid.spare_chips` and schedules the timed failures.
    pub(in crate::sim) fn init_failures(&mut self) -> Result<(), SimError> {
        let specs = self
            .cfg
            .raid
            .fail_specs()
            .map_err(|e| SimError::config(e.key(), e.to_string()))?;
        if specs.is_empty() {
            return Ok(());
        }
        let chips = self.geom.chips();
        let spares = self.cfg.raid.spare_chips;
        self.fail = Some(Box::new(FailState {
            spares: (chips - spares..chips).collect(),
            ..FailState::default()
        }));
        for (i, spec) in specs.into_iter().enumerate() {
            match spec.at {
                FailAt::Time(t) => {
                    self.events
                        .schedule(t, Event::Fail(i as u32))
                        .expect("time zero or later");
                    self.fs_mut().pending.push((spec, None));
                }
                FailAt::Fraction(_) => self.fs_mut().pending.push((spec, None)),
            }
        }
        Ok(())
    }

    /// True when a failure is given as a fraction of the trace's requests and the trace
    /// length is not known yet ([`Simulation::set_trace_requests`]).
    pub fn needs_trace_length(&self) -> bool {
        self.fail.as_deref().is_some_and(|f| {
            f.trace_requests.is_none()
                && f.pending
                    .iter()
                    .any(|(s, _)| matches!(s.at, FailAt::Fraction(_)))
        })
    }

    /// Resolves failures given as a fraction of the trace's requests; `requests` is the
    /// trace length. Without it such failures are an error when the run starts.
    pub fn set_trace_requests(&mut self, requests: u64) {
        let Some(f) = self.fail.as_deref_mut() else {
            return;
        };
        f.trace_requests = Some(requests);
        for (spec, at) in &mut f.pending {
            if let FailAt::Fraction(f) = spec.at {
                *at = Some(((requests as f64) * f).floor() as u64);
            }
        }
    }

    /// Checks that every fractional failure has been resolved.
    pub(in crate::sim) fn check_fail_fractions(&self) -> Result<(), SimError> {
        let Some(f) = self.fail.as_deref() else {
            return Ok(());
        };
        for (spec, at) in &f.pending {
            if !matches!(spec.at, FailAt::Fraction(_)) {
                continue;
            }
            let Some(index) = *at else {
                return Err(SimError::config(
                    "raid.fail",
                    format!("`{spec}` is a fraction of the trace's requests, but the trace length is unknown (Simulation::on_trace counts it, as the CLI and the Python package do; or call Simulation::set_trace_requests)"),
                ));
            };
            let requests = f.trace_requests.unwrap_or(0);
            if index >= requests {
                return Err(SimError::config(
                    "raid.fail",
                    format!("`{spec}` falls at request {index} of a trace of {requests} requests: it would never happen (a fraction must leave a request to fail at; use a value below 1)"),
                ));
            }
        }
        Ok(())
    }

    /// Applies fractional failures due at the arrival of request number `index`.
    pub(in crate::sim) fn fail_on_arrival(&mut self, index: u64) {
        let Some(f) = self.fail.as_deref() else {
            return;
        };
        let due: Vec<usize> = (0..f.pending.len())
            .filter(|&i| f.pending[i].1 == Some(index))
            .collect();
        for i in due {
            self.apply_failure(i);
        }
    }

    /// The timed failure number `i` is due. After the last request has completed it is
    /// not applied but counted: it would change nothing measured and only move the end
    /// of the run.
    pub(in crate::sim) fn on_fail_event(&mut self, i: u32) -> bool {
        if self.workload_finished() {
            self.fs_mut().counters.not_fired += 1;
            return false;
        }
        self.apply_failure(i as usize);
        true
    }

    fn apply_failure(&mut self, i: usize) {
        let spec = self.fs().pending[i].0;
        if spec.target == FailTarget::Power {
            self.fs_mut().counters.power_losses += 1;
            self.dram_power_loss();
            return;
        }
        self.fs_mut().counters.failures += 1;
        let chips: Vec<ChipId> = match spec.target {
            FailTarget::Power => unreachable!("handled above"),
            FailTarget::Chip(c) => vec![c],
            FailTarget::Channel(ch) => (0..self.geom.chips_per_channel)
                .map(|w| self.geom.chip_at(ch, w))
                .collect(),
        };
        for chip in chips {
            if !self.dead.mark(chip) {
                continue;
            }
            // A dead spare is no rebuild target.
            self.fs_mut().spares.retain(|&s| s != chip.0);
            self.release_parked_on(chip);
            self.start_rebuild(chip);
            self.cr5m_chip_died(chip);
            if self.cmt.is_some() {
                self.cmt_chip_died(chip);
            }
        }
    }

    /// Writes parked on the planes of a chip that just died will never find space
    /// there. The controller still holds their content, so each is placed again: where
    /// the placement has a live alternative (a dynamic in-channel chip choice) it goes
    /// there; otherwise host and mirror pages become dead writes and parity pages finish
    /// their job without a program (the stripe stays degraded).
    fn release_parked_on(&mut self, chip: ChipId) {
        for plane in self.geom.planes_of_chip(chip) {
            let parked = std::mem::take(&mut self.parked[plane.idx()]);
            for w in parked {
                if w.job != NONE {
                    let page = PageToPlace::new(w.lpn, w.token, Role::Parity);
                    let plane = self.place(page);
                    if self.plane_dead(plane) {
                        self.finish_parked_parity(w.job as usize);
                    } else if !self.unpark_parity(w.job, w.lpn, plane, w.token) {
                        self.park_parity(w.job as usize, w.lpn, plane, w.token);
                    }
                    continue;
                }
                let current = self.held.get(&w.lpn.0).map(|h| h.0) == Some(w.seq);
                if current && self.cr5m_parked_copy_lost(w.lpn) {
                    // A CR5M mirror copy for a dead mirror chip: its entry lost the copy.
                } else if current {
                    let role = match w.reason {
                        TxnReason::MirrorWrite => Role::Mirror,
                        _ => Role::Data,
                    };
                    let plane = self.place(PageToPlace::new(w.lpn, w.token, role));
                    if !self.plane_dead(plane) {
                        if !self.requeue_parked(&w, plane) {
                            self.park(w.req, w.lpn, plane, w.token, w.reason);
                        }
                        continue;
                    }
                    // Not a page of an admission that may enclose this one.
                    let enclosing = std::mem::take(&mut self.admit_done_now);
                    self.dead_write(w.lpn, w.token, w.reason);
                    self.admit_done_now = enclosing;
                }
                self.sub_done(w.req, 0, 0);
            }
        }
    }

    /// Failure counters and rebuild progress for the report.
    pub(in crate::sim) fn fail_counters(&self) -> Vec<(Counter, u64)> {
        if self.fail.is_none() {
            return Vec::new();
        }
        let c = self.fs().counters;
        let power = (c.power_losses > 0).then_some((Counter::PowerLosses, c.power_losses));
        if self
            .fs()
            .pending
            .iter()
            .all(|p| p.0.target == FailTarget::Power)
        {
            // Power losses only: no chip failed, nothing to rebuild.
            return power.into_iter().collect();
        }
        let rows: u64 = self.fs().rebuilds.iter().map(|b| b.rows).sum();
        let done: u64 = self
            .fs()
            .rebuilds
            .iter()
            .map(|b| b.next_row.min(b.rows))
            .sum();
        let finished = self
            .fs()
            .rebuilds
            .iter()
            .filter_map(|b| b.finished_ns.map(|f| f - b.started_ns));
        let mean =
            |i: usize| (c.phase_response_ns[i] / u128::from(c.phase_requests[i].max(1))) as u64;
        power
            .into_iter()
            .chain([
                (Counter::Failures, c.failures),
                (Counter::FailuresNotFired, c.not_fired),
                (Counter::MeanResponseNsBeforeFailure, mean(0)),
                (Counter::MeanResponseNsDuringRebuild, mean(1)),
                (Counter::MeanResponseNsAfterFailure, mean(2)),
                (Counter::DegradedReads, c.degraded_reads),
                (Counter::DegradedWrites, c.degraded_writes),
                (Counter::UnrecoverableReads, c.unrecoverable_reads),
                (Counter::LostWrites, c.lost_writes),
                (Counter::UnrecoverablePages, self.unrecoverable_pages()),
                (Counter::RebuiltPages, c.rebuilt_pages),
                (Counter::RebuildRowsDone, done),
                (Counter::RebuildRowsTotal, rows),
                (Counter::RebuildDeferrals, c.rebuild_deferrals),
                (Counter::RebuildTimeNs, finished.max().unwrap_or(0)),
            ])
            .collect()
    }

    /// Host pages that no read can recover: lost with two members of their stripe, or on
    /// a dead chip and not recoverable from their stripe or mirror.
    pub(in crate::sim) fn unrecoverable_pages(&self) -> u64 {
        if !self.dead.any() {
            return 0;
        }
        let mut lost = 0;
        let mut sources = Vec::new();
        for lpn in 0..self.logical_pages as u32 {
            if self.is_lost(Lpn(lpn)) {
                lost += 1; // its content went with two members of its stripe
                continue;
            }
            let Some(p) = self.ftl.lookup(Lpn(lpn)) else {
                continue;
            };
            if !self.dead.is_dead(self.geom.chip_of_page(p)) {
                continue;
            }
            let recoverable =
                self.has_redundancy() && self.raid_sources_ignoring_busy(Lpn(lpn), &mut sources);
            if !recoverable {
                lost += 1;
            }
        }
        lost
    }
}

impl Simulation {
    /// Files a completed request's response time under the failure phase it ended in.
    #[inline]
    pub(in crate::sim) fn note_response_phase(&mut self, response_ns: u64) {
        if self.fail.is_none() {
            return;
        }
        let phase = if !self.dead.any() {
            0
        } else if self.fs().rebuilds.iter().any(|b| b.finished_ns.is_none()) {
            1
        } else {
            2
        };
        self.fs_mut().counters.phase_response_ns[phase] += u128::from(response_ns);
        self.fs_mut().counters.phase_requests[phase] += 1;
    }
}

impl Simulation {
    /// The failure state (only failure handling calls this: it runs only when failures
    /// are configured).
    #[inline]
    pub(in crate::sim) fn fs(&self) -> &FailState {
        self.fail.as_deref().expect("failures are configured")
    }

    /// See [`Simulation::fs`].
    #[inline]
    pub(in crate::sim) fn fs_mut(&mut self) -> &mut FailState {
        self.fail.as_deref_mut().expect("failures are configured")
    }

    /// True when `lpn`'s content was lost for good (until it is written again).
    #[inline]
    pub(in crate::sim) fn is_lost(&self, lpn: Lpn) -> bool {
        self.fail
            .as_deref()
            .is_some_and(|f| !f.lost_lpns.is_empty() && f.lost_lpns.contains(&lpn.0))
    }

    /// True when RAID keeps redundancy (mirror or parity) of the host data.
    #[inline]
    pub(in crate::sim) fn has_redundancy(&self) -> bool {
        self.raid
            .as_ref()
            .is_some_and(|r| r.map.level.is_redundant())
    }

    /// True when `lpn`'s current content exists only through redundancy.
    #[inline]
    pub(in crate::sim) fn is_redundant_only(&self, lpn: Lpn) -> bool {
        self.fail
            .as_deref()
            .is_some_and(|f| !f.redundant_only.is_empty() && f.redundant_only.contains(&lpn.0))
    }

    /// A new version of `lpn` is on flash: it is neither lost nor known only through
    /// redundancy any more.
    #[inline]
    pub(in crate::sim) fn forget_losses(&mut self, lpn: Lpn) {
        if let Some(f) = self.fail.as_deref_mut() {
            if !f.redundant_only.is_empty() {
                f.redundant_only.remove(&lpn.0);
            }
            if !f.lost_lpns.is_empty() {
                f.lost_lpns.remove(&lpn.0);
            }
        }
    }
}
