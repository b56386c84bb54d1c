//! Fold pacing (docs/NAND.md, *SLC cache*, *Folding in pieces*): how a fold job of the
//! SLC cache hands its moves to the scheduler.
//!
//! A GC job hands every move of its victim to the scheduler at once. A fold of an SLC
//! block does not: it keeps at most `window` moves in flight per plane (a move is in
//! flight from its read's release until its program ends, or until the read finds the
//! page stale), so host requests queued for the die wait behind a few fold operations
//! instead of a whole block's.
//!
//! A fold started in idle time ([`FoldPace::start`] with `idle`) also yields to the
//! host: while the host has not been idle for `idle_after_ns`, it releases no new moves
//! (it is *paused*), except those needed to close a destination wordline it has opened,
//! whose pages would otherwise hold the die's page buffer. It resumes when the host has
//! been idle long enough again, or at once when its plane needs the space (the caller
//! passes `hold = false`). A fold started because the region is full or the plane needs
//! space never pauses.
//!
//! The type keeps the per-plane bookkeeping only; `sim::gc` submits the moves it
//! releases and reports reads and moves back.

use super::backend::Phase;
use super::txn::{Txn, NONE};
use super::{Event, Simulation};
use crate::error::SimError;
use ssdlab_engine::SimDuration;
use ssdlab_nand::{DieId, FlashOp, Lpn, PlaneId, Ppn, TxnReason};
use std::ops::Range;

/// A fold job's pacing state in one plane.
#[derive(Clone, Debug, Default)]
struct PlaneFold {
    /// The victim's valid pages when the fold started, in order.
    pages: Vec<(Ppn, Lpn)>,
    /// Pages released so far (`pages[..next]`).
    next: usize,
    /// Released reads not yet done.
    reads: u32,
    /// Released moves not yet finished (reads in flight, and programs in flight).
    in_flight: u32,
    /// Destination pages of the wordline this fold's programs have opened and not
    /// filled (0: none open).
    open: u32,
    /// Started in idle time: yields to the host.
    idle: bool,
    /// Held back by the host at the last release.
    paused: bool,
}

/// Fold pacing of every plane (present only with the SLC cache on).
#[derive(Clone, Debug)]
pub(crate) struct FoldPace {
    /// Moves in flight per plane.
    window: u32,
    /// Destination pages programmed together (bits per cell with a one-shot program,
    /// else 1).
    wordline: u32,
    /// How long the host must have had no request outstanding before idle folds run.
    pub idle_after_ns: u64,
    /// When the host last became idle (its outstanding requests fell to 0).
    idle_since_ns: u64,
    planes: Vec<PlaneFold>,
    /// Times an idle fold was held back for the host.
    pub pauses: u64,
}

impl FoldPace {
    /// Pacing for `planes` planes, `wordlines_in_flight` destination wordlines of
    /// `wordline` pages in flight per plane.
    /// `wordlines_in_flight` = 0: no limit.
    pub fn new(planes: u32, wordline: u32, wordlines_in_flight: u32, idle_after_ns: u64) -> Self {
        debug_assert!(wordline >= 1);
        let window = match wordlines_in_flight {
            0 => u32::MAX,
            n => wordline.saturating_mul(n),
        };
        FoldPace {
            window,
            wordline,
            idle_after_ns,
            idle_since_ns: 0,
            planes: vec![PlaneFold::default(); planes as usize],
            pauses: 0,
        }
    }

    /// A fold of `pages` starts in `plane` (`idle`: started in idle time). The previous
    /// fold there must be over.
    pub fn start(&mut self, plane: PlaneId, pages: &[(Ppn, Lpn)], idle: bool) {
        let p = &mut self.planes[plane.idx()];
        debug_assert!(
            p.in_flight == 0,
            "fold started in {plane:?} over a running one"
        );
        p.pages.clear();
        p.pages.extend_from_slice(pages);
        p.next = 0;
        p.reads = 0;
        p.in_flight = 0;
        p.open = 0;
        p.idle = idle;
        p.paused = false;
    }

    /// The fold of `plane` was started in idle time and has moves left to release.
    pub fn yields(&self, plane: PlaneId) -> bool {
        let p = &self.planes[plane.idx()];
        p.idle && p.next < p.pages.len()
    }

    /// Releases the moves `plane` may start now: the range of its pages to read
    /// ([`FoldPace::page`]). With `hold` (the host is busy and the plane does not need
    /// the space) only what closes an open destination wordline is released.
    pub fn release(&mut self, plane: PlaneId, hold: bool) -> Range<usize> {
        let (window, wordline) = (self.window, self.wordline);
        let p = &mut self.planes[plane.idx()];
        let left = (p.pages.len() - p.next) as u32;
        let room = window.saturating_sub(p.in_flight).min(left);
        let n = if hold && p.idle {
            let close = if p.open == 0 { 0 } else { wordline - p.open };
            let n = close.saturating_sub(p.reads).min(room);
            if n < room && !p.paused {
                p.paused = true;
                self.pauses += 1;
            }
            n
        } else {
            p.paused = false;
            room
        };
        let from = p.next;
        p.next += n as usize;
        p.reads += n;
        p.in_flight += n;
        from..p.next
    }

    /// Page `k` of `plane`'s fold (from a range [`FoldPace::release`] returned).
    pub fn page(&self, plane: PlaneId, k: usize) -> (Ppn, Lpn) {
        self.planes[plane.idx()].pages[k]
    }

    /// A fold read of `plane` is done; `dst_index` is the destination page (its index
    /// in its block) the move programs, or `None` when the page was stale (the move is
    /// over).
    pub fn read_done(&mut self, plane: PlaneId, dst_index: Option<u32>) {
        let wordline = self.wordline;
        let p = &mut self.planes[plane.idx()];
        debug_assert!(p.reads > 0 && p.in_flight > 0);
        p.reads -= 1;
        match dst_index {
            Some(i) => p.open = (i + 1) % wordline,
            None => p.in_flight -= 1,
        }
    }

    /// A fold program of `plane` is done: its move is over.
    pub fn move_done(&mut self, plane: PlaneId) {
        let p = &mut self.planes[plane.idx()];
        debug_assert!(p.in_flight > 0);
        p.in_flight -= 1;
    }

    /// The host's outstanding requests fell to 0 at `now_ns`.
    pub fn host_idle(&mut self, now_ns: u64) {
        self.idle_since_ns = now_ns;
    }

    /// The host, with `outstanding` requests, has been idle for `idle_after_ns` at
    /// `now_ns`.
    pub fn host_idle_long(&self, outstanding: u32, now_ns: u64) -> bool {
        outstanding == 0 && now_ns - self.idle_since_ns >= self.idle_after_ns
    }

    /// Planes whose fold is paused.
    pub fn paused(&self) -> impl Iterator<Item = PlaneId> + '_ {
        self.planes
            .iter()
            .enumerate()
            .filter(|(_, p)| p.paused)
            .map(|(i, _)| PlaneId(i as u32))
    }
}

impl Simulation {
    /// A fold's program on `plane` finished (its page already remapped): the pace and
    /// the job learn of it, and the fold releases what it may start next.
    pub(super) fn fold_write_done(&mut self, plane: PlaneId) {
        if let Some(pace) = self.fold_pace.as_deref_mut() {
            pace.move_done(plane);
        }
        self.move_finished(plane);
        self.fold_release(plane);
    }

    /// Hands the scheduler the moves `plane`'s fold may start now
    /// ([`FoldPace::release`]): an idle fold is held while the host is busy, unless the
    /// plane needs the space.
    pub(super) fn fold_release(&mut self, plane: PlaneId) {
        let now = self.now().as_ns();
        let Some(pace) = self.fold_pace.as_deref() else {
            return;
        };
        // A write parked in the plane waits for this fold (its region is full): its
        // request keeps the host busy, so holding the fold for an idle host would wait
        // for ever.
        let hold = pace.yields(plane)
            && !pace.host_idle_long(self.outstanding, now)
            && !self.ftl.gc_needed(plane)
            && self.parked[plane.idx()].is_empty();
        let range = self
            .fold_pace
            .as_deref_mut()
            .expect("fold pacing")
            .release(plane, hold);
        let die = self.geom.die_of_plane(plane);
        for k in range {
            let (src, lpn) = self
                .fold_pace
                .as_deref()
                .expect("fold pacing")
                .page(plane, k);
            let t = Txn::new(FlashOp::Read, TxnReason::FoldRead, src, die, lpn, NONE);
            self.submit_background(t);
        }
    }

    /// The host has no request outstanding: with no idle delay, paused folds resume and
    /// idle dies may fold now; else [`Event::SlcIdle`] checks again when the delay is
    /// over.
    pub(in crate::sim) fn slc_host_idle(&mut self) {
        let now = self.now().as_ns();
        let pace = self.fold_pace.as_deref_mut().expect("fold pacing");
        pace.host_idle(now);
        match pace.idle_after_ns {
            0 => self.slc_fold_idle(),
            ns => self.events.schedule_in(SimDuration(ns), Event::SlcIdle),
        }
    }

    /// [`Event::SlcIdle`], out of the run loop. Whatever it starts ends in events of its
    /// own: the clock of the run (the last event) does not move for a check that may
    /// find nothing.
    #[cold]
    #[inline(never)]
    pub(super) fn on_slc_idle_event(&mut self) -> Result<bool, SimError> {
        self.on_slc_idle();
        self.after_event()?;
        Ok(true)
    }

    /// If the host has stayed idle since it fell idle, folding may run.
    fn on_slc_idle(&mut self) {
        let now = self.now().as_ns();
        if self
            .fold_pace
            .as_deref()
            .is_some_and(|p| p.host_idle_long(self.outstanding, now))
        {
            self.slc_fold_idle();
        }
    }

    /// The host has been idle long enough: paused folds resume, and idle dies with
    /// nothing queued may start folds.
    fn slc_fold_idle(&mut self) {
        let paused: Vec<PlaneId> = self
            .fold_pace
            .as_deref()
            .map_or_else(Vec::new, |p| p.paused().collect());
        for plane in paused {
            self.fold_release(plane);
        }
        for d in 0..self.geom.dies() {
            if self.dies[d as usize].phase == Phase::Idle {
                self.on_die_idle(DieId(d));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(n: u32) -> Vec<(Ppn, Lpn)> {
        (0..n).map(|i| (Ppn(i), Lpn(100 + i))).collect()
    }

    const P: PlaneId = PlaneId(1);

    #[test]
    fn a_fold_keeps_at_most_its_window_in_flight() {
        let mut f = FoldPace::new(2, 3, 2, 0);
        f.start(P, &pages(10), false);
        assert_eq!(f.release(P, false), 0..6, "two wordlines of three");
        assert_eq!(f.release(P, false), 6..6, "the window is full");
        // A stale page ends its move at the read: one more may start.
        f.read_done(P, None);
        assert_eq!(f.release(P, false), 6..7);
        f.read_done(P, Some(0));
        assert_eq!(
            f.release(P, false),
            7..7,
            "a move in flight until its program"
        );
        f.move_done(P);
        assert_eq!(f.release(P, false), 7..8);
        assert_eq!(f.page(P, 7), (Ppn(7), Lpn(107)));
    }

    #[test]
    fn the_last_release_stops_at_the_victims_pages() {
        let mut f = FoldPace::new(2, 1, 4, 0);
        f.start(P, &pages(3), false);
        assert_eq!(f.release(P, false), 0..3);
        assert_eq!(f.release(P, false), 3..3);
        assert!(!f.yields(P));
    }

    #[test]
    fn a_held_idle_fold_releases_only_what_closes_its_open_wordline() {
        let mut f = FoldPace::new(2, 3, 2, 0);
        f.start(P, &pages(12), true);
        assert_eq!(f.release(P, false), 0..6);
        // Four reads done: destinations 0..3 (one wordline) and 3 (opens the next).
        for i in 0..4 {
            f.read_done(P, Some(i));
        }
        for _ in 0..4 {
            f.move_done(P);
        }
        // Two reads still in flight would close the open wordline: nothing more.
        assert_eq!(f.release(P, true), 6..6);
        assert_eq!(f.pauses, 1);
        f.read_done(P, None);
        f.read_done(P, None);
        // Both stale: the wordline (one page written) needs two more.
        assert_eq!(f.release(P, true), 6..8);
        assert_eq!(f.pauses, 1, "one pause, however many releases it holds");
        f.read_done(P, Some(4));
        f.read_done(P, Some(5));
        assert_eq!(f.release(P, true), 8..8, "the wordline is closed");
        assert_eq!(f.paused().collect::<Vec<_>>(), vec![P]);
        // Released again, it fills its window.
        f.move_done(P);
        f.move_done(P);
        assert_eq!(f.release(P, false), 8..12);
        assert_eq!(f.paused().count(), 0);
    }

    #[test]
    fn a_fold_for_space_never_holds() {
        let mut f = FoldPace::new(2, 3, 1, 0);
        f.start(P, &pages(6), false);
        assert_eq!(
            f.release(P, true),
            0..3,
            "hold is ignored: not an idle fold"
        );
        assert_eq!(f.pauses, 0);
        assert!(!f.yields(P));
    }

    #[test]
    fn the_host_counts_as_idle_after_the_delay() {
        let mut f = FoldPace::new(1, 3, 1, 1_000);
        f.host_idle(5_000);
        assert!(!f.host_idle_long(0, 5_999));
        assert!(f.host_idle_long(0, 6_000));
        assert!(!f.host_idle_long(1, 9_000), "a request outstanding");
        let f0 = FoldPace::new(1, 3, 1, 0);
        assert!(f0.host_idle_long(0, 0));
    }
}
