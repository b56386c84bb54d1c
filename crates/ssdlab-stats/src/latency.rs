//! Latency distributions: exact count, sum, minimum and maximum, plus an HDR histogram
//! for percentiles.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::record::OpClass;

/// Significant decimal digits kept by the percentile histograms: a recorded value is
/// resolved to within 0.1 % (values below 2,048 ns exactly).
pub(crate) const SIGNIFICANT_DIGITS: u8 = 3;

/// Highest value the histograms are sized for up front (10 s in ns). Larger values
/// still record: the histogram grows (one allocation) the first time one appears.
const PRESIZED_HIGH_NS: u64 = 10_000_000_000;

/// A value per request class: all requests, reads only, writes only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassStats<T> {
    /// Reads and writes together.
    pub all: T,
    /// Read requests only.
    pub read: T,
    /// Write requests only.
    pub write: T,
}

impl<T> ClassStats<T> {
    /// The value of one class (never `all`).
    #[inline]
    pub fn class(&self, op: OpClass) -> &T {
        match op {
            OpClass::Read => &self.read,
            OpClass::Write => &self.write,
        }
    }

    /// The value of one class (never `all`), mutably.
    #[inline]
    pub fn class_mut(&mut self, op: OpClass) -> &mut T {
        match op {
            OpClass::Read => &mut self.read,
            OpClass::Write => &mut self.write,
        }
    }

    /// Applies `f` to each of `all`, `read` and `write`.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> ClassStats<U> {
        ClassStats {
            all: f(&self.all),
            read: f(&self.read),
            write: f(&self.write),
        }
    }

    /// The three values with their class names, in `all`, `read`, `write` order.
    pub fn named(&self) -> [(&'static str, &T); 3] {
        [
            ("all", &self.all),
            ("read", &self.read),
            ("write", &self.write),
        ]
    }
}

/// Summary of one latency distribution, in nanoseconds.
///
/// `count`, `mean_ns`, `min_ns` and `max_ns` are exact (the mean from a `u128` sum).
/// Percentiles are HDR-histogram quantiles: `pXX_ns` is `value_at_quantile(q)` of a
/// histogram with 3 significant digits, i.e. the highest value equivalent to the
/// smallest recorded value whose cumulative count reaches `ceil(q × count)`, clamped
/// to `[min_ns, max_ns]`. It is therefore within 0.1 % of the exact nearest-rank
/// percentile. An empty distribution is all zeros.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Number of values.
    pub count: u64,
    /// Arithmetic mean (exact up to `f64` rounding).
    pub mean_ns: f64,
    /// Smallest value (exact).
    pub min_ns: u64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest value (exact).
    pub max_ns: u64,
}

/// `num / den`, or 0 when `den` is 0: reports never hold NaN.
#[inline]
pub fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

/// Accumulates one latency distribution.
#[derive(Clone, Debug)]
pub(crate) struct LatencyAcc {
    hist: Histogram<u64>,
    sum_ns: u128,
    count: u64,
    min_ns: u64,
    max_ns: u64,
}

impl LatencyAcc {
    pub(crate) fn new() -> Self {
        let mut hist = Histogram::new_with_bounds(1, PRESIZED_HIGH_NS, SIGNIFICANT_DIGITS)
            .expect("constant histogram bounds are valid");
        hist.auto(true);
        LatencyAcc {
            hist,
            sum_ns: 0,
            count: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// Adds one value. O(1); allocates only when `ns` exceeds every earlier value
    /// and the presized range.
    #[inline]
    pub(crate) fn record(&mut self, ns: u64) {
        if self.hist.record(ns).is_err() {
            // Only values near u64::MAX cannot be tracked; keep them at the top bucket.
            self.hist.saturating_record(ns);
        }
        self.sum_ns += u128::from(ns);
        self.count += 1;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Adds every value of `other` (the `all` class is the merge of read and write).
    fn merge(&mut self, other: &LatencyAcc) {
        if other.count == 0 {
            return;
        }
        self.hist
            .add(&other.hist)
            .expect("auto-resizing histograms always merge");
        self.sum_ns += other.sum_ns;
        self.count += other.count;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// Number of values recorded so far.
    #[inline]
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The summary; all zeros when nothing was recorded.
    pub(crate) fn summary(&self) -> Latency {
        if self.count == 0 {
            return Latency::default();
        }
        let at = |q: f64| {
            self.hist
                .value_at_quantile(q)
                .clamp(self.min_ns, self.max_ns)
        };
        Latency {
            count: self.count,
            // The clamp only absorbs f64 rounding of very large sums.
            mean_ns: (self.sum_ns as f64 / self.count as f64)
                .clamp(self.min_ns as f64, self.max_ns as f64),
            min_ns: self.min_ns,
            p50_ns: at(0.50),
            p90_ns: at(0.90),
            p99_ns: at(0.99),
            p999_ns: at(0.999),
            max_ns: self.max_ns,
        }
    }
}

/// One latency distribution per class.
#[derive(Clone, Debug)]
pub(crate) struct ClassLatency(pub(crate) ClassStats<LatencyAcc>);

impl ClassLatency {
    pub(crate) fn new() -> Self {
        ClassLatency(ClassStats {
            all: LatencyAcc::new(),
            read: LatencyAcc::new(),
            write: LatencyAcc::new(),
        })
    }

    /// Adds `ns` to the distribution of `op`; `all` is their merge, built when a
    /// summary is taken (one histogram update per value on the hot path).
    #[inline]
    pub(crate) fn record(&mut self, op: OpClass, ns: u64) {
        self.0.class_mut(op).record(ns);
    }

    /// Values recorded over both classes.
    pub(crate) fn count_all(&self) -> u64 {
        self.0.read.count() + self.0.write.count()
    }

    pub(crate) fn summary(&self) -> ClassStats<Latency> {
        let mut all = self.0.read.clone();
        all.merge(&self.0.write);
        ClassStats {
            all: all.summary(),
            read: self.0.read.summary(),
            write: self.0.write.summary(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn summary_of(values: &[u64]) -> Latency {
        let mut acc = LatencyAcc::new();
        for &v in values {
            acc.record(v);
        }
        acc.summary()
    }

    #[test]
    fn empty_is_all_zeros() {
        let l = summary_of(&[]);
        assert_eq!(l, Latency::default());
        assert_eq!(l.mean_ns, 0.0);
    }

    #[test]
    fn small_values_are_exact() {
        // Below 2,048 the histogram resolves every integer.
        let l = summary_of(&[100, 200, 300, 400, 500]);
        assert_eq!(l.count, 5);
        assert_eq!(l.mean_ns, 300.0);
        assert_eq!(l.min_ns, 100);
        assert_eq!(l.p50_ns, 300);
        assert_eq!(l.p90_ns, 500);
        assert_eq!(l.p99_ns, 500);
        assert_eq!(l.max_ns, 500);
    }

    #[test]
    fn percentiles_never_exceed_the_exact_max() {
        // 1,000,001 falls in a bucket 1,024 wide; the raw quantile would be its top.
        let l = summary_of(&[1_000_001]);
        assert_eq!(l.p50_ns, 1_000_001);
        assert_eq!(l.p999_ns, 1_000_001);
        assert_eq!(l.max_ns, 1_000_001);
    }

    #[test]
    fn values_beyond_the_presized_range_record() {
        let l = summary_of(&[5, 3_600_000_000_000]);
        assert_eq!(l.max_ns, 3_600_000_000_000);
        let rel = (l.p99_ns as f64 - 3.6e12).abs() / 3.6e12;
        assert!(rel < 1e-3, "p99 {}", l.p99_ns);
    }

    #[test]
    fn class_latency_feeds_all_and_its_class() {
        let mut c = ClassLatency::new();
        c.record(OpClass::Read, 10);
        c.record(OpClass::Write, 30);
        let s = c.summary();
        assert_eq!(s.all.count, 2);
        assert_eq!(s.all.mean_ns, 20.0);
        assert_eq!(s.read.max_ns, 10);
        assert_eq!(s.write.min_ns, 30);
    }

    proptest! {
        #[test]
        fn percentiles_are_ordered(values in prop::collection::vec(0u64..50_000_000_000, 1..400)) {
            let l = summary_of(&values);
            let min = *values.iter().min().unwrap();
            let max = *values.iter().max().unwrap();
            prop_assert_eq!(l.count, values.len() as u64);
            prop_assert_eq!(l.min_ns, min);
            prop_assert_eq!(l.max_ns, max);
            prop_assert!(l.min_ns <= l.p50_ns);
            prop_assert!(l.p50_ns <= l.p90_ns);
            prop_assert!(l.p90_ns <= l.p99_ns);
            prop_assert!(l.p99_ns <= l.p999_ns);
            prop_assert!(l.p999_ns <= l.max_ns);
            prop_assert!(l.mean_ns >= min as f64 && l.mean_ns <= max as f64);
        }
    }
}
