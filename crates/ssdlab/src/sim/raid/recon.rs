//! Reconstruction: the pages whose XOR is a page's content, reads served from them,
//! the RAID-1 copy choice, and the plans offered to schedulers.

use super::ReconJob;
use crate::sim::txn::{ReqId, Txn};
use crate::sim::Simulation;
use ssdlab_nand::{FlashOp, Lpn, Ppn, TxnReason};
use ssdlab_raid::RaidLevel;

/// What [`Simulation::rebuild_now_or_later`] could do for a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::sim) enum Rebuild {
    /// The reconstruction's reads are issued; it completes the page.
    Started,
    /// Not now: the stripe is settling; try again after something completes.
    Later,
    /// The stripe cannot give the page.
    Never,
}

impl Simulation {
    /// The pages whose XOR is `lpn`'s content (RAID-4/5: the rest of its stripe and the
    /// parity; RAID-1: the other copy). False when that is impossible now: the stripe's
    /// parity is in motion, a source is on a dead chip or still being programmed.
    pub(in crate::sim) fn raid_sources(&self, lpn: Lpn, out: &mut Vec<Ppn>) -> bool {
        !self.raid_stripe_busy(lpn) && self.raid_sources_ignoring_busy(lpn, out)
    }

    /// [`Simulation::raid_sources`] without the check that the stripe is quiescent.
    pub(in crate::sim) fn raid_sources_ignoring_busy(&self, lpn: Lpn, out: &mut Vec<Ppn>) -> bool {
        self.raid_sources_with(lpn, out, false)
    }

    /// True when `lpn` can be rebuilt once pages in flight have landed (its sources
    /// exist and none is on a dead chip): a degraded read may wait for it.
    pub(in crate::sim) fn raid_recoverable_later(&self, lpn: Lpn) -> bool {
        self.raid_sources_with(lpn, &mut Vec::new(), true)
    }

    fn raid_sources_with(&self, lpn: Lpn, out: &mut Vec<Ppn>, allow_in_flight: bool) -> bool {
        out.clear();
        let r = self.raid();
        let x = u64::from(lpn.0);
        if self.cr5m.as_deref().is_some_and(|c| c.is_slot(lpn)) {
            return false; // a slot is no RAID member (only its entry's page is)
        }
        let usable = |p: Ppn| (allow_in_flight || !self.ftl.is_pending(p)) && !self.on_dead_chip(p);
        let take = |l: Lpn, out: &mut Vec<Ppn>| -> bool {
            if self.is_redundant_only(l)
                || self.is_lost(l)
                || (!allow_in_flight && self.held_get(l).is_some())
            {
                return false;
            }
            match self.ftl.lookup(l) {
                Some(p) if usable(p) => {
                    out.push(p);
                    true
                }
                Some(_) => false,
                None => true, // never written: contributes nothing
            }
        };
        let ok = match r.map.level {
            RaidLevel::Raid1 if x >= r.map.host_pages => {
                // A mirror page is its primary.
                take(Lpn((x - r.map.host_pages) as u32), out) && !out.is_empty()
            }
            RaidLevel::Raid1 => {
                let primary_dead = self.ftl.lookup(lpn).is_some_and(|p| self.on_dead_chip(p));
                let other = if primary_dead || self.is_redundant_only(lpn) {
                    r.map.mirror_of(lpn).map(|(m, _)| m)
                } else {
                    Some(lpn)
                };
                other.is_some_and(|o| take(o, out)) && !out.is_empty()
            }
            // CR5M: a mirrored page is its copy (the parity covers its expired version).
            RaidLevel::Raid5 if x < r.map.host_pages && self.cr5m_has_live_copy(lpn) => {
                let slot = self.cr5m_mirror_slot_of(lpn);
                take(slot, out) && !out.is_empty()
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(r.map.layout.groups());
                let (row, group, pos) = if x >= r.map.host_pages {
                    let i = x - r.map.host_pages;
                    (i / groups, (i % groups) as u32, None)
                } else {
                    let c = r.map.layout.locate(x);
                    (c.row, c.group, Some(c.pos))
                };
                let mut ok = true;
                for q in 0..r.map.layout.group_size() {
                    if Some(q) == pos {
                        continue;
                    }
                    let l = match r.map.layout.lpn_at(row, group, q) {
                        // What the parity covers of that position.
                        Some(y) => self.cr5m_covered(Lpn(y as u32)),
                        None if pos.is_some() => {
                            // The parity is needed to rebuild a data page.
                            let plity = r.map.red_lpn(r.map.layout.parity_index(row, group));
                            if self.ftl.lookup(plity).is_none() {
                                ok = false;
                                break;
                            }
                            plity
                        }
                        None => continue,
                    };
                    if !take(l, out) {
                        ok = false;
                        break;
                    }
                }
                ok
            }
            RaidLevel::Raid0 | RaidLevel::None => false,
        };
        if !ok {
            out.clear();
        }
        ok
    }

    /// True while `lpn`'s stripe has a parity update, open buffer or held page.
    pub(in crate::sim) fn raid_stripe_busy(&self, lpn: Lpn) -> bool {
        let r = self.raid();
        if !r.map.level.has_parity() {
            return false;
        }
        let x = u64::from(lpn.0);
        let stripe = if x >= r.map.host_pages {
            x - r.map.host_pages
        } else {
            r.map.stripe_of(&r.map.layout.locate(x))
        };
        r.locks.contains_key(&stripe)
            || r.buffers.contains_key(&stripe)
            || r.parked_stripes.contains_key(&stripe)
    }

    /// The FTL LPN stored at member `member` in row `row` (data, parity or mirror).
    pub(in crate::sim) fn raid_lpn_of_member(&self, row: u64, member: u32) -> Option<Lpn> {
        let r = self.raid();
        let (group, pos) = (
            r.map.layout.group_of(member),
            r.map.layout.pos_in_group(member),
        );
        if let Some(x) = r.map.layout.lpn_at(row, group, pos) {
            return (x < r.map.host_pages).then_some(Lpn(x as u32));
        }
        match r.map.level {
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                Some(r.map.red_lpn(r.map.layout.parity_index(row, group)))
            }
            RaidLevel::Raid1 => {
                let half = r.map.layout.group_size() / 2;
                let primary = r.map.layout.lpn_at(row, group, pos.checked_sub(half)?)?;
                (primary < r.map.host_pages).then(|| r.map.red_lpn(primary))
            }
            RaidLevel::Raid0 | RaidLevel::None => None,
        }
    }

    /// Serves host read page `lpn` of request `id` from its stripe now if it can
    /// ([`Simulation::reconstruct_read`]), says whether it could later (the stripe is
    /// settling: a parity update, a buffer, pages in flight), or that it never can.
    pub(in crate::sim) fn rebuild_now_or_later(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        expect: u64,
    ) -> Rebuild {
        if self.reconstruct_read(id, lpn, expect) {
            Rebuild::Started
        } else if self.raid_stripe_busy(lpn) || self.raid_recoverable_later(lpn) {
            Rebuild::Later
        } else {
            Rebuild::Never
        }
    }

    /// Serves host read page `lpn` of request `id` by XOR of its stripe's other members.
    /// Returns false (nothing done) when the stripe cannot reconstruct it now.
    pub(in crate::sim) fn reconstruct_read(&mut self, id: ReqId, lpn: Lpn, expect: u64) -> bool {
        let mut pages: Vec<Ppn> = Vec::new();
        if !self.raid_sources(lpn, &mut pages) {
            return false;
        }
        let r = self.raid_mut();
        let job = ReconJob {
            req: id,
            lpn,
            expect,
            acc: 0,
            reads_left: pages.len() as u32,
            service_ns: 0,
        };
        let k = match r.recon_free.pop() {
            Some(k) => {
                r.recon[k] = job;
                k
            }
            None => {
                r.recon.push(job);
                r.recon.len() - 1
            }
        };
        r.counters.reconstructions += 1;
        r.counters.reconstruct_reads += pages.len() as u64;
        for &p in &pages {
            self.ftl.pin(p);
            self.raid_txn(FlashOp::Read, TxnReason::ReconstructRead, p, lpn, k as u32);
        }
        true
    }

    pub(super) fn recon_read_done(&mut self, txn: &Txn) {
        let token = self.ftl.token(txn.ppn);
        self.ftl.unpin(txn.ppn);
        self.gc_page_released(txn.ppn);
        let k = txn.aux as usize;
        let service = txn.bus_ns + txn.array_ns;
        let job = &mut self.raid_mut().recon[k];
        job.acc ^= token;
        job.reads_left -= 1;
        job.service_ns = job.service_ns.max(service);
        if job.reads_left > 0 {
            return;
        }
        let job = *job;
        self.raid_mut().recon_free.push(k);
        if self.verify.is_some() {
            self.check_token(job.lpn, job.expect, job.acc);
        }
        self.sub_done(job.req, job.service_ns, txn.gc_mark_ns);
    }
}
