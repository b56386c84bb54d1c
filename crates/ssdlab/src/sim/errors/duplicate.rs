//! An uncorrectable host read served again from a duplicate of its content (DS-FTL's
//! content index, docs/DSFTL.md): the same request's page read, re-issued at a copy on
//! another chip. The copy's read draws its own errors; if it fails too, the page is lost.

use crate::sim::txn::Txn;
use crate::sim::Simulation;
use ssdlab_nand::{FlashOp, TxnReason};

impl Simulation {
    /// Re-issues host read `txn`, whose page was uncorrectable, at the first duplicate of
    /// its content on a live chip. True when it did: the read's own transaction is done
    /// (its page released) and the new one answers for the page.
    pub(super) fn errors_read_duplicate(&mut self, txn: &Txn) -> bool {
        let mut copy = None;
        self.ftl.duplicate_copies(txn.ppn, |p| {
            if copy.is_none() && !self.dead.page_dead(&self.geom, p) {
                copy = Some(p);
            }
        });
        let Some(dup) = copy else {
            return false;
        };
        self.ftl.unpin(txn.ppn);
        self.gc_page_released(txn.ppn);
        self.ftl.pin(dup);
        let die = self.geom.die_of_page(dup);
        let mut t = self.queued_txn(
            FlashOp::Read,
            TxnReason::HostRead,
            dup,
            die,
            txn.lpn,
            txn.req,
        );
        t.expect = txn.expect;
        let e = self.errs();
        e.from_duplicate.insert((txn.req, txn.lpn.0));
        e.c.rebuilt += 1;
        e.c.from_duplicates += 1;
        // Read merging is refused with the error model, so no merge waits on the copy.
        self.submit_background_txn(t);
        true
    }
}
