//! Durability with the DRAM stage: flush commands, FUA writes and power losses
//! (docs/DRAM.md, "Flush, FUA and power loss").
//!
//! - A **flush** completes once every write DRAM acknowledged before it is on flash:
//!   [`DramStage::flush`] marks them, the stage destages them first, and the flush
//!   waits (its wait is measured). Writes still waiting for room were never
//!   acknowledged and are not covered (NVMe 2.0 Base Specification §7.1, Flush: the
//!   data of commands *completed* before the flush was submitted). With tenants and
//!   `cache.sharing = "equal"` a tenant's flush waits for its own partition only: an
//!   NVMe flush applies to the namespace its NSID names (§7.1), and a partition holds
//!   its tenant's namespace.
//! - A **FUA write** page is taken by DRAM (reads hit it at once) but its request is
//!   not done until that version is programmed: the page is destaged before any other.
//! - A **power loss** (`--fail power@T`) empties DRAM. The oldest dirty pages, as many
//!   as the PLP budget programs ([`plp_budget`]), are destaged at once as internal
//!   requests; the others are lost: acknowledged, never programmed. Verify mode then
//!   expects each lost page's previous content, the version flash holds. Flushes and
//!   FUA writes pending at the loss complete at once, counted as interrupted. The
//!   device is back at once (no downtime is modelled) and programs already in flight
//!   complete.
//!
//! [`DramStage::flush`]: ssdlab_dram::DramStage::flush

use super::super::txn::ReqId;
use super::super::Simulation;
use ssdlab_dram::CacheConfig;
use ssdlab_nand::{Geometry, Lpn};

/// Pages of one internal request that programs pages saved by PLP.
const SAVED_PER_REQUEST: usize = 64;

/// A flush command waiting for the writes acknowledged before it.
#[derive(Clone, Copy, Debug)]
struct FlushWait {
    req: ReqId,
    /// The partition it flushes (its tenant's, with partitions), or every page.
    part: Option<usize>,
    /// The newest write sequence number it covers.
    upto: u64,
    since_ns: u64,
}

/// A FUA write page in DRAM: done when version `seq` of `lpn` is durable.
#[derive(Clone, Copy, Debug)]
pub(super) struct FuaWait {
    pub req: ReqId,
    pub lpn: Lpn,
    pub seq: u64,
    /// Bytes of the page its request does not touch (`timing.transfer = "sectors"`).
    pub short: u32,
}

/// Flushes and FUA writes waiting for durability, and what power-loss protection saves.
#[derive(Debug, Default)]
pub(super) struct Durability {
    flushes: Vec<FlushWait>,
    fua: Vec<FuaWait>,
    /// Dirty pages a power loss still programs.
    pub plp_pages: u64,
    /// Flushes completed, their total and longest wait.
    pub flushes_done: u64,
    pub flush_wait_ns: u64,
    pub flush_wait_ns_max: u64,
    /// FUA write pages DRAM took.
    pub fua_pages: u64,
    /// Flushes and FUA write pages a power loss completed before they were durable.
    pub interrupted: u64,
}

impl Durability {
    pub fn new(plp_pages: u64) -> Self {
        Durability {
            plp_pages,
            ..Durability::default()
        }
    }

    /// A FUA write page waits for its version to be programmed.
    pub fn wait_fua(&mut self, w: FuaWait) {
        self.fua_pages += 1;
        self.fua.push(w);
    }

    fn flush_done(&mut self, waited_ns: u64) {
        self.flushes_done += 1;
        self.flush_wait_ns += waited_ns;
        self.flush_wait_ns_max = self.flush_wait_ns_max.max(waited_ns);
    }
}

/// Dirty pages that power-loss protection programs: `plp_pages` as configured, or the
/// pages the device can program in `plp_hold_up_us` — every die programming one page
/// after another (`t_prog` plus the page's transfer each), and no more pages than the
/// channels can move in that time.
pub(crate) fn plp_budget(cfg: &CacheConfig, geom: &Geometry, t_prog_ns: u64, xfer_ns: u64) -> u64 {
    if cfg.plp_pages > 0 || cfg.plp_hold_up_us == 0 {
        return cfg.plp_pages;
    }
    let hold_ns = cfg.plp_hold_up_us * 1_000;
    let by_dies = u64::from(geom.dies()) * (hold_ns / (t_prog_ns + xfer_ns).max(1));
    let by_bus = u64::from(geom.channels) * (hold_ns / xfer_ns.max(1));
    by_dies.min(by_bus)
}

impl Simulation {
    /// Flush command `id` arrives at the device: `true` when it is done now (no DRAM
    /// stage, or nothing acknowledged is undurable); otherwise it waits.
    pub(in crate::sim) fn dram_flush(&mut self, id: ReqId) -> bool {
        let now = self.now().as_ns();
        let Some(d) = self.dram.as_ref() else {
            return true;
        };
        let part = if d.stage.partitioned() {
            self.tenants.as_ref().map(|t| t.tenant_of(id))
        } else {
            None
        };
        let d = self.dram.as_mut().expect("the DRAM stage");
        let upto = d.stage.flush(part);
        if d.stage.flushed(part, upto) {
            d.dur.flush_done(0);
            return true;
        }
        d.dur.flushes.push(FlushWait {
            req: id,
            part,
            upto,
            since_ns: now,
        });
        self.dram_pump();
        false
    }

    /// Destages completed: flushes and FUA writes now durable are done.
    pub(super) fn dram_durable(&mut self) {
        let now = self.now().as_ns();
        let d = self.dram.as_mut().expect("the DRAM stage");
        if d.dur.flushes.is_empty() && d.dur.fua.is_empty() {
            return;
        }
        let mut flushes = Vec::new();
        let stage = &d.stage;
        let dur = &mut d.dur;
        dur.flushes.retain(|f| {
            let done = stage.flushed(f.part, f.upto);
            if done {
                flushes.push((f.req, now - f.since_ns));
            }
            !done
        });
        let mut fua = Vec::new();
        dur.fua.retain(|w| {
            let done = stage.durable(w.lpn, w.seq);
            if done {
                fua.push((w.req, w.short));
            }
            !done
        });
        for &(_, waited) in &flushes {
            dur.flush_done(waited);
        }
        for (req, short) in fua {
            self.on_dram_done(req, 1, short);
        }
        for (req, _) in flushes {
            self.finish_request(req);
        }
    }

    /// Power is lost now (`--fail power@T`): see the module documentation.
    pub(in crate::sim) fn dram_power_loss(&mut self) {
        let now = self.now().as_ns();
        let Some(d) = self.dram.as_mut() else {
            return; // nothing volatile holds acknowledged data
        };
        let loss = d.stage.power_loss(now, d.dur.plp_pages);
        let flushes = std::mem::take(&mut d.dur.flushes);
        let fua = std::mem::take(&mut d.dur.fua);
        d.dur.interrupted += (flushes.len() + fua.len()) as u64;
        d.lost.extend(loss.lost.iter().map(|v| (v.lpn.0, v.token)));
        if self.verify.is_some() {
            let previous: Vec<_> = loss
                .lost
                .iter()
                .map(|v| (v.lpn, self.flash_token(v.lpn)))
                .collect();
            if let Some(verifier) = self.verify.as_mut() {
                for (lpn, on_flash) in previous {
                    match on_flash {
                        Some(token) => verifier.note(lpn, token),
                        None => verifier.forget(lpn),
                    }
                }
            }
        }
        for saved in loss.saved.chunks(SAVED_PER_REQUEST) {
            self.start_destage(saved);
        }
        for w in fua {
            self.on_dram_done(w.req, 1, w.short);
        }
        for f in flushes {
            self.finish_request(f.req);
        }
        self.dram_admit_waiting();
        self.dram_pump();
    }

    /// The content a read of `lpn` finds past DRAM: a version waiting in the controller
    /// for space, or the one the FTL maps (placed, perhaps still being programmed).
    fn flash_token(&self, lpn: Lpn) -> Option<u64> {
        if let Some(&(_, token)) = self.held_get(lpn) {
            return Some(token);
        }
        self.ftl.lookup(lpn).map(|ppn| self.ftl.token(ppn))
    }
}
