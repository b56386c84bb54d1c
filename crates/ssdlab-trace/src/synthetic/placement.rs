//! A synthetic workload's placement rule: how its writes name a stream of data
//! ([`crate::IoRequest::stream`]), as a host that separates data by expected lifetime
//! would tag them with a placement identifier.

use super::error::SyntheticError;
use serde::{Deserialize, Serialize};

/// The most streams a rule names (the most placement handles a device takes).
pub const MAX_RULE_STREAMS: usize = 256;

/// How the writes of a synthetic workload are tagged (`placement` in its TOML). Reads,
/// trims and flushes carry no stream. The rule draws nothing: the requests are the same
/// with and without it, only their stream differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlacementRule {
    /// By region: the footprint is cut at `bounds` (fractions of it, increasing, in
    /// (0, 1)); a write's stream is the index of the region its first byte falls in
    /// (0 before the first bound). With `address.kind = "hot_cold"` and `bounds =
    /// [hot_fraction]`, hot writes are stream 0 and cold ones stream 1: a host that
    /// knows which of its data is rewritten often.
    Region {
        /// Where the regions meet, as fractions of `footprint_bytes`.
        bounds: Vec<f64>,
    },
    /// By size: writes of at least `large_bytes` are stream 1, smaller ones stream 0
    /// (large, sequential writes of long-lived data apart from small updates).
    Size {
        /// The smallest write that counts as large, bytes.
        large_bytes: u64,
    },
}

impl PlacementRule {
    /// The stream of a write of `size_bytes` at `offset_bytes` in a footprint of
    /// `footprint_bytes`.
    #[inline]
    pub fn stream(&self, offset_bytes: u64, size_bytes: u64, footprint_bytes: u64) -> u32 {
        match self {
            PlacementRule::Region { bounds } => {
                let at = offset_bytes as f64 / footprint_bytes as f64;
                bounds.iter().take_while(|&&b| b <= at).count() as u32
            }
            PlacementRule::Size { large_bytes } => u32::from(size_bytes >= *large_bytes),
        }
    }

    /// The number of streams the rule names.
    pub fn streams(&self) -> u32 {
        match self {
            PlacementRule::Region { bounds } => bounds.len() as u32 + 1,
            PlacementRule::Size { .. } => 2,
        }
    }

    /// A short description for reports: what stream `s` holds.
    pub fn label(&self, s: u32) -> String {
        match self {
            PlacementRule::Region { bounds } => {
                let lo = if s == 0 { 0.0 } else { bounds[s as usize - 1] };
                let hi = bounds.get(s as usize).copied().unwrap_or(1.0);
                format!("region {lo}-{hi} of the footprint")
            }
            PlacementRule::Size { large_bytes } if s == 0 => {
                format!("writes below {large_bytes} B")
            }
            PlacementRule::Size { large_bytes } => format!("writes of {large_bytes} B or more"),
        }
    }

    /// Its problems, each naming its key.
    pub(crate) fn validate(&self, errs: &mut Vec<SyntheticError>) {
        match self {
            PlacementRule::Region { bounds } => {
                if bounds.is_empty() || bounds.len() >= MAX_RULE_STREAMS {
                    errs.push(SyntheticError::Rule {
                        key: "placement.bounds",
                        message: format!(
                            "needs 1 to {} bounds, found {}",
                            MAX_RULE_STREAMS - 1,
                            bounds.len()
                        ),
                    });
                }
                let inside = bounds.iter().all(|&b| b > 0.0 && b < 1.0);
                let increasing = bounds.windows(2).all(|w| w[0] < w[1]);
                if !(inside && increasing) {
                    errs.push(SyntheticError::Rule {
                        key: "placement.bounds",
                        message: format!("must be increasing and within (0, 1), found {bounds:?}"),
                    });
                }
            }
            PlacementRule::Size { large_bytes: 0 } => errs.push(SyntheticError::Zero {
                key: "placement.large_bytes",
            }),
            PlacementRule::Size { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_rule_names_the_region_of_the_first_byte() {
        let r = PlacementRule::Region {
            bounds: vec![0.1, 0.5],
        };
        assert_eq!(r.streams(), 3);
        assert_eq!(r.stream(0, 4096, 1000), 0);
        assert_eq!(r.stream(99, 4096, 1000), 0);
        assert_eq!(r.stream(100, 4096, 1000), 1, "a bound starts its region");
        assert_eq!(r.stream(499, 1, 1000), 1);
        assert_eq!(r.stream(500, 1, 1000), 2);
        assert_eq!(r.stream(999, 1, 1000), 2);
        assert_eq!(r.label(0), "region 0-0.1 of the footprint");
        assert_eq!(r.label(2), "region 0.5-1 of the footprint");
    }

    #[test]
    fn a_size_rule_separates_large_writes() {
        let r = PlacementRule::Size {
            large_bytes: 65_536,
        };
        assert_eq!(r.streams(), 2);
        assert_eq!(r.stream(0, 65_535, 1 << 30), 0);
        assert_eq!(r.stream(0, 65_536, 1 << 30), 1);
        assert_eq!(
            r.stream(1 << 29, 4096, 1 << 30),
            0,
            "the address does not count"
        );
    }

    #[test]
    fn bad_rules_name_their_key() {
        let keys = |r: PlacementRule| {
            let mut errs = Vec::new();
            r.validate(&mut errs);
            errs.iter().map(|e| e.key()).collect::<Vec<_>>()
        };
        let region = |b: &[f64]| PlacementRule::Region { bounds: b.to_vec() };
        assert!(keys(region(&[0.25, 0.5])).is_empty());
        assert_eq!(keys(region(&[])), ["placement.bounds"]);
        assert_eq!(keys(region(&[0.5, 0.25])), ["placement.bounds"]);
        assert_eq!(keys(region(&[0.0])), ["placement.bounds"]);
        assert_eq!(keys(region(&[1.0])), ["placement.bounds"]);
        assert_eq!(keys(region(&[f64::NAN])), ["placement.bounds"]);
        let size = PlacementRule::Size { large_bytes: 0 };
        assert_eq!(keys(size), ["placement.large_bytes"]);
    }
}
