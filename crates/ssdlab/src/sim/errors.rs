//! The error model in the request path (docs/ERRORS.md): present only with
//! `errors.mode = "on"`, as `Simulation::errors`.
//!
//! ```text
//!  read group starts on a die ─► errors_read_group: per page, RBER from the block's P/E
//!     (backend.rs / nand.rs)       cycles, the page's age, the block's reads, the page type;
//!                                  ECC decode; extra senses lengthen the die's array time,
//!                                  extra transfers the page's bus time (no new event)
//!  a transaction completes ───► errors_txn_done: programs stamp their page's age, erases
//!     (complete_txn)               reset the block's reads; an uncorrectable host read is
//!                                  rebuilt from its RAID stripe (sim/raid/recon.rs) or
//!                                  answered with a media error
//!  a request completes ───────► errors_request_done: T_retry and the request's status
//! ```
//!
//! [`ErrorsState`] keeps the wear, age and read-disturb state and the counts; it knows
//! nothing of the simulator and is tested on its own.

use super::txn::{ReqId, TxnId, NONE};
use super::Simulation;
use crate::config::ErrorsConfig;
use rustc_hash::{FxHashMap, FxHashSet};
use ssdlab_engine::SimRng;
use ssdlab_nand::{BlockId, DieId, ErrorModel, FlashOp, Geometry, Lpn, Ppn, StepTimes, TxnReason};
use ssdlab_stats::{CountSpread, ErrorsReport, OpClass};

/// What one page read's decoding cost beyond a clean read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Charge {
    /// Array time the die spends on the extra senses and decodes.
    pub array_ns: u64,
    /// Extra senses: each moves the page over the bus once more.
    pub senses: u32,
    /// The whole extra time (senses, transfers, decodes): the read's T_retry.
    pub retry_ns: u64,
    /// No step corrected the page.
    pub uncorrectable: bool,
}

/// Counts behind the report's `errors` section.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    reads: u64,
    retried: u64,
    retry_steps: u64,
    soft: u64,
    uncorrectable: u64,
    host_uncorrectable: u64,
    rebuilt: u64,
    lost: u64,
    media_error_requests: u64,
    double_faults: u64,
    failed_rebuilds: u64,
    background: u64,
    background_recovered: u64,
    background_lost: u64,
    reclaimed_blocks: u64,
    reclaimed_pages: u64,
    reclaim_skipped: u64,
}

/// The device's wear, age and read-disturb state and the run's error draws.
pub(crate) struct ErrorsState {
    model: ErrorModel,
    codewords: u32,
    pages_per_block: u32,
    initial_pe: u32,
    /// Per block: P/E cycles before the run.
    base_pe: Vec<u32>,
    /// Per block: page reads since its last erase (read disturb).
    reads: Vec<u32>,
    /// Pages programmed during the run: when, in ms since its start. A page not in it
    /// holds data that was on the device at the start. (A map, not a per-page table: a
    /// run touches few of a large drive's pages.)
    programmed_ms: FxHashMap<u32, u32>,
    initial_age_s: f64,
    /// Per die: the array time its current read group adds.
    die_extra: Vec<u64>,
    /// Reads in flight that needed more than one decode.
    charged: FxHashMap<TxnId, Charge>,
    /// Logical pages whose data a background read could not decode, without redundancy.
    poisoned: FxHashSet<u32>,
    /// Host requests that will complete with a media error.
    failed: FxHashSet<ReqId>,
    /// Reconstructions (by job) a source of which could not be decoded.
    failed_jobs: FxHashSet<u32>,
    /// `errors.reclaim_steps` (0: no read reclaim).
    reclaim_steps: u32,
    /// Blocks to relocate for their reads' bit errors, in the order they asked.
    reclaim: Vec<BlockId>,
    /// The same blocks, for a quick test.
    reclaim_set: FxHashSet<u32>,
    /// Host page reads waiting for their stripe to settle before a rebuild.
    waiting: Vec<(ReqId, Lpn)>,
    /// Per host request: T_retry of its last-completing page read.
    req_retry: FxHashMap<ReqId, u64>,
    c: Counts,
    rber_sum: f64,
    /// Reads by steps taken; the last entry counts the uncorrectable ones.
    histogram: Vec<u64>,
}

impl ErrorsState {
    /// The state of a device of `geom` at the start of a run with `cfg`; its draws come
    /// from streams forked off `run_rng` (`"errors"` for decodes, `"errors-wear"` for
    /// the per-block spread of the initial wear).
    ///
    /// # Panics
    /// If `cfg` was not validated ([`ErrorsConfig::validate`]).
    pub(crate) fn new(cfg: &ErrorsConfig, geom: &Geometry, run_rng: &SimRng) -> Self {
        let model = ErrorModel::new(cfg.rber.clone(), cfg.ecc.clone(), run_rng)
            .expect("errors: validated configuration");
        let mut wear = run_rng.fork("errors-wear");
        let blocks = geom.blocks() as usize;
        let base_pe = (0..blocks)
            .map(|_| spread_pe(cfg.initial_pe, cfg.pe_spread, &mut wear))
            .collect();
        let steps = cfg.ecc.retry_factors.len() + cfg.ecc.soft_tiers.len();
        ErrorsState {
            codewords: cfg.codewords(geom.page_size_bytes),
            pages_per_block: geom.pages_per_block,
            initial_pe: cfg.initial_pe,
            base_pe,
            reads: vec![0; blocks],
            programmed_ms: FxHashMap::default(),
            initial_age_s: cfg.initial_age_s,
            die_extra: vec![0; geom.dies() as usize],
            charged: FxHashMap::default(),
            poisoned: FxHashSet::default(),
            failed: FxHashSet::default(),
            failed_jobs: FxHashSet::default(),
            req_retry: FxHashMap::default(),
            waiting: Vec::new(),
            reclaim_steps: cfg.reclaim_steps,
            reclaim: Vec::new(),
            reclaim_set: FxHashSet::default(),
            c: Counts::default(),
            rber_sum: 0.0,
            histogram: vec![0; steps + 2],
            model,
        }
    }

    /// P/E cycles of `block`, which the run (and its preconditioning) erased `erases`
    /// times.
    pub(crate) fn pe(&self, block: BlockId, erases: u32) -> u32 {
        self.base_pe[block.idx()].saturating_add(erases)
    }

    /// Retention age of the data of `ppn` at `now_ns`, in seconds.
    pub(crate) fn age_s(&self, ppn: Ppn, now_ns: u64) -> f64 {
        let now_s = now_ns as f64 * 1e-9;
        match self.programmed_ms.get(&ppn.0) {
            None => self.initial_age_s + now_s,
            Some(&ms) => (now_s - f64::from(ms) * 1e-3).max(0.0),
        }
    }

    /// Decodes one page read of transaction `t`: page `ppn` of `block` (erased `erases`
    /// times in the run), of page type `page_type`, sensed in `times.sense_ns` and
    /// moved in `times.xfer_ns`. Counts the read against its block's read disturb.
    /// Returns its charge when it needed more than one decode (kept for
    /// [`ErrorsState::take`]).
    pub(crate) fn read(
        &mut self,
        t: TxnId,
        ppn: Ppn,
        erases: u32,
        page_type: u32,
        now_ns: u64,
        times: StepTimes,
    ) -> Option<Charge> {
        let block = BlockId(ppn.0 / self.pages_per_block);
        let pe = self.pe(block, erases);
        let age = self.age_s(ppn, now_ns);
        let reads = &mut self.reads[block.idx()];
        let disturb = u64::from(*reads);
        *reads = reads.saturating_add(1);
        let rber = self.model.rber().rber(pe, age, disturb, page_type);
        // The page's version: its address and its program time (none for data that
        // was on the drive at the start).
        let stamp = self
            .programmed_ms
            .get(&ppn.0)
            .map_or(0, |&ms| u64::from(ms) + 1);
        let version = (u64::from(ppn.0) << 32) | stamp;
        let r = self
            .model
            .read(version, pe, age, disturb, page_type, self.codewords, times);
        let o = r.outcome;
        self.c.reads += 1;
        self.rber_sum += rber;
        self.c.retry_steps += u64::from(o.retries);
        self.c.soft += u64::from(o.soft_tiers);
        self.c.retried += u64::from(o.retries > 0);
        let last = self.histogram.len() - 1;
        let bucket = if o.uncorrectable {
            last
        } else {
            ((o.retries + o.soft_tiers) as usize).min(last - 1)
        };
        self.histogram[bucket] += 1;
        if o.uncorrectable {
            self.c.uncorrectable += 1;
        }
        let steps = o.retries + o.soft_tiers;
        if self.reclaim_steps > 0
            && (o.uncorrectable || steps >= self.reclaim_steps)
            && self.reclaim_set.insert(block.0)
        {
            self.reclaim.push(block);
        }
        if r.extra_ns == 0 && !o.uncorrectable {
            return None;
        }
        let ecc = self.model.ecc();
        let senses = o.extra_senses(ecc);
        let charge = Charge {
            array_ns: u64::from(senses) * times.sense_ns + o.extra_decode_ns(ecc),
            senses,
            retry_ns: r.extra_ns,
            uncorrectable: o.uncorrectable,
        };
        self.charged.insert(t, charge);
        Some(charge)
    }

    /// The charge of read `t`, if it had one, forgetting it.
    pub(crate) fn take(&mut self, t: TxnId) -> Option<Charge> {
        self.charged.remove(&t)
    }

    /// Page `ppn` was programmed at `now_ns`.
    pub(crate) fn programmed(&mut self, ppn: Ppn, now_ns: u64) {
        let ms = (now_ns / 1_000_000).min(u64::from(u32::MAX)) as u32;
        self.programmed_ms.insert(ppn.0, ms);
    }

    /// `block` was erased: its read-disturb count starts again, and a relocation it
    /// still waited for is moot.
    pub(crate) fn erased(&mut self, block: BlockId) {
        self.reads[block.idx()] = 0;
        if self.reclaim_set.remove(&block.0) {
            self.reclaim.retain(|&b| b != block);
        }
    }

    /// True when rebuilds or relocations wait for a completion.
    pub(crate) fn has_pending(&self) -> bool {
        !self.waiting.is_empty() || !self.reclaim.is_empty()
    }

    /// The report section; `erases` gives each block's erases in the run.
    pub(crate) fn report(
        &self,
        erases: impl Fn(BlockId) -> u32,
        rebuilt_verified: bool,
    ) -> ErrorsReport {
        let pe: Vec<u64> = (0..self.base_pe.len() as u32)
            .map(|b| u64::from(self.pe(BlockId(b), erases(BlockId(b)))))
            .collect();
        let c = &self.c;
        let reads = c.reads.max(1) as f64;
        ErrorsReport {
            initial_pe: self.initial_pe,
            pe_cycles: CountSpread::of(&pe),
            reads_decoded: c.reads,
            rber_mean: self.rber_sum / reads,
            reads_retried: c.retried,
            retry_steps: c.retry_steps,
            soft_decodes: c.soft,
            steps_per_read: (c.retry_steps + c.soft) as f64 / reads,
            steps_histogram: self.histogram.clone(),
            uncorrectable_reads: c.uncorrectable,
            host_uncorrectable: c.host_uncorrectable,
            rebuilt_reads: c.rebuilt,
            rebuilt_verified: if rebuilt_verified {
                c.rebuilt - c.failed_rebuilds
            } else {
                0
            },
            lost_reads: c.lost,
            media_error_requests: c.media_error_requests,
            double_faults: c.double_faults,
            failed_rebuilds: c.failed_rebuilds,
            background_uncorrectable: c.background,
            background_recovered: c.background_recovered,
            background_lost: c.background_lost,
            reclaimed_blocks: c.reclaimed_blocks,
            reclaimed_pages: c.reclaimed_pages,
            reclaim_skipped: c.reclaim_skipped,
        }
    }
}

/// One block's P/E cycles before the run: `mean` spread normally with coefficient of
/// variation `cv` (Box–Muller), rounded, at least 0.
fn spread_pe(mean: u32, cv: f64, rng: &mut SimRng) -> u32 {
    if cv == 0.0 || mean == 0 {
        return mean;
    }
    let (u1, u2) = (1.0 - rng.unit_f64(), rng.unit_f64());
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    (f64::from(mean) * (1.0 + cv * z))
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

impl Simulation {
    fn errs(&mut self) -> &mut ErrorsState {
        self.errors.as_mut().expect("the error model is on")
    }

    /// Hook where a read group starts on `die` (sim/backend.rs, sim/nand.rs): decodes
    /// each page, lengthens each page's bus time by its extra transfers, and returns
    /// the array time the die adds (the group's largest).
    #[inline(never)]
    pub(super) fn errors_read_group(&mut self, die: DieId, sense_ns: u64, page_type: u32) -> u64 {
        let head = self.dies[die.idx()].head;
        // A copyback move never leaves the chip: nothing is decoded.
        if !self.uses_bus(head) {
            self.errs().die_extra[die.idx()] = 0;
            return 0;
        }
        let now = self.now().as_ns();
        let xfer = self.xfer.as_ns();
        let mut extra = 0;
        let mut t = head;
        while t != NONE {
            let txn = self.txns[t];
            let base = if txn.bus_ns == 0 { xfer } else { txn.bus_ns };
            let erases = self.ftl.erase_count(self.geom.block_of_page(txn.ppn));
            let times = StepTimes {
                sense_ns,
                xfer_ns: base,
            };
            let e = self.errors.as_mut().expect("the error model is on");
            if let Some(c) = e.read(t, txn.ppn, erases, page_type, now, times) {
                self.txns[t].bus_ns = base * (1 + u64::from(c.senses));
                extra = extra.max(c.array_ns);
            }
            t = txn.group_next;
        }
        self.errs().die_extra[die.idx()] = extra;
        extra
    }

    /// The array time the error model added to `die`'s current read group.
    #[inline]
    pub(super) fn errors_die_extra(&self, die: DieId) -> u64 {
        self.errors.as_ref().map_or(0, |e| e.die_extra[die.idx()])
    }

    /// Hook where transaction `t` completes (`complete_txn`), before its owner sees it.
    /// True when the transaction is consumed here: an uncorrectable host read replaced
    /// by a reconstruction from its stripe.
    #[inline(never)]
    pub(super) fn errors_txn_done(&mut self, t: TxnId) -> bool {
        let txn = self.txns[t];
        let now = self.now().as_ns();
        match txn.op {
            FlashOp::Program => {
                let e = self.errs();
                e.programmed(txn.ppn, now);
                if txn.reason == TxnReason::HostWrite {
                    e.poisoned.remove(&txn.lpn.0);
                }
                return false;
            }
            FlashOp::Erase => {
                let block = self.geom.block_of_page(txn.ppn);
                self.errs().erased(block);
                return false;
            }
            FlashOp::Read => {}
        }
        let charge = self.errs().take(t);
        let uncorrectable = charge.is_some_and(|c| c.uncorrectable);
        match txn.reason {
            TxnReason::HostRead => {
                let e = self.errs();
                e.req_retry
                    .insert(txn.req, charge.map_or(0, |c| c.retry_ns));
                if !(uncorrectable || e.poisoned.contains(&txn.lpn.0)) {
                    return false;
                }
                e.c.host_uncorrectable += 1;
                if self.raid.is_some() {
                    let expect = self.errors_rebuild_expect(txn.lpn, txn.ppn, txn.expect);
                    let rebuilt = self.reconstruct_read(txn.req, txn.lpn, expect);
                    if rebuilt {
                        self.errs().c.rebuilt += 1;
                    } else if self.raid_stripe_busy(txn.lpn) || self.raid_recoverable_later(txn.lpn)
                    {
                        // The stripe is settling: the rebuild waits for a completion.
                        self.errs().waiting.push((txn.req, txn.lpn));
                    }
                    if rebuilt || self.errs().waiting.last() == Some(&(txn.req, txn.lpn)) {
                        // The rebuild answers for the page: its own read is done.
                        self.ftl.unpin(txn.ppn);
                        self.gc_page_released(txn.ppn);
                        return true;
                    }
                }
                let e = self.errs();
                e.c.lost += 1;
                e.failed.insert(txn.req);
                // The host gets a status instead of data: there is no content to check.
                if self.verify.is_some() {
                    self.txns[t].expect = self.ftl.token(txn.ppn);
                }
                false
            }
            TxnReason::ReconstructRead => {
                // A second page of the stripe is unreadable: the rebuild fails. The job
                // ends with its last source read (its owner counts it down next).
                let k = txn.aux;
                let last = self.raid().recon[k as usize].reads_left == 1;
                let e = self.errs();
                if uncorrectable {
                    e.c.double_faults += 1;
                    e.failed_jobs.insert(k);
                }
                if last && e.failed_jobs.remove(&k) {
                    e.c.failed_rebuilds += 1;
                    e.c.lost += 1;
                    e.failed.insert(txn.req);
                }
                false
            }
            _ if uncorrectable => {
                let parity = self.raid.as_ref().is_some_and(|r| {
                    self.cfg.raid.level.has_parity() && r.map.layout.group_size() > 1
                });
                let host_page = u64::from(txn.lpn.0) < self.logical_pages;
                let e = self.errs();
                e.c.background += 1;
                if parity {
                    e.c.background_recovered += 1;
                } else if host_page {
                    e.c.background_lost += 1;
                    e.poisoned.insert(txn.lpn.0);
                }
                false
            }
            _ => false,
        }
    }

    /// True when rebuilds or relocations wait for a completion.
    #[inline]
    pub(super) fn errors_waiting(&self) -> bool {
        self.errors.as_ref().is_some_and(|e| e.has_pending())
    }

    /// After a completion: the rebuilds that waited try again, then the relocations.
    #[inline(never)]
    pub(super) fn errors_after_txn(&mut self) {
        if !self.errs().waiting.is_empty() {
            self.errors_retry_waiting();
        }
        if !self.errs().reclaim.is_empty() {
            self.errors_start_reclaims();
        }
    }

    /// Starts the relocation of each queued block whose plane runs no GC (read
    /// reclaim); a block that is no longer full (erased, or still open) is dropped.
    fn errors_start_reclaims(&mut self) {
        let queue = std::mem::take(&mut self.errs().reclaim);
        let mut still = Vec::new();
        for block in queue {
            let plane = self.geom.plane_of_block(block);
            if self.gc_jobs[plane.idx()].active() {
                still.push(block);
                continue;
            }
            self.errs().reclaim_set.remove(&block.0);
            if self.plane_dead(plane) || !self.ftl.select_victim_block(block) {
                self.errs().c.reclaim_skipped += 1;
                continue;
            }
            let pages = u64::from(self.ftl.valid_pages(block));
            let e = self.errs();
            e.c.reclaimed_blocks += 1;
            e.c.reclaimed_pages += pages;
            self.launch_collector(plane, block, true, true);
        }
        let e = self.errs();
        still.append(&mut e.reclaim);
        e.reclaim = still;
    }

    /// What a rebuild of `lpn` must return, for verify: the stripe holds the flash's
    /// current version of the page, so the content of `lpn`'s current page; that is
    /// `admitted` (what the read expected when admitted) while the page is still `read`,
    /// the one the failed read sensed. A newer version written since is what a
    /// rebuild can give (the stripe's parity no longer covers the old one), and the
    /// host may get it: NVMe does not order a read and a write of the same blocks that
    /// are outstanding together (a host that needs the order waits for the write's
    /// completion).
    fn errors_rebuild_expect(&self, lpn: Lpn, read: Ppn, admitted: u64) -> u64 {
        match self.ftl.lookup(lpn) {
            Some(p) if p == read => admitted,
            Some(p) if self.verify.is_some() => self.ftl.token(p),
            _ => admitted,
        }
    }

    /// The rebuilds that waited try again after a completion that may have settled
    /// their stripes, each for the content current now; a page that can no longer be
    /// rebuilt is answered with a media error.
    fn errors_retry_waiting(&mut self) {
        let waiting = std::mem::take(&mut self.errs().waiting);
        for (id, lpn) in waiting {
            let expect = self.errors_rebuild_expect(lpn, Ppn(u32::MAX), 0);
            if self.reconstruct_read(id, lpn, expect) {
                self.errs().c.rebuilt += 1;
            } else if self.raid_stripe_busy(lpn) || self.raid_recoverable_later(lpn) {
                self.errs().waiting.push((id, lpn));
            } else {
                let e = self.errs();
                e.c.lost += 1;
                e.failed.insert(id);
                self.sub_done(id, 0, 0);
            }
        }
    }

    /// Hook where host request `id` of class `op` completes: its T_retry goes to the
    /// breakdown; true when it completes with a media error.
    #[inline(never)]
    pub(super) fn errors_request_done(&mut self, id: ReqId, op: OpClass) -> bool {
        let e = self.errs();
        let retry = e.req_retry.remove(&id).unwrap_or(0);
        let failed = e.failed.remove(&id);
        e.c.media_error_requests += u64::from(failed);
        self.rec.retry(op, retry);
        failed
    }

    /// The report's `errors` section, when the error model is on.
    pub(super) fn errors_report(&self) -> Option<ErrorsReport> {
        let e = self.errors.as_ref()?;
        Some(e.report(|b| self.ftl.erase_count(b), self.verify.is_some()))
    }
}

#[cfg(test)]
mod tests;
