//! The DRAM stage in the request path (`cache.mode` other than `"off"`;
//! docs/ARCHITECTURE.md §19.3).
//!
//! ```text
//!  admission ─► read page:  DramStage::read ─ hit ─► done after the DRAM transfer
//!      │                          └─ miss ─► flash read ─► DramStage::fill (read-write)
//!      └──────► write page: DramStage::write ─ absorbed ─► done after the DRAM transfer
//!                                 └─ full ─► waits (T_buffer_wait) for a destage
//!  DramStage::plan ─► victims ─► one internal write request per group of pages
//!      ─► admission's write path (placement, RAID stripes, FTL, scheduler) ─► programs
//!      ─► the request done ─► DramStage::destaged ─► waiting writes, flushes, plan again
//! ```
//!
//! Flush commands, FUA writes and power losses are in [`durability`]; the report's
//! section in [`report`].
//!
//! The stage ([`ssdlab_dram::DramStages`]: one [`ssdlab_dram::DramStage`], or with
//! tenants and `cache.sharing = "equal"` one per tenant) decides; this file applies
//! its decisions. Writes waiting for room queue per partition: a tenant whose partition
//! is full waits, the others' writes do not queue behind it. A configuration without
//! the stage never builds a [`DramHook`], and every hook on the common path is one
//! `Option` test.

mod durability;
mod report;

pub(crate) use durability::plp_budget;
use durability::{Durability, FuaWait};

use super::host::{Req, ADMIT_CHUNK_PAGES};
use super::txn::ReqId;
use super::{Event, Simulation};
use rustc_hash::FxHashMap;
use ssdlab_dram::{CacheConfig, CacheMode, DramStages, Victim, WriteOutcome, WritePolicy};
use ssdlab_engine::SimDuration;
use ssdlab_nand::Lpn;
use ssdlab_trace::{Content, IoRequest, Op};
use std::collections::VecDeque;

/// A host write page that found DRAM full.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    req: ReqId,
    lpn: Lpn,
    token: u64,
    since_ns: u64,
    /// A FUA write: done when its version is durable, not when DRAM takes it.
    fua: bool,
    /// Bytes of the page its request does not touch (`timing.transfer = "sectors"`).
    short: u32,
}

/// The DRAM stage and what the simulation keeps to apply its decisions.
pub(crate) struct DramHook {
    pub stage: DramStages,
    cfg: CacheConfig,
    page_bytes: u32,
    /// Write pages waiting for room, in arrival order, per partition of the stage.
    waiting: Vec<VecDeque<Waiting>>,
    /// Internal destage requests in flight: the versions each programs.
    destages: FxHashMap<ReqId, Vec<(Lpn, u64)>>,
    /// Flushes and FUA writes waiting for durability; power-loss protection.
    dur: Durability,
    /// The pages of destage requests not yet admitted.
    pages: FxHashMap<ReqId, Box<[u32]>>,
    /// Per host request with a write page that waited for room: its longest wait.
    request_waits: FxHashMap<ReqId, u64>,
    scratch: Vec<Victim>,
    /// Transfers of pages of which a request moves only some bytes, by key (request,
    /// pages, bytes left out), and the next key: kept out of the event, so that events
    /// stay small when transfers count whole pages.
    part_done: FxHashMap<u32, (ReqId, u32, u32)>,
    part_key: u32,
    /// Write pages that waited for room, the total and the longest wait.
    pub waits: u64,
    pub wait_ns: u64,
    pub wait_ns_max: u64,
    /// Pages lost to power losses: (LPN, the content acknowledged and lost).
    pub lost: Vec<(u32, u64)>,
}

impl DramHook {
    /// The hook of `cfg`'s stage for pages of `page_bytes`, destaging `group_pages`
    /// consecutive pages together, with `planes` programs in flight by default.
    /// `plp_pages`: dirty pages a power loss still programs. `reserved_bytes` of the
    /// DRAM hold the cached map's table, not pages. `namespaces`: the first LPN of each
    /// tenant's namespace (none without tenants), which `cfg.sharing` partitions by.
    pub fn new(
        cfg: &CacheConfig,
        (page_bytes, group_pages, planes): (u32, u32, u32),
        plp_pages: u64,
        reserved_bytes: u64,
        namespaces: &[u32],
    ) -> Self {
        let stage = DramStages::new(
            cfg,
            page_bytes,
            group_pages,
            planes,
            reserved_bytes,
            namespaces,
        );
        DramHook {
            dur: Durability::new(plp_pages),
            waiting: (0..stage.parts()).map(|_| VecDeque::new()).collect(),
            stage,
            cfg: cfg.clone(),
            page_bytes,
            destages: FxHashMap::default(),
            pages: FxHashMap::default(),
            request_waits: FxHashMap::default(),
            scratch: Vec::new(),
            part_done: FxHashMap::default(),
            part_key: 0,
            waits: 0,
            wait_ns: 0,
            wait_ns_max: 0,
            lost: Vec::new(),
        }
    }

    /// Whether request `id` is a destage of this stage.
    #[inline]
    pub fn is_destage(&self, id: ReqId) -> bool {
        !self.destages.is_empty() && self.destages.contains_key(&id)
    }

    /// The pages of destage request `id` when it is admitted (`None` for any other
    /// request).
    #[inline]
    pub fn take_pages(&mut self, id: ReqId) -> Option<Box<[u32]>> {
        if self.pages.is_empty() {
            None
        } else {
            self.pages.remove(&id)
        }
    }

    /// The longest time a write page of host request `id` waited for room (0 if none).
    #[inline]
    pub fn take_buffer_wait(&mut self, id: ReqId) -> u64 {
        if self.request_waits.is_empty() {
            0
        } else {
            self.request_waits.remove(&id).unwrap_or(0)
        }
    }

    /// Whether host writes are acknowledged from DRAM.
    #[inline]
    pub fn write_back(&self) -> bool {
        self.cfg.write_policy == WritePolicy::WriteBack
    }

    /// Time to move `pages` pages between the host and DRAM, less `short` bytes of them
    /// the request does not touch (`timing.transfer = "sectors"`; 0 otherwise).
    fn transfer(&self, pages: u32, short: u32) -> SimDuration {
        let bytes = u64::from(pages) * u64::from(self.page_bytes) - u64::from(short);
        SimDuration(self.cfg.transfer_ns(bytes))
    }
}

impl Simulation {
    /// Admission of read page `lpn` of host request `id` with the stage on: `true` when
    /// DRAM serves it (the page completes with the request's other DRAM pages).
    #[inline]
    pub(in crate::sim) fn dram_read(&mut self, id: ReqId, lpn: Lpn) -> bool {
        let d = self.dram.as_mut().expect("the DRAM stage");
        let Some(token) = d.stage.read(lpn) else {
            return false;
        };
        self.counters.buffer_hits += 1;
        self.reqs[id].buffer_hits += 1;
        if self.verify.is_some() {
            let expect = self.expected(lpn);
            self.check_token(lpn, expect, token);
        }
        true
    }

    /// Admission of write page `lpn` (content `token`) of host request `id` with a
    /// write-back stage: `true` when DRAM took it now; else it waits for room.
    /// A FUA write (`fua`) is taken but not done: it completes once its version is
    /// durable. `short`: the bytes of the page the request does not touch.
    #[inline]
    pub(in crate::sim) fn dram_write(
        &mut self,
        id: ReqId,
        lpn: Lpn,
        token: u64,
        fua: bool,
        short: u32,
    ) -> bool {
        let now = self.now().as_ns();
        let d = self.dram.as_mut().expect("the DRAM stage");
        let waiting = Waiting {
            req: id,
            lpn,
            token,
            since_ns: now,
            fua,
            short,
        };
        let part = d.stage.part(lpn);
        if !d.waiting[part].is_empty() {
            // Writes take room in arrival order (in their partition).
            d.stage.queue_write(lpn);
            d.waiting[part].push_back(waiting);
            return false;
        }
        let had = self.partial.is_some() && d.stage.holds(lpn);
        match d.stage.write(now, lpn, token) {
            WriteOutcome::Absorbed { seq, .. } => {
                if self.partial.is_some() {
                    self.note_buffered(id, lpn, had);
                }
                let d = self.dram.as_mut().expect("the DRAM stage");
                if fua {
                    d.stage.urgent(lpn);
                    d.dur.wait_fua(FuaWait {
                        req: id,
                        lpn,
                        seq,
                        short,
                    });
                }
                self.note_acknowledged(lpn, token);
                !fua
            }
            WriteOutcome::Full => {
                d.waiting[part].push_back(waiting);
                false
            }
        }
    }

    /// Page `i` (`lpn`) of host request `id` at admission, with the stage on
    /// (`write_back`: `dram`): `Some(true)` when DRAM served it (a hit, an absorbed
    /// write), `Some(false)` when it waits for room, `None` when it goes to flash.
    #[inline]
    pub(in crate::sim) fn dram_page(
        &mut self,
        id: ReqId,
        op: Op,
        dram: Option<bool>,
        lpn: Lpn,
        content: Option<&Content>,
        i: u32,
    ) -> Option<bool> {
        match (op, dram) {
            (Op::Read, Some(_)) => self.dram_read(id, lpn).then_some(true),
            (Op::Write, Some(true)) => {
                let token = self.write_token(lpn, content.map(|c| c.page(i)));
                let fua = self.reqs[id].io.fua;
                let short = self.dram_short(id, i);
                Some(self.dram_write(id, lpn, token, fua, short))
            }
            (Op::Write, Some(false)) => {
                self.dram_write_through(lpn);
                None
            }
            _ => None,
        }
    }

    /// `pages` pages of request `id` were served by DRAM at admission: they complete
    /// when their transfer is over (`short`: bytes of them the request does not touch).
    pub(in crate::sim) fn dram_pages_done(&mut self, id: ReqId, pages: u32, short: u32) {
        let d = self.dram.as_ref().expect("the DRAM stage");
        let at = d.transfer(pages, short);
        let event = if short == 0 {
            Event::DramDone(id, pages)
        } else {
            let d = self.dram.as_mut().expect("the DRAM stage");
            let key = d.part_key;
            d.part_key = d.part_key.wrapping_add(1);
            d.part_done.insert(key, (id, pages, short));
            Event::DramPartDone(key)
        };
        self.events.schedule_in(at, event);
    }

    /// The transfer of event key `key` (`Event::DramPartDone`) is over.
    pub(in crate::sim) fn on_dram_part_done(&mut self, key: u32) {
        let d = self.dram.as_mut().expect("the DRAM stage");
        let (id, pages, short) = d.part_done.remove(&key).expect("a transfer in flight");
        self.on_dram_done(id, pages, short);
    }

    /// The DRAM transfer of `pages` pages of request `id` is over.
    pub(in crate::sim) fn on_dram_done(&mut self, id: ReqId, pages: u32, short: u32) {
        let d = self.dram.as_ref().expect("the DRAM stage");
        let service = d.transfer(pages, short).0;
        for _ in 0..pages {
            self.sub_done(id, service, 0);
        }
    }

    /// A host read of `lpn` from flash page `ppn` completed (or a write-through program
    /// of it): a `read-write` stage keeps the page, unless it was written again since.
    pub(in crate::sim) fn dram_fill(&mut self, lpn: Lpn, ppn: ssdlab_nand::Ppn) {
        let d = self.dram.as_ref().expect("the DRAM stage");
        if d.cfg.mode != CacheMode::ReadWrite {
            return; // keeps no reads: the mapping and the token table are not touched
        }
        // A newer version is mapped, or waits in the controller for space or dispatch.
        if self.ftl.lookup(lpn) != Some(ppn) || self.held_get(lpn).is_some() {
            return;
        }
        let token = self.ftl.token(ppn);
        let d = self.dram.as_mut().expect("the DRAM stage");
        d.stage.fill(lpn, token);
    }

    /// A host write of `lpn` goes to flash past a write-through stage: an older clean
    /// copy leaves DRAM.
    pub(in crate::sim) fn dram_write_through(&mut self, lpn: Lpn) {
        let d = self.dram.as_mut().expect("the DRAM stage");
        d.stage.invalidate(lpn);
    }

    /// A host program of `lpn` for request `req` completed in page `ppn`: a write-through stage
    /// keeps the page as a clean copy (a destage's page is the stage's own business).
    pub(in crate::sim) fn dram_programmed(&mut self, req: ReqId, lpn: Lpn, ppn: ssdlab_nand::Ppn) {
        let d = self.dram.as_ref().expect("the DRAM stage");
        if d.write_back() || d.is_destage(req) {
            return;
        }
        self.dram_fill(lpn, ppn);
    }

    /// Starts the destages the stage asks for now: one internal request per partition
    /// with pages to destage.
    pub(in crate::sim) fn dram_pump(&mut self) {
        let Some(d) = self.dram.as_mut() else { return };
        let mut victims = std::mem::take(&mut d.scratch);
        for part in 0..d.stage.parts() {
            let d = self.dram.as_mut().expect("the DRAM stage");
            d.stage.plan(part, &mut victims);
            if !victims.is_empty() {
                self.start_destage(&victims);
            }
        }
        if let Some(d) = self.dram.as_mut() {
            victims.clear();
            d.scratch = victims;
        }
    }

    /// One internal write request programs `victims` (pages of one destage group).
    pub(super) fn start_destage(&mut self, victims: &[Victim]) {
        let page = u64::from(self.geom.page_size_bytes);
        let tokens: Box<[u64]> = victims.iter().map(|v| v.token).collect();
        let lpns: Box<[u32]> = victims.iter().map(|v| v.lpn.0).collect();
        let first = u64::from(lpns[0]);
        debug_assert!(victims.len() <= ADMIT_CHUNK_PAGES as usize);
        let n = lpns.len() as u32;
        let req = Req::internal(
            IoRequest {
                arrival_ns: self.now().as_ns(),
                op: Op::Write,
                fua: false,
                offset_bytes: first * page,
                size_bytes: u64::from(n) * page,
                content: Some(Content::Pages(tokens)),
                stream: None,
            },
            self.now().as_ns(),
            first,
            n,
        );
        let id = self.reqs.insert(req);
        let versions = victims.iter().map(|v| (v.lpn, v.seq)).collect();
        let d = self.dram.as_mut().expect("the DRAM stage");
        d.destages.insert(id, versions);
        d.pages.insert(id, lpns);
        self.start_request(id);
    }

    /// Internal request `id` (a destage) completed: its versions are durable; waiting
    /// writes take the room, and the stage plans again.
    pub(in crate::sim) fn dram_destage_done(&mut self, id: ReqId) {
        let now = self.now().as_ns();
        let d = self.dram.as_mut().expect("the DRAM stage");
        let versions = d.destages.remove(&id).expect("a destage request");
        for (lpn, seq) in versions {
            d.stage.destaged(now, lpn, seq);
        }
        self.dram_durable();
        self.dram_admit_waiting();
        self.dram_pump();
    }

    /// A trim dropped pages from DRAM: flushes and FUA writes that waited for them may
    /// be done, writes that waited for room may take theirs, and the stage plans again.
    pub(in crate::sim) fn dram_trimmed(&mut self) {
        self.dram_durable();
        self.dram_admit_waiting();
        self.dram_pump();
    }

    /// Waiting writes take the room there is, in order, partition by partition.
    pub(super) fn dram_admit_waiting(&mut self) {
        let parts = self.dram.as_ref().expect("the DRAM stage").stage.parts();
        for part in 0..parts {
            self.dram_admit_waiting_in(part);
        }
    }

    /// Waiting writes of partition `part` take the room there is, in order.
    fn dram_admit_waiting_in(&mut self, part: usize) {
        let now = self.now().as_ns();
        loop {
            let d = self.dram.as_mut().expect("the DRAM stage");
            let Some(&w) = d.waiting[part].front() else {
                return;
            };
            d.stage.stop_waiting(w.lpn);
            let had = self.partial.is_some() && d.stage.holds(w.lpn);
            let WriteOutcome::Absorbed { seq, .. } = d.stage.write(now, w.lpn, w.token) else {
                return;
            };
            if self.partial.is_some() {
                self.note_buffered(w.req, w.lpn, had);
            }
            let d = self.dram.as_mut().expect("the DRAM stage");
            d.waiting[part].pop_front();
            let waited = now - w.since_ns;
            d.stage.note_wait(w.lpn, waited);
            d.waits += 1;
            d.wait_ns += waited;
            d.wait_ns_max = d.wait_ns_max.max(waited);
            let longest = d.request_waits.entry(w.req).or_insert(0);
            *longest = (*longest).max(waited);
            if w.fua {
                d.stage.urgent(w.lpn);
                d.dur.wait_fua(FuaWait {
                    req: w.req,
                    lpn: w.lpn,
                    seq,
                    short: w.short,
                });
            }
            self.note_acknowledged(w.lpn, w.token);
            if !w.fua {
                self.dram_pages_done(w.req, 1, w.short);
            }
        }
    }

    /// The token DRAM holds for `lpn` as its newest, not yet programmed, content.
    pub(in crate::sim) fn dram_dirty_token(&self, lpn: Lpn) -> Option<u64> {
        self.dram.as_ref()?.stage.peek_dirty(lpn)
    }
}
