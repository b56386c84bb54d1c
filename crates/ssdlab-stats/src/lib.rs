//! Metrics of an ssdlab run: what is recorded while the simulation runs, and the
//! [`Report`] it produces at the end.
//!
//! ```text
//!  simulator (ssdlab)                         ssdlab-stats
//!  ──────────────────                         ────────────
//!  host arrival ── busy chips ─────────────► Recorder::sample_utilization
//!  transaction done ── TxnRecord ──────────► Recorder::txn_done       ─┐
//!  request done ── RequestRecord ──────────► Recorder::request_done   ─┤─► per-request CSV
//!  design events ── Counter ───────────────► Recorder::count           │   (optional sink)
//!                                                                      │   and RequestLog
//!                                                                      │   (optional arrays)
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
//!   ([`ReasonStats`]), write amplification, wear, and the counters designs add, keyed
//!   by [`Counter`]. It prints as a table ([`Report::write_table`]) and as
//!   deterministic JSON ([`Report::to_json`]).
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

mod breakdown;
mod compare;
pub mod counter;
mod csv;
mod dram;
mod dsftl;
mod errors;
mod latency;
mod mapping;
mod mirror;
mod nand;
mod placement;
mod record;
mod recorder;
mod report;
mod request_log;
mod table;
mod tenant;

pub use compare::compare_table;
pub use counter::Counter;
pub use csv::{CSV_HEADER, CSV_STATUS_COLUMN, CSV_TENANT_COLUMN};
pub use dram::DramReport;
pub use dsftl::{DsftlReport, Fractions};
pub use errors::{ErrorsReport, HousekeepingReport};
pub use latency::{ratio, ClassStats, Latency};
pub use mapping::{GroupMapping, HitMissLatency, MappingReport};
pub use mirror::{MirrorEnd, MirrorReport};
pub use nand::{
    CacheReport, LatencyRecorder, NandReport, PageTypeReads, SlcCacheReport, SuspendReport,
};
pub use placement::{HandleReport, PlacementReport};
pub use record::{EndState, FtlSummary, OpClass, RequestRecord, RequestStatus, Shape, TxnRecord};
pub use recorder::Recorder;
pub use report::{
    Breakdown, CountSpread, ReasonStats, Report, RequestWork, RunMeta, Spread, Utilization,
};
pub use request_log::RequestLog;
pub use table::fmt_count;
pub use tenant::{TenantAcc, TenantCmtReport, TenantDramReport, TenantReport, TenantsReport};
