//! Metrics of an ssdlab run: what is recorded while the simulation runs, and the
//! [`Report`] it produces at the end.
//!
//! ```text
//!  simulator (ssdlab)                         ssdlab-stats
//!  ──────────────────                         ────────────
//!  host arrival ── busy chips ─────────────► Recorder::sample_utilization
//!  transaction done ── TxnRecord ──────────► Recorder::txn_done       ─┐
//!  request done ── RequestRecord ──────────► Recorder::request_done   ─┤─► per-request CSV
//!  design events ── "redirected-reads" … ──► Recorder::count           │   (optional sink)
//!  end of run ── EndState (busy times, FTL) ► Recorder::finish ─────────┴─► Report
//!                                                                          ├─ to_json
//!                                                                          ├─ write_table
//!                                                                          └─ compare_table
//! ```
//!
//! Principal types:
//!
//! - [`Recorder`] collects metrics during a run. Its hot-path methods
//!   ([`Recorder::request_done`], [`Recorder::txn_done`], [`Recorder::sample_utilization`])
//!   are O(1) and allocate nothing in steady state.
//! - [`RequestRecord`] and [`TxnRecord`] describe one completed host request and one
//!   completed flash transaction; [`EndState`] carries what only the simulator knows at
//!   the end (per-resource busy time, the FTL's counters, the run's identity).
//! - [`Report`] is the serde result of a run: latencies per class ([`ClassStats`] of
//!   [`Latency`]), throughput, [`Utilization`], transactions by reason
//!   ([`ReasonStats`]), write amplification, wear, named counters. It prints as a
//!   table ([`Report::write_table`]) and as deterministic JSON ([`Report::to_json`]).
//! - [`compare_table`] puts several reports side by side, normalized to the first.
//!
//! Every metric is defined, with its unit and the paper figure it serves, in
//! `docs/METRICS.md`. Percentiles come from an HDR histogram with three significant
//! digits (see [`Latency`]); means, minima and maxima are exact.
//!
//! Determinism: nothing here reads the wall clock or iterates a hash map. Two
//! recorders fed the same records give byte-identical JSON; the wall time of a run
//! appears only when the caller supplies it ([`EndState::wall_time_ns`]).

#![warn(missing_docs)]

mod compare;
mod csv;
mod latency;
mod record;
mod recorder;
mod report;
mod table;

pub use compare::compare_table;
pub use csv::CSV_HEADER;
pub use latency::{ClassStats, Latency};
pub use record::{EndState, FtlSummary, OpClass, RequestRecord, Shape, TxnRecord};
pub use recorder::Recorder;
pub use report::{
    Breakdown, CountSpread, ReasonStats, Report, RequestWork, RunMeta, Spread, Utilization,
};

/// Conventional names for [`Recorder::count`], so that designs that share a concept
/// share a counter, and the report can derive ratios from them.
///
/// Counters count sub-requests (pages), not whole requests, unless their doc says
/// otherwise.
pub mod counter {
    /// Read sub-requests that a scheduler chose to serve by another plan than
    /// `direct`: reconstruction from the parity group (BRR) or another copy (DS-FTL,
    /// CR1, CR5M). Degraded reads are not counted here. The report divides it by the
    /// read pages (BRR's redirected reads; DS-FTL figure 13).
    pub const REDIRECTED_READS: &str = "redirected-reads";
    /// Write sub-requests placed away from their usual place: to another chip before
    /// its GC (DGC) or to another plane by content (DS-FTL). The report divides it by
    /// the write pages (DS-FTL figure 13).
    pub const REDIRECTED_WRITES: &str = "redirected-writes";
    /// Read sub-requests served by reconstruction because their chip has failed.
    pub const DEGRADED_READS: &str = "degraded-reads";
    /// Pages served from the controller's write buffer.
    pub const BUFFER_HITS: &str = "buffer-hits";
    /// GC runs that were postponed to an idle period (DGC).
    pub const DEFERRED_GC: &str = "deferred-gc";
    /// Partial-stripe updates served by a mirror write instead of a parity update (CR5M).
    pub const MIRROR_WRITES: &str = "mirror-writes";
    /// Read sub-requests merged with an identical one already queued (DS-FTL).
    pub const MERGED_READS: &str = "merged-reads";
}
