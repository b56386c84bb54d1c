//! The chip queues and the device state the simulator shares with a policy.
//!
//! ```text
//!  SchedCtx::push ──► chip queue (depth-limited) ──► take_for_die / take_at ──► die
//!                     per-die counts, op counts        (counts follow every move)
//!  back end ────────► bus status per channel (busy, transfers waiting)
//! ```
//!
//! The counters a policy reads in O(1) (transactions queued per die, reads and programs
//! queued per chip, each channel bus) are updated only through the methods here, so they
//! cannot drift from the queues; [`Queues::check_invariants`] recounts them.

use crate::plans::PlanKind;
use crate::sim::txn::{Txn, TxnId, TxnSlab, UNBOUND};
use ssdlab_nand::{ChannelId, ChipId, DieId, FlashOp, Geometry};
use std::collections::VecDeque;

/// Index of the all-operations count in a die's [`Queues::die_queued`] entry.
const ALL: usize = 3;

/// One channel bus as a policy sees it (PAQ's bus contention).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BusStatus {
    /// A page is crossing the bus now.
    pub busy: bool,
    /// Transfers waiting for the bus, each holding its die.
    pub waiting: u32,
}

/// The per-chip queues and load counters the simulator shares with the policy.
pub struct Queues {
    /// Transactions admitted to each chip's queue, waiting for a die.
    pub chip: Vec<VecDeque<TxnId>>,
    /// Capacity of each chip queue.
    pub depth: usize,
    /// Transactions per chip that are queued, running, or held by the policy.
    pub load: Vec<u32>,
    /// Whether each die is executing an operation.
    pub die_busy: Vec<bool>,
    /// Chips whose queue received work since the simulator last looked.
    pub touched: Vec<ChipId>,
    /// Membership flags of `touched`.
    pub is_touched: Vec<bool>,
    /// Reads waiting in each chip's queue (for expected-wait estimates).
    pub queued_reads: Vec<u32>,
    /// Programs waiting in each chip's queue.
    pub queued_writes: Vec<u32>,
    /// Host reads a policy chose to serve by another plan (reconstruction or another
    /// copy), with that plan's kind (see [`super::SchedCtx::redirect`]).
    pub redirected: Vec<(TxnId, PlanKind)>,
    /// Per die, the transactions in its chip's queue: reads, programs, erases (indexed
    /// by [`FlashOp`]) and, last, all of them.
    die_queued: Vec<[u32; 4]>,
    /// The operation each die started last (its current one while it is busy).
    die_last_op: Vec<FlashOp>,
    /// Each die's chip and that chip's channel (a table, so that the hot paths divide
    /// nothing).
    homes: Vec<(ChipId, ChannelId)>,
    dies_per_chip: u32,
    /// Each channel's bus, kept by the back end.
    bus: Vec<BusStatus>,
    /// Transactions pushed into any chip queue so far, and the number each queued
    /// transaction got when it was pushed (indexed by transaction id): the order in which
    /// work reached the chip queues, whatever its place in them.
    pushes: u64,
    push_no: Vec<u64>,
}

impl Queues {
    /// Empty queues for `geom`.
    pub fn new(geom: &Geometry, depth: u32) -> Self {
        let chips = geom.chips() as usize;
        Queues {
            chip: (0..chips)
                .map(|_| VecDeque::with_capacity(depth as usize))
                .collect(),
            depth: depth as usize,
            load: vec![0; chips],
            die_busy: vec![false; geom.dies() as usize],
            touched: Vec::with_capacity(chips),
            is_touched: vec![false; chips],
            queued_reads: vec![0; chips],
            queued_writes: vec![0; chips],
            redirected: Vec::new(),
            die_queued: vec![[0; 4]; geom.dies() as usize],
            die_last_op: vec![FlashOp::Read; geom.dies() as usize],
            homes: (0..geom.dies())
                .map(|d| {
                    let chip = geom.chip_of_die(DieId(d));
                    (chip, geom.channel_of_chip(chip))
                })
                .collect(),
            dies_per_chip: geom.dies_per_chip,
            bus: vec![BusStatus::default(); geom.channels as usize],
            pushes: 0,
            push_no: Vec::new(),
        }
    }

    /// Transactions pushed into the chip queues so far.
    #[inline]
    pub fn pushes(&self) -> u64 {
        self.pushes
    }

    /// The push number `t` got when it entered its chip queue (1 for the first push);
    /// meaningful while `t` is queued.
    #[inline]
    pub fn push_no(&self, t: TxnId) -> u64 {
        self.push_no[t as usize]
    }

    /// True if `chip`'s queue has room.
    #[inline]
    pub fn has_room(&self, chip: ChipId) -> bool {
        self.chip[chip.idx()].len() < self.depth
    }

    /// True if `chip` has nothing queued or running.
    #[inline]
    pub fn chip_idle(&self, chip: ChipId, geom: &Geometry) -> bool {
        self.chip[chip.idx()].is_empty()
            && (0..geom.dies_per_chip).all(|n| !self.die_busy[geom.die_of_chip(chip, n).idx()])
    }

    /// Transactions waiting for `die` in its chip's queue.
    #[inline]
    pub fn queued_for_die(&self, die: DieId) -> u32 {
        self.die_queued[die.idx()][ALL]
    }

    /// Reads, programs and erases waiting for `die` in its chip's queue (HIPA's load).
    #[inline]
    pub fn queued_ops_for_die(&self, die: DieId) -> (u32, u32, u32) {
        let [r, p, e, _] = self.die_queued[die.idx()];
        (r, p, e)
    }

    /// The operation `die` is running, if it is busy.
    #[inline]
    pub fn running_op(&self, die: DieId) -> Option<FlashOp> {
        self.die_busy[die.idx()].then(|| self.die_last_op[die.idx()])
    }

    /// The bus of channel `ch` now.
    #[inline]
    pub fn bus(&self, ch: ChannelId) -> BusStatus {
        self.bus[ch.idx()]
    }

    /// Every channel's bus, by channel index.
    #[inline]
    pub fn buses(&self) -> &[BusStatus] {
        &self.bus
    }

    /// Puts `t` (whose record is `txn`) at `pos` in `chip`'s queue and counts it.
    #[inline(always)]
    pub(super) fn insert(&mut self, chip: ChipId, pos: usize, t: TxnId, txn: &Txn) {
        debug_assert!(self.has_room(chip));
        debug_assert_eq!(self.chip_of_die(txn.die), chip);
        let q = &mut self.chip[chip.idx()];
        if pos == q.len() {
            q.push_back(t);
        } else {
            q.insert(pos, t);
        }
        self.pushes += 1;
        let i = t as usize;
        if i >= self.push_no.len() {
            self.push_no.resize(i + 1, 0);
        }
        self.push_no[i] = self.pushes;
        let counts = &mut self.die_queued[txn.die.idx()];
        counts[txn.op as usize] += 1;
        counts[ALL] += 1;
        match txn.op {
            FlashOp::Read => self.queued_reads[chip.idx()] += 1,
            FlashOp::Program => self.queued_writes[chip.idx()] += 1,
            FlashOp::Erase => {}
        }
        self.debug_check_chip(chip);
    }

    /// Appends `t` to `chip`'s queue, for tests of other modules.
    #[cfg(test)]
    pub(crate) fn push_for_test(&mut self, chip: ChipId, t: TxnId, txn: &Txn) {
        let pos = self.chip[chip.idx()].len();
        self.insert(chip, pos, t, txn);
    }

    /// Removes the transaction at `pos` of `chip`'s queue; its die count follows. Its
    /// read or program count follows when it starts ([`Queues::txn_started`]).
    #[inline(always)]
    pub(super) fn remove(&mut self, chip: ChipId, pos: usize, txns: &TxnSlab) -> Option<TxnId> {
        let q = &mut self.chip[chip.idx()];
        let t = if pos == 0 {
            q.pop_front()
        } else {
            q.remove(pos)
        }?;
        let txn = &txns[t];
        let counts = &mut self.die_queued[txn.die.idx()];
        debug_assert!(counts[ALL] > 0, "die {} has nothing queued", txn.die);
        counts[txn.op as usize] -= 1;
        counts[ALL] -= 1;
        self.debug_check_chip(chip);
        Some(t)
    }

    /// Moves programs queued for `die` whose page is not chosen yet ([`UNBOUND`]) into
    /// `out`, oldest first, until `out` holds `max` (the back end packs them with the
    /// program it is about to bind; see `placement.bind`).
    pub(crate) fn take_unbound(
        &mut self,
        die: DieId,
        max: usize,
        txns: &TxnSlab,
        out: &mut Vec<TxnId>,
    ) {
        let chip = self.chip_of_die(die);
        let mut i = 0;
        while out.len() < max && self.die_queued[die.idx()][ALL] > 0 {
            let Some(&t) = self.chip[chip.idx()].get(i) else {
                break;
            };
            if txns[t].die == die && txns[t].ppn == UNBOUND {
                self.remove(chip, i, txns);
                out.push(t);
            } else {
                i += 1;
            }
        }
    }

    /// The back end started `txn`, which a policy took from its chip's queue: it no
    /// longer counts among the chip's queued reads or programs.
    #[inline]
    pub(crate) fn txn_started(&mut self, txn: &Txn) {
        self.txn_started_on(self.chip_of_die(txn.die), txn.die, txn.op);
    }

    /// [`Queues::txn_started`] of an `op` on `die` of `chip`.
    #[inline]
    pub(crate) fn txn_started_on(&mut self, chip: ChipId, die: DieId, op: FlashOp) {
        debug_assert_eq!(self.chip_of_die(die), chip);
        self.die_last_op[die.idx()] = op;
        let chip = chip.idx();
        match op {
            FlashOp::Read => self.queued_reads[chip] -= 1,
            FlashOp::Program => self.queued_writes[chip] -= 1,
            FlashOp::Erase => {}
        }
    }

    /// `die` runs `op` again (a suspended program or erase resumed).
    #[inline]
    pub(crate) fn set_running_op(&mut self, die: DieId, op: FlashOp) {
        self.die_last_op[die.idx()] = op;
    }

    /// The back end granted channel `ch`'s bus to a transfer.
    #[inline]
    pub(crate) fn bus_granted(&mut self, ch: ChannelId) {
        let b = &mut self.bus[ch.idx()];
        debug_assert!(!b.busy, "bus {ch} granted twice");
        b.busy = true;
    }

    /// A transfer started waiting for channel `ch`'s busy bus.
    #[inline]
    pub(crate) fn bus_wait_started(&mut self, ch: ChannelId) {
        let b = &mut self.bus[ch.idx()];
        debug_assert!(b.busy, "waiting for free bus {ch}");
        b.waiting += 1;
    }

    /// A waiting transfer left channel `ch`'s bus queue (to be granted the bus).
    #[inline]
    pub(crate) fn bus_wait_ended(&mut self, ch: ChannelId) {
        let b = &mut self.bus[ch.idx()];
        debug_assert!(b.waiting > 0, "nothing waits for bus {ch}");
        b.waiting -= 1;
    }

    /// The transfer on channel `ch`'s bus finished.
    #[inline]
    pub(crate) fn bus_released(&mut self, ch: ChannelId) {
        let b = &mut self.bus[ch.idx()];
        debug_assert!(b.busy, "bus {ch} released while free");
        b.busy = false;
    }

    /// The chip of `die` and the channel of that chip.
    #[inline(always)]
    pub fn home(&self, die: DieId) -> (ChipId, ChannelId) {
        self.homes[die.idx()]
    }

    #[inline(always)]
    fn chip_of_die(&self, die: DieId) -> ChipId {
        self.home(die).0
    }

    #[inline]
    fn dies_of_chip(&self, chip: ChipId) -> std::ops::Range<usize> {
        let n = self.dies_per_chip as usize;
        chip.idx() * n..(chip.idx() + 1) * n
    }

    /// The per-die counts of `chip` sum to its queue length (O(dies per chip)).
    #[inline]
    fn debug_check_chip(&self, chip: ChipId) {
        if cfg!(debug_assertions) {
            let counted: u32 = self.die_queued[self.dies_of_chip(chip)]
                .iter()
                .map(|c| c[ALL])
                .sum();
            debug_assert_eq!(
                counted as usize,
                self.chip[chip.idx()].len(),
                "per-die counts of chip {chip}"
            );
        }
    }

    /// Recounts every counter from the queues' contents (slow; for tests). Valid between
    /// events, when every transaction taken from a queue has started.
    pub fn check_invariants(&self, txns: &TxnSlab) {
        let mut per_die = vec![[0u32; 4]; self.die_queued.len()];
        for (c, q) in self.chip.iter().enumerate() {
            let chip = ChipId(c as u32);
            assert!(q.len() <= self.depth, "chip {chip} queue over depth");
            let (mut reads, mut programs) = (0, 0);
            for &t in q {
                let txn = &txns[t];
                assert_eq!(
                    self.chip_of_die(txn.die),
                    chip,
                    "txn {t} in a foreign queue"
                );
                let counts = &mut per_die[txn.die.idx()];
                counts[txn.op as usize] += 1;
                counts[ALL] += 1;
                match txn.op {
                    FlashOp::Read => reads += 1,
                    FlashOp::Program => programs += 1,
                    FlashOp::Erase => {}
                }
            }
            let counted: u32 = self.die_queued[self.dies_of_chip(chip)]
                .iter()
                .map(|c| c[ALL])
                .sum();
            assert_eq!(counted as usize, q.len(), "per-die counts of chip {chip}");
            assert_eq!(self.queued_reads[c], reads, "queued reads of chip {chip}");
            assert_eq!(
                self.queued_writes[c], programs,
                "queued programs of chip {chip}"
            );
        }
        assert_eq!(per_die, self.die_queued, "per-die counts");
        for (ch, b) in self.bus.iter().enumerate() {
            assert!(b.busy || b.waiting == 0, "free bus {ch} with waiters");
        }
    }
}
