//! What tables over a snapshot may hold differently from it: the LPNs an audit of a
//! run's changes checks.

use ssdlab_nand::Ppn;

use super::{Base, Mapping, PageOwner, P2L_FREE};

impl Mapping {
    /// Over frozen tables with the written regions kept ([`Mapping::over`]): every LPN
    /// whose data these tables may hold differently from the frozen ones, in order:
    /// those whose forward-map entry was written, and the owners, in the frozen tables
    /// and now, of every page whose reverse-map entry or token was written or whose
    /// block was erased. Any other LPN maps to the page the frozen tables give it, and
    /// that page holds the frozen token: these tables never wrote either. `None` over
    /// any other base, or without the record.
    pub fn changed_lpns(&self) -> Option<Vec<u32>> {
        let (Some(w), Some(Base::Tables(base))) = (&self.written, &self.base) else {
            return None;
        };
        let mut out = Vec::new();
        for range in w.l2p.ranges(self.l2p.len()) {
            // Zero reads through to the frozen entry.
            out.extend(range.filter(|&l| self.l2p[l] != 0).map(|l| l as u32));
        }
        let mut owners = |p: usize| {
            for owner in [base.owner(Ppn(p as u32)), self.owner(Ppn(p as u32))] {
                if let PageOwner::Lpn(l) = owner {
                    out.push(l.0);
                }
            }
        };
        let pages = self.p2l.len();
        for range in w.p2l.ranges(pages).chain(w.tokens.ranges(pages)) {
            for p in range {
                let changed = self.p2l[p] != P2L_FREE
                    || self.own_token(Ppn(p as u32)) != 0
                    || self.erased_since_base(Ppn(p as u32));
                if changed {
                    owners(p);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}
