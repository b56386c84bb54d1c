//! The read-plan seam in the request path: the plans of a host read are enumerated
//! here ([`Simulation::enumerate_read`]), the scheduler sees the alternatives of a
//! queued read through [`Plans`], and the plans it chose at dispatch are carried out
//! ([`Simulation::process_redirects`]). See [`crate::plans`].

use super::cr5m::Cr5m;
use super::raid::RaidState;
use super::txn::{TxnId, TxnSlab};
use super::Simulation;
use crate::device::DeadChips;
use crate::plans::{PlanKind, ReadPlan, ReadPlans};
use ssdlab_ftl::Ftl;
use ssdlab_nand::{ChipId, Geometry, Lpn, Ppn, TxnReason};
use ssdlab_raid::RaidLevel;

/// The oracle of a simulation, borrowing only the fields it reads.
macro_rules! oracle {
    ($s:ident) => {
        $crate::sim::plan::Plans {
            raid: $s.raid.as_ref(),
            cr5m: $s.cr5m.as_deref(),
            dead: &$s.dead,
            ftl: &$s.ftl,
            txns: &$s.txns,
            geom: &$s.geom,
            held: &$s.held,
            multipath: $s.multipath,
        }
    };
}
pub(crate) use oracle;

/// What enumerating the plans of a read found.
pub(crate) enum Enumerated {
    /// Exactly one plan (nothing to choose; the plan list is not filled).
    One(ReadPlan),
    /// Several plans, in the plan list.
    Plans,
    /// The content is lost for good (two members of its group failed).
    Lost,
    /// Never written, and not materialized (`host.unwritten_reads = "zero"`, or no room):
    /// answered with zeros.
    Unwritten,
}

impl Simulation {
    /// Enumerates the plans of a host read of `lpn`: one plan is returned, several are
    /// left in `self.read_plans`. The buffer when the
    /// controller holds its content; the reconstruction (forced) when its page is on a
    /// dead chip or exists only through redundancy; else the page itself, its RAID-1
    /// copy, and with `raid.force_reconstruct_reads` a forced reconstruction.
    /// `token` is the read's content as the trace gives it: a never-written page that
    /// the read materializes takes it.
    #[inline(always)]
    pub(in crate::sim) fn enumerate_read(&mut self, lpn: Lpn, token: Option<u64>) -> Enumerated {
        if self.held_get(lpn).is_some() {
            // The page's newest content waits for space in the controller.
            return Enumerated::One(ReadPlan::only(PlanKind::Buffer, None, false));
        }
        if self.is_lost(lpn) {
            return Enumerated::Lost;
        }
        let degraded = ReadPlan::only(PlanKind::Reconstruct, None, true);
        if self.is_redundant_only(lpn) {
            return Enumerated::One(degraded);
        }
        let ppn = match self.ftl.lookup(lpn) {
            Some(p) => p,
            None if self.verify.is_some() => {
                // Verify mode: an unmapped page must be one that holds no data (never
                // written, or trimmed).
                self.verify_unmapped(lpn);
                match self.materialize(lpn, token) {
                    Some(p) => p,
                    None => return Enumerated::Unwritten,
                }
            }
            None => match self.materialize(lpn, token) {
                Some(p) => p,
                None => return Enumerated::Unwritten,
            },
        };
        if self.ftl.is_pending(ppn) {
            // Being programmed: its content is in the controller's write buffer.
            return Enumerated::One(ReadPlan::only(PlanKind::Buffer, Some(ppn), false));
        }
        if self.dead.any() && self.on_dead_chip(ppn) {
            // Degraded: reconstruction from the stripe or the other copy (the read may
            // still wait for the stripe to settle).
            return Enumerated::One(degraded);
        }
        let direct = ReadPlan::only(PlanKind::Direct, Some(ppn), false);
        let Some(r) = self.raid.as_ref() else {
            if self.ftl.has_content_index() {
                return self.enumerate_copies(ppn);
            }
            return Enumerated::One(direct);
        };
        let mut plans = std::mem::take(&mut self.read_plans);
        plans.clear();
        match r.map.level {
            RaidLevel::Raid1 => {
                if let Some(m) = mirror_copy(r, &self.held, &self.ftl, &self.dead, &self.geom, lpn)
                {
                    plans.push_copy(PlanKind::Direct, ppn, self.geom.chip_of_page(ppn));
                    plans.push_copy(PlanKind::Mirror, m, self.geom.chip_of_page(m));
                }
            }
            RaidLevel::Raid5 if self.cr5m.is_some() => {
                // CR5M: a page written by a mirror write may be read from its copy.
                if let Some(m) = self.cr5m_copy(lpn) {
                    plans.push_copy(PlanKind::Direct, ppn, self.geom.chip_of_page(ppn));
                    plans.push_copy(PlanKind::Mirror, m, self.geom.chip_of_page(m));
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 if r.force_reconstruct => {
                let mut sources = Vec::new();
                if self.raid_sources(lpn, &mut sources) {
                    plans.push_copy(PlanKind::Direct, ppn, self.geom.chip_of_page(ppn));
                    let chips = sources.iter().map(|&p| self.geom.chip_of_page(p));
                    plans.push_reconstruct(chips, true);
                }
            }
            _ => {}
        }
        let several = !plans.is_empty();
        self.read_plans = plans;
        if several {
            Enumerated::Plans
        } else {
            Enumerated::One(direct)
        }
    }

    /// True when a read of `lpn` is degraded: its page is on a dead chip, or its content
    /// exists only through redundancy.
    pub(in crate::sim) fn page_is_degraded(&self, lpn: Lpn) -> bool {
        self.is_redundant_only(lpn) || self.ftl.lookup(lpn).is_some_and(|p| self.on_dead_chip(p))
    }

    /// Carries out the plans schedulers chose for queued host reads at dispatch.
    pub(in crate::sim) fn process_redirects(&mut self) {
        if self.queues.redirected.is_empty() {
            return;
        }
        let list = std::mem::take(&mut self.queues.redirected);
        for &(t, kind) in &list {
            debug_assert_eq!(self.txns[t].reason, TxnReason::HostRead);
            let served = match kind {
                PlanKind::Reconstruct => self.redirect_to_reconstruction(t),
                PlanKind::Mirror | PlanKind::Duplicate => self.redirect_to_copy(t, kind),
                PlanKind::Direct | PlanKind::Buffer => false,
            };
            if !served {
                // The plan is gone since the policy asked: read directly after all.
                sched!(self, |s, ctx| s.submit_background(t, ctx));
            }
        }
        let mut list = list;
        list.clear();
        self.queues.redirected = list;
    }

    /// Replaces host read `t` with a reconstruction; false if the oracle no longer offers
    /// one or the stripe cannot now.
    fn redirect_to_reconstruction(&mut self, t: TxnId) -> bool {
        let mut alts = std::mem::take(&mut self.read_plans);
        oracle!(self).alternatives_of(t, &mut alts);
        let offered = alts.find(PlanKind::Reconstruct).is_some();
        self.read_plans = alts;
        let txn = self.txns[t];
        if !offered || !self.reconstruct_read(txn.req, txn.lpn, txn.expect) {
            return false;
        }
        self.ftl.unpin(txn.ppn);
        self.gc_page_released(txn.ppn);
        let chip = self.geom.chip_of_die(txn.die);
        self.queues.load[chip.idx()] -= 1;
        self.txns.remove(t);
        self.counters.redirected_reads += 1;
        true
    }

    /// Points host read `t` at the copy of `kind` the oracle offers now and hands it back
    /// to the scheduler; false if no such copy is offered any more.
    fn redirect_to_copy(&mut self, t: TxnId, kind: PlanKind) -> bool {
        let mut alts = std::mem::take(&mut self.read_plans);
        oracle!(self).alternatives_of(t, &mut alts);
        let copy = alts.find(kind).and_then(|i| alts.plans()[i].ppn);
        self.read_plans = alts;
        let Some(ppn) = copy else { return false };
        self.forget_waiting_read(t);
        let old = self.txns[t];
        self.ftl.unpin(old.ppn);
        self.gc_page_released(old.ppn);
        self.queues.load[self.geom.chip_of_die(old.die).idx()] -= 1;
        self.ftl.pin(ppn);
        let die = self.geom.die_of_page(ppn);
        self.queues.load[self.geom.chip_of_die(die).idx()] += 1;
        let txn = &mut self.txns[t];
        txn.ppn = ppn;
        txn.die = die;
        self.counters.redirected_reads += 1;
        match kind {
            PlanKind::Mirror => self.raid_mut().counters.mirror_reads += 1,
            PlanKind::Duplicate => self.dsftl_counters.duplicate_reads += 1,
            _ => {}
        }
        self.note_waiting_read(t, ppn);
        sched!(self, |s, ctx| s.submit_background(t, ctx));
        true
    }
}

/// The RAID-1 copy of host page `lpn` that a read may take now: mapped, not waiting for
/// space, not being programmed, not on a dead chip.
fn mirror_copy(
    r: &RaidState,
    held: &rustc_hash::FxHashMap<u32, (u64, u64)>,
    ftl: &Ftl,
    dead: &DeadChips,
    geom: &Geometry,
    lpn: Lpn,
) -> Option<Ppn> {
    let (mlpn, _) = r.map.mirror_of(lpn)?;
    if !held.is_empty() && held.contains_key(&mlpn.0) {
        return None;
    }
    let m = ftl.lookup(mlpn)?;
    (!ftl.is_pending(m) && !dead.page_dead(geom, m)).then_some(m)
}

/// The read plans the controller can execute now, as the scheduler sees them.
pub(crate) struct Plans<'a> {
    pub raid: Option<&'a RaidState>,
    pub cr5m: Option<&'a Cr5m>,
    pub dead: &'a DeadChips,
    pub ftl: &'a Ftl,
    pub txns: &'a TxnSlab,
    pub geom: &'a Geometry,
    pub held: &'a rustc_hash::FxHashMap<u32, (u64, u64)>,
    pub multipath: bool,
}

impl Plans<'_> {
    /// See [`crate::sched::PlanOracle::alternatives`].
    fn alternatives_of(&self, t: TxnId, plans: &mut ReadPlans) {
        plans.clear();
        let txn = &self.txns[t];
        if txn.reason != TxnReason::HostRead || !self.reads_current(txn) {
            return;
        }
        let Some(r) = self.raid else {
            if self.multipath {
                // Other pages of its content, programmed and on live chips.
                self.ftl.duplicate_copies(txn.ppn, |p| {
                    if !self.dead.page_dead(self.geom, p) {
                        plans.push_copy(PlanKind::Duplicate, p, self.geom.chip_of_page(p));
                    }
                });
            }
            return;
        };
        match r.map.level {
            RaidLevel::Raid1 => {
                let copy = mirror_copy(r, self.held, self.ftl, self.dead, self.geom, txn.lpn);
                if let Some(m) = copy {
                    plans.push_copy(PlanKind::Mirror, m, self.geom.chip_of_page(m));
                }
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let copy = self
                    .cr5m
                    .and_then(|c| c.live_copy(txn.lpn, self.ftl, self.held, self.dead, self.geom));
                if let Some(m) = copy {
                    plans.push_copy(PlanKind::Mirror, m, self.geom.chip_of_page(m));
                }
                self.reconstruction(r, txn.lpn, plans);
            }
            RaidLevel::Raid0 | RaidLevel::None => {}
        }
    }

    /// True when host read `txn` still targets the current version of its page: a page
    /// rewritten since the read was admitted is no longer what its stripe or its copy
    /// encodes, so only the page the read pinned holds the content it must return.
    fn reads_current(&self, txn: &crate::sim::txn::Txn) -> bool {
        self.ftl.lookup(txn.lpn) == Some(txn.ppn) && !self.held.contains_key(&txn.lpn.0)
    }

    /// The reconstruction of `lpn` from its stripe, if the stripe is quiescent, has its
    /// parity, and no source is being programmed or on a dead chip.
    fn reconstruction(&self, r: &RaidState, lpn: Lpn, plans: &mut ReadPlans) {
        let c = r.map.layout.locate(u64::from(lpn.0));
        let stripe = r.map.stripe_of(&c);
        if r.locks.contains_key(&stripe)
            || r.buffers.contains_key(&stripe)
            || r.parked_stripes.contains_key(&stripe)
        {
            return;
        }
        let Some(parity) = self.ftl.lookup(r.map.red_lpn(stripe)) else {
            return;
        };
        // CR5M: the parity covers a mirrored page's expired version, not the page.
        if self.cr5m.is_some_and(|m| m.entry_of(lpn).is_some()) {
            return;
        }
        // Groups have at most 64 members (validated): the chips fit on the stack, and
        // nothing is pushed unless every source can be read.
        let mut chips = [ChipId(0); 64];
        let mut n = 0;
        for pos in 0..r.map.layout.group_size() {
            if pos == c.pos {
                continue;
            }
            let ppn = match r.map.layout.lpn_at(c.row, c.group, pos) {
                Some(x) => {
                    let l = Lpn(x as u32);
                    self.ftl.lookup(self.cr5m.map_or(l, |m| m.covered(l)))
                }
                None => Some(parity),
            };
            if let Some(p) = ppn {
                if self.ftl.is_pending(p) || self.dead.page_dead(self.geom, p) {
                    return;
                }
                chips[n] = self.geom.chip_of_page(p);
                n += 1;
            }
        }
        plans.push_reconstruct(chips[..n].iter().copied(), false);
    }
}

impl crate::sched::PlanOracle for Plans<'_> {
    fn alternatives(&self, t: TxnId, plans: &mut ReadPlans) {
        self.alternatives_of(t, plans);
    }
}

#[cfg(test)]
mod tests {
    //! Schedulers that take a read's other copy, at admission and at dispatch, on a
    //! RAID-1 device with verify on: every read is served by the mirror and checked.

    use crate::config::ConfigBuilder;
    use crate::plans::{PlanKind, ReadPlans};
    use crate::sched::{AsyncFifo, IoScheduler, SchedCtx};
    use crate::sim::txn::{ReqId, TxnId};
    use crate::sim::{Simulation, VecStream};
    use ssdlab_nand::{ChipId, DieId, Geometry, TxnReason};
    use ssdlab_stats::Counter;
    use ssdlab_trace::{IoRequest, Op};

    /// When the mirror is taken: at admission (`choose_read`) or at dispatch (redirect).
    #[derive(Clone, Copy, PartialEq)]
    enum When {
        Admission,
        Dispatch,
    }

    /// Async FIFO that prefers a read's mirror copy.
    struct MirrorFirst {
        inner: AsyncFifo,
        when: When,
        alts: ReadPlans,
    }

    impl IoScheduler for MirrorFirst {
        fn name(&self) -> &'static str {
            "mirror-first"
        }
        fn submit_request(&mut self, req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
            let mut direct = Vec::new();
            for &t in txns {
                let read = ctx.txns[t].reason == TxnReason::HostRead;
                if read && self.when == When::Dispatch {
                    ctx.plans.alternatives(t, &mut self.alts);
                    if self.alts.find(PlanKind::Mirror).is_some() {
                        ctx.redirect(t, PlanKind::Mirror);
                        continue;
                    }
                }
                direct.push(t);
            }
            self.inner.submit_request(req, &direct, ctx);
        }
        fn choose_read(&mut self, plans: &ReadPlans, _ctx: &SchedCtx) -> Option<usize> {
            match self.when {
                When::Admission => plans.find(PlanKind::Mirror),
                When::Dispatch => None,
            }
        }
        fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
            self.inner.submit_background(txn, ctx);
        }
        fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
            self.inner.on_chip_room(chip, ctx);
        }
        fn on_txn_done(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
            self.inner.on_txn_done(chip, ctx);
        }
        fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
            self.inner.pick(die, ctx, group);
        }
        fn held(&self) -> usize {
            self.inner.held()
        }
    }

    fn page(arrival_ns: u64, op: Op, lpn: u64) -> IoRequest {
        IoRequest {
            arrival_ns,
            op,
            fua: false,
            offset_bytes: lpn * 4096,
            size_bytes: 4096,
            content: None,
            stream: None,
        }
    }

    /// Writes 8 pages, then reads them back, on chip RAID-1 over 4 chips; returns the
    /// report and the chips the reads' flash transactions ran on.
    fn replay(when: When) -> ssdlab_stats::Report {
        let cfg = ConfigBuilder::new()
            .text(
                "verify = true\n[geometry]\nchannels = 4\nchips_per_channel = 1\n\
                 dies_per_chip = 1\nplanes_per_die = 1\nblocks_per_plane = 32\n\
                 pages_per_block = 8\n[raid]\nlevel = 1\ndomain = \"chip\"\ngroup_size = 2\n",
                "raid-1",
            )
            .unwrap()
            .build()
            .unwrap();
        let mut reqs: Vec<IoRequest> = (0..8).map(|l| page(0, Op::Write, l)).collect();
        reqs.extend((0..8).map(|l| page(10_000_000, Op::Read, l)));
        let mut sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "t").unwrap();
        let geom: Geometry = sim.geom;
        let mirror_first: Box<dyn IoScheduler> = Box::new(MirrorFirst {
            inner: AsyncFifo::new(&geom, false),
            when,
            alts: ReadPlans::new(),
        });
        sim.sched = mirror_first.into();
        sim.run_to_end().unwrap();
        sim.check_invariants();
        sim.audit().unwrap();
        sim.into_report().unwrap()
    }

    /// Flash reads done for host reads.
    fn host_flash_reads(r: &ssdlab_stats::Report) -> u64 {
        r.transactions
            .iter()
            .filter(|t| t.reason == TxnReason::HostRead)
            .map(|t| t.count)
            .sum()
    }

    #[test]
    fn a_scheduler_takes_the_mirror_at_admission() {
        let r = replay(When::Admission);
        assert_eq!(r.counter(Counter::RaidMirrorReads), 8);
        assert_eq!(r.counter(Counter::RedirectedReads), 0);
        assert_eq!(r.counter(Counter::VerifiedReads), 8);
        assert_eq!(host_flash_reads(&r), 8);
    }

    #[test]
    fn a_scheduler_redirects_a_queued_read_to_the_mirror() {
        let r = replay(When::Dispatch);
        assert_eq!(r.counter(Counter::RaidMirrorReads), 8);
        assert_eq!(r.counter(Counter::RedirectedReads), 8);
        assert_eq!(r.counter(Counter::VerifiedReads), 8);
        assert_eq!(host_flash_reads(&r), 8);
    }
}
