//! [`DramStage`]: what the controller's DRAM holds and what it decides.
//!
//! The stage owns its state and never sees a clock, a queue or a flash operation: the
//! simulation calls it with what happened (a host write or read of a page, a flash read
//! that can fill it, a destage program done, a flush, a power loss) and it answers with
//! small values (absorbed or full, a hit's token, the pages to destage now). Pages are
//! identified by their LPN; a page's content is its token.
//!
//! Each write gets a sequence number. A page is *dirty* from its first write that is not
//! yet durable (`dirty_since`) until a program of its newest version completes. A
//! dirty page is either waiting in DRAM or *destaging* (one program of it in flight; a
//! page is not destaged twice at once). Durable pages are dropped (`write-buffer`) or
//! kept clean (`read-write`).

use crate::config::{CacheConfig, CacheMode, Destage, Replacement};
use crate::series::Occupancy;
use lists::Lists;
use rustc_hash::FxHashMap;
use ssdlab_nand::Lpn;

/// One page held in DRAM.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    lpn: u32,
    /// The newest content.
    token: u64,
    /// The newest write's sequence number (0: a clean fill from flash).
    seq: u64,
    /// The oldest write not yet durable; 0 when clean.
    dirty_since: u64,
    /// The version being programmed (its sequence number); 0 when none is.
    destaging: u64,
    /// With a program in flight: the first write after it started (0: none yet).
    rewritten_at: u64,
    /// Recency (LRU) or arrival (FIFO) order.
    stamp: u64,
}

/// Where an entry is listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    Clean,
    Dirty,
    Destaging,
}

/// What became of a host write of one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// The page is in DRAM now (`seq` is its write's number). `superseded`: it replaced
    /// a dirty version that will never be programmed.
    Absorbed {
        /// The write's sequence number.
        seq: u64,
        /// A dirty version was replaced before it reached flash.
        superseded: bool,
    },
    /// No room: the write waits until a destage frees a page.
    Full,
}

/// A page to program now: its LPN, content and the version's sequence number (to give
/// back with [`DramStage::destaged`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    /// The page.
    pub lpn: Lpn,
    /// Its content.
    pub token: u64,
    /// The version's sequence number.
    pub seq: u64,
}

/// What a power loss did to DRAM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PowerLoss {
    /// Dirty pages the PLP budget still programs (oldest first).
    pub saved: Vec<Victim>,
    /// Dirty pages lost: acknowledged, never programmed.
    pub lost: Vec<Victim>,
}

/// Counters of the stage (pages unless said otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DramCounters {
    /// Host read pages found in DRAM.
    pub read_hits: u64,
    /// Host read pages not in DRAM.
    pub read_misses: u64,
    /// Host write pages that found their page in DRAM (dirty or clean).
    pub write_hits: u64,
    /// Host write pages taken into DRAM.
    pub writes_absorbed: u64,
    /// Dirty versions replaced before they were programmed: host writes that never
    /// reached flash.
    pub superseded: u64,
    /// Pages handed out to be programmed.
    pub destaged: u64,
    /// Clean pages dropped to make room.
    pub evicted: u64,
    /// Pages read from flash and kept (`read-write`).
    pub fills: u64,
    /// Write pages that found DRAM full.
    pub full: u64,
    /// Power losses.
    pub power_losses: u64,
    /// Dirty pages lost to them.
    pub lost: u64,
    /// Dirty pages the PLP budget programmed after them.
    pub plp_saved: u64,
}

/// The controller's DRAM stage. See the module documentation.
#[derive(Debug)]
pub struct DramStage {
    mode: CacheMode,
    replacement: Replacement,
    destage: Destage,
    capacity: u32,
    high: u32,
    low: u32,
    in_flight_limit: u32,
    /// Pages of one destage group (a RAID stripe's data pages, or 1).
    group: u32,
    entries: Vec<Entry>,
    wheres: Vec<Where>,
    free: Vec<u32>,
    index: FxHashMap<u32, u32>,
    /// Clean entries ([`CLEAN`]) and dirty ones not being programmed ([`DIRTY`]) by
    /// stamp: the least recent (LRU) or oldest (FIFO) first.
    by_stamp: Lists,
    destaging: u32,
    /// Dirty entries by `dirty_since`, the oldest undurable write first: those waiting
    /// ([`DIRTY`]) and those being programmed ([`DESTAGING`]).
    by_age: Lists,
    next_seq: u64,
    clock: u64,
    /// Writes waiting for room.
    waiting: u32,
    /// Highest sequence number a pending flush covers (0: none).
    flush_upto: u64,
    /// Pages (LPNs) to destage before any other (FUA writes).
    urgent: Vec<u32>,
    /// Background destaging is on (between the watermarks).
    draining: bool,
    counters: DramCounters,
    occupancy: Occupancy,
}

impl DramStage {
    /// A stage of `cfg` for pages of `page_bytes`, destaging groups of `group_pages`
    /// consecutive pages together (a RAID stripe's data pages, 1 without RAID), with at
    /// most `in_flight` destage programs at once when the configuration says 0 (auto);
    /// `reserved_bytes` of the DRAM hold something else (the cached map's table).
    ///
    /// # Panics
    /// If `cfg` is off or fails [`CacheConfig::validate`] (the caller validates).
    pub fn new(
        cfg: &CacheConfig,
        page_bytes: u32,
        group_pages: u32,
        in_flight: u32,
        reserved_bytes: u64,
    ) -> Self {
        let pages = cfg.capacity_pages(page_bytes, reserved_bytes).max(1);
        let pages = u32::try_from(pages).unwrap_or(u32::MAX);
        DramStage::with_pages(cfg, pages, group_pages, in_flight)
    }

    /// A stage of `pages` pages (a tenant's partition), otherwise as [`DramStage::new`]:
    /// the watermarks are `cfg`'s fractions of `pages`.
    ///
    /// # Panics
    /// If `cfg` is off, or `pages` is 0.
    pub fn with_pages(cfg: &CacheConfig, pages: u32, group_pages: u32, in_flight: u32) -> Self {
        assert!(cfg.is_on(), "a DRAM stage of a configuration without one");
        assert!(pages > 0, "a DRAM stage of no page");
        let capacity = pages;
        let share = |x: f64| ((f64::from(capacity) * x).floor() as u32).min(capacity);
        let limit = if cfg.max_destage_in_flight > 0 {
            cfg.max_destage_in_flight
        } else {
            in_flight.max(1)
        };
        DramStage {
            mode: cfg.mode,
            replacement: cfg.replacement,
            destage: cfg.destage,
            capacity,
            high: share(cfg.high_watermark).max(1),
            low: share(cfg.low_watermark),
            in_flight_limit: limit,
            group: group_pages.max(1),
            entries: Vec::new(),
            wheres: Vec::new(),
            free: Vec::new(),
            index: FxHashMap::default(),
            by_stamp: Lists::default(),
            destaging: 0,
            by_age: Lists::default(),
            next_seq: 1,
            clock: 0,
            waiting: 0,
            flush_upto: 0,
            urgent: Vec::new(),
            draining: false,
            counters: DramCounters::default(),
            occupancy: Occupancy::new(cfg.occupancy_points),
        }
    }

    /// Pages DRAM holds.
    pub fn resident(&self) -> u32 {
        self.by_stamp.len(CLEAN) + self.by_stamp.len(DIRTY) + self.destaging
    }

    /// Dirty pages (waiting or destaging).
    pub fn dirty_pages(&self) -> u32 {
        self.by_stamp.len(DIRTY) + self.destaging
    }

    /// Destage programs in flight.
    pub fn in_flight(&self) -> u32 {
        self.destaging
    }

    /// The capacity in pages.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The counters so far.
    pub fn counters(&self) -> DramCounters {
        self.counters
    }

    /// The dirty-occupancy series, closed at `now_ns`.
    pub fn occupancy(&mut self, now_ns: u64) -> &Occupancy {
        let dirty = u64::from(self.dirty_pages());
        self.occupancy.finish(now_ns, dirty);
        &self.occupancy
    }

    /// The newest content of `lpn` if DRAM holds it (a host read: counted, and the page
    /// becomes the most recent under LRU).
    pub fn read(&mut self, lpn: Lpn) -> Option<u64> {
        match self.index.get(&lpn.0).copied() {
            Some(slot) => {
                self.counters.read_hits += 1;
                self.touch(slot);
                Some(self.entries[slot as usize].token)
            }
            None => {
                self.counters.read_misses += 1;
                None
            }
        }
    }

    /// Whether DRAM holds a version of `lpn`, dirty or clean (no counting, no
    /// reordering).
    pub fn holds(&self, lpn: Lpn) -> bool {
        self.index.contains_key(&lpn.0)
    }

    /// A host write of `lpn` with content `token` at `now_ns`.
    pub fn write(&mut self, now_ns: u64, lpn: Lpn, token: u64) -> WriteOutcome {
        let seq = self.next_seq;
        if let Some(slot) = self.index.get(&lpn.0).copied() {
            self.next_seq += 1;
            self.counters.write_hits += 1;
            self.counters.writes_absorbed += 1;
            // Touched first: a clean page then turns dirty at its new stamp, the newest.
            self.touch(slot);
            let superseded = self.rewrite(slot, token, seq);
            self.counters.superseded += u64::from(superseded);
            self.note(now_ns);
            return WriteOutcome::Absorbed { seq, superseded };
        }
        if self.resident() >= self.capacity && !self.evict_clean() {
            self.counters.full += 1;
            self.waiting += 1;
            return WriteOutcome::Full;
        }
        self.next_seq += 1;
        self.counters.writes_absorbed += 1;
        let slot = self.insert(lpn, token, seq);
        self.mark_dirty(slot, seq);
        self.note(now_ns);
        WriteOutcome::Absorbed {
            seq,
            superseded: false,
        }
    }

    /// A host write that queues behind writes already waiting for room (writes take
    /// room in arrival order): counted as one that found DRAM full, and waiting.
    pub fn queue_write(&mut self) {
        self.counters.full += 1;
        self.waiting += 1;
    }

    /// The content of `lpn` when DRAM holds a version of it not yet durable (no
    /// counting, no reordering).
    pub fn peek_dirty(&self, lpn: Lpn) -> Option<u64> {
        let &slot = self.index.get(&lpn.0)?;
        let e = &self.entries[slot as usize];
        (e.dirty_since != 0).then_some(e.token)
    }

    /// A write that found DRAM full ([`WriteOutcome::Full`]) is given up (its request
    /// will ask again with [`DramStage::write`]).
    pub fn stop_waiting(&mut self) {
        debug_assert!(self.waiting > 0);
        self.waiting = self.waiting.saturating_sub(1);
    }

    /// `lpn` was read from flash with content `token`: kept as a clean page in
    /// `read-write` mode when there is room or a clean page to drop.
    pub fn fill(&mut self, lpn: Lpn, token: u64) {
        if self.mode != CacheMode::ReadWrite || self.index.contains_key(&lpn.0) {
            return;
        }
        if self.resident() >= self.capacity && !self.evict_clean() {
            return;
        }
        self.counters.fills += 1;
        let slot = self.insert(lpn, token, 0);
        self.list(slot, Where::Clean);
    }

    /// `lpn` is being written to flash without DRAM (write-through): a clean copy of an
    /// older version is dropped.
    ///
    /// # Panics
    /// If DRAM holds a dirty version of it (a write-through stage holds none).
    pub fn invalidate(&mut self, lpn: Lpn) {
        if let Some(&slot) = self.index.get(&lpn.0) {
            assert_eq!(
                self.entries[slot as usize].dirty_since, 0,
                "a dirty page in a write-through stage"
            );
            self.remove(slot);
        }
    }

    /// A trim of `lpn`: whatever version DRAM holds (clean, dirty, or being programmed)
    /// is dropped, so that no later read finds it and no destage programs it. A program
    /// already in flight completes on its own ([`DramStage::destaged`] then finds no
    /// version of it, or a newer one, and changes nothing); it no longer counts against
    /// the programs in flight. True when DRAM held a version.
    pub fn discard(&mut self, lpn: Lpn) -> bool {
        let Some(&slot) = self.index.get(&lpn.0) else {
            return false;
        };
        match self.wheres[slot as usize] {
            Where::Clean => {}
            Where::Dirty => self.by_age.remove(DIRTY, slot),
            Where::Destaging => {
                self.by_age.remove(DESTAGING, slot);
                self.destaging -= 1;
            }
        }
        self.remove(slot);
        true
    }

    /// A flush at this moment: the sequence number it must see durable
    /// ([`DramStage::flushed`]); pages dirty now are destaged first.
    pub fn flush(&mut self) -> u64 {
        let upto = self.next_seq - 1;
        self.flush_upto = self.flush_upto.max(upto);
        upto
    }

    /// Whether every write up to `upto` is durable.
    pub fn flushed(&self, upto: u64) -> bool {
        [DIRTY, DESTAGING]
            .iter()
            .all(|&l| self.by_age.first(l).is_none_or(|(since, _)| since > upto))
    }

    /// Whether write `seq` of `lpn` (or a newer one) is durable.
    pub fn durable(&self, lpn: Lpn, seq: u64) -> bool {
        match self.index.get(&lpn.0) {
            Some(&slot) => {
                let e = &self.entries[slot as usize];
                e.dirty_since == 0 || e.dirty_since > seq
            }
            None => true,
        }
    }

    /// `lpn` must reach flash as soon as possible (a FUA write): destaged before any
    /// other page.
    pub fn urgent(&mut self, lpn: Lpn) {
        if self.index.contains_key(&lpn.0) {
            self.urgent.push(lpn.0);
        }
    }

    /// The pages to program now, marked as destaging: urgent ones, those a flush waits
    /// for, those waiting writes need, and (watermark mode) enough to bring the dirty
    /// pages down to the low watermark; each with the other dirty pages of its group.
    pub fn plan(&mut self, out: &mut Vec<Victim>) {
        out.clear();
        if self.by_stamp.len(DIRTY) == 0 {
            return;
        }
        let dirty = self.dirty_pages();
        if self.destage == Destage::Watermark {
            if dirty >= self.high {
                self.draining = true;
            } else if dirty <= self.low {
                self.draining = false;
            }
        }
        while self.destaging < self.in_flight_limit {
            let Some(slot) = self.next_victim() else {
                break;
            };
            self.take_group(slot, out);
        }
    }

    /// The program of version `seq` of `lpn` completed at `now_ns`. True when a page of
    /// DRAM became free or clean (room for a waiting write).
    pub fn destaged(&mut self, now_ns: u64, lpn: Lpn, seq: u64) -> bool {
        let Some(slot) = self.index.get(&lpn.0).copied() else {
            return false; // dropped by a power loss
        };
        let e = self.entries[slot as usize];
        if e.destaging != seq {
            return false; // a program from before a power loss
        }
        self.destaging -= 1;
        self.by_age.remove(DESTAGING, slot);
        let e = &mut self.entries[slot as usize];
        e.destaging = 0;
        if e.rewritten_at != 0 {
            // Written again while programmed: still dirty, from that write on.
            e.dirty_since = e.rewritten_at;
            e.rewritten_at = 0;
            self.by_age.insert(DIRTY, slot, e.dirty_since);
            self.list(slot, Where::Dirty);
        } else if self.mode == CacheMode::ReadWrite {
            e.dirty_since = 0;
            self.list(slot, Where::Clean);
        } else {
            self.remove(slot);
        }
        self.note(now_ns);
        true
    }
}

/// The list of clean entries in `by_stamp`.
const CLEAN: usize = 0;
/// The list of dirty entries not being programmed, in `by_stamp` and `by_age`.
const DIRTY: usize = 1;
/// The list of entries being programmed in `by_age`.
const DESTAGING: usize = 0;

mod check;
mod lists;
mod loss;
mod order;

pub(crate) use loss::split_loss;

#[cfg(test)]
mod tests;
