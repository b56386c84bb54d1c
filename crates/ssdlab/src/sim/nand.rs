//! The NAND layer of the back end (docs/NAND.md): array times by page type, one-shot
//! wordline programs, and program/erase suspend for reads.
//!
//! Present only when `[nand]` describes more than SLC with `timing`'s times or
//! `scheduler.suspend` is on; without it the back end schedules its fixed delays in the
//! event queue's lanes and none of this code runs. With it, every array operation is
//! timed here and its end is an [`Event::NandDone`] (in the lane of its kind when the
//! lane holds that delay, else on the heap), stamped with the die's epoch: suspending
//! an operation moves the epoch on, so the end it had scheduled is recognised as stale
//! when it pops.
//!
//! ```text
//!  start (backend)  ─► nand_array: time by page type; one-shot: a wordline's earlier
//!                      pages take no array time and wait in `held`
//!  NandDone         ─► held pages move aside / the wordline's held pages complete,
//!                      then the back end's on_array_done
//!  try_start (busy) ─► nand_try_suspend: the scheduler's read runs after t_suspend
//!  release_die      ─► nand_resume: the suspended operation continues, t_resume later
//!  cache.rs         ─► nand.cache_mode: ONFI cache read and cache program
//! ```

use super::backend::{Phase, ERASE_LANE, PROGRAM_LANE, READ_LANE};
use super::txn::{TxnId, NONE};
use super::{Event, Simulation};
use crate::sched::SuspendPolicy;
use ssdlab_engine::SimDuration;
use ssdlab_nand::{
    DieId, FlashOp, NandConfig, NandTiming, ProgramModel, SuspendConfig, Suspendable, TxnReason,
};
use ssdlab_stats::{LatencyRecorder, NandReport, PageTypeReads, SuspendReport};

mod cache;
mod suspend;

/// One die's NAND-layer state.
#[derive(Clone, Debug, Default)]
struct DieNand {
    /// Stamp of the live end event; a popped end with another stamp is stale.
    epoch: u32,
    /// Array time of the current operation (its transactions' array time).
    array_ns: u64,
    /// The current program or erase, for suspension.
    op: Suspendable,
    /// The current operation may be suspended.
    suspendable: bool,
    /// The current program only moves its pages into the page buffer (one-shot, not
    /// the wordline's last page).
    buffering: bool,
    /// The current program writes the held pages of wordlines nothing will complete.
    padding: bool,
    /// The suspended operation: its phase, group and array time.
    saved: Option<(Phase, TxnId, u64)>,
    /// Programs whose data waits in the page buffer for their wordline's last page.
    held: Vec<TxnId>,
}

/// The NAND layer's state and measurements.
pub(crate) struct NandState {
    cfg: NandConfig,
    read_ns: Vec<u64>,
    prog_ns: Vec<u64>,
    erase_ns: u64,
    one_shot: bool,
    policy: SuspendPolicy,
    suspend: SuspendConfig,
    dies: Vec<DieNand>,
    /// Dies with a suspended operation.
    suspended: u32,
    reads: Vec<LatencyRecorder>,
    program_suspends: u64,
    erase_suspends: u64,
    suspended_ns: u64,
    refused: u64,
    padded: u64,
    /// ONFI cache read and cache program (`nand.cache_mode`), when on.
    cache: Option<Box<cache::CacheState>>,
}

impl NandState {
    /// The layer for `cfg`, or `None` when it would change nothing.
    pub(crate) fn build(
        cfg: &NandConfig,
        timing: &NandTiming,
        policy: SuspendPolicy,
        dies: u32,
    ) -> Option<Box<NandState>> {
        if cfg.is_default_slc() && !policy.is_on() && cfg.cache_mode.is_off() {
            return None;
        }
        let bits = cfg.cell.bits() as usize;
        Some(Box::new(NandState {
            read_ns: cfg.read_ns(timing.t_read_ns),
            prog_ns: cfg.prog_ns(timing.t_prog_ns),
            erase_ns: cfg.erase_ns(timing.t_erase_ns),
            one_shot: cfg.program == ProgramModel::OneShot && bits > 1,
            policy,
            suspend: cfg.suspend,
            dies: vec![DieNand::default(); dies as usize],
            suspended: 0,
            reads: vec![LatencyRecorder::default(); bits],
            program_suspends: 0,
            erase_suspends: 0,
            suspended_ns: 0,
            refused: 0,
            padded: 0,
            cache: cache::CacheState::build(cfg, dies),
            cfg: cfg.clone(),
        }))
    }

    /// True when some die holds programs waiting for their wordline.
    pub(crate) fn holds_pages(&self) -> bool {
        self.dies.iter().any(|d| !d.held.is_empty())
    }

    /// The array time of `die`'s current operation.
    #[inline]
    pub(crate) fn array_ns(&self, die: DieId) -> u64 {
        self.dies[die.idx()].array_ns
    }

    /// The report's section.
    pub(crate) fn report(&self) -> NandReport {
        let names = self.cfg.cell.page_type_names();
        let suspends = self.program_suspends + self.erase_suspends;
        NandReport {
            cell: self.cfg.cell.name().into(),
            page_order: kebab(&self.cfg.page_order),
            program: kebab(&self.cfg.program),
            reads_by_page_type: names
                .iter()
                .zip(&self.reads)
                .zip(&self.read_ns)
                .map(|((name, lat), &t)| PageTypeReads {
                    page_type: (*name).into(),
                    t_read_ns: t,
                    latency: lat.summary(),
                })
                .collect(),
            padded_wordlines: self.padded,
            suspend: self.policy.is_on().then(|| SuspendReport {
                policy: self.policy.name().into(),
                program_suspends: self.program_suspends,
                erase_suspends: self.erase_suspends,
                suspended_ns_total: self.suspended_ns,
                suspended_ns_mean: if suspends == 0 {
                    0.0
                } else {
                    self.suspended_ns as f64 / suspends as f64
                },
                refused: self.refused,
            }),
            cache: self.cache.as_ref().map(|c| c.report()),
        }
    }
}

/// The configuration name of a unit enum (its serde name).
fn kebab<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Simulation {
    fn nand(&self) -> &NandState {
        self.nand.as_deref().expect("the NAND layer is on")
    }

    fn nand_mut(&mut self) -> &mut NandState {
        self.nand.as_deref_mut().expect("the NAND layer is on")
    }

    /// The page index in its block of `die`'s current group.
    fn head_page(&self, die: DieId) -> u32 {
        let head = self.dies[die.idx()].head;
        self.geom.page_in_block(self.txns[head].ppn)
    }

    /// Times the array part of the operation `die` has just entered (its phase set by
    /// the back end) and schedules its end.
    #[inline(never)]
    pub(super) fn nand_array(&mut self, die: DieId) {
        let now = self.now().as_ns();
        let phase = self.dies[die.idx()].phase;
        let page = match phase {
            Phase::ReadArray | Phase::ProgArray => self.head_page(die),
            _ => 0,
        };
        let n = self.nand_mut();
        let ty = n.cfg.page_type(page) as usize;
        let (ns, buffering, may) = match phase {
            Phase::ReadArray => (n.read_ns[ty], false, false),
            Phase::ProgArray if n.one_shot && !n.cfg.closes_wordline(page) => (0, true, false),
            Phase::ProgArray if n.one_shot => (n.prog_ns[n.prog_ns.len() - 1], false, true),
            Phase::ProgArray => (n.prog_ns[ty], false, true),
            Phase::Erase => (n.erase_ns, false, true),
            p => unreachable!("array start on die {die} in phase {p:?}"),
        };
        let (ops, on) = (n.suspend.ops, n.policy.is_on());
        let d = &mut n.dies[die.idx()];
        d.array_ns = ns;
        d.buffering = buffering;
        d.suspendable = on
            && may
            && match phase {
                Phase::Erase => ops.erase(),
                _ => ops.program(),
            };
        if d.suspendable {
            d.op = Suspendable::start(now, ns);
        }
        let (epoch, may) = (d.epoch, d.suspendable);
        // A lane holds one delay at a time; another delay goes to the heap, in order.
        let lane = match phase {
            Phase::ReadArray => READ_LANE,
            Phase::Erase => ERASE_LANE,
            _ => PROGRAM_LANE,
        };
        self.events
            .schedule_in_lane(lane, SimDuration(ns), Event::NandDone(die, epoch));
        // Reads queued while the die moved the program's data in suspend it at once.
        if may && self.queues.queued_ops_for_die(die).0 > 0 {
            self.nand_try_suspend(die);
        }
        self.cache_program_started(die);
    }

    /// The end of `die`'s array operation stamped `epoch`, if it is still the live one.
    pub(super) fn on_nand_done(&mut self, die: DieId, epoch: u32) {
        let d = &self.nand().dies[die.idx()];
        if d.epoch != epoch {
            return;
        }
        let (buffering, padding) = (d.buffering, d.padding);
        if self.cache_move_done(die) {
            return;
        }
        if buffering {
            // The pages wait in the page buffer; the die is free meanwhile.
            let head = self.dies[die.idx()].head;
            let mut t = head;
            while t != NONE {
                let next = self.txns[t].group_next;
                self.nand_mut().dies[die.idx()].held.push(t);
                t = next;
            }
            self.nand_mut().dies[die.idx()].buffering = false;
            self.release_die(die);
            return;
        }
        if self.dies[die.idx()].phase == Phase::ProgArray && self.nand().one_shot {
            self.complete_wordlines(die, padding);
        }
        self.array_done(die);
    }

    /// The back end's `on_array_done`, with this layer's array time.
    fn array_done(&mut self, die: DieId) {
        let d = self.dies[die.idx()];
        let ns = self.nand().array_ns(die);
        match d.phase {
            Phase::ReadArray => {
                let mut n = 0;
                self.for_group(d.head, |sim, t| {
                    sim.txns[t].array_ns = ns;
                    n += 1;
                });
                if self.cache_read_done(die) {
                    return;
                }
                if self.uses_bus(d.head) {
                    let dm = &mut self.dies[die.idx()];
                    dm.phase = Phase::ReadXfer;
                    dm.xfers_left = n;
                    let (chip, ch) = self.queues.home(die);
                    self.for_group(d.head, |sim, t| sim.request_bus(t, die, chip, ch));
                } else {
                    self.for_group(d.head, |sim, t| sim.complete_txn(t));
                    self.release_die(die);
                }
            }
            Phase::ProgArray | Phase::Erase => {
                self.for_group(d.head, |sim, t| {
                    sim.txns[t].array_ns = ns;
                    sim.complete_txn(t);
                });
                if self.cache_program_next(die) {
                    return;
                }
                self.release_die(die);
            }
            p => unreachable!("array done on die {die} in phase {p:?}"),
        }
    }

    /// [`Simulation::nand_chip_woken`] when the layer is on.
    #[inline(always)]
    pub(super) fn nand_chip_woken_if_on(&mut self, chip: ssdlab_nand::ChipId) {
        if self.nand.is_some() {
            self.nand_chip_woken(chip);
        }
    }

    /// [`Simulation::nand_txn_done`] when the layer is on.
    #[inline(always)]
    pub(super) fn nand_txn_done_if_on(&mut self, t: TxnId) {
        if self.nand.is_some() {
            self.nand_txn_done(t);
        }
    }

    /// The event queue ran dry while one-shot programs wait for pages that will not
    /// come: pads their wordlines (true), or false when none waits.
    pub(super) fn nand_pad_if_stuck(&mut self) -> bool {
        if !self.nand.as_ref().is_some_and(|n| n.holds_pages()) {
            return false;
        }
        self.nand_pad_wordlines();
        true
    }

    /// Completes the held programs the one-shot program of `die` just wrote: those of
    /// its group's wordlines, or every one (`padding`).
    fn complete_wordlines(&mut self, die: DieId, padding: bool) {
        let ns = self.nand().array_ns(die);
        let mut keys: Vec<(u32, u32)> = Vec::new();
        let mut t = self.dies[die.idx()].head;
        while t != NONE {
            let ppn = self.txns[t].ppn;
            let page = self.geom.page_in_block(ppn);
            keys.push((
                self.geom.block_of_page(ppn).0,
                self.nand().cfg.wordline(page),
            ));
            t = self.txns[t].group_next;
        }
        let held = std::mem::take(&mut self.nand_mut().dies[die.idx()].held);
        let mut keep = Vec::with_capacity(held.len());
        for h in held {
            let ppn = self.txns[h].ppn;
            let key = (
                self.geom.block_of_page(ppn).0,
                self.nand().cfg.wordline(self.geom.page_in_block(ppn)),
            );
            if padding || keys.contains(&key) {
                self.txns[h].array_ns = ns;
                self.complete_txn(h);
            } else {
                keep.push(h);
            }
        }
        let d = &mut self.nand_mut().dies[die.idx()];
        d.held = keep;
        d.padding = false;
    }

    /// Nothing else can run: programs every wordline still waiting for pages, padded
    /// (the controller fills the missing pages), so that their writes complete.
    fn nand_pad_wordlines(&mut self) {
        for i in 0..self.dies.len() {
            let die = DieId(i as u32);
            if self.nand().dies[i].held.is_empty() || self.dies[i].phase != Phase::Idle {
                continue;
            }
            let chip = self.queues.home(die).0;
            self.set_die_busy(die, chip, true);
            let now = self.now().as_ns();
            let n = self.nand_mut();
            let ns = n.prog_ns[n.prog_ns.len() - 1];
            n.padded += 1;
            let d = &mut n.dies[i];
            d.array_ns = ns;
            d.padding = true;
            d.buffering = false;
            d.suspendable = false;
            d.op = Suspendable::start(now, ns);
            let epoch = d.epoch;
            let dm = &mut self.dies[i];
            dm.phase = Phase::ProgArray;
            dm.head = NONE;
            self.events
                .schedule_in(SimDuration(ns), Event::NandDone(die, epoch));
        }
    }

    /// Transaction `t` completed: host reads count toward their page type's latency.
    #[inline(never)]
    fn nand_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        if txn.op != FlashOp::Read || txn.reason != TxnReason::HostRead {
            return;
        }
        let now = self.now().as_ns();
        let page = self.geom.page_in_block(txn.ppn);
        let n = self.nand_mut();
        let ty = n.cfg.page_type(page) as usize;
        n.reads[ty].record(now - txn.enqueued_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_nand::CellType;

    #[test]
    fn no_layer_without_page_types_or_suspend() {
        let timing = NandTiming::default();
        let slc = NandConfig::default();
        assert!(NandState::build(&slc, &timing, SuspendPolicy::Off, 4).is_none());
        let on = NandState::build(&slc, &timing, SuspendPolicy::HostReads, 4).unwrap();
        assert_eq!(on.read_ns, vec![timing.t_read_ns]);
        let tlc = NandConfig {
            cell: CellType::Tlc,
            program: ProgramModel::OneShot,
            t_prog_ns_by_type: vec![1, 2, 3],
            ..NandConfig::default()
        };
        let n = NandState::build(&tlc, &timing, SuspendPolicy::Off, 4).unwrap();
        assert_eq!(n.read_ns, vec![timing.t_read_ns; 3]);
        assert!(n.one_shot);
        let r = n.report();
        assert_eq!((r.cell.as_str(), r.program.as_str()), ("tlc", "one-shot"));
        assert_eq!(r.page_order, "wordline");
        assert_eq!(r.reads_by_page_type.len(), 3);
        assert!(r.suspend.is_none(), "no suspend section when off");
    }
}
