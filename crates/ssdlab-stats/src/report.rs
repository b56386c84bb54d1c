//! The [`Report`] of a run and how it is computed from a [`Recorder`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ssdlab_nand::TxnReason;

use crate::counter::Counter;
use crate::dsftl::DsftlReport;
use crate::latency::{ClassStats, Latency};
use crate::record::{EndState, Shape};
use crate::recorder::{ReasonAcc, Recorder, WorkAcc};
use crate::{mapping::MappingReport as Map, mirror::MirrorReport};

const NS_PER_S: f64 = 1e9;
const BYTES_PER_MIB: f64 = 1_048_576.0;

/// Identity of a run: enough to reproduce it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The configuration's seed.
    pub seed: u64,
    /// Hash of the resolved configuration, as a hex string.
    pub config_hash: String,
    /// Revision of the simulator's source.
    pub git_rev: String,
    /// What was replayed (file and format, or synthetic workload parameters).
    pub trace: String,
    /// Scheduler name.
    pub scheduler: String,
    /// Named preset the configuration started from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// ssdlab version.
    pub version: String,
}

/// How evenly a resource kind was used: statistics over the per-resource busy
/// fractions (busy time / run length, each in `[0, 1]`). `std` is the population
/// standard deviation. All zeros when there are no resources or the run is empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean busy fraction.
    pub mean: f64,
    /// Population standard deviation of the busy fractions.
    pub std: f64,
    /// Least busy resource's fraction.
    pub min: f64,
    /// Busiest resource's fraction.
    pub max: f64,
}

impl Spread {
    /// The spread of `busy_ns[i] / end_ns`.
    pub fn of_busy(busy_ns: &[u64], end_ns: u64) -> Spread {
        if busy_ns.is_empty() || end_ns == 0 {
            return Spread::default();
        }
        let n = busy_ns.len() as f64;
        let frac = |b: u64| b as f64 / end_ns as f64;
        let mean = busy_ns.iter().map(|&b| frac(b)).sum::<f64>() / n;
        let var = busy_ns
            .iter()
            .map(|&b| (frac(b) - mean).powi(2))
            .sum::<f64>()
            / n;
        let min = busy_ns
            .iter()
            .map(|&b| frac(b))
            .fold(f64::INFINITY, f64::min);
        let max = busy_ns.iter().map(|&b| frac(b)).fold(0.0, f64::max);
        Spread {
            mean,
            std: var.sqrt(),
            min,
            max,
        }
    }
}

/// Minimum, mean and maximum of a per-item count (erases per block, writes per channel).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CountSpread {
    /// Smallest count.
    pub min: u64,
    /// Mean count.
    pub mean: f64,
    /// Largest count.
    pub max: u64,
}

impl CountSpread {
    /// The spread of `counts`; all zeros when empty.
    pub fn of(counts: &[u64]) -> CountSpread {
        if counts.is_empty() {
            return CountSpread::default();
        }
        let sum: u128 = counts.iter().map(|&c| u128::from(c)).sum();
        CountSpread {
            min: counts.iter().copied().min().unwrap_or(0),
            mean: sum as f64 / counts.len() as f64,
            max: counts.iter().copied().max().unwrap_or(0),
        }
    }
}

/// Chip, channel and die utilization.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    /// BRR's chip utilization: mean over host arrivals of busy chips / all chips.
    pub sampled_chip: f64,
    /// Number of arrival samples behind `sampled_chip`.
    pub samples: u64,
    /// Time-averaged busy fraction per chip (busy = any of its dies busy).
    pub chip: Spread,
    /// Time-averaged busy fraction per channel bus.
    pub channel: Spread,
    /// Time-averaged busy fraction per die.
    pub die: Spread,
}

/// Means of the parts of response time (DGC figure 4), in ns per request.
///
/// `service + gc_wait + other_wait` equals the mean response time except where a
/// request's service time exceeded its response (waiting saturates at 0). Metadata
/// latency (DGC's T_meta) is not modelled separately; it is part of service.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Bus + array time of the last-completing sub-request (T_chip).
    pub service_ns_mean: f64,
    /// Waiting spent behind GC work (T_GC), as reported by [`Recorder::gc_wait`].
    pub gc_wait_ns_mean: f64,
    /// The remaining waiting time (T_wait).
    pub other_wait_ns_mean: f64,
    /// Service of the pre-reads a parity update waited for before its parity program
    /// (see `RequestRecord::pre_read_ns`): neither chip time of the request's own pages
    /// nor waiting.
    #[serde(default)]
    pub pre_read_ns_mean: f64,
    /// Waiting for room in DRAM (T_buffer_wait), part of the waiting above it; present
    /// only with a DRAM stage, and then `other_wait` is what remains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_wait_ns_mean: Option<f64>,
    /// Time on the PCIe link (T_pcie), part of the waiting; only with a link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_ns_mean: Option<f64>,
}

/// Totals of the host work of one request class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestWork {
    /// Bytes requested.
    pub bytes: u64,
    /// Logical pages (sub-requests).
    pub pages: u64,
    /// Flash operations the requests submitted on their own behalf (see
    /// [`crate::RequestRecord::flash_ops`]: reads for reads, programs for writes).
    pub flash_ops: u64,
    /// Pages served from the write buffer.
    pub buffer_hits: u64,
    /// Requests that waited for a device-queue slot (admitted after arrival).
    pub host_queued: u64,
}

/// Transactions of one reason, with their mean timing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReasonStats {
    /// Why they exist (kebab-case name in JSON).
    pub reason: TxnReason,
    /// Completed transactions.
    pub count: u64,
    /// Pages they moved.
    pub pages: u64,
    /// Mean time from enqueue to start.
    pub queue_ns_mean: f64,
    /// Mean time holding the die while waiting for the bus (contention).
    pub bus_wait_ns_mean: f64,
    /// Mean time on the bus.
    pub bus_ns_mean: f64,
    /// Mean time in the array.
    pub array_ns_mean: f64,
}

/// Everything a run measured. See `docs/METRICS.md` for each definition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Identity of the run.
    pub meta: RunMeta,
    /// Device size the metrics refer to.
    pub shape: Shape,
    /// Length of the run: the last completion.
    pub sim_time_ns: u64,
    /// Events the engine processed.
    pub events: u64,
    /// Wall-clock duration; present only when the caller supplied it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time_ns: Option<u64>,
    /// Completed requests per class.
    pub requests: ClassStats<u64>,
    /// Response time = completion − arrival.
    pub response: ClassStats<Latency>,
    /// Waiting time = response − service (BRR's T_w).
    pub waiting: ClassStats<Latency>,
    /// Host-queue wait = admitted − arrival, over all requests.
    pub host_queue_wait: ClassStats<Latency>,
    /// Mean host-queue wait of the requests that waited for a device-queue slot (PAQ's
    /// average waiting time, AWT); 0 when none waited.
    #[serde(default)]
    pub host_queue_wait_queued_ns_mean: ClassStats<f64>,
    /// Response-time breakdown (DGC figure 4).
    pub breakdown: ClassStats<Breakdown>,
    /// Bytes, pages, flash operations and buffer hits per class.
    pub work: ClassStats<RequestWork>,
    /// Completed requests per simulated second.
    pub iops: f64,
    /// Host bytes per simulated second, in MiB/s.
    pub bandwidth_mib_s: f64,
    /// Read bytes per simulated second, in MiB/s.
    pub read_bandwidth_mib_s: f64,
    /// Written bytes per simulated second, in MiB/s.
    pub write_bandwidth_mib_s: f64,
    /// Chip, channel and die utilization.
    pub utilization: Utilization,
    /// Mean per die of the time it served no transaction (PAQ figure 11).
    pub die_idle_ns_mean: f64,
    /// Sum over dies of idle time.
    pub die_idle_ns_total: u64,
    /// Mean bus wait per transaction (PAQ's contention time).
    pub bus_contention_ns_mean: f64,
    /// Sum of bus wait over all transactions.
    pub bus_contention_ns_total: u64,
    /// Mean per transaction of the bus wait spent behind another die of the same chip
    /// (PAQ's contention time).
    #[serde(default)]
    pub package_contention_ns_mean: f64,
    /// Sum over transactions of that wait (PAQ figure 12).
    #[serde(default)]
    pub package_contention_ns_total: u64,
    /// Transactions by reason, in `TxnReason::ALL` order, only reasons that occurred.
    pub transactions: Vec<ReasonStats>,
    /// Pages programmed for any reason.
    pub programmed_pages: u64,
    /// Pages the host wrote (from the FTL).
    pub host_pages_written: u64,
    /// Programmed pages / host pages written; 0 without host writes.
    pub write_amplification: f64,
    /// Blocks erased.
    pub erases: u64,
    /// GC invocations.
    pub gc_runs: u64,
    /// Valid pages moved by GC.
    pub gc_pages_moved: u64,
    /// Erase count per block: min, mean, max.
    pub wear: CountSpread,
    /// Pre-read pages per write request (CR5M figure 11).
    pub pre_reads_per_write: f64,
    /// `redirected-reads` counter / read pages (BRR; DS-FTL figure 13).
    pub redirected_read_ratio: f64,
    /// `redirected-writes` counter / write pages (DGC; DS-FTL figure 13).
    pub redirected_write_ratio: f64,
    /// Programmed pages per channel (CR5M figure 12); present only when transactions
    /// were recorded with their channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_per_channel: Option<CountSpread>,
    /// Programmed pages per chip; present only when transactions were recorded with
    /// their chip ([`Recorder::txn_done_at`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_per_chip: Option<CountSpread>,
    /// Counters added by designs, in name order (serialized as a map from
    /// [`Counter::name`] to value). Read one with [`Report::counter`].
    pub counters: BTreeMap<Counter, u64>,
    /// Content metrics, when the run kept DS-FTL's content index (set by the simulator
    /// after [`Recorder::finish`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsftl: Option<DsftlReport>,
    /// The DRAM stage's measurements; present only with a DRAM stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram: Option<crate::DramReport>,
    /// The NAND model's page types and suspensions; present only when the device has
    /// page types or suspends programs and erases (set by the simulator after
    /// [`Recorder::finish`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nand: Option<crate::NandReport>,
    /// CR5M's measurements; present only when the device has mirror chips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror: Option<MirrorReport>,
    /// The cached map's measurements (only with `ftl.mapping = "cached"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<Map>,
    /// Per-tenant results (only with `host.tenant`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenants: Option<crate::TenantsReport>,
}

pub(crate) use crate::latency::ratio;

fn mean(sum: u128, count: u64) -> f64 {
    ratio(sum as f64, count as f64)
}

fn reason_stats(reason: TxnReason, a: &ReasonAcc) -> ReasonStats {
    ReasonStats {
        reason,
        count: a.count,
        pages: a.pages,
        queue_ns_mean: mean(a.queue_sum_ns, a.count),
        bus_wait_ns_mean: mean(a.bus_wait_sum_ns, a.count),
        bus_ns_mean: mean(a.bus_sum_ns, a.count),
        array_ns_mean: mean(a.array_sum_ns, a.count),
    }
}

fn breakdown(w: &WorkAcc, waiting: &Latency) -> Breakdown {
    let gc_wait_ns_mean = mean(w.gc_wait_sum_ns, waiting.count);
    let buffer_wait_ns_mean = w.buffer_wait_sum_ns.map(|s| mean(s, waiting.count));
    let pcie_ns_mean = w.pcie_sum_ns.map(|s| mean(s, waiting.count));
    let named = [buffer_wait_ns_mean, pcie_ns_mean].into_iter().flatten(); // in this order
    let other = named.fold(waiting.mean_ns - gc_wait_ns_mean, |a, x| a - x);
    Breakdown {
        service_ns_mean: mean(w.service_sum_ns, waiting.count),
        gc_wait_ns_mean,
        other_wait_ns_mean: other.max(0.0),
        pre_read_ns_mean: mean(w.pre_read_sum_ns, waiting.count),
        buffer_wait_ns_mean,
        pcie_ns_mean,
    }
}

fn work(w: &WorkAcc) -> RequestWork {
    RequestWork {
        bytes: w.bytes,
        pages: w.pages,
        flash_ops: w.flash_ops,
        buffer_hits: w.buffer_hits,
        host_queued: w.host_queued,
    }
}

fn saturate(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl Report {
    /// Computes the report; `Recorder::finish` has checked `end` against the shape.
    pub(crate) fn build(rec: &Recorder, end: EndState) -> Report {
        let response = rec.response.summary();
        let waiting = rec.waiting.summary();
        let end_ns = end.end_ns;
        let per_s = |x: f64| ratio(x * NS_PER_S, end_ns as f64);
        let mib_s = |w: &WorkAcc| per_s(w.bytes as f64 / BYTES_PER_MIB);

        let die_idle_total: u128 = end
            .die_busy_ns
            .iter()
            .map(|&b| u128::from(end_ns - b))
            .sum();
        let txns: u64 = rec.reasons.iter().map(|a| a.count).sum();
        let bus_wait_total: u128 = rec.reasons.iter().map(|a| a.bus_wait_sum_ns).sum();
        let pre_read_pages = rec.reasons[TxnReason::PreRead.index()].pages;
        let counter = |c: Counter| rec.counter(c) as f64;

        let report = Report {
            shape: rec.shape,
            sim_time_ns: end_ns,
            events: end.events,
            wall_time_ns: end.wall_time_ns,
            requests: response.map(|l| l.count),
            breakdown: ClassStats {
                all: breakdown(&rec.work.all, &waiting.all),
                read: breakdown(&rec.work.read, &waiting.read),
                write: breakdown(&rec.work.write, &waiting.write),
            },
            work: rec.work.map(work),
            iops: per_s(response.all.count as f64),
            bandwidth_mib_s: mib_s(&rec.work.all),
            read_bandwidth_mib_s: mib_s(&rec.work.read),
            write_bandwidth_mib_s: mib_s(&rec.work.write),
            utilization: Utilization {
                sampled_chip: ratio(
                    rec.util_busy_sum as f64,
                    rec.util_samples as f64 * f64::from(rec.shape.chips),
                ),
                samples: rec.util_samples,
                chip: Spread::of_busy(&end.chip_busy_ns, end_ns),
                channel: Spread::of_busy(&end.channel_busy_ns, end_ns),
                die: Spread::of_busy(&end.die_busy_ns, end_ns),
            },
            die_idle_ns_mean: ratio(die_idle_total as f64, end.die_busy_ns.len() as f64),
            die_idle_ns_total: saturate(die_idle_total),
            bus_contention_ns_mean: mean(bus_wait_total, txns),
            bus_contention_ns_total: saturate(bus_wait_total),
            package_contention_ns_mean: ratio(end.package_contention_ns as f64, txns as f64),
            package_contention_ns_total: end.package_contention_ns,
            transactions: TxnReason::ALL
                .iter()
                .zip(&rec.reasons)
                .filter(|(_, a)| a.count > 0)
                .map(|(&r, a)| reason_stats(r, a))
                .collect(),
            programmed_pages: rec.programmed_pages,
            host_pages_written: end.ftl.host_pages_written,
            write_amplification: ratio(
                rec.programmed_pages as f64,
                end.ftl.host_pages_written as f64,
            ),
            erases: end.ftl.erases,
            gc_runs: end.ftl.gc_runs,
            gc_pages_moved: end.ftl.gc_pages_moved,
            wear: end.ftl.wear,
            pre_reads_per_write: ratio(pre_read_pages as f64, response.write.count as f64),
            redirected_read_ratio: ratio(
                counter(Counter::RedirectedReads),
                rec.work.read.pages as f64,
            ),
            redirected_write_ratio: ratio(
                counter(Counter::RedirectedWrites),
                rec.work.write.pages as f64,
            ),
            writes_per_channel: rec.channel_programs.as_deref().map(CountSpread::of),
            writes_per_chip: rec.chip_programs.as_deref().map(CountSpread::of),
            counters: rec.counted().collect(),
            mirror: rec
                .mirror
                .as_ref()
                .map(|m| MirrorReport::build(rec, m, response.write.count)),
            dram: rec.dram.clone(),
            mapping: None,
            tenants: None,
            response,
            waiting,
            host_queue_wait: rec.host_queue_wait.summary(),
            host_queue_wait_queued_ns_mean: rec
                .work
                .map(|w| mean(w.host_wait_sum_ns, w.host_queued)),
            meta: end.meta,
            dsftl: None,
            nand: None,
        };
        debug_assert!(report.all_finite(), "report holds a non-finite number");
        report
    }

    /// True if every floating-point field is finite (JSON cannot hold NaN or ∞).
    fn all_finite(&self) -> bool {
        let lat = |c: &ClassStats<Latency>| c.named().iter().all(|(_, l)| l.mean_ns.is_finite());
        let spread = |s: &Spread| [s.mean, s.std, s.min, s.max].iter().all(|v| v.is_finite());
        let u = &self.utilization;
        let scalars = [
            self.iops,
            self.bandwidth_mib_s,
            self.die_idle_ns_mean,
            self.bus_contention_ns_mean,
            self.package_contention_ns_mean,
            self.write_amplification,
            self.pre_reads_per_write,
            self.redirected_read_ratio,
            self.redirected_write_ratio,
            u.sampled_chip,
        ];
        scalars.iter().all(|v| v.is_finite())
            && lat(&self.response)
            && lat(&self.waiting)
            && lat(&self.host_queue_wait)
            && self
                .host_queue_wait_queued_ns_mean
                .named()
                .iter()
                .all(|(_, v)| v.is_finite())
            && spread(&u.chip)
            && spread(&u.channel)
            && spread(&u.die)
            && self.dsftl.as_ref().is_none_or(DsftlReport::all_finite)
            && self.mirror.as_ref().is_none_or(MirrorReport::all_finite)
            && self.dram.as_ref().is_none_or(crate::DramReport::all_finite)
            && self.mapping.as_ref().is_none_or(Map::all_finite)
            && self.nand.as_ref().is_none_or(crate::NandReport::all_finite)
    }

    /// Pretty JSON. Deterministic: struct fields in declaration order, counters in
    /// name order, floats printed by the shortest round-tripping representation.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Report holds only JSON-representable data")
    }

    /// Reads a report written by [`Report::to_json`].
    pub fn from_json(json: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The value of `counter`; 0 when the run never counted it.
    pub fn counter(&self, counter: Counter) -> u64 {
        self.counters.get(&counter).copied().unwrap_or(0)
    }

    /// Statistics of one transaction reason, if it occurred.
    pub fn reason(&self, reason: TxnReason) -> Option<&ReasonStats> {
        self.transactions.iter().find(|r| r.reason == reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_matches_hand_computation() {
        let s = Spread::of_busy(&[10, 20, 30, 40], 100);
        assert!((s.mean - 0.25).abs() < 1e-12);
        assert!(
            (s.std - 0.111_803_398_874_989_5).abs() < 1e-12,
            "std {}",
            s.std
        );
        assert_eq!(s.min, 0.1);
        assert_eq!(s.max, 0.4);
    }

    #[test]
    fn spread_of_nothing_is_zero() {
        assert_eq!(Spread::of_busy(&[], 100), Spread::default());
        assert_eq!(Spread::of_busy(&[0, 0], 0), Spread::default());
    }

    #[test]
    fn count_spread() {
        let c = CountSpread::of(&[3, 1, 8]);
        assert_eq!((c.min, c.max), (1, 8));
        assert_eq!(c.mean, 4.0);
        assert_eq!(CountSpread::of(&[]), CountSpread::default());
    }

    #[test]
    fn ratio_never_divides_by_zero() {
        assert_eq!(ratio(5.0, 0.0), 0.0);
        assert_eq!(ratio(6.0, 3.0), 2.0);
    }
}
