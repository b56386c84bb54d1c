//! The cached map (`ftl.mapping = "cached"`, docs/FTL.md §12): DFTL-style translation
//! traffic as real flash work.
//!
//! ```text
//!  host read of lpn ─► CMT hit ─────────────────────────────► the read as with the ideal map
//!                  └─► miss ─► translation page on flash? ─ no (never written) ─► insert, read
//!                                  │ being rewritten (in the controller) ──────► insert, read
//!                                  └ yes ─► map read (TxnReason::MapRead), the page waits;
//!                                           when done: insert its entries, then the reads
//!  host write / GC move / materialized page of lpn ─► entry inserted dirty
//!  insert into a full CMT evicts the LRU entry; a dirty one takes every dirty entry of its
//!  translation page (one batch) ─► map read of the page first unless wholly cached
//!  (read-modify-write) ─► program of the page's new version (TxnReason::MapWrite) in the
//!  plane's translation-page frontier
//! ```
//!
//! The FTL's forward map stays the truth of where data lives; the CMT decides what
//! flash traffic an access costs. Translation page `t` is the FTL slot LPN
//! `logical_pages + t`, so the slots' forward map is the global translation directory
//! and GC moves translation pages like any page. Each program of a translation page
//! stores the token of its version (`token_for(slot, version)`); verify mode checks map
//! reads against it and the audit checks every translation page, and (with a shadow of
//! what each translation page last recorded per LPN) that every LPN not dirty in the
//! CMT maps where its translation page says.

#[cfg(test)]
mod cr5m_tests;
#[cfg(test)]
mod group_tests;
mod groups;
mod raid;
pub(crate) use groups::GroupMap;
#[cfg(test)]
mod raid_tests;
mod report;
mod resume;
#[cfg(test)]
mod sector_tests;
mod share;

use super::host::ReadOutcome;
use super::txn::{ReqId, Txn, TxnId, NONE};
use super::Simulation;
use crate::error::SimError;
use rustc_hash::{FxHashMap, FxHashSet};
use ssdlab_ftl::{token_for, CmtSharing, CmtTable, DirtyBatch, Lookup};
use ssdlab_nand::{FlashOp, Lpn, PlaneId, Ppn, TxnReason};
use ssdlab_stats::HitMissLatency;

/// `Txn::aux` bit of a map read made before a rewrite (read-modify-write).
const RMW: u32 = 1 << 31;

/// A host read page waiting for its translation page.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    req: ReqId,
    lpn: Lpn,
    token: Option<u64>,
    /// The entry it waits for: `lpn`'s, or its group's record (groups.rs).
    key: u32,
}

/// The cached map's state in the controller.
pub(crate) struct CmtState {
    pub cmt: CmtTable,
    /// The slot LPN of translation page 0 (after the host's logical pages and, with
    /// RAID, its redundancy pages).
    slot0: u32,
    /// Per translation page: its version (programs so far).
    version: Vec<u32>,
    /// Translation pages being read for read misses: the reads waiting.
    reading: FxHashMap<u32, Vec<Waiter>>,
    /// Translation pages whose rewrite waits for its read-modify-write read.
    rmw: FxHashSet<u32>,
    /// Translation pages whose program found no free page: written after the next erase.
    parked: Vec<u32>,
    /// Host reads that missed for at least one page.
    missed: FxHashSet<ReqId>,
    next_plane: u32,
    latency: HitMissLatency,
    /// Verify mode: per key, what its translation page's flash copy records
    /// ([`groups::record`]), as of the last batch that carried it.
    shadow: Option<Vec<u64>>,
    /// DS-FTL's group records, when the map charges them (groups.rs).
    pub(crate) groups: Option<Box<groups::GroupMap>>,
    lookups: u64,
    hits: u64,
    miss_reads: u64,
    writeback_reads: u64,
    writes: u64,
    written_entries: u64,
    tpages_moved: u64,
}

impl CmtState {
    /// A CMT of `capacity` entries over `logical_pages` host pages, whose translation
    /// pages are the FTL slots from `slot0` on, shared by the tenants whose namespaces
    /// start at `namespaces` (none without tenants) as `sharing` says.
    pub fn new(
        capacity: u32,
        per_tpage: u32,
        logical_pages: u32,
        slot0: u32,
        verify: bool,
        (namespaces, sharing): (&[u32], CmtSharing),
        groups: Option<groups::GroupMap>,
    ) -> Self {
        let mut cmt = CmtTable::new(capacity, per_tpage, logical_pages, namespaces, sharing);
        let space = groups.as_ref().map_or(0, |g| g.space());
        if let Some((n, per, cost)) = groups.as_ref().map(groups::GroupMap::shape) {
            cmt.enable_groups(n, per, cost);
        }
        let tpages = cmt.tpages();
        CmtState {
            cmt,
            slot0,
            version: vec![0; tpages as usize],
            reading: FxHashMap::default(),
            rmw: FxHashSet::default(),
            parked: Vec::new(),
            missed: FxHashSet::default(),
            next_plane: 0,
            latency: HitMissLatency::default(),
            shadow: verify.then(|| vec![0; (logical_pages + space) as usize]),
            groups: groups.map(Box::new),
            lookups: 0,
            hits: 0,
            miss_reads: 0,
            writeback_reads: 0,
            writes: 0,
            written_entries: 0,
            tpages_moved: 0,
        }
    }

    fn slot(&self, tpage: u32) -> Lpn {
        Lpn(self.slot0 + tpage)
    }
}

impl Simulation {
    /// The CMT part of a host read of `lpn`: `None` when the read goes on now (a hit, or
    /// a miss whose entry needs no flash read), `Some(Deferred)` when it waits for its
    /// translation page.
    #[inline(never)]
    pub(in crate::sim) fn cmt_read(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        token: Option<u64>,
    ) -> Option<ReadOutcome> {
        if self.held_get(lpn).is_some() {
            // Served from the controller's copy: no map access.
            return None;
        }
        let c = self.cmt.as_mut().expect("cached map");
        c.lookups += 1;
        let tpage = match c.cmt.lookup(lpn.0) {
            Lookup::Hit => {
                c.hits += 1;
                c.cmt.note(lpn.0, true);
                return self
                    .cmt_group_wait(id, lpn, token)
                    .then_some(ReadOutcome::Deferred);
            }
            Lookup::Miss { tpage } => tpage,
        };
        c.cmt.note(lpn.0, false);
        c.missed.insert(id);
        if let Some(w) = c.reading.get_mut(&tpage) {
            w.push(Waiter {
                req: id,
                lpn,
                token,
                key: lpn.0,
            });
            return Some(ReadOutcome::Deferred);
        }
        let slot = c.slot(tpage);
        let in_controller = c.rmw.contains(&tpage);
        let on_flash = self.ftl.lookup(slot).filter(|&p| self.tpage_readable(p));
        match on_flash {
            Some(ppn) if !in_controller => {
                let c = self.cmt.as_mut().expect("cached map");
                c.miss_reads += 1;
                c.reading.insert(
                    tpage,
                    vec![Waiter {
                        req: id,
                        lpn,
                        token,
                        key: lpn.0,
                    }],
                );
                self.map_read(ppn, tpage);
                Some(ReadOutcome::Deferred)
            }
            _ => {
                // Never written (the entry is known unmapped), or its newest version is
                // in the controller (being rewritten): no flash read.
                self.cmt_insert(lpn, false);
                self.cmt_group_wait(id, lpn, token)
                    .then_some(ReadOutcome::Deferred)
            }
        }
    }

    /// Issues a map read of translation page `tpage` at `ppn` (`aux`: the page, with
    /// [`RMW`] for a read before a rewrite).
    fn map_read(&mut self, ppn: Ppn, aux: u32) {
        let c = self.cmt.as_ref().expect("cached map");
        let tpage = aux & !RMW;
        let slot = c.slot(tpage);
        let expect = token_for(slot, c.version[tpage as usize]);
        self.ftl.pin(ppn);
        let die = self.geom.die_of_page(ppn);
        let mut t = Txn::new(FlashOp::Read, TxnReason::MapRead, ppn, die, slot, NONE);
        t.aux = aux;
        t.expect = expect;
        self.submit_background_txn(t);
    }

    /// `lpn`'s forward-map entry changed (a host write, a GC move, a materialized page):
    /// its CMT entry is now dirty.
    #[inline(never)]
    pub(in crate::sim) fn cmt_mapped(&mut self, lpn: Lpn, counted: bool) {
        let c = self.cmt.as_mut().expect("cached map");
        if counted {
            c.lookups += 1;
            let hit = c.cmt.contains(lpn.0);
            c.hits += u64::from(hit);
            c.cmt.note(lpn.0, hit);
        }
        self.cmt_insert(lpn, true);
        if self.cmt.as_ref().expect("cached map").groups.is_some() {
            self.cmt_group_events();
        }
    }

    /// Caches `lpn`'s entry; a dirty entry evicted starts its translation page's rewrite.
    fn cmt_insert(&mut self, lpn: Lpn, dirty: bool) {
        let c = self.cmt.as_mut().expect("cached map");
        if let Some(batch) = c.cmt.insert(lpn.0, dirty) {
            self.writeback(batch);
        }
    }

    /// Rewrites the translation page of `batch`: the batch's entries are recorded (in
    /// the controller from now on), then the old version is read unless every entry is
    /// cached or a rewrite already waits for its read, then the page is programmed.
    fn writeback(&mut self, batch: DirtyBatch) {
        let tpage = batch.tpage;
        let c = self.cmt.as_mut().expect("cached map");
        c.written_entries += u64::from(batch.entries);
        if let Some(shadow) = c.shadow.as_mut() {
            // The batch's entries take their current values in the page.
            for &l in c.cmt.last_batch() {
                shadow[l as usize] = groups::record(&self.ftl, c.groups.as_deref(), l);
            }
        }
        if let Some(g) = c.groups.as_mut() {
            g.count_written(c.cmt.last_batch());
        }
        let c = self.cmt.as_mut().expect("cached map");
        if c.rmw.contains(&tpage) {
            // Joins the rewrite waiting for its read.
            return;
        }
        let slot = c.slot(tpage);
        let old = self.ftl.lookup(slot).filter(|&p| self.tpage_readable(p));
        match old {
            Some(ppn) if !batch.all_cached => {
                let c = self.cmt.as_mut().expect("cached map");
                c.rmw.insert(tpage);
                c.writeback_reads += 1;
                self.map_read(ppn, tpage | RMW);
            }
            _ => self.map_program(tpage),
        }
    }

    /// Programs the next version of translation page `tpage` in the next plane with
    /// room; parked until an erase when none has.
    fn map_program(&mut self, tpage: u32) {
        let planes = self.geom.planes();
        let c = self.cmt.as_mut().expect("cached map");
        let slot = c.slot(tpage);
        let version = c.version[tpage as usize] + 1;
        let token = token_for(slot, version);
        let start = c.next_plane;
        for k in 0..planes {
            let plane = PlaneId((start + k) % planes);
            if !self.tpage_plane_ok(plane) {
                continue;
            }
            if let Ok(ppn) = self.ftl.map_write(slot, plane, token) {
                let c = self.cmt.as_mut().expect("cached map");
                c.next_plane = (plane.0 + 1) % planes;
                c.version[tpage as usize] = version;
                c.writes += 1;
                let die = self.geom.die_of_page(ppn);
                let mut t = Txn::new(FlashOp::Program, TxnReason::MapWrite, ppn, die, slot, NONE);
                t.aux = tpage;
                self.submit_background_txn(t);
                self.gc_check_after(plane, super::gc_trigger::GcCause::Other);
                return;
            }
        }
        self.cmt.as_mut().expect("cached map").parked.push(tpage);
    }

    /// A GC or fold move of `lpn`'s page finished. A data page's entry changed, so its
    /// CMT entry turns dirty; a translation page's move already updated the directory
    /// (the slot's forward map) and is only counted; a RAID redundancy page (parity or
    /// mirror copy) is found through the stripe table, not the CMT, and costs nothing.
    #[inline(never)]
    pub(in crate::sim) fn cmt_after_move(&mut self, lpn: Lpn) {
        if u64::from(lpn.0) < self.logical_pages {
            if !self.cmt_group_moved(lpn) {
                self.cmt_mapped(lpn, false);
            }
        } else if lpn.0 >= self.cmt.as_ref().expect("cached map").slot0 {
            self.cmt_tpage_moved();
        }
    }

    /// GC moved a translation page (the directory followed it).
    pub(in crate::sim) fn cmt_tpage_moved(&mut self) {
        self.cmt.as_mut().expect("cached map").tpages_moved += 1;
    }

    /// An erase freed space: parked translation-page programs try again.
    #[inline(never)]
    pub(in crate::sim) fn cmt_unpark(&mut self) {
        let c = self.cmt.as_mut().expect("cached map");
        if c.parked.is_empty() {
            return;
        }
        let parked = std::mem::take(&mut c.parked);
        for tpage in parked {
            self.map_program(tpage);
        }
    }

    /// A map read or program finished.
    #[inline(never)]
    pub(in crate::sim) fn cmt_txn_done(&mut self, t: TxnId) {
        let txn = self.txns[t];
        match txn.op {
            FlashOp::Program => {
                self.ftl.program_done(txn.ppn);
                self.gc_page_released(txn.ppn);
            }
            _ => {
                let found = self.ftl.token(txn.ppn);
                if self.verify.is_some() && found != txn.expect && self.error.is_none() {
                    self.error = Some(SimError::MapMismatch {
                        what: "translation page",
                        index: txn.lpn.0,
                        expected: txn.expect,
                        found,
                        at_ns: self.now().as_ns(),
                    });
                }
                self.ftl.unpin(txn.ppn);
                self.gc_page_released(txn.ppn);
                let tpage = txn.aux & !RMW;
                if txn.aux & RMW != 0 {
                    self.cmt.as_mut().expect("cached map").rmw.remove(&tpage);
                    self.map_program(tpage);
                } else {
                    self.map_read_done(tpage);
                }
            }
        }
        self.settle_placement();
        self.run_gc_checks();
    }

    /// A request finished: a read's response time joins the hit or the miss
    /// distribution.
    #[inline(never)]
    pub(in crate::sim) fn cmt_request_done(&mut self, id: ReqId, read: bool, ns: u64) {
        let c = self.cmt.as_mut().expect("cached map");
        let missed = c.missed.remove(&id);
        if read {
            c.latency.record(missed, ns);
        }
    }

    /// Before the run: every translation page covering a mapped LPN (preconditioning,
    /// warm-up) is written in zero time, so that the map is on flash as it would be.
    pub(in crate::sim) fn cmt_write_directory(&mut self) -> Result<(), SimError> {
        self.cmt_groups_settled();
        let tpages = self.cmt.as_ref().expect("cached map").cmt.tpages();
        for tpage in 0..tpages {
            let c = self.cmt.as_ref().expect("cached map");
            let lpns = c.cmt.lpns_of(tpage);
            let gm = c.groups.as_deref();
            if !lpns.clone().any(|l| groups::record(&self.ftl, gm, l) != 0) {
                continue;
            }
            if c.shadow.is_some() {
                let vals: Vec<u64> = lpns
                    .clone()
                    .map(|l| groups::record(&self.ftl, gm, l))
                    .collect();
                let c = self.cmt.as_mut().expect("cached map");
                let shadow = c.shadow.as_mut().expect("verify");
                for (l, v) in lpns.zip(vals) {
                    shadow[l as usize] = v;
                }
            }
            let planes = self.geom.planes();
            let c = self.cmt.as_mut().expect("cached map");
            let slot = c.slot(tpage);
            c.version[tpage as usize] = 1;
            let token = token_for(slot, 1);
            let start = c.next_plane;
            let mut done = false;
            for k in 0..planes {
                let plane = PlaneId((start + k) % planes);
                if !self.tpage_plane_ok(plane) {
                    continue;
                }
                if let Ok(ppn) = self.ftl.map_write(slot, plane, token) {
                    self.ftl.program_done(ppn);
                    if self.nand.is_some() {
                        self.nand_phantom(ppn);
                    }
                    self.cmt.as_mut().expect("cached map").next_plane = (plane.0 + 1) % planes;
                    self.gc_check_after(plane, super::gc_trigger::GcCause::Other);
                    done = true;
                    break;
                }
            }
            if !done {
                return Err(SimError::config(
                    "ftl.mapping",
                    "no room for the translation pages of the preconditioned map: raise ftl.over_provisioning".into(),
                ));
            }
        }
        self.run_gc_checks();
        Ok(())
    }

    /// Verify mode's audit of the cached map: every translation page holds the token of
    /// its newest version, and every LPN whose entry is not dirty in the CMT maps where
    /// its translation page records.
    pub(in crate::sim) fn cmt_audit(&self) -> Result<(), SimError> {
        let Some(c) = self.cmt.as_ref() else {
            return Ok(());
        };
        for tpage in 0..c.cmt.tpages() {
            let slot = c.slot(tpage);
            let v = c.version[tpage as usize];
            match self.ftl.lookup(slot) {
                Some(p) => {
                    let found = self.ftl.token(p);
                    let expected = token_for(slot, v);
                    if found != expected {
                        return Err(SimError::MapMismatch {
                            what: "translation page",
                            index: slot.0,
                            expected,
                            found,
                            at_ns: self.now().as_ns(),
                        });
                    }
                }
                None if v > 0 => {
                    return Err(SimError::MapMismatch {
                        what: "translation page",
                        index: slot.0,
                        expected: token_for(slot, v),
                        found: 0,
                        at_ns: self.now().as_ns(),
                    });
                }
                None => {}
            }
        }
        let Some(shadow) = c.shadow.as_ref() else {
            return Ok(());
        };
        for (l, &recorded) in shadow.iter().enumerate() {
            let l = l as u32;
            if c.cmt.is_dirty(l) {
                continue;
            }
            let now = groups::record(&self.ftl, c.groups.as_deref(), l);
            if now != recorded {
                let lpn = u64::from(l) < self.logical_pages;
                return Err(SimError::MapMismatch {
                    what: if lpn { "entry of LPN" } else { "group record" },
                    index: if lpn {
                        l
                    } else {
                        l - self.logical_pages as u32
                    },
                    expected: now,
                    found: recorded,
                    at_ns: self.now().as_ns(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ConfigBuilder;
    use crate::{SimConfig, Simulation, VecStream};
    use proptest::prelude::*;
    use ssdlab_nand::TxnReason;
    use ssdlab_stats::{MappingReport, Report};
    use ssdlab_trace::{IoRequest, Op};

    /// A verified small device (8 planes × 32 blocks × 16 pages), preconditioned full
    /// when `pre`, with a cached map of `entries` entries and 16 entries per
    /// translation page.
    pub(super) fn config(entries: u32, pre: bool, sets: &[&str]) -> SimConfig {
        let text = format!(
            "verify = true\n[geometry]\nchannels = 2\nchips_per_channel = 2\n\
             dies_per_chip = 1\nplanes_per_die = 2\nblocks_per_plane = 32\n\
             pages_per_block = 16\n[ftl]\nover_provisioning = 0.25\nmapping = \"cached\"\n\
             [ftl.cmt]\nentries = {entries}\nentries_per_tpage = 16\n\
             [ftl.precondition]\nenabled = {pre}\noverwrite_ratio = 0.0\n"
        );
        let mut b = ConfigBuilder::new().text(&text, "small").unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap()
    }

    pub(super) fn one_page(ops: &[(Op, u32)], gap_ns: u64) -> Vec<IoRequest> {
        ops.iter()
            .enumerate()
            .map(|(i, &(op, l))| IoRequest {
                arrival_ns: i as u64 * gap_ns,
                op,
                fua: false,
                offset_bytes: u64::from(l) * 4096,
                size_bytes: 4096,
                content: None,
                stream: None,
            })
            .collect()
    }

    /// Runs to the end, audits (host data, translation pages, the map against them) and
    /// returns the report.
    pub(super) fn run(cfg: SimConfig, reqs: Vec<IoRequest>) -> Report {
        let mut sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "-").unwrap();
        sim.run_to_end().unwrap();
        sim.audit().unwrap();
        sim.cmt.as_ref().unwrap().cmt.check();
        sim.into_report().unwrap()
    }

    /// A map change that bypasses the table fails the audit, naming the entry; a
    /// translation page that lost its newest version fails it naming the page.
    #[test]
    fn the_audit_names_an_entry_changed_behind_the_table_and_a_stale_translation_page() {
        use crate::SimError;
        use ssdlab_nand::Lpn;
        let reqs = one_page(&[(Op::Read, 5), (Op::Read, 5)], 100_000);
        let mut sim =
            Simulation::new(config(64, true, &[]), Box::new(VecStream::new(reqs)), "-").unwrap();
        sim.run_to_end().unwrap();
        sim.cmt_audit().unwrap();
        let was = sim.ftl.lookup(Lpn(5)).unwrap();
        assert!(sim.ftl.trim(Lpn(5)));
        match sim.cmt_audit() {
            Err(SimError::MapMismatch {
                what: "entry of LPN",
                index: 5,
                expected: 0,
                found,
                ..
            }) => assert_eq!(found, u64::from(was.0) + 1),
            other => panic!("{other:?}"),
        }
        // A translation page whose version is ahead of what flash holds.
        let c = sim.cmt.as_mut().unwrap();
        c.version[0] += 1;
        let slot = c.slot(0).0;
        match sim.cmt_audit() {
            Err(SimError::MapMismatch {
                what: "translation page",
                index,
                ..
            }) => assert_eq!(index, slot),
            other => panic!("{other:?}"),
        }
    }

    pub(super) fn count(r: &Report, reason: TxnReason) -> u64 {
        r.reason(reason).map_or(0, |s| s.count)
    }

    pub(super) fn mapping(r: &Report) -> MappingReport {
        r.mapping.expect("a mapping section with the cached map")
    }

    #[test]
    fn a_miss_reads_its_translation_page_before_the_data() {
        // LPN 5 misses (its page read first), then hits; LPN 6 of the same page misses
        // again (a miss loads its own entry only).
        let ops = [(Op::Read, 5), (Op::Read, 5), (Op::Read, 6)];
        let r = run(config(64, true, &[]), one_page(&ops, 1_000_000));
        let m = mapping(&r);
        assert_eq!((m.lookups, m.hits), (3, 1));
        assert_eq!(m.miss_reads, 2);
        assert_eq!(count(&r, TxnReason::MapRead), 2);
        assert_eq!(count(&r, TxnReason::HostRead), 3);
        assert_eq!(count(&r, TxnReason::MapWrite), 0, "nothing dirty");
        assert_eq!((m.read_miss.count, m.read_hit.count), (2, 1));
        // A miss waits for two reads in a row, a hit for one.
        assert!(
            m.read_miss.min_ns > m.read_hit.max_ns * 3 / 2,
            "miss {:?} hit {:?}",
            m.read_miss,
            m.read_hit
        );
        assert_eq!(r.counter(ssdlab_stats::Counter::VerifiedReads), 3);
    }

    #[test]
    fn the_ideal_map_has_no_mapping_section_and_no_translation_traffic() {
        let mut cfg = config(64, true, &[]);
        cfg.ftl.mapping = ssdlab_ftl::MapMode::Ideal;
        cfg.ftl.cmt = ssdlab_ftl::CmtConfig::default();
        let r = run_ideal(cfg);
        assert!(r.mapping.is_none());
        assert_eq!(count(&r, TxnReason::MapRead), 0);
    }

    fn run_ideal(cfg: SimConfig) -> Report {
        let ops = [(Op::Read, 5), (Op::Write, 5)];
        let sim = Simulation::new(
            cfg,
            Box::new(VecStream::new(one_page(&ops, 1_000_000))),
            "-",
        )
        .unwrap();
        assert!(sim.cmt.is_none());
        sim.run().unwrap()
    }

    #[test]
    fn a_dirty_eviction_rewrites_its_page_once_for_all_its_dirty_entries() {
        // Four writes to translation page 0 (LPNs 0..4), then reads of eight other pages
        // push them out of an 8-entry CMT: one read-modify-write of page 0 carries all
        // four; the other evictions are clean.
        let mut ops: Vec<(Op, u32)> = (0..4).map(|l| (Op::Write, l)).collect();
        ops.extend((1..=8).map(|k| (Op::Read, 16 * k + 3)));
        let r = run(config(8, true, &[]), one_page(&ops, 1_000_000));
        let m = mapping(&r);
        assert_eq!(m.translation_writes, 1);
        assert_eq!(m.written_entries, 4);
        assert_eq!(m.writeback_reads, 1, "page 0 was not wholly cached");
        assert_eq!(count(&r, TxnReason::MapWrite), 1);
        assert_eq!(count(&r, TxnReason::MapRead), 8 + 1);
        assert!(m.mapping_write_amplification > 0.24 && m.mapping_write_amplification < 0.26);
    }

    #[test]
    fn a_page_never_written_is_written_without_a_read() {
        // No preconditioning: nothing on flash yet, so no page is read at all; the four
        // dirty entries of page 0 leave in one batch, the clean evictions write nothing.
        let mut ops: Vec<(Op, u32)> = (0..4).map(|l| (Op::Write, l)).collect();
        ops.extend((1..=8).map(|k| (Op::Write, 16 * k)));
        let r = run(config(8, false, &[]), one_page(&ops, 1_000_000));
        let m = mapping(&r);
        assert_eq!(m.writeback_reads, 0);
        assert_eq!(m.miss_reads, 0);
        assert_eq!(m.translation_writes, 1);
        assert_eq!(m.written_entries, 4);
    }

    /// Random one-page writes (and a quarter reads) over the whole small device.
    pub(super) fn churn(n: u32, seed: u64) -> Vec<IoRequest> {
        let mut x = seed | 1;
        let ops: Vec<(Op, u32)> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let op = if x.is_multiple_of(4) {
                    Op::Read
                } else {
                    Op::Write
                };
                (op, ((x >> 8) % 3000) as u32)
            })
            .collect();
        one_page(&ops, 20_000)
    }

    #[test]
    fn gc_of_translation_blocks_keeps_the_map_consistent() {
        // An 8-entry CMT under random writes on a full device: nearly every write
        // evicts a dirty entry, so translation pages are rewritten all the time, their
        // blocks fill with stale versions and GC collects them.
        let r = run(config(8, true, &[]), churn(12_000, 7));
        let m = mapping(&r);
        assert!(m.translation_writes > 5_000, "{m:?}");
        assert!(m.translation_pages_moved > 0, "{m:?}");
        assert!(r.erases > 0);
        assert!(r.counter(ssdlab_stats::Counter::VerifiedReads) > 1_000);
    }

    #[test]
    fn bad_configurations_are_refused_naming_the_key() {
        let key = |sets: &[&str]| {
            let mut b = ConfigBuilder::new().preset("default").unwrap();
            for s in sets {
                b = b.set(s).unwrap();
            }
            let e = b.build().unwrap_err();
            e.0.iter()
                .map(|e| match e {
                    crate::config::ConfigError::Invalid { key, .. } => key.clone(),
                    other => format!("{other}"),
                })
                .collect::<Vec<_>>()
        };
        let cached = "ftl.mapping=\"cached\"";
        assert_eq!(key(&[cached]), ["ftl.cmt.entries"]);
        assert_eq!(key(&[cached, "ftl.cmt.entries=0"]), ["ftl.cmt.entries"]);
        assert_eq!(
            key(&[cached, "ftl.cmt.entries=4000000000"]),
            ["ftl.cmt.entries"]
        );
        assert_eq!(key(&[cached, "ftl.cmt.bytes=2"]), ["ftl.cmt.bytes"]);
        assert_eq!(
            key(&[
                cached,
                "ftl.cmt.entries=100",
                "ftl.cmt.entries_per_tpage=100000"
            ]),
            ["ftl.cmt.entries_per_tpage"]
        );
        assert_eq!(key(&["ftl.cmt.entries=100"]), ["ftl.cmt"]);
        // The content index is accepted (config/cmt_groups.rs has its refusals).
        assert_eq!(
            key(&[
                cached,
                "ftl.cmt.entries=100",
                "dsftl.index=true",
                "ftl.cmt.group_entries=1"
            ]),
            ["ftl.cmt.group_entries"]
        );
        // RAID is accepted, CR5M's mirror chips too.
        for raid in [
            &["raid.level=5", "raid.group_size=4"][..],
            &[
                "raid.level=5",
                "raid.domain=\"channel\"",
                "raid.mirror_chips=true",
                "raid.buffer_new_writes=false",
            ],
        ] {
            let mut b = ConfigBuilder::new().preset("default").unwrap();
            for s in [&[cached, "ftl.cmt.entries=100"][..], raid].concat() {
                b = b.set(s).unwrap();
            }
            assert!(b.build().is_ok(), "{raid:?}");
        }
        let ok = ConfigBuilder::new()
            .preset("default")
            .unwrap()
            .set(cached)
            .unwrap()
            .set("ftl.cmt.bytes=4096")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(ok.ftl.cmt.capacity(), 1024);
        // In the controller's DRAM beside the stage: a table that leaves the stage
        // less than a page is refused by its capacity key.
        let dram = ["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"];
        assert_eq!(
            key(&[cached, "ftl.cmt.entries=262144", dram[0], dram[1]]),
            ["ftl.cmt.entries"]
        );
        assert_eq!(
            key(&[cached, "ftl.cmt.bytes=1048576", dram[0], dram[1]]),
            ["ftl.cmt.bytes"]
        );
    }

    /// A TLC device with a static SLC region, room to spare for translation blocks.
    const SLC: [&str; 5] = [
        "nand.cell=\"tlc\"",
        "geometry.pages_per_block=48",
        "nand.slc_cache.mode=\"static\"",
        "nand.slc_cache.blocks_per_plane=4",
        "ftl.over_provisioning=0.4",
    ];

    /// With an SLC cache, folds move data pages into TLC blocks: each move dirties its
    /// entry like a GC move, and the run reads back everything it wrote.
    #[test]
    fn folds_keep_the_cached_map_consistent() {
        let r = run(config(100, true, &SLC), churn(2_500, 3));
        assert!(count(&r, TxnReason::FoldWrite) > 0, "no fold ran");
        assert!(mapping(&r).translation_writes > 0);
    }

    /// A write parked behind an idle fold held for the host (its plane's SLC region
    /// full) releases the fold: translation programs leave a plane few free blocks, and
    /// this run (a proptest case) stopped *device full* while the fold waited for an
    /// idle host that the parked write kept busy.
    #[test]
    fn a_write_parked_behind_a_held_idle_fold_releases_it() {
        let mut reqs = churn(1_519, 407_426_657_780_676_278);
        for (i, r) in reqs.iter_mut().enumerate() {
            r.arrival_ns = i as u64 * 200_000;
        }
        let r = run(config(1, true, &SLC), reqs);
        assert!(r.counter(ssdlab_stats::Counter::ParkedWrites) > 0);
        assert!(count(&r, TxnReason::FoldWrite) > 0);
    }

    /// Binding at dispatch maps a write's page when its die starts the program: the
    /// entry turns dirty then, and verify finds every read right.
    #[test]
    fn binding_at_dispatch_dirties_the_entry_when_the_page_is_bound() {
        let r = run(
            config(100, true, &["placement.bind=\"dispatch\""]),
            churn(2_000, 5),
        );
        assert!(r.counter(ssdlab_stats::Counter::DispatchBoundWrites) > 0);
        let m = mapping(&r);
        assert!(m.translation_writes > 0 && m.lookups > m.hits, "{m:?}");
    }

    /// With a DRAM stage the table's bytes come out of the stage's budget: 1 MiB of
    /// DRAM less 1 000 entries of 4 bytes leaves 255 pages of 4 KiB (not 256), and the
    /// run still reads back everything it wrote.
    #[test]
    fn the_table_takes_its_bytes_from_the_dram_stage() {
        let dram = ["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"];
        let r = run(config(1000, true, &dram), churn(1_500, 7));
        assert_eq!(r.dram.as_ref().unwrap().capacity_pages, 255);
        let m = mapping(&r);
        assert!(m.translation_writes > 0 && m.lookups > 0, "{m:?}");
    }

    /// 16 KiB pages whose host transfers move only the sectors a request asks for.
    const SECTORS: [&str; 2] = [
        "geometry.page_size_bytes=16384",
        "timing.transfer=\"sectors\"",
    ];

    /// Property-test cases: `default`, or `PROPTEST_CASES` when set (an explicit
    /// `cases` in a `ProptestConfig` would otherwise hide the variable).
    pub(super) fn cases(default: u32) -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(12), ..ProptestConfig::default() })]

        /// Whatever the cache size and the traffic, a verified run with the cached map
        /// reads back what was written, and its translation pages and map agree.
        #[test]
        fn the_cached_map_never_loses_data(
            seed in 1u64..u64::MAX,
            entries in 1u32..300,
            pre in any::<bool>(),
            n in 200u32..2_500,
            gap in prop::sample::select(vec![2_000u64, 20_000, 200_000]),
            dram in 0usize..7,
        ) {
            let mut reqs = churn(n, seed);
            for (i, r) in reqs.iter_mut().enumerate() {
                r.arrival_ns = i as u64 * gap;
            }
            // Plain, a write buffer or a read-write cache of 1 MiB less what the table
            // takes of it.
            let sets: &[&str] = match dram {
                0 => &[],
                1 => &["cache.mode=\"write-buffer\"", "cache.capacity_mib=1"],
                2 => &["cache.mode=\"read-write\"", "cache.capacity_mib=1"],
                3 => &["placement.bind=\"dispatch\"", "scheduler.multi_plane=true"],
                // 4 KiB requests in 16 KiB pages moving their sectors: partial reads,
                // merge reads of partial writes; then the same behind a write buffer.
                4 => &SECTORS,
                5 => &[SECTORS[0], SECTORS[1], "cache.mode=\"write-buffer\"", "cache.capacity_mib=1"],
                // TLC with an SLC cache: folds move pages (and translation pages).
                _ => &SLC,
            };
            let r = run(config(entries, pre, sets), reqs);
            prop_assert!(r.mapping.is_some());
        }
    }
}
