//! The floor: how fast can a core do nothing but the flash work of a trace?
//!
//! ```text
//! cargo run --release -p ssdlab --example floor -- CONFIG.toml TRACE
//! ```
//!
//! A measuring instrument for docs/PERFORMANCE.md, not a simulator to use: it runs the
//! same flash work as `ssdlab bench` with the same timing model on the simplest family of
//! configurations (no RAID, static allocation, `async-fifo` without packing or
//! write-behind-read, one die per chip, open-loop host, writes acknowledged when
//! programmed, no GC), with nothing else. The same trace reader (on its own thread), the
//! same event queue, the same cache hints on the page tables; per transaction only the
//! translation, the page's allocation, the chip queue, the die and bus state machines
//! and one queue-time histogram; per request one latency histogram. Everything the
//! controller does for the features it carries (read plans, placement policies, RAID,
//! GC, DGC, verify, binding, merging, failures, per-chip and per-channel statistics, the
//! report's breakdowns) is left out, so its wall time is what a specialized core for
//! this family could approach, never beat by much.
//!
//! It prints its flash transactions and response times beside the wall time: on the
//! bench's synthetic trace they agree with `ssdlab bench` (a read of a page still being
//! programmed goes to flash here, where the controller answers it from its write buffer:
//! a few dozen transactions in millions). A configuration outside the family is refused,
//! and a run that would need GC stops with an error.

use hdrhistogram::Histogram;
use ssdlab::config::{Bind, HostMode, UnwrittenReads};
use ssdlab::sched::MergeReads;
use ssdlab::{ConfigBuilder, SimConfig};
use ssdlab_engine::{EventQueue, SimDuration, SimTime};
use ssdlab_ftl::prefetch::{ask, Soon};
use ssdlab_ftl::{AddressFold, Allocation};
use ssdlab_nand::{DieId, Geometry, Lpn, PlaneId, Ppn, WriteAck};
use ssdlab_raid::RaidLevel;
use ssdlab_trace::{IoRequest, Op, RequestStream, TraceOptions, TraceSource};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// "No index".
const NONE: u32 = u32::MAX;
/// Event-queue lanes (one fixed delay each).
const READ_LANE: usize = 0;
const PROGRAM_LANE: usize = 1;
const BUS_LANE: usize = 3;

#[derive(Clone, Copy)]
enum Event {
    Arrival,
    ArrayDone(u32),
    BusDone(u32),
}

#[derive(Clone, Copy)]
struct Txn {
    program: bool,
    die: u32,
    req: u32,
    enqueued_ns: u64,
    started_ns: u64,
}

#[derive(Clone, Copy)]
struct Req {
    arrival_ns: u64,
    first_lpn: u64,
    pages: u32,
    pending: u32,
    write: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    ReadArray,
    ReadXfer,
    ProgXfer,
    ProgArray,
}

struct Floor {
    geom: Geometry,
    events: EventQueue<Event>,
    /// Static allocation: the plane of each LPN of one period of the order.
    period: Vec<PlaneId>,
    /// LPN → PPN + 1 (0: never written); PPN → LPN + 1 (0: free or invalid).
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u16>,
    /// Per plane: its next free page ([`NONE`]: open a block) and blocks opened so far.
    frontier: Vec<u32>,
    opened: Vec<u32>,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    reqs: Vec<Req>,
    free_reqs: Vec<u32>,
    chip_queue: Vec<VecDeque<u32>>,
    overflow: Vec<VecDeque<u32>>,
    phase: Vec<Phase>,
    head: Vec<u32>,
    bus_holder: Vec<u32>,
    bus_waiters: Vec<VecDeque<u32>>,
    source: Box<dyn RequestStream>,
    lookahead: Option<IoRequest>,
    host_queue: VecDeque<u32>,
    outstanding: u32,
    device_queue_depth: u32,
    chip_queue_depth: usize,
    logical_pages: u64,
    /// Free blocks per plane below which the controller would start GC.
    gc_threshold: u32,
    t_read: SimDuration,
    t_prog: SimDuration,
    xfer: SimDuration,
    response: Histogram<u64>,
    queue_time: Histogram<u64>,
    reads: u64,
    programs: u64,
    failure: Option<String>,
}

impl Floor {
    fn new(cfg: &SimConfig, source: Box<dyn RequestStream>) -> Result<Floor, String> {
        check_family(cfg)?;
        let geom = cfg.geometry;
        let map = cfg.ftl.static_order.stripe_map(&geom);
        let chips = geom.chips() as usize;
        let hist = || Histogram::new(3).map_err(|e| e.to_string());
        Ok(Floor {
            geom,
            events: EventQueue::new(),
            period: (0..geom.planes()).map(|l| map.plane_of(Lpn(l))).collect(),
            l2p: vec![0; cfg.ftl.logical_pages(&geom) as usize],
            p2l: vec![0; geom.pages() as usize],
            valid: vec![0; geom.blocks() as usize],
            frontier: vec![NONE; geom.planes() as usize],
            opened: vec![0; geom.planes() as usize],
            txns: Vec::new(),
            free_txns: Vec::new(),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            chip_queue: (0..chips).map(|_| VecDeque::new()).collect(),
            overflow: (0..chips).map(|_| VecDeque::new()).collect(),
            phase: vec![Phase::Idle; chips],
            head: vec![NONE; chips],
            bus_holder: vec![NONE; geom.channels as usize],
            bus_waiters: (0..geom.channels).map(|_| VecDeque::new()).collect(),
            source,
            lookahead: None,
            host_queue: VecDeque::new(),
            outstanding: 0,
            device_queue_depth: cfg.host.device_queue_depth,
            chip_queue_depth: cfg.scheduler.chip_queue_depth as usize,
            logical_pages: u64::from(cfg.ftl.logical_pages(&geom)),
            gc_threshold: cfg.ftl.gc_threshold_blocks(&geom),
            t_read: SimDuration(cfg.timing.t_read_ns),
            t_prog: SimDuration(cfg.timing.t_prog_ns),
            xfer: SimDuration(cfg.timing.page_transfer_ns(geom.page_size_bytes)),
            response: hist()?,
            queue_time: hist()?,
            reads: 0,
            programs: 0,
            failure: None,
        })
    }

    fn now(&self) -> u64 {
        self.events.now().as_ns()
    }

    fn fold(&self, lpn: u64) -> usize {
        (lpn % self.logical_pages) as usize
    }

    fn pages_of(&self, io: &IoRequest) -> (u64, u32) {
        let page = u64::from(self.geom.page_size_bytes);
        let first = io.offset_bytes / page;
        let last = (io.offset_bytes + io.size_bytes - 1) / page;
        (first, (last - first + 1) as u32)
    }

    /// Reads the next request ahead of its arrival and asks for its map entries.
    fn next_arrival(&mut self) {
        match self.source.next() {
            Some(Ok(io)) => {
                let (first, n) = self.pages_of(&io);
                for i in 0..u64::from(n) {
                    ask(&self.l2p, self.fold(first + i), Soon::Read);
                }
                let at = io.arrival_ns.max(self.now());
                self.lookahead = Some(io);
                self.events
                    .schedule(SimTime(at), Event::Arrival)
                    .expect("never in the past");
            }
            Some(Err(e)) => self.failure = Some(e.to_string()),
            None => {}
        }
    }

    fn arrive(&mut self) {
        let io = self.lookahead.take().expect("an arrival has its request");
        let (first_lpn, pages) = self.pages_of(&io);
        let r = Req {
            arrival_ns: self.now(),
            first_lpn,
            pages,
            pending: pages,
            write: io.op == Op::Write,
        };
        let id = insert(&mut self.reqs, &mut self.free_reqs, r);
        if self.outstanding < self.device_queue_depth {
            self.admit(id);
        } else {
            self.host_queue.push_back(id);
        }
        self.next_arrival();
    }

    /// Maps `lpn` to a new page of its static plane; the page it leaves is invalid.
    fn allocate(&mut self, lpn: usize) -> u32 {
        let plane = self.period[lpn % self.period.len()];
        let p = plane.idx();
        let mut ppn = self.frontier[p];
        if ppn == NONE {
            let n = self.opened[p];
            if self.geom.blocks_per_plane - n <= self.gc_threshold {
                self.failure = Some(format!(
                    "plane {plane} would start GC here (its free blocks fall below the \
                     ftl.gc threshold): this floor has no GC"
                ));
                return 0;
            }
            self.opened[p] += 1;
            ppn = self
                .geom
                .page_of_block(self.geom.block_of_plane(plane, n), 0)
                .0;
        }
        let old = self.l2p[lpn];
        if old != 0 {
            self.p2l[(old - 1) as usize] = 0;
            self.valid[self.geom.block_of_page(Ppn(old - 1)).idx()] -= 1;
        }
        self.l2p[lpn] = ppn + 1;
        self.p2l[ppn as usize] = lpn as u32 + 1;
        self.valid[self.geom.block_of_page(Ppn(ppn)).idx()] += 1;
        let next = ppn + 1;
        self.frontier[p] = if next.is_multiple_of(self.geom.pages_per_block) {
            NONE
        } else {
            next
        };
        ppn
    }

    fn admit(&mut self, id: u32) {
        self.outstanding += 1;
        let Req {
            first_lpn,
            pages,
            write,
            ..
        } = self.reqs[id as usize];
        if write {
            for i in 0..u64::from(pages) {
                match self.l2p[self.fold(first_lpn + i)] {
                    0 => {}
                    v => ask(&self.p2l, (v - 1) as usize, Soon::Written),
                }
            }
        }
        let now = self.now();
        for i in 0..u64::from(pages) {
            let lpn = self.fold(first_lpn + i);
            let ppn = match self.l2p[lpn] {
                // A never-written page a read asks for is written first, in zero time.
                0 => self.allocate(lpn),
                _ if write => self.allocate(lpn),
                v => v - 1,
            };
            let die = self.geom.die_of_page(Ppn(ppn)).0;
            let t = Txn {
                program: write,
                die,
                req: id,
                enqueued_ns: now,
                started_ns: 0,
            };
            let t = insert(&mut self.txns, &mut self.free_txns, t);
            let chip = die as usize;
            if self.overflow[chip].is_empty() && self.chip_queue[chip].len() < self.chip_queue_depth
            {
                self.chip_queue[chip].push_back(t);
            } else {
                self.overflow[chip].push_back(t);
            }
            if self.phase[chip] == Phase::Idle {
                self.start(die);
            }
        }
    }

    fn start(&mut self, die: u32) {
        let d = die as usize;
        let Some(t) = self.chip_queue[d].pop_front() else {
            return;
        };
        if let Some(next) = self.overflow[d].pop_front() {
            self.chip_queue[d].push_back(next);
        }
        let now = self.now();
        let txn = &mut self.txns[t as usize];
        txn.started_ns = now;
        self.head[d] = t;
        if txn.program {
            self.programs += 1;
            self.phase[d] = Phase::ProgXfer;
            self.request_bus(t, d);
        } else {
            self.reads += 1;
            self.phase[d] = Phase::ReadArray;
            self.events
                .schedule_in_lane(READ_LANE, self.t_read, Event::ArrayDone(die));
        }
    }

    fn channel_of(&self, die: usize) -> usize {
        let chip = self.geom.chip_of_die(DieId(die as u32));
        self.geom.channel_of_chip(chip).idx()
    }

    fn request_bus(&mut self, t: u32, die: usize) {
        let ch = self.channel_of(die);
        if self.bus_holder[ch] == NONE {
            self.bus_holder[ch] = t;
            self.events
                .schedule_in_lane(BUS_LANE, self.xfer, Event::BusDone(ch as u32));
        } else {
            self.bus_waiters[ch].push_back(t);
        }
    }

    fn complete(&mut self, t: u32) {
        let txn = self.txns[t as usize];
        let now = self.now();
        let _ = self.queue_time.record(txn.started_ns - txn.enqueued_ns);
        self.free_txns.push(t);
        let r = &mut self.reqs[txn.req as usize];
        r.pending -= 1;
        if r.pending == 0 {
            let _ = self.response.record(now - r.arrival_ns);
            self.free_reqs.push(txn.req);
            self.outstanding -= 1;
            if self.outstanding < self.device_queue_depth {
                if let Some(next) = self.host_queue.pop_front() {
                    self.admit(next);
                }
            }
        }
    }

    fn release(&mut self, die: usize) {
        self.phase[die] = Phase::Idle;
        self.start(die as u32);
    }

    fn run(&mut self) -> Result<(), String> {
        self.next_arrival();
        while let Some((_, ev)) = self.events.pop() {
            match ev {
                Event::Arrival => self.arrive(),
                Event::ArrayDone(die) => {
                    let d = die as usize;
                    match self.phase[d] {
                        Phase::ReadArray => {
                            self.phase[d] = Phase::ReadXfer;
                            self.request_bus(self.head[d], d);
                        }
                        Phase::ProgArray => {
                            self.complete(self.head[d]);
                            self.release(d);
                        }
                        _ => unreachable!("array done on a die in another phase"),
                    }
                }
                Event::BusDone(ch) => {
                    let c = ch as usize;
                    let t = self.bus_holder[c];
                    self.bus_holder[c] = NONE;
                    if let Some(next) = self.bus_waiters[c].pop_front() {
                        self.bus_holder[c] = next;
                        self.events
                            .schedule_in_lane(BUS_LANE, self.xfer, Event::BusDone(ch));
                    }
                    let d = self.txns[t as usize].die as usize;
                    match self.phase[d] {
                        Phase::ReadXfer => {
                            self.complete(t);
                            self.release(d);
                        }
                        Phase::ProgXfer => {
                            self.phase[d] = Phase::ProgArray;
                            self.events.schedule_in_lane(
                                PROGRAM_LANE,
                                self.t_prog,
                                Event::ArrayDone(d as u32),
                            );
                        }
                        _ => unreachable!("bus done for a die in another phase"),
                    }
                }
            }
            if let Some(f) = self.failure.take() {
                return Err(f);
            }
        }
        // A trace that fails at its first request schedules no event.
        self.failure.take().map_or(Ok(()), Err)
    }
}

/// Stores `x` in a free slot of `slots` (or a new one) and returns its index.
fn insert<T>(slots: &mut Vec<T>, free: &mut Vec<u32>, x: T) -> u32 {
    match free.pop() {
        Some(i) => {
            slots[i as usize] = x;
            i
        }
        None => {
            slots.push(x);
            (slots.len() - 1) as u32
        }
    }
}

/// The family this floor covers, or what takes `cfg` outside it.
fn check_family(cfg: &SimConfig) -> Result<(), String> {
    let outside = [
        (
            cfg.raid.level != RaidLevel::None,
            "raid.level must be \"none\"",
        ),
        (
            cfg.scheduler.name.name() != "async-fifo",
            "scheduler.name must be \"async-fifo\"",
        ),
        (
            cfg.scheduler.multi_plane,
            "scheduler.multi_plane must be false",
        ),
        (
            cfg.scheduler.write_behind_read,
            "scheduler.write_behind_read must be false",
        ),
        (
            cfg.ftl.allocation != Allocation::Static,
            "ftl.allocation must be \"static\"",
        ),
        (
            cfg.ftl.address_fold != AddressFold::Modulo,
            "ftl.address_fold must be \"modulo\"",
        ),
        (cfg.ftl.precondition.enabled, "ftl.precondition must be off"),
        (cfg.geometry.dies_per_chip != 1, "one die per chip"),
        (
            cfg.host.mode != HostMode::Open,
            "host.mode must be \"open\"",
        ),
        (cfg.host.time_scale != 1.0, "host.time_scale must be 1"),
        (
            cfg.host.unwritten_reads != UnwrittenReads::Materialize,
            "host.unwritten_reads must be \"materialize\"",
        ),
        (
            cfg.timing.write_ack != WriteAck::Program,
            "timing.write_ack must be \"program\"",
        ),
        (cfg.ftl.gc.background, "ftl.gc.background must be false"),
        (
            cfg.placement.bind != Bind::Admission,
            "placement.bind must be \"admission\"",
        ),
        (
            cfg.scheduler.merge.reads != MergeReads::Off,
            "scheduler.merge.reads must be \"off\"",
        ),
        (
            cfg.content_index(),
            "no content index (dsftl.index, content-aware allocation)",
        ),
        (!cfg.raid.fail.is_empty(), "raid.fail must be empty"),
        (cfg.dgc.enabled, "dgc must be off"),
        (cfg.verify, "verify must be off"),
    ];
    match outside.iter().find(|(bad, _)| *bad) {
        Some((_, why)) => Err(format!("outside this floor's family: {why}")),
        None => Ok(()),
    }
}

fn main() -> ExitCode {
    let start = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [config, trace] = args.as_slice() else {
        eprintln!("usage: floor CONFIG.toml TRACE");
        return ExitCode::from(2);
    };
    let result = (|| -> Result<(Floor, f64), String> {
        let cfg = ConfigBuilder::new()
            .file(config.as_ref())
            .map_err(|e| e.to_string())?
            .build()
            .map_err(|e| e.to_string())?;
        let source = TraceSource::File {
            path: PathBuf::from(trace),
            options: TraceOptions::default(),
        }
        .open()
        .map_err(|e| e.to_string())?;
        let mut floor = Floor::new(&cfg, source)?;
        let set_up = start.elapsed().as_secs_f64();
        floor.run()?;
        Ok((floor, set_up))
    })();
    match result {
        Ok((f, set_up)) => {
            let r = &f.response;
            println!("set-up:              {set_up:.3} s");
            println!("host requests:       {}", r.len());
            println!(
                "flash transactions:  {} ({} reads, {} programs)",
                f.reads + f.programs,
                f.reads,
                f.programs
            );
            println!(
                "response time:       mean {:.0} ns, p99 {} ns, max {} ns",
                r.mean(),
                r.value_at_quantile(0.99),
                r.max()
            );
            println!("queue time (mean):   {:.0} ns", f.queue_time.mean());
            println!("simulated time:      {} ns", f.now());
            println!(
                "whole process:       {:.3} s",
                start.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("floor: {e}");
            ExitCode::FAILURE
        }
    }
}
