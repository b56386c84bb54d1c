//! Failure injection and rebuild (ARCHITECTURE §6).
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

use super::txn::{Txn, TxnId, NONE};
use super::{Event, Simulation};
use crate::error::SimError;
use ssdlab_nand::{ChipId, FlashOp, Lpn, Ppn, TxnReason};
use ssdlab_raid::{Domain, FailAt, FailSpec, FailTarget};

/// Failure and rebuild state of a run.
#[derive(Default)]
pub(crate) struct FailState {
    /// Specs not yet applied: (spec, resolved request index for fractions).
    pub pending: Vec<(FailSpec, Option<u64>)>,
    /// Dead chips.
    pub dead: Vec<bool>,
    pub any_dead: bool,
    /// Spare chips not yet used.
    pub spares: Vec<u32>,
    /// Rebuilds waiting or running, in failure order.
    pub rebuilds: Vec<Rebuild>,
    pub counters: FailCounters,
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
}

impl FailState {
    /// True if `chip` is dead.
    #[inline]
    pub fn is_dead(&self, chip: ChipId) -> bool {
        self.any_dead && self.dead[chip.idx()]
    }
}

impl Simulation {
    /// Reads `raid.fail` and `raid.spare_chips` and schedules the timed failures.
    pub(super) fn init_failures(&mut self) -> Result<(), SimError> {
        let specs = self
            .cfg
            .raid
            .fail_specs()
            .map_err(|e| SimError::config(e.key(), e.to_string()))?;
        let chips = self.geom.chips();
        let spares = self.cfg.raid.spare_chips;
        self.fail.dead = vec![false; chips as usize];
        self.fail.spares = (chips - spares..chips).collect();
        for (i, spec) in specs.into_iter().enumerate() {
            match spec.at {
                FailAt::Time(t) => {
                    self.events
                        .schedule(t, Event::Fail(i as u32))
                        .expect("time zero or later");
                    self.fail.pending.push((spec, None));
                }
                FailAt::Fraction(_) => self.fail.pending.push((spec, None)),
            }
        }
        Ok(())
    }

    /// Resolves failures given as a fraction of the trace's requests; `requests` is the
    /// trace length. Without it such failures are an error when the run starts.
    pub fn set_trace_requests(&mut self, requests: u64) {
        for (spec, at) in &mut self.fail.pending {
            if let FailAt::Fraction(f) = spec.at {
                *at = Some(((requests as f64) * f).floor() as u64);
            }
        }
    }

    /// Checks that every fractional failure has been resolved.
    pub(super) fn check_fail_fractions(&self) -> Result<(), SimError> {
        for (spec, at) in &self.fail.pending {
            if matches!(spec.at, FailAt::Fraction(_)) && at.is_none() {
                return Err(SimError::config(
                    "raid.fail",
                    format!("`{spec}` is a fraction of the trace's requests, but the trace length is unknown (the CLI counts it; library callers use Simulation::set_trace_requests)"),
                ));
            }
        }
        Ok(())
    }

    /// Applies fractional failures due at the arrival of request number `index`.
    pub(super) fn fail_on_arrival(&mut self, index: u64) {
        if self.fail.pending.is_empty() {
            return;
        }
        let due: Vec<usize> = (0..self.fail.pending.len())
            .filter(|&i| self.fail.pending[i].1 == Some(index))
            .collect();
        for i in due {
            self.apply_failure(i);
        }
    }

    /// The timed failure number `i` is due.
    pub(super) fn on_fail_event(&mut self, i: u32) {
        self.apply_failure(i as usize);
    }

    fn apply_failure(&mut self, i: usize) {
        let spec = self.fail.pending[i].0;
        self.fail.counters.failures += 1;
        let chips: Vec<ChipId> = match spec.target {
            FailTarget::Chip(c) => vec![c],
            FailTarget::Channel(ch) => (0..self.geom.chips_per_channel)
                .map(|w| self.geom.chip_at(ch, w))
                .collect(),
        };
        for chip in chips {
            if self.fail.dead[chip.idx()] {
                continue;
            }
            self.fail.dead[chip.idx()] = true;
            self.fail.any_dead = true;
            // A dead spare is no rebuild target.
            self.fail.spares.retain(|&s| s != chip.0);
            self.release_parked_on(chip);
            self.start_rebuild(chip);
        }
    }

    /// Writes parked on the planes of a chip that just died will never find space
    /// there: host and mirror pages become dead writes, parity pages finish their job
    /// without a program (the stripe stays degraded).
    fn release_parked_on(&mut self, chip: ChipId) {
        for plane in self.geom.planes_of_chip(chip) {
            let parked = std::mem::take(&mut self.parked[plane.idx()]);
            for w in parked {
                if w.job != NONE {
                    self.finish_parked_parity(w.job as usize);
                    continue;
                }
                if self.held.get(&w.lpn.0).map(|h| h.0) == Some(w.seq) {
                    self.held.remove(&w.lpn.0);
                    self.raid_note_held(w.lpn, false);
                    self.admit_done_now = 0;
                    self.dead_write(w.lpn, w.token, w.reason);
                    self.admit_done_now = 0;
                }
                self.sub_done(w.req, 0, 0);
            }
        }
    }

    /// Remaps a failed member chip to a spare and starts rebuilding it.
    fn start_rebuild(&mut self, chip: ChipId) {
        let Some(r) = self.raid.as_ref() else { return };
        if r.domain != Domain::Chip || !r.level.is_redundant() {
            return;
        }
        let Some(member) = r.member_chip.iter().position(|&c| c == chip.0) else {
            return;
        };
        let Some(spare) = self.fail.spares.first().copied() else {
            return;
        };
        self.fail.spares.remove(0);
        let rows = r.rows();
        self.raid_mut_pub().member_chip[member] = spare;
        let now = self.now().as_ns();
        self.fail.rebuilds.push(Rebuild {
            member: member as u32,
            next_row: 0,
            rows,
            started_ns: now,
            finished_ns: None,
            reads_left: 0,
            acc: 0,
            lpn: Lpn(u32::MAX),
            lost: None,
            row_started_ns: now,
        });
        if self
            .fail
            .rebuilds
            .iter()
            .filter(|b| b.finished_ns.is_none())
            .count()
            == 1
        {
            let k = self.fail.rebuilds.len() - 1;
            self.rebuild_row(k);
        }
    }

    /// The rebuild that is running, if any.
    fn active_rebuild(&self) -> Option<usize> {
        self.fail
            .rebuilds
            .iter()
            .position(|b| b.finished_ns.is_none())
    }

    /// Rebuilds the next row of rebuild `k` that has a page on a dead chip.
    pub(super) fn rebuild_row(&mut self, k: usize) {
        loop {
            let b = self.fail.rebuilds[k];
            if b.finished_ns.is_some() {
                return; // stopped: its spare died
            }
            if b.next_row >= b.rows {
                self.fail.rebuilds[k].finished_ns = Some(self.now().as_ns());
                if let Some(n) = self.active_rebuild() {
                    self.rebuild_row(n);
                }
                return;
            }
            let row = b.next_row;
            self.fail.rebuilds[k].next_row += 1;
            let Some(lpn) = self.raid_lpn_of_member(row, b.member) else {
                continue;
            };
            match self.ftl.lookup(lpn) {
                // Rewritten onto the spare since the failure.
                Some(ppn) if !self.fail.is_dead(self.geom.chip_of_page(ppn)) => continue,
                Some(_) => {}
                // A parity page never written because its chip was dead when its stripe
                // was first filled: rebuild it from the data; other pages: nothing.
                None if !self.is_parity_lpn(lpn) => continue,
                None => {}
            }
            let mut sources = Vec::new();
            if !self.raid_sources(lpn, &mut sources) {
                // The stripe is busy (a parity update in flight) or has lost a second
                // member: try this row again a little later, or give up on it.
                if self.raid_stripe_busy(lpn) {
                    self.fail.rebuilds[k].next_row = row;
                    self.fail.counters.rebuild_deferrals += 1;
                    let wait =
                        ssdlab_engine::SimDuration(self.cfg.raid.encode_timeout_ns.max(1_000));
                    let at = self.now() + wait;
                    self.events
                        .schedule(at, Event::RebuildStep(k as u32))
                        .expect("future");
                    return;
                }
                continue;
            }
            let now = self.now().as_ns();
            if sources.is_empty() {
                continue; // nothing was ever written to this stripe: nothing to rebuild
            }
            let lost = self.ftl.lookup(lpn);
            let rb = &mut self.fail.rebuilds[k];
            rb.lpn = lpn;
            rb.lost = lost;
            rb.acc = 0;
            rb.reads_left = sources.len() as u32;
            rb.row_started_ns = now;
            for &p in &sources {
                self.ftl.pin(p);
                self.rebuild_txn(FlashOp::Read, p, lpn, k as u32);
            }
            return;
        }
    }

    fn rebuild_txn(&mut self, op: FlashOp, ppn: Ppn, lpn: Lpn, k: u32) -> TxnId {
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(op, TxnReason::Rebuild, ppn, die, lpn, NONE);
        t.aux = k;
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.die_gc_ns[die.idx()];
        let chip = self.geom.chip_of_die(die);
        let id = self.txns.insert(t);
        self.queues.load[chip.idx()] += 1;
        self.sched.submit_background(id, &mut sched_ctx!(self));
        id
    }

    /// A rebuild read or program finished.
    pub(super) fn rebuild_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        let k = txn.aux as usize;
        match txn.op {
            FlashOp::Read => {
                let token = self.ftl.token(txn.ppn);
                self.ftl.unpin(txn.ppn);
                self.gc_page_released(txn.ppn);
                let rb = &mut self.fail.rebuilds[k];
                rb.acc ^= token;
                rb.reads_left -= 1;
                if rb.reads_left > 0 {
                    return;
                }
                let (lpn, token, lost, stopped) =
                    (rb.lpn, rb.acc, rb.lost, rb.finished_ns.is_some());
                // The page may have been rewritten while its sources were read: only the
                // version whose loss started this row may be replaced.
                let still_lost = !stopped && self.ftl.lookup(lpn) == lost;
                let plane = self.raid_static_plane(lpn);
                match still_lost
                    .then(|| self.ftl.host_write(lpn, plane, token).ok())
                    .flatten()
                {
                    Some(ppn) => {
                        self.rebuild_txn(FlashOp::Program, ppn, lpn, k as u32);
                        self.gc_check.push(plane);
                    }
                    None => self.rebuild_paced_next(k),
                }
            }
            FlashOp::Program => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
                self.fail.counters.rebuilt_pages += 1;
                self.rebuild_paced_next(k);
            }
            FlashOp::Erase => unreachable!("rebuild never erases"),
        }
    }

    /// Starts the next row no sooner than the rebuild rate allows.
    fn rebuild_paced_next(&mut self, k: usize) {
        let page = f64::from(self.geom.page_size_bytes);
        let rate = self.cfg.raid.rebuild_rate_mib_s * 1024.0 * 1024.0;
        let interval_ns = (page / rate * 1e9) as u64;
        let earliest = self.fail.rebuilds[k].row_started_ns + interval_ns;
        let at = ssdlab_engine::SimTime(earliest.max(self.now().as_ns()));
        self.events
            .schedule(at, Event::RebuildStep(k as u32))
            .expect("not in the past");
    }

    /// Failure counters and rebuild progress for the report.
    pub(super) fn fail_counters(&self) -> Vec<(&'static str, u64)> {
        if self.fail.pending.is_empty() {
            return Vec::new();
        }
        let c = self.fail.counters;
        let rows: u64 = self.fail.rebuilds.iter().map(|b| b.rows).sum();
        let done: u64 = self
            .fail
            .rebuilds
            .iter()
            .map(|b| b.next_row.min(b.rows))
            .sum();
        let finished = self
            .fail
            .rebuilds
            .iter()
            .filter_map(|b| b.finished_ns.map(|f| f - b.started_ns));
        let mean =
            |i: usize| (c.phase_response_ns[i] / u128::from(c.phase_requests[i].max(1))) as u64;
        vec![
            ("failures", c.failures),
            ("mean-response-ns-before-failure", mean(0)),
            ("mean-response-ns-during-rebuild", mean(1)),
            ("mean-response-ns-after-failure", mean(2)),
            (ssdlab_stats::counter::DEGRADED_READS, c.degraded_reads),
            ("degraded-writes", c.degraded_writes),
            ("unrecoverable-reads", c.unrecoverable_reads),
            ("lost-writes", c.lost_writes),
            ("unrecoverable-pages", self.unrecoverable_pages()),
            ("rebuilt-pages", c.rebuilt_pages),
            ("rebuild-rows-done", done),
            ("rebuild-rows-total", rows),
            ("rebuild-deferrals", c.rebuild_deferrals),
            ("rebuild-time-ns", finished.max().unwrap_or(0)),
        ]
    }

    /// Host pages that no read can recover: on a dead chip, and not recoverable from
    /// their stripe or mirror.
    pub(super) fn unrecoverable_pages(&self) -> u64 {
        if !self.fail.any_dead {
            return 0;
        }
        let mut lost = 0;
        let mut sources = Vec::new();
        for lpn in 0..self.logical_pages as u32 {
            let Some(p) = self.ftl.lookup(Lpn(lpn)) else {
                continue;
            };
            if !self.fail.is_dead(self.geom.chip_of_page(p)) {
                continue;
            }
            let recoverable = self.raid.as_ref().is_some_and(|r| r.level.is_redundant())
                && self.raid_sources_ignoring_busy(Lpn(lpn), &mut sources);
            if !recoverable {
                lost += 1;
            }
        }
        lost
    }
}

impl Simulation {
    /// True for the FTL LPN of a RAID-4/5 parity page.
    fn is_parity_lpn(&self, lpn: Lpn) -> bool {
        self.raid
            .as_ref()
            .is_some_and(|r| r.level.has_parity() && u64::from(lpn.0) >= r.host_pages)
    }

    /// The RAID state, mutably, for sibling modules.
    pub(super) fn raid_mut_pub(&mut self) -> &mut super::raid::RaidState {
        self.raid.as_mut().expect("RAID is configured")
    }

    /// True when `lpn` lives on a dead chip.
    #[inline]
    pub(super) fn on_dead_chip(&self, ppn: Ppn) -> bool {
        self.fail.any_dead && self.fail.dead[self.geom.chip_of_page(ppn).idx()]
    }
}

impl Simulation {
    /// Files a completed request's response time under the failure phase it ended in.
    #[inline]
    pub(super) fn note_response_phase(&mut self, response_ns: u64) {
        if self.fail.pending.is_empty() {
            return;
        }
        let phase = if !self.fail.any_dead {
            0
        } else if self.fail.rebuilds.iter().any(|b| b.finished_ns.is_none()) {
            1
        } else {
            2
        };
        self.fail.counters.phase_response_ns[phase] += u128::from(response_ns);
        self.fail.counters.phase_requests[phase] += 1;
    }

    /// True when `plane` belongs to a dead chip.
    #[inline]
    pub(super) fn plane_dead(&self, plane: ssdlab_nand::PlaneId) -> bool {
        self.fail.any_dead
            && self
                .fail
                .is_dead(self.geom.chip_of_die(self.geom.die_of_plane(plane)))
    }

    /// A host read of a page on a dead chip.
    pub(super) fn degraded_read(
        &mut self,
        id: super::txn::ReqId,
        lpn: Lpn,
        expect: u64,
    ) -> super::host::ReadOutcome {
        self.fail.counters.degraded_reads += 1;
        self.serve_degraded(id, lpn, expect)
    }

    fn serve_degraded(
        &mut self,
        id: super::txn::ReqId,
        lpn: Lpn,
        expect: u64,
    ) -> super::host::ReadOutcome {
        use super::host::ReadOutcome;
        let redundant = self.raid.as_ref().is_some_and(|r| r.level.is_redundant());
        if redundant {
            if self.reconstruct_read(id, lpn, expect) {
                return ReadOutcome::Deferred;
            }
            if self.raid_stripe_busy(lpn) || self.raid_recoverable_later(lpn) {
                // The stripe is settling (parity update, buffer, pages in flight).
                let i = match self.degraded_free.pop() {
                    Some(i) => {
                        self.degraded_wait[i as usize] = (id, lpn, expect);
                        i
                    }
                    None => {
                        self.degraded_wait.push((id, lpn, expect));
                        (self.degraded_wait.len() - 1) as u32
                    }
                };
                let wait = ssdlab_engine::SimDuration(self.t_read.as_ns().max(1_000));
                self.events.schedule_in(wait, Event::DegradedRetry(i));
                return ReadOutcome::Deferred;
            }
        }
        self.fail.counters.unrecoverable_reads += 1;
        ReadOutcome::Done
    }

    /// A degraded read that waited tries again; it returns the content current now.
    pub(super) fn retry_degraded(&mut self, i: u32) {
        let (id, lpn, _) = self.degraded_wait[i as usize];
        self.degraded_free.push(i);
        let expect = if self.cfg.verify {
            self.shadow[lpn.idx()]
        } else {
            0
        };
        if let super::host::ReadOutcome::Done = self.serve_degraded(id, lpn, expect) {
            self.sub_done(id, 0, 0);
        }
        self.run_gc_checks();
    }

    /// A write whose page lives on a dead chip: nothing is programmed. The FTL records
    /// the page as being on the dead member (its data is gone), so reads of it are
    /// degraded; RAID-4/5 parity already carries its content, RAID-1 the other copy.
    pub(super) fn dead_write(&mut self, lpn: Lpn, token: u64, reason: TxnReason) {
        let plane = self.raid_static_plane_or_placement(lpn);
        match self.ftl.host_write(lpn, plane, token) {
            Ok(p) => self.ftl.program_done(p),
            Err(_) => {
                // The dead plane has no room to record the page. If the current version
                // lives on a live chip (DGC moved it), it is stale now: unmap it; the
                // content exists only through redundancy.
                // The same holds for a page never written before.
                let old = self.ftl.lookup(lpn);
                if old.is_none_or(|p| !self.on_dead_chip(p)) {
                    if old.is_some() {
                        self.ftl.trim(lpn);
                    }
                    self.redundant_only.insert(lpn.0);
                }
            }
        }
        if self.raid.as_ref().is_some_and(|r| r.level.is_redundant()) {
            self.fail.counters.degraded_writes += 1;
        } else {
            self.fail.counters.lost_writes += 1;
        }
        if reason == TxnReason::HostWrite {
            self.counters.host_pages_programmed += 1;
            if self.cfg.verify {
                self.shadow[lpn.idx()] = token;
            }
        }
        self.admit_done_now += 1;
    }

    /// The plane a page of `lpn` belongs to by layout (RAID) or static order.
    fn raid_static_plane_or_placement(&self, lpn: Lpn) -> ssdlab_nand::PlaneId {
        match self.raid.as_ref() {
            Some(r) => r.static_plane(&self.geom, lpn),
            None => self.cfg.ftl.static_order.plane_of(lpn, &self.geom),
        }
    }
}
