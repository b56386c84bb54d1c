//! An in-memory request stream, for tests, tools and bindings.

use ssdlab_trace::{IoRequest, RequestStream, TraceError};

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
