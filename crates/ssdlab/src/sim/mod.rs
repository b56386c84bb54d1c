//! The simulation: one value that owns the clock, the event queue, every component and
//! the statistics of one run.
//!
//! ```text
//!  RequestStream ─► host (arrival, device queue) ─► controller (FTL translate/allocate,
//!                   transactions) ─► scheduler ─► chip queues ─► dies / buses ─► completions
//! ```
//!
//! Events carry indices only. Ties in time pop in insertion order, so a run is a pure
//! function of configuration, trace and seed.

/// A scheduler context borrowing only the fields the policy may see, so that the
/// policy (another field) can be called at the same time.
macro_rules! sched_ctx {
    ($s:ident) => {
        $crate::sched::SchedCtx {
            txns: &$s.txns,
            queues: &mut $s.queues,
            geom: &$s.geom,
            plans: &$crate::sim::raid::Plans {
                raid: $s.raid.as_ref(),
                dead: &$s.fail,
                ftl: &$s.ftl,
                txns: &$s.txns,
                geom: &$s.geom,
            },
        }
    };
}

mod backend;
mod dgc;
mod fail;
mod gc;
mod host;
pub(crate) mod raid;
mod stream;
pub(crate) mod txn;

use crate::config::SimConfig;
use crate::error::SimError;
use crate::placement::Placement;
use crate::sched::{self, IoScheduler, Queues};
use backend::{ChannelState, DieState};
use gc::{GcJob, Parked};
use host::ReqSlab;
use ssdlab_engine::{EventQueue, SimDuration, SimRng, SimTime};
use ssdlab_ftl::Ftl;
use ssdlab_nand::{ChannelId, DieId, Geometry, Lpn, PlaneId, Ppn, TxnReason};
use ssdlab_stats::{Recorder, Report, RunMeta, Shape};
use ssdlab_trace::{IoRequest, RequestStream};
use std::collections::VecDeque;
use txn::{ReqId, TxnId, TxnSlab};

pub use stream::VecStream;

/// What happens at an instant.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// The next trace request arrives (open loop).
    Arrival,
    /// A die finished the array part of its operation.
    ArrayDone(DieId),
    /// A page finished crossing a channel bus.
    BusDone(ChannelId),
    /// A RAID group buffer's encode timeout (buffer slot, generation).
    EncodeTimeout(u32, u32),
    /// Timed failure number `n` of `raid.fail` is due.
    Fail(u32),
    /// Rebuild `k` may start its next row.
    RebuildStep(u32),
    /// A degraded read waiting for its stripe to settle tries again.
    DegradedRetry(u32),
}

/// Counters the simulator keeps itself and hands to the report at the end.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct SimCounters {
    pub buffer_hits: u64,
    pub materialized_reads: u64,
    pub zero_reads: u64,
    pub verified_reads: u64,
    pub parked_writes: u64,
    pub background_gc_runs: u64,
    pub multi_plane_ops: u64,
    pub redirected_reads: u64,
    pub host_pages_programmed: u64,
    pub trace_requests: u64,
}

/// A progress callback: called with the number of completed requests.
pub type ProgressFn = Box<dyn FnMut(u64)>;

/// One run of the simulator.
pub struct Simulation {
    pub(crate) cfg: SimConfig,
    pub(crate) geom: Geometry,
    pub(crate) events: EventQueue<Event>,
    pub(crate) ftl: Ftl,
    pub(crate) placement: Placement,
    pub(crate) sched: Box<dyn IoScheduler>,
    pub(crate) queues: Queues,
    pub(crate) txns: TxnSlab,
    // timing, precomputed
    pub(crate) t_read: SimDuration,
    pub(crate) t_prog: SimDuration,
    pub(crate) t_erase: SimDuration,
    pub(crate) xfer: SimDuration,
    // host side
    pub(crate) source: Box<dyn RequestStream>,
    pub(crate) lookahead: Option<IoRequest>,
    pub(crate) source_done: bool,
    pub(crate) reqs: ReqSlab,
    pub(crate) host_queue: VecDeque<ReqId>,
    pub(crate) outstanding: u32,
    pub(crate) next_id: u64,
    pub(crate) completed: u64,
    pub(crate) last_completion_ns: u64,
    pub(crate) logical_pages: u64,
    pub(crate) write_seq: u32,
    pub(crate) shadow: Vec<u64>,
    // back end
    pub(crate) dies: Vec<DieState>,
    pub(crate) channels: Vec<ChannelState>,
    pub(crate) chip_busy_dies: Vec<u32>,
    pub(crate) chip_busy_since: Vec<u64>,
    pub(crate) chip_busy_ns: Vec<u64>,
    pub(crate) busy_chips: u32,
    /// GC busy time per die so far (for the T_GC share of waiting).
    pub(crate) die_gc_ns: Vec<u64>,
    // garbage collection
    pub(crate) gc_jobs: Vec<GcJob>,
    pub(crate) parked: Vec<Vec<Parked>>,
    /// Pages whose newest write waits for space: LPN → (park sequence, token).
    pub(crate) held: rustc_hash::FxHashMap<u32, (u64, u64)>,
    pub(crate) park_seq: u64,
    pub(crate) primed: bool,
    pub(crate) gc_pages: Vec<(Ppn, Lpn)>,
    /// Planes to check for GC once the request being admitted is queued.
    pub(crate) gc_check: Vec<PlaneId>,
    // RAID
    pub(crate) raid: Option<raid::RaidState>,
    pub(crate) fail: fail::FailState,
    pub(crate) dgc: dgc::DgcState,
    /// Host LPNs whose current content exists only through redundancy (written while
    /// their chip was dead and no page could record them there).
    pub(crate) redundant_only: rustc_hash::FxHashSet<u32>,
    /// Host LPNs whose content was lost (two members of their group failed) until they
    /// are written again.
    pub(crate) lost_lpns: rustc_hash::FxHashSet<u32>,
    /// Degraded reads waiting for their stripe to settle (request, LPN, expected token).
    pub(crate) degraded_wait: Vec<(ReqId, Lpn, u64)>,
    pub(crate) degraded_free: Vec<u32>,
    /// Pages of the request being admitted that completed without flash work.
    pub(crate) admit_done_now: u32,
    pub(crate) stripe_writes: Vec<raid::StripeWrite>,
    // scratch and bookkeeping
    pub(crate) scratch: Vec<TxnId>,
    pub(crate) group: Vec<TxnId>,
    pub(crate) counters: SimCounters,
    pub(crate) rec: Recorder,
    pub(crate) error: Option<SimError>,
    pub(crate) progress: Option<ProgressFn>,
    pub(crate) meta: RunMeta,
}

impl Simulation {
    /// Builds a simulation of `cfg` fed by `source`; `trace` describes the source in the report.
    ///
    /// # Errors
    /// [`SimError::Config`] if the configuration is inconsistent.
    pub fn new(
        cfg: SimConfig,
        source: Box<dyn RequestStream>,
        trace: &str,
    ) -> Result<Simulation, SimError> {
        cfg.validate()?;
        let geom = cfg.geometry;
        let rng = SimRng::new(cfg.seed);
        let raid = raid::RaidState::new(&cfg)?;
        let (raid, map_entries, logical_pages) = match raid {
            Some((r, entries)) => {
                let host = r.host_pages as u32;
                (Some(r), entries, host)
            }
            None => {
                let n = cfg.ftl.logical_pages(&geom);
                (None, n, n)
            }
        };
        let mut ftl = Ftl::new(&cfg.ftl, &geom, map_entries, rng.fork("ftl"))
            .map_err(|e| SimError::config("ftl", e.to_string()))?;
        if cfg.ftl.precondition.enabled {
            // Preconditioning lays data out with the static order (or the RAID layout);
            // dynamic placement applies the order to a write counter, as it does at
            // run time.
            let order = cfg.ftl.static_order;
            let planes = geom.planes();
            let is_static = matches!(cfg.ftl.allocation, ssdlab_ftl::Allocation::Static);
            let mut k: u32 = 0;
            let mut place = |lpn: Lpn| match &raid {
                Some(r) => r.static_plane(&geom, lpn),
                None if is_static => order.plane_of(lpn, &geom),
                None => {
                    k = k.wrapping_add(1);
                    order.plane_of(Lpn(k % planes), &geom)
                }
            };
            let mut prng = rng.fork("precondition");
            ftl.precondition(&cfg.ftl.precondition, &mut place, &mut prng);
        }
        let placement = Placement::new(&cfg.ftl);
        let timing = cfg.timing;
        let shadow = if cfg.verify {
            vec![0u64; logical_pages as usize]
        } else {
            Vec::new()
        };
        let planes = geom.planes() as usize;
        let chips = geom.chips() as usize;
        let meta = RunMeta {
            seed: cfg.seed,
            config_hash: cfg.hash_hex(),
            git_rev: crate::GIT_REV.to_string(),
            trace: trace.to_string(),
            scheduler: cfg.scheduler.name.name().to_string(),
            preset: None,
            version: env!("CARGO_PKG_VERSION").to_string(),
        };
        let mut sim = Simulation {
            events: EventQueue::new(),
            sched: sched::build(&cfg.scheduler, &geom, &cfg.timing),
            queues: Queues::new(&geom, cfg.scheduler.chip_queue_depth),
            txns: TxnSlab::default(),
            t_read: SimDuration(timing.t_read_ns),
            t_prog: SimDuration(timing.t_prog_ns),
            t_erase: SimDuration(timing.t_erase_ns),
            xfer: SimDuration(timing.page_transfer_ns(geom.page_size_bytes)),
            source,
            lookahead: None,
            source_done: false,
            reqs: ReqSlab::default(),
            host_queue: VecDeque::new(),
            outstanding: 0,
            next_id: 0,
            completed: 0,
            last_completion_ns: 0,
            logical_pages: u64::from(logical_pages),
            write_seq: 0,
            shadow,
            dies: vec![DieState::idle(); geom.dies() as usize],
            channels: vec![ChannelState::free(); geom.channels as usize],
            chip_busy_dies: vec![0; chips],
            chip_busy_since: vec![0; chips],
            chip_busy_ns: vec![0; chips],
            busy_chips: 0,
            die_gc_ns: vec![0; geom.dies() as usize],
            gc_jobs: vec![GcJob::none(); planes],
            parked: vec![Vec::new(); planes],
            held: rustc_hash::FxHashMap::default(),
            park_seq: 0,
            primed: false,
            gc_pages: Vec::new(),
            gc_check: Vec::new(),
            raid,
            fail: fail::FailState::default(),
            dgc: dgc::DgcState::new(&cfg.dgc, geom.chips()),
            redundant_only: rustc_hash::FxHashSet::default(),
            lost_lpns: rustc_hash::FxHashSet::default(),
            degraded_wait: Vec::new(),
            degraded_free: Vec::new(),
            admit_done_now: 0,
            stripe_writes: Vec::new(),
            scratch: Vec::new(),
            group: Vec::with_capacity(8),
            counters: SimCounters::default(),
            rec: Recorder::new(Shape {
                channels: geom.channels,
                chips: geom.chips(),
                dies: geom.dies(),
                page_size_bytes: geom.page_size_bytes,
            }),
            error: None,
            progress: None,
            meta,
            ftl,
            placement,
            geom,
            cfg,
        };
        if sim.cfg.ftl.precondition.enabled {
            sim.raid_fix_redundancy();
        }
        sim.init_failures()?;
        if sim.cfg.verify {
            sim.seed_shadow_from_ftl();
        }
        Ok(sim)
    }

    /// Names the preset the configuration came from, for the report.
    pub fn set_preset_name(&mut self, name: &str) {
        self.meta.preset = Some(name.to_string());
    }

    /// Streams one CSV line per completed request to `w`.
    pub fn set_per_request_csv(&mut self, w: Box<dyn std::io::Write + Send>) {
        self.rec.set_per_request_sink(w);
    }

    /// Calls `f` with the number of completed requests every few thousand completions.
    pub fn set_progress(&mut self, f: ProgressFn) {
        self.progress = Some(f);
    }

    /// The current simulated time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.events.now()
    }

    /// The FTL, for inspection by tests and tools.
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// The content held for `lpn` while its write waits for space, if any.
    #[inline]
    pub(crate) fn held_get(&self, lpn: Lpn) -> Option<&(u64, u64)> {
        if self.held.is_empty() {
            None
        } else {
            self.held.get(&lpn.0)
        }
    }

    /// Starts idle dies of chips whose queue received work.
    pub(crate) fn wake_touched(&mut self) {
        // Starting a die can make a policy redirect reads or queue more work: keep
        // going until neither is left.
        while !self.queues.touched.is_empty() || !self.queues.redirected.is_empty() {
            self.process_redirects();
            self.wake_touched_once();
        }
    }

    fn wake_touched_once(&mut self) {
        while let Some(chip) = self.queues.touched.pop() {
            self.queues.is_touched[chip.idx()] = false;
            for n in 0..self.geom.dies_per_chip {
                let die = self.geom.die_of_chip(chip, n);
                self.try_start(die);
            }
        }
    }

    /// Runs one event. Returns false when nothing is left to do.
    ///
    /// # Errors
    /// A trace error, a verification mismatch, or an impossible device state.
    pub fn step(&mut self) -> Result<bool, SimError> {
        if !self.primed {
            // Before any other event (a timed failure, say) the first arrivals are due.
            self.primed = true;
            self.prime()?;
        }
        let Some((_, ev)) = self.events.pop() else {
            return Ok(false);
        };
        match ev {
            Event::Arrival => self.on_arrival(),
            Event::ArrayDone(die) => self.on_array_done(die),
            Event::BusDone(ch) => self.on_bus_done(ch),
            Event::EncodeTimeout(slot, generation) => self.on_encode_timeout(slot, generation),
            Event::Fail(n) => self.on_fail_event(n),
            Event::RebuildStep(k) => self.rebuild_row(k as usize),
            Event::DegradedRetry(i) => self.retry_degraded(i),
        }
        self.wake_touched();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok(true)
    }

    /// Runs to the end of the trace and returns the report.
    ///
    /// # Errors
    /// A trace error, a verification mismatch, or an impossible device state.
    pub fn run(mut self) -> Result<Report, SimError> {
        self.run_to_end()?;
        self.into_report()
    }

    /// Runs every remaining event (the report is taken later with [`Simulation::into_report`]).
    ///
    /// # Errors
    /// See [`Simulation::run`].
    pub fn run_to_end(&mut self) -> Result<(), SimError> {
        while self.step()? {}
        Ok(())
    }

    /// Checks that every LPN written (or preconditioned) is mapped to a page holding the
    /// token last written to it. Needs `verify = true` (the shadow of expected tokens).
    /// Returns the number of pages checked.
    ///
    /// # Errors
    /// [`SimError::VerifyMismatch`] for the first page that disagrees.
    pub fn audit(&self) -> Result<u64, SimError> {
        let mut checked = 0;
        for (lpn, &expected) in self.shadow.iter().enumerate() {
            if expected == 0 || self.lost_lpns.contains(&(lpn as u32)) {
                continue;
            }
            let found = match self.ftl.lookup(Lpn(lpn as u32)) {
                // A page on a dead chip is checked through its redundancy, if any.
                Some(p) if self.on_dead_chip(p) => {
                    let mut sources = Vec::new();
                    if !self.raid.as_ref().is_some_and(|r| r.level.is_redundant())
                        || !self.raid_sources_ignoring_busy(Lpn(lpn as u32), &mut sources)
                    {
                        continue;
                    }
                    sources.iter().fold(0, |acc, &p| acc ^ self.ftl.token(p))
                }
                Some(p) => self.ftl.token(p),
                None if self.redundant_only.contains(&(lpn as u32)) => {
                    let mut sources = Vec::new();
                    if !self.raid_sources_ignoring_busy(Lpn(lpn as u32), &mut sources) {
                        continue;
                    }
                    sources.iter().fold(0, |acc, &p| acc ^ self.ftl.token(p))
                }
                None => 0,
            };
            if found != expected {
                return Err(SimError::VerifyMismatch {
                    lpn: lpn as u32,
                    expected,
                    found,
                    at_ns: self.now().as_ns(),
                });
            }
            checked += 1;
        }
        self.raid_audit().map_err(SimError::Redundancy)?;
        Ok(checked)
    }

    /// Full consistency checks of every component (slow; for tests).
    pub fn check_invariants(&self) {
        self.ftl.check_invariants();
        let queued: usize = self.queues.chip.iter().map(VecDeque::len).sum();
        let loads: u64 = self.queues.load.iter().map(|&l| u64::from(l)).sum();
        assert!(
            queued as u64 <= loads,
            "chip queues hold {queued} but loads sum to {loads}"
        );
        for (chip, q) in self.queues.chip.iter().enumerate() {
            assert!(q.len() <= self.queues.depth, "chip {chip} queue over depth");
        }
        let busy = self.chip_busy_dies.iter().filter(|&&d| d > 0).count() as u32;
        assert_eq!(busy, self.busy_chips, "busy chip count");
        self.dgc_check_invariants();
    }

    /// The report of a finished run.
    ///
    /// # Errors
    /// [`SimError::Stuck`] if requests remain that can never complete.
    pub fn into_report(mut self) -> Result<Report, SimError> {
        let unfinished = u64::from(self.outstanding) + self.host_queue.len() as u64;
        if unfinished > 0 {
            let parked: usize = self.parked.iter().map(Vec::len).sum();
            return Err(SimError::Stuck {
                unfinished,
                parked_writes: parked as u64,
            });
        }
        let c = self.counters;
        for (name, v) in [
            ("buffer-hits", c.buffer_hits),
            ("materialized-reads", c.materialized_reads),
            ("unwritten-zero-reads", c.zero_reads),
            ("verified-reads", c.verified_reads),
            ("parked-writes", c.parked_writes),
            ("background-gc-runs", c.background_gc_runs),
            ("multi-plane-ops", c.multi_plane_ops),
            (ssdlab_stats::counter::REDIRECTED_READS, c.redirected_reads),
            ("trace-skipped-lines", self.source.skipped_lines()),
            ("trace-ignored-lines", self.source.ignored_lines()),
            ("trace-clamped-timestamps", self.source.clamped_timestamps()),
        ] {
            self.rec.count_named(name, v);
        }
        let design = self.raid_counters().into_iter().chain(self.fail_counters());
        for (name, v) in design.chain(self.dgc_counters()) {
            self.rec.count_named(name, v);
        }
        let end = self.last_completion_ns.max(self.now().as_ns());
        let end_state = self.end_state(end);
        self.rec
            .finish(end_state)
            .map_err(|e| SimError::Io(e.to_string()))
    }
}

/// Runs `cfg` on `source` to completion.
///
/// # Errors
/// See [`Simulation::run`].
pub fn run(
    cfg: SimConfig,
    source: Box<dyn RequestStream>,
    trace: &str,
) -> Result<Report, SimError> {
    Simulation::new(cfg, source, trace)?.run()
}

impl Simulation {
    /// A transaction finished on the flash: statistics, then the owner's bookkeeping.
    pub(crate) fn complete_txn(&mut self, t: TxnId) {
        let txn = self.txns[t];
        let chip = self.geom.chip_of_die(txn.die);
        let channel = self.geom.channel_of_chip(chip);
        self.rec.txn_done_at(
            channel,
            chip,
            &ssdlab_stats::TxnRecord {
                reason: txn.reason,
                op: txn.op,
                pages: 1,
                queue_ns: txn.started_ns - txn.enqueued_ns,
                bus_wait_ns: txn.bus_wait_ns,
                bus_ns: txn.bus_ns,
                array_ns: txn.array_ns,
            },
        );
        self.queues.load[chip.idx()] -= 1;
        match txn.reason {
            TxnReason::HostRead | TxnReason::HostWrite => self.host_txn_done(t),
            TxnReason::Rebuild => self.rebuild_txn_done(t),
            r if r.is_gc() => self.gc_txn_done(t),
            _ => self.raid_txn_done(t),
        }
        self.sched.on_txn_done(chip, &mut sched_ctx!(self));
        self.txns.remove(t);
    }
}
