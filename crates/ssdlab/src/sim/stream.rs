//! An in-memory request stream, for tests, tools and bindings; the workload as a run
//! reads it.

use crate::config::tenants::PlacementFrom;
use crate::config::SimConfig;
use crate::error::SimError;
use ssdlab_trace::{IoRequest, RequestStream, TraceError, TraceSource};

/// The workload `src` as a run of `cfg` reads it. With `host.placement_from =
/// "workload"` a trace file is read with its stream field (`TraceOptions::streams`)
/// and a synthetic workload must have a placement rule; otherwise a synthetic
/// placement rule is refused, as it would be ignored.
///
/// # Errors
/// A configuration error naming `host.placement_from` for a synthetic workload without
/// a rule under `"workload"`, or with one under `"tenant"`.
pub fn workload_streams(cfg: &SimConfig, src: &TraceSource) -> Result<TraceSource, SimError> {
    let from_workload = cfg.host.placement_from == PlacementFrom::Workload;
    let mut src = src.clone();
    match &mut src {
        TraceSource::File { options, .. } => options.streams = from_workload,
        TraceSource::Synthetic(s) if from_workload && s.placement.is_none() => {
            return Err(SimError::config(
                "host.placement_from",
                "\"workload\" takes each write's stream from the workload, and this \
                 synthetic workload names none: give it a `placement` rule"
                    .into(),
            ));
        }
        TraceSource::Synthetic(s) if !from_workload && s.placement.is_some() => {
            return Err(SimError::config(
                "host.placement_from",
                "the synthetic workload's `placement` rule is used only with \
                 host.placement_from = \"workload\" (and host.placement_handles)"
                    .into(),
            ));
        }
        _ => {}
    }
    Ok(src)
}

/// Replays a list of requests (arrival times must not decrease).
pub struct VecStream {
    reqs: std::vec::IntoIter<IoRequest>,
}

impl VecStream {
    /// A stream over `reqs`.
    ///
    /// # Panics
    /// If arrival times decrease (a caller bug, not bad input).
    pub fn new(reqs: Vec<IoRequest>) -> Self {
        assert!(
            reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns),
            "VecStream: arrival times must not decrease"
        );
        VecStream {
            reqs: reqs.into_iter(),
        }
    }
}

impl Iterator for VecStream {
    type Item = Result<IoRequest, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.reqs.next().map(Ok)
    }
}

impl RequestStream for VecStream {
    fn skipped_lines(&self) -> u64 {
        0
    }
    fn clamped_timestamps(&self) -> u64 {
        0
    }
    fn format_name(&self) -> &'static str {
        "memory"
    }
}
