//! The scheduler's suspend decision (`scheduler.suspend`, docs/NAND.md): which read
//! queued for a die busy with a program or erase is served by suspending it.
//!
//! The read is the first one for the die in its chip's queue that the policy allows, does
//! not read a page the suspended operation is writing, and does not overtake a queued
//! program of its own page. The device side (whether the operation can be suspended,
//! the limit per operation) is the back end's.

use super::Queues;
use crate::sim::txn::TxnSlab;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::{DieId, FlashOp, Ppn, TxnReason};

/// Which reads may suspend a program or erase of their die.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SuspendPolicy {
    /// None: a read waits for the operation to finish (the model without suspend).
    #[default]
    Off,
    /// Host reads of their own page.
    HostReads,
    /// Every read: host, GC, RAID and rebuild reads.
    Reads,
}

impl SuspendPolicy {
    /// The default, left out of the resolved configuration (and so of its hash).
    #[inline]
    pub fn is_off(&self) -> bool {
        *self == SuspendPolicy::Off
    }

    /// True unless `"off"`.
    #[inline]
    pub fn is_on(self) -> bool {
        self != SuspendPolicy::Off
    }

    /// The configuration name.
    pub fn name(self) -> &'static str {
        match self {
            SuspendPolicy::Off => "off",
            SuspendPolicy::HostReads => "host-reads",
            SuspendPolicy::Reads => "reads",
        }
    }

    fn allows(self, reason: TxnReason) -> bool {
        match self {
            SuspendPolicy::Off => false,
            SuspendPolicy::HostReads => reason == TxnReason::HostRead,
            SuspendPolicy::Reads => true,
        }
    }

    /// A read this policy suspends for is queued for `die` (whether or not a suspension
    /// is possible now): what a refused suspension counts.
    pub(crate) fn wants_read(self, queues: &Queues, txns: &TxnSlab, die: DieId) -> bool {
        if queues.queued_ops_for_die(die).0 == 0 {
            return false;
        }
        let q = &queues.chip[queues.home(die).0.idx()];
        q.iter().any(|&t| {
            let t = &txns[t];
            t.die == die && t.op == FlashOp::Read && self.allows(t.reason)
        })
    }

    /// Removes from the chip queue and returns the read `die` serves by suspending its
    /// operation, if any; `busy(ppn)` is true for the pages that operation writes.
    pub(crate) fn take_read(
        self,
        queues: &mut Queues,
        txns: &TxnSlab,
        die: DieId,
        busy: impl Fn(Ppn) -> bool,
    ) -> Option<u32> {
        if queues.queued_ops_for_die(die).0 == 0 {
            return None;
        }
        let chip = queues.home(die).0;
        let q = &queues.chip[chip.idx()];
        let pos = (0..q.len()).find(|&i| {
            let t = &txns[q[i]];
            t.die == die
                && t.op == FlashOp::Read
                && self.allows(t.reason)
                && !busy(t.ppn)
                && !q
                    .range(..i)
                    .any(|&p| txns[p].op == FlashOp::Program && txns[p].ppn == t.ppn)
        })?;
        queues.remove(chip, pos, txns)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{geometry, Bench};
    use super::*;
    use crate::sim::txn::NONE;

    #[test]
    fn the_first_allowed_read_of_the_die_is_taken() {
        let mut b = Bench::new(geometry(1, 1, 2, 1), 16);
        let spec = [
            (FlashOp::Read, TxnReason::GcRead, 0, 1),
            (FlashOp::Read, TxnReason::HostRead, 1, 2),
            (FlashOp::Program, TxnReason::HostWrite, 0, 3),
            (FlashOp::Read, TxnReason::HostRead, 0, 3),
            (FlashOp::Read, TxnReason::HostRead, 0, 4),
            (FlashOp::Read, TxnReason::HostRead, 0, 5),
        ];
        let ids: Vec<u32> = spec
            .iter()
            .map(|&(op, reason, die, page)| b.txn_at(op, reason, DieId(die), 0, page, NONE, 0))
            .collect();
        for &t in &ids {
            b.ctx().push(t);
        }
        let die = DieId(0);
        let busy_page = b.txns[ids[4]].ppn;
        let busy = |p: Ppn| p == busy_page;
        let off = SuspendPolicy::Off.take_read(&mut b.queues, &b.txns, die, busy);
        assert_eq!(off, None);
        // Host reads only: not the GC read, not die 1's, not the read behind the
        // program of its page, not the page being programmed.
        assert!(SuspendPolicy::HostReads.wants_read(&b.queues, &b.txns, die));
        assert!(!SuspendPolicy::Off.wants_read(&b.queues, &b.txns, die));
        let host = SuspendPolicy::HostReads.take_read(&mut b.queues, &b.txns, die, busy);
        assert_eq!(host, Some(ids[5]));
        let any = SuspendPolicy::Reads.take_read(&mut b.queues, &b.txns, die, busy);
        assert_eq!(any, Some(ids[0]));
        assert_eq!(b.queue(0), vec![ids[1], ids[2], ids[3], ids[4]]);
        assert_eq!(b.queues.queued_for_die(die), 3);
    }

    #[test]
    fn a_host_read_policy_does_not_want_a_gc_read() {
        let mut b = Bench::new(geometry(1, 1, 1, 1), 4);
        let t = b.txn_at(FlashOp::Read, TxnReason::FoldRead, DieId(0), 0, 0, NONE, 0);
        b.ctx().push(t);
        assert!(!SuspendPolicy::HostReads.wants_read(&b.queues, &b.txns, DieId(0)));
        assert!(SuspendPolicy::Reads.wants_read(&b.queues, &b.txns, DieId(0)));
    }

    #[test]
    fn a_die_with_no_queued_read_gives_none() {
        let mut b = Bench::new(geometry(1, 1, 1, 1), 4);
        let t = b.txn_at(
            FlashOp::Program,
            TxnReason::HostWrite,
            DieId(0),
            0,
            0,
            NONE,
            0,
        );
        b.ctx().push(t);
        let got = SuspendPolicy::Reads.take_read(&mut b.queues, &b.txns, DieId(0), |_| false);
        assert_eq!(got, None);
        assert!(!SuspendPolicy::Reads.wants_read(&b.queues, &b.txns, DieId(0)));
        assert_eq!(b.queue(0), vec![t]);
    }
}
