//! Verify mode: the shadow of the token last written to every logical page, and the
//! check of every host read against it.

use super::Simulation;
use crate::error::SimError;
use ssdlab_nand::Lpn;

impl Simulation {
    /// Compares a read's token with the one last written; a mismatch stops the run.
    pub(in crate::sim) fn check_token(&mut self, lpn: Lpn, expected: u64, found: u64) {
        self.counters.verified_reads += 1;
        if expected != found && self.error.is_none() {
            self.error = Some(SimError::VerifyMismatch {
                lpn: lpn.0,
                expected,
                found,
                at_ns: self.now().as_ns(),
            });
        }
    }

    /// Fills the verify shadow from a preconditioned FTL.
    pub(in crate::sim) fn seed_shadow_from_ftl(&mut self) {
        for lpn in 0..self.logical_pages as u32 {
            if let Some(ppn) = self.ftl.lookup(Lpn(lpn)) {
                self.shadow[lpn as usize] = self.ftl.token(ppn);
            }
        }
    }
}
