//! Hand-built fixtures for scheduler unit tests: a tiny geometry, transactions made by
//! hand, the chip queues, and the calls the back end makes, without a trace or a
//! simulator.

use super::{IoScheduler, NoPlans, PlanOracle, Queues, SchedCtx};
use crate::plans::ReadPlans;
use crate::sim::txn::{ReqId, Txn, TxnId, TxnSlab, NONE};
use ssdlab_nand::{ChipId, DieId, FlashOp, Geometry, Lpn, NandTiming, TxnReason};

/// `channels × chips_per_channel` chips of `dies` dies of `planes` planes, each plane 4
/// blocks of 8 pages of 4 KiB.
pub fn geometry(channels: u32, chips_per_channel: u32, dies: u32, planes: u32) -> Geometry {
    Geometry {
        channels,
        chips_per_channel,
        dies_per_chip: dies,
        planes_per_die: planes,
        blocks_per_plane: 4,
        pages_per_block: 8,
        page_size_bytes: 4096,
    }
}

/// `t_read` 50 µs, `t_prog` 500 µs, `t_erase` 2 ms, a 4 KiB page over the bus in
/// 10.24 µs.
pub fn timing() -> NandTiming {
    NandTiming {
        t_read_ns: 50_000,
        t_prog_ns: 500_000,
        t_erase_ns: 2_000_000,
        bus_ps_per_byte: 2_500,
        t_cmd_ns: 0,
        ..NandTiming::default()
    }
}

/// A reconstruction oracle that offers one read's parity group.
pub struct FixedPlans {
    /// The host read that may be reconstructed.
    pub target: TxnId,
    /// The chips its reconstruction reads.
    pub chips: Vec<ChipId>,
}

impl PlanOracle for FixedPlans {
    fn alternatives(&self, t: TxnId, plans: &mut ReadPlans) {
        plans.clear();
        if t == self.target {
            plans.push_reconstruct(self.chips.iter().copied(), false);
        }
    }
}

/// The state a policy works on.
pub struct Bench {
    pub geom: Geometry,
    pub txns: TxnSlab,
    pub queues: Queues,
}

impl Bench {
    /// Empty chip queues of `depth` for `geom`.
    pub fn new(geom: Geometry, depth: u32) -> Self {
        Bench {
            geom,
            txns: TxnSlab::default(),
            queues: Queues::new(&geom, depth),
        }
    }

    /// A transaction on page `page` of block 0 of plane `plane` of `die`, for request
    /// `req` (or [`NONE`]), handed to the scheduler at `enqueued_ns`.
    #[allow(clippy::too_many_arguments)]
    pub fn txn_at(
        &mut self,
        op: FlashOp,
        reason: TxnReason,
        die: DieId,
        plane: u32,
        page: u32,
        req: ReqId,
        enqueued_ns: u64,
    ) -> TxnId {
        let g = &self.geom;
        let block = g.block_of_plane(g.plane_of_die(die, plane), 0);
        let ppn = g.page_of_block(block, page);
        let mut t = Txn::new(op, reason, ppn, die, Lpn(ppn.0), req);
        t.enqueued_ns = enqueued_ns;
        self.txns.insert(t)
    }

    /// A host read of request `req` on the first die of `chip`, arrived at `at_ns`.
    pub fn host_read(&mut self, chip: u32, req: ReqId, at_ns: u64) -> TxnId {
        let die = self.die(chip, 0);
        self.txn_at(FlashOp::Read, TxnReason::HostRead, die, 0, 0, req, at_ns)
    }

    /// A host program of request `req` on the first die of `chip`.
    pub fn host_write(&mut self, chip: u32, req: ReqId) -> TxnId {
        let die = self.die(chip, 0);
        self.txn_at(FlashOp::Program, TxnReason::HostWrite, die, 0, 0, req, 0)
    }

    /// Background work (`GcRead` or `GcWrite`) on the first die of `chip`.
    pub fn gc(&mut self, op: FlashOp, chip: u32) -> TxnId {
        let die = self.die(chip, 0);
        let reason = match op {
            FlashOp::Read => TxnReason::GcRead,
            FlashOp::Program => TxnReason::GcWrite,
            FlashOp::Erase => TxnReason::GcErase,
        };
        self.txn_at(op, reason, die, 0, 0, NONE, 0)
    }

    /// Die `n` of chip `chip`.
    pub fn die(&self, chip: u32, n: u32) -> DieId {
        self.geom.die_of_chip(ChipId(chip), n)
    }

    /// A context without alternative read plans.
    pub fn ctx(&mut self) -> SchedCtx<'_> {
        self.ctx_with(&NoPlans)
    }

    /// A context whose read plans come from `plans`.
    pub fn ctx_with<'a>(&'a mut self, plans: &'a dyn PlanOracle) -> SchedCtx<'a> {
        SchedCtx {
            txns: &self.txns,
            queues: &mut self.queues,
            geom: &self.geom,
            plans,
        }
    }

    /// The contents of `chip`'s queue, head first.
    pub fn queue(&self, chip: u32) -> Vec<TxnId> {
        self.queues.chip[chip as usize].iter().copied().collect()
    }

    /// What the back end does when `die` is idle: the policy picks, the group starts,
    /// the die turns busy and the policy hears of the queue room. Returns the group.
    pub fn start(&mut self, s: &mut dyn IoScheduler, die: DieId) -> Vec<TxnId> {
        self.start_with(s, die, &NoPlans)
    }

    /// [`Bench::start`] with read plans from `plans`.
    pub fn start_with(
        &mut self,
        s: &mut dyn IoScheduler,
        die: DieId,
        plans: &dyn PlanOracle,
    ) -> Vec<TxnId> {
        assert!(!self.queues.die_busy[die.idx()], "die {die} is busy");
        let mut group = Vec::new();
        s.pick(die, &mut self.ctx_with(plans), &mut group);
        if group.is_empty() {
            return group;
        }
        for &t in &group {
            self.queues.txn_started(&self.txns[t]);
        }
        self.queues.die_busy[die.idx()] = true;
        let chip = self.geom.chip_of_die(die);
        s.on_chip_room(chip, &mut self.ctx_with(plans));
        group
    }

    /// What the back end does when `die` finishes `group`: each transaction completes
    /// (the policy hears of it while the die is still held), then the die is released.
    pub fn finish(&mut self, s: &mut dyn IoScheduler, die: DieId, group: &[TxnId]) {
        self.finish_with(s, die, group, &NoPlans);
    }

    /// [`Bench::finish`] with read plans from `plans`.
    pub fn finish_with(
        &mut self,
        s: &mut dyn IoScheduler,
        die: DieId,
        group: &[TxnId],
        plans: &dyn PlanOracle,
    ) {
        assert!(self.queues.die_busy[die.idx()], "die {die} is idle");
        let chip = self.geom.chip_of_die(die);
        for _ in group {
            s.on_txn_done(chip, &mut self.ctx_with(plans));
        }
        self.queues.die_busy[die.idx()] = false;
        s.on_die_free(die, &mut self.ctx_with(plans));
    }

    /// Plays the back end in steps until nothing is left: each step starts every idle
    /// die that has work (one set of operations running at once), then finishes them
    /// all. Returns the transactions of each step.
    pub fn run_in_steps(&mut self, s: &mut dyn IoScheduler) -> Vec<Vec<TxnId>> {
        let mut steps = Vec::new();
        loop {
            let mut running = Vec::new();
            for d in 0..self.geom.dies() {
                let die = DieId(d);
                if !self.queues.die_busy[die.idx()] {
                    let g = self.start(s, die);
                    if !g.is_empty() {
                        running.push((die, g));
                    }
                }
            }
            if running.is_empty() {
                return steps;
            }
            let mut step = Vec::new();
            for (die, g) in running {
                step.extend_from_slice(&g);
                self.finish(s, die, &g);
            }
            steps.push(step);
        }
    }

    /// Recounts the queues' counters.
    pub fn check(&self) {
        self.queues.check_invariants(&self.txns);
    }
}
