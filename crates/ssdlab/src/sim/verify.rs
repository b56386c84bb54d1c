//! Verify mode: the shadow of the token last written to every logical page, and the
//! check of every host read against it. Present only with `verify = true`; the request
//! path reaches it through [`Simulation::note_written`], [`Simulation::expected`] and
//! [`Simulation::check_token`].

use super::Simulation;
use crate::error::SimError;
use ssdlab_nand::Lpn;

/// The tokens last written, by logical page (0: never written).
pub(crate) struct Verifier {
    shadow: Vec<u64>,
}

impl Verifier {
    /// A shadow of `pages` logical pages, none written.
    pub fn new(pages: u64) -> Self {
        Verifier {
            shadow: vec![0; pages as usize],
        }
    }

    /// The token last written to `lpn`.
    #[inline]
    pub fn expected(&self, lpn: Lpn) -> u64 {
        self.shadow[lpn.idx()]
    }

    /// Every written page with its token.
    pub fn written(&self) -> impl Iterator<Item = (Lpn, u64)> + '_ {
        self.shadow
            .iter()
            .enumerate()
            .filter(|&(_, &t)| t != 0)
            .map(|(l, &t)| (Lpn(l as u32), t))
    }
}

impl Simulation {
    /// Host page `lpn` now holds `token` (verify mode keeps it; otherwise nothing).
    #[inline]
    pub(in crate::sim) fn note_written(&mut self, lpn: Lpn, token: u64) {
        if let Some(v) = self.verify.as_mut() {
            v.shadow[lpn.idx()] = token;
        }
    }

    /// The token a read of `lpn` must return (verify mode; else 0).
    #[inline]
    pub(in crate::sim) fn expected(&self, lpn: Lpn) -> u64 {
        self.verify.as_ref().map_or(0, |v| v.expected(lpn))
    }

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
        let Some(mut v) = self.verify.take() else {
            return;
        };
        for lpn in 0..self.logical_pages as u32 {
            if let Some(ppn) = self.ftl.lookup(Lpn(lpn)) {
                v.shadow[lpn as usize] = self.ftl.token(ppn);
            }
        }
        self.verify = Some(v);
    }
}
