//! A host request's completion: its pages done one by one, then the request, which
//! leaves its device-queue slot to the next.

use super::super::txn::{ReqId, TxnId, NONE};
use super::super::Simulation;
use super::ADMIT_CHUNK_PAGES;
use crate::config::HostMode;
use ssdlab_nand::TxnReason;
use ssdlab_stats::{OpClass, RequestRecord, RequestStatus};
use ssdlab_trace::Op;

impl Simulation {
    /// A host transaction finished (the FTL and verify bookkeeping is done by the caller).
    pub(in crate::sim) fn host_txn_done(&mut self, t: TxnId) {
        let txn = &self.txns[t];
        let (reason, ppn, req, acked) = (txn.reason, txn.ppn, txn.req, txn.acked);
        let (service_ns, gc_wait_ns) = (txn.bus_ns + txn.array_ns, txn.gc_mark_ns);
        debug_assert_ne!(req, NONE);
        match reason {
            TxnReason::HostRead => {
                // The page's content is read only for whoever checks or shares it: the
                // token table is the largest of the per-page tables, and a plain run
                // need not touch it on every read.
                if self.verify.is_some() || self.merge.is_some() {
                    let found = self.ftl.token(ppn);
                    if self.verify.is_some() {
                        let txn = &self.txns[t];
                        self.check_token(txn.lpn, txn.expect, found);
                    }
                    if self.merge.is_some() {
                        self.finish_followers(t, found, service_ns);
                    }
                }
                self.ftl.unpin(ppn);
                self.gc_page_released(ppn);
                if self.dram.is_some() {
                    let lpn = self.txns[t].lpn;
                    self.dram_fill(lpn, ppn);
                }
            }
            TxnReason::HostWrite => {
                self.ftl.program_done(ppn);
                self.gc_page_released(ppn);
                if self.dram.is_some() {
                    let lpn = self.txns[t].lpn;
                    self.dram_programmed(req, lpn, ppn);
                }
                if acked {
                    return; // its request counted it when its data crossed the bus
                }
            }
            r => unreachable!("{r:?} is not host traffic"),
        }
        self.sub_done(req, service_ns, gc_wait_ns);
    }

    /// One page of request `id` is done; `service_ns` is its bus + array time and
    /// `gc_wait_ns` the GC time its die spent while it was queued.
    pub(in crate::sim) fn sub_done(&mut self, id: ReqId, service_ns: u64, gc_wait_ns: u64) {
        self.sub_done_after(id, service_ns, 0, gc_wait_ns);
    }

    /// [`Simulation::sub_done`] for a sub-request whose work could start only after
    /// reads that took `pre_read_ns` of service (a parity program after its pre-reads).
    pub(in crate::sim) fn sub_done_after(
        &mut self,
        id: ReqId,
        service_ns: u64,
        pre_read_ns: u64,
        gc_wait_ns: u64,
    ) {
        let partial = self.reqs.partial;
        let r = &mut self.reqs[id];
        debug_assert!(r.pending > 0);
        r.pending -= 1;
        r.service_ns = service_ns;
        r.pre_read_ns = pre_read_ns;
        r.gc_wait_ns = gc_wait_ns;
        if r.pending == 0 {
            self.finish_request(id);
        } else if partial > 0
            && r.admitted_pages < r.pages
            && r.admitted_pages - (r.pages - r.pending) <= ADMIT_CHUNK_PAGES / 2
        {
            // A large request: half of its admitted pages are done, the next chunk goes.
            self.admit_chunk(id);
        }
    }

    pub(in crate::sim) fn finish_request(&mut self, id: ReqId) {
        if self.pcie.is_some() && self.pcie_up(id) {
            return; // it completes when its completion has crossed the link
        }
        let mut buffer_wait_ns = 0;
        if let Some(d) = self.dram.as_mut() {
            if d.is_destage(id) {
                self.reqs.remove(id);
                self.dram_destage_done(id);
                return;
            }
            buffer_wait_ns = d.take_buffer_wait(id);
        }
        let now = self.now().as_ns();
        let r = self.reqs[id].clone();
        let op = match r.io.op {
            Op::Read => OpClass::Read,
            Op::Write => OpClass::Write,
            // Not a request of the read or write classes: counted, and its wait for
            // durability measured by the DRAM stage.
            Op::Flush => {
                self.counters.flushes += 1;
                self.request_left(id, now);
                return;
            }
            // Nor is a trim: counted, with the pages it covered.
            Op::Trim => {
                self.counters.trims += 1;
                self.request_left(id, now);
                return;
            }
        };
        if self.cmt.is_some() {
            self.cmt_request_done(id, op == OpClass::Read, now - r.arrival_ns);
        }
        self.rec.gc_wait(op, r.gc_wait_ns);
        if self.dram.is_some() {
            self.rec.buffer_wait(op, buffer_wait_ns);
        }
        if let Some(p) = self.pcie.as_ref() {
            self.rec.pcie(op, p.last_ns);
        }
        self.note_response_phase(now - r.arrival_ns);
        let status = if self.errors.is_some() {
            self.errors_request_done(id, op)
        } else {
            RequestStatus::Ok
        };
        if self.tenants.is_some() {
            self.tenant_of_record(id);
        }
        self.rec.request_done(&RequestRecord {
            id: r.id,
            op,
            offset_bytes: r.io.offset_bytes,
            size_bytes: r.io.size_bytes,
            arrival_ns: r.arrival_ns,
            admitted_ns: r.admitted_ns,
            completion_ns: now,
            service_ns: r.service_ns,
            pre_read_ns: r.pre_read_ns,
            pages: r.pages,
            flash_ops: r.flash_txns,
            buffer_hits: r.buffer_hits,
            status,
        });
        self.request_left(id, now);
    }

    /// Host request `id` completed at `now`: its device-queue slot takes the next one.
    fn request_left(&mut self, id: ReqId, now: u64) {
        let closed_tenant = if self.tenants.is_some() {
            self.tenant_left(id, now)
        } else {
            None
        };
        self.reqs.remove(id);
        self.outstanding -= 1;
        self.completed += 1;
        self.last_completion_ns = now;
        if self.completed & 0x3fff == 0 {
            if let Some(p) = self.progress.as_mut() {
                p(self.completed);
            }
        }
        if closed_tenant.is_some() {
            self.issue_closed(1, closed_tenant);
        } else if self.cfg.host.mode == HostMode::Closed && self.tenants.is_none() {
            self.issue_closed(1, None);
        }
        while self.outstanding < self.cfg.host.device_queue_depth {
            let Some(next) = self.host_queue.pop_front() else {
                break;
            };
            self.admit(next);
        }
        if self.tenants.is_some() {
            self.tenant_fetch();
        }
        if self.outstanding == 0 && self.ftl.slc_on() {
            self.slc_host_idle();
        }
    }
}
