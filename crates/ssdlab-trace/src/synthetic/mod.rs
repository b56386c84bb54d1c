//! Synthetic workloads: a configuration ([`SyntheticConfig`]) and a deterministic
//! generator ([`SyntheticGen`]).
//!
//! All randomness comes from one `seed`, split into independent streams per knob
//! (arrivals, operation, size, address, content), so changing, say, the size
//! distribution does not move the arrival times.

mod error;
mod gen;
mod zipf;

pub use error::{SyntheticError, SyntheticErrors};
pub use gen::SyntheticGen;

use serde::{Deserialize, Serialize};

/// Recent fresh write seeds from which a duplicate write picks its content.
pub const DUPLICATE_POOL_SEEDS: usize = 4096;

/// When requests arrive (open loop; a closed-loop host ignores these times).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrival {
    /// Exponential inter-arrival gaps with mean `1 / iops`.
    Poisson {
        /// Mean arrival rate, requests per second (> 0).
        iops: f64,
    },
    /// One request every `interval_ns`.
    Fixed {
        /// Gap between consecutive arrivals, ns.
        interval_ns: u64,
    },
}

/// Request sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    /// Every request has `bytes`.
    Fixed {
        /// Request size, bytes.
        bytes: u64,
    },
    /// Uniform over the multiples of `alignment_bytes` in `[min_bytes, max_bytes]`.
    Uniform {
        /// Smallest size, bytes.
        min_bytes: u64,
        /// Largest size, bytes.
        max_bytes: u64,
    },
    /// `bytes[i]` with probability proportional to `weights[i]`.
    Choice {
        /// Candidate sizes, bytes.
        bytes: Vec<u64>,
        /// Relative weights (same length, non-negative, not all zero).
        weights: Vec<f64>,
    },
}

/// Where requests go inside the footprint (in slots of `alignment_bytes`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AddressPattern {
    /// Every slot equally likely.
    Uniform,
    /// One cursor runs through the footprint request after request and wraps around.
    Sequential,
    /// Slot popularity follows Zipf's law with exponent `theta` (rank r has weight
    /// r^-theta); popular slots are scattered over the footprint.
    Zipf {
        /// Skew (> 0; 0.9–0.99 is typical).
        theta: f64,
    },
    /// A hot region (the first `hot_fraction` of the footprint) takes `hot_access` of
    /// the requests, uniformly inside each region.
    HotCold {
        /// Share of the footprint that is hot, in (0, 1).
        hot_fraction: f64,
        /// Share of the requests that go to the hot region, in [0, 1].
        hot_access: f64,
    },
}

/// A synthetic workload. Keys missing from a config file take their [`Default`]
/// values; unknown keys are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SyntheticConfig {
    /// Number of requests.
    pub requests: u64,
    /// Arrival process.
    pub arrival: Arrival,
    /// Fraction of reads, in [0, 1].
    pub read_ratio: f64,
    /// Request sizes.
    pub size: SizeDist,
    /// Address pattern.
    pub address: AddressPattern,
    /// Bytes of device space the workload touches (addresses are in `[0, footprint)`).
    pub footprint_bytes: u64,
    /// Offsets are multiples of this (and `Uniform` sizes too).
    pub alignment_bytes: u64,
    /// Fraction of writes whose content repeats an earlier write's, in [0, 1].
    pub duplicate_ratio: f64,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for SyntheticConfig {
    /// A mixed workload: 100k requests, 70 % reads, 4–64 KiB, Zipf 0.9 over 8 GiB,
    /// 20 % duplicate writes, Poisson arrivals at 20k IOPS.
    fn default() -> Self {
        SyntheticConfig {
            requests: 100_000,
            arrival: Arrival::Poisson { iops: 20_000.0 },
            read_ratio: 0.7,
            size: SizeDist::Uniform {
                min_bytes: 4096,
                max_bytes: 65_536,
            },
            address: AddressPattern::Zipf { theta: 0.9 },
            footprint_bytes: 8 << 30,
            alignment_bytes: 4096,
            duplicate_ratio: 0.2,
            seed: 42,
        }
    }
}

fn unit_interval(v: f64) -> bool {
    (0.0..=1.0).contains(&v)
}

/// A problem if `found` is outside `[0, 1]`.
fn check_unit(key: &'static str, found: f64) -> Option<SyntheticError> {
    (!unit_interval(found)).then_some(SyntheticError::OutOfRange {
        key,
        range: "[0, 1]",
        found,
    })
}

impl SyntheticConfig {
    /// Checks every key; the error lists each problem with its key path.
    pub fn validate(&self) -> Result<(), SyntheticErrors> {
        use SyntheticError as E;
        let mut errs = Vec::new();
        if self.requests == 0 {
            errs.push(E::Zero { key: "requests" });
        }
        match self.arrival {
            Arrival::Poisson { iops } if !(iops.is_finite() && iops > 0.0) => {
                errs.push(E::NotPositive {
                    key: "arrival.iops",
                    found: iops,
                });
            }
            _ => {}
        }
        errs.extend(check_unit("read_ratio", self.read_ratio));
        errs.extend(check_unit("duplicate_ratio", self.duplicate_ratio));
        if self.alignment_bytes == 0 {
            errs.push(E::Zero {
                key: "alignment_bytes",
            });
        }
        if self.footprint_bytes < self.alignment_bytes.max(1) {
            errs.push(E::FootprintTooSmall {
                footprint_bytes: self.footprint_bytes,
                alignment_bytes: self.alignment_bytes,
            });
        }
        self.validate_size(&mut errs);
        self.validate_address(&mut errs);
        if errs.is_empty() {
            Ok(())
        } else {
            Err(SyntheticErrors(errs))
        }
    }

    fn validate_size(&self, errs: &mut Vec<SyntheticError>) {
        use SyntheticError as E;
        match &self.size {
            SizeDist::Fixed { bytes: 0 } => errs.push(E::ZeroFixedSize),
            SizeDist::Fixed { .. } => {}
            &SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => {
                let a = self.alignment_bytes.max(1);
                if min_bytes == 0 || min_bytes > max_bytes {
                    errs.push(E::SizeBounds {
                        min_bytes,
                        max_bytes,
                    });
                } else if min_bytes.div_ceil(a) > max_bytes / a {
                    errs.push(E::NoAlignedSize {
                        min_bytes,
                        max_bytes,
                        alignment_bytes: a,
                    });
                }
            }
            SizeDist::Choice { bytes, weights } => {
                if bytes.is_empty() || bytes.len() != weights.len() {
                    errs.push(E::WeightCount {
                        sizes: bytes.len(),
                        weights: weights.len(),
                    });
                }
                if bytes.contains(&0) {
                    errs.push(E::ZeroChoiceSize);
                }
                let ok_w = weights.iter().all(|w| w.is_finite() && *w >= 0.0);
                if !ok_w || weights.iter().sum::<f64>() <= 0.0 {
                    errs.push(E::BadWeights {
                        weights: weights.clone(),
                    });
                }
            }
        }
        let max_size = self.max_size_bytes();
        if max_size > self.footprint_bytes {
            errs.push(E::SizeExceedsFootprint {
                size_bytes: max_size,
                footprint_bytes: self.footprint_bytes,
            });
        }
    }

    fn validate_address(&self, errs: &mut Vec<SyntheticError>) {
        match self.address {
            AddressPattern::Zipf { theta }
                if !(theta.is_finite() && theta > 0.0 && theta <= 100.0) =>
            {
                errs.push(SyntheticError::OutOfRange {
                    key: "address.theta",
                    range: "(0, 100]",
                    found: theta,
                });
            }
            AddressPattern::HotCold {
                hot_fraction,
                hot_access,
            } => {
                if !(hot_fraction > 0.0 && hot_fraction < 1.0) {
                    errs.push(SyntheticError::OutOfRange {
                        key: "address.hot_fraction",
                        range: "(0, 1)",
                        found: hot_fraction,
                    });
                }
                errs.extend(check_unit("address.hot_access", hot_access));
            }
            _ => {}
        }
    }

    /// The largest request size the configuration can produce.
    pub fn max_size_bytes(&self) -> u64 {
        match &self.size {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Uniform { max_bytes, .. } => *max_bytes,
            SizeDist::Choice { bytes, .. } => bytes.iter().copied().max().unwrap_or(0),
        }
    }

    /// A short human description of the workload.
    pub fn describe(&self) -> String {
        let arrival = match self.arrival {
            Arrival::Poisson { iops } => format!("poisson {iops} IOPS"),
            Arrival::Fixed { interval_ns } => format!("every {interval_ns} ns"),
        };
        let size = match &self.size {
            SizeDist::Fixed { bytes } => format!("{bytes} B"),
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => format!("{min_bytes}-{max_bytes} B"),
            SizeDist::Choice { bytes, .. } => format!("sizes {bytes:?} B"),
        };
        let address = match self.address {
            AddressPattern::Uniform => "uniform".to_string(),
            AddressPattern::Sequential => "sequential".to_string(),
            AddressPattern::Zipf { theta } => format!("zipf {theta}"),
            AddressPattern::HotCold {
                hot_fraction,
                hot_access,
            } => {
                format!("hot/cold {hot_fraction}/{hot_access}")
            }
        };
        format!(
            "{} requests, {:.0}% reads, {size}, {address} over {} B, {arrival}, {:.0}% duplicate writes, seed {}",
            self.requests,
            self.read_ratio * 100.0,
            self.footprint_bytes,
            self.duplicate_ratio * 100.0,
            self.seed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        SyntheticConfig::default().validate().unwrap();
    }

    #[test]
    fn validate_names_every_bad_key() {
        let cfg = SyntheticConfig {
            read_ratio: 1.5,
            duplicate_ratio: -0.1,
            address: AddressPattern::HotCold {
                hot_fraction: 1.0,
                hot_access: 0.5,
            },
            ..SyntheticConfig::default()
        };
        let err = cfg.validate().unwrap_err();
        let keys: Vec<_> = err.keys().collect();
        assert_eq!(
            keys,
            ["read_ratio", "duplicate_ratio", "address.hot_fraction"]
        );
        assert_eq!(
            err.0[2],
            SyntheticError::OutOfRange {
                key: "address.hot_fraction",
                range: "(0, 1)",
                found: 1.0
            }
        );
        assert_eq!(
            err.to_string(),
            "read_ratio: must be within [0, 1], found 1.5; \
             duplicate_ratio: must be within [0, 1], found -0.1; \
             address.hot_fraction: must be within (0, 1), found 1"
        );
        let cfg = SyntheticConfig {
            size: SizeDist::Uniform {
                min_bytes: 5000,
                max_bytes: 6000,
            },
            ..SyntheticConfig::default()
        };
        assert_eq!(
            cfg.validate().unwrap_err().0,
            [SyntheticError::NoAlignedSize {
                min_bytes: 5000,
                max_bytes: 6000,
                alignment_bytes: 4096
            }]
        );
        let cfg = SyntheticConfig {
            arrival: Arrival::Poisson { iops: 0.0 },
            ..SyntheticConfig::default()
        };
        assert_eq!(
            cfg.validate().unwrap_err().to_string(),
            "arrival.iops: must be a positive number, found 0"
        );
        let cfg = SyntheticConfig {
            size: SizeDist::Choice {
                bytes: vec![4096, 8192],
                weights: vec![1.0],
            },
            ..SyntheticConfig::default()
        };
        assert_eq!(
            cfg.validate().unwrap_err().0,
            [SyntheticError::WeightCount {
                sizes: 2,
                weights: 1
            }]
        );
    }

    #[test]
    fn config_files_are_strict_and_tagged() {
        let json = r#"{"requests": 7, "arrival": {"kind": "fixed", "interval_ns": 1000},
                       "address": {"kind": "hot_cold", "hot_fraction": 0.2, "hot_access": 0.8}}"#;
        let cfg: SyntheticConfig = serde_json::from_str(json).unwrap();
        assert_eq!(cfg.requests, 7);
        assert_eq!(cfg.arrival, Arrival::Fixed { interval_ns: 1000 });
        assert_eq!(cfg.read_ratio, 0.7);
        let typo = r#"{"request": 7}"#;
        assert!(serde_json::from_str::<SyntheticConfig>(typo)
            .unwrap_err()
            .to_string()
            .contains("request"));
        let inner = r#"{"arrival": {"kind": "poisson", "iops": 5, "burst": 2}}"#;
        assert!(serde_json::from_str::<SyntheticConfig>(inner).is_err());
        let back: SyntheticConfig =
            serde_json::from_str(&serde_json::to_string(&SyntheticConfig::default()).unwrap())
                .unwrap();
        assert_eq!(back, SyntheticConfig::default());
    }
}
