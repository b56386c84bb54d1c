//! Balanced Redirected Read: the BRR paper's Algorithm 2 (its §III-E, figure 9).
//!
//! BRR is PIQ batching ([`super::Piq`]) plus one decision taken each time a host read
//! sub-request leaves the batch lists for its chip queue: read the page directly, or
//! rebuild it by XOR of the other members of its parity group (the `reconstruct` read
//! plan, which the RAID layer enumerates through [`super::PlanOracle`]). With the
//! queue monitor's expected waiting time of chip `c` (§III-D)
//!
//! ```text
//!   WT_c = L_r · C_r(c) + L_w · C_w(c)      C_r, C_w: reads, programs in c's chip queue
//! ```
//!
//! the read is redirected only when every member chip `j` satisfies both lines 6–14 of
//! Algorithm 2:
//!
//! ```text
//!   WT_j + L_r ≤ WT_target                   (j serves its extra read no later)
//!   WT_j + L_r ≤ AT_j − arrival(request)     (and before j's next request arrives)
//! ```
//!
//! Readings of the paper this module makes (docs/reproductions/brr.md):
//! * `L_r`, `L_w` are the latencies of reading and writing one chunk as this simulator
//!   charges them to a chip: Table I's array latency (`t_read_ns`, `t_prog_ns`) plus the
//!   page's transfer (the die is held until its register drains or fills).
//! * `C_r`, `C_w` count the chip's queued transactions *and* the one its die is
//!   executing, charged at its full latency (an erase at `t_erase_ns`): §III-D accepts
//!   "an error … of writing a chunk" for a request that completes while still counted.
//!   Without it a chip in the middle of a 200 µs program looks idle, and redirecting
//!   onto it makes reads slower, not faster.
//! * `AT_j` ("the next earliest arrival time of each chip relative to current
//!   sub_request", §III-D) follows `scheduler.brr.next_arrival`. `"mean-gap"` (the
//!   default): the next arrival at chip `j` expected from its past arrivals (one mean
//!   gap between arrivals from now, as DGC's `AT`). The member reads join the end of their
//!   chips' queues, so line 7's "no interference with following requests" can only
//!   concern requests still to come. `"held"`: the admission time of the earliest host
//!   request still held in the batch lists, arrived strictly after this one, with a
//!   sub-request on chip `j` (∞ if none); requests that arrived at the same instant are
//!   one pending queue and do not hold each other back.
//! * The decision is taken when the read enters its chip queue: at once, when the read
//!   arrives and the queue has room (the paper's "when a read request comes"), else when
//!   room opens. The reconstruction's member reads come back through
//!   `submit_background` and go straight to their chip queues. Counters
//!   `brr-rejected-wait` and `brr-rejected-arrival` count the reads that had a
//!   reconstruction on offer but failed the first or the second test.

use super::config::{BrrConfig, NextArrival};
use super::SchedCtx;
use crate::arrivals::ArrivalGaps;
use crate::plans::{PlanKind, ReadPlans};
use crate::sim::txn::TxnId;
use ssdlab_nand::{ChipId, FlashOp, NandTiming};
use ssdlab_stats::Counter;
use std::collections::VecDeque;

/// A transaction the batch lists hold for one chip, in dispatch order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeldEntry {
    /// Sequence number of its batch (dispatch priority; background: the tail).
    pub seq: u64,
    /// The transaction.
    pub txn: TxnId,
    /// Which batch list it belongs to.
    pub list: List,
}

/// Which batch list a held transaction belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum List {
    /// A host read request's batch.
    Read,
    /// A host write request's batch.
    Write,
    /// Background work (GC; a parity update no request waits for): no batch, keeps its
    /// place in submission order.
    Background,
    /// Work a host request waits for (its parity update's pre-reads and program, the
    /// reads of its reconstruction): ordered with the request's batch, not counted in it.
    Attached,
}

/// Algorithm 2's parameters and scratch space.
pub(crate) struct Brr {
    /// `L_r`: the read latency of one chunk.
    l_read_ns: u64,
    /// `L_w`: the write latency of one chunk.
    l_write_ns: u64,
    /// Latency charged for a running erase.
    l_erase_ns: u64,
    /// The alternatives the oracle offers for the read being decided.
    alternatives: ReadPlans,
    chips: Vec<ChipId>,
    /// `AT_j` from arrival history (`next_arrival = "mean-gap"`), else from the batch
    /// lists.
    next_arrival: NextArrival,
    arrivals: ArrivalGaps,
    /// Reads with a reconstruction on offer that failed line 7's first (wait) or
    /// second (arrival) test.
    rejected_wait: u64,
    rejected_arrival: u64,
}

/// Array operations executing on each chip's dies, by kind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Running {
    pub reads: u32,
    pub programs: u32,
    pub erases: u32,
}

impl Brr {
    /// The decision rule with the chunk latencies of `timing` for pages of
    /// `page_size_bytes`, on `chips` chips.
    pub fn new(cfg: &BrrConfig, timing: &NandTiming, page_size_bytes: u32, chips: usize) -> Self {
        let xfer_ns = timing.page_transfer_ns(page_size_bytes);
        Brr {
            l_read_ns: timing.t_read_ns + xfer_ns,
            l_write_ns: timing.t_prog_ns + xfer_ns,
            l_erase_ns: timing.t_erase_ns,
            alternatives: ReadPlans::new(),
            chips: Vec::with_capacity(16),
            next_arrival: cfg.next_arrival,
            arrivals: ArrivalGaps::new(chips),
            rejected_wait: 0,
            rejected_arrival: 0,
        }
    }

    /// Work of a request (host or RAID) arrives at `chip` at `now_ns`.
    #[inline]
    pub fn arrival(&mut self, chip: ChipId, now_ns: u64) {
        self.arrivals.arrival(chip, now_ns);
    }

    /// BRR's counters for the report.
    pub fn counters(&self) -> [(Counter, u64); 2] {
        [
            (Counter::BrrRejectedWait, self.rejected_wait),
            (Counter::BrrRejectedArrival, self.rejected_arrival),
        ]
    }

    /// Algorithm 2 for host read `t`, which is about to enter its chip queue. Returns
    /// true (and asks the controller to reconstruct `t`) when every member chip of its
    /// parity group passes both tests; `held` are the batch lists' transactions by chip,
    /// `running` the operations executing on each chip.
    pub fn try_redirect(
        &mut self,
        t: TxnId,
        ctx: &mut SchedCtx,
        held: &[VecDeque<HeldEntry>],
        running: &[Running],
    ) -> bool {
        debug_assert_eq!(ctx.txns[t].op, FlashOp::Read);
        ctx.plans.alternatives(t, &mut self.alternatives);
        let Some(plan) = self.alternatives.find(PlanKind::Reconstruct) else {
            return false;
        };
        self.chips.clear();
        self.chips.extend_from_slice(self.alternatives.chips(plan));
        if self.chips.is_empty() {
            return false;
        }
        let lr = self.l_read_ns;
        let wt_target = self.wait_ns(ctx.chip_of(t), ctx, running);
        let arrival_ns = ctx.txns[t].enqueued_ns;
        let req = ctx.txns[t].req;
        for &j in &self.chips {
            let wt_j = self.wait_ns(j, ctx, running);
            if wt_j + lr > wt_target {
                self.rejected_wait += 1;
                return false;
            }
            // AT_j − Req.time: the room before chip j's next request.
            let room = match self.next_arrival {
                NextArrival::MeanGap => self.arrivals.mean_gap(j),
                NextArrival::Held => {
                    next_arrival_ns(&held[j.idx()], ctx, req, arrival_ns).map(|at| at - arrival_ns)
                }
            };
            if room.is_some_and(|room| wt_j + lr > room) {
                self.rejected_arrival += 1;
                return false;
            }
        }
        ctx.redirect(t, PlanKind::Reconstruct);
        true
    }

    /// `WT` of `chip`: its queue by the monitor's formula plus what its dies execute.
    fn wait_ns(&self, chip: ChipId, ctx: &SchedCtx, running: &[Running]) -> u64 {
        let r = running[chip.idx()];
        ctx.expected_wait_ns(chip, self.l_read_ns, self.l_write_ns)
            + self.l_read_ns * u64::from(r.reads)
            + self.l_write_ns * u64::from(r.programs)
            + self.l_erase_ns * u64::from(r.erases)
    }
}

/// `AT_j`: the earliest arrival, strictly after `after_ns`, of a host request other than
/// `req` with a sub-request held for the chip whose entries are `held`.
fn next_arrival_ns(
    held: &VecDeque<HeldEntry>,
    ctx: &SchedCtx,
    req: u32,
    after_ns: u64,
) -> Option<u64> {
    held.iter()
        .filter(|e| matches!(e.list, List::Read | List::Write))
        .map(|e| &ctx.txns[e.txn])
        .filter(|x| x.req != req && x.enqueued_ns > after_ns)
        .map(|x| x.enqueued_ns)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testutil::{geometry, timing, Bench, FixedPlans};
    use crate::sched::{IoScheduler, Piq, SchedulerConfig};
    use crate::sim::txn::NONE;

    /// Four chips on four channels (one die, one plane each) under BRR.
    fn setup(depth: u32) -> (Bench, Piq) {
        setup_with(depth, NextArrival::MeanGap)
    }

    fn setup_with(depth: u32, next_arrival: NextArrival) -> (Bench, Piq) {
        let b = Bench::new(geometry(4, 1, 1, 1), depth);
        let cfg = SchedulerConfig {
            chip_queue_depth: depth,
            brr: BrrConfig { next_arrival },
            ..SchedulerConfig::default()
        };
        let brr = Piq::with_brr(&cfg, &b.geom, &timing());
        (b, brr)
    }

    /// `L_r` of [`timing`]: array read plus the page's transfer.
    fn l_read_ns() -> u64 {
        let t = timing();
        t.t_read_ns + t.page_transfer_ns(4096)
    }

    /// Queues `n` GC transactions of `op` on `chip`.
    fn load(b: &mut Bench, s: &mut Piq, chip: u32, op: FlashOp, n: usize) -> Vec<TxnId> {
        let t: Vec<TxnId> = (0..n).map(|_| b.gc(op, chip)).collect();
        for &x in &t {
            s.submit_background(x, &mut b.ctx());
        }
        t
    }

    /// A host read on chip 0, which holds two programs, with chip `busy`'s queue
    /// holding `programs` programs; returns the read and whether BRR redirected it.
    fn read_with_busy_member(busy: u32, programs: usize) -> (Bench, TxnId, bool) {
        let (mut b, mut s) = setup(8);
        let p = load(&mut b, &mut s, 0, FlashOp::Program, 2);
        load(&mut b, &mut s, busy, FlashOp::Program, programs);
        let r = b.host_read(0, 1, 0);
        let plans = FixedPlans {
            target: r,
            chips: vec![ChipId(1), ChipId(2), ChipId(3)],
        };
        s.submit_request(1, &[r], &mut b.ctx_with(&plans));
        let redirected = b.queues.redirected == [(r, PlanKind::Reconstruct)];
        let expect_queue = if redirected { p } else { vec![p[0], p[1], r] };
        assert_eq!(b.queue(0), expect_queue);
        assert_eq!(s.held(), 0);
        (b, r, redirected)
    }

    #[test]
    fn redirects_a_read_on_a_busy_chip_when_every_member_passes() {
        // WT_2 + L_r = L_w + L_r <= WT_0 = 2 L_w: chip 2 serves the extra read sooner.
        let (b, r, redirected) = read_with_busy_member(2, 1);
        assert!(redirected);
        assert!(!b.queue(0).contains(&r));
        b.check();
    }

    #[test]
    fn reads_directly_when_a_member_chip_is_as_busy_as_the_target() {
        // WT_2 + L_r = 2 L_w + L_r > WT_0 = 2 L_w.
        let (b, _, redirected) = read_with_busy_member(2, 2);
        assert!(!redirected);
        assert!(b.queues.redirected.is_empty());
        b.check();
    }

    #[test]
    fn reads_directly_without_a_reconstruction_plan() {
        let (mut b, mut s) = setup(8);
        load(&mut b, &mut s, 0, FlashOp::Program, 2);
        let r = b.host_read(0, 1, 0);
        let plans = FixedPlans {
            target: NONE,
            chips: vec![ChipId(1), ChipId(2), ChipId(3)],
        };
        s.submit_request(1, &[r], &mut b.ctx_with(&plans));
        assert!(b.queues.redirected.is_empty());
        assert_eq!(b.queue(0).last(), Some(&r));
    }

    /// Chip 0 runs one program and queues another; the read on chip 0 waits in the batch
    /// lists until the first program completes. Member chip 1 queues two reads and holds
    /// a host read that arrives `gap_ns` after ours. Returns whether BRR redirected.
    fn redirected_with_next_arrival_after(gap_ns: u64) -> bool {
        let (mut b, mut s) = setup_with(2, NextArrival::Held);
        load(&mut b, &mut s, 0, FlashOp::Program, 2);
        load(&mut b, &mut s, 1, FlashOp::Read, 2);
        let r = b.host_read(0, 1, 0);
        let plans = FixedPlans {
            target: r,
            chips: vec![ChipId(1), ChipId(2), ChipId(3)],
        };
        s.submit_request(1, &[r], &mut b.ctx_with(&plans));
        let q = b.host_read(1, 2, gap_ns);
        s.submit_request(2, &[q], &mut b.ctx_with(&plans));
        assert!(b.queues.redirected.is_empty(), "no room for the read yet");
        let die = b.die(0, 0);
        let running = b.start_with(&mut s, die, &plans);
        // WT_0 = 2 L_w (one queued, one running); WT_1 + L_r = 3 L_r passes that test,
        // so the next arrival on chip 1 decides.
        b.finish_with(&mut s, die, &running, &plans);
        let redirected = b.queues.redirected == [(r, PlanKind::Reconstruct)];
        assert_eq!(b.queue(0).contains(&r), !redirected);
        b.check();
        redirected
    }

    #[test]
    fn redirects_only_if_members_serve_the_read_before_their_next_arrival() {
        let needed = 3 * l_read_ns();
        assert!(!redirected_with_next_arrival_after(needed - 1));
        assert!(redirected_with_next_arrival_after(needed));
    }

    /// A read on chip 0 behind two programs; member chip 1 has seen arrivals every
    /// `gap_ns` (the last at the read's arrival). Returns whether BRR redirected.
    fn redirected_with_member_arrivals_every(gap_ns: u64) -> bool {
        let (mut b, mut s) = setup(8);
        load(&mut b, &mut s, 0, FlashOp::Program, 2);
        let plans = FixedPlans {
            target: NONE,
            chips: vec![ChipId(1), ChipId(2), ChipId(3)],
        };
        let at = 10 * gap_ns;
        for (k, t) in [at - 2 * gap_ns, at - gap_ns, at].into_iter().enumerate() {
            let q = b.host_read(1, 10 + k as u32, t);
            s.submit_request(10 + k as u32, &[q], &mut b.ctx_with(&plans));
            let die = b.die(1, 0);
            let g = b.start_with(&mut s, die, &plans);
            b.finish_with(&mut s, die, &g, &plans);
        }
        let r = b.host_read(0, 1, at);
        let plans = FixedPlans {
            target: r,
            chips: vec![ChipId(1), ChipId(2), ChipId(3)],
        };
        s.submit_request(1, &[r], &mut b.ctx_with(&plans));
        let redirected = b.queues.redirected == [(r, PlanKind::Reconstruct)];
        let c = s.counters();
        let rejected = c
            .iter()
            .find(|(k, _)| *k == Counter::BrrRejectedArrival)
            .unwrap()
            .1;
        assert_eq!(rejected, u64::from(!redirected));
        redirected
    }

    #[test]
    fn a_member_expecting_its_next_request_too_soon_is_not_burdened() {
        // WT_1 = 0: chip 1 serves the extra read in L_r, which must fit before its next
        // expected request, one mean gap after its last.
        assert!(!redirected_with_member_arrivals_every(l_read_ns() - 1));
        assert!(redirected_with_member_arrivals_every(l_read_ns()));
    }
}
