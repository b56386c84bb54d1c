//! The [`Recorder`]: collects metrics while the simulation runs.

use std::io;

use ssdlab_nand::{ChannelId, ChipId, FlashOp, TxnReason};

use crate::counter::Counter;
use crate::csv::CsvSink;
use crate::latency::{ClassLatency, ClassStats};
use crate::mirror::MirrorEnd;
use crate::record::{EndState, OpClass, RequestRecord, Shape, TxnRecord};
use crate::report::Report;
use crate::request_log::RequestLog;

/// Totals of one request class.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WorkAcc {
    pub(crate) bytes: u64,
    pub(crate) pages: u64,
    pub(crate) flash_ops: u64,
    pub(crate) buffer_hits: u64,
    pub(crate) host_queued: u64,
    pub(crate) service_sum_ns: u128,
    pub(crate) pre_read_sum_ns: u128,
    pub(crate) gc_wait_sum_ns: u128,
    pub(crate) host_wait_sum_ns: u128,
    /// Waiting for room in DRAM (only with a DRAM stage: [`Recorder::buffer_wait`]).
    pub(crate) buffer_wait_sum_ns: Option<u128>,
    /// Read retries and soft decodes (only with the error model: [`Recorder::retry`]).
    pub(crate) retry_sum_ns: Option<u128>,
    /// Time on the PCIe link (only with one: [`Recorder::pcie`]).
    pub(crate) pcie_sum_ns: Option<u128>,
}

impl WorkAcc {
    #[inline]
    fn add(&mut self, r: &RequestRecord) {
        self.bytes += r.size_bytes;
        self.pages += u64::from(r.pages);
        self.flash_ops += u64::from(r.flash_ops);
        self.buffer_hits += u64::from(r.buffer_hits);
        self.host_queued += u64::from(r.admitted_ns > r.arrival_ns);
        self.host_wait_sum_ns += u128::from(r.admitted_ns.saturating_sub(r.arrival_ns));
        self.service_sum_ns += u128::from(r.service_ns);
        self.pre_read_sum_ns += u128::from(r.pre_read_ns);
    }
}

/// Totals of the transactions of one reason.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReasonAcc {
    pub(crate) count: u64,
    pub(crate) pages: u64,
    pub(crate) queue_sum_ns: u128,
    pub(crate) bus_wait_sum_ns: u128,
    pub(crate) bus_sum_ns: u128,
    pub(crate) array_sum_ns: u128,
}

/// Collects metrics during a run; [`Recorder::finish`] turns them into a [`Report`].
///
/// The hot-path methods are O(1) and allocate nothing in steady state (a latency
/// histogram grows once if a value beyond 10 s appears).
pub struct Recorder {
    pub(crate) shape: Shape,
    pub(crate) response: ClassLatency,
    pub(crate) waiting: ClassLatency,
    pub(crate) host_queue_wait: ClassLatency,
    pub(crate) work: ClassStats<WorkAcc>,
    pub(crate) util_samples: u64,
    pub(crate) util_busy_sum: u128,
    pub(crate) reasons: [ReasonAcc; TxnReason::ALL.len()],
    pub(crate) programmed_pages: u64,
    /// Programmed pages per channel; `None` until a transaction names its channel.
    pub(crate) channel_programs: Option<Vec<u64>>,
    pub(crate) chip_programs: Option<Vec<u64>>,
    /// Per [`Counter::index`]: `None` until the counter is first counted (a counter
    /// counted with 0 is reported, one never counted is not).
    pub(crate) counters: [Option<u64>; Counter::ALL.len()],
    pub(crate) last_completion_ns: u64,
    /// CR5M's end-of-run state, when the device has mirror chips.
    pub(crate) mirror: Option<MirrorEnd>,
    /// The DRAM stage's section, when the device has one.
    pub(crate) dram: Option<crate::DramReport>,
    sink: Option<CsvSink>,
    /// The per-request CSV has a status column ([`Recorder::add_status_column`]).
    status_column: bool,
    sink_error: Option<io::Error>,
    log: Option<RequestLog>,
    /// The tenant of the request recorded next (with several tenants).
    tenant: usize,
}

impl Recorder {
    /// A recorder for a device of this shape.
    pub fn new(shape: Shape) -> Self {
        Recorder {
            shape,
            response: ClassLatency::new(),
            waiting: ClassLatency::new(),
            host_queue_wait: ClassLatency::new(),
            work: ClassStats::default(),
            util_samples: 0,
            util_busy_sum: 0,
            reasons: [ReasonAcc::default(); TxnReason::ALL.len()],
            programmed_pages: 0,
            channel_programs: None,
            chip_programs: None,
            counters: [None; Counter::ALL.len()],
            last_completion_ns: 0,
            mirror: None,
            dram: None,
            sink: None,
            status_column: false,
            sink_error: None,
            log: None,
            tenant: 0,
        }
    }

    /// The shape this recorder was built for.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Records one completed host request. Hot path: O(1), no allocation.
    ///
    /// Precondition: `arrival_ns <= admitted_ns <= completion_ns` (checked in debug
    /// builds; release builds saturate).
    #[inline]
    pub fn request_done(&mut self, r: &RequestRecord) {
        debug_assert!(
            r.arrival_ns <= r.admitted_ns,
            "request {} admitted before arrival",
            r.id
        );
        debug_assert!(
            r.admitted_ns <= r.completion_ns,
            "request {} done before admission",
            r.id
        );
        let response_ns = r.completion_ns.saturating_sub(r.arrival_ns);
        let waiting_ns = response_ns.saturating_sub(r.service_ns + r.pre_read_ns);
        let host_wait_ns = r.admitted_ns.saturating_sub(r.arrival_ns);
        self.response.record(r.op, response_ns);
        self.waiting.record(r.op, waiting_ns);
        self.host_queue_wait.record(r.op, host_wait_ns);
        self.work.all.add(r);
        self.work.class_mut(r.op).add(r);
        self.last_completion_ns = self.last_completion_ns.max(r.completion_ns);
        if let Some(sink) = &mut self.sink {
            sink.write(r, response_ns, waiting_ns);
        }
        if let Some(log) = &mut self.log {
            log.push(r, self.tenant);
        }
    }

    /// Adds the part of one completed request's waiting time that it spent behind GC
    /// work (DGC's T_GC). Call at most once per request; optional. The response-time
    /// breakdown splits waiting into this and the rest.
    #[inline]
    pub fn gc_wait(&mut self, op: OpClass, wait_ns: u64) {
        self.work.all.gc_wait_sum_ns += u128::from(wait_ns);
        self.work.class_mut(op).gc_wait_sum_ns += u128::from(wait_ns);
    }

    /// Adds the part of one completed request's waiting time that it spent waiting for
    /// room in DRAM (T_buffer_wait). Call once per request of a device with a DRAM
    /// stage: the breakdown then has a buffer-wait part for every class.
    #[inline]
    pub fn buffer_wait(&mut self, op: OpClass, wait_ns: u64) {
        let w = u128::from(wait_ns);
        *self.work.all.buffer_wait_sum_ns.get_or_insert(0) += w;
        *self.work.class_mut(op).buffer_wait_sum_ns.get_or_insert(0) += w;
        // Both classes have a buffer-wait part once the device has a DRAM stage.
        self.work.read.buffer_wait_sum_ns.get_or_insert(0);
        self.work.write.buffer_wait_sum_ns.get_or_insert(0);
    }

    /// Adds the read-retry part (T_retry) of one completed request's service. Call once
    /// per request of a device with the error model: the breakdown then has a retry
    /// part for every class.
    #[inline]
    pub fn retry(&mut self, op: OpClass, retry_ns: u64) {
        let r = u128::from(retry_ns);
        *self.work.all.retry_sum_ns.get_or_insert(0) += r;
        *self.work.class_mut(op).retry_sum_ns.get_or_insert(0) += r;
        self.work.read.retry_sum_ns.get_or_insert(0);
        self.work.write.retry_sum_ns.get_or_insert(0);
    }

    /// Adds the time one completed request spent on the PCIe link, queueing for it and
    /// crossing it, in both directions (T_pcie). Call once per request of a device with
    /// a link: the breakdown then has a PCIe part for every class.
    #[inline]
    pub fn pcie(&mut self, op: OpClass, ns: u64) {
        let w = u128::from(ns);
        *self.work.all.pcie_sum_ns.get_or_insert(0) += w;
        *self.work.class_mut(op).pcie_sum_ns.get_or_insert(0) += w;
        self.work.read.pcie_sum_ns.get_or_insert(0);
        self.work.write.pcie_sum_ns.get_or_insert(0);
    }

    /// Gives the DRAM stage's section of the report.
    pub fn set_dram(&mut self, report: crate::DramReport) {
        self.dram = Some(report);
    }

    /// Records one completed flash transaction. Hot path: O(1), no allocation.
    #[inline]
    pub fn txn_done(&mut self, t: &TxnRecord) {
        let acc = &mut self.reasons[t.reason.index()];
        acc.count += 1;
        acc.pages += u64::from(t.pages);
        acc.queue_sum_ns += u128::from(t.queue_ns);
        acc.bus_wait_sum_ns += u128::from(t.bus_wait_ns);
        acc.bus_sum_ns += u128::from(t.bus_ns);
        acc.array_sum_ns += u128::from(t.array_ns);
        if t.op == FlashOp::Program {
            self.programmed_pages += u64::from(t.pages);
        }
    }

    /// [`Recorder::txn_done`], and counts the pages it programmed against its
    /// channel (CR5M's writes per channel). Once any transaction names its channel,
    /// the report carries `writes_per_channel`; feed every transaction through this
    /// method then, or the per-channel counts are partial.
    ///
    /// Precondition: `channel < Shape::channels`.
    #[inline]
    pub fn txn_done_on(&mut self, channel: ChannelId, t: &TxnRecord) {
        assert!(
            channel.0 < self.shape.channels,
            "channel {channel} out of range (channels = {})",
            self.shape.channels
        );
        self.txn_done(t);
        let channels = self.shape.channels as usize;
        let per_channel = self
            .channel_programs
            .get_or_insert_with(|| vec![0; channels]);
        if t.op == FlashOp::Program {
            per_channel[channel.idx()] += u64::from(t.pages);
        }
    }

    /// [`Recorder::txn_done_on`], also counting programmed pages per chip (writes per
    /// chip: wear across chips, parity hot spots).
    ///
    /// Precondition: `channel < Shape::channels`, `chip < Shape::chips`.
    #[inline]
    pub fn txn_done_at(&mut self, channel: ChannelId, chip: ChipId, t: &TxnRecord) {
        assert!(
            chip.0 < self.shape.chips,
            "chip {chip} out of range (chips = {})",
            self.shape.chips
        );
        self.txn_done_on(channel, t);
        let chips = self.shape.chips as usize;
        let per_chip = self.chip_programs.get_or_insert_with(|| vec![0; chips]);
        if t.op == FlashOp::Program {
            per_chip[chip.idx()] += u64::from(t.pages);
        }
    }

    /// Pages programmed per chip so far (index = chip id), once any transaction named
    /// its chip ([`Recorder::txn_done_at`]).
    pub fn chip_programs(&self) -> Option<&[u64]> {
        self.chip_programs.as_deref()
    }

    /// Gives the end-of-run state of CR5M's mirror chips (the last `channels` chips in
    /// stripe order): the report then carries its `mirror` section.
    pub fn set_mirror(&mut self, end: MirrorEnd) {
        self.mirror = Some(end);
    }

    /// Samples how many chips are busy; call at each host arrival (BRR's chip
    /// utilization is the mean of `busy_chips / chips` over these samples).
    ///
    /// Precondition: `busy_chips <= Shape::chips` (checked in debug builds).
    #[inline]
    pub fn sample_utilization(&mut self, busy_chips: u32) {
        debug_assert!(
            busy_chips <= self.shape.chips,
            "{busy_chips} busy chips of {}",
            self.shape.chips
        );
        self.util_samples += 1;
        self.util_busy_sum += u128::from(busy_chips);
    }

    /// Adds `delta` to `counter`. O(1), no allocation. The report lists every counter
    /// counted at least once, even with 0.
    #[inline]
    pub fn count(&mut self, counter: Counter, delta: u64) {
        *self.counters[counter.index()].get_or_insert(0) += delta;
    }

    /// The current value of `counter` (0 if never counted).
    pub fn counter(&self, counter: Counter) -> u64 {
        self.counters[counter.index()].unwrap_or(0)
    }

    /// Logical pages of the completed requests of class `op` so far.
    pub fn pages(&self, op: OpClass) -> u64 {
        match op {
            OpClass::Read => self.work.read.pages,
            OpClass::Write => self.work.write.pages,
        }
    }

    /// The counters counted so far and their values, in name order.
    pub(crate) fn counted(&self) -> impl Iterator<Item = (Counter, u64)> + '_ {
        let mut counted: Vec<(Counter, u64)> = Counter::ALL
            .into_iter()
            .filter_map(|c| self.counters[c.index()].map(|v| (c, v)))
            .collect();
        counted.sort_unstable_by_key(|&(c, _)| c);
        counted.into_iter()
    }

    /// Writes every completed request as one CSV line to `w` (see
    /// [`crate::CSV_HEADER`]), buffered. The header is written now. Write errors do
    /// not interrupt the run: the first one is kept and returned by
    /// [`Recorder::finish`]. Replacing a sink flushes the previous one.
    pub fn set_per_request_sink(&mut self, w: Box<dyn io::Write + Send>) {
        self.close_sink();
        self.sink = Some(CsvSink::new(w, self.status_column));
    }

    /// Gives the per-request CSV and log a status column (`ok` or `media-error`), for
    /// devices whose requests can fail; call before [`Recorder::set_per_request_sink`]
    /// and [`Recorder::keep_request_log`].
    pub fn add_status_column(&mut self) {
        self.status_column = true;
    }

    /// [`Recorder::set_per_request_sink`] for a run of several tenants, named `tenants`:
    /// each line ends with its request's tenant ([`crate::CSV_TENANT_COLUMN`]), the one
    /// given by [`Recorder::next_tenant`] before its [`Recorder::request_done`].
    pub fn set_per_request_sink_tenants(
        &mut self,
        w: Box<dyn io::Write + Send>,
        tenants: Vec<String>,
    ) {
        self.close_sink();
        self.sink = Some(CsvSink::with_tenants(w, tenants, self.status_column));
    }

    /// The tenant (an index into the names given) of the request recorded next.
    pub fn next_tenant(&mut self, tenant: usize) {
        self.tenant = tenant;
        if let Some(s) = self.sink.as_mut() {
            s.tenant = tenant;
        }
    }

    /// Gives the request log kept ([`Recorder::keep_request_log`], called before) a
    /// tenant column: each request's tenant as [`Recorder::next_tenant`] gave it.
    pub fn log_tenants(&mut self) {
        if let Some(log) = self.log.as_mut() {
            log.tenant = Some(Vec::with_capacity(log.id.capacity()));
        }
    }

    /// Keeps every completed request in memory as columns ([`RequestLog`]), for
    /// [`Recorder::take_request_log`]. `expected` requests are reserved up front (0 if
    /// unknown).
    pub fn keep_request_log(&mut self, expected: usize) {
        let v = || Vec::with_capacity(expected);
        self.log = Some(RequestLog {
            id: v(),
            op: Vec::with_capacity(expected),
            offset_bytes: v(),
            size_bytes: v(),
            arrival_ns: v(),
            admitted_ns: v(),
            completion_ns: v(),
            service_ns: v(),
            status: self.status_column.then(|| Vec::with_capacity(expected)),
            tenant: None,
        });
    }

    /// The request log kept since [`Recorder::keep_request_log`], leaving none.
    pub fn take_request_log(&mut self) -> Option<RequestLog> {
        self.log.take()
    }

    fn close_sink(&mut self) {
        if let Some(sink) = self.sink.take() {
            if let Err(e) = sink.finish() {
                self.sink_error.get_or_insert(e);
            }
        }
    }

    /// Checks the recorder's internal consistency; panics with a message if broken.
    pub fn check_invariants(&self) {
        let counts = self.response.0.map(|l| l.count());
        assert_eq!(counts.all, 0, "the all class is derived, never recorded");
        let counts_all = self.response.count_all();
        assert_eq!(
            self.waiting.count_all(),
            counts_all,
            "waiting count disagrees"
        );
        assert_eq!(
            self.host_queue_wait.count_all(),
            counts_all,
            "host-queue count disagrees"
        );
        let work = &self.work;
        assert_eq!(
            work.all.bytes,
            work.read.bytes + work.write.bytes,
            "bytes disagree"
        );
        assert_eq!(
            work.all.pages,
            work.read.pages + work.write.pages,
            "pages disagree"
        );
        assert!(
            self.util_busy_sum <= u128::from(self.util_samples) * u128::from(self.shape.chips),
            "more busy chips sampled than chips"
        );
        if let Some(per_channel) = &self.channel_programs {
            let sum: u64 = per_channel.iter().sum();
            assert!(
                sum <= self.programmed_pages,
                "channel programs exceed programs"
            );
        }
    }

    /// Ends the run and builds the report. Flushes the per-request CSV and returns its
    /// first write error, if any.
    ///
    /// Preconditions: the busy-time vectors have one entry per die, chip and channel
    /// of the shape; no busy time exceeds `end.end_ns`; `end.end_ns` is not before the
    /// last request completion.
    pub fn finish(mut self, end: EndState) -> Result<Report, io::Error> {
        assert_eq!(
            end.die_busy_ns.len(),
            self.shape.dies as usize,
            "die_busy_ns length"
        );
        assert_eq!(
            end.chip_busy_ns.len(),
            self.shape.chips as usize,
            "chip_busy_ns length"
        );
        assert_eq!(
            end.channel_busy_ns.len(),
            self.shape.channels as usize,
            "channel_busy_ns length"
        );
        assert!(
            end.end_ns >= self.last_completion_ns,
            "end_ns {} before the last completion {}",
            end.end_ns,
            self.last_completion_ns
        );
        for (what, v) in [
            ("die", &end.die_busy_ns),
            ("chip", &end.chip_busy_ns),
            ("channel", &end.channel_busy_ns),
        ] {
            if let Some((i, b)) = v.iter().enumerate().find(|(_, &b)| b > end.end_ns) {
                panic!(
                    "{what} {i} busy for {b} ns, longer than the run ({} ns)",
                    end.end_ns
                );
            }
        }
        self.close_sink();
        if let Some(e) = self.sink_error.take() {
            return Err(e);
        }
        Ok(Report::build(&self, end))
    }
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("shape", &self.shape)
            .field("requests", &self.response.count_all())
            .field("util_samples", &self.util_samples)
            .field("counters", &self.counted().collect::<Vec<_>>())
            .field("csv", &self.sink.is_some())
            .field("log", &self.log.as_ref().map(RequestLog::len))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        Shape {
            channels: 2,
            chips: 4,
            dies: 8,
            page_size_bytes: 4096,
        }
    }

    fn req(op: OpClass, arrival: u64, completion: u64, service: u64) -> RequestRecord {
        RequestRecord {
            op,
            arrival_ns: arrival,
            admitted_ns: arrival,
            completion_ns: completion,
            service_ns: service,
            size_bytes: 4096,
            pages: 1,
            ..Default::default()
        }
    }

    #[test]
    fn recorder_can_move_across_threads() {
        fn assert_send<T: Send>() {}
        assert_send::<Recorder>();
    }

    #[test]
    fn waiting_saturates_at_zero() {
        let mut rec = Recorder::new(shape());
        rec.request_done(&req(OpClass::Read, 0, 50, 80));
        rec.check_invariants();
        let s = rec.waiting.summary();
        assert_eq!(s.read.max_ns, 0);
        assert_eq!(rec.response.summary().read.max_ns, 50);
    }

    #[test]
    fn pre_read_service_is_neither_waiting_nor_the_request_s_own_service() {
        let mut rec = Recorder::new(shape());
        let mut r = req(OpClass::Write, 0, 400, 100);
        r.pre_read_ns = 150;
        rec.request_done(&r);
        rec.check_invariants();
        assert_eq!(rec.waiting.summary().write.max_ns, 150);
        let end = EndState {
            end_ns: 400,
            die_busy_ns: vec![0; 8],
            chip_busy_ns: vec![0; 4],
            channel_busy_ns: vec![0; 2],
            ..Default::default()
        };
        let b = rec.finish(end).unwrap().breakdown.write;
        assert_eq!((b.service_ns_mean, b.pre_read_ns_mean), (100.0, 150.0));
    }

    #[test]
    fn counters_accumulate_and_list_in_name_order() {
        let mut rec = Recorder::new(shape());
        rec.count(Counter::VerifiedReads, 2);
        rec.count(Counter::BufferHits, 1);
        rec.count(Counter::VerifiedReads, 3);
        rec.count(Counter::DeferredGc, 0);
        assert_eq!(rec.counter(Counter::VerifiedReads), 5);
        assert_eq!(rec.counter(Counter::DeferredGc), 0);
        assert_eq!(rec.counter(Counter::Failures), 0);
        let counted: Vec<_> = rec.counted().collect();
        assert_eq!(
            counted,
            [
                (Counter::BufferHits, 1),
                (Counter::DeferredGc, 0),
                (Counter::VerifiedReads, 5)
            ]
        );
    }

    #[test]
    fn channel_programs_count_only_programs() {
        let mut rec = Recorder::new(shape());
        let t = TxnRecord {
            reason: TxnReason::HostWrite,
            op: FlashOp::Program,
            pages: 2,
            queue_ns: 0,
            bus_wait_ns: 0,
            bus_ns: 0,
            array_ns: 0,
        };
        rec.txn_done_on(ChannelId(1), &t);
        rec.txn_done_on(
            ChannelId(0),
            &TxnRecord {
                op: FlashOp::Read,
                ..t
            },
        );
        rec.check_invariants();
        assert_eq!(rec.channel_programs.as_deref(), Some(&[0, 2][..]));
        assert_eq!(rec.programmed_pages, 2);
    }

    #[test]
    #[should_panic(expected = "die_busy_ns length")]
    fn finish_rejects_wrong_busy_vectors() {
        let rec = Recorder::new(shape());
        let _ = rec.finish(EndState::default());
    }

    #[test]
    #[should_panic(expected = "longer than the run")]
    fn finish_rejects_busy_beyond_end() {
        let rec = Recorder::new(shape());
        let _ = rec.finish(EndState {
            end_ns: 10,
            die_busy_ns: vec![0; 8],
            chip_busy_ns: vec![0, 11, 0, 0],
            channel_busy_ns: vec![0; 2],
            ..Default::default()
        });
    }
}
