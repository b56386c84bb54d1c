//! `[host]`: the arrival model and queue depths.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HostMode {
    /// Requests arrive at their trace timestamps (times `time_scale`).
    Open,
    /// Timestamps are ignored; `queue_depth` requests are kept outstanding.
    Closed,
}

/// What a read of a never-written LPN does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UnwrittenReads {
    /// Treat the page as written before the trace began: it is placed (zero time)
    /// and read from flash like any other page (DiskSim and MQSim behave this way).
    Materialize,
    /// Answer from the controller without touching flash (zeros).
    Zero,
}

/// The host side of the device: arrival model and queue depths (docs/ARCHITECTURE.md §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Open loop (trace timestamps) or closed loop (fixed outstanding requests).
    pub mode: HostMode,
    /// Multiplies trace inter-arrival times (0.5 = twice as fast). Open loop only.
    #[schemars(extend("exclusiveMinimum" = 0.0, "x-unit" = "factor"))]
    pub time_scale: f64,
    /// Outstanding requests in closed loop.
    #[schemars(range(min = 1), extend("x-unit" = "requests"))]
    pub queue_depth: u32,
    /// Requests the device accepts at once (NCQ depth); the rest wait in the host queue.
    #[schemars(range(min = 1), extend("x-unit" = "requests"))]
    pub device_queue_depth: u32,
    /// What a read of a never-written page does.
    pub unwritten_reads: UnwrittenReads,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            mode: HostMode::Open,
            time_scale: 1.0,
            queue_depth: 32,
            device_queue_depth: 64,
            unwritten_reads: UnwrittenReads::Materialize,
        }
    }
}
