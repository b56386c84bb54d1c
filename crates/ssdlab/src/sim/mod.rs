//! The simulation: one value that owns the clock, the event queue, every component and
//! the statistics of one run: RequestStream (or the tenants' submission queues and their
//! arbiter, sim/tenants) ─► host (arrival, device queue) ─► controller (FTL, transactions)
//! ─► scheduler ─► chip queues ─► dies / buses ─► completions. Events carry indices only.
//! Ties in time pop in insertion order: a run is a pure function of config, trace and seed.

/// A scheduler context borrowing only the fields the policy may see, so that the
/// policy (another field) can be called at the same time; `plans` replaces the read
/// plans the controller offers.
macro_rules! sched_ctx {
    ($s:ident) => {
        sched_ctx!($s, &$crate::sim::plan::oracle!($s))
    };
    ($s:ident, $plans:expr) => {
        $crate::sched::SchedCtx {
            txns: &$s.txns,
            queues: &mut $s.queues,
            geom: &$s.geom,
            plans: $plans,
        }
    };
}

/// Calls the scheduler: `sched!(self, |s, ctx| s.pick(die, ctx, group))` runs the body
/// with `s` bound to the policy, as its own type for the built-in ones (so the call is
/// direct and may inline), and `ctx` to a [`crate::sched::SchedCtx`] built in that arm
/// only (a hook the policy leaves empty builds none). The built-in policies that never
/// consult read plans (see [`crate::sched::Scheduler`]) get [`crate::sched::NoPlans`],
/// which costs nothing to build.
macro_rules! sched {
    ($s:ident, |$p:ident, $ctx:ident| $body:expr) => {
        sched!(@arms $s, $p, $ctx, $body, [SyncFifo AsyncFifo Vaq Paq] [Piq Other])
    };
    (@arms $s:ident, $p:ident, $ctx:ident, $body:expr,
        [$($blind:ident)+] [$($seeing:ident)+]) => {{
        #[allow(unused_imports)]
        use $crate::sched::IoScheduler as _;
        match &mut $s.sched {
            $($crate::sched::Scheduler::$blind($p) => {
                let $ctx = &mut sched_ctx!($s, &$crate::sched::NoPlans);
                $body
            })+
            $($crate::sched::Scheduler::$seeing($p) => {
                let $ctx = &mut sched_ctx!($s);
                $body
            })+
        }
    }};
}

mod backend;
mod bind;
mod build;
mod cmt;
mod counters;
mod cr5m;
mod dgc;
mod dram;
mod dsftl;
mod errors;
mod fail;
mod fold;
mod gc;
mod gc_trigger;
mod host;
mod merge;
mod nand;
mod partial;
mod pcie;
mod place;
mod plan;
mod prepare;
pub(crate) mod raid;
mod report;
mod sectors;
mod starve;
mod stream;
mod stream_tags;
pub mod tenants;
pub(crate) mod txn;
mod verify;
mod warmup;

use crate::config::SimConfig;
use crate::device::{DeadChips, GcJob};
use crate::error::SimError;
use crate::placement::PlacementPolicy;
use crate::plans::{ReadChoice, ReadPlans};
use crate::sched::{Queues, Scheduler};
use backend::{ChannelState, ChipRun, DieState};
pub(crate) use counters::SimCounters;
use gc::Parked;
use host::ReqSlab;
pub(crate) use pcie::generation_rate as pcie_generation_rate;
use ssdlab_engine::{EventQueue, SimDuration, SimTime};
use ssdlab_ftl::Ftl;
use ssdlab_nand::{ChannelId, DieId, Geometry, Lpn, PlaneId, Ppn};
use ssdlab_stats::{Recorder, Report, RunMeta};
use ssdlab_trace::{IoRequest, RequestStream};
use std::collections::VecDeque;
use txn::{ReqId, TxnId, TxnSlab};

pub use prepare::{
    device_order, order_by_device, release_shared_devices, reserve_device, set_device_sharing,
    shared_device_key, shared_devices, RunQueue,
};
pub use stream::{workload_streams, VecStream};
pub use warmup::WarmUp;

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
    /// A read that joined another completes (`scheduler.merge.completion = "fixed-ns"`).
    MergedRead(u32),
    /// Pages of a request the DRAM stage served are transferred (request, pages).
    DramDone(ReqId, u32),
    /// The NAND layer's array operation on a die ends (die, epoch; see `sim::nand`).
    NandDone(DieId, u32),
    /// The same for pages of which the request leaves bytes out of the transfer
    /// (`timing.transfer = "sectors"`): the key of their entry in the DRAM stage's hook.
    DramPartDone(u32),
    /// The host may have been idle long enough for the SLC cache to fold
    /// (`nand.slc_cache.idle_after_ns`).
    SlcIdle,
    /// A request that moved no data is done: a trim (carried out at its admission), or
    /// a write a read-only drive refused (the error model).
    DoneAtOnce(ReqId),
    /// A request's command (and a write's data) crossed the PCIe link to the device.
    PcieDown(ReqId),
    /// A request's completion (and a read's data) crossed the PCIe link to the host.
    PcieUp(ReqId),
}

/// A progress callback: called with the number of completed requests.
pub type ProgressFn = Box<dyn FnMut(u64) + Send>;

/// One run of the simulator.
pub struct Simulation {
    pub(crate) cfg: SimConfig,
    pub(crate) geom: Geometry,
    pub(crate) events: EventQueue<Event>,
    pub(crate) ftl: Ftl,
    pub(crate) placement: Box<dyn PlacementPolicy>,
    /// The placement policy keeps state between settles ([`PlacementPolicy::settles`]).
    pub(crate) placement_settles: bool,
    /// Picks a read's plan when the scheduler has no opinion.
    pub(crate) read_choice: Box<dyn ReadChoice>,
    /// Scratch: the plans of the read being admitted.
    pub(crate) read_plans: ReadPlans,
    pub(crate) sched: Scheduler,
    pub(crate) queues: Queues,
    pub(crate) txns: TxnSlab,
    // timing, precomputed
    pub(crate) t_read: SimDuration,
    pub(crate) t_prog: SimDuration,
    pub(crate) t_erase: SimDuration,
    pub(crate) xfer: SimDuration,
    /// What moves less than a page (`timing.transfer`).
    pub(crate) sectors: sectors::Sectors,
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
    /// Time of the last event that did something (the end of the run's work).
    pub(crate) last_event_ns: u64,
    pub(crate) logical_pages: u64,
    pub(crate) write_seq: u32,
    /// Verify mode's record of the tokens last written, when `verify = true`.
    pub(crate) verify: Option<verify::Verifier>,
    // back end
    pub(crate) dies: Vec<DieState>,
    pub(crate) channels: Vec<ChannelState>,
    /// Per chip: its running transactions and busy dies (one record, read together).
    pub(crate) chip_run: Vec<ChipRun>,
    pub(crate) chip_busy_ns: Vec<u64>,
    pub(crate) busy_chips: u32,
    // garbage collection
    pub(crate) gc_jobs: Vec<GcJob>,
    pub(crate) parked: Vec<Vec<Parked>>,
    /// Pages whose newest write waits for space: LPN → (park sequence, token).
    pub(crate) held: rustc_hash::FxHashMap<u32, (u64, u64)>,
    pub(crate) park_seq: u64,
    pub(crate) primed: bool,
    /// The warm-up `ftl.precondition.warmup` asks for is done.
    pub(crate) warmed_up: bool,
    pub(crate) gc_pages: Vec<(Ppn, Lpn)>,
    /// How folds of the SLC cache hand out their moves (the cache on only).
    pub(crate) fold_pace: Option<Box<fold::FoldPace>>,
    /// Planes to check for GC once the request being admitted is queued.
    pub(crate) gc_check: Vec<PlaneId>,
    /// Planes that need GC and found no victim (every full block holds only valid
    /// pages), in the order they starved: checked again as writes invalidate pages.
    pub(crate) starved: Vec<PlaneId>,
    /// Per plane: what took it below the GC threshold since its last GC start.
    pub(crate) gc_cause: Vec<gc_trigger::GcCause>,
    /// Per plane: its running GC job blocks its die (`ftl.gc.trigger = "lazy"`).
    pub(crate) gc_blocking: Vec<bool>,
    /// Per die, with the lazy trigger: transactions of blocking GC jobs, served before
    /// anything the scheduler holds (empty with the eager trigger).
    pub(crate) gc_first: Vec<VecDeque<TxnId>>,
    /// Foreground GC starts by cause.
    pub(crate) gc_starts: gc_trigger::GcStarts,
    // RAID
    pub(crate) raid: Option<raid::RaidState>,
    /// Failure injection and rebuild, when `raid.fail` names failures.
    pub(crate) fail: Option<Box<fail::FailState>>,
    /// Failed chips.
    pub(crate) dead: DeadChips,
    /// CR5M's mirror table and reclaims, when `raid.mirror_chips`.
    pub(crate) cr5m: Option<Box<cr5m::Cr5m>>,
    /// DGC, when `dgc.enabled`.
    pub(crate) dgc: Option<dgc::DgcState>,
    /// Binding at dispatch, when `placement.bind = "dispatch"`.
    pub(crate) bind: Option<bind::BindState>,
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
    /// Reads may take another page of their content (`SimConfig::multipath_reads`).
    pub(crate) multipath: bool,
    /// DS-FTL's counters (kept with the content index).
    pub(crate) dsftl_counters: dsftl::DsftlCounters,
    /// Read merging, when `scheduler.merge.reads` is not `"off"`.
    pub(crate) merge: Option<merge::MergeState>,
    /// The DRAM stage, when `cache.mode` is not `"off"`.
    pub(crate) dram: Option<Box<dram::DramHook>>,
    /// Several tenants' queues and their arbiter, when `host.tenant` names any.
    pub(crate) tenants: Option<Box<tenants::Tenants>>,
    /// Handles named by the workload's streams (`host.placement_from = "workload"`).
    pub(crate) stream_tags: Option<Box<stream_tags::StreamTags>>,
    /// The PCIe link between host and device (`host.pcie`; none: transfers take no time).
    pub(crate) pcie: Option<Box<pcie::Pcie>>,
    /// Page types, one-shot programs and suspend, when `[nand]` or `scheduler.suspend` asks.
    pub(crate) nand: Option<Box<nand::NandState>>,
    /// Partial-page writes merged before their program (`timing.transfer = "sectors"`).
    pub(crate) partial: Option<Box<partial::PartialWrites>>,
    /// The cached map, when `ftl.mapping = "cached"` (sim/cmt/).
    pub(crate) cmt: Option<Box<cmt::CmtState>>,
    /// Bit errors and read retry, when `errors.mode = "on"` (sim/errors.rs).
    pub(crate) errors: Option<Box<errors::ErrorsState>>,
}

impl Simulation {
    /// Names the preset the configuration came from, for the report.
    pub fn set_preset_name(&mut self, name: &str) {
        self.meta.preset = Some(name.to_string());
    }

    /// Busy time so far of every chip (any of its dies operating), index = chip id, and
    /// the length of the run so far (the end time the report uses): a chip's
    /// utilization is `busy / end`, as in the report's `utilization.chip`.
    pub fn chip_busy(&self) -> (&[u64], u64) {
        (
            &self.chip_busy_ns,
            self.last_completion_ns.max(self.last_event_ns),
        )
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

    /// Tells the placement policy that every page placed so far is queued.
    #[inline(always)]
    pub(crate) fn settle_placement(&mut self) {
        if self.placement_settles {
            self.placement.settle();
        }
    }

    /// True when every request of the workload has arrived and completed.
    pub(crate) fn workload_finished(&self) -> bool {
        self.source_done
            && self.lookahead.is_none()
            && self.outstanding == 0
            && self.host_queue.is_empty()
            && self.tenants.as_ref().is_none_or(|t| t.waiting() == 0)
    }

    /// Starts idle dies of chips whose queue received work.
    #[inline(always)]
    pub(crate) fn wake_touched(&mut self) {
        if !self.queues.touched.is_empty() || !self.queues.redirected.is_empty() {
            self.wake_touched_chips();
        }
    }

    fn wake_touched_chips(&mut self) {
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
            self.nand_chip_woken_if_on(chip);
        }
    }

    /// Runs one event. Returns false when nothing is left to do.
    ///
    /// # Errors
    /// A trace error, a verification mismatch, or an impossible device state.
    pub fn step(&mut self) -> Result<bool, SimError> {
        self.step_inline()
    }

    /// [`Simulation::step`], inlined into the run loop.
    #[inline(always)]
    fn step_inline(&mut self) -> Result<bool, SimError> {
        if !self.primed {
            if self.needs_warm_up() {
                return Err(SimError::config(
                    "ftl.precondition.warmup",
                    "\"trace\" replays the trace once before the run: call \
                     Simulation::warm_up with the trace first (the ssdlab command does)"
                        .into(),
                ));
            }
            // Before any other event (a timed failure, say) the first arrivals are due.
            self.primed = true;
            self.prime()?;
        }
        let Some((at, ev)) = self.events.pop() else {
            return self.last_chance();
        };
        match ev {
            Event::Arrival => self.on_arrival(),
            Event::ArrayDone(die) => self.on_array_done(die),
            Event::BusDone(ch) => self.on_bus_done(ch),
            Event::EncodeTimeout(slot, generation) => self.on_encode_timeout(slot, generation),
            Event::Fail(n) => {
                if !self.on_fail_event(n) {
                    // Not applied: the clock of the run stays at its last work.
                    return Ok(true);
                }
            }
            Event::RebuildStep(k) => self.rebuild_row(k as usize),
            Event::MergedRead(slot) => self.on_merged_read(slot),
            Event::DramDone(req, pages) => self.on_dram_done(req, pages, 0),
            Event::DramPartDone(key) => self.on_dram_part_done(key),
            Event::NandDone(die, epoch) => self.on_nand_done(die, epoch),
            Event::SlcIdle => return self.on_slc_idle_event(),
            Event::DoneAtOnce(req) => self.finish_request(req),
            Event::PcieDown(req) => self.on_pcie_down(req),
            Event::PcieUp(req) => self.finish_request(req),
        }
        self.last_event_ns = at.as_ns();
        self.after_event()?;
        Ok(true)
    }

    /// What follows every event: degraded reads waiting for their stripes try again,
    /// idle dies of chips that received work start, the placement settles; an error
    /// raised meanwhile stops the run.
    #[inline(always)]
    fn after_event(&mut self) -> Result<(), SimError> {
        if self.degraded_waiting() {
            self.retry_degraded();
        }
        self.wake_touched();
        self.settle_placement();
        if self.error.is_some() {
            return Err(self.error.take().expect("an error"));
        }
        Ok(())
    }

    /// The event queue is empty. Degraded reads still waiting try once more (a GC check
    /// they trigger may start work); the run goes on if that scheduled anything.
    fn last_chance(&mut self) -> Result<bool, SimError> {
        if self.nand_pad_if_stuck() {
            return Ok(true);
        }
        if !self.degraded_waiting() {
            return Ok(false);
        }
        self.after_event()?;
        Ok(!self.events.is_empty())
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
        while self.step_inline()? {}
        Ok(())
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
