//! Synthetic workloads: a configuration ([`SyntheticConfig`]) and a deterministic
//! generator ([`SyntheticGen`]).
//!
//! All randomness comes from one `seed`, split into independent streams per knob
//! (arrivals, operation, size, address, content), so changing, say, the size
//! distribution does not move the arrival times. Reads and writes may have their own
//! sizes and addresses (`read_size`, `write_size`, `read_address`, `write_address`);
//! each such key has its own stream too. FUA writes (`fua_ratio`) have their own stream,
//! drawn only when asked for; so do trims (`trim_ratio`); flush commands (`flush_every`)
//! draw nothing.

mod describe;
mod error;
mod gen;
mod placement;
mod sample;
mod zipf;

pub use error::{SyntheticError, SyntheticErrors};
pub use gen::SyntheticGen;
pub use placement::PlacementRule;

use crate::request::Op;
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
    /// The common `address` has one cursor for the operations that use it; a
    /// `read_address` or `write_address` has its own.
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
    /// Request sizes (of the operations without a size of their own).
    pub size: SizeDist,
    /// Address pattern (of the operations without a pattern of their own).
    pub address: AddressPattern,
    /// Sizes of reads; `size` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_size: Option<SizeDist>,
    /// Sizes of writes; `size` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_size: Option<SizeDist>,
    /// Address pattern of reads; `address` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_address: Option<AddressPattern>,
    /// Address pattern of writes; `address` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_address: Option<AddressPattern>,
    /// Bytes of device space the workload touches (addresses are in `[0, footprint)`).
    pub footprint_bytes: u64,
    /// Offsets are multiples of this (and `Uniform` sizes too).
    pub alignment_bytes: u64,
    /// Fraction of writes whose content repeats an earlier write's, in [0, 1].
    pub duplicate_ratio: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Reads carry content too, drawn as writes' is (fresh, or with probability
    /// `duplicate_ratio` an earlier content): the content of data that was on the device
    /// before the workload began, which a simulator materializes when a read finds its
    /// page never written (FIU traces carry it for every read).
    #[serde(skip_serializing_if = "is_false")]
    pub read_content: bool,
    /// A flush command after every `flush_every` requests, arriving with the request it
    /// follows (0: never). Flushes are not counted in `requests`.
    #[serde(skip_serializing_if = "is_zero")]
    pub flush_every: u64,
    /// Fraction of writes that are FUA (durable before they complete), in [0, 1].
    #[serde(skip_serializing_if = "is_zero_ratio")]
    pub fua_ratio: f64,
    /// Fraction of the writes that are trims instead, in [0, 1]: a trim of the range
    /// the write would have written (its size and address drawn as a write's), with no
    /// content and no FUA. Every other request is as without trims.
    #[serde(skip_serializing_if = "is_zero_ratio")]
    pub trim_ratio: f64,
    /// How writes name their stream of data (the placement identifier a simulator with
    /// `host.placement_from = "workload"` takes); none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<PlacementRule>,
}

fn is_false(b: &bool) -> bool {
    !b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_ratio(r: &f64) -> bool {
    *r == 0.0
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
            read_size: None,
            write_size: None,
            read_address: None,
            write_address: None,
            footprint_bytes: 8 << 30,
            alignment_bytes: 4096,
            duplicate_ratio: 0.2,
            seed: 42,
            read_content: false,
            flush_every: 0,
            fua_ratio: 0.0,
            trim_ratio: 0.0,
            placement: None,
        }
    }
}

fn unit_interval(v: f64) -> bool {
    (0.0..=1.0).contains(&v)
}

/// Key paths of one size table.
struct SizeKeys {
    table: &'static str,
    bytes: &'static str,
    weights: &'static str,
}

/// Key paths of one address pattern.
struct AddressKeys {
    theta: &'static str,
    hot_fraction: &'static str,
    hot_access: &'static str,
}

/// `size`, `read_size`, `write_size`.
const SIZE_KEYS: [SizeKeys; 3] = [
    SizeKeys {
        table: "size",
        bytes: "size.bytes",
        weights: "size.weights",
    },
    SizeKeys {
        table: "read_size",
        bytes: "read_size.bytes",
        weights: "read_size.weights",
    },
    SizeKeys {
        table: "write_size",
        bytes: "write_size.bytes",
        weights: "write_size.weights",
    },
];

/// `address`, `read_address`, `write_address`.
const ADDRESS_KEYS: [AddressKeys; 3] = [
    AddressKeys {
        theta: "address.theta",
        hot_fraction: "address.hot_fraction",
        hot_access: "address.hot_access",
    },
    AddressKeys {
        theta: "read_address.theta",
        hot_fraction: "read_address.hot_fraction",
        hot_access: "read_address.hot_access",
    },
    AddressKeys {
        theta: "write_address.theta",
        hot_fraction: "write_address.hot_fraction",
        hot_access: "write_address.hot_access",
    },
];

/// The largest size `size` can produce.
fn max_bytes(size: &SizeDist) -> u64 {
    match size {
        SizeDist::Fixed { bytes } => *bytes,
        SizeDist::Uniform { max_bytes, .. } => *max_bytes,
        SizeDist::Choice { bytes, .. } => bytes.iter().copied().max().unwrap_or(0),
    }
}

/// A problem if `found` is outside `[0, 1]`.
fn check_unit(key: &'static str, found: f64) -> Option<SyntheticError> {
    (!unit_interval(found)).then_some(SyntheticError::OutOfRange {
        key,
        range: "[0, 1]",
        found,
    })
}

fn validate_address(address: &AddressPattern, keys: &AddressKeys, errs: &mut Vec<SyntheticError>) {
    match *address {
        AddressPattern::Zipf { theta } if !(theta.is_finite() && theta > 0.0 && theta <= 100.0) => {
            errs.push(SyntheticError::OutOfRange {
                key: keys.theta,
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
                    key: keys.hot_fraction,
                    range: "(0, 1)",
                    found: hot_fraction,
                });
            }
            errs.extend(check_unit(keys.hot_access, hot_access));
        }
        _ => {}
    }
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
        errs.extend(check_unit("fua_ratio", self.fua_ratio));
        errs.extend(check_unit("trim_ratio", self.trim_ratio));
        if let Some(rule) = &self.placement {
            rule.validate(&mut errs);
        }
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
        let sizes = [
            Some(&self.size),
            self.read_size.as_ref(),
            self.write_size.as_ref(),
        ];
        for (size, keys) in sizes.into_iter().zip(&SIZE_KEYS) {
            if let Some(size) = size {
                self.validate_size(size, keys, &mut errs);
            }
        }
        let addresses = [
            Some(&self.address),
            self.read_address.as_ref(),
            self.write_address.as_ref(),
        ];
        for (address, keys) in addresses.into_iter().zip(&ADDRESS_KEYS) {
            if let Some(address) = address {
                validate_address(address, keys, &mut errs);
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(SyntheticErrors(errs))
        }
    }

    fn validate_size(&self, size: &SizeDist, keys: &SizeKeys, errs: &mut Vec<SyntheticError>) {
        use SyntheticError as E;
        match size {
            SizeDist::Fixed { bytes: 0 } => errs.push(E::ZeroFixedSize { key: keys.bytes }),
            SizeDist::Fixed { .. } => {}
            &SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => {
                let a = self.alignment_bytes.max(1);
                if min_bytes == 0 || min_bytes > max_bytes {
                    errs.push(E::SizeBounds {
                        key: keys.table,
                        min_bytes,
                        max_bytes,
                    });
                } else if min_bytes.div_ceil(a) > max_bytes / a {
                    errs.push(E::NoAlignedSize {
                        key: keys.table,
                        min_bytes,
                        max_bytes,
                        alignment_bytes: a,
                    });
                }
            }
            SizeDist::Choice { bytes, weights } => {
                if bytes.is_empty() || bytes.len() != weights.len() {
                    errs.push(E::WeightCount {
                        key: keys.weights,
                        sizes: bytes.len(),
                        weights: weights.len(),
                    });
                }
                if bytes.contains(&0) {
                    errs.push(E::ZeroChoiceSize { key: keys.bytes });
                }
                let ok_w = weights.iter().all(|w| w.is_finite() && *w >= 0.0);
                if !ok_w || weights.iter().sum::<f64>() <= 0.0 {
                    errs.push(E::BadWeights {
                        key: keys.weights,
                        weights: weights.clone(),
                    });
                }
            }
        }
        let max_size = max_bytes(size);
        if max_size > self.footprint_bytes {
            errs.push(E::SizeExceedsFootprint {
                key: keys.table,
                size_bytes: max_size,
                footprint_bytes: self.footprint_bytes,
            });
        }
    }

    /// The size distribution of `op`: its own key, or the common `size`.
    pub fn size_of(&self, op: Op) -> &SizeDist {
        let own = match op {
            Op::Read => &self.read_size,
            Op::Write | Op::Trim => &self.write_size,
            Op::Flush => &None,
        };
        own.as_ref().unwrap_or(&self.size)
    }

    /// The address pattern of `op`: its own key, or the common `address`.
    pub fn address_of(&self, op: Op) -> &AddressPattern {
        let own = match op {
            Op::Read => &self.read_address,
            Op::Write | Op::Trim => &self.write_address,
            Op::Flush => &None,
        };
        own.as_ref().unwrap_or(&self.address)
    }

    /// The largest request size the configuration can produce (over `size` and the
    /// per-operation sizes).
    pub fn max_size_bytes(&self) -> u64 {
        [
            Some(&self.size),
            self.read_size.as_ref(),
            self.write_size.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(max_bytes)
        .max()
        .unwrap_or(0)
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
                key: "size",
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
                key: "size.weights",
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

    /// Reads of 4 KiB anywhere, writes of 64 KiB in order.
    fn per_op() -> SyntheticConfig {
        SyntheticConfig {
            read_size: Some(SizeDist::Fixed { bytes: 4096 }),
            write_size: Some(SizeDist::Choice {
                bytes: vec![65_536],
                weights: vec![1.0],
            }),
            read_address: Some(AddressPattern::Uniform),
            write_address: Some(AddressPattern::Sequential),
            ..SyntheticConfig::default()
        }
    }

    #[test]
    fn per_op_keys_fall_back_to_the_common_ones() {
        let c = per_op();
        c.validate().unwrap();
        assert_eq!(c.size_of(Op::Read), &SizeDist::Fixed { bytes: 4096 });
        assert_eq!(c.address_of(Op::Write), &AddressPattern::Sequential);
        assert_eq!(c.max_size_bytes(), 65_536);
        let d = SyntheticConfig::default();
        assert_eq!(d.size_of(Op::Write), &d.size);
        assert_eq!(d.address_of(Op::Read), &d.address);
        assert_eq!(
            d.describe(),
            "100000 requests, 70% reads, 4096-65536 B, zipf 0.9 over 8589934592 B, \
             poisson 20000 IOPS, 20% duplicate writes, seed 42"
        );
        let only_writes = SyntheticConfig {
            write_address: Some(AddressPattern::Sequential),
            ..SyntheticConfig::default()
        };
        assert_eq!(
            only_writes.describe(),
            "100000 requests, 70% reads, 4096-65536 B, zipf 0.9 over 8589934592 B, \
             poisson 20000 IOPS, writes 4096-65536 B sequential, 20% duplicate writes, seed 42"
        );
    }

    #[test]
    fn validate_names_the_per_op_keys() {
        let cfg = SyntheticConfig {
            footprint_bytes: 1 << 20,
            read_size: Some(SizeDist::Uniform {
                min_bytes: 5000,
                max_bytes: 6000,
            }),
            write_size: Some(SizeDist::Choice {
                bytes: vec![0, 2 << 20],
                weights: vec![0.0, 0.0],
            }),
            read_address: Some(AddressPattern::Zipf { theta: 0.0 }),
            write_address: Some(AddressPattern::HotCold {
                hot_fraction: 0.5,
                hot_access: 2.0,
            }),
            ..SyntheticConfig::default()
        };
        let err = cfg.validate().unwrap_err();
        assert_eq!(
            err.keys().collect::<Vec<_>>(),
            [
                "read_size",
                "write_size.bytes",
                "write_size.weights",
                "write_size",
                "read_address.theta",
                "write_address.hot_access",
            ]
        );
        assert_eq!(
            err.0[3],
            SyntheticError::SizeExceedsFootprint {
                key: "write_size",
                size_bytes: 2 << 20,
                footprint_bytes: 1 << 20,
            }
        );
        assert_eq!(
            err.to_string(),
            "read_size: no multiple of alignment_bytes 4096 in 5000..=6000; \
             write_size.bytes: sizes must be positive; \
             write_size.weights: must be non-negative and not all zero; \
             write_size: largest size 2097152 exceeds footprint_bytes 1048576; \
             read_address.theta: must be within (0, 100], found 0; \
             write_address.hot_access: must be within [0, 1], found 2"
        );
        // A per-operation size is checked against the footprint like `size`.
        let cfg = SyntheticConfig {
            footprint_bytes: 8192,
            size: SizeDist::Fixed { bytes: 4096 },
            read_size: Some(SizeDist::Fixed { bytes: 0 }),
            write_size: Some(SizeDist::Uniform {
                min_bytes: 4096,
                max_bytes: 12_288,
            }),
            ..SyntheticConfig::default()
        };
        assert_eq!(
            cfg.validate().unwrap_err().to_string(),
            "read_size.bytes: must be positive; \
             write_size: largest size 12288 exceeds footprint_bytes 8192"
        );
    }

    #[test]
    fn per_op_keys_round_trip_through_json_and_toml() {
        for cfg in [SyntheticConfig::default(), per_op()] {
            let json = serde_json::to_string(&cfg).unwrap();
            assert!(!json.contains("null"), "{json}");
            assert_eq!(serde_json::from_str::<SyntheticConfig>(&json).unwrap(), cfg);
            let toml = toml::to_string(&cfg).unwrap();
            assert_eq!(toml::from_str::<SyntheticConfig>(&toml).unwrap(), cfg);
        }
        let default_json = serde_json::to_string(&SyntheticConfig::default()).unwrap();
        for key in [
            "read_size",
            "write_size",
            "read_address",
            "write_address",
            "flush_every",
            "fua_ratio",
            "trim_ratio",
        ] {
            assert!(!default_json.contains(key), "{default_json}");
        }
        let text = r#"
            read_ratio = 0.078
            read_size = { kind = "uniform", min_bytes = 512, max_bytes = 4096 }
            write_size = { kind = "fixed", bytes = 8192 }
            read_address = { kind = "uniform" }
            write_address = { kind = "sequential" }
        "#;
        let cfg: SyntheticConfig = toml::from_str(text).unwrap();
        assert_eq!(cfg.write_size, Some(SizeDist::Fixed { bytes: 8192 }));
        assert_eq!(cfg.read_address, Some(AddressPattern::Uniform));
        assert_eq!(cfg.size, SyntheticConfig::default().size);
        let typo = "write_adress = { kind = \"sequential\" }";
        assert!(toml::from_str::<SyntheticConfig>(typo).is_err());
        let inner = "read_size = { kind = \"fixed\", bytes = 4096, max_bytes = 1 }";
        assert!(toml::from_str::<SyntheticConfig>(inner).is_err());
    }

    #[test]
    fn flush_and_fua_keys_are_read_checked_and_described() {
        let cfg: SyntheticConfig = toml::from_str("flush_every = 32\nfua_ratio = 0.25").unwrap();
        assert_eq!((cfg.flush_every, cfg.fua_ratio), (32, 0.25));
        cfg.validate().unwrap();
        let toml = toml::to_string(&cfg).unwrap();
        assert!(toml.contains("flush_every = 32") && toml.contains("fua_ratio = 0.25"));
        assert_eq!(toml::from_str::<SyntheticConfig>(&toml).unwrap(), cfg);
        assert_eq!(
            cfg.describe(),
            "100000 requests, 70% reads, 4096-65536 B, zipf 0.9 over 8589934592 B, \
             poisson 20000 IOPS, 20% duplicate writes, a flush every 32 requests, \
             25% FUA writes, seed 42"
        );
        for bad in [-0.5, 1.5, f64::NAN] {
            let cfg = SyntheticConfig {
                fua_ratio: bad,
                ..SyntheticConfig::default()
            };
            let err = cfg.validate().unwrap_err();
            assert_eq!(err.keys().collect::<Vec<_>>(), ["fua_ratio"]);
            assert!(
                err.to_string()
                    .starts_with("fua_ratio: must be within [0, 1], found "),
                "{err}"
            );
        }
        let typo = "flush_evry = 3";
        let err = toml::from_str::<SyntheticConfig>(typo).unwrap_err();
        assert!(err.to_string().contains("flush_evry"), "{err}");
    }
}
