//! The host side and the controller's request path: arrivals, the device queue,
//! translation and allocation of each page, and request completion (docs/ARCHITECTURE.md §6).

mod done;
mod pcie;
mod read;
mod req;
mod tenants;
mod trim;
mod write;

pub(crate) use req::{Req, ReqSlab};

use super::raid::StripeWrite;
use super::txn::{ReqId, TxnId};
use super::{Event, Simulation};
use crate::config::HostMode;
use crate::error::SimError;
use ssdlab_ftl::AddressFold;
use ssdlab_nand::Lpn;
use ssdlab_trace::{IoRequest, Op, MAX_ARRIVAL_NS};

/// What admitting one read page produced.
pub(crate) enum ReadOutcome {
    /// A flash read to queue with the request.
    Txn(TxnId),
    /// Nothing to wait for (buffer hit, zero read).
    Done,
    /// Another mechanism (reconstruction) completes the page later.
    Deferred,
}

/// The most pages of one request admitted at once. A larger request (256 MiB of 4 KiB
/// pages) is admitted in chunks: the next chunk when half of the previous one is done,
/// so that a request of any legal size runs in memory bounded by the chunk, not by its
/// size. No trace request comes near it (block layers split at a few MiB).
pub(crate) const ADMIT_CHUNK_PAGES: u32 = 1 << 16;

/// The pages request `io` covers with pages of `page` bytes, if it is a request the
/// device can take: a positive size, a byte range within 2^64, fewer than 2^32 pages.
fn request_pages(io: &IoRequest, page: u64) -> Option<u32> {
    let last_byte = io.offset_bytes.checked_add(io.size_bytes.checked_sub(1)?)?;
    u32::try_from(last_byte / page - io.offset_bytes / page + 1).ok()
}

impl Simulation {
    /// Pulls the next request from the source; a trace error stops the run.
    fn pull(&mut self) -> Option<IoRequest> {
        if self.source_done {
            return None;
        }
        if self.tenants.is_some() {
            return self.pull_tenant();
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
    pub(in crate::sim) fn prime(&mut self) -> Result<(), SimError> {
        self.check_fail_fractions()?;
        if self.cmt.is_some() {
            self.cmt_write_directory()?;
        }
        match self.cfg.host.mode {
            _ if self.tenants.is_some() => self.prime_tenants(),
            HostMode::Open => self.schedule_next_arrival(),
            HostMode::Closed => {
                self.issue_closed(self.cfg.host.queue_depth, None);
                self.wake_touched();
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Closed loop: up to `n` requests issued now, from the run's source (`tenant`
    /// None) or from closed-loop tenant `tenant`, their trace times ignored.
    fn issue_closed(&mut self, n: u32, tenant: Option<usize>) {
        for _ in 0..n {
            let io = match tenant {
                None => self.pull(),
                Some(i) => self.pull_closed_tenant(i),
            };
            let Some(io) = io else { break };
            self.arrive(io);
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
            self.prefetch_request(&io);
            self.lookahead = Some(io);
            let at = ssdlab_engine::SimTime(at.max(self.now().as_ns()));
            self.events
                .schedule(at, Event::Arrival)
                .expect("never in the past");
        }
    }

    /// Asks the cache for the forward-map entries of `io`, the next request to arrive:
    /// by its arrival they are there, whatever runs in between. Changes nothing.
    fn prefetch_request(&self, io: &IoRequest) {
        let page = u64::from(self.geom.page_size_bytes);
        let first = io.offset_bytes / page;
        if first < self.logical_pages {
            let n = request_pages(io, page).unwrap_or(0);
            self.ftl.prefetch_lookups(Lpn(first as u32), n);
        }
    }

    /// The open-loop arrival event.
    pub(in crate::sim) fn on_arrival(&mut self) {
        let io = self.lookahead.take().expect("an arrival has its request");
        self.arrive(io);
        self.schedule_next_arrival();
    }

    /// A request reaches the device: it is admitted or waits for a device-queue slot.
    fn arrive(&mut self, io: IoRequest) {
        self.fail_on_arrival(self.next_id);
        self.rec.sample_utilization(self.busy_chips);
        let page = u64::from(self.geom.page_size_bytes);
        let flush = io.op == Op::Flush;
        let Some(pages) = (if flush {
            Some(0)
        } else {
            request_pages(&io, page)
        }) else {
            self.error = Some(SimError::BadRequest {
                request: self.next_id,
                offset_bytes: io.offset_bytes,
                size_bytes: io.size_bytes,
                reason: if io.size_bytes == 0 {
                    "a request must have a positive size"
                } else {
                    "its byte range runs past 2^64 or covers more than 2^32 - 1 pages"
                },
            });
            self.source_done = true;
            return;
        };
        if io.op == Op::Trim {
            if let Some(e) = self.trim_refusal(self.next_id, &io) {
                self.error = Some(e);
                self.source_done = true;
                return;
            }
        }
        let capacity_bytes = self.logical_pages * page;
        if io.size_bytes > capacity_bytes {
            self.error = Some(SimError::LargerThanDevice {
                request: self.next_id,
                size_bytes: io.size_bytes,
                capacity_bytes,
            });
            self.source_done = true;
            return;
        }
        let first = io.offset_bytes / page;
        let now = self.now().as_ns();
        let req = Req {
            id: self.next_id,
            io,
            arrival_ns: now,
            admitted_ns: now,
            first_lpn: first,
            pages,
            admitted_pages: 0,
            pending: 0,
            service_ns: 0,
            pre_read_ns: 0,
            gc_wait_ns: 0,
            flash_txns: 0,
            buffer_hits: 0,
        };
        self.next_id += 1;
        let id = self.reqs.insert(req);
        if self.tenants.is_some() {
            self.tenant_arrived(id, now);
        } else if self.outstanding < self.cfg.host.device_queue_depth {
            self.admit(id);
        } else {
            self.host_queue.push_back(id);
        }
    }

    /// `lpn` in the logical space: itself, or folded into it by `ftl.address_fold =
    /// "modulo"`; `None` for a page past the end with `"error"`.
    #[inline(always)]
    pub(in crate::sim) fn folded_lpn(&self, lpn: u64) -> Option<Lpn> {
        if lpn < self.logical_pages {
            return Some(Lpn(lpn as u32));
        }
        match self.cfg.ftl.address_fold {
            AddressFold::Modulo => Some(Lpn((lpn % self.logical_pages) as u32)),
            AddressFold::Error => None,
        }
    }

    /// [`Self::folded_lpn`] of a request's page; a page past the end with `"error"`
    /// stops the run with the request's range named.
    fn fold(&mut self, lpn: u64, (offset_bytes, size_bytes): (u64, u64)) -> Option<Lpn> {
        let folded = self.folded_lpn(lpn);
        if folded.is_none() {
            self.error = Some(SimError::AddressOutOfRange {
                offset_bytes,
                size_bytes,
                capacity_bytes: self.logical_pages * u64::from(self.geom.page_size_bytes),
            });
        }
        folded
    }

    /// Hands the new transactions `txns` of request `id` to the scheduler.
    #[inline(always)]
    pub(in crate::sim) fn submit_txns(&mut self, id: ReqId, txns: &[TxnId]) {
        for &t in txns {
            let chip = self.queues.home(self.txns[t].die).0;
            self.queues.load[chip.idx()] += 1;
            self.dgc_arrival(chip);
        }
        sched!(self, |s, ctx| s.submit_request(id, txns, ctx));
    }

    /// Takes request `id` into the device: translates and allocates its pages and hands
    /// their transactions to the scheduler (a chunk at a time for a request larger than
    /// [`ADMIT_CHUNK_PAGES`]).
    fn admit(&mut self, id: ReqId) {
        self.outstanding += 1;
        if self.pcie.is_some() {
            return self.pcie_down(id);
        }
        self.reqs[id].admitted_ns = self.now().as_ns();
        self.start_request(id);
    }

    /// Starts request `id` (a host request that took its device-queue slot, or an
    /// internal one, which takes none).
    pub(in crate::sim) fn start_request(&mut self, id: ReqId) {
        let r = &mut self.reqs[id];
        r.pending = r.pages;
        let op = r.io.op;
        match op {
            // A flush holds no data: it is done when every write acknowledged before it
            // is durable (at once without a DRAM stage).
            Op::Flush => {
                if self.dram_flush(id) {
                    self.finish_request(id);
                }
            }
            // A trim moves no data: the mapping forgets its pages (host/trim.rs).
            Op::Trim => self.trim_request(id),
            // A drive out of spare blocks refuses writes (the error model).
            _ if self.errors.is_some() && self.errors_refuse_write(id) => {}
            _ => {
                let r = &self.reqs[id];
                self.counters.fua_writes += u64::from(r.io.fua);
                self.admit_chunk(id);
            }
        }
    }

    /// Admits the next chunk of request `id`'s pages (all of them for any request of at
    /// most [`ADMIT_CHUNK_PAGES`]).
    fn admit_chunk(&mut self, id: ReqId) {
        let r = &mut self.reqs[id];
        let from = r.admitted_pages;
        let to = r.pages.min(from.saturating_add(ADMIT_CHUNK_PAGES));
        r.admitted_pages = to;
        let (first, last) = (from == 0, to == r.pages);
        if first != last {
            // A request larger than a chunk begins or ends its admission.
            if first {
                self.reqs.partial += 1;
            } else {
                self.reqs.partial -= 1;
            }
        }
        let r = &mut self.reqs[id];
        // The content is taken out with the last chunk (the only one, as a rule).
        let content = if to == r.pages {
            r.io.content.take()
        } else {
            r.io.content.clone()
        };
        let (base_lpn, op) = (r.first_lpn, r.io.op);
        let range = (r.io.offset_bytes, r.io.size_bytes);
        // With a DRAM stage: host pages go through it (`Some(write_back)`); an internal
        // request (a destage) names its pages, which need not be consecutive.
        let (dram, lpns) = match self.dram.as_mut() {
            None => (None, None),
            Some(d) => match d.take_pages(id) {
                Some(lpns) => (None, Some(lpns)),
                None => (Some(d.write_back()), None),
            },
        };
        let mut dram_done = 0u32;
        // Bytes of those pages the request does not touch (`timing.transfer = "sectors"`).
        let mut dram_short = 0u32;
        let mut txns = std::mem::take(&mut self.scratch);
        txns.clear();
        let mut done_now = 0u32;
        // Completing a page below (a superseded parked write dropped by a GC check, say)
        // can finish another request and admit the next one inside this admission: the
        // count of pages done without a transaction belongs to the admission it began
        // in, so an enclosing admission's count is kept aside and given back at the end.
        let enclosing = std::mem::take(&mut self.admit_done_now);
        let striped = self.raid.as_ref().is_some_and(|x| x.map.level.has_parity());
        let mut stripe_writes = std::mem::take(&mut self.stripe_writes);
        let first_lpn = base_lpn + u64::from(from);
        // A write that names its stream (`host.placement_from = "workload"`) gives its
        // pages their handle before any of them is placed or taken by the DRAM stage.
        let stream = self.reqs[id].io.stream;
        if let Some(stream) = stream {
            if op == Op::Write && lpns.is_none() {
                self.tag_pages(stream, first_lpn, to - from);
            }
        }
        if op == Op::Write && first_lpn < self.logical_pages && lpns.is_none() {
            // The pages these writes leave are scattered over the device: their entries
            // are asked for together, so that their misses overlap.
            self.ftl
                .prefetch_overwrite(Lpn(first_lpn as u32), to - from);
        }
        // One test per page for what is not plain flash work: a destage's named pages,
        // a host page the DRAM stage may take, or a write that may need merging.
        let merging = op == Op::Write && self.partial.is_some();
        let special = lpns.is_some() || dram.is_some() || merging;
        for i in from..to {
            let lpn = match &lpns {
                Some(l) if special => Lpn(l[i as usize]),
                _ => match self.fold(base_lpn + u64::from(i), range) {
                    Some(lpn) => lpn,
                    None => {
                        done_now += 1;
                        continue;
                    }
                },
            };
            if special {
                if let Some(taken) = self.dram_page(id, op, dram, lpn, content.as_ref(), i) {
                    if taken {
                        dram_done += 1;
                        if self.sectors.dram {
                            dram_short += self.untouched_bytes(id, i);
                        }
                    }
                    continue;
                }
            }
            match op {
                Op::Read => match self.admit_read(id, lpn, content.as_ref().map(|c| c.page(i))) {
                    ReadOutcome::Txn(t) => txns.push(t),
                    ReadOutcome::Done => done_now += 1,
                    ReadOutcome::Deferred => {}
                },
                Op::Flush | Op::Trim => unreachable!("a {op} has no pages to admit"),
                Op::Write => {
                    let token = self.write_token(lpn, content.as_ref().map(|c| c.page(i)));
                    if merging && self.partial_write(id, lpn, i, token, lpns.is_some(), &mut txns) {
                        continue;
                    }
                    if striped {
                        let x = self.raid.as_ref().expect("striped");
                        let c = x.map.layout.locate(u64::from(lpn.0));
                        let stripe = x.map.stripe_of(&c);
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
        if self.sectors.reads && op == Op::Read && !txns.is_empty() {
            self.sector_reads(id, (from, to), &txns);
        }
        self.stripe_writes = stripe_writes;
        let n = txns.len() as u32;
        self.reqs[id].flash_txns += n;
        if n > 0 {
            self.submit_txns(id, &txns);
        }
        self.settle_placement();
        self.scratch = txns;
        if dram.is_some() {
            if dram_done > 0 {
                self.dram_pages_done(id, dram_done, dram_short);
            }
            self.dram_pump();
        }
        // GC starts only now, behind this request's transactions: a victim may hold
        // pages this request just allocated, and their programs must come first.
        self.run_gc_checks();
        done_now += std::mem::take(&mut self.admit_done_now);
        for _ in 0..done_now {
            self.sub_done(id, 0, 0);
        }
        self.admit_done_now = enclosing;
    }
}

#[cfg(test)]
mod tests {
    use super::ADMIT_CHUNK_PAGES;
    use crate::{ConfigBuilder, Simulation, VecStream};
    use ssdlab_trace::{IoRequest, Op};

    /// One write of `pages` 4 KiB pages at time 0, then a read of the same range, on the
    /// `default` device (32 GiB raw) in verify mode.
    fn write_then_read(pages: u64) -> Simulation {
        let cfg = ConfigBuilder::new()
            .preset("default")
            .unwrap()
            .set("verify=true")
            .unwrap()
            .build()
            .unwrap();
        let io = |arrival_ns, op| IoRequest {
            arrival_ns,
            op,
            fua: false,
            offset_bytes: 0,
            size_bytes: pages * 4096,
            content: None,
            stream: None,
        };
        let reqs = vec![io(0, Op::Write), io(10_000_000_000, Op::Read)];
        let mut sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "memory").unwrap();
        sim.run_to_end().unwrap();
        sim
    }

    #[test]
    fn a_request_of_many_chunks_runs_in_memory_bounded_by_the_chunk() {
        let pages = 3 * u64::from(ADMIT_CHUNK_PAGES) + 1234;
        let sim = write_then_read(pages);
        assert_eq!(sim.completed, 2);
        assert_eq!(sim.counters.host_pages_programmed, pages);
        assert_eq!(
            sim.counters.verified_reads, pages,
            "every page read back and checked"
        );
        // In flight at most one chunk and the half of the previous one not yet done.
        let bound = (ADMIT_CHUNK_PAGES + ADMIT_CHUNK_PAGES / 2) as usize + 64;
        assert!(
            sim.txns.high_water() <= bound,
            "{} transactions at once, bound {bound}",
            sim.txns.high_water()
        );
    }

    #[test]
    fn a_request_of_one_chunk_is_admitted_whole() {
        let pages = u64::from(ADMIT_CHUNK_PAGES) / 4;
        let sim = write_then_read(pages);
        assert_eq!(sim.counters.verified_reads, pages);
        assert!(
            sim.txns.high_water() as u64 >= pages,
            "all its pages at once"
        );
    }
}
