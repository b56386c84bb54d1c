//! The host side and the controller's request path: arrivals, the device queue,
//! translation and allocation of each page, and request completion (ARCHITECTURE §4).

use super::txn::{ReqId, Txn, TxnId, NONE};
use super::{Event, Simulation};
use crate::config::{HostMode, UnwrittenReads};
use crate::error::SimError;
use ssdlab_ftl::{token_for, AddressFold};
use ssdlab_nand::{FlashOp, Lpn, Ppn, TxnReason};
use ssdlab_stats::{EndState, OpClass, RequestRecord};
use ssdlab_trace::{page_token, IoRequest, Op};

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
        if self.next_id > 0 || self.source_done {
            return Ok(());
        }
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
            let at = if self.cfg.host.time_scale == 1.0 {
                io.arrival_ns
            } else {
                (io.arrival_ns as f64 * self.cfg.host.time_scale) as u64
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
        for i in 0..r.pages {
            let Some(lpn) = self.fold(r.first_lpn + u64::from(i), &r.io) else {
                done_now += 1;
                continue;
            };
            let t = match r.io.op {
                Op::Read => self.admit_read(id, lpn),
                Op::Write => self.admit_write(id, lpn, r.io.content.map(|s| page_token(s, i))),
            };
            match t {
                Some(t) => txns.push(t),
                None if r.io.op == Op::Read => done_now += 1,
                None => {}
            }
        }
        let n = txns.len() as u32;
        self.reqs[id].flash_txns += n;
        if n > 0 {
            for &t in &txns {
                let chip = self.geom.chip_of_die(self.txns[t].die);
                self.queues.load[chip.idx()] += 1;
            }
            self.sched.submit_request(id, &txns, &mut sched_ctx!(self));
        }
        self.scratch = txns;
        // GC starts only now, behind this request's transactions: a victim may hold
        // pages this request just allocated, and their programs must come first.
        let mut planes = std::mem::take(&mut self.gc_check);
        for &plane in &planes {
            self.maybe_start_gc(plane, false);
        }
        planes.clear();
        self.gc_check = planes;
        for _ in 0..done_now {
            self.sub_done(id, 0, 0);
        }
    }

    /// A read page: a flash read, or an answer from the write buffer.
    fn admit_read(&mut self, id: ReqId, lpn: Lpn) -> Option<TxnId> {
        let ppn = match self.ftl.lookup(lpn) {
            Some(p) => p,
            None => self.materialize(lpn)?,
        };
        if self.ftl.is_pending(ppn) {
            self.counters.buffer_hits += 1;
            self.reqs[id].buffer_hits += 1;
            if self.cfg.verify {
                self.check_token(lpn, self.shadow[lpn.idx()], self.ftl.token(ppn));
            }
            return None;
        }
        self.ftl.pin(ppn);
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(FlashOp::Read, TxnReason::HostRead, ppn, die, lpn, id);
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.die_gc_ns[die.idx()];
        if self.cfg.verify {
            t.expect = self.shadow[lpn.idx()];
        }
        Some(self.txns.insert(t))
    }

    /// A never-written page that a read asks for (see `host.unwritten_reads`).
    fn materialize(&mut self, lpn: Lpn) -> Option<Ppn> {
        if self.cfg.host.unwritten_reads == UnwrittenReads::Zero {
            self.counters.zero_reads += 1;
            return None;
        }
        let plane = self
            .placement
            .plane_for(lpn, &self.geom, &self.ftl, &self.queues.load);
        let token = token_for(lpn, 0);
        match self.ftl.host_write(lpn, plane, token) {
            Ok(ppn) => {
                self.ftl.program_done(ppn);
                self.counters.materialized_reads += 1;
                if self.cfg.verify {
                    self.shadow[lpn.idx()] = token;
                }
                self.gc_check.push(plane);
                Some(ppn)
            }
            Err(_) => {
                self.counters.zero_reads += 1;
                None
            }
        }
    }

    /// A written page: allocated now, or parked until GC frees space in its plane.
    fn admit_write(&mut self, id: ReqId, lpn: Lpn, content: Option<u64>) -> Option<TxnId> {
        self.write_seq = self.write_seq.wrapping_add(1);
        let token = content.unwrap_or_else(|| token_for(lpn, self.write_seq));
        let plane = self
            .placement
            .plane_for(lpn, &self.geom, &self.ftl, &self.queues.load);
        let t = self.place_write(id, lpn, plane, token);
        if t.is_none() {
            self.park(id, lpn, plane, token);
        }
        if self.gc_check.last() != Some(&plane) {
            self.gc_check.push(plane);
        }
        t
    }

    /// Allocates `lpn` in `plane` and builds its program transaction.
    pub(super) fn place_write(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        plane: ssdlab_nand::PlaneId,
        token: u64,
    ) -> Option<TxnId> {
        let ppn = self.ftl.host_write(lpn, plane, token).ok()?;
        self.counters.host_pages_programmed += 1;
        if self.cfg.verify {
            self.shadow[lpn.idx()] = token;
        }
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(FlashOp::Program, TxnReason::HostWrite, ppn, die, lpn, id);
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
