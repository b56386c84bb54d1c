//! [`Scheduler`]: the policy a simulation runs. The built-in policies are variants of
//! one enum, so the simulator calls them directly (`sim`'s `sched!` macro matches on the
//! variant and builds the policy's [`SchedCtx`] inside each arm: the calls on its hot
//! paths inline, and a hook a policy does not use costs nothing); any other
//! [`IoScheduler`] runs boxed, as [`Scheduler::Other`].

use super::{AsyncFifo, IoScheduler, Paq, Piq, Queues, SchedCtx, SyncFifo, Vaq};
use crate::plans::ReadPlans;
use crate::sim::txn::{ReqId, TxnId};
use ssdlab_nand::{ChipId, DieId, FlashOp};

/// The scheduling policy of a run. (`repr(u8)`: a one-byte tag, which each call tests.)
///
/// Of the built-in policies only [`Piq`] (BRR's reconstruction of reads aimed at busy
/// chips) consults [`SchedCtx::plans`]; the simulator hands the others
/// [`super::NoPlans`] (`sim`'s `sched!` macro), as it hands every policy the plans it
/// may take. A built-in policy that starts to consult plans moves to that macro's list
/// of those that see them.
#[repr(u8)]
pub enum Scheduler {
    /// `sync-fifo`.
    SyncFifo(SyncFifo),
    /// `async-fifo`.
    AsyncFifo(AsyncFifo),
    /// `piq` and `brr`.
    Piq(Piq),
    /// `vaq`.
    Vaq(Vaq),
    /// `paq0`, `paq1` and `paq2`.
    Paq(Paq),
    /// A policy that is not built in.
    Other(Box<dyn IoScheduler>),
}

impl Scheduler {
    /// False when [`IoScheduler::pick`] would certainly find nothing for idle `die`:
    /// the FIFO policies take only from the chip queues, so a die with nothing queued
    /// gets nothing. True for every other policy (it may hold work of its own).
    #[inline]
    pub fn may_pick(&self, die: DieId, queues: &Queues) -> bool {
        match self {
            Scheduler::SyncFifo(_) | Scheduler::AsyncFifo(_) => queues.queued_for_die(die) > 0,
            _ => true,
        }
    }
}

/// A policy that is not one of the built-in types runs boxed.
impl From<Box<dyn IoScheduler>> for Scheduler {
    fn from(s: Box<dyn IoScheduler>) -> Self {
        Scheduler::Other(s)
    }
}

/// `$body` with `$s` bound to the policy inside `$self`, whatever its variant.
macro_rules! each {
    ($self:ident, $s:ident => $body:expr) => {
        match $self {
            Scheduler::SyncFifo($s) => $body,
            Scheduler::AsyncFifo($s) => $body,
            Scheduler::Piq($s) => $body,
            Scheduler::Vaq($s) => $body,
            Scheduler::Paq($s) => $body,
            Scheduler::Other($s) => $body,
        }
    };
}

/// Each built-in type becomes its own variant.
macro_rules! built_in {
    ($($t:ident),+) => {$(
        impl From<$t> for Scheduler {
            fn from(s: $t) -> Self {
                Scheduler::$t(s)
            }
        }
    )+};
}
built_in!(SyncFifo, AsyncFifo, Piq, Vaq, Paq);

impl IoScheduler for Scheduler {
    fn name(&self) -> &'static str {
        each!(self, s => s.name())
    }
    fn submit_request(&mut self, req: ReqId, txns: &[TxnId], ctx: &mut SchedCtx) {
        each!(self, s => s.submit_request(req, txns, ctx))
    }
    fn choose_read(&mut self, plans: &ReadPlans, ctx: &SchedCtx) -> Option<usize> {
        each!(self, s => s.choose_read(plans, ctx))
    }
    fn submit_background(&mut self, txn: TxnId, ctx: &mut SchedCtx) {
        each!(self, s => s.submit_background(txn, ctx))
    }
    fn on_chip_room(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        each!(self, s => s.on_chip_room(chip, ctx))
    }
    fn on_txn_done(&mut self, chip: ChipId, ctx: &mut SchedCtx) {
        each!(self, s => s.on_txn_done(chip, ctx))
    }
    fn on_die_free(&mut self, die: DieId, ctx: &mut SchedCtx) {
        each!(self, s => s.on_die_free(die, ctx))
    }
    fn pick(&mut self, die: DieId, ctx: &mut SchedCtx, group: &mut Vec<TxnId>) {
        each!(self, s => s.pick(die, ctx, group))
    }
    fn held(&self) -> usize {
        each!(self, s => s.held())
    }
    fn counters(&self) -> Vec<(ssdlab_stats::Counter, u64)> {
        each!(self, s => s.counters())
    }
    fn on_direct_start(&mut self, die: DieId, op: FlashOp, ctx: &mut SchedCtx) {
        each!(self, s => s.on_direct_start(die, op, ctx))
    }
}
