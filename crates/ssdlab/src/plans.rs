//! Read plans: the ways a logical page can be served (docs/ARCHITECTURE.md §9).
//!
//! ```text
//!                 ┌ buffer       content still in the controller (waiting for space,
//!                 │              or being programmed)
//!  read of LPN ──►├ direct       its own page
//!  (controller    ├ mirror       the RAID-1 copy            ──► the scheduler's opinion,
//!   enumerates)   ├ duplicate    a page of identical content     else the ReadChoice
//!                 └ reconstruct  XOR of the rest of its stripe    policy, picks one
//! ```
//!
//! The controller *enumerates* the plans of a read into [`ReadPlans`] (each plan with the
//! chips it occupies); the scheduler may choose one at admission
//! ([`crate::sched::IoScheduler::choose_read`]), and otherwise a [`ReadChoice`] policy
//! does. A scheduler may also switch a queued direct read to another plan at dispatch
//! (BRR's redirected read): it asks the [`crate::sched::PlanOracle`] for the
//! alternatives and calls [`crate::sched::SchedCtx::redirect`]. In verify mode the
//! token the chosen plan returns is checked, whichever plan it was.
//!
//! Degraded reads (the page's chip is dead) have one plan, `reconstruct`, from the
//! stripe or the other copy; a page whose content is lost for good has none.

use ssdlab_nand::{ChipId, Ppn};

/// How a plan serves the read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanKind {
    /// From the controller's buffer: no flash read.
    Buffer,
    /// The page itself.
    Direct,
    /// The RAID-1 (or CR5M) copy of the page.
    Mirror,
    /// Another page holding identical content (DS-FTL).
    Duplicate,
    /// XOR of the other members of the page's stripe (or its other copy) — BRR's
    /// redirected read and the degraded read.
    Reconstruct,
}

/// One way to serve a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    /// What the plan does.
    pub kind: PlanKind,
    /// The page a copy plan reads (direct, mirror, duplicate), or the page being
    /// programmed whose content a buffer plan returns.
    pub ppn: Option<Ppn>,
    /// The plan must be taken: the direct read is not possible or not wanted (a
    /// degraded read, or `raid.force_reconstruct_reads`).
    pub forced: bool,
    /// Where its chips are in [`ReadPlans::chips`].
    first_chip: u32,
    chip_count: u32,
}

impl ReadPlan {
    /// A plan taken alone, without a choice to make (its chips are not recorded): the
    /// page itself on a device without copies, the buffer, a degraded read's
    /// reconstruction.
    pub fn only(kind: PlanKind, ppn: Option<Ppn>, forced: bool) -> Self {
        ReadPlan {
            kind,
            ppn,
            forced,
            first_chip: 0,
            chip_count: 0,
        }
    }
}

/// The plans of one read, with the chips each occupies; reused from read to read so
/// that enumerating allocates nothing in steady state.
#[derive(Clone, Debug, Default)]
pub struct ReadPlans {
    plans: Vec<ReadPlan>,
    chips: Vec<ChipId>,
}

impl ReadPlans {
    /// No plans.
    pub fn new() -> Self {
        ReadPlans::default()
    }

    /// Forgets every plan.
    #[inline]
    pub fn clear(&mut self) {
        self.plans.clear();
        self.chips.clear();
    }

    /// Adds a plan reading page `ppn` on `chip`.
    #[inline]
    pub fn push_copy(&mut self, kind: PlanKind, ppn: Ppn, chip: ChipId) {
        debug_assert!(matches!(
            kind,
            PlanKind::Direct | PlanKind::Mirror | PlanKind::Duplicate
        ));
        self.plans.push(ReadPlan {
            kind,
            ppn: Some(ppn),
            forced: false,
            first_chip: self.chips.len() as u32,
            chip_count: 1,
        });
        self.chips.push(chip);
    }

    /// Adds a plan with no flash read; `ppn` is the page being programmed whose content
    /// the buffer holds (None: a write waiting for space).
    pub fn push_buffer(&mut self, ppn: Option<Ppn>) {
        self.plans.push(ReadPlan {
            kind: PlanKind::Buffer,
            ppn,
            forced: false,
            first_chip: self.chips.len() as u32,
            chip_count: 0,
        });
    }

    /// Adds a reconstruction reading `chips` (one per source page); `forced` when it
    /// must be taken.
    pub fn push_reconstruct(&mut self, chips: impl IntoIterator<Item = ChipId>, forced: bool) {
        let first = self.chips.len();
        self.chips.extend(chips);
        self.plans.push(ReadPlan {
            kind: PlanKind::Reconstruct,
            ppn: None,
            forced,
            first_chip: first as u32,
            chip_count: (self.chips.len() - first) as u32,
        });
    }

    /// The plans, in enumeration order (the direct read, when possible, first).
    #[inline]
    pub fn plans(&self) -> &[ReadPlan] {
        &self.plans
    }

    /// The chips plan `i` occupies (a reconstruction: one per page it reads).
    #[inline]
    pub fn chips(&self, i: usize) -> &[ChipId] {
        let p = &self.plans[i];
        &self.chips[p.first_chip as usize..(p.first_chip + p.chip_count) as usize]
    }

    /// The first plan of `kind`, if any.
    pub fn find(&self, kind: PlanKind) -> Option<usize> {
        self.plans.iter().position(|p| p.kind == kind)
    }

    /// Number of plans.
    #[inline]
    pub fn len(&self) -> usize {
        self.plans.len()
    }

    /// True without plans (the content is lost, or was never written).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.plans.is_empty()
    }
}

/// Picks a plan when the scheduler has no opinion.
pub trait ReadChoice: Send {
    /// The index of the plan to take; `load` is the outstanding work of each chip.
    fn choose(&mut self, plans: &ReadPlans, load: &[u32]) -> usize;
}

/// The default read choice: a forced plan if there is one; else the buffer; else the
/// copy (direct, mirror, duplicate) whose chip has the least outstanding work, ties to
/// the earliest enumerated (the page itself). A reconstruction that is not forced is
/// left to schedulers that weigh it (BRR).
#[derive(Clone, Copy, Debug, Default)]
pub struct ShortestQueue;

impl ReadChoice for ShortestQueue {
    fn choose(&mut self, plans: &ReadPlans, load: &[u32]) -> usize {
        let ps = plans.plans();
        debug_assert!(!ps.is_empty(), "a read with no plan has nothing to choose");
        if let Some(i) = ps.iter().position(|p| p.forced) {
            return i;
        }
        if let Some(i) = plans.find(PlanKind::Buffer) {
            return i;
        }
        let mut best: Option<(u32, usize)> = None;
        for (i, p) in ps.iter().enumerate() {
            if p.kind == PlanKind::Reconstruct {
                continue;
            }
            let l = load[plans.chips(i)[0].idx()];
            if best.is_none_or(|(b, _)| l < b) {
                best = Some((l, i));
            }
        }
        best.map_or(0, |(_, i)| i)
    }
}

/// CR5M's read rule (§III-B 2, `raid.mirror_read_choice = "busy-fallback"`): a forced
/// plan if there is one; else the buffer; else the page itself, unless its chip has
/// outstanding work and the mirror copy's chip has none ("this read can be sent to chip 4
/// if chip 1 is busy").
#[derive(Clone, Copy, Debug, Default)]
pub struct BusyFallback;

impl ReadChoice for BusyFallback {
    fn choose(&mut self, plans: &ReadPlans, load: &[u32]) -> usize {
        let ps = plans.plans();
        if let Some(i) = ps.iter().position(|p| p.forced) {
            return i;
        }
        if let Some(i) = plans.find(PlanKind::Buffer) {
            return i;
        }
        let direct = plans.find(PlanKind::Direct).unwrap_or(0);
        match plans.find(PlanKind::Mirror) {
            Some(m)
                if load[plans.chips(direct)[0].idx()] > 0 && load[plans.chips(m)[0].idx()] == 0 =>
            {
                m
            }
            _ => direct,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_fallback_takes_the_copy_only_when_the_page_is_busy_and_the_copy_idle() {
        let mut p = ReadPlans::new();
        p.push_copy(PlanKind::Direct, Ppn(1), chip(0));
        p.push_copy(PlanKind::Mirror, Ppn(2), chip(1));
        let mut c = BusyFallback;
        assert_eq!(c.choose(&p, &[0, 0]), 0, "an idle data chip serves");
        assert_eq!(c.choose(&p, &[0, 5]), 0);
        assert_eq!(c.choose(&p, &[3, 0]), 1, "busy data chip, idle mirror chip");
        assert_eq!(c.choose(&p, &[3, 1]), 0, "both busy: the data chip");
        p.clear();
        p.push_buffer(None);
        assert_eq!(c.choose(&p, &[]), 0);
    }

    fn chip(i: u32) -> ChipId {
        ChipId(i)
    }

    #[test]
    fn plans_keep_their_chips_apart() {
        let mut p = ReadPlans::new();
        p.push_copy(PlanKind::Direct, Ppn(7), chip(2));
        p.push_reconstruct([chip(0), chip(1), chip(3)], false);
        p.push_copy(PlanKind::Mirror, Ppn(9), chip(5));
        assert_eq!(p.len(), 3);
        assert_eq!(p.chips(0), &[chip(2)]);
        assert_eq!(p.chips(1), &[chip(0), chip(1), chip(3)]);
        assert_eq!(p.chips(2), &[chip(5)]);
        assert_eq!(p.find(PlanKind::Mirror), Some(2));
        assert_eq!(p.plans()[2].ppn, Some(Ppn(9)));
        p.clear();
        assert!(p.is_empty());
        assert_eq!(p.find(PlanKind::Direct), None);
    }

    #[test]
    fn shortest_queue_prefers_the_less_loaded_copy_and_the_page_on_ties() {
        let mut p = ReadPlans::new();
        p.push_copy(PlanKind::Direct, Ppn(1), chip(0));
        p.push_copy(PlanKind::Mirror, Ppn(2), chip(1));
        let mut c = ShortestQueue;
        assert_eq!(c.choose(&p, &[3, 2]), 1);
        assert_eq!(c.choose(&p, &[2, 2]), 0, "ties go to the page itself");
        assert_eq!(c.choose(&p, &[1, 2]), 0);
    }

    #[test]
    fn shortest_queue_takes_a_forced_plan_and_leaves_optional_reconstruction() {
        let mut p = ReadPlans::new();
        p.push_copy(PlanKind::Direct, Ppn(1), chip(0));
        p.push_reconstruct([chip(1), chip(2)], false);
        let mut c = ShortestQueue;
        assert_eq!(c.choose(&p, &[9, 0, 0]), 0, "reconstruction is not a copy");
        p.clear();
        p.push_copy(PlanKind::Direct, Ppn(1), chip(0));
        p.push_reconstruct([chip(1), chip(2)], true);
        assert_eq!(c.choose(&p, &[0, 9, 9]), 1);
        p.clear();
        p.push_buffer(None);
        assert_eq!(c.choose(&p, &[]), 0);
    }
}
