//! Block-trace input for ssdlab: streaming readers for real traces, a seeded
//! synthetic workload generator, and the statistics the papers tabulate.
//!
//! ```text
//! trace file ──► TraceReader ──┐
//! (MSR, SPC, FIU, DiskSim,      ├──► RequestStream ──► Host ──► Controller ──► …
//!  SSDsim, MQSim, blkparse)     │   (Iterator<Item = Result<IoRequest, TraceError>>)
//! SyntheticConfig ──► SyntheticGen ┘
//! ```
//!
//! Principal types:
//!
//! * [`IoRequest`] / [`Op`]: one host I/O (a read, a write, possibly FUA, a flush
//!   command, or a trim) with its arrival time (ns, rebased so the first request arrives at 0,
//!   never decreasing), byte range and optional [`Content`]: a seed that [`page_token`]
//!   expands into one token per 4 KiB page, or one token per page read from the trace.
//! * [`TraceReader`]: streams one trace file (plain or gzip, detected by magic bytes)
//!   in any [`TraceFormat`], detected from the content unless [`TraceOptions::format`]
//!   says otherwise; bad lines are [`TraceError`]s naming file, line and field, or are
//!   skipped and counted when [`TraceOptions::skip_bad_lines`] is set.
//! * [`SyntheticConfig`] / [`SyntheticGen`]: a deterministic workload (arrivals, read
//!   ratio, size distribution, address pattern, duplicate content, flushes, FUA
//!   writes and trims) from one seed; an invalid one is described by [`SyntheticErrors`], one
//!   [`SyntheticError`] per key.
//! * [`TraceSource`] / [`RequestStream`]: one entry point over files and synthetic
//!   workloads, as the simulator and the CLI see them.
//! * [`TraceStats`] / [`analyze`]: request counts, sizes, working set and duplicate
//!   content of a stream (`ssdlab trace info`).
//!
//! Formats, units and detection rules are documented in `docs/TRACES.md`.
#![warn(missing_docs)]

mod detect;
mod diagnose;
mod error;
mod formats;
mod input;
mod lex;
mod options;
mod prefetch;
mod reader;
mod request;
mod source;
mod stats;
mod synthetic;

pub use detect::{detect_format, detect_format_from_lines};
pub use error::{TraceError, TraceErrorKind};
pub use options::{
    Discards, ParseNameError, SizeUnit, TraceFormat, TraceOptions, DEFAULT_MAX_REQUEST_BYTES,
};
pub use prefetch::Prefetch;
pub use reader::{TraceReader, MAX_ARRIVAL_NS};
pub use request::{page_token, Content, IoRequest, Op, PAGE_BYTES};
pub use source::{
    RequestStream, StreamCounts, TimeJumps, TraceSource, SUSPICIOUS_GAP_NS, SYNTHETIC_PATH,
};
pub use stats::{analyze, TraceStats};
pub use synthetic::{
    AddressPattern, Arrival, PlacementRule, SizeDist, SyntheticConfig, SyntheticError,
    SyntheticErrors, SyntheticGen, DUPLICATE_POOL_SEEDS,
};
