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
use ssdlab_stats::{LatencyRecorder, NandReport, PageTypeReads, SlcCacheReport, SuspendReport};

mod cache;
mod pad;
mod phantom;
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
    /// The die holds a wordline that only pages written without a program (phantoms)
    /// would complete: program it padded when the die is next free.
    close: bool,
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
    /// SLC-mode read and program times, with the SLC cache on.
    slc: Option<(u64, u64)>,
    /// Host read latency of pages in SLC-mode blocks.
    slc_reads: LatencyRecorder,
    /// One-shot: pages placed without a program (materialized reads), by (block,
    /// wordline), until their wordline is programmed.
    phantoms: rustc_hash::FxHashMap<(u32, u32), u32>,
    /// Dies with `close` set.
    closing: u32,
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
            slc: cfg.slc_cache.is_on().then(|| {
                (
                    cfg.slc_cache.read_ns(timing.t_read_ns),
                    cfg.slc_cache.prog_ns(timing.t_prog_ns),
                )
            }),
            slc_reads: LatencyRecorder::default(),
            phantoms: Default::default(),
            closing: 0,
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
                .chain(self.slc.map(|(t_read, _)| PageTypeReads {
                    page_type: "slc-mode".into(),
                    t_read_ns: t_read,
                    latency: self.slc_reads.summary(),
                }))
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
            slc_cache: None,
            cache: self.cache.as_ref().map(|c| c.report()),
        }
    }
}

impl Simulation {
    /// The report's SLC-cache part, from the FTL's counters `c`.
    pub(super) fn slc_cache_report(&self, c: ssdlab_ftl::SlcCounters) -> SlcCacheReport {
        let cfg = &self.cfg.nand.slc_cache;
        let pages = self.ftl.slc_pages_per_block();
        let block_bytes = u64::from(pages) * u64::from(self.geom.page_size_bytes);
        let n = self.nand();
        SlcCacheReport {
            mode: kebab(&cfg.mode),
            blocks_per_plane: cfg.blocks_per_plane,
            pages_per_block: pages,
            size_bytes: u64::from(cfg.blocks_per_plane)
                * u64::from(self.geom.planes())
                * block_bytes,
            peak_blocks_held: c.peak_blocks_held,
            peak_bytes: c.peak_blocks_held * block_bytes,
            t_read_ns: n.slc.map_or(0, |t| t.0),
            t_prog_ns: n.slc.map_or(0, |t| t.1),
            when_full: kebab(&cfg.when_full),
            slc_pages_written: c.slc_pages_written,
            direct_pages_written: c.direct_pages_written,
            full_waits: c.full_waits,
            folds: c.folds,
            idle_folds: self.counters.idle_folds,
            idle_fold_pauses: self.fold_pace.as_ref().map_or(0, |f| f.pauses),
            fold_pages_moved: c.fold_pages_moved,
            slc_erases: c.slc_erases,
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

    /// The page index in its block of `die`'s current group, and whether the block is
    /// in SLC mode.
    fn head_page(&self, die: DieId) -> (u32, bool) {
        let ppn = self.txns[self.dies[die.idx()].head].ppn;
        let slc = self.ftl.slc_on() && self.ftl.is_slc_block(self.geom.block_of_page(ppn));
        (self.geom.page_in_block(ppn), slc)
    }

    /// Times the array part of the operation `die` has just entered (its phase set by
    /// the back end) and schedules its end.
    #[inline(never)]
    pub(super) fn nand_array(&mut self, die: DieId) {
        let now = self.now().as_ns();
        let phase = self.dies[die.idx()].phase;
        let (page, slc) = match phase {
            Phase::ReadArray | Phase::ProgArray => self.head_page(die),
            _ => (0, false),
        };
        // One-shot: a page whose wordline's other pages are held or phantoms closes it.
        let closes = phase == Phase::ProgArray && self.nand().one_shot && {
            let ppn = self.txns[self.dies[die.idx()].head].ppn;
            self.nand().cfg.closes_wordline(page) || self.nand_phantoms_close(die, ppn)
        };
        let n = self.nand_mut();
        let ty = n.cfg.page_type(page) as usize;
        let (ns, buffering, may) = match phase {
            // An SLC-mode page: one bit per cell, programmed on its own.
            Phase::ReadArray if slc => (n.slc.map_or(0, |t| t.0), false, false),
            Phase::ProgArray if slc => (n.slc.map_or(0, |t| t.1), false, true),
            Phase::ReadArray => (n.read_ns[ty], false, false),
            Phase::ProgArray if n.one_shot && !closes => (0, true, false),
            Phase::ProgArray if n.one_shot => (n.prog_ns[n.prog_ns.len() - 1], false, true),
            Phase::ProgArray => (n.prog_ns[ty], false, true),
            Phase::Erase => (n.erase_ns, false, true),
            p => unreachable!("array start on die {die} in phase {p:?}"),
        };
        let (ops, on) = (n.suspend.ops, n.policy.is_on());
        let ns = if phase == Phase::ReadArray && self.errors.is_some() {
            ns + self.errors_read_group(die, ns, ty as u32)
        } else {
            ns
        };
        let n = self.nand_mut();
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
            if !self.nand_pad_for_collector(die) {
                self.release_die(die);
            }
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
        let n = self.nand_mut();
        if !n.phantoms.is_empty() {
            for k in &keys {
                n.phantoms.remove(k);
            }
        }
        let d = &mut n.dies[die.idx()];
        d.held = keep;
        d.padding = false;
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
        let slc = self.ftl.slc_on() && self.ftl.is_slc_block(self.geom.block_of_page(txn.ppn));
        let n = self.nand_mut();
        if slc {
            n.slc_reads.record(now - txn.enqueued_ns);
            return;
        }
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
