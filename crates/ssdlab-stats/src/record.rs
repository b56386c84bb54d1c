//! What the simulator hands over to the [`crate::Recorder`]: one record per completed
//! request or transaction, and the state at the end of the run.

use serde::{Deserialize, Serialize};
use ssdlab_nand::{FlashOp, Geometry, TxnReason};

use crate::report::{CountSpread, RunMeta};

/// The class of a host request.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum OpClass {
    /// A host read.
    #[default]
    Read,
    /// A host write.
    Write,
}

impl OpClass {
    /// `"read"` or `"write"`, as in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            OpClass::Read => "read",
            OpClass::Write => "write",
        }
    }
}

/// The size of the device, as far as statistics need it. Counts are device totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// Channels (buses).
    pub channels: u32,
    /// Chips in the whole device.
    pub chips: u32,
    /// Dies in the whole device.
    pub dies: u32,
    /// Bytes per flash page.
    pub page_size_bytes: u32,
}

impl Shape {
    /// The shape of a device geometry.
    pub fn from_geometry(g: &Geometry) -> Shape {
        Shape {
            channels: g.channels,
            chips: g.chips(),
            dies: g.dies(),
            page_size_bytes: g.page_size_bytes,
        }
    }
}

/// One completed host request.
///
/// Derived times: response = completion − arrival; waiting = response − service −
/// pre-read service (BRR's T_w: the time spent in queues, saturating at 0); host-queue
/// wait = admitted − arrival (PAQ's average waiting time). Times must satisfy
/// `arrival_ns <= admitted_ns <= completion_ns`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestRecord {
    /// Request id, as assigned by the host (trace order).
    pub id: u64,
    /// Read or write.
    pub op: OpClass,
    /// First byte addressed.
    pub offset_bytes: u64,
    /// Bytes transferred.
    pub size_bytes: u64,
    /// When the host issued the request.
    pub arrival_ns: u64,
    /// When the request got a device-queue slot.
    pub admitted_ns: u64,
    /// When its last sub-request completed.
    pub completion_ns: u64,
    /// Bus + array time of its last-completing sub-request.
    pub service_ns: u64,
    /// Logical pages (sub-requests) it covers.
    pub pages: u32,
    /// Flash operations submitted on its own behalf: the reads of its pages (of the page
    /// or of the copy its plan chose) for a read, the programs of its pages (with RAID-1
    /// copies and RAID-4/5 stripe programs) for a write. Reconstruction reads, pre-reads,
    /// parity and GC are counted by reason in the report's transactions table.
    pub flash_ops: u32,
    /// Pages served from the controller's write buffer.
    pub buffer_hits: u32,
    /// Bus + array time of the work the last-completing sub-request had to wait for
    /// before it could be queued: the pre-read that completed last in the RAID parity
    /// update whose parity program finished the request (0 otherwise). Service, not
    /// waiting.
    pub pre_read_ns: u64,
    /// How it completed: `Ok`, or (the error model only; see docs/ERRORS.md) with a
    /// media error or refused by a read-only drive.
    pub status: RequestStatus,
}

/// How a host request completed (the per-request CSV's `status` column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum RequestStatus {
    /// Served.
    #[default]
    Ok = 0,
    /// A page's data could be neither read nor rebuilt.
    MediaError = 1,
    /// A write refused: the drive turned read-only (its spare blocks ran out).
    ReadOnly = 2,
}

impl RequestStatus {
    /// The name in the per-request CSV.
    pub fn name(self) -> &'static str {
        match self {
            RequestStatus::Ok => "ok",
            RequestStatus::MediaError => "media-error",
            RequestStatus::ReadOnly => "read-only",
        }
    }
}

/// Timing of one completed flash transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnRecord {
    /// Why the transaction exists.
    pub reason: TxnReason,
    /// What the array did.
    pub op: FlashOp,
    /// Pages it moved (more than 1 for multi-plane operations; 0 for erases is allowed).
    pub pages: u32,
    /// Enqueued → started.
    pub queue_ns: u64,
    /// Time spent holding the die while waiting for a busy channel (PAQ's contention).
    pub bus_wait_ns: u64,
    /// Time on the channel bus.
    pub bus_ns: u64,
    /// Time in the array (read, program or erase).
    pub array_ns: u64,
}

/// What the FTL knows at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FtlSummary {
    /// Pages the host asked to write (after alignment, before any buffering).
    pub host_pages_written: u64,
    /// Valid pages moved by GC.
    pub gc_pages_moved: u64,
    /// Blocks erased.
    pub erases: u64,
    /// GC invocations.
    pub gc_runs: u64,
    /// Erase count per block: min, mean, max over all blocks.
    pub wear: CountSpread,
}

/// What only the simulator knows at the end of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EndState {
    /// Time of the last completion: the length of the simulated run.
    pub end_ns: u64,
    /// Busy time of each die (index = global die id); `Shape::dies` entries.
    pub die_busy_ns: Vec<u64>,
    /// Time any die of the chip was busy (index = global chip id); `Shape::chips` entries.
    pub chip_busy_ns: Vec<u64>,
    /// Busy time of each channel bus; `Shape::channels` entries.
    pub channel_busy_ns: Vec<u64>,
    /// Total over transactions of the bus wait spent behind transfers of another die of
    /// the same chip (PAQ's contention time); part of their bus wait.
    pub package_contention_ns: u64,
    /// The FTL's counters.
    pub ftl: FtlSummary,
    /// Identity of the run.
    pub meta: RunMeta,
    /// Wall-clock duration of the run. `None` keeps the report deterministic; it is
    /// never serialized when `None`.
    pub wall_time_ns: Option<u64>,
    /// Events processed by the engine.
    pub events: u64,
}
