//! When foreground GC starts (`ftl.gc.trigger`), and what made a plane need it.
//!
//! * `"eager"`: a GC job starts as soon as the write that took a plane below the free-
//!   block threshold is queued (the checks in [`Simulation::run_gc_checks`]); its
//!   transactions join the queues behind the work already there.
//! * `"lazy"`: a plane below the threshold waits until its die is about to serve a
//!   request that waits for it; the job then starts *blocking*: its transactions are
//!   served by the die before anything the scheduler holds (DiskSim's SSD model, where
//!   `ssd_activate_elem` cleans an element activated with requests waiting and the
//!   element stays busy for the whole clean; DGC §4.3). A plane whose writes found no
//!   free page at all (parked writes) starts at once, also blocking. A GC read of a page
//!   whose program is still queued goes through the scheduler behind that program, so
//!   the job may let other work pass while it waits for it.
//!
//! Every foreground GC start is counted by what took its plane below the threshold: a
//! host data write, a parity write, the previous GC (a plane still below the threshold
//! after an erase), or other work (materialized reads, rebuild).

use super::txn::TxnId;
use super::Simulation;
use ssdlab_ftl::GcTrigger;
use ssdlab_nand::{DieId, PlaneId, TxnReason};
use ssdlab_stats::Counter;

/// What took a plane below the GC threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GcCause {
    /// Nothing recorded since the plane's last GC start.
    None,
    /// A host data write (or its RAID-1 copy).
    Data,
    /// A RAID parity write.
    Parity,
    /// The plane was still below the threshold when its previous GC erased its victim.
    Chain,
    /// Other zero-time or background writes (materialized reads, rebuild).
    Other,
}

/// Why a GC job starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GcKind {
    /// The plane is below the threshold (counted by cause).
    Foreground,
    /// Idle-time GC (`ftl.gc.background`).
    Background,
    /// DGC's GC of a chip it spared, on an idle chip.
    Deferred,
}

/// Foreground GC starts by cause (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GcStarts {
    pub data: u64,
    pub parity: u64,
    pub chain: u64,
    pub other: u64,
}

impl GcStarts {
    /// The report's counters.
    pub fn counters(&self) -> [(Counter, u64); 4] {
        [
            (Counter::GcStartsData, self.data),
            (Counter::GcStartsParity, self.parity),
            (Counter::GcStartsChain, self.chain),
            (Counter::GcStartsOther, self.other),
        ]
    }
}

impl Simulation {
    /// True with `ftl.gc.trigger = "lazy"`.
    #[inline]
    pub(super) fn gc_lazy(&self) -> bool {
        self.cfg.ftl.gc.trigger == GcTrigger::Lazy
    }

    /// A page was just allocated in `plane` by work of `cause`: check the plane for GC
    /// once the work being admitted is queued, and remember the cause if this
    /// allocation took it below the threshold.
    #[inline]
    pub(in crate::sim) fn gc_check_after(&mut self, plane: PlaneId, cause: GcCause) {
        if self.gc_check.last() != Some(&plane) {
            self.gc_check.push(plane);
        }
        self.note_gc_cause(plane, cause);
    }

    /// Remembers `cause` as what took `plane` below the GC threshold, if it is below and
    /// no cause is recorded since its last GC start.
    #[inline]
    pub(in crate::sim) fn note_gc_cause(&mut self, plane: PlaneId, cause: GcCause) {
        let c = &mut self.gc_cause[plane.idx()];
        if *c == GcCause::None && self.ftl.gc_needed(plane) {
            *c = cause;
        }
    }

    /// A GC job of `kind` starts in `plane`: counts a foreground start by its cause.
    pub(super) fn note_gc_start(&mut self, plane: PlaneId, kind: GcKind) {
        let cause = std::mem::replace(&mut self.gc_cause[plane.idx()], GcCause::None);
        if kind != GcKind::Foreground {
            return;
        }
        let s = &mut self.gc_starts;
        match cause {
            GcCause::Data => s.data += 1,
            GcCause::Parity => s.parity += 1,
            GcCause::Chain => s.chain += 1,
            GcCause::None | GcCause::Other => s.other += 1,
        }
    }

    /// `plane`'s GC erased its victim; if the plane still needs GC, the next start is
    /// a chain.
    pub(super) fn note_gc_erased(&mut self, plane: PlaneId) {
        if self.ftl.gc_needed(plane) {
            self.gc_cause[plane.idx()] = GcCause::Chain;
        }
    }

    /// Whether a foreground GC check may start a job in `plane` now: always when eager;
    /// when lazy only if writes wait for space there (the die's activation starts the
    /// rest, [`Simulation::lazy_gc_pick`]).
    #[inline]
    pub(super) fn gc_may_start_now(&self, plane: PlaneId) -> bool {
        !self.gc_lazy() || !self.parked[plane.idx()].is_empty()
    }

    /// Hands GC transaction `id` of a blocking job to its die directly; false if it must
    /// go through the scheduler (eager or non-blocking jobs; a GC read of a page whose
    /// program is still queued, which must stay behind that program).
    pub(super) fn gc_direct(&mut self, id: TxnId) -> bool {
        let t = &self.txns[id];
        let plane = self.geom.plane_of_page(t.ppn);
        if !self.gc_blocking[plane.idx()]
            || (matches!(t.reason, TxnReason::GcRead | TxnReason::FoldRead)
                && self.ftl.is_pending(t.ppn))
        {
            return false;
        }
        let die = t.die;
        self.gc_first[die.idx()].push_back(id);
        let chip = self.geom.chip_of_die(die);
        if !self.queues.is_touched[chip.idx()] {
            self.queues.is_touched[chip.idx()] = true;
            self.queues.touched.push(chip);
        }
        true
    }

    /// Lazy GC at the activation of idle `die`: if one of its planes needs GC and work
    /// waits for the chip, a blocking job starts there. Then `group` takes the die's
    /// next blocking GC transaction, if any; false when there is none (the scheduler
    /// picks).
    pub(super) fn lazy_gc_pick(&mut self, die: DieId, group: &mut Vec<TxnId>) -> bool {
        if self.gc_first.is_empty() {
            return false;
        }
        if self.gc_first[die.idx()].is_empty() && self.work_waits_for(die) {
            for n in 0..self.geom.planes_per_die {
                let plane = self.geom.plane_of_die(die, n);
                if !self.gc_jobs[plane.idx()].active()
                    && !self.plane_dead(plane)
                    && self.ftl.gc_needed(plane)
                {
                    self.start_gc(plane, GcKind::Foreground);
                }
            }
        }
        match self.gc_first[die.idx()].pop_front() {
            Some(t) => {
                group.push(t);
                let op = self.txns[t].op;
                sched!(self, |s, ctx| s.on_direct_start(die, op, ctx));
                true
            }
            None => false,
        }
    }

    /// True when the chip of idle `die` has work queued or held that is not running.
    fn work_waits_for(&self, die: DieId) -> bool {
        let chip = self.geom.chip_of_die(die).idx();
        self.queues.load[chip] > self.chip_run[chip].running
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ConfigBuilder, SimConfig};
    use crate::sim::stream::VecStream;
    use crate::sim::Simulation;
    use ssdlab_nand::{ChipId, Lpn};
    use ssdlab_stats::Counter;
    use ssdlab_trace::{IoRequest, Op};

    /// 2 chips on 2 channels, one plane of 16 blocks of 4 pages each, GC below 4 free
    /// blocks; no RAID, static allocation (LPN `l` on chip `l mod 2`).
    fn config(trigger: &str) -> SimConfig {
        let text = "[geometry]\nchannels = 2\nchips_per_channel = 1\ndies_per_chip = 1\n\
                    planes_per_die = 1\nblocks_per_plane = 16\npages_per_block = 4\n\
                    page_size_bytes = 4096\n\
                    [ftl]\nover_provisioning = 0.25\n\
                    [ftl.gc]\nthreshold_free_ratio = 0.25\nbackground_free_ratio = 0.25\n\
                    reserve_blocks = 1\n";
        ConfigBuilder::new()
            .text(text, "lazy")
            .unwrap()
            .set(&format!("ftl.gc.trigger=\"{trigger}\""))
            .unwrap()
            .build()
            .unwrap()
    }

    fn req(arrival_ns: u64, op: Op, lpn: u32) -> IoRequest {
        IoRequest {
            arrival_ns,
            op,
            fua: false,
            offset_bytes: u64::from(lpn) * 4096,
            size_bytes: 4096,
            content: None,
            stream: None,
        }
    }

    /// Runs `reqs` after overwriting LPN 0 on chip 0 until its plane has `left` pages
    /// before the threshold (0 with `below`: then one more, so GC is due); returns the
    /// response time of each request, the erases and the foreground GC starts.
    fn replay(trigger: &str, below: bool, reqs: Vec<IoRequest>) -> (Vec<u64>, u64, [u64; 4]) {
        let n = reqs.len();
        let mut sim =
            Simulation::new(config(trigger), Box::new(VecStream::new(reqs)), "-").unwrap();
        sim.keep_request_log();
        let plane = sim.geom.planes_of_chip(ChipId(0)).next().unwrap();
        let mut token = 1;
        while sim.ftl.pages_before_gc(plane) > 0 || (below && !sim.ftl.gc_needed(plane)) {
            let ppn = sim.ftl.host_write(Lpn(0), plane, token).unwrap();
            sim.ftl.program_done(ppn);
            token += 1;
        }
        sim.run_to_end().unwrap();
        let log = sim.take_request_log().unwrap();
        let response = (0..n).map(|i| log.response_ns(i)).collect();
        let report = sim.into_report().unwrap();
        let starts = [
            Counter::GcStartsData,
            Counter::GcStartsParity,
            Counter::GcStartsChain,
            Counter::GcStartsOther,
        ]
        .map(|c| report.counter(c));
        (response, report.erases, starts)
    }

    /// A read: array time plus one page on the 400 MB/s default bus.
    const READ: u64 = 25_000 + 10_240;
    /// A program: one page over the bus, then the array.
    const SLOT: u64 = 10_240 + 200_000;
    const ERASE: u64 = 1_500_000;

    #[test]
    fn eager_gc_runs_behind_the_write_that_crossed_the_threshold() {
        let (resp, erases, starts) = replay("eager", false, vec![req(0, Op::Write, 2)]);
        assert_eq!(resp, [SLOT], "the write is served before the GC it starts");
        assert!(erases >= 1);
        assert_eq!(starts, [1, 0, 0, 0], "started by a host data write");
    }

    #[test]
    fn lazy_gc_runs_before_the_waiting_request_and_blocks_it() {
        let (resp, erases, starts) = replay("lazy", false, vec![req(0, Op::Write, 2)]);
        assert!(
            resp[0] >= ERASE + SLOT,
            "the write waits for the GC: {} ns",
            resp[0]
        );
        assert!(erases >= 1);
        assert_eq!(starts, [1, 0, 0, 0]);
    }

    #[test]
    fn lazy_gc_waits_for_a_request_and_then_blocks_even_a_read() {
        // The plane is due from the start and nothing arrives for 50 ms: eager GC needs
        // a write to check the plane and never runs; lazy GC starts only when the read
        // arrives, and the read waits for all of it (DiskSim's element cleaning).
        let reqs = || vec![req(50_000_000, Op::Read, 0)];
        let (resp, erases, _) = replay("eager", true, reqs());
        assert_eq!((resp[0], erases), (READ, 0));
        let (resp, erases, starts) = replay("lazy", true, reqs());
        assert!(erases >= 1);
        assert!(
            resp[0] >= ERASE + READ,
            "the read waits for the GC: {} ns",
            resp[0]
        );
        assert_eq!(
            starts[3], 1,
            "no write took the plane below the threshold here"
        );
    }

    #[test]
    fn lazy_gc_leaves_other_chips_alone() {
        // The write to chip 1 finds nothing due there: it is served at once.
        let (resp, erases, _) = replay("lazy", true, vec![req(0, Op::Write, 1)]);
        assert_eq!((resp[0], erases), (SLOT, 0));
    }
}
