//! PAQ, physically addressed queueing (Jung, Wilson, Kandemir, ISCA 2012, §4): the
//! queue sits below the FTL, so it sees where every page is and schedules host reads by
//! die. `paq0` packs only, `paq1` clumps only, `paq2` does both (§5.2).
//!
//! ```text
//!  host reads ──► pend[die] (held, admission order) ─┬─ paq0: one FIFO, blocking at its head
//!                                                    └─ paq1/2: clumps, one commit per package per pass
//!                      commit = primary (+ packed partners) ──► chip queue ──► pick(die)
//!  writes, GC ──► bypass: chip queue in submission order (overflow per chip), or
//!                 paq0 with write_path = "fifo": the read FIFO
//! ```
//!
//! * **Held reads.** A host read waits in its die's `pend` list until the die is open:
//!   idle, nothing queued for it, nothing committed for it, and, with
//!   `paq.chip_slots = k`, fewer than `k` dies of its package occupied. With
//!   `paq.read_first` (or once the read is older than `paq.starvation_limit` operations
//!   of its die) queued writes no longer close the die.
//! * **Clumping** (`paq1`, `paq2`, Algorithm 2): passes over the packages, round-robin
//!   from a cursor; in each package the oldest request with a read on an open die is the
//!   tag, and of the open dies it has reads on, the one with the most held reads goes
//!   first (node conflict first). Each pass commits at most one group per package;
//!   passes repeat until one commits nothing.
//! * **FIFO order** (`paq0`): held reads in admission order, committed while the head's
//!   die is open; the first that is not blocks the rest, as in VAQ.
//! * **Packing** (`paq0`, `paq2`, §4.4): the primary read takes, from all held reads of
//!   its die, oldest first, partners at the same page offset on planes not yet used.
//! * **Writes and GC** take the bypass (Algorithm 1): committed at once, in submission
//!   order, so a GC read never overtakes the program of the page it moves. Host reads
//!   are pinned to their page at admission and may overtake anything.
//!
//! A committed group is recorded as the die's `staged` group, and `pick` hands out
//! exactly that group; otherwise the die serves its queued writes, packed with
//! `paq.pack_writes` through [`SchedCtx::take_for_die`] (whose guard keeps each plane's
//! programs in order).

use super::config::{PaqConfig, PaqOrder, WritePath};
use super::overflow::ChipOverflow;
use super::{IoScheduler, SchedCtx, SchedulerConfig};
use crate::sim::txn::{ReqId, TxnId, UNBOUND};
use ssdlab_nand::{ChipId, DieId, FlashOp, Geometry, NandTiming, TxnReason};
use ssdlab_stats::Counter;
use std::collections::VecDeque;

/// A host read held for scheduling.
#[derive(Clone, Copy, Debug)]
struct Held {
    txn: TxnId,
    /// Admission order over all held reads (and FIFO writes).
    seq: u64,
    /// Operations its die had started when it arrived.
    mark: u64,
}

/// No live FIFO entry for this transaction.
const GONE: u64 = u64::MAX;

/// `paq0`, `paq1` and `paq2`.
pub struct Paq {
    name: &'static str,
    clump: bool,
    pack: bool,
    cfg: PaqConfig,
    /// `chip_slots` resolved (0 → dies per chip).
    slots: u32,
    dies_per_chip: u32,
    /// Held host reads per die, in admission order.
    pend: Vec<VecDeque<Held>>,
    /// Held reads per chip (packages with none are skipped).
    pend_chip: Vec<u32>,
    /// Bit sets of chips: with held reads; touched (a read held, a die freed, room
    /// made) since a pass last found nothing to commit there. Whether a package can
    /// take a commit depends on its own state only, so a pass visits the chips in both.
    held_chips: Vec<u64>,
    dirty: Vec<u64>,
    /// Scratch: the chips a pass visits.
    visit: Vec<u32>,
    /// Held reads per channel (for the conflict class of a commit).
    pend_chan: Vec<u32>,
    /// Commits by conflict class (node, cluster, domain, none), clumps, packed pages.
    commits: [u64; 4],
    clump_passes: u64,
    packed: u64,
    /// `paq0`: admission order of held reads (and, with `write_path = "fifo"`, of
    /// writes), `(seq, txn)`; an entry is live while `live[txn] == seq`.
    fifo: VecDeque<(u64, TxnId)>,
    live: Vec<u64>,
    /// Bypass work waiting for room in its chip queue.
    overflow: ChipOverflow,
    /// The group committed to each die and not yet started.
    staged: Vec<Vec<TxnId>>,
    /// Operations started by each die.
    starts: Vec<u64>,
    /// Held reads and FIFO entries (the overflow counts its own).
    held: usize,
    seq: u64,
    cursor: usize,
    /// Scratch: indices into a `pend` list.
    picks: Vec<usize>,
}

impl Paq {
    /// A policy for `geom`; `clump` and `pack` select the variant.
    pub fn new(geom: &Geometry, cfg: &PaqConfig, clump: bool, pack: bool) -> Self {
        let name = match (clump, pack) {
            (false, _) => "paq0",
            (true, false) => "paq1",
            (true, true) => "paq2",
        };
        let dies = geom.dies() as usize;
        let planes = geom.planes_per_die as usize;
        Paq {
            name,
            clump,
            pack,
            cfg: cfg.clone(),
            slots: if cfg.chip_slots == 0 {
                geom.dies_per_chip
            } else {
                cfg.chip_slots
            },
            dies_per_chip: geom.dies_per_chip,
            pend: (0..dies).map(|_| VecDeque::new()).collect(),
            pend_chip: vec![0; geom.chips() as usize],
            held_chips: vec![0; (geom.chips() as usize).div_ceil(64)],
            dirty: vec![0; (geom.chips() as usize).div_ceil(64)],
            visit: Vec::with_capacity(geom.chips() as usize),
            pend_chan: vec![0; geom.channels as usize],
            commits: [0; 4],
            clump_passes: 0,
            packed: 0,
            fifo: VecDeque::new(),
            live: Vec::new(),
            overflow: ChipOverflow::new(geom),
            staged: (0..dies).map(|_| Vec::with_capacity(planes)).collect(),
            starts: vec![0; dies],
            held: 0,
            seq: 0,
            cursor: 0,
            picks: Vec::with_capacity(planes),
        }
    }

    /// `paq0` = `<false, true>` (packing), `paq1` = `<true, false>` (clumping), `paq2` both.
    pub(crate) fn variant<const CLUMP: bool, const PACK: bool>(
        cfg: &SchedulerConfig,
        g: &Geometry,
        _: &NandTiming,
    ) -> Self {
        Paq::new(g, &cfg.paq, CLUMP, PACK)
    }

    fn fifo_writes(&self) -> bool {
        !self.clump && self.cfg.write_path == WritePath::Fifo
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Records `t` as live in the FIFO under `seq`.
    fn enter_fifo(&mut self, seq: u64, t: TxnId) {
        let i = t as usize;
        if i >= self.live.len() {
            self.live.resize(i + 1, GONE);
        }
        self.live[i] = seq;
        self.fifo.push_back((seq, t));
    }

    /// Holds host read `t`.
    fn hold(&mut self, t: TxnId, ctx: &SchedCtx) {
        let die = ctx.txns[t].die;
        let seq = self.next_seq();
        let mark = self.starts[die.idx()];
        self.pend[die.idx()].push_back(Held { txn: t, seq, mark });
        let chip = ctx.geom.chip_of_die(die);
        self.pend_chip[chip.idx()] += 1;
        self.held_chips[chip.idx() / 64] |= 1 << (chip.idx() % 64);
        self.touch(chip);
        self.pend_chan[ctx.geom.channel_of_chip(chip).idx()] += 1;
        self.held += 1;
        if !self.clump {
            self.enter_fifo(seq, t);
        }
    }

    /// Something changed on `chip` that may let it take a commit.
    fn touch(&mut self, chip: ChipId) {
        self.dirty[chip.idx() / 64] |= 1 << (chip.idx() % 64);
    }

    /// Writes and background work: the bypass (or `paq0`'s FIFO).
    fn write_path(&mut self, t: TxnId, ctx: &mut SchedCtx) {
        if self.fifo_writes() {
            let seq = self.next_seq();
            self.enter_fifo(seq, t);
            self.held += 1;
            return;
        }
        self.overflow.enqueue(t, ctx);
    }

    /// The oldest held read of `die` has waited for `starvation_limit` operations.
    fn starving(&self, die: DieId) -> bool {
        let limit = u64::from(self.cfg.starvation_limit);
        limit > 0
            && self.pend[die.idx()]
                .front()
                .is_some_and(|h| self.starts[die.idx()] - h.mark >= limit)
    }

    /// Whether `die` may take a committed group now; `read` says the group is held
    /// reads (queued writes close the die for them unless reads go first).
    fn open(&self, die: DieId, read: bool, ctx: &SchedCtx) -> bool {
        let d = die.idx();
        if ctx.queues.die_busy[d] || !self.staged[d].is_empty() {
            return false;
        }
        let reads_first = read && (self.cfg.read_first || self.starving(die));
        if !reads_first && ctx.queued_for_die(die) > 0 {
            return false;
        }
        if self.slots >= self.dies_per_chip {
            return true;
        }
        let chip = ctx.geom.chip_of_die(die);
        let occupied = (0..self.dies_per_chip)
            .map(|n| ctx.geom.die_of_chip(chip, n))
            .filter(|&o| {
                ctx.queues.die_busy[o.idx()]
                    || ctx.queued_for_die(o) > 0
                    || !self.staged[o.idx()].is_empty()
            })
            .count();
        occupied < self.slots as usize
    }

    /// Commits the held read at `pos` of `die`'s list, with its packing partners, as
    /// the die's staged group. False if the chip queue has no room.
    fn commit(&mut self, die: DieId, pos: usize, ctx: &mut SchedCtx) -> bool {
        let chip = ctx.geom.chip_of_die(die);
        let room = ctx.queues.depth - ctx.queues.chip[chip.idx()].len().min(ctx.queues.depth);
        if room == 0 {
            return false;
        }
        let d = die.idx();
        self.picks.clear();
        self.picks.push(pos);
        let h = ctx.txns[self.pend[d][pos].txn];
        if self.pack && ctx.geom.planes_per_die > 1 {
            let max = room.min(ctx.geom.planes_per_die as usize);
            let offset = ctx.geom.page_in_block(h.ppn);
            let mut planes: u64 = 1 << (ctx.geom.plane_of_page(h.ppn).0 % 64);
            for (i, held) in self.pend[d].iter().enumerate() {
                if self.picks.len() >= max {
                    break;
                }
                let t = &ctx.txns[held.txn];
                let bit = 1u64 << (ctx.geom.plane_of_page(t.ppn).0 % 64);
                if i != pos
                    && t.op == h.op
                    && t.ppn != UNBOUND
                    && ctx.geom.page_in_block(t.ppn) == offset
                    && planes & bit == 0
                {
                    planes |= bit;
                    self.picks.push(i);
                }
            }
        }
        // The conflict class of the primary among the held reads (PAQ paper §4.2, Fig. 5).
        let ch = ctx.geom.channel_of_chip(chip).idx();
        let on_die = self.pend[d].len() as u32;
        let class = if on_die > 1 {
            0
        } else if self.pend_chip[chip.idx()] > on_die {
            1
        } else if self.pend_chan[ch] > self.pend_chip[chip.idx()] {
            2
        } else {
            3
        };
        self.commits[class] += 1;
        self.packed += self.picks.len() as u64 - 1;
        // The primary first, then partners oldest first, as the group runs.
        let staged = &mut self.staged[d];
        staged.clear();
        staged.extend(self.picks.iter().map(|&i| self.pend[d][i].txn));
        self.picks.sort_unstable_by(|a, b| b.cmp(a));
        for &i in &self.picks {
            let gone = self.pend[d].remove(i).expect("index is in range");
            if let Some(l) = self.live.get_mut(gone.txn as usize) {
                *l = GONE;
            }
        }
        let n = self.staged[d].len();
        self.pend_chip[chip.idx()] -= n as u32;
        if self.pend_chip[chip.idx()] == 0 {
            self.held_chips[chip.idx() / 64] &= !(1 << (chip.idx() % 64));
        }
        self.pend_chan[ch] -= n as u32;
        self.held -= n;
        for &t in &self.staged[d] {
            ctx.push(t);
        }
        true
    }

    fn dispatch(&mut self, ctx: &mut SchedCtx) {
        if self.clump {
            self.clumps(ctx);
        } else {
            self.in_order(ctx);
        }
    }

    /// `paq0`: the FIFO, blocking at its head.
    fn in_order(&mut self, ctx: &mut SchedCtx) {
        while let Some(&(seq, t)) = self.fifo.front() {
            if self.live.get(t as usize) != Some(&seq) {
                self.fifo.pop_front();
                continue;
            }
            let txn = ctx.txns[t];
            let read = txn.reason == TxnReason::HostRead && txn.op == FlashOp::Read;
            if !self.open(txn.die, read, ctx) {
                return;
            }
            if read {
                // The oldest held read overall is the oldest of its die.
                debug_assert_eq!(self.pend[txn.die.idx()].front().map(|h| h.txn), Some(t));
                if !self.commit(txn.die, 0, ctx) {
                    return;
                }
            } else {
                if !ctx.queues.has_room(ctx.chip_of(t)) {
                    return;
                }
                self.live[t as usize] = GONE;
                self.held -= 1;
                ctx.push(t);
            }
            self.fifo.pop_front();
        }
    }

    /// `paq1`, `paq2`: clumps until a pass commits nothing. A pass visits the packages
    /// with held reads round-robin from the cursor (the others have nothing to commit).
    fn clumps(&mut self, ctx: &mut SchedCtx) {
        let chips = self.pend_chip.len();
        loop {
            let mut visit = std::mem::take(&mut self.visit);
            visit.clear();
            for (w, &word) in self.held_chips.iter().enumerate() {
                let mut bits = word & self.dirty[w];
                while bits != 0 {
                    visit.push((w * 64) as u32 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            let split = visit.partition_point(|&c| (c as usize) < self.cursor);
            visit.rotate_left(split);
            let mut committed = false;
            for &c in &visit {
                if self.pend_chip[c as usize] > 0 && self.clump_chip(ChipId(c), ctx) {
                    committed = true;
                } else {
                    self.dirty[c as usize / 64] &= !(1 << (c % 64));
                }
            }
            self.visit = visit;
            self.cursor = (self.cursor + 1) % chips;
            if !committed {
                return;
            }
            self.clump_passes += 1;
        }
    }

    /// One package's share of a clump: at most one group.
    fn clump_chip(&mut self, chip: ChipId, ctx: &mut SchedCtx) -> bool {
        let dies = || (0..self.dies_per_chip).map(|n| ctx.geom.die_of_chip(chip, n));
        let ready = |d: DieId| !self.pend[d.idx()].is_empty() && self.open(d, true, ctx);
        // A starving die is served before the package's other dies.
        let starving = dies().any(|d| ready(d) && self.starving(d));
        let candidate = |d: DieId| ready(d) && (!starving || self.starving(d));
        let front = |d: DieId| self.pend[d.idx()][0];
        // The tag: the oldest request with a read on a candidate die.
        let Some(oldest) = dies()
            .filter(|&d| candidate(d))
            .min_by_key(|&d| front(d).seq)
        else {
            return false;
        };
        let tag = ctx.txns[front(oldest).txn].req;
        let die = match self.cfg.order {
            PaqOrder::OldestFirst => oldest,
            PaqOrder::ConflictFirst => dies()
                .filter(|&d| candidate(d) && ctx.txns[front(d).txn].req == tag)
                .fold(oldest, |best, d| {
                    if self.pend[d.idx()].len() > self.pend[best.idx()].len() {
                        d
                    } else {
                        best
                    }
                }),
        };
        self.commit(die, 0, ctx)
    }
}

impl IoScheduler for Paq {
    fn name(&self) -> &'static str {
        self.name
    }

    fn submit_request(&mut self, _req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        for &t in txns {
            let txn = &ctx.txns[t];
            if txn.reason == TxnReason::HostRead && txn.op == FlashOp::Read && txn.ppn != UNBOUND {
                self.hold(t, ctx);
            } else {
                self.write_path(t, ctx);
            }
        }
        self.dispatch(ctx);
    }

    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        self.write_path(txn, ctx);
        if self.fifo_writes() {
            self.dispatch(ctx);
        }
    }

    fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        self.overflow.drain(chip, ctx);
        self.touch(chip);
        self.dispatch(ctx);
    }

    fn on_txn_done(&mut self, _chip: ChipId, _ctx: &mut SchedCtx) {}

    fn on_die_free(&mut self, die: DieId, ctx: &mut SchedCtx) {
        self.touch(ctx.geom.chip_of_die(die));
        self.dispatch(ctx);
    }

    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        group.clear();
        let d = die.idx();
        if self.staged[d].is_empty() && ctx.queued_for_die(die) == 0 {
            // The die fell idle without finishing anything (a write parked for space).
            self.touch(ctx.geom.chip_of_die(die));
            self.dispatch(ctx);
        }
        if self.staged[d].is_empty() {
            ctx.take_for_die(die, self.cfg.pack_writes, group);
        } else {
            let chip = ctx.geom.chip_of_die(die);
            let first = self.staged[d][0];
            let pos = ctx.queues.chip[chip.idx()]
                .iter()
                .position(|&t| t == first)
                .expect("a staged group is in its chip queue");
            // The members were pushed one after another.
            for &t in &self.staged[d] {
                let taken = ctx.take_at(chip, pos);
                debug_assert_eq!(taken, Some(t), "staged group out of place");
                group.push(t);
            }
            self.staged[d].clear();
        }
        if !group.is_empty() {
            self.starts[d] += 1;
        }
    }

    fn held(&self) -> usize {
        self.held + self.overflow.held()
    }

    fn counters(&self) -> Vec<(Counter, u64)> {
        let mut c = vec![
            (Counter::PaqCommitsNode, self.commits[0]),
            (Counter::PaqCommitsCluster, self.commits[1]),
            (Counter::PaqCommitsDomain, self.commits[2]),
            (Counter::PaqCommitsNone, self.commits[3]),
        ];
        if self.clump {
            c.push((Counter::PaqClumps, self.clump_passes));
        }
        if self.pack {
            c.push((Counter::PaqPackedPages, self.packed));
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testutil::{geometry, Bench};

    fn read(b: &mut Bench, die: DieId, plane: u32, page: u32, req: ReqId) -> TxnId {
        b.txn_at(FlashOp::Read, TxnReason::HostRead, die, plane, page, req, 0)
    }

    fn program(b: &mut Bench, die: DieId, plane: u32, page: u32) -> TxnId {
        b.txn_at(
            FlashOp::Program,
            TxnReason::HostWrite,
            die,
            plane,
            page,
            9,
            0,
        )
    }

    fn paq(b: &Bench, clump: bool, pack: bool, cfg: PaqConfig) -> Paq {
        Paq::new(&b.geom, &cfg, clump, pack)
    }

    /// Marks every die busy, so that submitted reads are held.
    fn all_busy(b: &mut Bench) {
        b.queues.die_busy.fill(true);
    }

    /// Frees every die, one after the other from the highest, as the back end's
    /// `release_die` does (without its `try_start`): the policy hears of each die as it
    /// falls free.
    fn all_free(b: &mut Bench, s: &mut dyn IoScheduler) {
        for d in (0..b.geom.dies()).rev() {
            b.queues.die_busy[d as usize] = false;
            s.on_die_free(DieId(d), &mut b.ctx());
        }
    }

    /// The queue of figure 5 in miniature on two packages of two dies, one channel each:
    /// R1 reads die 0 of chip 0 twice and die 1 once; R2 reads die 0 of chip 0; R3 is
    /// alone on chip 1.
    fn figure5(b: &mut Bench, s: &mut Paq) -> [TxnId; 5] {
        let (c0d0, c0d1, c1d0) = (b.die(0, 0), b.die(0, 1), b.die(1, 0));
        let r1 = [
            read(b, c0d1, 0, 0, 1),
            read(b, c0d0, 0, 1, 1),
            read(b, c0d0, 0, 2, 1),
        ];
        let r2 = read(b, c0d0, 0, 3, 2);
        let r3 = read(b, c1d0, 0, 0, 3);
        s.submit_request(1, &r1, &mut b.ctx());
        s.submit_request(2, &[r2], &mut b.ctx());
        s.submit_request(3, &[r3], &mut b.ctx());
        [r1[0], r1[1], r1[2], r2, r3]
    }

    /// The step (see [`Bench::run_in_steps`]) in which each request's last read is
    /// served, for `s` given the queue of figures 5 and 6 in miniature on two packages of
    /// two dies, one channel each: R1 reads die 0 of chip 0 twice; R2, R3 and R4 read
    /// die 0 of chip 1, die 1 of chip 1 and die 1 of chip 0 once each.
    fn figure6_steps(s: &mut dyn IoScheduler) -> [usize; 4] {
        let mut b = Bench::new(geometry(2, 1, 2, 1), 8);
        let (c0d0, c0d1, c1d0, c1d1) = (b.die(0, 0), b.die(0, 1), b.die(1, 0), b.die(1, 1));
        all_busy(&mut b);
        let r1 = [read(&mut b, c0d0, 0, 0, 1), read(&mut b, c0d0, 0, 1, 1)];
        let others = [(c1d0, 2), (c1d1, 3), (c0d1, 4)].map(|(d, r)| (read(&mut b, d, 0, 0, r), r));
        s.submit_request(1, &r1, &mut b.ctx());
        for (t, r) in others {
            s.submit_request(r, &[t], &mut b.ctx());
        }
        all_free(&mut b, s);
        let steps = b.run_in_steps(s);
        assert_eq!(s.held(), 0);
        b.check();
        let step_of = |t: TxnId| steps.iter().position(|g| g.contains(&t)).expect("served");
        [
            step_of(r1[0]).max(step_of(r1[1])),
            step_of(others[0].0),
            step_of(others[1].0),
            step_of(others[2].0),
        ]
    }

    #[test]
    fn vaq_serves_the_figure_5_queue_in_order_and_paq1_by_clumps() {
        // VAQ: R1's first read goes alone, its second blocks everything behind it.
        let vaq = figure6_steps(&mut crate::sched::Vaq::new(
            crate::sched::BlockOn::Die,
            true,
        ));
        assert_eq!(vaq, [1, 1, 1, 1]);
        // PAQ1: the first clump serves one read per die, the conflict-free requests
        // with R1's first read; only R1's second read is left for the next step.
        let paq1 = figure6_steps(&mut Paq::new(
            &geometry(2, 1, 2, 1),
            &PaqConfig::default(),
            true,
            false,
        ));
        assert_eq!(paq1, [1, 0, 0, 0]);
    }

    #[test]
    fn paq1_commits_the_non_conflicting_clump_node_conflict_first() {
        let mut b = Bench::new(geometry(2, 1, 2, 1), 8);
        let cfg = PaqConfig {
            chip_slots: 1,
            ..PaqConfig::default()
        };
        let mut s = paq(&b, true, false, cfg);
        let [_r1d1, r1a, _r1b, _r2, r3] = figure5(&mut b, &mut s);
        // One commit per package: chip 0, both of its dies idle, gets R1's read on die
        // 0 (two of R1's reads wait there, node conflict) rather than its read on die
        // 1; R2 waits; R3 goes at once.
        assert_eq!(b.queue(0), vec![r1a]);
        assert_eq!(b.queue(1), vec![r3]);
        assert_eq!(s.held(), 3);
        b.check();
    }

    #[test]
    fn no_package_gets_two_commits_in_a_pass_with_one_slot() {
        for (slots, chip0) in [(1, 1), (0, 2)] {
            let cfg = PaqConfig {
                chip_slots: slots,
                ..PaqConfig::default()
            };
            let mut b2 = Bench::new(geometry(2, 1, 2, 1), 8);
            let mut s = paq(&b2, true, false, cfg);
            let t = figure5(&mut b2, &mut s);
            assert_eq!(b2.queue(0).len(), chip0, "chip_slots = {slots}");
            if slots == 0 {
                // Interleaving: the next pass serves die 1 with R1's read there. R1's
                // two commits on chip 0 took two passes, R3's one more.
                assert_eq!(b2.queue(0), vec![t[1], t[0]]);
                assert!(s.counters().contains(&(Counter::PaqClumps, 3)));
            }
            // Serve chip 0 to the end: never two dies of the package at once.
            let (d0, d1) = (b2.die(0, 0), b2.die(0, 1));
            let mut served = Vec::new();
            while s.held() > 0 || !b2.queue(0).is_empty() {
                let mut running = Vec::new();
                for d in [d0, d1] {
                    let g = b2.start(&mut s, d);
                    if !g.is_empty() {
                        running.push((d, g));
                    }
                }
                assert!(!running.is_empty(), "chip_slots = {slots}: stuck");
                if slots == 1 {
                    assert_eq!(running.len(), 1, "two dies of a one-slot package at once");
                }
                for (d, g) in running {
                    served.extend_from_slice(&g);
                    b2.finish(&mut s, d, &g);
                }
            }
            served.sort_unstable();
            assert_eq!(served, {
                let mut v = t[..4].to_vec();
                v.sort_unstable();
                v
            });
            assert_eq!(b2.queue(1), vec![t[4]]);
            b2.check();
        }
    }

    #[test]
    fn paq0_packs_planes_at_one_offset_and_refuses_another() {
        let mut b = Bench::new(geometry(1, 1, 1, 2), 8);
        let mut s = paq(&b, false, true, PaqConfig::default());
        let d = b.die(0, 0);
        all_busy(&mut b);
        let a = read(&mut b, d, 0, 3, 1);
        let other_offset = read(&mut b, d, 1, 4, 2);
        let partner = read(&mut b, d, 1, 3, 3);
        for (req, t) in [(1, a), (2, other_offset), (3, partner)] {
            s.submit_request(req, &[t], &mut b.ctx());
        }
        all_free(&mut b, &mut s);
        // The partner comes from a later request, past one at another offset.
        assert_eq!(b.start(&mut s, d), vec![a, partner]);
        assert_eq!(s.held(), 1);
        b.finish(&mut s, d, &[a, partner]);
        assert_eq!(b.start(&mut s, d), vec![other_offset]);
        assert_eq!(s.held(), 0);
        b.check();
        // paq1 does not pack.
        let mut b = Bench::new(geometry(1, 1, 1, 2), 8);
        let mut s = paq(&b, true, false, PaqConfig::default());
        all_busy(&mut b);
        let pair = [read(&mut b, d, 0, 3, 1), read(&mut b, d, 1, 3, 1)];
        s.submit_request(1, &pair, &mut b.ctx());
        all_free(&mut b, &mut s);
        assert_eq!(b.start(&mut s, d), vec![pair[0]]);
    }

    #[test]
    fn paq0_blocks_at_its_head_and_paq1_does_not() {
        // One read on busy chip 0 heads the queue; one on idle chip 1 follows.
        for (clump, second_goes) in [(false, false), (true, true)] {
            let mut b = Bench::new(geometry(2, 1, 1, 1), 8);
            let mut s = paq(&b, clump, false, PaqConfig::default());
            b.queues.die_busy[0] = true;
            let t = [b.host_read(0, 1, 0), b.host_read(1, 2, 0)];
            s.submit_request(1, &[t[0]], &mut b.ctx());
            s.submit_request(2, &[t[1]], &mut b.ctx());
            assert_eq!(b.queue(1) == vec![t[1]], second_goes, "clump = {clump}");
            assert_eq!(s.held(), if second_goes { 1 } else { 2 });
        }
    }

    #[test]
    fn paq2_clumps_and_packs() {
        let mut b = Bench::new(geometry(2, 1, 2, 2), 8);
        let cfg = PaqConfig {
            chip_slots: 1,
            ..PaqConfig::default()
        };
        let mut s = paq(&b, true, true, cfg);
        let (c0d0, c0d1, c1d0) = (b.die(0, 0), b.die(0, 1), b.die(1, 0));
        all_busy(&mut b);
        let lone = read(&mut b, c0d1, 0, 0, 1);
        let first = read(&mut b, c0d0, 0, 5, 2);
        let elsewhere = read(&mut b, c1d0, 1, 2, 3);
        let partner = read(&mut b, c0d0, 1, 5, 4);
        let wrong_offset = read(&mut b, c0d0, 1, 6, 5);
        s.submit_request(1, &[lone], &mut b.ctx());
        s.submit_request(2, &[first], &mut b.ctx());
        s.submit_request(3, &[elsewhere], &mut b.ctx());
        s.submit_request(4, &[wrong_offset, partner], &mut b.ctx());
        all_free(&mut b, &mut s);
        // Die 1 of chip 0 falls free first and takes R1's read; with one slot, die 0
        // then finds its package occupied: one commit there.
        assert_eq!(b.queue(0), vec![lone]);
        assert_eq!(b.queue(1), vec![elsewhere]);
        assert_eq!(b.start(&mut s, c0d0), Vec::<TxnId>::new());
        assert_eq!(b.start(&mut s, c0d1), vec![lone]);
        b.finish(&mut s, c0d1, &[lone]);
        // Then die 0: R2's read packed with R4's read at its offset on plane 1.
        assert_eq!(b.start(&mut s, c0d0), vec![first, partner]);
        b.finish(&mut s, c0d0, &[first, partner]);
        assert_eq!(b.start(&mut s, c0d0), vec![wrong_offset]);
        assert_eq!(s.held(), 0);
        // `lone` left three held reads on its package's other die (cluster); `first`
        // two on its own die (node); `elsewhere` and `wrong_offset` none on their
        // channel; one partner was packed.
        let count = |c: Counter| s.counters().into_iter().find(|x| x.0 == c).map(|x| x.1);
        assert_eq!(count(Counter::PaqCommitsNode), Some(1));
        assert_eq!(count(Counter::PaqCommitsCluster), Some(1));
        assert_eq!(count(Counter::PaqCommitsDomain), Some(0));
        assert_eq!(count(Counter::PaqCommitsNone), Some(2));
        assert_eq!(count(Counter::PaqPackedPages), Some(1));
        assert!(count(Counter::PaqClumps).is_some_and(|n| (2..=4).contains(&n)));
    }

    #[test]
    fn a_read_alone_on_its_package_but_not_on_its_channel_is_a_domain_conflict() {
        // One channel, two packages.
        let mut b = Bench::new(geometry(1, 2, 2, 2), 8);
        let mut s = paq(&b, true, false, PaqConfig::default());
        let (c0d0, c1d0) = (b.die(0, 0), b.die(1, 0));
        all_busy(&mut b);
        let a = read(&mut b, c0d0, 0, 0, 1);
        let other = read(&mut b, c1d0, 0, 0, 2);
        s.submit_request(1, &[a], &mut b.ctx());
        s.submit_request(2, &[other], &mut b.ctx());
        all_free(&mut b, &mut s);
        let c = s.counters();
        assert!(c.contains(&(Counter::PaqCommitsDomain, 1)), "{c:?}");
        assert!(c.contains(&(Counter::PaqCommitsNone, 1)), "{c:?}");
        // The dies fell free one by one: one clump each.
        assert!(c.contains(&(Counter::PaqClumps, 2)), "{c:?}");
        assert!(
            !c.iter().any(|x| x.0 == Counter::PaqPackedPages),
            "paq1 does not pack"
        );
    }

    #[test]
    fn the_starvation_bound_serves_an_old_read_before_queued_writes() {
        for limit in [2, 0] {
            let mut b = Bench::new(geometry(1, 1, 1, 1), 8);
            let cfg = PaqConfig {
                starvation_limit: limit,
                ..PaqConfig::default()
            };
            let mut s = paq(&b, true, false, cfg);
            let d = b.die(0, 0);
            let w0 = b.host_write(0, 1);
            s.submit_request(1, &[w0], &mut b.ctx());
            assert_eq!(b.start(&mut s, d), vec![w0]);
            let r = b.host_read(0, 2, 0);
            s.submit_request(2, &[r], &mut b.ctx());
            assert_eq!(s.held(), 1);
            // A write keeps arriving while the die works: it is always queued when the
            // die frees, so the held read never finds the die open.
            let mut running = vec![w0];
            let mut writes_before_read = 0;
            for i in 0..6 {
                let w = b.host_write(0, 3 + i);
                s.submit_request(3 + i, &[w], &mut b.ctx());
                b.finish(&mut s, d, &running);
                running = b.start(&mut s, d);
                if running == vec![r] {
                    break;
                }
                writes_before_read += 1;
            }
            if limit == 0 {
                assert_eq!(writes_before_read, 6, "without a bound the read starves");
                assert_eq!(s.held(), 1);
            } else {
                // Two operations of its die started since it arrived (w0 was running
                // already): the third is the read.
                assert_eq!(writes_before_read, 2, "limit {limit}");
                assert_eq!(s.held(), 0);
            }
        }
    }

    #[test]
    fn read_first_serves_held_reads_before_queued_writes() {
        for read_first in [false, true] {
            let mut b = Bench::new(geometry(1, 1, 1, 1), 8);
            let cfg = PaqConfig {
                read_first,
                ..PaqConfig::default()
            };
            let mut s = paq(&b, true, false, cfg);
            let d = b.die(0, 0);
            all_busy(&mut b);
            let r = b.host_read(0, 1, 0);
            let w = b.host_write(0, 2);
            s.submit_request(1, &[r], &mut b.ctx());
            s.submit_request(2, &[w], &mut b.ctx());
            all_free(&mut b, &mut s);
            let first = if read_first { r } else { w };
            assert_eq!(b.start(&mut s, d), vec![first], "read_first = {read_first}");
            b.check();
        }
    }

    #[test]
    fn packed_programs_keep_program_order_inside_a_block() {
        let cfg = PaqConfig {
            pack_writes: true,
            ..PaqConfig::default()
        };
        let mut b = Bench::new(geometry(1, 1, 1, 2), 8);
        let mut s = paq(&b, true, true, cfg.clone());
        let d = b.die(0, 0);
        all_busy(&mut b);
        // Page 3 of plane 1 must not be programmed before page 2 of plane 1.
        let p = [
            program(&mut b, d, 0, 3),
            program(&mut b, d, 1, 2),
            program(&mut b, d, 1, 3),
        ];
        s.submit_request(1, &p, &mut b.ctx());
        all_free(&mut b, &mut s);
        assert_eq!(b.start(&mut s, d), vec![p[0]]);
        b.finish(&mut s, d, &[p[0]]);
        assert_eq!(b.start(&mut s, d), vec![p[1]]);
        b.finish(&mut s, d, &[p[1]]);
        assert_eq!(b.start(&mut s, d), vec![p[2]]);
        // Without an earlier program of its plane in the way, the pair packs.
        let mut b = Bench::new(geometry(1, 1, 1, 2), 8);
        let mut s = paq(&b, true, true, cfg);
        all_busy(&mut b);
        let p = [program(&mut b, d, 0, 3), program(&mut b, d, 1, 3)];
        s.submit_request(1, &p, &mut b.ctx());
        all_free(&mut b, &mut s);
        assert_eq!(b.start(&mut s, d), p.to_vec());
        // Writes bypass: nothing was held.
        assert_eq!(s.held(), 0);
    }

    #[test]
    fn paq0_with_the_fifo_write_path_keeps_writes_in_order_with_reads() {
        let mut b = Bench::new(geometry(2, 1, 1, 1), 8);
        let cfg = PaqConfig {
            write_path: WritePath::Fifo,
            ..PaqConfig::default()
        };
        let mut s = paq(&b, false, true, cfg);
        b.queues.die_busy[0] = true;
        let w = b.host_write(0, 1);
        let r = b.host_read(1, 2, 0);
        s.submit_request(1, &[w], &mut b.ctx());
        s.submit_request(2, &[r], &mut b.ctx());
        assert!(b.queue(0).is_empty() && b.queue(1).is_empty());
        assert_eq!(s.held(), 2);
        let g = b.gc(FlashOp::Read, 1);
        s.submit_background(g, &mut b.ctx());
        assert_eq!(s.held(), 3);
        b.queues.die_busy[0] = false;
        s.on_die_free(DieId(0), &mut b.ctx());
        assert_eq!(b.queue(0), vec![w]);
        assert_eq!(
            b.queue(1),
            vec![r],
            "the GC read waits behind the read of its die"
        );
        assert_eq!(s.held(), 1);
        b.check();
    }

    #[test]
    fn held_reads_wait_for_room_in_a_full_chip_queue() {
        let mut b = Bench::new(geometry(1, 1, 2, 1), 1);
        let mut s = paq(&b, true, false, PaqConfig::default());
        let (d0, d1) = (b.die(0, 0), b.die(0, 1));
        b.queues.die_busy[d0.idx()] = true;
        let w = b.host_write(0, 1);
        let r = read(&mut b, d1, 0, 0, 2);
        s.submit_request(1, &[w], &mut b.ctx());
        s.submit_request(2, &[r], &mut b.ctx());
        assert_eq!(b.queue(0), vec![w]);
        assert_eq!(s.held(), 1, "no room for the read");
        b.queues.die_busy[d0.idx()] = false;
        assert_eq!(b.start(&mut s, d0), vec![w]);
        // Starting w freed the room: the read is committed to its die.
        assert_eq!(b.queue(0), vec![r]);
        assert_eq!(b.start(&mut s, d1), vec![r]);
        assert_eq!(s.held(), 0);
    }
}
