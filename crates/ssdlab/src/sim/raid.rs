//! RAID inside the SSD: placement of data and redundancy, parity updates as jobs with
//! pre-reads, reconstructing reads, and consistency checks (ARCHITECTURE §6).
//!
//! Addressing: host LPNs come first in the FTL's map; redundancy pages follow at
//! `host_pages + redundancy index` (parity of stripe (row, group): `row × groups +
//! group`; RAID-1 mirror of host LPN x: x).
//!
//! Writes (RAID-4/5) are *stripe jobs*. A job captures, when it is created, every page
//! version it will need (pinned, so GC cannot erase them), and jobs of one stripe run
//! one at a time in creation order (the stripe lock), so the parity each job writes is
//! the XOR of the stripe's data as of that job:
//!
//! * RMW: new parity = old parity ⊕ old data ⊕ new data — reads the parity (when the job
//!   gets the lock) and the old versions of the pages written;
//! * RCW: new parity = new data ⊕ the other data pages — reads the pages not written;
//!
//! whichever needs fewer reads (the tie rule is `raid.update`). With
//! `raid.buffer_new_writes`, writes to a stripe whose pages were never written open a
//! *group buffer*: their data is programmed at once, and the parity is encoded when all
//! the stripe's data pages are in the buffer or `raid.encode_timeout_ns` after it opened
//! (full-group write: no pre-read when the rest of the stripe was never written).
//!
//! Parity tokens are computed from the tokens the pre-reads actually returned, so a
//! wrong ordering shows up as a verify mismatch on a later reconstruction.

use super::txn::{ReqId, Txn, TxnId, NONE};
use super::{Event, Simulation};
use rustc_hash::FxHashMap as HashMap;
use ssdlab_nand::{ChannelId, ChipId, FlashOp, Geometry, Lpn, PlaneId, Ppn, TxnReason};
use ssdlab_raid::{ChipChoice, Chunk, Domain, RaidLayout, RaidLevel};
use std::collections::VecDeque;

/// What a stripe job reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    /// Old parity and old data of the written pages.
    Rmw,
    /// The data pages not written.
    Rcw,
}

/// Page versions a stripe job needs: pages to pre-read, and the XOR of versions whose
/// content the controller still holds (writes waiting for space).
#[derive(Clone, Debug, Default)]
pub(crate) struct Captured {
    pub reads: Vec<Ppn>,
    pub known: u64,
    /// A captured page's content exists only through redundancy: this plan cannot run.
    pub lost: bool,
}

/// One parity update of one stripe.
#[derive(Clone, Debug)]
pub(crate) struct StripeJob {
    pub stripe: u64,
    pub row: u64,
    pub group: u32,
    pub kind: JobKind,
    /// XOR of the tokens known without reading (the new data).
    pub known: u64,
    /// XOR of the tokens the pre-reads returned so far.
    pub acc: u64,
    /// Captured page versions to pre-read (pinned).
    pub reads: Vec<Ppn>,
    /// Pre-reads still in flight.
    pub reads_left: u32,
    /// The request whose completion waits for the parity program, or NONE.
    pub req: ReqId,
}

/// An open group buffer of new writes to one stripe.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupBuffer {
    /// Positions in the group written since the buffer opened.
    pub positions: u64,
    /// XOR of the newest token of each buffered position.
    pub new_xor: u64,
    /// Newest token per buffered position (indexed by position).
    pub tokens: Vec<u64>,
    /// Versions of the buffered positions before the buffer opened (reads pinned).
    pub old: Captured,
    /// Bumped every time the buffer slot is reused, so stale timeouts are ignored.
    pub generation: u32,
    /// The stripe the buffer collects.
    pub stripe: u64,
}

/// A read served by XOR of the other members of its stripe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReconJob {
    pub req: ReqId,
    pub lpn: Lpn,
    pub expect: u64,
    pub acc: u64,
    pub reads_left: u32,
    pub service_ns: u64,
}

/// RAID state of a run.
pub(crate) struct RaidState {
    pub layout: RaidLayout,
    pub level: RaidLevel,
    pub domain: Domain,
    pub chip_choice: ChipChoice,
    pub host_pages: u64,
    pub buffer_new_writes: bool,
    pub force_reconstruct: bool,
    pub prefer_rcw: bool,
    pub encode_timeout_ns: u64,
    /// Open group buffers by stripe.
    pub buffers: HashMap<u64, usize>,
    pub buffer_slots: Vec<GroupBuffer>,
    pub buffer_free: Vec<usize>,
    /// The chip behind each member (chip domain); a failed member is remapped to a spare.
    pub member_chip: Vec<u32>,
    /// Parked data pages per stripe (such a stripe cannot reconstruct).
    pub parked_stripes: HashMap<u64, u32>,
    /// Stripe locks: the job running on each locked stripe.
    pub locks: HashMap<u64, usize>,
    /// Jobs waiting behind a stripe's running job (only stripes with waiters).
    pub lock_waiters: HashMap<u64, VecDeque<usize>>,
    pub jobs: Vec<StripeJob>,
    pub job_free: Vec<usize>,
    pub recon: Vec<ReconJob>,
    pub recon_free: Vec<usize>,
    pub counters: RaidCounters,
    /// Spare page lists, so that stripe jobs allocate nothing in steady state.
    pub vec_pool: Vec<Vec<Ppn>>,
}

/// Counters the report shows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RaidCounters {
    pub rmw: u64,
    pub rcw: u64,
    pub full_group: u64,
    pub pre_reads: u64,
    pub parity_writes: u64,
    pub mirror_writes: u64,
    pub reconstructions: u64,
    pub reconstruct_reads: u64,
    pub timeouts: u64,
    pub mirror_reads: u64,
}

impl RaidState {
    /// The FTL LPN of redundancy index `i`.
    #[inline]
    pub fn red_lpn(&self, i: u64) -> Lpn {
        Lpn((self.host_pages + i) as u32)
    }

    /// Rows of the layout.
    pub fn rows(&self) -> u64 {
        self.host_pages / u64::from(self.layout.data_per_row())
    }

    /// RAID-1: the FTL LPN and chunk of host LPN `lpn`'s mirror.
    pub fn mirror_of(&self, lpn: Lpn) -> Option<(Lpn, Chunk)> {
        if self.level != RaidLevel::Raid1 {
            return None;
        }
        let x = u64::from(lpn.0);
        Some((self.red_lpn(x), self.layout.mirror(x)?))
    }

    /// The stripe key (= parity index) of a chunk.
    #[inline]
    pub fn stripe_of(&self, c: &Chunk) -> u64 {
        self.layout.parity_index(c.row, c.group)
    }

    /// An empty page list from the pool.
    pub fn take_vec(&mut self) -> Vec<Ppn> {
        self.vec_pool.pop().unwrap_or_default()
    }

    /// Returns a page list to the pool.
    pub fn give_vec(&mut self, mut v: Vec<Ppn>) {
        v.clear();
        if self.vec_pool.len() < 1024 {
            self.vec_pool.push(v);
        }
    }

    /// An empty capture with a pooled page list.
    pub fn new_capture(&mut self) -> Captured {
        Captured {
            reads: self.take_vec(),
            known: 0,
            lost: false,
        }
    }

    fn alloc_job(&mut self, job: StripeJob) -> usize {
        match self.job_free.pop() {
            Some(i) => {
                self.jobs[i] = job;
                i
            }
            None => {
                self.jobs.push(job);
                self.jobs.len() - 1
            }
        }
    }
}

impl Simulation {
    #[inline]
    pub(super) fn raid(&self) -> &RaidState {
        self.raid.as_ref().expect("RAID is configured")
    }

    #[inline]
    fn raid_mut(&mut self) -> &mut RaidState {
        self.raid.as_mut().expect("RAID is configured")
    }

    /// The plane that holds `chunk`. Channel domain with dynamic chip choice (CR5's
    /// semi-dynamic allocation) takes the least-loaded chip of the channel when `load`
    /// is given, else the static way.
    pub(super) fn chunk_plane(&self, c: &Chunk) -> PlaneId {
        self.raid()
            .plane(&self.geom, c, Some((&self.queues.load, &self.ftl)))
    }

    /// The plane of FTL LPN `lpn` (host or redundancy) under the static layout.
    pub(super) fn raid_static_plane(&self, lpn: Lpn) -> PlaneId {
        self.raid().static_plane(&self.geom, lpn)
    }
}

impl RaidState {
    /// See [`Simulation::chunk_plane`].
    pub fn plane(
        &self,
        g: &Geometry,
        c: &Chunk,
        load: Option<(&[u32], &ssdlab_ftl::Ftl)>,
    ) -> PlaneId {
        let (chip, row_in_chip) = match self.domain {
            Domain::Chip => (ChipId(self.member_chip[c.member as usize]), c.row),
            Domain::Channel => {
                let ways = g.chips_per_channel;
                let channel = ChannelId(c.member);
                let row_in_chip = c.row / u64::from(ways);
                let static_chip = g.chip_at(channel, (c.row % u64::from(ways)) as u32);
                let chip = match (self.chip_choice, load) {
                    (ChipChoice::Dynamic, Some((load, ftl))) => (0..ways)
                        .map(|w| g.chip_at(channel, w))
                        .filter(|&chip| {
                            ftl.free_pages_in_plane(Self::plane_in_chip(g, chip, row_in_chip)) > 0
                        })
                        .min_by_key(|chip| (load[chip.idx()], chip.0))
                        .unwrap_or(static_chip),
                    _ => static_chip,
                };
                (chip, c.row / u64::from(ways))
            }
        };
        Self::plane_in_chip(g, chip, row_in_chip)
    }

    /// The plane of `chip` that row `row_in_chip` uses: rows rotate over the dies, then
    /// the planes, of a chip.
    #[inline]
    pub(crate) fn plane_in_chip(g: &Geometry, chip: ChipId, row_in_chip: u64) -> PlaneId {
        let per_chip = u64::from(g.dies_per_chip * g.planes_per_die);
        if per_chip == 1 {
            // One die of one plane (the BRR/DGC chips): no division on the hot path.
            return g.plane_of_die(g.die_of_chip(chip, 0), 0);
        }
        let n = (row_in_chip % per_chip) as u32;
        let die = g.die_of_chip(chip, n % g.dies_per_chip);
        g.plane_of_die(die, n / g.dies_per_chip)
    }

    /// The chunk that FTL LPN `lpn` (host or redundancy) stands for.
    pub fn chunk_of(&self, lpn: Lpn) -> Chunk {
        let x = u64::from(lpn.0);
        if x < self.host_pages {
            return self.layout.locate(x);
        }
        let i = x - self.host_pages;
        match self.level {
            RaidLevel::Raid1 => self.layout.mirror(i).expect("RAID-1 has mirrors"),
            _ => {
                let groups = u64::from(self.layout.groups());
                self.layout
                    .parity(i / groups, (i % groups) as u32)
                    .expect("a parity level")
            }
        }
    }

    /// The plane of FTL LPN `lpn` under the static layout (preconditioning).
    pub fn static_plane(&self, g: &Geometry, lpn: Lpn) -> PlaneId {
        self.plane(g, &self.chunk_of(lpn), None)
    }
}

/// One page of a write request, on its way into a stripe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StripeWrite {
    pub stripe: u64,
    pub pos: u32,
    pub lpn: Lpn,
    pub token: u64,
    /// The page's chunk, located once at admission.
    pub chunk: Chunk,
}

impl Simulation {
    /// Builds a read or program transaction of `reason` on `ppn`, handed to the scheduler.
    fn raid_txn(&mut self, op: FlashOp, reason: TxnReason, ppn: Ppn, lpn: Lpn, aux: u32) -> TxnId {
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(op, reason, ppn, die, lpn, NONE);
        t.aux = aux;
        t.enqueued_ns = self.now().as_ns();
        t.gc_mark_ns = self.die_gc_ns[die.idx()];
        let chip = self.geom.chip_of_die(die);
        let id = self.txns.insert(t);
        self.queues.load[chip.idx()] += 1;
        self.dgc_arrival(chip);
        self.sched.submit_background(id, &mut sched_ctx!(self));
        id
    }

    /// Admits the write pages of request `id` under RAID-4/5: each stripe the request
    /// touches gets a group-buffer entry or a stripe job. Returns the data transactions.
    pub(super) fn raid_admit_writes(
        &mut self,
        id: ReqId,
        writes: &mut Vec<StripeWrite>,
        txns: &mut Vec<TxnId>,
    ) {
        // Keep arrival order inside a stripe; stripes in order of first appearance.
        writes.sort_by_key(|w| w.stripe);
        let mut i = 0;
        while i < writes.len() {
            let stripe = writes[i].stripe;
            let mut j = i;
            while j < writes.len() && writes[j].stripe == stripe {
                j += 1;
            }
            self.raid_stripe_write(id, &writes[i..j], txns);
            i = j;
        }
        writes.clear();
    }

    fn raid_stripe_write(&mut self, id: ReqId, ws: &[StripeWrite], txns: &mut Vec<TxnId>) {
        let stripe = ws[0].stripe;
        let r = self.raid();
        let groups = u64::from(r.layout.groups());
        let (row, group) = (stripe / groups, (stripe % groups) as u32);
        let buffered = r.buffer_new_writes
            && (r.buffers.contains_key(&stripe)
                || ws.iter().all(|w| self.ftl.lookup(w.lpn).is_none()));
        if buffered {
            self.buffer_writes(id, stripe, ws, txns);
            return;
        }
        // An update: capture old versions of the written pages and the other pages now.
        let d = self.raid().layout.group_size();
        let mut written: u64 = 0;
        let mut known = 0u64;
        let mut old_w = self.raid_mut().new_capture();
        for w in ws {
            if written & (1 << w.pos) == 0 {
                self.capture(w.lpn, &mut old_w);
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
        let parity_pos = self.raid().layout.parity(row, group).map(|c| c.pos);
        for pos in 0..d {
            if Some(pos) == parity_pos || written & (1 << pos) != 0 {
                continue;
            }
            if let Some(x) = self.raid().layout.lpn_at(row, group, pos) {
                self.capture(Lpn(x as u32), &mut others);
            }
        }
        let parity_mapped = self.parity_ppn(row, group).is_some();
        let job = self.choose_job(stripe, row, group, known, old_w, others, parity_mapped, id);
        for w in ws {
            self.raid_place_data(id, w, txns);
        }
        self.reqs[id].pending += 1;
        self.enqueue_job(job);
    }

    /// Picks RMW or RCW for a stripe whose new data XOR is `known`; pins what it keeps.
    #[allow(clippy::too_many_arguments)]
    fn choose_job(
        &mut self,
        stripe: u64,
        row: u64,
        group: u32,
        known: u64,
        old_w: Captured,
        others: Captured,
        parity_mapped: bool,
        req: ReqId,
    ) -> usize {
        let rmw_reads = old_w.reads.len() + usize::from(parity_mapped);
        let rcw_reads = others.reads.len();
        let prefer_rcw = self.raid().prefer_rcw;
        // A plan that would read a dead chip cannot run; with one failure per group the
        // other one can (they read disjoint pages).
        let dead = |c: &Captured| c.reads.iter().any(|&p| self.on_dead_chip(p));
        let parity_dead = self
            .parity_ppn(row, group)
            .is_some_and(|p| self.on_dead_chip(p));
        let rmw_ok = !dead(&old_w) && !old_w.lost && !parity_dead;
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
        })
    }

    /// Records the current version of `lpn` into `into`: a page to read, or (for a
    /// write waiting for space) content the controller holds.
    fn capture(&self, lpn: Lpn, into: &mut Captured) {
        if let Some(&(_, t)) = self.held_get(lpn) {
            into.known ^= t;
        } else if !self.redundant_only.is_empty() && self.redundant_only.contains(&lpn.0) {
            into.lost = true;
        } else if let Some(p) = self.ftl.lookup(lpn) {
            if self.ftl.is_pending(p) && !self.on_dead_chip(p) {
                // Still being programmed: its content is in the controller's write
                // buffer, as for a host read of it (a buffer hit, no flash read).
                into.known ^= self.ftl.token(p);
            } else {
                into.reads.push(p);
            }
        }
    }

    /// Places one data page of a RAID-4/5 write, or parks it with its content held.
    fn raid_place_data(&mut self, id: ReqId, w: &StripeWrite, txns: &mut Vec<TxnId>) {
        let home = self.chunk_plane(&w.chunk);
        let plane = self.dgc_place(w.lpn, home);
        self.write_or_park(id, w.lpn, plane, w.token, TxnReason::HostWrite, txns);
    }

    /// Bookkeeping when a host page of `lpn` starts or stops waiting for space: stripes
    /// with waiting pages cannot reconstruct.
    pub(super) fn raid_note_held(&mut self, lpn: Lpn, held: bool) {
        let Some(r) = self.raid.as_mut() else { return };
        if u64::from(lpn.0) >= r.host_pages || !r.level.has_parity() {
            return;
        }
        let c = r.layout.locate(u64::from(lpn.0));
        let stripe = r.stripe_of(&c);
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
    fn mark_stripe_losses(&mut self, row: u64, group: u32) {
        let mut lpns = Vec::new();
        self.raid().layout.stripe_lpns(row, group, &mut lpns);
        for x in lpns {
            let l = Lpn(x as u32);
            let gone = self.redundant_only.contains(&l.0)
                || self.ftl.lookup(l).is_some_and(|p| self.on_dead_chip(p));
            if gone {
                self.redundant_only.remove(&l.0);
                self.lost_lpns.insert(l.0);
            }
        }
    }

    /// The current page of the parity of stripe (row, group).
    fn parity_ppn(&self, row: u64, group: u32) -> Option<Ppn> {
        let r = self.raid();
        let i = r.layout.parity_index(row, group);
        self.ftl.lookup(r.red_lpn(i))
    }

    /// Queues job `j` behind the stripe's running job, or starts it.
    fn enqueue_job(&mut self, j: usize) {
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
    fn start_job(&mut self, j: usize) {
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
            self.write_parity(j);
            return;
        }
        self.raid_mut().counters.pre_reads += reads.len() as u64;
        for &p in &reads {
            let lpn = Lpn(u32::MAX);
            self.raid_txn(FlashOp::Read, TxnReason::PreRead, p, lpn, j as u32);
        }
        self.raid_mut().jobs[j].reads = reads;
    }

    /// All pre-reads of job `j` are in: program the new parity.
    fn write_parity(&mut self, j: usize) {
        let (row, group, token) = {
            let job = &self.raid().jobs[j];
            (job.row, job.group, job.known ^ job.acc)
        };
        let r = self.raid();
        let chunk = r
            .layout
            .parity(row, group)
            .expect("RAID-4/5 stripes have parity");
        let plity = r.red_lpn(r.layout.parity_index(row, group));
        let plane = self.chunk_plane(&chunk);
        if self.plane_dead(plane) {
            // The parity member is dead (and has no spare): the stripe stays degraded.
            self.finish_job(j, 0, 0);
            return;
        }
        match self.ftl.host_write(plity, plane, token) {
            Ok(ppn) => {
                self.raid_mut().counters.parity_writes += 1;
                self.raid_txn(
                    FlashOp::Program,
                    TxnReason::ParityWrite,
                    ppn,
                    plity,
                    j as u32,
                );
            }
            Err(_) => self.park_parity(j, plity, plane, token),
        }
        self.gc_check.push(plane);
    }

    /// Runs the GC checks collected while queueing work.
    pub(super) fn run_gc_checks(&mut self) {
        let mut planes = std::mem::take(&mut self.gc_check);
        for &plane in &planes {
            self.maybe_start_gc(plane, false);
        }
        planes.clear();
        self.gc_check = planes;
        if self.dgc.enabled {
            self.dgc_collect_idle_spared();
        }
    }

    /// A RAID transaction finished.
    pub(super) fn raid_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        match txn.reason {
            TxnReason::PreRead => {
                let token = self.ftl.token(txn.ppn);
                self.ftl.unpin(txn.ppn);
                self.gc_page_released(txn.ppn);
                let j = txn.aux as usize;
                let job = &mut self.raid_mut().jobs[j];
                job.acc ^= token;
                job.reads_left -= 1;
                if job.reads_left == 0 {
                    self.write_parity(j);
                }
            }
            TxnReason::ParityWrite => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
                self.finish_job(txn.aux as usize, txn.bus_ns + txn.array_ns, txn.gc_mark_ns);
            }
            TxnReason::MirrorWrite => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
                self.sub_done(txn.req, txn.bus_ns + txn.array_ns, txn.gc_mark_ns);
            }
            TxnReason::ReconstructRead => self.recon_read_done(&txn),
            r => unreachable!("{r:?} is not RAID traffic"),
        }
        self.run_gc_checks();
    }

    /// A parity page parked on a chip that died: its job ends without a program.
    pub(super) fn finish_parked_parity(&mut self, j: usize) {
        self.finish_job(j, 0, 0);
    }

    /// The parity of job `j` is on flash: release the stripe and its request.
    fn finish_job(&mut self, j: usize, service_ns: u64, gc_wait_ns: u64) {
        let (stripe, req) = {
            let job = &self.raid().jobs[j];
            (job.stripe, job.req)
        };
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
            self.sub_done(req, service_ns, gc_wait_ns);
        }
        if let Some(n) = next {
            self.start_job(n);
        }
    }
}

impl Simulation {
    /// Adds new writes to stripe `stripe`'s group buffer, programming their data now.
    fn buffer_writes(&mut self, id: ReqId, stripe: u64, ws: &[StripeWrite], txns: &mut Vec<TxnId>) {
        let g = self.raid().layout.group_size() as usize;
        let slot = match self.raid().buffers.get(&stripe) {
            Some(&s) => s,
            None => self.open_buffer(stripe, g),
        };
        for w in ws {
            let pos = w.pos as usize;
            let first = self.raid().buffer_slots[slot].positions & (1 << pos) == 0;
            if first {
                let mut old = std::mem::take(&mut self.raid_mut().buffer_slots[slot].old);
                let before = old.reads.len();
                self.capture(w.lpn, &mut old);
                for &p in &old.reads[before..] {
                    self.ftl.pin(p);
                }
                let b = &mut self.raid_mut().buffer_slots[slot];
                b.old = old;
                b.positions |= 1 << pos;
            } else {
                let b = &mut self.raid_mut().buffer_slots[slot];
                b.new_xor ^= b.tokens[pos];
            }
            let b = &mut self.raid_mut().buffer_slots[slot];
            b.tokens[pos] = w.token;
            b.new_xor ^= w.token;
            self.raid_place_data(id, w, txns);
        }
        let groups = u64::from(self.raid().layout.groups());
        let (row, group) = (stripe / groups, (stripe % groups) as u32);
        let parity_pos = self
            .raid()
            .layout
            .parity(row, group)
            .map_or(u32::MAX, |c| c.pos);
        let full: u64 = (0..g as u32)
            .filter(|&p| p != parity_pos)
            .map(|p| 1u64 << p)
            .sum();
        if self.raid().buffer_slots[slot].positions == full {
            self.encode(stripe);
        }
    }

    fn open_buffer(&mut self, stripe: u64, g: usize) -> usize {
        let r = self.raid_mut();
        let slot = match r.buffer_free.pop() {
            Some(s) => s,
            None => {
                r.buffer_slots.push(GroupBuffer::default());
                r.buffer_slots.len() - 1
            }
        };
        let b = &mut r.buffer_slots[slot];
        b.positions = 0;
        b.new_xor = 0;
        b.tokens.clear();
        b.tokens.resize(g, 0);
        b.old = Captured::default();
        b.generation = b.generation.wrapping_add(1);
        b.stripe = stripe;
        let generation = b.generation;
        r.buffers.insert(stripe, slot);
        let at = self.now() + ssdlab_engine::SimDuration(self.raid().encode_timeout_ns);
        self.events
            .schedule(at, Event::EncodeTimeout(slot as u32, generation))
            .expect("never in the past");
        slot
    }

    /// The encode timeout of buffer `slot` fired.
    pub(super) fn on_encode_timeout(&mut self, slot: u32, generation: u32) {
        let r = self.raid();
        let b = &r.buffer_slots[slot as usize];
        let stripe = b.stripe;
        if b.generation != generation || r.buffers.get(&stripe) != Some(&(slot as usize)) {
            return;
        }
        self.raid_mut().counters.timeouts += 1;
        self.encode(stripe);
        self.run_gc_checks();
        self.wake_touched();
    }

    /// Closes stripe `stripe`'s group buffer into a parity job.
    fn encode(&mut self, stripe: u64) {
        let slot = self
            .raid_mut()
            .buffers
            .remove(&stripe)
            .expect("an open buffer");
        let groups = u64::from(self.raid().layout.groups());
        let (row, group) = (stripe / groups, (stripe % groups) as u32);
        let b = std::mem::take(&mut self.raid_mut().buffer_slots[slot]);
        let generation = b.generation;
        let g = self.raid().layout.group_size();
        let parity_pos = self.raid().layout.parity(row, group).map(|c| c.pos);
        let mut others = self.raid_mut().new_capture();
        for pos in 0..g {
            if Some(pos) == parity_pos || b.positions & (1 << pos) != 0 {
                continue;
            }
            if let Some(x) = self.raid().layout.lpn_at(row, group, pos) {
                self.capture(Lpn(x as u32), &mut others);
            }
        }
        let old_w = b.old.clone();
        // The buffer pinned the old versions; the job pins what it keeps.
        for &p in &old_w.reads {
            self.ftl.unpin(p);
            self.gc_page_released(p);
        }
        let parity_mapped = self.parity_ppn(row, group).is_some();
        let job = self.choose_job(
            stripe,
            row,
            group,
            b.new_xor,
            old_w,
            others,
            parity_mapped,
            NONE,
        );
        let r = self.raid_mut();
        r.buffer_slots[slot] = GroupBuffer {
            generation: generation.wrapping_add(1),
            old: Captured::default(),
            ..b
        };
        r.buffer_free.push(slot);
        self.enqueue_job(job);
    }

    /// A parity page that found no free page waits for the plane's next erase.
    fn park_parity(&mut self, j: usize, lpn: Lpn, plane: PlaneId, token: u64) {
        self.counters.parked_writes += 1;
        self.parked[plane.idx()].push(super::gc::Parked {
            req: NONE,
            lpn,
            token,
            reason: TxnReason::ParityWrite,
            job: j as u32,
            seq: 0,
        });
    }

    /// Places a parked parity page again; false if there is still no space.
    pub(super) fn unpark_parity(&mut self, j: u32, lpn: Lpn, plane: PlaneId, token: u64) -> bool {
        match self.ftl.host_write(lpn, plane, token) {
            Ok(ppn) => {
                self.raid_mut().counters.parity_writes += 1;
                self.raid_txn(FlashOp::Program, TxnReason::ParityWrite, ppn, lpn, j);
                true
            }
            Err(_) => false,
        }
    }

    /// The pages whose XOR is `lpn`'s content (RAID-4/5: the rest of its stripe and the
    /// parity; RAID-1: the other copy). False when that is impossible now: the stripe's
    /// parity is in motion, a source is on a dead chip or still being programmed.
    pub(super) fn raid_sources(&self, lpn: Lpn, out: &mut Vec<Ppn>) -> bool {
        !self.raid_stripe_busy(lpn) && self.raid_sources_ignoring_busy(lpn, out)
    }

    /// [`Simulation::raid_sources`] without the check that the stripe is quiescent.
    pub(super) fn raid_sources_ignoring_busy(&self, lpn: Lpn, out: &mut Vec<Ppn>) -> bool {
        self.raid_sources_with(lpn, out, false)
    }

    /// True when `lpn` can be rebuilt once pages in flight have landed (its sources
    /// exist and none is on a dead chip): a degraded read may wait for it.
    pub(super) fn raid_recoverable_later(&self, lpn: Lpn) -> bool {
        self.raid_sources_with(lpn, &mut Vec::new(), true)
    }

    fn raid_sources_with(&self, lpn: Lpn, out: &mut Vec<Ppn>, allow_in_flight: bool) -> bool {
        out.clear();
        let r = self.raid();
        let x = u64::from(lpn.0);
        let usable = |p: Ppn| (allow_in_flight || !self.ftl.is_pending(p)) && !self.on_dead_chip(p);
        let take = |l: Lpn, out: &mut Vec<Ppn>| -> bool {
            if (!self.redundant_only.is_empty() && self.redundant_only.contains(&l.0))
                || (!self.lost_lpns.is_empty() && self.lost_lpns.contains(&l.0))
                || (!allow_in_flight && self.held_get(l).is_some())
            {
                return false;
            }
            match self.ftl.lookup(l) {
                Some(p) if usable(p) => {
                    out.push(p);
                    true
                }
                Some(_) => false,
                None => true, // never written: contributes nothing
            }
        };
        let ok = match r.level {
            RaidLevel::Raid1 if x >= r.host_pages => {
                // A mirror page is its primary.
                take(Lpn((x - r.host_pages) as u32), out) && !out.is_empty()
            }
            RaidLevel::Raid1 => {
                let primary_dead = self.ftl.lookup(lpn).is_some_and(|p| self.on_dead_chip(p));
                let other = if primary_dead || self.redundant_only.contains(&lpn.0) {
                    r.mirror_of(lpn).map(|(m, _)| m)
                } else {
                    Some(lpn)
                };
                other.is_some_and(|o| take(o, out)) && !out.is_empty()
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(r.layout.groups());
                let (row, group, pos) = if x >= r.host_pages {
                    let i = x - r.host_pages;
                    (i / groups, (i % groups) as u32, None)
                } else {
                    let c = r.layout.locate(x);
                    (c.row, c.group, Some(c.pos))
                };
                let mut ok = true;
                for q in 0..r.layout.group_size() {
                    if Some(q) == pos {
                        continue;
                    }
                    let l = match r.layout.lpn_at(row, group, q) {
                        Some(y) => Lpn(y as u32),
                        None if pos.is_some() => {
                            // The parity is needed to rebuild a data page.
                            let plity = r.red_lpn(r.layout.parity_index(row, group));
                            if self.ftl.lookup(plity).is_none() {
                                ok = false;
                                break;
                            }
                            plity
                        }
                        None => continue,
                    };
                    if !take(l, out) {
                        ok = false;
                        break;
                    }
                }
                ok
            }
            RaidLevel::Raid0 | RaidLevel::None => false,
        };
        if !ok {
            out.clear();
        }
        ok
    }

    /// True while `lpn`'s stripe has a parity update, open buffer or held page.
    pub(super) fn raid_stripe_busy(&self, lpn: Lpn) -> bool {
        let r = self.raid();
        if !r.level.has_parity() {
            return false;
        }
        let x = u64::from(lpn.0);
        let stripe = if x >= r.host_pages {
            x - r.host_pages
        } else {
            r.stripe_of(&r.layout.locate(x))
        };
        r.locks.contains_key(&stripe)
            || r.buffers.contains_key(&stripe)
            || r.parked_stripes.contains_key(&stripe)
    }

    /// The FTL LPN stored at member `member` in row `row` (data, parity or mirror).
    pub(super) fn raid_lpn_of_member(&self, row: u64, member: u32) -> Option<Lpn> {
        let r = self.raid();
        let (group, pos) = (r.layout.group_of(member), r.layout.pos_in_group(member));
        if let Some(x) = r.layout.lpn_at(row, group, pos) {
            return (x < r.host_pages).then_some(Lpn(x as u32));
        }
        match r.level {
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                Some(r.red_lpn(r.layout.parity_index(row, group)))
            }
            RaidLevel::Raid1 => {
                let half = r.layout.group_size() / 2;
                let primary = r.layout.lpn_at(row, group, pos.checked_sub(half)?)?;
                (primary < r.host_pages).then(|| r.red_lpn(primary))
            }
            RaidLevel::Raid0 | RaidLevel::None => None,
        }
    }

    /// Serves host read page `lpn` of request `id` by XOR of its stripe's other members.
    /// Returns false (nothing done) when the stripe cannot reconstruct it now.
    pub(super) fn reconstruct_read(&mut self, id: ReqId, lpn: Lpn, expect: u64) -> bool {
        let mut pages: Vec<Ppn> = Vec::new();
        if !self.raid_sources(lpn, &mut pages) {
            return false;
        }
        let r = self.raid_mut();
        let job = ReconJob {
            req: id,
            lpn,
            expect,
            acc: 0,
            reads_left: pages.len() as u32,
            service_ns: 0,
        };
        let k = match r.recon_free.pop() {
            Some(k) => {
                r.recon[k] = job;
                k
            }
            None => {
                r.recon.push(job);
                r.recon.len() - 1
            }
        };
        r.counters.reconstructions += 1;
        r.counters.reconstruct_reads += pages.len() as u64;
        for &p in &pages {
            self.ftl.pin(p);
            self.raid_txn(FlashOp::Read, TxnReason::ReconstructRead, p, lpn, k as u32);
        }
        true
    }

    fn recon_read_done(&mut self, txn: &Txn) {
        let token = self.ftl.token(txn.ppn);
        self.ftl.unpin(txn.ppn);
        self.gc_page_released(txn.ppn);
        let k = txn.aux as usize;
        let service = txn.bus_ns + txn.array_ns;
        let job = &mut self.raid_mut().recon[k];
        job.acc ^= token;
        job.reads_left -= 1;
        job.service_ns = job.service_ns.max(service);
        if job.reads_left > 0 {
            return;
        }
        let job = *job;
        self.raid_mut().recon_free.push(k);
        if self.cfg.verify {
            self.check_token(job.lpn, job.expect, job.acc);
        }
        self.sub_done(job.req, job.service_ns, txn.gc_mark_ns);
    }
}

impl RaidState {
    /// The RAID state for `cfg` on `geom`, and the number of map entries (host pages
    /// plus redundancy pages) the FTL must hold; `None` without a RAID layer.
    ///
    /// Capacity: the FTL's logical pages of the member chips (spares excluded) are laid
    /// out in whole rows of one page per member; a row carries `data_per_row` host pages.
    pub fn new(cfg: &crate::SimConfig) -> Result<Option<(RaidState, u32)>, crate::SimError> {
        let rc = &cfg.raid;
        if rc.level == RaidLevel::None {
            return Ok(None);
        }
        let g = &cfg.geometry;
        let members = match rc.domain {
            Domain::Chip => g.chips() - rc.spare_chips,
            Domain::Channel => g.channels,
        };
        let layout = RaidLayout::new(rc, members)
            .map_err(|e| crate::SimError::config("raid", e.to_string()))?;
        let member_chips = u64::from(g.chips() - rc.spare_chips);
        let entries = u64::from(cfg.ftl.logical_pages(g)) * member_chips / u64::from(g.chips());
        let rows = entries / u64::from(members);
        let host_pages = rows * u64::from(layout.data_per_row());
        let redundancy = match rc.level {
            RaidLevel::Raid1 => host_pages,
            RaidLevel::Raid4 | RaidLevel::Raid5 => rows * u64::from(layout.groups()),
            RaidLevel::Raid0 | RaidLevel::None => 0,
        };
        if host_pages == 0 {
            return Err(crate::SimError::config(
                "raid",
                "leaves no host capacity for this geometry".into(),
            ));
        }
        let state = RaidState {
            level: rc.level,
            domain: rc.domain,
            chip_choice: rc.chip_in_channel,
            host_pages,
            buffer_new_writes: rc.buffer_new_writes,
            force_reconstruct: rc.force_reconstruct_reads,
            prefer_rcw: rc.update == ssdlab_raid::UpdateRule::Rcw,
            encode_timeout_ns: rc.encode_timeout_ns,
            buffers: HashMap::default(),
            buffer_slots: Vec::new(),
            buffer_free: Vec::new(),
            parked_stripes: HashMap::default(),
            member_chip: (0..members).collect(),
            locks: HashMap::default(),
            lock_waiters: HashMap::default(),
            jobs: Vec::new(),
            job_free: Vec::new(),
            recon: Vec::new(),
            recon_free: Vec::new(),
            counters: RaidCounters::default(),
            vec_pool: Vec::new(),
            layout,
        };
        Ok(Some((state, (host_pages + redundancy) as u32)))
    }
}

impl Simulation {
    /// After zero-time preconditioning, gives every redundancy page its real content
    /// (the XOR of its stripe, or its primary's content) so that the array starts
    /// consistent.
    pub(super) fn raid_fix_redundancy(&mut self) {
        let Some(r) = self.raid.as_ref() else { return };
        let level = r.level;
        let host = r.host_pages;
        match level {
            RaidLevel::Raid1 => {
                for x in 0..host {
                    let lpn = Lpn(x as u32);
                    let token = self.ftl.lookup(lpn).map(|p| self.ftl.token(p));
                    self.set_redundancy(self.raid().red_lpn(x), token.unwrap_or(0));
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(self.raid().layout.groups());
                let rows = host / u64::from(self.raid().layout.data_per_row());
                let mut lpns = Vec::new();
                for row in 0..rows {
                    for group in 0..groups as u32 {
                        self.raid().layout.stripe_lpns(row, group, &mut lpns);
                        let xor = lpns.iter().fold(0u64, |acc, &x| {
                            acc ^ self
                                .ftl
                                .lookup(Lpn(x as u32))
                                .map_or(0, |p| self.ftl.token(p))
                        });
                        let i = self.raid().layout.parity_index(row, group);
                        self.set_redundancy(self.raid().red_lpn(i), xor);
                    }
                }
            }
            RaidLevel::Raid0 | RaidLevel::None => {}
        }
    }

    /// Sets redundancy page `lpn` to `token` in zero time (writing it if needed).
    fn set_redundancy(&mut self, lpn: Lpn, token: u64) {
        match self.ftl.lookup(lpn) {
            Some(p) => self.ftl.set_token(p, token),
            None if token == 0 => {}
            None => {
                let plane = self.raid_static_plane(lpn);
                if let Ok(p) = self.ftl.host_write(lpn, plane, token) {
                    self.ftl.program_done(p);
                }
            }
        }
    }

    /// Full redundancy check: every stripe without a job or open buffer has parity
    /// equal to the XOR of its data; every mirror equals its primary. Returns the
    /// number of stripes or mirrors checked.
    pub(super) fn raid_audit(&self) -> Result<u64, String> {
        let Some(r) = self.raid.as_ref() else {
            return Ok(0);
        };
        let token = |lpn: u64| {
            self.ftl
                .lookup(Lpn(lpn as u32))
                .map_or(0, |p| self.ftl.token(p))
        };
        // Pages on dead chips are lost; their redundancy is checked through reads.
        let dead = |lpn: u64| {
            self.ftl
                .lookup(Lpn(lpn as u32))
                .is_some_and(|p| self.on_dead_chip(p))
        };
        let mut checked = 0;
        match r.level {
            RaidLevel::Raid1 => {
                for x in 0..r.host_pages {
                    let m = u64::from(r.red_lpn(x).0);
                    if dead(x) || dead(m) {
                        continue;
                    }
                    let (a, b) = (token(x), token(m));
                    if a != b {
                        return Err(format!("mirror of LPN {x} holds {b:#x}, primary {a:#x}"));
                    }
                    checked += 1;
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(r.layout.groups());
                let rows = r.host_pages / u64::from(r.layout.data_per_row());
                let mut lpns = Vec::new();
                for row in 0..rows {
                    for group in 0..groups as u32 {
                        let i = r.layout.parity_index(row, group);
                        if r.locks.contains_key(&i)
                            || r.buffers.contains_key(&i)
                            || r.parked_stripes.contains_key(&i)
                        {
                            continue;
                        }
                        r.layout.stripe_lpns(row, group, &mut lpns);
                        let lost = |x: u64| dead(x) || self.redundant_only.contains(&(x as u32));
                        let plity = r.red_lpn(i);
                        let parity_lost = dead(u64::from(plity.0))
                            || (self.ftl.lookup(plity).is_none()
                                && self.plane_dead(r.static_plane(&self.geom, plity)));
                        if parity_lost || lpns.iter().any(|&x| lost(x)) {
                            continue;
                        }
                        let xor = lpns.iter().fold(0, |acc, &x| acc ^ token(x));
                        let parity = token(u64::from(r.red_lpn(i).0));
                        if xor != parity {
                            return Err(format!(
                                "stripe row {row} group {group}: parity {parity:#x} != XOR of data {xor:#x}"
                            ));
                        }
                        checked += 1;
                    }
                }
            }
            RaidLevel::Raid0 | RaidLevel::None => {}
        }
        Ok(checked)
    }

    /// Test hook: flips bits of the parity page of `lpn`'s stripe, so that tests can
    /// show that verify mode catches a reconstruction from broken parity.
    pub fn corrupt_parity_for_test(&mut self, lpn: u32) -> bool {
        let Some(r) = self.raid.as_ref() else {
            return false;
        };
        if !matches!(r.level, RaidLevel::Raid4 | RaidLevel::Raid5) {
            return false;
        }
        let c = r.layout.locate(u64::from(lpn));
        let Some(p) = self.parity_ppn(c.row, c.group) else {
            return false;
        };
        let t = self.ftl.token(p);
        self.ftl.set_token(p, t ^ 0x5a5a_5a5a);
        true
    }
}

impl Simulation {
    /// RAID-1 read: the copy whose chip has less outstanding work (ties: the primary).
    pub(super) fn pick_mirror_copy(&mut self, lpn: Lpn, primary: Ppn) -> Ppn {
        let Some((mlpn, _)) = self.raid().mirror_of(lpn) else {
            return primary;
        };
        if self.held.contains_key(&mlpn.0) {
            return primary;
        }
        let Some(m) = self.ftl.lookup(mlpn) else {
            return primary;
        };
        // A copy that is being programmed or sits on a dead chip is not offered.
        if self.ftl.is_pending(m) || self.on_dead_chip(m) {
            return primary;
        }
        let load = |p: Ppn| self.queues.load[self.geom.chip_of_page(p).idx()];
        if load(m) < load(primary) {
            self.raid_mut().counters.mirror_reads += 1;
            m
        } else {
            primary
        }
    }

    /// Materializes a never-written host page under RAID: the unwritten pages of its
    /// stripe and the stripe's parity (RAID-4/5), or both copies (RAID-1), in zero time.
    /// False if the stripe is being updated (its parity is in motion) or space is short.
    pub(super) fn raid_materialize(&mut self, lpn: Lpn) -> bool {
        let r = self.raid();
        let level = r.level;
        let chunk = r.layout.locate(u64::from(lpn.0));
        match level {
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                if !self.raid_materialize_feasible(lpn) {
                    return false;
                }
                let r = self.raid();
                let stripe = r.stripe_of(&chunk);
                if r.locks.contains_key(&stripe)
                    || r.buffers.contains_key(&stripe)
                    || r.parked_stripes.contains_key(&stripe)
                {
                    return false;
                }
                let mut lpns = Vec::new();
                r.layout.stripe_lpns(chunk.row, chunk.group, &mut lpns);
                let mut xor = 0u64;
                for &x in &lpns {
                    let l = Lpn(x as u32);
                    let token = match self.ftl.lookup(l) {
                        Some(p) => self.ftl.token(p),
                        None => {
                            let t = ssdlab_ftl::token_for(l, 0);
                            let plane = self.raid_static_plane(l);
                            if self.plane_dead(plane) {
                                if l == lpn {
                                    return false;
                                }
                                continue;
                            }
                            if !self.materialize_page(l, plane, t) {
                                return false;
                            }
                            if self.cfg.verify {
                                self.shadow[l.idx()] = t;
                            }
                            t
                        }
                    };
                    xor ^= token;
                }
                let i = self.raid().layout.parity_index(chunk.row, chunk.group);
                let plity = self.raid().red_lpn(i);
                let plane = self.raid_static_plane(plity);
                if self.plane_dead(plane) {
                    return true;
                }
                self.materialize_page(plity, plane, xor)
            }
            RaidLevel::Raid1 => {
                let t = ssdlab_ftl::token_for(lpn, 0);
                let plane = self.raid_static_plane(lpn);
                let (mlpn, _) = self.raid().mirror_of(lpn).expect("RAID-1");
                let mplane = self.raid_static_plane(mlpn);
                if !self.materialize_page(lpn, plane, t) {
                    return false;
                }
                if self.cfg.verify {
                    self.shadow[lpn.idx()] = t;
                }
                self.materialize_page(mlpn, mplane, t)
            }
            RaidLevel::Raid0 | RaidLevel::None => {
                let t = ssdlab_ftl::token_for(lpn, 0);
                let plane = self.raid_static_plane(lpn);
                let ok = self.materialize_page(lpn, plane, t);
                if ok && self.cfg.verify {
                    self.shadow[lpn.idx()] = t;
                }
                ok
            }
        }
    }

    /// True when the whole stripe of `lpn` can be materialized at once: its own page
    /// is on a live chip and every page to write has a free page in its plane.
    fn raid_materialize_feasible(&self, lpn: Lpn) -> bool {
        let r = self.raid();
        let c = r.layout.locate(u64::from(lpn.0));
        if self.plane_dead(self.raid_static_plane(lpn)) {
            return false;
        }
        let mut lpns = Vec::new();
        r.layout.stripe_lpns(c.row, c.group, &mut lpns);
        let parity = r.red_lpn(r.layout.parity_index(c.row, c.group));
        let mut planes: Vec<(PlaneId, u64)> = Vec::new();
        for l in lpns.iter().map(|&x| Lpn(x as u32)).chain([parity]) {
            let plane = self.raid_static_plane(l);
            if self.plane_dead(plane) || (l != parity && self.ftl.lookup(l).is_some()) {
                continue;
            }
            match planes.iter_mut().find(|(p, _)| *p == plane) {
                Some((_, n)) => *n += 1,
                None => planes.push((plane, 1)),
            }
        }
        planes
            .iter()
            .all(|&(p, n)| self.ftl.free_pages_in_plane(p) >= n)
    }

    /// RAID counters for the report.
    pub(super) fn raid_counters(&self) -> Vec<(&'static str, u64)> {
        let Some(r) = self.raid.as_ref() else {
            return Vec::new();
        };
        let c = r.counters;
        vec![
            ("raid-rmw", c.rmw),
            ("raid-rcw", c.rcw),
            ("raid-full-group", c.full_group),
            ("raid-pre-reads", c.pre_reads),
            ("raid-parity-writes", c.parity_writes),
            ("raid-group-timeouts", c.timeouts),
            (ssdlab_stats::counter::MIRROR_WRITES, c.mirror_writes),
            ("raid-mirror-reads", c.mirror_reads),
            ("raid-reconstructions", c.reconstructions),
            ("raid-reconstruct-reads", c.reconstruct_reads),
        ]
    }
}

/// The read plans the controller can execute now, as the scheduler sees them.
pub(crate) struct Plans<'a> {
    pub raid: Option<&'a RaidState>,
    pub dead: &'a super::fail::FailState,
    pub ftl: &'a ssdlab_ftl::Ftl,
    pub txns: &'a super::txn::TxnSlab,
    pub geom: &'a Geometry,
}

impl crate::sched::PlanOracle for Plans<'_> {
    fn reconstruct_chips(&self, t: TxnId, chips: &mut Vec<ChipId>) -> bool {
        chips.clear();
        let Some(r) = self.raid else { return false };
        let txn = &self.txns[t];
        if txn.reason != TxnReason::HostRead || !r.level.has_parity() {
            return false;
        }
        let c = r.layout.locate(u64::from(txn.lpn.0));
        let stripe = r.stripe_of(&c);
        if r.locks.contains_key(&stripe)
            || r.buffers.contains_key(&stripe)
            || r.parked_stripes.contains_key(&stripe)
        {
            return false;
        }
        let parity = self.ftl.lookup(r.red_lpn(stripe));
        if parity.is_none() {
            return false;
        }
        for pos in 0..r.layout.group_size() {
            if pos == c.pos {
                continue;
            }
            let ppn = match r.layout.lpn_at(c.row, c.group, pos) {
                Some(x) => self.ftl.lookup(Lpn(x as u32)),
                None => parity,
            };
            if let Some(p) = ppn {
                let chip = self.geom.chip_of_page(p);
                if self.ftl.is_pending(p) || self.dead.is_dead(chip) {
                    chips.clear();
                    return false;
                }
                chips.push(chip);
            }
        }
        true
    }
}

impl Simulation {
    /// Replaces the host reads a policy redirected with reconstructions.
    pub(super) fn process_redirects(&mut self) {
        if self.queues.redirected.is_empty() {
            return;
        }
        let list = std::mem::take(&mut self.queues.redirected);
        for &t in &list {
            let txn = self.txns[t];
            debug_assert_eq!(txn.reason, TxnReason::HostRead);
            if self.reconstruct_read(txn.req, txn.lpn, txn.expect) {
                self.ftl.unpin(txn.ppn);
                self.gc_page_released(txn.ppn);
                let chip = self.geom.chip_of_die(txn.die);
                self.queues.load[chip.idx()] -= 1;
                self.txns.remove(t);
                self.counters.redirected_reads += 1;
            } else {
                // The stripe changed since the policy asked: read directly after all.
                self.sched.submit_background(t, &mut sched_ctx!(self));
            }
        }
        let mut list = list;
        list.clear();
        self.queues.redirected = list;
    }
}
