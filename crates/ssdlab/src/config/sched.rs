//! `[scheduler]`: which I/O scheduler, and its queues.

use serde::{Deserialize, Serialize};

/// Scheduler names accepted by `scheduler.name` and `--scheduler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerKind {
    /// Requests in strict arrival order; a request's sub-requests start together once
    /// every chip it needs is free (BRR paper, Sync_FIFO).
    SyncFifo,
    /// Every sub-request goes straight to its chip's FIFO queue (BRR paper, Async_FIFO).
    AsyncFifo,
    /// Parallel Issue Queuing, asynchronous: batches of requests without chip conflicts,
    /// read and write batch lists (BRR paper §II-D, Algorithm 1).
    Piq,
    /// Balanced Redirected Read: PIQ plus reconstruction of reads on busy chips from
    /// their parity group on idle chips (BRR paper §III-E, Algorithm 2).
    Brr,
}

impl SchedulerKind {
    /// The names `--scheduler` accepts.
    pub const NAMES: &'static [&'static str] = &["sync-fifo", "async-fifo", "piq", "brr"];

    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::SyncFifo => "sync-fifo",
            SchedulerKind::AsyncFifo => "async-fifo",
            SchedulerKind::Piq => "piq",
            SchedulerKind::Brr => "brr",
        }
    }
}

/// Scheduler selection and its queues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// Which policy.
    pub name: SchedulerKind,
    /// Transactions a chip's queue holds (BRR: 64; its sensitivity study: 1..256).
    pub chip_queue_depth: u32,
    /// Pack queued reads or programs of one die into multi-plane operations when they
    /// obey the plane-addressing rule (different planes, same page offset).
    pub multi_plane: bool,
    /// `piq`, `brr`: a die whose next transaction is a program first serves the host
    /// reads already queued behind it; reads queued later wait for the program (BRR
    /// §III-C: writes are delayed behind reads, then served before newly arriving reads).
    pub write_behind_read: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            name: SchedulerKind::AsyncFifo,
            chip_queue_depth: 64,
            multi_plane: false,
            write_behind_read: false,
        }
    }
}
