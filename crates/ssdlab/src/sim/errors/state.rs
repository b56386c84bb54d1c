//! The error layer's own state: wear, age, read disturb, the run's draws and counts
//! (no simulator in it; tested on its own in `super::tests`).

use super::super::txn::{ReqId, TxnId};
use crate::config::ErrorsConfig;
use rustc_hash::{FxHashMap, FxHashSet};
use ssdlab_engine::SimRng;
use ssdlab_nand::{BlockId, ErrorModel, Geometry, Lpn, Ppn, StepTimes};
use ssdlab_stats::{CountSpread, ErrorsReport};

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
pub(super) struct Counts {
    pub(super) reads: u64,
    pub(super) retried: u64,
    pub(super) retry_steps: u64,
    pub(super) soft: u64,
    pub(super) uncorrectable: u64,
    pub(super) host_uncorrectable: u64,
    pub(super) rebuilt: u64,
    pub(super) lost: u64,
    pub(super) media_error_requests: u64,
    pub(super) double_faults: u64,
    pub(super) failed_rebuilds: u64,
    pub(super) background: u64,
    pub(super) background_recovered: u64,
    pub(super) background_lost: u64,
    pub(super) reclaimed_blocks: u64,
    pub(super) reclaimed_pages: u64,
    pub(super) reclaim_skipped: u64,
    pub(super) from_duplicates: u64,
}

/// The device's wear, age and read-disturb state and the run's error draws.
pub(crate) struct ErrorsState {
    pub(super) model: ErrorModel,
    pub(super) codewords: u32,
    pub(super) pages_per_block: u32,
    pub(super) initial_pe: u32,
    /// Per block: P/E cycles before the run.
    pub(super) base_pe: Vec<u32>,
    /// Per block: page reads since its last erase (read disturb).
    pub(super) reads: Vec<u32>,
    /// Pages programmed during the run: when, in ms since its start. A page not in it
    /// holds data that was on the device at the start. (A map, not a per-page table: a
    /// run touches few of a large drive's pages.)
    pub(super) programmed_ms: FxHashMap<u32, u32>,
    pub(super) initial_age_s: f64,
    /// Per die: the array time its current read group adds.
    pub(super) die_extra: Vec<u64>,
    /// Reads in flight that needed more than one decode.
    pub(super) charged: FxHashMap<TxnId, Charge>,
    /// Logical pages whose data a background read could not decode, without redundancy.
    pub(super) poisoned: FxHashSet<u32>,
    /// Host requests that will complete with a media error.
    pub(super) failed: FxHashSet<ReqId>,
    /// Reconstructions (by job) a source of which could not be decoded.
    pub(super) failed_jobs: FxHashSet<u32>,
    /// `errors.reclaim_steps` (0: no read reclaim).
    pub(super) reclaim_steps: u32,
    /// Blocks to relocate for their reads' bit errors, in the order they asked.
    pub(super) reclaim: Vec<BlockId>,
    /// The same blocks, for a quick test.
    pub(super) reclaim_set: FxHashSet<u32>,
    /// Host page reads waiting for their stripe to settle before a rebuild.
    pub(super) waiting: Vec<(ReqId, Lpn)>,
    /// Host page reads in flight from a duplicate of their content, after their own
    /// page was uncorrectable: (request, logical page).
    pub(super) from_duplicate: FxHashSet<(ReqId, u32)>,
    /// Per host request: T_retry of its last-completing page read.
    pub(super) req_retry: FxHashMap<ReqId, u64>,
    pub(super) c: Counts,
    pub(super) rber_sum: f64,
    /// Reads by steps taken; the last entry counts the uncorrectable ones.
    pub(super) histogram: Vec<u64>,
    /// Grown bad blocks and retention refresh, when configured.
    pub(super) house: Option<Box<super::house::Housekeeping>>,
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
            from_duplicate: FxHashSet::default(),
            reclaim_steps: cfg.reclaim_steps,
            reclaim: Vec::new(),
            reclaim_set: FxHashSet::default(),
            c: Counts::default(),
            rber_sum: 0.0,
            histogram: vec![0; steps + 2],
            house: super::house::Housekeeping::new(cfg, blocks, run_rng).map(Box::new),
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
        self.rber_sum += r.rber;
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
        !self.waiting.is_empty()
            || !self.reclaim.is_empty()
            || self.house.as_ref().is_some_and(|h| h.has_pending())
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
            rebuilt_from_duplicates: c.from_duplicates,
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
            housekeeping: self.house.as_ref().map(|h| h.r.clone()),
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
