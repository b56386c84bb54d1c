//! [`Occupancy`]: dirty pages over simulated time, in bounded memory.
//!
//! A point is kept at most every `interval_ns`; when `max_points` are kept, every
//! other point is dropped and the interval doubles, so a run of any length keeps
//! between `max_points / 2` and `max_points` evenly spread points. The first point is
//! the start, the last the end of the run. Deterministic: it depends on simulated time
//! only.

use serde::{Deserialize, Serialize};

/// The first spacing of the points, ns (1 ms).
const FIRST_INTERVAL_NS: u64 = 1_000_000;

/// A time series of the dirty pages in DRAM.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Simulated time of each point, ns.
    pub t_ns: Vec<u64>,
    /// Dirty pages at that time (the highest seen since the previous point).
    pub dirty_pages: Vec<u64>,
    #[serde(skip)]
    interval_ns: u64,
    #[serde(skip)]
    max_points: usize,
    #[serde(skip)]
    next_ns: u64,
    #[serde(skip)]
    peak: u64,
}

impl Occupancy {
    /// An empty series that keeps at most `max_points` points (at least 2).
    pub fn new(max_points: u32) -> Self {
        Occupancy {
            interval_ns: FIRST_INTERVAL_NS,
            max_points: (max_points as usize).max(2),
            ..Occupancy::default()
        }
    }

    /// The dirty pages are `dirty` at `now_ns`.
    pub fn note(&mut self, now_ns: u64, dirty: u64) {
        self.peak = self.peak.max(dirty);
        if now_ns < self.next_ns && !self.t_ns.is_empty() {
            return;
        }
        self.t_ns.push(now_ns);
        self.dirty_pages.push(self.peak);
        self.peak = dirty;
        self.next_ns = now_ns.saturating_add(self.interval_ns);
        if self.t_ns.len() >= self.max_points {
            self.halve();
        }
    }

    /// The last point, at the end of the run.
    pub fn finish(&mut self, now_ns: u64, dirty: u64) {
        self.peak = self.peak.max(dirty);
        if self.t_ns.last() != Some(&now_ns) {
            self.t_ns.push(now_ns);
            self.dirty_pages.push(self.peak);
        }
    }

    /// Keeps every other point (the first always) and doubles the spacing.
    fn halve(&mut self) {
        let keep = |v: &mut Vec<u64>| {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                i % 2 == 1
            });
        };
        keep(&mut self.t_ns);
        keep(&mut self.dirty_pages);
        self.interval_ns = self.interval_ns.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_keeps_a_bounded_evenly_spaced_series() {
        let mut s = Occupancy::new(16);
        for i in 0..100_000u64 {
            s.note(i * 10_000, i % 7);
        }
        s.finish(1_000_000_000, 3);
        assert!(s.t_ns.len() <= 17, "{}", s.t_ns.len());
        assert!(s.t_ns.len() >= 8, "{}", s.t_ns.len());
        assert_eq!(s.t_ns[0], 0);
        assert_eq!(*s.t_ns.last().unwrap(), 1_000_000_000);
        assert!(s.t_ns.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(s.t_ns.len(), s.dirty_pages.len());
    }

    #[test]
    fn a_point_keeps_the_peak_since_the_previous_one() {
        let mut s = Occupancy::new(64);
        s.note(0, 1);
        s.note(10, 50); // within the first millisecond: folded into the next point
        s.note(20, 2);
        s.note(2_000_000, 3);
        assert_eq!(s.dirty_pages, [1, 50]);
    }
}
