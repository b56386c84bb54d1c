//! [`DramStages`]: the DRAM stage as the tenants share it (`cache.sharing`;
//! docs/DRAM.md, "Tenants").
//!
//! Without tenants it is one [`DramStage`] and nothing here runs but the forwarding
//! `match`. With tenants every LPN belongs to one of them ([`LpnOwners`], the rule the
//! cached map's share uses), and:
//!
//! - `"shared"` keeps one stage for all (the run is the same as without the key) and
//!   counts each tenant's hits, writes and waits;
//! - `"equal"` gives each tenant a stage of its own of `capacity / tenants` pages
//!   (rounded down, the remainder unused, as MQSim's `EQUAL_PARTITIONING` does in
//!   `Data_Cache_Manager_Flash_Advanced.cpp`), with its own replacement order, its
//!   watermarks (the configured fractions of its partition), its count of waiting
//!   writes and its destage planning. Each partition may have the configured number
//!   of destages in flight (MQSim gives each flow's queue the whole back-pressure
//!   depth).
//!
//! The partitions number their writes from one counter, so a sequence number means
//! the same in every partition: a power loss saves the oldest dirty pages of the whole
//! DRAM, as one stage does, and a flush's mark can be checked in any partition.

use crate::config::{CacheConfig, CacheSharing};
use crate::series::Occupancy;
use crate::stage::{split_loss, DramCounters, DramStage, PowerLoss, Victim, WriteOutcome};
use ssdlab_nand::{Lpn, LpnOwners};

/// One tenant's use of the stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TenantDramCounts {
    /// Pages it may hold: its partition (`"equal"`), or the whole stage (`"shared"`).
    pub capacity: u32,
    /// Its host read pages found in DRAM.
    pub read_hits: u64,
    /// Its host read pages not in DRAM.
    pub read_misses: u64,
    /// Its host write pages taken into DRAM.
    pub writes_absorbed: u64,
    /// Times one of its write pages found DRAM (its partition) full, on arrival or
    /// behind a waiting one; a waiting page counts again each time it tries for room
    /// and finds none.
    pub full: u64,
    /// Its write pages that waited for room and were taken, their total and longest
    /// wait, ns.
    pub waits: u64,
    /// Total wait of those, ns.
    pub wait_ns: u64,
    /// Longest wait of those, ns.
    pub wait_ns_max: u64,
    /// The most dirty pages its partition held at once (`"equal"` only).
    pub peak_dirty: Option<u64>,
}

/// The tenants' side of the stage.
#[derive(Debug)]
pub struct TenantStages {
    owners: LpnOwners,
    /// One stage (`"shared"`) or one per tenant (`"equal"`).
    parts: Vec<DramStage>,
    counts: Vec<TenantDramCounts>,
    /// The sequence number of the next write in any partition (`"equal"`).
    next_seq: u64,
    /// Dirty pages of every partition together over time (`"equal"`).
    total: Occupancy,
}

/// The DRAM stage: one [`DramStage`], or the tenants' ([`TenantStages`]).
// The stage without tenants stays inline: no indirection on its path.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum DramStages {
    /// Without tenants.
    One(DramStage),
    /// With tenants.
    Tenants(Box<TenantStages>),
}

impl DramStages {
    /// The stage of `cfg` ([`DramStage::new`]'s arguments) for tenants whose namespaces
    /// start at `namespaces` (first LPN, in tenant order; empty without tenants),
    /// shared as `cfg.sharing` says.
    ///
    /// # Panics
    /// If a partition would hold no page (the configuration is refused first).
    pub fn new(
        cfg: &CacheConfig,
        page_bytes: u32,
        group_pages: u32,
        in_flight: u32,
        reserved_bytes: u64,
        namespaces: &[u32],
    ) -> Self {
        let one = || DramStage::new(cfg, page_bytes, group_pages, in_flight, reserved_bytes);
        if namespaces.is_empty() {
            return DramStages::One(one());
        }
        let n = namespaces.len();
        let parts: Vec<DramStage> = match cfg.sharing {
            CacheSharing::Shared => vec![one()],
            CacheSharing::Equal => {
                let pages = cfg.capacity_pages(page_bytes, reserved_bytes) / n as u64;
                let pages = u32::try_from(pages).unwrap_or(u32::MAX);
                (0..n)
                    .map(|_| DramStage::with_pages(cfg, pages, group_pages, in_flight))
                    .collect()
            }
        };
        let equal = parts.len() > 1;
        let counts = TenantDramCounts {
            capacity: parts[0].capacity(),
            peak_dirty: equal.then_some(0),
            ..TenantDramCounts::default()
        };
        DramStages::Tenants(Box::new(TenantStages {
            owners: LpnOwners::new(namespaces),
            parts,
            counts: vec![counts; n],
            next_seq: 1,
            total: Occupancy::new(cfg.occupancy_points),
        }))
    }

    /// Whether each tenant has a partition of its own (`"equal"` with tenants).
    #[inline]
    pub fn partitioned(&self) -> bool {
        matches!(self, DramStages::Tenants(t) if t.parts.len() > 1)
    }

    /// The stages: one, or one per tenant.
    pub fn parts(&self) -> usize {
        match self {
            DramStages::One(_) => 1,
            DramStages::Tenants(t) => t.parts.len(),
        }
    }

    /// The partition `lpn` lives in (0 unless partitioned).
    #[inline]
    pub fn part(&self, lpn: Lpn) -> usize {
        match self {
            DramStages::One(_) => 0,
            DramStages::Tenants(t) => t.part(lpn.0),
        }
    }

    #[inline]
    fn of(&mut self, lpn: Lpn) -> &mut DramStage {
        match self {
            DramStages::One(s) => s,
            DramStages::Tenants(t) => {
                let p = t.part(lpn.0);
                &mut t.parts[p]
            }
        }
    }

    #[inline]
    fn of_ref(&self, lpn: Lpn) -> &DramStage {
        match self {
            DramStages::One(s) => s,
            DramStages::Tenants(t) => &t.parts[t.part(lpn.0)],
        }
    }

    /// [`DramStage::read`] in `lpn`'s stage, counted for its tenant.
    #[inline]
    pub fn read(&mut self, lpn: Lpn) -> Option<u64> {
        match self {
            DramStages::One(s) => s.read(lpn),
            DramStages::Tenants(t) => {
                let p = t.part(lpn.0);
                let found = t.parts[p].read(lpn);
                let c = &mut t.counts[t.owners.owner(lpn.0)];
                c.read_hits += u64::from(found.is_some());
                c.read_misses += u64::from(found.is_none());
                found
            }
        }
    }

    /// [`DramStage::holds`] in `lpn`'s stage.
    pub fn holds(&self, lpn: Lpn) -> bool {
        self.of_ref(lpn).holds(lpn)
    }

    /// [`DramStage::write`] in `lpn`'s stage, counted for its tenant.
    #[inline]
    pub fn write(&mut self, now_ns: u64, lpn: Lpn, token: u64) -> WriteOutcome {
        match self {
            DramStages::One(s) => s.write(now_ns, lpn, token),
            DramStages::Tenants(t) => t.write(now_ns, lpn, token),
        }
    }

    /// [`DramStage::queue_write`] in `lpn`'s stage, counted for its tenant.
    pub fn queue_write(&mut self, lpn: Lpn) {
        if let DramStages::Tenants(t) = self {
            t.counts[t.owners.owner(lpn.0)].full += 1;
        }
        self.of(lpn).queue_write();
    }

    /// [`DramStage::stop_waiting`] in `lpn`'s stage.
    pub fn stop_waiting(&mut self, lpn: Lpn) {
        self.of(lpn).stop_waiting();
    }

    /// A write page of `lpn` that waited `waited_ns` for room was taken: counted for its
    /// tenant.
    pub fn note_wait(&mut self, lpn: Lpn, waited_ns: u64) {
        if let DramStages::Tenants(t) = self {
            let c = &mut t.counts[t.owners.owner(lpn.0)];
            c.waits += 1;
            c.wait_ns += waited_ns;
            c.wait_ns_max = c.wait_ns_max.max(waited_ns);
        }
    }

    /// [`DramStage::peek_dirty`] in `lpn`'s stage.
    #[inline]
    pub fn peek_dirty(&self, lpn: Lpn) -> Option<u64> {
        self.of_ref(lpn).peek_dirty(lpn)
    }

    /// [`DramStage::fill`] in `lpn`'s stage.
    pub fn fill(&mut self, lpn: Lpn, token: u64) {
        self.of(lpn).fill(lpn, token);
    }

    /// [`DramStage::invalidate`] in `lpn`'s stage.
    pub fn invalidate(&mut self, lpn: Lpn) {
        self.of(lpn).invalidate(lpn);
    }

    /// [`DramStage::discard`] in `lpn`'s stage.
    pub fn discard(&mut self, lpn: Lpn) -> bool {
        self.of(lpn).discard(lpn)
    }

    /// [`DramStage::durable`] in `lpn`'s stage.
    pub fn durable(&self, lpn: Lpn, seq: u64) -> bool {
        self.of_ref(lpn).durable(lpn, seq)
    }

    /// [`DramStage::urgent`] in `lpn`'s stage.
    pub fn urgent(&mut self, lpn: Lpn) {
        self.of(lpn).urgent(lpn);
    }

    /// [`DramStage::destaged`] in `lpn`'s stage.
    pub fn destaged(&mut self, now_ns: u64, lpn: Lpn, seq: u64) -> bool {
        match self {
            DramStages::One(s) => s.destaged(now_ns, lpn, seq),
            DramStages::Tenants(t) => {
                let p = t.part(lpn.0);
                let freed = t.parts[p].destaged(now_ns, lpn, seq);
                t.note_total(now_ns);
                freed
            }
        }
    }

    /// A flush now, of partition `part` (a tenant's flush when partitioned) or of every
    /// page (`None`, and always unless partitioned): the sequence number it must see
    /// durable ([`DramStages::flushed`]).
    pub fn flush(&mut self, part: Option<usize>) -> u64 {
        match self {
            DramStages::One(s) => s.flush(),
            DramStages::Tenants(t) if t.parts.len() == 1 => t.parts[0].flush(),
            DramStages::Tenants(t) => {
                let seq = t.next_seq;
                let mut upto = 0;
                for (p, s) in t.parts.iter_mut().enumerate() {
                    if part.is_none_or(|q| q == p) {
                        s.set_next_seq(seq);
                        upto = s.flush();
                    }
                }
                upto
            }
        }
    }

    /// Whether every write up to `upto` of partition `part` (`None`: of every one) is
    /// durable.
    pub fn flushed(&self, part: Option<usize>, upto: u64) -> bool {
        match self {
            DramStages::One(s) => s.flushed(upto),
            DramStages::Tenants(t) if t.parts.len() == 1 => t.parts[0].flushed(upto),
            DramStages::Tenants(t) => t
                .parts
                .iter()
                .enumerate()
                .all(|(p, s)| part.is_some_and(|q| q != p) || s.flushed(upto)),
        }
    }

    /// [`DramStage::plan`] of partition `part`.
    pub fn plan(&mut self, part: usize, out: &mut Vec<Victim>) {
        match self {
            DramStages::One(s) => s.plan(out),
            DramStages::Tenants(t) => t.parts[part].plan(out),
        }
    }

    /// [`DramStage::power_loss`] of the whole DRAM: the PLP budget saves the oldest
    /// dirty pages of every partition together.
    pub fn power_loss(&mut self, now_ns: u64, plp_pages: u64) -> PowerLoss {
        match self {
            DramStages::One(s) => s.power_loss(now_ns, plp_pages),
            DramStages::Tenants(t) if t.parts.len() == 1 => {
                t.parts[0].power_loss(now_ns, plp_pages)
            }
            DramStages::Tenants(t) => t.power_loss(now_ns, plp_pages),
        }
    }

    /// The counters of every stage together.
    pub fn counters(&self) -> DramCounters {
        match self {
            DramStages::One(s) => s.counters(),
            DramStages::Tenants(t) => t.parts.iter().fold(DramCounters::default(), |a, s| {
                let c = s.counters();
                DramCounters {
                    read_hits: a.read_hits + c.read_hits,
                    read_misses: a.read_misses + c.read_misses,
                    write_hits: a.write_hits + c.write_hits,
                    writes_absorbed: a.writes_absorbed + c.writes_absorbed,
                    superseded: a.superseded + c.superseded,
                    destaged: a.destaged + c.destaged,
                    evicted: a.evicted + c.evicted,
                    fills: a.fills + c.fills,
                    full: a.full + c.full,
                    power_losses: a.power_losses.max(c.power_losses),
                    lost: a.lost + c.lost,
                    plp_saved: a.plp_saved + c.plp_saved,
                }
            }),
        }
    }

    /// Dirty pages (waiting or destaging) of every stage.
    pub fn dirty_pages(&self) -> u32 {
        match self {
            DramStages::One(s) => s.dirty_pages(),
            DramStages::Tenants(t) => t.dirty_pages(),
        }
    }

    /// Pages the stages may hold (with partitions their sum: the remainder of the
    /// division is unused).
    pub fn capacity(&self) -> u32 {
        match self {
            DramStages::One(s) => s.capacity(),
            DramStages::Tenants(t) => t.parts.iter().map(DramStage::capacity).sum(),
        }
    }

    /// The dirty-occupancy series of the whole DRAM, closed at `now_ns`.
    pub fn occupancy(&mut self, now_ns: u64) -> &Occupancy {
        match self {
            DramStages::One(s) => s.occupancy(now_ns),
            DramStages::Tenants(t) => {
                if t.parts.len() == 1 {
                    return t.parts[0].occupancy(now_ns);
                }
                let dirty = u64::from(t.dirty_pages());
                t.total.finish(now_ns, dirty);
                &t.total
            }
        }
    }

    /// Per tenant, its share and counts at `now_ns` (`None` without tenants).
    pub fn tenant_counts(&mut self, now_ns: u64) -> Option<Vec<TenantDramCounts>> {
        let DramStages::Tenants(t) = self else {
            return None;
        };
        if t.parts.len() > 1 {
            for (c, s) in t.counts.iter_mut().zip(t.parts.iter_mut()) {
                let peak = s.occupancy(now_ns).dirty_pages.iter().copied().max();
                c.peak_dirty = Some(peak.unwrap_or(0));
            }
        }
        Some(t.counts.clone())
    }

    /// Checks every stage ([`DramStage::check_invariants`]) and, with partitions, that
    /// each holds only its tenant's pages.
    ///
    /// # Panics
    /// On the first inconsistency.
    pub fn check_invariants(&self) {
        match self {
            DramStages::One(s) => s.check_invariants(),
            DramStages::Tenants(t) => {
                for (p, s) in t.parts.iter().enumerate() {
                    s.check_invariants();
                    if t.parts.len() > 1 {
                        assert!(
                            s.lpns().all(|l| t.owners.owner(l) == p),
                            "partition {p} holds another tenant's page"
                        );
                        assert!(s.next_seq() <= t.next_seq, "partition {p} ahead");
                    }
                }
            }
        }
    }
}

impl TenantStages {
    #[inline]
    fn part(&self, lpn: u32) -> usize {
        if self.parts.len() == 1 {
            0
        } else {
            self.owners.owner(lpn)
        }
    }

    fn dirty_pages(&self) -> u32 {
        self.parts.iter().map(DramStage::dirty_pages).sum()
    }

    fn note_total(&mut self, now_ns: u64) {
        if self.parts.len() > 1 {
            let dirty = u64::from(self.dirty_pages());
            self.total.note(now_ns, dirty);
        }
    }

    fn write(&mut self, now_ns: u64, lpn: Lpn, token: u64) -> WriteOutcome {
        let p = self.part(lpn.0);
        let equal = self.parts.len() > 1;
        let s = &mut self.parts[p];
        if equal {
            s.set_next_seq(self.next_seq);
        }
        let out = s.write(now_ns, lpn, token);
        if equal {
            self.next_seq = s.next_seq();
        }
        let c = &mut self.counts[self.owners.owner(lpn.0)];
        match out {
            WriteOutcome::Absorbed { .. } => c.writes_absorbed += 1,
            WriteOutcome::Full => c.full += 1,
        }
        self.note_total(now_ns);
        out
    }

    fn power_loss(&mut self, now_ns: u64, plp_pages: u64) -> PowerLoss {
        let mut dirty: Vec<(u64, Victim)> = Vec::new();
        for s in &mut self.parts {
            dirty.extend(s.drain(now_ns));
        }
        // One counter numbers every partition's writes: the oldest of the whole DRAM.
        dirty.sort_unstable_by_key(|&(since, _)| since);
        let loss = split_loss(dirty, plp_pages);
        for (list, saved) in [(&loss.saved, true), (&loss.lost, false)] {
            for v in list {
                let p = self.part(v.lpn.0);
                let (s, l) = if saved { (1, 0) } else { (0, 1) };
                self.parts[p].count_loss(s, l);
            }
        }
        self.note_total(now_ns);
        loss
    }
}

#[cfg(test)]
mod tests;
