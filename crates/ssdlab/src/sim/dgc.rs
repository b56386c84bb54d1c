//! DGC: deferring garbage collection on chip-level RAID-5 (the DGC paper, §4).
//!
//! * **Predict GC** (§4.3): the paper warns a chip when its free pages `C_r` are fewer
//!   than the writes pending on it, `C_w`. Here a page is allocated when its write is
//!   admitted, so the pages of pending writes are already gone from the plane's count:
//!   with `C_r'` = pages the write's home plane can still take before it crosses the GC
//!   threshold ([`ssdlab_ftl::Ftl::pages_before_gc`]), `C_r < C_w + 1` reads
//!   `C_r' = 0` — this write would start foreground GC. A write whose home plane is
//!   already collecting is warned too: it would wait behind that GC just the same.
//! * **Redirect**: a warned write goes to a chip of *another* parity group (never the
//!   stripe's own group, never a chip already holding a page of the same stripe, so one
//!   chip failure still costs at most one page per stripe, never a dead chip, never one
//!   about to collect or collecting itself), the one with the smallest estimated
//!   completion time `CT`, provided `CT + L_w ≤ AT − now`. `CT` counts the chip's queued
//!   reads at `L_r` and every other outstanding operation at `L_w` (`L` = array time plus
//!   one page on the bus). `AT` follows `dgc.arrival_estimate`: `now` plus the chip's
//!   mean gap between request arrivals, or unbounded. The chunk keeps its stripe: parity,
//!   reads and reconstruction follow the FTL's mapping, which records the chip it went
//!   to (the paper's extra bit plus log2 N bits).
//! * **Deferred GC**: a chip spared by redirection is marked; when its queue is empty
//!   (idle detection) it collects, one victim at a time, until every plane has
//!   `dgc.idle_gc_blocks` free blocks above the threshold (`deferred-gc` counts these
//!   GCs). GC itself is unchanged: a write that does go home and crosses the threshold
//!   starts foreground GC as without DGC.

use super::Simulation;
use crate::arrivals::ArrivalGaps;
use crate::config::{ArrivalEstimate, DgcConfig};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use crate::placement::{PageToPlace, Role};
use ssdlab_nand::{ChipId, Geometry, Lpn, NandTiming, PlaneId};
use ssdlab_stats::Counter;

/// No time known yet.
const UNKNOWN: u64 = u64::MAX;

/// DGC state of a run (present only when `dgc.enabled`).
#[derive(Default)]
pub(crate) struct DgcState {
    /// `AT` from the mean arrival gap (else unbounded).
    mean_gap: bool,
    /// Free blocks above the threshold idle GC restores.
    idle_gc_blocks: u32,
    /// Parity programs are redirected too (`dgc.redirect_parity`).
    redirect_parity: bool,
    /// `L_r` and `L_w`: array time plus one page on the bus.
    l_r: u64,
    l_w: u64,
    /// Per chip: arrivals, for `AT`.
    arrivals: ArrivalGaps,
    /// Chips whose GC is deferred to their next idle period.
    pub deferred: Vec<bool>,
    /// Chips newly spared, to collect at once if they are idle already.
    spared: Vec<ChipId>,
    pub redirected: u64,
    pub redirected_parity: u64,
    pub deferred_runs: u64,
    pub warned: u64,
}

impl DgcState {
    /// DGC for a device of `geom` with `timing`.
    pub fn new(cfg: &DgcConfig, timing: &NandTiming, geom: &Geometry) -> Self {
        let n = geom.chips() as usize;
        let xfer = timing.page_transfer_ns(geom.page_size_bytes);
        DgcState {
            mean_gap: cfg.arrival_estimate == ArrivalEstimate::MeanGap,
            idle_gc_blocks: cfg.idle_gc_blocks,
            redirect_parity: cfg.redirect_parity,
            l_r: timing.t_read_ns + xfer,
            l_w: timing.t_prog_ns + xfer,
            arrivals: ArrivalGaps::new(n),
            deferred: vec![false; n],
            ..DgcState::default()
        }
    }

    /// Time from now to the expected next arrival at `chip` (`AT − now`): the chip's
    /// mean arrival gap (memoryless arrivals), unbounded without one.
    fn arrival_room(&self, chip: ChipId) -> u64 {
        if self.mean_gap {
            self.arrivals.mean_gap(chip).unwrap_or(UNKNOWN)
        } else {
            UNKNOWN
        }
    }

    /// A request's transaction arrives at `chip` at `now_ns` (transactions of one request
    /// that arrive together count once).
    #[inline]
    pub fn arrival(&mut self, chip: ChipId, now_ns: u64) {
        self.arrivals.arrival(chip, now_ns);
    }

    /// True if a write to `plane` would start foreground GC there or wait behind one
    /// (running, or due and waiting for its die's activation with the lazy trigger).
    fn gc_ahead(view: &DeviceView, plane: PlaneId) -> bool {
        view.ftl.pages_before_gc(plane) == 0 || view.collecting(plane) || view.ftl.gc_needed(plane)
    }

    /// True if DGC may redirect a program of `role`: host data, and parity with
    /// `dgc.redirect_parity`.
    #[inline]
    pub fn redirects(&self, role: Role) -> bool {
        role == Role::Data || (self.redirect_parity && role == Role::Parity)
    }

    /// The plane a RAID data (or parity) write of FTL page `lpn` whose home is `home`
    /// goes to: its home, or a plane of another group's chip when the home is about to
    /// collect.
    pub fn redirect(&mut self, page: &PageToPlace, home: PlaneId, view: &DeviceView) -> PlaneId {
        if !Self::gc_ahead(view, home) {
            return home;
        }
        let g = view.geom;
        let chip = g.chip_of_die(g.die_of_plane(home));
        // A dead home chip is not a GC case: its writes are degraded writes (a permanent
        // redirection would pile its pages onto other chips beyond their share).
        if view.dead.is_dead(chip) {
            return home;
        }
        self.warned += 1;
        let Some(plane) = self.target(page.lpn, chip, view) else {
            return home;
        };
        if page.role == Role::Parity {
            self.redirected_parity += 1;
        } else {
            self.redirected += 1;
        }
        if !self.deferred[chip.idx()] {
            self.deferred[chip.idx()] = true;
            self.spared.push(chip);
        }
        plane
    }

    /// The plane of the best chip of another parity group for a warned write of `lpn`
    /// whose home chip is `home`.
    fn target(&self, lpn: Lpn, home: ChipId, view: &DeviceView) -> Option<PlaneId> {
        let r = view.raid?;
        let g = view.geom;
        let chunk = r.chunk_of(lpn);
        let mut taken = vec![home];
        stripe_chips(r, view, chunk.row, chunk.group, &mut taken);
        let mut best: Option<(u64, PlaneId)> = None;
        for (member, &chip_idx) in r.member_chip.iter().enumerate() {
            let chip = ChipId(chip_idx);
            if r.layout.group_of(member as u32) == chunk.group
                || taken.contains(&chip)
                || view.dead.is_dead(chip)
            {
                continue;
            }
            let plane = RaidMap::plane_in_chip(g, chip, chunk.row);
            if Self::gc_ahead(view, plane) {
                continue; // the candidate is about to collect itself
            }
            let reads = u64::from(view.queues.queued_reads[chip.idx()]);
            let others = u64::from(view.load(chip)).saturating_sub(reads);
            let ct = self.l_r * reads + self.l_w * others;
            if ct.saturating_add(self.l_w) > self.arrival_room(chip) {
                continue; // it would still be busy when its next request arrives
            }
            if best.is_none_or(|(b, _)| ct < b) {
                best = Some((ct, plane));
            }
        }
        best.map(|(_, p)| p)
    }

    /// DGC counters for the report.
    pub fn counters(&self) -> Vec<(Counter, u64)> {
        vec![
            (Counter::RedirectedWrites, self.redirected),
            (Counter::DeferredGc, self.deferred_runs),
            (Counter::DgcWarnedWrites, self.warned),
            (Counter::DgcRedirectedParity, self.redirected_parity),
        ]
    }
}

/// Appends to `out` the chip of every mapped page (data or parity) of stripe
/// (`row`, `group`), wherever DGC put it.
fn stripe_chips(r: &RaidMap, view: &DeviceView, row: u64, group: u32, out: &mut Vec<ChipId>) {
    let mut lpns = Vec::new();
    r.layout.stripe_lpns(row, group, &mut lpns);
    let parity = r.red_lpn(r.layout.parity_index(row, group));
    for l in lpns.iter().map(|&x| Lpn(x as u32)).chain([parity]) {
        if let Some(p) = view.ftl.lookup(l) {
            out.push(view.geom.chip_of_page(p));
        }
    }
}

impl Simulation {
    /// A request's transaction arrives at `chip` now.
    #[inline]
    pub(super) fn dgc_arrival(&mut self, chip: ssdlab_nand::ChipId) {
        if let Some(d) = self.dgc.as_mut() {
            d.arrival(chip, self.events.now().as_ns());
        }
    }

    /// Chips spared while idle (no work queued or running) collect now; called once the
    /// transactions being admitted are queued.
    pub(super) fn dgc_collect_idle_spared(&mut self) {
        while let Some(chip) = self.dgc.as_mut().and_then(|d| d.spared.pop()) {
            if self.queues.load[chip.idx()] == 0 {
                self.dgc_on_idle(chip);
            }
        }
    }

    /// An idle chip whose GC was deferred collects, one victim per plane at a time,
    /// until each plane has `dgc.idle_gc_blocks` free blocks above the GC threshold.
    pub(super) fn dgc_on_idle(&mut self, chip: ChipId) {
        let Some(d) = self.dgc.as_ref() else { return };
        if !d.deferred[chip.idx()] {
            return;
        }
        let want = u64::from(d.idle_gc_blocks) * u64::from(self.geom.pages_per_block);
        let mut busy = false;
        let mut runs = 0;
        for plane in self.geom.planes_of_chip(chip) {
            if self.plane_dead(plane) {
                continue;
            }
            if self.gc_jobs[plane.idx()].active() {
                busy = true;
            } else if self.ftl.pages_before_gc(plane) < want
                && self.start_gc(plane, super::gc_trigger::GcKind::Deferred)
            {
                runs += 1;
                busy = true;
            }
        }
        // Marked until the chip has its room back (or nothing left to collect).
        let d = self.dgc.as_mut().expect("checked above");
        d.deferred_runs += runs;
        d.deferred[chip.idx()] = busy;
    }

    /// DGC's placement invariant (for tests): the pages of a stripe, wherever DGC put
    /// them, sit on distinct chips, so one chip failure costs a stripe at most one page.
    pub(super) fn dgc_check_invariants(&self) {
        let Some(r) = self.raid.as_ref().filter(|_| self.dgc.is_some()) else {
            return;
        };
        let view = super::place::device_view!(self);
        let mut chips = Vec::new();
        for row in 0..r.map.layout.rows_for(r.map.host_pages) {
            for group in 0..r.map.layout.groups() {
                chips.clear();
                stripe_chips(&r.map, &view, row, group, &mut chips);
                chips.sort_unstable();
                assert!(
                    chips.windows(2).all(|w| w[0] != w[1]),
                    "stripe (row {row}, group {group}) has two pages on one chip: {chips:?}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The DGC paper's figures 3 and 5: 8 chips in two parity groups of 4 (chips 0–3 and
    //! 4–7), three pending writes W0, W1, W2, chip 0 about to collect.
    //!
    //! Pages are allocated when a write is admitted here, and a write that crosses the
    //! GC threshold is served before the GC it starts; so "chip 0 about to GC" is chip 0
    //! with no page left before the threshold, and it is W0 (the first write to chip 0)
    //! that would start the GC. In the paper chip 0 still has one page: W0 is warned and
    //! redirected, and W2 takes that last page. Here W2 finds chip 0 at the threshold too
    //! and goes to the other idle chip of group 1 (chip 5): the same two slots.

    use crate::config::{ConfigBuilder, SimConfig};
    use crate::sim::stream::VecStream;
    use crate::sim::Simulation;
    use ssdlab_nand::{ChipId, Lpn};
    use ssdlab_trace::{IoRequest, Op};
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// 8 channels of one chip (no bus sharing), 16 blocks of 4 pages per chip, GC below
    /// 4 free blocks; chip RAID-5 in adjacent groups of 4, no write buffering.
    fn config(dgc: bool) -> SimConfig {
        let text = "[geometry]\nchannels = 8\nchips_per_channel = 1\ndies_per_chip = 1\n\
                    planes_per_die = 1\nblocks_per_plane = 16\npages_per_block = 4\n\
                    page_size_bytes = 4096\n\
                    [ftl]\nover_provisioning = 0.25\n\
                    [ftl.gc]\nthreshold_free_ratio = 0.25\nbackground_free_ratio = 0.25\n\
                    reserve_blocks = 1\n\
                    [raid]\nlevel = 5\ndomain = \"chip\"\ngroup_size = 4\nlayout = \"adjacent\"\n\
                    buffer_new_writes = false\n\
                    [scheduler]\nname = \"async-fifo\"\n";
        ConfigBuilder::new()
            .text(text, "figure 3")
            .unwrap()
            .set(&format!("dgc.enabled={dgc}"))
            .unwrap()
            .build()
            .unwrap()
    }

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn write(lpn: u32) -> IoRequest {
        IoRequest {
            arrival_ns: 0,
            op: Op::Write,
            fua: false,
            offset_bytes: u64::from(lpn) * 4096,
            size_bytes: 4096,
            content: None,
            stream: None,
        }
    }

    struct Outcome {
        /// Response time of W0, W1, W2 (ns).
        response: [u64; 3],
        /// Chip holding W0's and W2's page at the end.
        chip_w0: ChipId,
        chip_w2: ChipId,
        deferred_gc: u64,
        erases: u64,
    }

    fn replay(dgc: bool) -> Outcome {
        let cfg = config(dgc);
        // W0 and W2: data chunks homed on chip 0 (rows a ≠ b); W1: a chunk of group 1 on
        // chip 6 whose parity is on chip 7, so chips 4 and 5 stay idle; a filler page on
        // chip 0 that ages it.
        let probe = Simulation::new(cfg.clone(), Box::new(VecStream::new(vec![])), "-").unwrap();
        let r = probe.raid.as_ref().unwrap();
        let chip_of = |lpn: u32| {
            let c = r.map.layout.locate(u64::from(lpn));
            (r.map.member_chip[c.member as usize], c)
        };
        let on_chip0: Vec<u32> = (0..r.map.host_pages as u32)
            .filter(|&l| chip_of(l).0 == 0)
            .take(3)
            .collect();
        let (w0, w2, filler) = (on_chip0[0], on_chip0[1], on_chip0[2]);
        assert_ne!(chip_of(w0).1.row, chip_of(w2).1.row);
        let w1 = (0..r.map.host_pages as u32)
            .find(|&l| {
                let (chip, c) = chip_of(l);
                let p = r.map.layout.parity(c.row, c.group).unwrap();
                chip == 6 && r.map.member_chip[p.member as usize] == 7
            })
            .unwrap();
        drop(probe);

        let reqs = vec![write(w0), write(w1), write(w2)];
        let mut sim = Simulation::new(cfg, Box::new(VecStream::new(reqs)), "figure 3").unwrap();
        let csv = Shared::default();
        sim.set_per_request_csv(Box::new(csv.clone()));
        // Age chip 0: overwrite one page until no page is left before the GC threshold.
        let plane0 = sim.geom.planes_of_chip(ChipId(0)).next().unwrap();
        let mut token = 1;
        while sim.ftl.pages_before_gc(plane0) > 0 {
            let ppn = sim.ftl.host_write(Lpn(filler), plane0, token).unwrap();
            sim.ftl.program_done(ppn);
            token += 1;
        }
        assert!(
            !sim.ftl.gc_needed(plane0),
            "chip 0 is at the threshold, not below"
        );
        sim.run_to_end().unwrap();
        let chip = |lpn: u32| sim.geom.chip_of_page(sim.ftl.lookup(Lpn(lpn)).unwrap());
        let (chip_w0, chip_w2) = (chip(w0), chip(w2));
        let deferred_gc = sim.dgc.as_ref().map_or(0, |d| d.deferred_runs);
        let report = sim.into_report().unwrap();
        let text = String::from_utf8(csv.0.lock().unwrap().clone()).unwrap();
        let mut response = [0; 3];
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let id: usize = f[0].parse().unwrap();
            response[id] = f[7].parse().unwrap();
        }
        Outcome {
            response,
            chip_w0,
            chip_w2,
            deferred_gc,
            erases: report.erases,
        }
    }

    /// One slot: a page over the bus and its program (default timing).
    const SLOT: u64 = 10_240 + 200_000;
    const ERASE: u64 = 1_500_000;

    #[test]
    fn without_dgc_w2_waits_behind_the_gc_that_w0_starts() {
        let o = replay(false);
        assert_eq!(o.chip_w0, ChipId(0));
        assert_eq!(o.chip_w2, ChipId(0));
        assert_eq!(o.response[0], SLOT, "W0 is served before the GC it starts");
        assert_eq!(o.response[1], SLOT);
        assert!(
            o.response[2] >= SLOT + ERASE + SLOT,
            "W2 waits behind W0 and the GC: {} ns",
            o.response[2]
        );
        assert_eq!(o.erases, 1);
    }

    #[test]
    fn with_dgc_w0_goes_to_chip_4_and_three_writes_take_two_slots() {
        let o = replay(true);
        assert_eq!(
            o.chip_w0,
            ChipId(4),
            "W0 redirected to the idle chip 4 of group 1"
        );
        assert_eq!(o.chip_w2, ChipId(5), "W2 to the other idle chip of group 1");
        let last = *o.response.iter().max().unwrap();
        assert!(last <= 2 * SLOT, "three writes in two slots: {last} ns");
        assert!(o.response.iter().all(|&r| r < ERASE), "{:?}", o.response);
        // Chip 0's GC ran afterwards, when it was idle.
        assert!(o.deferred_gc >= 1);
        assert!(o.erases >= 1);
    }
}
