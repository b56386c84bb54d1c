//! Reliability housekeeping beyond read reclaim (docs/ERRORS.md §5): grown bad blocks
//! (programs and erases that fail with a wear-dependent probability, the blocks retired,
//! the drive turned read-only when the spares run out) and retention refresh (blocks
//! whose oldest data is older than a threshold, relocated). No simulator in it; present
//! only when one of them is configured, tested on its own in `super::tests`.

use super::super::txn::ReqId;
use crate::config::ErrorsConfig;
use rustc_hash::{FxHashMap, FxHashSet};
use ssdlab_engine::SimRng;
use ssdlab_nand::{BlockId, Ppn};
use ssdlab_stats::HousekeepingReport;

/// Why a block was doomed to retirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    Erase,
    Program,
}

/// "No page of the block programmed in the run since its last erase."
const UNSTAMPED: u32 = u32::MAX;

/// The draws, queues and counts of grown bad blocks and retention refresh.
pub(crate) struct Housekeeping {
    seed: u64,
    erase_p: f64,
    program_p: f64,
    rated_pe: f64,
    fail_exp: f64,
    /// Why each block doomed so far was doomed.
    cause: FxHashMap<u32, Cause>,
    /// Blocks a failed program doomed, waiting for their plane's collector to move
    /// their data out, in the order they failed.
    pub(super) retire: Vec<BlockId>,
    /// `errors.refresh_age_s` (0: no retention refresh) and the scan period, ns.
    refresh_age_s: f64,
    scan_ns: u64,
    next_scan_ns: u64,
    /// Per block: when its first page programmed in the run since its last erase was
    /// programmed, ms ([`UNSTAMPED`]: none; a full such block holds data from before the
    /// run). Empty without retention refresh.
    first_ms: Vec<u32>,
    /// Blocks to relocate for their data's age, oldest first, and the same as a set.
    pub(super) refresh: Vec<BlockId>,
    refresh_set: FxHashSet<u32>,
    pub(super) read_only_at_ns: Option<u64>,
    /// Host write requests refused (they complete with the `read-only` status).
    pub(super) refused: FxHashSet<ReqId>,
    pub(super) r: HousekeepingReport,
}

impl Housekeeping {
    /// The housekeeping `cfg` asks for on a device of `blocks` blocks, or `None` when it
    /// asks for none; its failure draws are keyed off the stream `"errors-fail"` of
    /// `run_rng`.
    pub(crate) fn new(cfg: &ErrorsConfig, blocks: usize, run_rng: &SimRng) -> Option<Self> {
        let refresh = cfg.refresh_age_s > 0.0;
        if !cfg.bad_blocks_on() && !refresh {
            return None;
        }
        Some(Housekeeping {
            seed: run_rng.fork("errors-fail").next_u64(),
            erase_p: cfg.erase_fail_prob,
            program_p: cfg.program_fail_prob,
            rated_pe: f64::from(cfg.rated_pe.max(1)),
            fail_exp: cfg.fail_exp,
            cause: FxHashMap::default(),
            retire: Vec::new(),
            refresh_age_s: cfg.refresh_age_s,
            scan_ns: (cfg.refresh_scan_s * 1e9) as u64,
            next_scan_ns: 0,
            first_ms: if refresh {
                vec![UNSTAMPED; blocks]
            } else {
                Vec::new()
            },
            refresh: Vec::new(),
            refresh_set: FxHashSet::default(),
            read_only_at_ns: None,
            refused: FxHashSet::default(),
            r: HousekeepingReport::default(),
        })
    }

    /// The failure probability of one operation on a block at `pe` P/E cycles, from its
    /// probability `at_rated` at the rated endurance.
    pub(crate) fn fail_prob(&self, at_rated: f64, pe: u32) -> f64 {
        if at_rated == 0.0 {
            return 0.0;
        }
        (at_rated * (f64::from(pe) / self.rated_pe).powf(self.fail_exp)).min(1.0)
    }

    /// A uniform in `[0, 1)`, a function of the run's seed and the key only.
    fn uniform(&self, tag: u64, a: u64, b: u64) -> f64 {
        let mut h = mix(self.seed ^ tag);
        h = mix(h ^ a);
        h = mix(h ^ b);
        (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True when the erase of `block`, erased `erases` times before and at `pe` P/E
    /// cycles, fails: the same answer for the same seed, block and erase count.
    pub(crate) fn erase_fails(&self, block: BlockId, erases: u32, pe: u32) -> bool {
        let p = self.fail_prob(self.erase_p, pe);
        p > 0.0 && self.uniform(1, u64::from(block.0), u64::from(erases)) < p
    }

    /// True when the program of `ppn`, in a block erased `erases` times and at `pe` P/E
    /// cycles, fails (keyed by the page and the erase count).
    pub(crate) fn program_fails(&self, ppn: Ppn, erases: u32, pe: u32) -> bool {
        let p = self.fail_prob(self.program_p, pe);
        p > 0.0 && self.uniform(2, u64::from(ppn.0), u64::from(erases)) < p
    }

    /// True when programs can fail.
    pub(crate) fn programs_fail(&self) -> bool {
        self.program_p > 0.0
    }

    /// `block` was doomed for `cause` (first cause kept); a failed program queues its
    /// data's move.
    pub(crate) fn doomed(&mut self, block: BlockId, cause: Cause) {
        match cause {
            Cause::Erase => self.r.erase_failures += 1,
            Cause::Program => self.r.program_failures += 1,
        }
        if self.cause.insert(block.0, cause).is_none() && cause == Cause::Program {
            self.retire.push(block);
        }
    }

    /// Doomed `block` was erased: it is retired.
    pub(crate) fn retired(&mut self, block: BlockId) {
        self.r.retired_blocks += 1;
        match self.cause.get(&block.0) {
            Some(Cause::Program) => self.r.retired_by_program += 1,
            _ => self.r.retired_by_erase += 1,
        }
    }

    /// The drive turned read-only at `now_ns` (once).
    pub(crate) fn turn_read_only(&mut self, now_ns: u64) {
        if self.read_only_at_ns.is_none() {
            self.read_only_at_ns = Some(now_ns);
            self.r.read_only_at_ns = Some(now_ns);
            self.r.retired_at_read_only = self.r.retired_blocks;
        }
    }

    /// True once the drive is read-only.
    pub(crate) fn read_only(&self) -> bool {
        self.read_only_at_ns.is_some()
    }

    /// Page `ppn` (of a block of `ppb` pages) was programmed at `now_ns`.
    pub(crate) fn programmed(&mut self, ppn: Ppn, ppb: u32, now_ns: u64) {
        if let Some(s) = self.first_ms.get_mut((ppn.0 / ppb) as usize) {
            if *s == UNSTAMPED {
                *s = (now_ns / 1_000_000).min(u64::from(u32::MAX - 1)) as u32;
            }
        }
    }

    /// `block` was erased: its data is gone, and a refresh it waited for is moot.
    pub(crate) fn erased(&mut self, block: BlockId) {
        if let Some(s) = self.first_ms.get_mut(block.idx()) {
            *s = UNSTAMPED;
        }
        if self.refresh_set.remove(&block.0) {
            self.refresh.retain(|&b| b != block);
        }
    }

    /// True when a retention scan is due at `now_ns`.
    #[inline]
    pub(crate) fn scan_due(&self, now_ns: u64) -> bool {
        self.refresh_age_s > 0.0 && now_ns >= self.next_scan_ns
    }

    /// Age, in seconds at `now_ns`, of the oldest data of a full `block`
    /// (`initial_age_s`: the age at the start of data from before the run).
    pub(crate) fn oldest_age_s(&self, block: BlockId, now_ns: u64, initial_age_s: f64) -> f64 {
        let now_s = now_ns as f64 * 1e-9;
        match self.first_ms[block.idx()] {
            UNSTAMPED => initial_age_s + now_s,
            ms => (now_s - f64::from(ms) * 1e-3).max(0.0),
        }
    }

    /// The retention scan at `now_ns` over the blocks `full` says hold data: queues
    /// those whose oldest data is at least `refresh_age_s` old, oldest first (lowest
    /// block first among equals), skipping those already queued. The next scan is one
    /// period later.
    pub(crate) fn scan(&mut self, now_ns: u64, initial_age_s: f64, full: impl Fn(BlockId) -> bool) {
        self.next_scan_ns = now_ns.saturating_add(self.scan_ns.max(1));
        self.r.refresh_scans += 1;
        let mut old: Vec<(f64, u32)> = (0..self.first_ms.len() as u32)
            .map(BlockId)
            .filter(|&b| !self.refresh_set.contains(&b.0) && full(b))
            .map(|b| (self.oldest_age_s(b, now_ns, initial_age_s), b.0))
            .filter(|&(age, _)| age >= self.refresh_age_s)
            .collect();
        old.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        for (_, b) in old {
            self.refresh_set.insert(b);
            self.refresh.push(BlockId(b));
        }
    }

    /// `block` left the refresh queue (relocated, or no longer full).
    pub(crate) fn refresh_taken(&mut self, block: BlockId) {
        self.refresh_set.remove(&block.0);
    }

    /// True when work waits for a completion: moves or scans.
    pub(crate) fn has_pending(&self) -> bool {
        !self.retire.is_empty() || !self.refresh.is_empty() || self.refresh_age_s > 0.0
    }
}

/// SplitMix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
