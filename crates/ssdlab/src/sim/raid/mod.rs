//! RAID inside the SSD: placement of data and redundancy, parity updates as jobs with
//! pre-reads, reconstructing reads, and consistency checks (docs/ARCHITECTURE.md §13).
//!
//! Addressing: host LPNs come first in the FTL's map; redundancy pages follow at
//! `host_pages + redundancy index` (parity of stripe (row, group): `row × groups +
//! group`; RAID-1 mirror of host LPN x: x).
//!
//! Writes (RAID-4/5) are *stripe jobs*. A job captures, when it is created, every page
//! version it will need (pinned, so GC cannot erase them), and jobs of one stripe run
//! one at a time in creation order (the stripe lock), so the parity each job writes is
//! the XOR of the stripe's data as of that job:
//!
//! * RMW: new parity = old parity ⊕ old data ⊕ new data — reads the parity (when the job
//!   gets the lock) and the old versions of the pages written;
//! * RCW: new parity = new data ⊕ the other data pages — reads the pages not written;
//!
//! whichever needs fewer reads (the tie rule is `raid.update`). With
//! `raid.buffer_new_writes`, writes to a stripe whose pages were never written open a
//! *group buffer*: their data is programmed at once, and the parity is encoded when all
//! the stripe's data pages are in the buffer or `raid.encode_timeout_ns` after it opened
//! (full-group write: no pre-read when the rest of the stripe was never written).
//!
//! Parity tokens are computed from the tokens the pre-reads actually returned, so a
//! wrong ordering shows up as a verify mismatch on a later reconstruction.

use super::txn::{ReqId, TxnId, NONE};
use super::Simulation;
use crate::layout::RaidMap;
use rustc_hash::FxHashMap as HashMap;
use ssdlab_nand::{FlashOp, Lpn, Ppn, TxnReason};
use ssdlab_raid::{Chunk, Domain, RaidLayout, RaidLevel};
use ssdlab_stats::Counter;
use std::collections::VecDeque;

mod audit;
mod buffer;
mod early;
mod fix;
pub(in crate::sim) use fix::{fix_redundancy, NoRoom};
mod job;
mod recon;
pub(in crate::sim) use recon::Rebuild;

/// What a stripe job reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    /// Old parity and old data of the written pages.
    Rmw,
    /// The data pages not written.
    Rcw,
}

/// Page versions a stripe job needs: pages to pre-read, and the XOR of versions whose
/// content the controller still holds (writes waiting for space).
#[derive(Clone, Debug, Default)]
pub(crate) struct Captured {
    pub reads: Vec<Ppn>,
    pub known: u64,
    /// A captured page's content exists only through redundancy: this plan cannot run.
    pub lost: bool,
    /// Page versions captured (read, held or lost): zero when none of the pages exists.
    pub found: u32,
}

/// Why a stripe job exists: a host write's parity update, or a CR5M reclaim no host
/// write asked for (its reads and parity program carry the reclaim reasons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobOrigin {
    /// A host write (or a group buffer of host writes) to the stripe.
    Host,
    /// A mirror chip fell below its reclaim threshold.
    Capacity,
    /// A data plane could not collect garbage while expired pages filled it.
    Pressure,
    /// The mirror chip holding the stripe's mirror copies failed.
    MirrorLost,
}

/// What a stripe job is asked to do, besides the page versions it captured.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobPlan {
    pub stripe: u64,
    pub row: u64,
    pub group: u32,
    /// XOR of the new data's tokens (newest per position).
    pub known: u64,
    /// The stripe has a parity page.
    pub parity_mapped: bool,
    /// The request whose completion waits for the parity program, or NONE.
    pub req: ReqId,
    pub origin: JobOrigin,
}

/// One parity update of one stripe.
#[derive(Clone, Debug)]
pub(crate) struct StripeJob {
    pub stripe: u64,
    pub row: u64,
    pub group: u32,
    pub kind: JobKind,
    /// XOR of the tokens known without reading (the new data).
    pub known: u64,
    /// XOR of the tokens the pre-reads returned so far.
    pub acc: u64,
    /// Captured page versions to pre-read (pinned).
    pub reads: Vec<Ppn>,
    /// Pre-reads still in flight.
    pub reads_left: u32,
    /// The request whose completion waits for the parity program, or NONE.
    pub req: ReqId,
    /// Why the job exists.
    pub origin: JobOrigin,
    /// CR5M: the mirror entries of the stripe this job's parity covers; released when
    /// the parity is on flash.
    pub claimed: Vec<u32>,
    /// Bus + array time of the pre-read that completed last (the one the parity
    /// program waited for).
    pub pre_read_ns: u64,
}

/// An open group buffer of new writes to one stripe.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupBuffer {
    /// Positions in the group written since the buffer opened.
    pub positions: u64,
    /// XOR of the newest token of each buffered position.
    pub new_xor: u64,
    /// Newest token per buffered position (indexed by position).
    pub tokens: Vec<u64>,
    /// Versions of the buffered positions before the buffer opened (reads pinned).
    pub old: Captured,
    /// Bumped every time the buffer slot is reused, so stale timeouts are ignored.
    pub generation: u32,
    /// The stripe the buffer collects.
    pub stripe: u64,
}

/// A read served by XOR of the other members of its stripe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReconJob {
    pub req: ReqId,
    pub lpn: Lpn,
    pub expect: u64,
    pub acc: u64,
    pub reads_left: u32,
    pub service_ns: u64,
}

/// RAID state of a run.
pub(crate) struct RaidState {
    /// The layout and the chip behind each member.
    pub map: RaidMap,
    pub buffer_new_writes: bool,
    pub force_reconstruct: bool,
    pub prefer_rcw: bool,
    pub encode_timeout_ns: u64,
    /// Open group buffers by stripe.
    pub buffers: HashMap<u64, usize>,
    pub buffer_slots: Vec<GroupBuffer>,
    pub buffer_free: Vec<usize>,
    /// Parked data pages per stripe (such a stripe cannot reconstruct).
    pub parked_stripes: HashMap<u64, u32>,
    /// Stripe locks: the job running on each locked stripe.
    pub locks: HashMap<u64, usize>,
    /// Jobs waiting behind a stripe's running job (only stripes with waiters).
    pub lock_waiters: HashMap<u64, VecDeque<usize>>,
    pub jobs: Vec<StripeJob>,
    pub job_free: Vec<usize>,
    pub recon: Vec<ReconJob>,
    pub recon_free: Vec<usize>,
    pub counters: RaidCounters,
    /// Spare page lists, so that stripe jobs allocate nothing in steady state.
    pub vec_pool: Vec<Vec<Ppn>>,
}

/// Counters the report shows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RaidCounters {
    pub rmw: u64,
    pub rcw: u64,
    pub full_group: u64,
    pub pre_reads: u64,
    pub parity_writes: u64,
    pub mirror_writes: u64,
    pub reconstructions: u64,
    pub reconstruct_reads: u64,
    pub timeouts: u64,
    /// Pre-reads issued before their job held the stripe's lock (`early.rs`).
    pub early_reads: u64,
    pub mirror_reads: u64,
    pub materialized_stripes: u64,
}

impl RaidState {
    /// An empty page list from the pool.
    pub fn take_vec(&mut self) -> Vec<Ppn> {
        self.vec_pool.pop().unwrap_or_default()
    }

    /// Returns a page list to the pool.
    pub fn give_vec(&mut self, mut v: Vec<Ppn>) {
        v.clear();
        if self.vec_pool.len() < 1024 {
            self.vec_pool.push(v);
        }
    }

    /// An empty capture with a pooled page list.
    pub fn new_capture(&mut self) -> Captured {
        Captured {
            reads: self.take_vec(),
            known: 0,
            lost: false,
            found: 0,
        }
    }

    fn alloc_job(&mut self, job: StripeJob) -> usize {
        match self.job_free.pop() {
            Some(i) => {
                self.jobs[i] = job;
                i
            }
            None => {
                self.jobs.push(job);
                self.jobs.len() - 1
            }
        }
    }
}

impl Simulation {
    #[inline]
    pub(in crate::sim) fn raid(&self) -> &RaidState {
        self.raid.as_ref().expect("RAID is configured")
    }

    #[inline]
    pub(in crate::sim) fn raid_mut(&mut self) -> &mut RaidState {
        self.raid.as_mut().expect("RAID is configured")
    }
}

/// One page of a write request, on its way into a stripe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StripeWrite {
    pub stripe: u64,
    pub pos: u32,
    pub lpn: Lpn,
    pub token: u64,
    /// The page's chunk, located once at admission.
    pub chunk: Chunk,
}

impl Simulation {
    /// Builds a read or program transaction of `reason` on `ppn`, handed to the scheduler.
    /// It carries the host request that waits for it, if any (the request of a stripe
    /// job's pre-reads and parity program, the read a reconstruction serves), so that a
    /// policy can place it with that request.
    fn raid_txn(&mut self, op: FlashOp, reason: TxnReason, ppn: Ppn, lpn: Lpn, aux: u32) -> TxnId {
        let die = self.geom.die_of_page(ppn);
        let req = match reason {
            TxnReason::PreRead | TxnReason::ParityWrite => self.raid().jobs[aux as usize].req,
            TxnReason::ReconstructRead => self.raid().recon[aux as usize].req,
            _ => NONE,
        };
        let mut t = self.queued_txn(op, reason, ppn, die, lpn, req);
        t.aux = aux;
        let chip = self.geom.chip_of_die(die);
        let id = self.txns.insert(t);
        self.queues.load[chip.idx()] += 1;
        self.dgc_arrival(chip);
        sched!(self, |s, ctx| s.submit_background(id, ctx));
        id
    }

    /// A RAID transaction finished.
    pub(in crate::sim) fn raid_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        match txn.reason {
            TxnReason::PreRead | TxnReason::ReclaimRead => {
                let token = self.ftl.token(txn.ppn);
                self.ftl.unpin(txn.ppn);
                self.gc_page_released(txn.ppn);
                let j = txn.aux as usize;
                let job = &mut self.raid_mut().jobs[j];
                job.acc ^= token;
                job.reads_left -= 1;
                job.pre_read_ns = txn.bus_ns + txn.array_ns;
                if job.reads_left == 0 && self.job_running(j) {
                    self.write_parity(j);
                }
            }
            TxnReason::ParityWrite | TxnReason::ReclaimWrite => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
                self.finish_job(txn.aux as usize, txn.bus_ns + txn.array_ns, txn.gc_mark_ns);
            }
            TxnReason::MirrorWrite => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
                if !txn.acked {
                    self.sub_done(txn.req, txn.bus_ns + txn.array_ns, txn.gc_mark_ns);
                }
            }
            TxnReason::ReconstructRead => self.recon_read_done(&txn),
            r => unreachable!("{r:?} is not RAID traffic"),
        }
        self.run_gc_checks();
    }
}

impl RaidState {
    /// The RAID state for `cfg` on `geom`, the number of map entries (host pages plus
    /// redundancy pages) the FTL must hold, and the slots it holds beyond them (CR5M's
    /// mirror copies and expired versions, [`ssdlab_ftl::Ftl::with_slots`]); `None`
    /// without a RAID layer.
    ///
    /// Capacity: the FTL's logical pages of the member chips (spares and CR5M's mirror
    /// chips excluded) are laid out in whole rows of one page per member; a row carries
    /// `data_per_row` host pages. CR5M gets one mirror slot and one expired slot per page
    /// of its mirror chips.
    pub fn new(cfg: &crate::SimConfig) -> Result<Option<(RaidState, u32, u32)>, crate::SimError> {
        let rc = &cfg.raid;
        if rc.level == RaidLevel::None {
            return Ok(None);
        }
        let g = &cfg.geometry;
        let members = match rc.domain {
            Domain::Chip => g.chips() - rc.spare_chips,
            Domain::Channel => g.channels,
        };
        let data_ways = rc.data_ways(g);
        let layout = RaidLayout::new(rc, members)
            .map_err(|e| crate::SimError::config("raid", e.to_string()))?;
        let member_chips = u64::from(match rc.domain {
            Domain::Chip => g.chips() - rc.spare_chips,
            Domain::Channel => g.channels * data_ways,
        });
        let entries = u64::from(cfg.ftl.logical_pages(g)) * member_chips / u64::from(g.chips());
        let rows = entries / u64::from(members);
        let host_pages = rows * u64::from(layout.data_per_row());
        let redundancy = match rc.level {
            RaidLevel::Raid1 => host_pages,
            RaidLevel::Raid4 | RaidLevel::Raid5 => rows * u64::from(layout.groups()),
            RaidLevel::Raid0 | RaidLevel::None => 0,
        };
        if host_pages == 0 {
            return Err(crate::SimError::config(
                "raid",
                "leaves no host capacity for this geometry".into(),
            ));
        }
        let slots = if rc.mirror_chips {
            2 * u64::from(g.channels) * u64::from(g.pages() / g.chips())
        } else {
            0
        };
        if host_pages + redundancy + slots > u64::from(u32::MAX) {
            return Err(crate::SimError::config(
                "raid",
                "the device has more logical pages than a 32-bit map can hold".into(),
            ));
        }
        let state = RaidState {
            map: RaidMap {
                level: rc.level,
                domain: rc.domain,
                chip_choice: rc.chip_in_channel,
                host_pages,
                member_chip: (0..members).collect(),
                layout,
                data_ways,
                mirror: rc.mirror_chips,
                mirror_shift: rc.mirror_channel.shift(),
            },
            buffer_new_writes: rc.buffer_new_writes,
            force_reconstruct: rc.force_reconstruct_reads,
            prefer_rcw: rc.update == ssdlab_raid::UpdateRule::Rcw,
            encode_timeout_ns: rc.encode_timeout_ns,
            buffers: HashMap::default(),
            buffer_slots: Vec::new(),
            buffer_free: Vec::new(),
            parked_stripes: HashMap::default(),
            locks: HashMap::default(),
            lock_waiters: HashMap::default(),
            jobs: Vec::new(),
            job_free: Vec::new(),
            recon: Vec::new(),
            recon_free: Vec::new(),
            counters: RaidCounters::default(),
            vec_pool: Vec::new(),
        };
        Ok(Some((
            state,
            (host_pages + redundancy) as u32,
            slots as u32,
        )))
    }
}

impl Simulation {
    /// RAID counters for the report.
    pub(in crate::sim) fn raid_counters(&self) -> Vec<(Counter, u64)> {
        let Some(r) = self.raid.as_ref() else {
            return Vec::new();
        };
        let c = r.counters;
        vec![
            (Counter::RaidRmw, c.rmw),
            (Counter::RaidRcw, c.rcw),
            (Counter::RaidFullGroup, c.full_group),
            (Counter::RaidPreReads, c.pre_reads),
            (Counter::RaidEarlyPreReads, c.early_reads),
            (Counter::RaidParityWrites, c.parity_writes),
            (Counter::RaidGroupTimeouts, c.timeouts),
            (Counter::MirrorWrites, c.mirror_writes),
            (Counter::RaidMirrorReads, c.mirror_reads),
            (Counter::RaidReconstructions, c.reconstructions),
            (Counter::RaidReconstructReads, c.reconstruct_reads),
            (Counter::RaidMaterializedStripes, c.materialized_stripes),
        ]
    }
}

#[cfg(test)]
mod tests;
