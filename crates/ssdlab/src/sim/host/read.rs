//! The read side of admission: a page read from flash, the write buffer, or a
//! never-written page materialized on first read.

use super::ReadOutcome;
use crate::config::UnwrittenReads;
use crate::placement::{PageToPlace, Role};
use crate::plans::{PlanKind, ReadPlan, ReadPlans};
use crate::sched::IoScheduler;
use crate::sim::gc_trigger::GcCause;
use crate::sim::plan::Enumerated;
use crate::sim::txn::ReqId;
use crate::sim::Simulation;
use ssdlab_ftl::token_for;
use ssdlab_nand::{FlashOp, Lpn, PlaneId, Ppn, TxnReason};

impl Simulation {
    /// A read page: its plans are enumerated, the scheduler (or the read-choice policy)
    /// picks one, and the pick is carried out: a flash read of the page or a copy, an
    /// answer from the write buffer, or a reconstruction.
    /// `token` is the read's content as the trace gives it, if it does.
    pub(super) fn admit_read(&mut self, id: ReqId, lpn: Lpn, token: Option<u64>) -> ReadOutcome {
        if self.cmt.is_some() {
            if let Some(o) = self.cmt_read(id, lpn, token) {
                return o;
            }
        }
        self.admit_read_mapped(id, lpn, token)
    }

    /// [`Simulation::admit_read`] once the page's map entry is at hand (always with the
    /// ideal map; after its translation page with the cached one).
    #[inline(always)]
    pub(in crate::sim) fn admit_read_mapped(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        token: Option<u64>,
    ) -> ReadOutcome {
        match self.enumerate_read(lpn, token) {
            Enumerated::One(plan) => self.serve_read(id, lpn, plan, &ReadPlans::new()),
            Enumerated::Plans => {
                let plans = std::mem::take(&mut self.read_plans);
                let choice = match self.sched.choose_read(&plans, &sched_ctx!(self)) {
                    Some(i) => i,
                    None => self.read_choice.choose(&plans, &self.queues.load),
                };
                let outcome = self.serve_read(id, lpn, plans.plans()[choice], &plans);
                self.read_plans = plans;
                outcome
            }
            Enumerated::Lost => {
                self.fs_mut().counters.unrecoverable_reads += 1;
                ReadOutcome::Done
            }
            Enumerated::Unwritten => ReadOutcome::Done,
        }
    }

    /// Carries out `plan` (one of `plans`, or the only one) for read page `lpn` of
    /// request `id`.
    // Inlined into admission (it runs once per read page): measured, 3.8 M fewer
    // instructions with `read_copy` on the Financial1 excerpt.
    #[inline(always)]
    fn serve_read(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        plan: ReadPlan,
        plans: &ReadPlans,
    ) -> ReadOutcome {
        let expect = self.expected(lpn);
        match plan.kind {
            PlanKind::Buffer => {
                self.counters.buffer_hits += 1;
                self.reqs[id].buffer_hits += 1;
                if self.verify.is_some() {
                    let token = match plan.ppn {
                        Some(p) => self.ftl.token(p),
                        None => self.held_get(lpn).expect("a held page").1,
                    };
                    self.check_token(lpn, expect, token);
                }
                ReadOutcome::Done
            }
            PlanKind::Reconstruct if self.page_is_degraded(lpn) => {
                self.degraded_read(id, lpn, expect)
            }
            PlanKind::Reconstruct => {
                if self.reconstruct_read(id, lpn, expect) {
                    return ReadOutcome::Deferred;
                }
                // The stripe changed under the plan: read the page itself after all.
                let direct = plans
                    .find(PlanKind::Direct)
                    .expect("a forced reconstruction has a page");
                self.read_copy(id, lpn, expect, plans.plans()[direct])
            }
            PlanKind::Direct | PlanKind::Mirror | PlanKind::Duplicate => {
                self.read_copy(id, lpn, expect, plan)
            }
        }
    }

    /// A flash read of the page a copy plan names.
    #[inline(always)]
    fn read_copy(&mut self, id: ReqId, lpn: Lpn, expect: u64, plan: ReadPlan) -> ReadOutcome {
        let ppn = plan.ppn.expect("a copy plan names its page");
        match plan.kind {
            PlanKind::Mirror => self.raid_mut().counters.mirror_reads += 1,
            PlanKind::Duplicate => {
                self.dsftl_counters.duplicate_reads += 1;
                self.counters.redirected_reads += 1;
            }
            _ => {}
        }
        if self.merge.is_some() && self.try_merge_read(id, lpn, ppn) {
            return ReadOutcome::Deferred;
        }
        self.ftl.pin(ppn);
        let die = self.geom.die_of_page(ppn);
        let mut t = self.queued_txn(FlashOp::Read, TxnReason::HostRead, ppn, die, lpn, id);
        t.expect = expect;
        let t = self.txns.insert(t);
        self.note_waiting_read(t, ppn);
        ReadOutcome::Txn(t)
    }

    /// A never-written page that a read asks for (see `host.unwritten_reads`), with the
    /// read's content when the trace gives it (`token`), else a content of its own. Under
    /// RAID the whole stripe (or both copies) is materialized with its redundancy.
    pub(in crate::sim) fn materialize(&mut self, lpn: Lpn, token: Option<u64>) -> Option<Ppn> {
        if self.cfg.host.unwritten_reads == UnwrittenReads::Zero {
            self.counters.zero_reads += 1;
            return None;
        }
        let placed = if self.raid.is_some() {
            self.raid_materialize(lpn)
        } else {
            let token = token.unwrap_or_else(|| token_for(lpn, 0));
            let plane = self.place(PageToPlace::new(lpn, token, Role::Materialize));
            let ok = self.materialize_page(lpn, plane, token);
            if ok {
                self.note_written(lpn, token);
            }
            ok
        };
        if !placed {
            self.counters.zero_reads += 1;
            return None;
        }
        self.counters.materialized_reads += 1;
        self.ftl.lookup(lpn)
    }

    /// Writes `lpn` with `token` in zero time; false if its plane has no free page.
    #[inline(always)]
    pub(in crate::sim) fn materialize_page(
        &mut self,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
    ) -> bool {
        match self.ftl.host_write(lpn, plane, token) {
            Ok(ppn) => {
                self.ftl.program_done(ppn);
                if self.cmt.is_some() {
                    // RAID materializes its stripes' parity too: not in the CMT.
                    self.cmt_remapped(lpn, false);
                }
                self.gc_check_after(plane, GcCause::Other);
                if self.nand.is_some() {
                    self.nand_phantom(ppn);
                }
                true
            }
            Err(_) => false,
        }
    }
}
