//! The host side and the controller's request path: arrivals, the device queue,
//! translation and allocation of each page, and request completion (ARCHITECTURE §4).

use super::raid::StripeWrite;
use super::txn::{ReqId, Txn, TxnId, NONE};
use super::{Event, Simulation};
use crate::config::{HostMode, UnwrittenReads};
use crate::error::SimError;
use ssdlab_ftl::{token_for, AddressFold};
use ssdlab_nand::{FlashOp, Lpn, PlaneId, Ppn, TxnReason};
use ssdlab_stats::{EndState, OpClass, RequestRecord};
use ssdlab_trace::{page_token, IoRequest, Op, MAX_ARRIVAL_NS};

/// What admitting one read page produced.
pub(crate) enum ReadOutcome {
    /// A flash read to queue with the request.
    Txn(TxnId),
    /// Nothing to wait for (buffer hit, zero read).
    Done,
    /// Another mechanism (reconstruction) completes the page later.
    Deferred,
}

/// One host request in the device.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Req {
    pub id: u64,
    pub io: IoRequest,
    pub arrival_ns: u64,
    pub admitted_ns: u64,
    pub first_lpn: u64,
    pub pages: u32,
    pub pending: u32,
    pub service_ns: u64,
    pub gc_wait_ns: u64,
    pub flash_txns: u32,
    pub buffer_hits: u32,
}

/// Slab of in-flight requests.
#[derive(Default)]
pub(crate) struct ReqSlab {
    slots: Vec<Req>,
    free: Vec<ReqId>,
}

impl ReqSlab {
    fn insert(&mut self, r: Req) -> ReqId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = r;
            id
        } else {
            self.slots.push(r);
            (self.slots.len() - 1) as ReqId
        }
    }
    fn remove(&mut self, id: ReqId) {
        self.free.push(id);
    }
}

impl std::ops::Index<ReqId> for ReqSlab {
    type Output = Req;
    fn index(&self, id: ReqId) -> &Req {
        &self.slots[id as usize]
    }
}
impl std::ops::IndexMut<ReqId> for ReqSlab {
    fn index_mut(&mut self, id: ReqId) -> &mut Req {
        &mut self.slots[id as usize]
    }
}

impl Simulation {
    /// Pulls the next request from the source; a trace error stops the run.
    fn pull(&mut self) -> Option<IoRequest> {
        if self.source_done {
            return None;
        }
        match self.source.next() {
            Some(Ok(io)) => {
                self.counters.trace_requests += 1;
                Some(io)
            }
            Some(Err(e)) => {
                self.source_done = true;
                self.error = Some(SimError::Trace(e));
                None
            }
            None => {
                self.source_done = true;
                None
            }
        }
    }

    /// Puts the first requests in motion (called when the event queue is empty).
    pub(super) fn prime(&mut self) -> Result<(), SimError> {
        self.check_fail_fractions()?;
        match self.cfg.host.mode {
            HostMode::Open => self.schedule_next_arrival(),
            HostMode::Closed => {
                for _ in 0..self.cfg.host.queue_depth {
                    let Some(io) = self.pull() else { break };
                    self.arrive(io);
                }
                self.wake_touched();
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn schedule_next_arrival(&mut self) {
        if let Some(io) = self.pull() {
            let scale = self.cfg.host.time_scale;
            let at = if scale == 1.0 {
                io.arrival_ns as f64
            } else {
                io.arrival_ns as f64 * scale
            };
            if at > MAX_ARRIVAL_NS as f64 {
                self.error = Some(SimError::TimeOverflow {
                    request: self.counters.trace_requests - 1,
                    arrival_ns: io.arrival_ns,
                    time_scale: scale,
                });
                self.source_done = true;
                return;
            }
            let at = if scale == 1.0 {
                io.arrival_ns
            } else {
                at as u64
            };
            self.lookahead = Some(io);
            let at = ssdlab_engine::SimTime(at.max(self.now().as_ns()));
            self.events
                .schedule(at, Event::Arrival)
                .expect("never in the past");
        }
    }

    /// The open-loop arrival event.
    pub(super) fn on_arrival(&mut self) {
        let io = self.lookahead.take().expect("an arrival has its request");
        self.arrive(io);
        self.schedule_next_arrival();
    }

    /// A request reaches the device: it is admitted or waits for a device-queue slot.
    fn arrive(&mut self, io: IoRequest) {
        self.fail_on_arrival(self.next_id);
        self.rec.sample_utilization(self.busy_chips);
        let page = u64::from(self.geom.page_size_bytes);
        let first = io.offset_bytes / page;
        let last = (io.offset_bytes + io.size_bytes - 1) / page;
        let now = self.now().as_ns();
        let req = Req {
            id: self.next_id,
            io,
            arrival_ns: now,
            admitted_ns: now,
            first_lpn: first,
            pages: (last - first + 1) as u32,
            pending: 0,
            service_ns: 0,
            gc_wait_ns: 0,
            flash_txns: 0,
            buffer_hits: 0,
        };
        self.next_id += 1;
        let id = self.reqs.insert(req);
        if self.outstanding < self.cfg.host.device_queue_depth {
            self.admit(id);
        } else {
            self.host_queue.push_back(id);
        }
    }

    fn fold(&mut self, lpn: u64, io: &IoRequest) -> Option<Lpn> {
        if lpn < self.logical_pages {
            return Some(Lpn(lpn as u32));
        }
        match self.cfg.ftl.address_fold {
            AddressFold::Modulo => Some(Lpn((lpn % self.logical_pages) as u32)),
            AddressFold::Error => {
                self.error = Some(SimError::AddressOutOfRange {
                    offset_bytes: io.offset_bytes,
                    size_bytes: io.size_bytes,
                    capacity_bytes: self.logical_pages * u64::from(self.geom.page_size_bytes),
                });
                None
            }
        }
    }

    /// Translates and allocates every page of request `id` and hands its transactions
    /// to the scheduler.
    fn admit(&mut self, id: ReqId) {
        self.outstanding += 1;
        let now = self.now().as_ns();
        let r = self.reqs[id];
        self.reqs[id].admitted_ns = now;
        self.reqs[id].pending = r.pages;
        let mut txns = std::mem::take(&mut self.scratch);
        txns.clear();
        let mut done_now = 0u32;
        self.admit_done_now = 0;
        let striped = self.raid.as_ref().is_some_and(|x| x.level.has_parity());
        let mut stripe_writes = std::mem::take(&mut self.stripe_writes);
        for i in 0..r.pages {
            let Some(lpn) = self.fold(r.first_lpn + u64::from(i), &r.io) else {
                done_now += 1;
                continue;
            };
            match r.io.op {
                Op::Read => match self.admit_read(id, lpn) {
                    ReadOutcome::Txn(t) => txns.push(t),
                    ReadOutcome::Done => done_now += 1,
                    ReadOutcome::Deferred => {}
                },
                Op::Write => {
                    let token = self.write_token(lpn, r.io.content.map(|s| page_token(s, i)));
                    if striped {
                        let x = self.raid.as_ref().expect("striped");
                        let c = x.layout.locate(u64::from(lpn.0));
                        let stripe = x.stripe_of(&c);
                        stripe_writes.push(StripeWrite {
                            stripe,
                            pos: c.pos,
                            lpn,
                            token,
                            chunk: c,
                        });
                    } else {
                        self.admit_write(id, lpn, token, &mut txns);
                    }
                }
            }
        }
        if !stripe_writes.is_empty() {
            self.raid_admit_writes(id, &mut stripe_writes, &mut txns);
        }
        self.stripe_writes = stripe_writes;
        let n = txns.len() as u32;
        self.reqs[id].flash_txns += n;
        if n > 0 {
            for &t in &txns {
                let chip = self.geom.chip_of_die(self.txns[t].die);
                self.queues.load[chip.idx()] += 1;
                self.dgc_arrival(chip);
            }
            self.sched.submit_request(id, &txns, &mut sched_ctx!(self));
        }
        self.scratch = txns;
        // GC starts only now, behind this request's transactions: a victim may hold
        // pages this request just allocated, and their programs must come first.
        self.run_gc_checks();
        done_now += std::mem::take(&mut self.admit_done_now);
        for _ in 0..done_now {
            self.sub_done(id, 0, 0);
        }
    }

    /// A read page: a flash read, an answer from the write buffer, or (RAID) a
    /// reconstruction from the page's parity group.
    fn admit_read(&mut self, id: ReqId, lpn: Lpn) -> ReadOutcome {
        if let Some(&(_, token)) = self.held_get(lpn) {
            // The page's newest content waits for space in the controller.
            self.counters.buffer_hits += 1;
            self.reqs[id].buffer_hits += 1;
            if self.cfg.verify {
                self.check_token(lpn, self.shadow[lpn.idx()], token);
            }
            return ReadOutcome::Done;
        }
        if !self.lost_lpns.is_empty() && self.lost_lpns.contains(&lpn.0) {
            self.fail.counters.unrecoverable_reads += 1;
            return ReadOutcome::Done;
        }
        if !self.redundant_only.is_empty() && self.redundant_only.contains(&lpn.0) {
            let expect = if self.cfg.verify {
                self.shadow[lpn.idx()]
            } else {
                0
            };
            return self.degraded_read(id, lpn, expect);
        }
        let ppn = match self.ftl.lookup(lpn) {
            Some(p) => p,
            None => match self.materialize(lpn) {
                Some(p) => p,
                None => return ReadOutcome::Done,
            },
        };
        let expect = if self.cfg.verify {
            self.shadow[lpn.idx()]
        } else {
            0
        };
        if self.ftl.is_pending(ppn) {
            self.counters.buffer_hits += 1;
            self.reqs[id].buffer_hits += 1;
            if self.cfg.verify {
                self.check_token(lpn, expect, self.ftl.token(ppn));
            }
            return ReadOutcome::Done;
        }
        if self.fail.any_dead && self.on_dead_chip(ppn) {
            return self.degraded_read(id, lpn, expect);
        }
        let mut ppn = ppn;
        if let Some(level) = self.raid.as_ref().map(|x| x.level) {
            match level {
                ssdlab_raid::RaidLevel::Raid1 => ppn = self.pick_mirror_copy(lpn, ppn),
                ssdlab_raid::RaidLevel::Raid4 | ssdlab_raid::RaidLevel::Raid5
                    if self.raid.as_ref().is_some_and(|x| x.force_reconstruct)
                        && self.reconstruct_read(id, lpn, expect) =>
                {
                    return ReadOutcome::Deferred;
                }
                _ => {}
            }
        }
        self.ftl.pin(ppn);
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(FlashOp::Read, TxnReason::HostRead, ppn, die, lpn, id);
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.die_gc_ns[die.idx()];
        t.expect = expect;
        ReadOutcome::Txn(self.txns.insert(t))
    }

    /// A never-written page that a read asks for (see `host.unwritten_reads`). Under
    /// RAID the whole stripe (or both copies) is materialized with its redundancy.
    fn materialize(&mut self, lpn: Lpn) -> Option<Ppn> {
        if self.cfg.host.unwritten_reads == UnwrittenReads::Zero {
            self.counters.zero_reads += 1;
            return None;
        }
        let placed = if self.raid.is_some() {
            self.raid_materialize(lpn)
        } else {
            let plane = self
                .placement
                .plane_for(lpn, &self.geom, &self.ftl, &self.queues.load);
            let token = token_for(lpn, 0);
            let ok = self.materialize_page(lpn, plane, token);
            if ok && self.cfg.verify {
                self.shadow[lpn.idx()] = token;
            }
            ok
        };
        if !placed {
            self.counters.zero_reads += 1;
            return None;
        }
        self.counters.materialized_reads += 1;
        self.ftl.lookup(lpn)
    }

    /// Writes `lpn` with `token` in zero time; false if its plane has no free page.
    pub(super) fn materialize_page(&mut self, lpn: Lpn, plane: PlaneId, token: u64) -> bool {
        match self.ftl.host_write(lpn, plane, token) {
            Ok(ppn) => {
                self.ftl.program_done(ppn);
                self.gc_check.push(plane);
                true
            }
            Err(_) => false,
        }
    }

    /// The content token of a host write of `lpn`.
    fn write_token(&mut self, lpn: Lpn, content: Option<u64>) -> u64 {
        self.write_seq = self.write_seq.wrapping_add(1);
        content.unwrap_or_else(|| token_for(lpn, self.write_seq))
    }

    /// A written page without parity: allocated now (with its RAID-1 mirror), or
    /// parked until GC frees space in its plane.
    fn admit_write(&mut self, id: ReqId, lpn: Lpn, token: u64, txns: &mut Vec<TxnId>) {
        let plane = match self.raid.as_ref() {
            Some(x) => self.chunk_plane(&x.layout.locate(u64::from(lpn.0))),
            None => self
                .placement
                .plane_for(lpn, &self.geom, &self.ftl, &self.queues.load),
        };
        self.write_or_park(id, lpn, plane, token, TxnReason::HostWrite, txns);
        if let Some(m) = self.raid.as_ref().and_then(|x| x.mirror_of(lpn)) {
            let (mlpn, chunk) = m;
            let mplane = self.chunk_plane(&chunk);
            self.reqs[id].pending += 1;
            self.write_or_park(id, mlpn, mplane, token, TxnReason::MirrorWrite, txns);
        }
    }

    pub(super) fn write_or_park(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
        reason: TxnReason,
        txns: &mut Vec<TxnId>,
    ) {
        if self.plane_dead(plane) {
            self.dead_write(lpn, token, reason);
        } else {
            match self.place_write(id, lpn, plane, token, reason) {
                Some(t) => txns.push(t),
                None => self.park(id, lpn, plane, token, reason),
            }
        }
        if self.gc_check.last() != Some(&plane) {
            self.gc_check.push(plane);
        }
    }

    /// Allocates `lpn` in `plane` and builds its program transaction.
    pub(super) fn place_write(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
        reason: TxnReason,
    ) -> Option<TxnId> {
        let ppn = self.ftl.host_write(lpn, plane, token).ok()?;
        // A version that waited for space is superseded by this one.
        if !self.held.is_empty() && self.held.remove(&lpn.0).is_some() {
            self.raid_note_held(lpn, false);
        }
        if !self.redundant_only.is_empty() {
            self.redundant_only.remove(&lpn.0);
        }
        if !self.lost_lpns.is_empty() {
            self.lost_lpns.remove(&lpn.0);
        }
        if reason == TxnReason::HostWrite {
            self.counters.host_pages_programmed += 1;
            if self.cfg.verify {
                self.shadow[lpn.idx()] = token;
            }
        } else if let Some(x) = self.raid.as_mut() {
            x.counters.mirror_writes += 1;
        }
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(FlashOp::Program, reason, ppn, die, lpn, id);
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.die_gc_ns[die.idx()];
        Some(self.txns.insert(t))
    }

    /// Compares a read's token with the one last written; a mismatch stops the run.
    pub(super) fn check_token(&mut self, lpn: Lpn, expected: u64, found: u64) {
        self.counters.verified_reads += 1;
        if expected != found && self.error.is_none() {
            self.error = Some(SimError::VerifyMismatch {
                lpn: lpn.0,
                expected,
                found,
                at_ns: self.now().as_ns(),
            });
        }
    }

    /// Fills the verify shadow from a preconditioned FTL.
    pub(super) fn seed_shadow_from_ftl(&mut self) {
        for lpn in 0..self.logical_pages as u32 {
            if let Some(ppn) = self.ftl.lookup(Lpn(lpn)) {
                self.shadow[lpn as usize] = self.ftl.token(ppn);
            }
        }
    }

    /// A host transaction finished (the FTL and verify bookkeeping is done by the caller).
    pub(super) fn host_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        debug_assert_ne!(txn.req, NONE);
        match txn.reason {
            TxnReason::HostRead => {
                self.ftl.unpin(txn.ppn);
                if self.cfg.verify {
                    let found = self.ftl.token(txn.ppn);
                    self.check_token(txn.lpn, txn.expect, found);
                }
                self.gc_page_released(txn.ppn);
            }
            TxnReason::HostWrite => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
            }
            r => unreachable!("{r:?} is not host traffic"),
        }
        self.sub_done(txn.req, txn.bus_ns + txn.array_ns, txn.gc_mark_ns);
    }

    /// One page of request `id` is done; `service_ns` is its bus + array time and
    /// `gc_wait_ns` the GC time its die spent while it was queued.
    pub(super) fn sub_done(&mut self, id: ReqId, service_ns: u64, gc_wait_ns: u64) {
        let r = &mut self.reqs[id];
        debug_assert!(r.pending > 0);
        r.pending -= 1;
        r.service_ns = service_ns;
        r.gc_wait_ns = gc_wait_ns;
        if r.pending == 0 {
            self.finish_request(id);
        }
    }

    fn finish_request(&mut self, id: ReqId) {
        let now = self.now().as_ns();
        let r = self.reqs[id];
        let op = match r.io.op {
            Op::Read => OpClass::Read,
            Op::Write => OpClass::Write,
        };
        self.rec.gc_wait(op, r.gc_wait_ns);
        self.note_response_phase(now - r.arrival_ns);
        self.rec.request_done(&RequestRecord {
            id: r.id,
            op,
            offset_bytes: r.io.offset_bytes,
            size_bytes: r.io.size_bytes,
            arrival_ns: r.arrival_ns,
            admitted_ns: r.admitted_ns,
            completion_ns: now,
            service_ns: r.service_ns,
            pages: r.pages,
            flash_reads: r.flash_txns,
            buffer_hits: r.buffer_hits,
        });
        self.reqs.remove(id);
        self.outstanding -= 1;
        self.completed += 1;
        self.last_completion_ns = now;
        if self.completed & 0x3fff == 0 {
            if let Some(p) = self.progress.as_mut() {
                p(self.completed);
            }
        }
        if self.cfg.host.mode == HostMode::Closed {
            if let Some(io) = self.pull() {
                self.arrive(io);
            }
        }
        while self.outstanding < self.cfg.host.device_queue_depth {
            let Some(next) = self.host_queue.pop_front() else {
                break;
            };
            self.admit(next);
        }
    }

    /// What the recorder needs at the end of the run.
    pub(super) fn end_state(&self, end_ns: u64) -> EndState {
        let c = self.ftl.counters();
        let wear = self.ftl.erase_count_summary();
        EndState {
            end_ns,
            die_busy_ns: self.dies.iter().map(|d| d.busy_ns).collect(),
            chip_busy_ns: self.chip_busy_ns.clone(),
            channel_busy_ns: self.channels.iter().map(|c| c.busy_ns).collect(),
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
