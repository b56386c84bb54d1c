//! `[scheduler]`: which I/O scheduler, and its queues. The scheduler names
//! ([`SchedulerKind`]) are derived from the list of policies in [`crate::sched`]; the
//! run configuration re-exports both as `crate::config::{SchedulerConfig,
//! SchedulerKind}`.

use serde::{Deserialize, Serialize};

use super::SchedulerKind;

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
