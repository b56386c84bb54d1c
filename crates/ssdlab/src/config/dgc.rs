//! `[dgc]`: deferring garbage collection by redirecting writes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[dgc]`: the DGC paper's write redirection and deferred GC (its §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DgcConfig {
    /// Redirect writes away from chips about to start GC; collect them when idle.
    pub enabled: bool,
    /// How the arrival time `AT` of a candidate chip's next request is estimated for the
    /// `CT + L_w <= AT` test.
    pub arrival_estimate: ArrivalEstimate,
    /// Deferred GC on an idle chip collects until every plane of the chip has this many
    /// free blocks above the GC threshold (at least 1).
    #[schemars(range(min = 1))]
    pub idle_gc_blocks: u32,
    /// Redirect parity programs too (the paper's rule covers every pending write of a
    /// chip, §4.3): a parity page about to start GC on its chip goes to a chip of
    /// another group that holds no page of its stripe, like a data page.
    pub redirect_parity: bool,
}

impl Default for DgcConfig {
    fn default() -> Self {
        DgcConfig {
            enabled: false,
            arrival_estimate: ArrivalEstimate::MeanGap,
            idle_gc_blocks: 1,
            redirect_parity: false,
        }
    }
}

/// `dgc.arrival_estimate`: how DGC estimates when a chip's next request arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ArrivalEstimate {
    /// `AT = now + ` the chip's mean gap between request arrivals (an exponentially
    /// weighted mean, weight 1/8 for the newest gap): arrivals taken as memoryless.
    MeanGap,
    /// No bound: `CT + L_w <= AT` always holds.
    Unbounded,
}
