//! Parallel Issue Queuing, asynchronous and RAID-5-aware as the BRR paper adapts it
//! (its §II-D, figure 5(b), §III-D and Algorithm 1; PIQ itself is Gao et al., MSST 2014).
//!
//! ```text
//!  host read  ──► Alg. 1 ──► read batch list   [B0 {c0,c3}] [B2 {c3,c5}] …  ┐  per chip, in
//!  host write ──► Alg. 1 ──► write batch list  [B1 {c1,c2}] …               ├► batch order ──► chip
//!  background ─────────────► tail of its chip's order (submission order)    ┘  (oldest first)   queues
//! ```
//!
//! * **Algorithm 1**: a request's target chips are the chips of its sub-requests
//!   (transactions). It joins the first batch of its list (reads and writes are listed
//!   apart) whose target chips it does not share, else opens a new batch at the end.
//! * **Dispatch**: every batch carries the sequence number of its creation; each chip
//!   serves its work in batch order (oldest batch first, whichever list it is in). A
//!   request that joins an old batch thus overtakes the requests of younger batches on
//!   its chips — PIQ's reordering — while the chips it does not share with them run
//!   asynchronously, as in Async_FIFO. Where the order applies is
//!   `scheduler.piq.batch_order`: `"queue"` (the BRR paper's reading: the chip queue of
//!   `chip_queue_depth` is the controller's pending queue of that chip, ordered by batch;
//!   a program never passes an earlier program of its plane, as NAND programs a block's
//!   pages in order) or `"overflow"` (chip queues are FIFO; only what waits for room in
//!   them is ordered). Counter `piq-reordered`: transactions placed ahead of queued ones.
//! * **Background work** (GC, RAID pre-reads and parity programs) is not batched: it
//!   joins the tail of its chip's order, so it never overtakes anything submitted
//!   before it (a parity pre-read never overtakes the held program of its page).
//!   Reconstruction reads (BRR's redirected sub-requests) go straight to their chip.
//! * **Write-behind-read** (`scheduler.write_behind_read`, BRR §III-C): the rule of
//!   [`WriteBehindRead`], shared with `async-fifo`.
//!
//! With [`Brr`] attached this is BRR: each host read is checked by Algorithm 2 when it
//! leaves the batch lists. Decisions are taken in the scheduler calls the simulator
//! makes from its event handlers (admission, completion, die free); queue room that a
//! die's start creates is filled at that die's completion unless another die of the
//! chip is idle.

use super::brr::{Brr, HeldEntry, List, Running};
use super::config::BatchOrder;
use super::wbr::WriteBehindRead;
use super::SchedulerConfig;
use super::{chips_of, IoScheduler, SchedCtx};
use crate::sim::txn::{ReqId, TxnId, UNBOUND};
use ssdlab_nand::{ChipId, DieId, FlashOp, Geometry, NandTiming, TxnReason};
use ssdlab_stats::Counter;
use std::collections::VecDeque;

/// One batch of non-conflicting requests: its target chips as a bit set.
struct Batch {
    seq: u64,
    chips: Vec<u64>,
    held: u32,
    /// New requests may join (no transaction of the batch has started yet).
    open: bool,
}

impl Batch {
    fn conflicts(&self, chips: &[ChipId]) -> bool {
        chips
            .iter()
            .any(|c| self.chips[c.idx() / 64] & (1 << (c.idx() % 64)) != 0)
    }

    fn add(&mut self, chips: &[ChipId]) {
        for c in chips {
            self.chips[c.idx() / 64] |= 1 << (c.idx() % 64);
        }
    }
}

/// PIQ (and, with Algorithm 2 attached, BRR).
pub struct Piq {
    read_batches: Vec<Batch>,
    write_batches: Vec<Batch>,
    spare: Vec<Batch>,
    words: usize,
    next_seq: u64,
    /// Held transactions per chip, sorted by batch sequence.
    by_chip: Vec<VecDeque<HeldEntry>>,
    /// Reconstruction reads (and returned host reads) waiting only for queue room, with
    /// their place in the batch order.
    urgent: Vec<VecDeque<(TxnId, u64, List)>>,
    /// Per request (by id): the sequence of the batch it joined (0: none).
    req_seq: Vec<u64>,
    held: usize,
    multi_plane: bool,
    wbr: WriteBehindRead,
    /// Batch order inside the chip queues too (else only in what waits for room).
    order_in_queue: bool,
    /// Per transaction: the batch sequence it was queued with, and its batch list.
    seq_of: Vec<(u64, List)>,
    /// Transactions queued ahead of earlier-queued ones.
    reordered: u64,
    chips: Vec<ChipId>,
    /// Operation each die executes (for BRR's `WT`), and the sums per chip.
    die_op: Vec<Option<FlashOp>>,
    running: Vec<Running>,
    brr: Option<Brr>,
}

impl Piq {
    /// A policy for `geom` configured by `cfg`; `brr` turns it into BRR.
    pub(crate) fn new(geom: &Geometry, cfg: &SchedulerConfig, brr: Option<Brr>) -> Self {
        let chips = geom.chips() as usize;
        Piq {
            read_batches: Vec::new(),
            write_batches: Vec::new(),
            spare: Vec::new(),
            words: chips.div_ceil(64),
            next_seq: 1,
            by_chip: (0..chips).map(|_| VecDeque::new()).collect(),
            urgent: (0..chips).map(|_| VecDeque::new()).collect(),
            req_seq: Vec::new(),
            held: 0,
            multi_plane: cfg.multi_plane,
            wbr: WriteBehindRead::new(cfg.write_behind_read),
            order_in_queue: cfg.piq.batch_order == BatchOrder::Queue,
            seq_of: Vec::new(),
            reordered: 0,
            chips: Vec::new(),
            die_op: vec![None; geom.dies() as usize],
            running: vec![Running::default(); chips],
            brr,
        }
    }

    /// PIQ as `cfg` describes it, for `geom`.
    pub(crate) fn from_config(cfg: &SchedulerConfig, geom: &Geometry, _: &NandTiming) -> Self {
        Piq::new(geom, cfg, None)
    }

    /// BRR as `cfg` describes it: PIQ with Algorithm 2, latencies from `timing`.
    pub(crate) fn with_brr(cfg: &SchedulerConfig, geom: &Geometry, timing: &NandTiming) -> Self {
        let brr = Brr::new(
            &cfg.brr,
            timing,
            geom.page_size_bytes,
            geom.chips() as usize,
        );
        Piq::new(geom, cfg, Some(brr))
    }

    /// Algorithm 1: the sequence number of the batch `self.chips` joins in `list`.
    fn batch_for(&mut self, list: List, txns: u32) -> u64 {
        let batches = match list {
            List::Read => &mut self.read_batches,
            _ => &mut self.write_batches,
        };
        if let Some(b) = batches
            .iter_mut()
            .find(|b| b.open && !b.conflicts(&self.chips))
        {
            b.add(&self.chips);
            b.held += txns;
            return b.seq;
        }
        let mut b = self.spare.pop().unwrap_or_else(|| Batch {
            seq: 0,
            chips: vec![0; self.words],
            held: 0,
            open: true,
        });
        b.chips.fill(0);
        b.seq = self.next_seq;
        b.held = txns;
        b.open = true;
        b.add(&self.chips);
        self.next_seq += 1;
        let seq = b.seq;
        batches.push(b);
        seq
    }

    /// One transaction of batch `seq` in `list` left the batch lists (with the batch
    /// order inside the queues: started). A batch that has begun to be served takes no
    /// new request: PIQ dispatches batches, it does not keep one open for ever.
    fn batch_dispatched(&mut self, list: List, seq: u64) {
        let batches = match list {
            List::Read => &mut self.read_batches,
            List::Write => &mut self.write_batches,
            List::Background | List::Attached => return,
        };
        let i = batches
            .binary_search_by_key(&seq, |b| b.seq)
            .expect("a held transaction's batch exists");
        batches[i].open = false;
        batches[i].held -= 1;
        if batches[i].held == 0 {
            let b = batches.remove(i);
            self.spare.push(b);
        }
    }

    /// Inserts `e` into its chip's order after every entry of a batch not younger.
    fn hold(&mut self, chip: ChipId, e: HeldEntry) {
        let q = &mut self.by_chip[chip.idx()];
        if q.back().is_some_and(|b| b.seq > e.seq) {
            let pos = q.partition_point(|x| x.seq <= e.seq);
            q.insert(pos, e);
        } else {
            q.push_back(e);
        }
        self.held += 1;
    }

    /// Moves held work of `chip` into its queue while it has room; `decide` allows
    /// Algorithm 2 to redirect host reads.
    fn fill(&mut self, chip: ChipId, ctx: &mut SchedCtx, decide: bool) {
        while ctx.queues.has_room(chip) {
            if let Some((t, seq, list)) = self.urgent[chip.idx()].pop_front() {
                self.held -= 1;
                self.push(t, seq, list, ctx);
                continue;
            }
            let Some(e) = self.by_chip[chip.idx()].pop_front() else {
                break;
            };
            self.held -= 1;
            if decide && e.list == List::Read {
                if let Some(brr) = self.brr.as_mut() {
                    if brr.try_redirect(e.txn, ctx, &self.by_chip, &self.running) {
                        self.batch_dispatched(e.list, e.seq);
                        continue;
                    }
                }
            }
            if !self.order_in_queue {
                self.batch_dispatched(e.list, e.seq);
            }
            self.push(e.txn, e.seq, e.list, ctx);
        }
    }

    /// Fills the chips in `self.chips`.
    fn fill_listed(&mut self, ctx: &mut SchedCtx, decide: bool) {
        for i in 0..self.chips.len() {
            let chip = self.chips[i];
            self.fill(chip, ctx, decide);
        }
    }

    /// Queues `t` of batch `seq` on its chip: at the tail, or with the batch order inside
    /// the queue, after every entry of a batch not younger, after all background work
    /// (GC, a parity update's pre-reads and program, reconstruction reads: it keeps its
    /// place in submission order, neither passing nor passed), and after every earlier
    /// program of its plane when `t` is a program.
    /// With the batch order inside the queues a batch lives until its last transaction
    /// starts (others may still join it and pass younger work): `list` says which batch
    /// list `t`'s batch is in, so that its start can be counted.
    fn push(&mut self, t: TxnId, seq: u64, list: List, ctx: &mut SchedCtx) {
        let chip = ctx.chip_of(t);
        let q = &ctx.queues.chip[chip.idx()];
        let mut pos = q.len();
        if self.order_in_queue {
            let x = ctx.txns[t];
            let program = x.op == FlashOp::Program;
            // Programs whose page is chosen at dispatch: their plane is not known yet.
            let plane_of = |p| (p != UNBOUND).then(|| ctx.geom.plane_of_page(p));
            let plane = plane_of(x.ppn);
            while pos > 0 {
                let y = &ctx.txns[q[pos - 1]];
                let same_plane_program = program
                    && y.op == FlashOp::Program
                    && y.die == x.die
                    && (plane.is_none() || plane_of(y.ppn).is_none_or(|p| Some(p) == plane));
                let (y_seq, y_list) = self.seq_of[q[pos - 1] as usize];
                if y_seq <= seq || y_list == List::Background || same_plane_program {
                    break;
                }
                pos -= 1;
            }
            if pos < q.len() {
                self.reordered += 1;
            }
        }
        let i = t as usize;
        if i >= self.seq_of.len() {
            self.seq_of.resize(i + 1, (0, List::Background));
        }
        self.seq_of[i] = (seq, list);
        ctx.insert(t, pos);
    }
}

impl IoScheduler for Piq {
    fn name(&self) -> &'static str {
        if self.brr.is_some() {
            "brr"
        } else {
            "piq"
        }
    }

    fn submit_request(&mut self, req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        let Some(&first) = txns.first() else { return };
        let list = if ctx.txns[first].op == FlashOp::Read {
            List::Read
        } else {
            List::Write
        };
        chips_of(txns, ctx, &mut self.chips);
        if let Some(brr) = self.brr.as_mut() {
            let now = ctx.txns[first].enqueued_ns;
            for &c in &self.chips {
                brr.arrival(c, now);
            }
        }
        let seq = self.batch_for(list, txns.len() as u32);
        let r = req as usize;
        if r >= self.req_seq.len() {
            self.req_seq.resize(r + 1, 0);
        }
        self.req_seq[r] = seq;
        for &txn in txns {
            let chip = ctx.chip_of(txn);
            self.hold(chip, HeldEntry { seq, txn, list });
        }
        self.fill_listed(ctx, true);
    }

    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        let chip = ctx.chip_of(txn);
        let reason = ctx.txns[txn].reason;
        if let Some(brr) = self.brr.as_mut().filter(|_| !reason.is_gc()) {
            // RAID work (pre-reads, parity, reconstruction) arrives like a request.
            brr.arrival(chip, ctx.txns[txn].enqueued_ns);
        }
        // Work a request waits for keeps that request's place in the batch order.
        let req = ctx.txns[txn].req as usize;
        let (seq, list) = match self.req_seq.get(req) {
            Some(&s) if s != 0 => (s, List::Attached),
            _ => (self.next_seq, List::Background),
        };
        if matches!(reason, TxnReason::ReconstructRead | TxnReason::HostRead) {
            // Redirected sub-requests (and a read whose redirection fell through) run now.
            self.urgent[chip.idx()].push_back((txn, seq, list));
            self.held += 1;
        } else {
            self.hold(chip, HeldEntry { seq, txn, list });
        }
        // No redirection here: this call may come from the controller's own redirect
        // processing.
        self.fill(chip, ctx, false);
    }

    fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        let dies = ctx.geom.dies_per_chip;
        let idle_die = (0..dies).any(|n| !ctx.queues.die_busy[ctx.geom.die_of_chip(chip, n).idx()]);
        if idle_die {
            self.fill(chip, ctx, false);
        }
    }

    fn on_txn_done(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        self.fill(chip, ctx, true);
    }

    fn on_die_free(&mut self, die: DieId, ctx: &mut SchedCtx) {
        let chip = ctx.geom.chip_of_die(die);
        self.note_running(die, chip, None);
        self.fill(chip, ctx, true);
    }

    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        self.pick_group(die, ctx, group);
        if self.order_in_queue {
            for &t in group.iter() {
                let (seq, list) =
                    std::mem::replace(&mut self.seq_of[t as usize], (0, List::Background));
                self.batch_dispatched(list, seq);
            }
        }
        let op = group.first().map(|&t| ctx.txns[t].op);
        if op.is_some() {
            self.note_running(die, ctx.geom.chip_of_die(die), op);
        }
    }

    fn held(&self) -> usize {
        self.held
    }

    fn counters(&self) -> Vec<(Counter, u64)> {
        let mut c = vec![(Counter::PiqReordered, self.reordered)];
        if let Some(brr) = &self.brr {
            c.extend(brr.counters());
        }
        c
    }

    fn on_direct_start(&mut self, die: DieId, op: FlashOp, ctx: &mut SchedCtx) {
        self.note_running(die, ctx.geom.chip_of_die(die), Some(op));
    }
}

impl Piq {
    /// Records that `die` of `chip` now executes `op` (None: nothing).
    fn note_running(&mut self, die: DieId, chip: ChipId, op: Option<FlashOp>) {
        let r = &mut self.running[chip.idx()];
        for (o, add) in [(self.die_op[die.idx()], false), (op, true)] {
            let n = match o {
                Some(FlashOp::Read) => &mut r.reads,
                Some(FlashOp::Program) => &mut r.programs,
                Some(FlashOp::Erase) => &mut r.erases,
                None => continue,
            };
            if add {
                *n += 1;
            } else {
                *n -= 1;
            }
        }
        self.die_op[die.idx()] = op;
    }

    /// What `die` serves next.
    fn pick_group(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        if !self.wbr.pick(die, ctx, group) {
            ctx.take_for_die(die, self.multi_plane, group);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::testutil::{geometry, Bench};

    /// Four chips on four channels, one die of one plane each; chip queues of `depth`.
    fn setup(depth: u32, write_behind_read: bool) -> (Bench, Piq) {
        let b = Bench::new(geometry(4, 1, 1, 1), depth);
        let cfg = SchedulerConfig {
            chip_queue_depth: depth,
            write_behind_read,
            ..SchedulerConfig::default()
        };
        let piq = Piq::new(&b.geom, &cfg, None);
        (b, piq)
    }

    /// Host reads of request `req`, one on each of `chips`.
    fn reads(b: &mut Bench, req: ReqId, chips: &[u32]) -> Vec<TxnId> {
        chips.iter().map(|&c| b.host_read(c, req, 0)).collect()
    }

    /// Fills chip `chip`'s queue of one with a GC program.
    fn occupy(b: &mut Bench, s: &mut Piq, chip: u32) -> TxnId {
        let g = b.gc(FlashOp::Program, chip);
        s.submit_background(g, &mut b.ctx());
        assert_eq!(b.queue(chip), vec![g]);
        g
    }

    /// Runs what chip `chip`'s queue holds now to completion; returns it.
    fn serve(b: &mut Bench, s: &mut Piq, chip: u32) -> Vec<TxnId> {
        let die = b.die(chip, 0);
        let g = b.start(s, die);
        b.finish(s, die, &g);
        g
    }

    fn seqs(batches: &[Batch]) -> Vec<u64> {
        batches.iter().map(|b| b.seq).collect()
    }

    #[test]
    fn a_request_joins_the_first_batch_it_does_not_conflict_with() {
        let (mut b, mut s) = setup(1, false);
        let g1 = occupy(&mut b, &mut s, 1);
        let g2 = occupy(&mut b, &mut s, 2);
        let g3 = occupy(&mut b, &mut s, 3);
        let r1 = reads(&mut b, 1, &[0, 1]);
        s.submit_request(1, &r1, &mut b.ctx());
        assert_eq!(b.queue(0), vec![r1[0]]);
        let r2 = reads(&mut b, 2, &[1, 2]);
        s.submit_request(2, &r2, &mut b.ctx());
        assert_eq!(
            seqs(&s.read_batches),
            vec![1, 2],
            "R2 shares chip 1 with R1"
        );
        // R3 shares no chip with batch 1 ({0, 1}): it joins it, ahead of R2 on chip 2.
        let r3 = reads(&mut b, 3, &[2]);
        s.submit_request(3, &r3, &mut b.ctx());
        assert_eq!(seqs(&s.read_batches), vec![1, 2]);
        // R4 conflicts with batch 1 on chip 0 but not with batch 2 ({1, 2}).
        let r4 = reads(&mut b, 4, &[0]);
        s.submit_request(4, &r4, &mut b.ctx());
        assert_eq!(seqs(&s.read_batches), vec![1, 2]);
        // R5 conflicts with neither: the first batch takes it.
        let r5 = reads(&mut b, 5, &[3]);
        s.submit_request(5, &r5, &mut b.ctx());
        let by_chip = |s: &Piq, c: usize| -> Vec<(u64, TxnId)> {
            s.by_chip[c].iter().map(|e| (e.seq, e.txn)).collect()
        };
        assert_eq!(by_chip(&s, 0), vec![(2, r4[0])]);
        assert_eq!(by_chip(&s, 1), vec![(1, r1[1]), (2, r2[0])]);
        assert_eq!(by_chip(&s, 2), vec![(1, r3[0]), (2, r2[1])]);
        assert_eq!(by_chip(&s, 3), vec![(1, r5[0])]);
        assert_eq!(s.held(), 6);
        // Each chip receives its held work in batch order as its queue frees.
        assert_eq!(serve(&mut b, &mut s, 2), vec![g2]);
        assert_eq!(b.queue(2), vec![r3[0]], "R3 overtakes R2 through batch 1");
        assert_eq!(serve(&mut b, &mut s, 2), vec![r3[0]]);
        assert_eq!(b.queue(2), vec![r2[1]]);
        assert_eq!(serve(&mut b, &mut s, 1), vec![g1]);
        assert_eq!(b.queue(1), vec![r1[1]]);
        assert_eq!(serve(&mut b, &mut s, 0), vec![r1[0]]);
        assert_eq!(b.queue(0), vec![r4[0]]);
        assert_eq!(serve(&mut b, &mut s, 3), vec![g3]);
        assert_eq!(b.queue(3), vec![r5[0]]);
        // Batch 1 is gone once all its transactions have started (with the batch order
        // inside the chip queues, a later request may still join it until then).
        assert_eq!(seqs(&s.read_batches), vec![1, 2]);
        serve(&mut b, &mut s, 1);
        serve(&mut b, &mut s, 3);
        assert_eq!(seqs(&s.read_batches), vec![2]);
        b.check();
    }

    #[test]
    fn reads_and_writes_are_batched_apart() {
        let (mut b, mut s) = setup(1, false);
        occupy(&mut b, &mut s, 0);
        let g = occupy(&mut b, &mut s, 2);
        let r1 = reads(&mut b, 1, &[0]);
        s.submit_request(1, &r1, &mut b.ctx());
        let w = b.host_write(2, 2);
        s.submit_request(2, &[w], &mut b.ctx());
        // In one list the write would have joined batch 1 and the read after it, which
        // shares chip 2 with the write, would have opened a younger batch behind it;
        // apart, the read joins batch 1 and goes first.
        let r3 = reads(&mut b, 3, &[2]);
        s.submit_request(3, &r3, &mut b.ctx());
        assert_eq!(seqs(&s.read_batches), vec![1]);
        assert_eq!(seqs(&s.write_batches), vec![2]);
        assert_eq!(serve(&mut b, &mut s, 2), vec![g]);
        assert_eq!(b.queue(2), vec![r3[0]]);
        assert_eq!(serve(&mut b, &mut s, 2), vec![r3[0]]);
        assert_eq!(b.queue(2), vec![w]);
    }

    #[test]
    fn background_work_keeps_its_place_in_its_chip_order() {
        let (mut b, mut s) = setup(1, false);
        let g0 = occupy(&mut b, &mut s, 0);
        let r1 = reads(&mut b, 1, &[0]);
        s.submit_request(1, &r1, &mut b.ctx());
        let gc_read = b.gc(FlashOp::Read, 0);
        s.submit_background(gc_read, &mut b.ctx());
        // A new batch (2) never goes before background work submitted earlier.
        let r2 = reads(&mut b, 2, &[0]);
        s.submit_request(2, &r2, &mut b.ctx());
        assert_eq!(seqs(&s.read_batches), vec![1, 2]);
        let mut order = Vec::new();
        for _ in 0..4 {
            order.extend(serve(&mut b, &mut s, 0));
        }
        assert_eq!(order, vec![g0, r1[0], gc_read, r2[0]]);
        assert_eq!(s.held(), 0);
    }

    #[test]
    fn reconstruction_reads_go_straight_to_their_chip() {
        let (mut b, mut s) = setup(1, false);
        occupy(&mut b, &mut s, 0);
        let r1 = reads(&mut b, 1, &[0]);
        s.submit_request(1, &r1, &mut b.ctx());
        let die = b.die(0, 0);
        let x = b.txn_at(FlashOp::Read, TxnReason::ReconstructRead, die, 0, 0, 7, 0);
        s.submit_background(x, &mut b.ctx());
        assert_eq!(s.held(), 2);
        serve(&mut b, &mut s, 0);
        assert_eq!(b.queue(0), vec![x]);
        serve(&mut b, &mut s, 0);
        assert_eq!(b.queue(0), vec![r1[0]]);
    }

    #[test]
    fn write_behind_read_serves_reads_queued_before_the_program_reached_the_head() {
        let (mut b, mut s) = setup(8, true);
        let die = b.die(0, 0);
        let g = b.gc(FlashOp::Read, 0);
        s.submit_background(g, &mut b.ctx());
        assert_eq!(b.start(&mut s, die), vec![g]);
        let w = b.host_write(0, 1);
        s.submit_request(1, &[w], &mut b.ctx());
        let r1 = reads(&mut b, 2, &[0]);
        s.submit_request(2, &r1, &mut b.ctx());
        assert_eq!(b.queue(0), vec![w, r1[0]]);
        b.finish(&mut s, die, &[g]);
        // The program is at the head: the read queued behind it goes first.
        assert_eq!(b.start(&mut s, die), vec![r1[0]]);
        let r2 = reads(&mut b, 3, &[0]);
        s.submit_request(3, &r2, &mut b.ctx());
        b.finish(&mut s, die, &r1);
        // R2 was queued after the program reached the head: it waits.
        assert_eq!(b.start(&mut s, die), vec![w]);
        b.finish(&mut s, die, &[w]);
        assert_eq!(b.start(&mut s, die), vec![r2[0]]);
    }

    /// PIQ with `batch_order` on four chips of two planes, chip queues of 8.
    fn setup_order(order: BatchOrder) -> (Bench, Piq) {
        let b = Bench::new(geometry(4, 1, 1, 2), 8);
        let mut cfg = SchedulerConfig::default();
        cfg.piq.batch_order = order;
        let piq = Piq::new(&b.geom, &cfg, None);
        (b, piq)
    }

    #[test]
    fn batch_order_applies_inside_the_chip_queue() {
        for (order, overtakes) in [(BatchOrder::Queue, true), (BatchOrder::Overflow, false)] {
            let (mut b, mut s) = setup_order(order);
            let g = b.gc(FlashOp::Read, 2);
            s.submit_background(g, &mut b.ctx());
            b.start(&mut s, b.die(2, 0));
            // A: batch 1 {0, 1}; B conflicts on chip 1: batch 2 {1, 2}; C on chip 2 only
            // joins batch 1 and so goes before B on chip 2.
            let a = reads(&mut b, 1, &[0, 1]);
            s.submit_request(1, &a, &mut b.ctx());
            let r_b = reads(&mut b, 2, &[1, 2]);
            s.submit_request(2, &r_b, &mut b.ctx());
            let c = reads(&mut b, 3, &[2]);
            s.submit_request(3, &c, &mut b.ctx());
            let expect = if overtakes {
                vec![c[0], r_b[1]]
            } else {
                vec![r_b[1], c[0]]
            };
            assert_eq!(b.queue(2), expect, "{order:?}");
            let n = s.counters()[0].1;
            assert_eq!(n, u64::from(overtakes));
        }
    }

    #[test]
    fn a_program_never_passes_an_earlier_program_of_its_plane() {
        // W0: write batch 1 {1}; W1 on {0, 1}: batch 2, its program on chip 0 plane 0;
        // W2 on chip 0 joins batch 1: it passes W1 on plane 1, not on plane 0.
        for (plane, passes) in [(0, false), (1, true)] {
            let (mut b, mut s) = setup_order(BatchOrder::Queue);
            let g = b.gc(FlashOp::Read, 0);
            s.submit_background(g, &mut b.ctx());
            b.start(&mut s, b.die(0, 0));
            let die = b.die(0, 0);
            let w0 = b.host_write(1, 1);
            s.submit_request(1, &[w0], &mut b.ctx());
            let p1 = b.txn_at(FlashOp::Program, TxnReason::HostWrite, die, 0, 5, 2, 0);
            let w1 = [p1, b.host_write(1, 2)];
            s.submit_request(2, &w1, &mut b.ctx());
            let w2 = b.txn_at(FlashOp::Program, TxnReason::HostWrite, die, plane, 6, 3, 0);
            s.submit_request(3, &[w2], &mut b.ctx());
            let expect = if passes { vec![w2, p1] } else { vec![p1, w2] };
            assert_eq!(b.queue(0), expect, "plane {plane}");
        }
    }

    #[test]
    fn without_write_behind_read_the_program_goes_first() {
        let (mut b, mut s) = setup(8, false);
        let die = b.die(0, 0);
        let w = b.host_write(0, 1);
        s.submit_request(1, &[w], &mut b.ctx());
        let r1 = reads(&mut b, 2, &[0]);
        s.submit_request(2, &r1, &mut b.ctx());
        assert_eq!(b.start(&mut s, die), vec![w]);
    }
}
