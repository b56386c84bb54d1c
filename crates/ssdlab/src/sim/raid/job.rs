//! Stripe jobs: the parity update of one stripe (RMW or RCW) with its pre-reads, run
//! one at a time per stripe behind the stripe lock.

use super::{Captured, JobKind, JobOrigin, JobPlan, StripeJob, StripeWrite};
use crate::placement::{PageToPlace, Role};
use crate::sim::gc_trigger::GcCause;
use crate::sim::txn::{ReqId, TxnId, NONE};
use crate::sim::Simulation;
use ssdlab_nand::{FlashOp, Lpn, Ppn, TxnReason};
use ssdlab_raid::UnwrittenStripes;

impl Simulation {
    /// Admits the write pages of request `id` under RAID-4/5: each stripe the request
    /// touches gets a group-buffer entry or a stripe job. Returns the data transactions.
    pub(in crate::sim) fn raid_admit_writes(
        &mut self,
        id: ReqId,
        writes: &mut Vec<StripeWrite>,
        txns: &mut Vec<TxnId>,
    ) {
        // Keep arrival order inside a stripe; stripes in order of first appearance.
        writes.sort_by_key(|w| w.stripe);
        // The data pages of parity updates are placed once every stripe's job has sent
        // out its pre-reads, so that a choice by load sees them.
        let mut deferred = 0;
        let mut i = 0;
        while i < writes.len() {
            let stripe = writes[i].stripe;
            let mut j = i;
            while j < writes.len() && writes[j].stripe == stripe {
                j += 1;
            }
            if self.raid_stripe_write(id, &writes[i..j], txns) {
                writes.copy_within(i..j, deferred);
                deferred += j - i;
            }
            i = j;
        }
        for w in &writes[..deferred] {
            self.raid_place_data(id, w, txns);
        }
        writes.clear();
    }

    /// Admits the pages `ws` of one stripe; true when their data pages are left for the
    /// caller to place (a parity update), false when they are placed (a group buffer, a
    /// mirror write).
    fn raid_stripe_write(&mut self, id: ReqId, ws: &[StripeWrite], txns: &mut Vec<TxnId>) -> bool {
        let stripe = ws[0].stripe;
        let r = self.raid();
        let groups = u64::from(r.map.layout.groups());
        let (row, group) = (stripe / groups, (stripe % groups) as u32);
        if self.cfg.raid.unwritten_stripes == UnwrittenStripes::Materialize {
            self.raid_materialize_for_write(row, group, ws[0].lpn);
        }
        let r = self.raid();
        let buffered = r.buffer_new_writes
            && (r.buffers.contains_key(&stripe)
                || ws.iter().all(|w| self.ftl.lookup(w.lpn).is_none()));
        if buffered {
            self.buffer_writes(id, stripe, ws, txns);
            return false;
        }
        if self.cr5m.is_some() && self.cr5m_mirror_write(id, row, group, ws, txns) {
            return false;
        }
        // An update: capture old versions of the written pages and the other pages now.
        // Under CR5M the old version of a mirrored page is its expired one (what the
        // parity covers), and the other pages are read from whichever copy is free.
        let d = self.raid().map.layout.group_size();
        let mut written: u64 = 0;
        let mut known = 0u64;
        let mut old_w = self.raid_mut().new_capture();
        for w in ws {
            if written & (1 << w.pos) == 0 {
                let covered = self.cr5m_covered(w.lpn);
                self.capture(covered, &mut old_w);
            }
            written |= 1 << w.pos;
        }
        // The newest token of each position counts once.
        for pos in 0..d {
            if written & (1 << pos) != 0 {
                let last = ws
                    .iter()
                    .rev()
                    .find(|w| w.pos == pos)
                    .expect("written position");
                known ^= last.token;
            }
        }
        let mut others = self.raid_mut().new_capture();
        let parity_pos = self.raid().map.layout.parity(row, group).map(|c| c.pos);
        for pos in 0..d {
            if Some(pos) == parity_pos || written & (1 << pos) != 0 {
                continue;
            }
            if let Some(x) = self.raid().map.layout.lpn_at(row, group, pos) {
                let source = self.cr5m_current_source(Lpn(x as u32));
                self.capture(source, &mut others);
            }
        }
        // The parity update reclaims the stripe's expired data (§III-B 1c).
        let claimed = self.cr5m_claim(row, group, written, &mut old_w, JobOrigin::Host);
        let parity_mapped = self.parity_ppn(row, group).is_some();
        let plan = JobPlan {
            stripe,
            row,
            group,
            known,
            parity_mapped,
            req: id,
            origin: JobOrigin::Host,
        };
        let job = self.choose_job(plan, old_w, others);
        self.raid_mut().jobs[job].claimed = claimed;
        self.reqs[id].pending += 1;
        self.enqueue_job(job);
        true
    }

    /// Picks RMW or RCW for a stripe whose new data XOR is `plan.known`; pins what it
    /// keeps.
    pub(in crate::sim) fn choose_job(
        &mut self,
        plan: JobPlan,
        old_w: Captured,
        others: Captured,
    ) -> usize {
        let JobPlan {
            stripe,
            row,
            group,
            known,
            parity_mapped,
            req,
            origin,
        } = plan;
        let rmw_reads = old_w.reads.len() + usize::from(parity_mapped);
        let rcw_reads = others.reads.len();
        let prefer_rcw = self.raid().prefer_rcw;
        // A plan that would read a dead chip cannot run; with one failure per group the
        // other one can (they read disjoint pages).
        let dead = |c: &Captured| c.reads.iter().any(|&p| self.on_dead_chip(p));
        let parity_dead = self
            .parity_ppn(row, group)
            .is_some_and(|p| self.on_dead_chip(p));
        // RMW needs a parity that covers the stripe's data. A stripe with data but no
        // parity page and no job in flight (whose parity is yet to land) lost its parity
        // (never written because its chip was dead): only RCW can rebuild it.
        let parity_missing = !parity_mapped
            && old_w.found + others.found > 0
            && !self.raid().locks.contains_key(&stripe);
        let rmw_ok = !dead(&old_w) && !old_w.lost && !parity_dead && !parity_missing;
        let rcw_ok = !dead(&others) && !others.lost;
        // No page outside the write to read: a full-group write (RCW reading nothing).
        let rcw_better =
            rcw_reads == 0 || rcw_reads < rmw_reads || (rcw_reads == rmw_reads && prefer_rcw);
        let kind = if !rmw_ok || (rcw_ok && rcw_better) {
            JobKind::Rcw
        } else {
            JobKind::Rmw
        };
        let (mut reads, known, unused) = match kind {
            JobKind::Rmw => (old_w.reads, known ^ old_w.known, others.reads),
            JobKind::Rcw => (others.reads, known ^ others.known, old_w.reads),
        };
        self.raid_mut().give_vec(unused);
        if !rmw_ok && !rcw_ok {
            // Two members of the group are dead: what they held is lost for good. The
            // new parity covers the surviving pages only; the lost ones are recorded so
            // that no read or rebuild takes the parity for their content.
            reads.retain(|&p| !self.on_dead_chip(p));
            self.mark_stripe_losses(row, group);
        }
        for &p in &reads {
            self.ftl.pin(p);
        }
        let c = &mut self.raid_mut().counters;
        match kind {
            _ if origin != JobOrigin::Host => {}
            JobKind::Rcw if rcw_reads == 0 => c.full_group += 1,
            JobKind::Rcw => c.rcw += 1,
            JobKind::Rmw => c.rmw += 1,
        }
        let reads_left = reads.len() as u32;
        self.raid_mut().alloc_job(StripeJob {
            stripe,
            row,
            group,
            kind,
            known,
            acc: 0,
            reads,
            reads_left,
            req,
            origin,
            claimed: Vec::new(),
            pre_read_ns: 0,
        })
    }

    /// Records the current version of `lpn` into `into`: a page to read, or (for a
    /// write waiting for space) content the controller holds.
    pub(in crate::sim) fn capture(&self, lpn: Lpn, into: &mut Captured) {
        if let Some(&(_, t)) = self.held_get(lpn) {
            into.known ^= t;
        } else if self.is_redundant_only(lpn) {
            into.lost = true;
        } else if let Some(p) = self.ftl.lookup(lpn) {
            if self.ftl.is_pending(p) && !self.on_dead_chip(p) {
                // Still being programmed: its content is in the controller's write
                // buffer, as for a host read of it (a buffer hit, no flash read).
                into.known ^= self.ftl.token(p);
            } else {
                into.reads.push(p);
            }
        } else {
            return; // never written: contributes nothing
        }
        into.found += 1;
    }

    /// Places one data page of a RAID-4/5 write, or parks it with its content held.
    pub(in crate::sim) fn raid_place_data(
        &mut self,
        id: ReqId,
        w: &StripeWrite,
        txns: &mut Vec<TxnId>,
    ) {
        let page = PageToPlace::new(w.lpn, w.token, Role::Data).with_chunk(w.chunk);
        let plane = self.place(page);
        self.write_or_park(id, w.lpn, plane, w.token, TxnReason::HostWrite, txns);
    }

    /// Bookkeeping when a host page of `lpn` starts or stops waiting for space: stripes
    /// with waiting pages cannot reconstruct.
    pub(in crate::sim) fn raid_note_held(&mut self, lpn: Lpn, held: bool) {
        let Some(r) = self.raid.as_mut() else { return };
        if u64::from(lpn.0) >= r.map.host_pages || !r.map.level.has_parity() {
            return;
        }
        let c = r.map.layout.locate(u64::from(lpn.0));
        let stripe = r.map.stripe_of(&c);
        if held {
            *r.parked_stripes.entry(stripe).or_default() += 1;
        } else {
            let n = r
                .parked_stripes
                .get_mut(&stripe)
                .expect("a stripe with held pages");
            *n -= 1;
            if *n == 0 {
                r.parked_stripes.remove(&stripe);
            }
        }
    }

    /// Records the data pages of stripe (row, group) whose content is gone (on a dead
    /// chip, or known only through redundancy) as lost.
    pub(super) fn mark_stripe_losses(&mut self, row: u64, group: u32) {
        let mut lpns = Vec::new();
        self.raid().map.layout.stripe_lpns(row, group, &mut lpns);
        for x in lpns {
            let l = Lpn(x as u32);
            let gone = self.is_redundant_only(l)
                || self.ftl.lookup(l).is_some_and(|p| self.on_dead_chip(p));
            if gone {
                let f = self.fs_mut();
                f.redundant_only.remove(&l.0);
                f.lost_lpns.insert(l.0);
            }
        }
    }

    /// The current page of the parity of stripe (row, group).
    pub(in crate::sim) fn parity_ppn(&self, row: u64, group: u32) -> Option<Ppn> {
        let r = self.raid();
        let i = r.map.layout.parity_index(row, group);
        self.ftl.lookup(r.map.red_lpn(i))
    }

    /// Queues job `j` behind the stripe's running job, or starts it.
    pub(in crate::sim) fn enqueue_job(&mut self, j: usize) {
        let stripe = self.raid().jobs[j].stripe;
        let r = self.raid_mut();
        match r.locks.entry(stripe) {
            std::collections::hash_map::Entry::Occupied(_) => {
                r.lock_waiters.entry(stripe).or_default().push_back(j);
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(j);
                self.start_job(j);
            }
        }
    }

    /// Job `j` holds its stripe's lock: issue its pre-reads.
    pub(super) fn start_job(&mut self, j: usize) {
        let (kind, row, group) = {
            let job = &self.raid().jobs[j];
            (job.kind, job.row, job.group)
        };
        if kind == JobKind::Rmw {
            if let Some(p) = self.parity_ppn(row, group) {
                self.ftl.pin(p);
                let job = &mut self.raid_mut().jobs[j];
                job.reads.push(p);
                job.reads_left += 1;
            }
        }
        let reads = std::mem::take(&mut self.raid_mut().jobs[j].reads);
        if reads.is_empty() {
            self.raid_mut().jobs[j].reads = reads;
            // Pre-reads issued early (`early.rs`) may still be in flight.
            if self.raid().jobs[j].reads_left == 0 {
                self.write_parity(j);
            }
            return;
        }
        self.issue_pre_reads(j, &reads);
        self.raid_mut().jobs[j].reads = reads;
    }

    /// Sends job `j`'s pre-reads of `pages` to their chips.
    pub(super) fn issue_pre_reads(&mut self, j: usize, pages: &[Ppn]) {
        let reason = if self.raid().jobs[j].origin == JobOrigin::Host {
            self.raid_mut().counters.pre_reads += pages.len() as u64;
            TxnReason::PreRead
        } else {
            TxnReason::ReclaimRead
        };
        for &p in pages {
            self.raid_txn(FlashOp::Read, reason, p, Lpn(u32::MAX), j as u32);
        }
    }

    /// All pre-reads of job `j` are in: program the new parity.
    pub(super) fn write_parity(&mut self, j: usize) {
        let (row, group, token) = {
            let job = &self.raid().jobs[j];
            (job.row, job.group, job.known ^ job.acc)
        };
        let r = self.raid();
        let chunk = r
            .map
            .layout
            .parity(row, group)
            .expect("RAID-4/5 stripes have parity");
        let plity = r.map.red_lpn(r.map.layout.parity_index(row, group));
        let plane = self.place(PageToPlace::new(plity, token, Role::Parity).with_chunk(chunk));
        if self.plane_dead(plane) {
            // The parity member is dead (and has no spare): the stripe stays degraded.
            self.dead_parity_write(plity, plane, token);
            self.finish_job(j, 0, 0);
            return;
        }
        // A parity that releases CR5M's expired pages frees space: it may take GC's spare
        // reserve, so that a plane full of expired pages cannot wait for itself.
        let job = &self.raid().jobs[j];
        let written = if job.origin != JobOrigin::Host || !job.claimed.is_empty() {
            self.ftl.host_write_freeing(plity, plane, token)
        } else {
            self.ftl.host_write(plity, plane, token)
        };
        match written {
            Ok(ppn) => {
                self.raid_mut().counters.parity_writes += 1;
                let reason = self.parity_reason(j);
                self.raid_txn(FlashOp::Program, reason, ppn, plity, j as u32);
            }
            Err(_) => self.park_parity(j, plity, plane, token),
        }
        self.gc_check_after(plane, GcCause::Parity);
    }

    /// Why job `j`'s parity program exists: a host write's update, or a reclaim.
    pub(in crate::sim) fn parity_reason(&self, j: usize) -> TxnReason {
        match self.raid().jobs[j].origin {
            JobOrigin::Host => TxnReason::ParityWrite,
            _ => TxnReason::ReclaimWrite,
        }
    }

    /// The parity program of job `j` crossed the bus (`timing.write_ack = "transfer"`):
    /// the request waiting for it is done with it; the stripe stays locked until the
    /// program completes.
    pub(in crate::sim) fn ack_parity(&mut self, j: usize, service_ns: u64, gc_wait_ns: u64) {
        let req = self.raid().jobs[j].req;
        if req != NONE && self.acked_at_program(req) {
            return; // a FUA write's or a destage's stripe counts when its parity is programmed
        }
        let job = &mut self.raid_mut().jobs[j];
        let req = std::mem::replace(&mut job.req, NONE);
        let pre_read_ns = job.pre_read_ns;
        if req != NONE {
            self.sub_done_after(req, service_ns, pre_read_ns, gc_wait_ns);
        }
    }

    /// A parity page parked on a chip that died: its job ends without a program.
    pub(in crate::sim) fn finish_parked_parity(&mut self, j: usize) {
        self.finish_job(j, 0, 0);
    }

    /// The parity of job `j` is on flash: release the stripe's expired data, the stripe
    /// and its request.
    pub(super) fn finish_job(&mut self, j: usize, service_ns: u64, gc_wait_ns: u64) {
        let (stripe, req, row, group, origin, pre_read_ns) = {
            let job = &self.raid().jobs[j];
            (
                job.stripe,
                job.req,
                job.row,
                job.group,
                job.origin,
                job.pre_read_ns,
            )
        };
        let claimed = std::mem::take(&mut self.raid_mut().jobs[j].claimed);
        if !claimed.is_empty() {
            self.cr5m_release(stripe, &claimed, origin);
        }
        let r = self.raid_mut();
        let reads = std::mem::take(&mut r.jobs[j].reads);
        r.give_vec(reads);
        r.job_free.push(j);
        debug_assert_eq!(
            r.locks.get(&stripe),
            Some(&j),
            "a running job holds its stripe"
        );
        let next = match r.lock_waiters.get_mut(&stripe) {
            Some(q) => {
                let n = q.pop_front();
                if q.is_empty() {
                    r.lock_waiters.remove(&stripe);
                }
                n
            }
            None => None,
        };
        match next {
            Some(n) => {
                r.locks.insert(stripe, n);
            }
            None => {
                r.locks.remove(&stripe);
            }
        }
        if req != NONE {
            self.sub_done_after(req, service_ns, pre_read_ns, gc_wait_ns);
        }
        match next {
            Some(n) => self.start_job(n),
            None => self.debug_check_stripe(row, group),
        }
    }
}
