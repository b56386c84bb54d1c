//! The response-time breakdown of a report: service, GC wait, other wait, and the
//! parts the optional layers add (T_buffer_wait, T_retry).

use serde::{Deserialize, Serialize};

use crate::latency::Latency;
use crate::recorder::WorkAcc;
use crate::report::mean;

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
    /// Read retries and soft decodes (T_retry), part of the service above it: the
    /// extra senses, transfers and decodes of the last-completing sub-request's page
    /// read; present only with the error model (`errors.mode = "on"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_ns_mean: Option<f64>,
    /// Time on the PCIe link (T_pcie), part of the waiting; only with a link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_ns_mean: Option<f64>,
}

pub(crate) fn breakdown(w: &WorkAcc, waiting: &Latency) -> Breakdown {
    let gc_wait_ns_mean = mean(w.gc_wait_sum_ns, waiting.count);
    let buffer_wait_ns_mean = w.buffer_wait_sum_ns.map(|s| mean(s, waiting.count));
    let pcie_ns_mean = w.pcie_sum_ns.map(|s| mean(s, waiting.count));
    Breakdown {
        service_ns_mean: mean(w.service_sum_ns, waiting.count),
        gc_wait_ns_mean,
        // Subtracting an absent part's 0.0 changes no bit of the result.
        other_wait_ns_mean: (waiting.mean_ns
            - gc_wait_ns_mean
            - buffer_wait_ns_mean.unwrap_or(0.0)
            - pcie_ns_mean.unwrap_or(0.0))
        .max(0.0),
        pre_read_ns_mean: mean(w.pre_read_sum_ns, waiting.count),
        buffer_wait_ns_mean,
        retry_ns_mean: w.retry_sum_ns.map(|s| mean(s, waiting.count)),
        pcie_ns_mean,
    }
}
