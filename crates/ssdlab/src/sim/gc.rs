//! Garbage collection as flash traffic (docs/ARCHITECTURE.md §11).
//!
//! A plane whose free blocks fall below the threshold gets one GC job at a time: the FTL
//! picks a victim, every valid page becomes a GC read followed (once the read is done)
//! by a GC program into the same plane, and the erase is issued when the last move is
//! done and no host read still holds a page of the victim. GC transactions go through
//! the same scheduler and chip queues as host traffic and are counted apart.
//!
//! Host writes that find no free page in their plane are parked and placed again after
//! the next erase in that plane (foreground GC stalls the writes that need it).

use super::gc_trigger::{GcCause, GcKind};
use super::txn::{ReqId, Txn, TxnId, NONE};
use super::Simulation;
use crate::device::{GcJob, Relocation};
use ssdlab_nand::{BlockId, DieId, FlashOp, Lpn, PlaneId, Ppn, TxnReason};

/// A write waiting for space: a host page (or its mirror) of request `req`, or the
/// parity page of RAID stripe job `job`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parked {
    pub req: ReqId,
    pub lpn: Lpn,
    pub token: u64,
    pub reason: TxnReason,
    pub job: u32,
    /// Park order; a page superseded by a newer write while waiting is dropped.
    pub seq: u64,
}

impl Simulation {
    /// Starts a GC job in `plane` if it needs one (or, with `background`, wants one).
    /// A plane that needs GC starts it now only if the trigger allows
    /// ([`Simulation::gc_may_start_now`]).
    pub(super) fn maybe_start_gc(&mut self, plane: PlaneId, background: bool) {
        if self.gc_jobs[plane.idx()].active() {
            if self.gc_jobs[plane.idx()].fold {
                // A paused idle fold resumes when its plane needs the space.
                self.fold_release(plane);
            }
            return;
        }
        if self.plane_dead(plane) {
            return;
        }
        let needed = self.ftl.gc_needed(plane);
        let kind = if background {
            (needed || self.ftl.bg_gc_wanted(plane)).then_some(GcKind::Background)
        } else {
            (needed && self.gc_may_start_now(plane)).then_some(GcKind::Foreground)
        };
        if kind.is_some_and(|k| !self.start_gc(plane, k)) && needed {
            // No victim: under CR5M, expired pages may be what fills the plane.
            self.cr5m_pressure(plane);
            self.starve(plane);
        }
    }

    /// Starts a GC job of `kind` in `plane` (no job running there, plane alive) on the
    /// victim the FTL chooses; false if there is none. With the lazy trigger a
    /// foreground job blocks its die (see `gc_trigger`).
    pub(super) fn start_gc(&mut self, plane: PlaneId, kind: GcKind) -> bool {
        debug_assert!(!self.gc_jobs[plane.idx()].active() && !self.plane_dead(plane));
        let Some(block) = self.ftl.select_victim(plane) else {
            return false;
        };
        // Idle-time GC of a plane already below the threshold counts as foreground.
        let counted = match kind {
            GcKind::Background if self.ftl.gc_needed(plane) => GcKind::Foreground,
            k => k,
        };
        if self.ftl.slc_on() && self.ftl.is_slc_block(block) {
            // A fold: counted by the SLC cache, not as a GC start.
            self.counters.idle_folds += u64::from(kind == GcKind::Background);
            self.gc_cause[plane.idx()] = GcCause::None;
        } else {
            if counted == GcKind::Background {
                self.counters.background_gc_runs += 1;
            }
            self.note_gc_start(plane, counted);
        }
        self.gc_blocking[plane.idx()] = kind == GcKind::Foreground && self.gc_lazy();
        self.launch_collector(plane, block, kind == GcKind::Background, Relocation::No);
        true
    }

    /// Starts `plane`'s job on `block`, which the FTL has marked its victim: every valid
    /// page a read then a program, the erase once erasable. A relocation (`reloc`)
    /// moves the block's data for its bit errors, its age or its retirement (each with
    /// its own transaction reasons).
    pub(super) fn launch_collector(
        &mut self,
        plane: PlaneId,
        block: BlockId,
        idle: bool,
        reloc: Relocation,
    ) {
        let mut pages = std::mem::take(&mut self.gc_pages);
        self.ftl.victim_valid_pages(block, &mut pages);
        let fold = self.ftl.is_slc_block(block);
        self.gc_jobs[plane.idx()] = GcJob {
            block,
            moves_left: pages.len() as u32,
            erasing: false,
            fold,
            reloc,
        };
        if let Some(pace) = self.fold_pace.as_deref_mut().filter(|_| fold) {
            // A fold hands out its moves a few wordlines at a time (sim::fold).
            pace.start(plane, &pages, idle);
            self.gc_pages = pages;
            self.fold_release(plane);
            self.try_erase(plane);
            return;
        }
        let die = self.geom.die_of_plane(plane);
        let read = self.gc_jobs[plane.idx()].reasons()[0];
        for &(src, lpn) in &pages {
            let t = Txn::new(FlashOp::Read, read, src, die, lpn, NONE);
            self.submit_background(t);
        }
        self.gc_pages = pages;
        self.try_erase(plane);
    }

    /// Hands a GC transaction to its die (a blocking job's) or to the scheduler.
    pub(super) fn submit_background(&mut self, mut t: Txn) -> TxnId {
        t.enqueued_ns = self.now().as_ns();
        let chip = self.geom.chip_of_die(t.die);
        let id = self.txns.insert(t);
        self.queues.load[chip.idx()] += 1;
        if !self.gc_direct(id) {
            sched!(self, |s, ctx| s.submit_background(id, ctx));
        }
        id
    }

    /// Issues the victim's erase once it is erasable.
    fn try_erase(&mut self, plane: PlaneId) {
        let job = self.gc_jobs[plane.idx()];
        if !job.active() || job.erasing || job.moves_left > 0 {
            return;
        }
        if !self.ftl.erasable(job.block) {
            self.raid_read_pinned_early(job.block);
            return;
        }
        self.gc_jobs[plane.idx()].erasing = true;
        let first = self.geom.page_of_block(job.block, 0);
        let die = self.geom.die_of_plane(plane);
        let t = Txn::new(
            FlashOp::Erase,
            job.reasons()[2],
            first,
            die,
            Lpn(u32::MAX),
            NONE,
        );
        self.submit_background(t);
    }

    /// A host read or program on `ppn` finished: if its block is a victim waiting for
    /// outstanding reads or programs, it may be erasable now.
    pub(super) fn gc_page_released(&mut self, ppn: Ppn) {
        let plane = self.geom.plane_of_page(ppn);
        if self.gc_jobs[plane.idx()].block == self.geom.block_of_page(ppn) {
            self.try_erase(plane);
        }
    }

    /// A GC transaction finished.
    pub(super) fn gc_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        self.dies[txn.die.idx()].gc_ns += self.now().as_ns() - txn.started_ns;
        let plane = self.geom.plane_of_page(txn.ppn);
        match txn.reason {
            TxnReason::GcRead
            | TxnReason::FoldRead
            | TxnReason::RefreshRead
            | TxnReason::RetireRead => {
                // A victim may hold pages whose program was still queued when it was
                // chosen; the die serves that program before the GC read (GC starts only
                // after the writing request's transactions are queued, and both sit in
                // the die's queue in order), so the read sees programmed data.
                debug_assert!(
                    !self.ftl.is_pending(txn.ppn),
                    "GC read of page {} finished before its program",
                    txn.ppn
                );
                self.gc_read_done(&txn, plane);
            }
            TxnReason::GcWrite
            | TxnReason::FoldWrite
            | TxnReason::RefreshWrite
            | TxnReason::RetireWrite => {
                if self.ftl.gc_finish_move(Ppn(txn.aux), txn.ppn) && self.cmt.is_some() {
                    self.cmt_after_move(txn.lpn);
                }
                match txn.reason {
                    TxnReason::FoldWrite => self.fold_write_done(plane),
                    _ => self.move_finished(plane),
                }
            }
            TxnReason::GcErase
            | TxnReason::FoldErase
            | TxnReason::RefreshErase
            | TxnReason::RetireErase => {
                let block = self.geom.block_of_page(txn.ppn);
                self.ftl.erase_done(block);
                self.gc_jobs[plane.idx()] = GcJob::none();
                self.gc_blocking[plane.idx()] = false;
                self.note_gc_erased(plane);
                if self.cmt.is_some() {
                    self.cmt_unpark();
                }
                self.unpark(plane);
                self.maybe_start_gc(plane, false);
                self.revive_starved();
                for k in 0..self.starved.len() {
                    if let Some(&p) = self.starved.get(k) {
                        self.replace_parked(p);
                    }
                }
            }
            r => unreachable!("{r:?} is not GC traffic"),
        }
    }

    /// A GC read finished: the move continues with its program, unless the page was
    /// overwritten meanwhile.
    fn gc_read_done(&mut self, txn: &Txn, plane: PlaneId) {
        let dst = self.ftl.gc_begin_move(txn.ppn);
        if txn.reason == TxnReason::FoldRead {
            if let Some(pace) = self.fold_pace.as_deref_mut() {
                pace.read_done(plane, dst.map(|d| self.geom.page_in_block(d)));
            }
        }
        match dst {
            Some(dst) => {
                let mut w = Txn::new(
                    FlashOp::Program,
                    TxnReason::collector_of(txn.reason)[1],
                    dst,
                    txn.die,
                    txn.lpn,
                    NONE,
                );
                w.aux = txn.ppn.0;
                self.submit_background(w);
            }
            None => self.move_finished(plane),
        }
        if txn.reason == TxnReason::FoldRead {
            self.fold_release(plane);
        }
    }

    pub(super) fn move_finished(&mut self, plane: PlaneId) {
        let job = &mut self.gc_jobs[plane.idx()];
        debug_assert!(job.moves_left > 0);
        job.moves_left -= 1;
        self.try_erase(plane);
    }

    /// Parks a host (or mirror) write that found no space in `plane`. Until it is placed
    /// the controller holds its content: reads are served from it (buffer hits) and a
    /// newer write of the same page supersedes it.
    pub(super) fn park(
        &mut self,
        req: ReqId,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
        reason: TxnReason,
    ) {
        self.counters.parked_writes += 1;
        self.park_seq += 1;
        let seq = self.park_seq;
        if self.held.insert(lpn.0, (seq, token)).is_none() {
            self.raid_note_held(lpn, true);
        }
        if reason == TxnReason::HostWrite {
            self.note_written(lpn, token);
        }
        self.parked[plane.idx()].push(Parked {
            req,
            lpn,
            token,
            reason,
            job: NONE,
            seq,
        });
        if self.gc_jobs[plane.idx()].fold {
            // An idle fold held for the host is what this write waits for (its plane's
            // SLC region is full): it goes on now (`fold_release` holds no plane with a
            // parked write).
            self.fold_release(plane);
        }
    }

    /// Places parked writes of `plane` again, in the order they were parked.
    fn unpark(&mut self, plane: PlaneId) {
        if self.parked[plane.idx()].is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut self.parked[plane.idx()]);
        let mut still = Vec::new();
        for p in waiting {
            if !still.is_empty() {
                still.push(p);
                continue;
            }
            if p.job != NONE {
                if !self.unpark_parity(p.job, p.lpn, plane, p.token) {
                    still.push(p);
                }
                continue;
            }
            if self.drop_if_superseded(&p) {
                continue;
            }
            if !self.requeue_parked(&p, plane) {
                still.push(p);
            }
        }
        self.keep_parked(plane, still);
        self.maybe_start_gc(plane, false);
    }

    /// Parked write `p` was superseded by a newer write of its page while it waited:
    /// its part of the request is done with nothing to program. False if it is current.
    pub(super) fn drop_if_superseded(&mut self, p: &Parked) -> bool {
        if self.held.get(&p.lpn.0).map(|h| h.0) == Some(p.seq) {
            return false;
        }
        self.sub_done(p.req, 0, 0);
        true
    }

    /// Makes `still` the writes parked on `plane`. Completing a superseded write can
    /// admit new requests that park there meanwhile: they queue behind `still`.
    pub(super) fn keep_parked(&mut self, plane: PlaneId, mut still: Vec<Parked>) {
        let newly = std::mem::take(&mut self.parked[plane.idx()]);
        still.extend(newly);
        self.parked[plane.idx()] = still;
    }

    /// Places parked host (or mirror) write `p` in `plane` and hands its program to the
    /// scheduler; false if the plane still has no free page.
    pub(in crate::sim) fn requeue_parked(&mut self, p: &Parked, plane: PlaneId) -> bool {
        let Some(t) = self.place_write(p.req, p.lpn, plane, p.token, p.reason) else {
            return false;
        };
        let chip = self.geom.chip_of_die(self.txns[t].die);
        self.queues.load[chip.idx()] += 1;
        self.reqs[p.req].flash_txns += 1;
        sched!(self, |s, ctx| s.submit_request(p.req, &[t], ctx));
        true
    }

    /// A die found nothing to do: with background GC on, its planes may collect now;
    /// with the SLC cache folding when idle and no host request outstanding, they may
    /// fold.
    #[inline]
    pub(super) fn on_die_idle(&mut self, die: DieId) {
        if self.dgc.is_some() || self.cfg.ftl.gc.background || self.ftl.slc_on() {
            self.on_die_idle_work(die);
        }
    }

    /// [`Simulation::on_die_idle`] when something may run in idle time.
    #[inline(never)]
    fn on_die_idle_work(&mut self, die: DieId) {
        let chip = self.queues.home(die).0;
        if self.queues.load[chip.idx()] > 0 {
            return;
        }
        if self.dgc.is_some() {
            self.dgc_on_idle(chip);
        }
        // Folding waits for the host to be idle too: gaps inside a burst do not fold.
        let now = self.now().as_ns();
        let fold = self
            .fold_pace
            .as_deref()
            .is_some_and(|p| p.host_idle_long(self.outstanding, now));
        if !self.cfg.ftl.gc.background && !fold {
            return;
        }
        for n in 0..self.geom.planes_per_die {
            let plane = self.geom.plane_of_die(die, n);
            if self.cfg.ftl.gc.background {
                self.maybe_start_gc(plane, true);
            }
            if fold
                && !self.gc_jobs[plane.idx()].active()
                && self.ftl.slc_idle_fold_wanted(plane)
                && !self.plane_dead(plane)
            {
                self.start_gc(plane, GcKind::Background);
            }
        }
    }
}

impl Simulation {
    /// Runs the GC checks collected while queueing work.
    pub(super) fn run_gc_checks(&mut self) {
        let mut planes = std::mem::take(&mut self.gc_check);
        for &plane in &planes {
            // A plane that does not need GC starts none (the test maybe_start_gc
            // makes last, made first).
            if self.ftl.gc_needed(plane) {
                self.maybe_start_gc(plane, false);
            }
        }
        planes.clear();
        self.gc_check = planes;
        if !self.starved.is_empty() {
            self.revive_starved();
        }
        if self.dgc.is_some() {
            self.dgc_collect_idle_spared();
        }
    }
}
