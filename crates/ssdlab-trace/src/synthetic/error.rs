//! Why a [`SyntheticConfig`](super::SyntheticConfig) is invalid: [`SyntheticError`] for
//! one problem, [`SyntheticErrors`] for all of them.

use std::fmt;

/// One problem of a synthetic workload configuration. Every variant names its key
/// ([`SyntheticError::key`]) and carries the offending values; the message starts with
/// the key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SyntheticError {
    /// A count that must be at least 1 is 0 (`requests`, `alignment_bytes`).
    #[error("{key}: must be at least 1")]
    Zero {
        /// The key.
        key: &'static str,
    },
    /// A rate that must be a positive, finite number is not (`arrival.iops`).
    #[error("{key}: must be a positive number, found {found}")]
    NotPositive {
        /// The key.
        key: &'static str,
        /// The value found.
        found: f64,
    },
    /// A number outside its allowed range (`read_ratio`, `duplicate_ratio`,
    /// `address.theta`, `address.hot_fraction`, `address.hot_access`).
    #[error("{key}: must be within {range}, found {found}")]
    OutOfRange {
        /// The key.
        key: &'static str,
        /// The allowed range, e.g. `[0, 1]`.
        range: &'static str,
        /// The value found.
        found: f64,
    },
    /// `footprint_bytes` is smaller than one slot of `alignment_bytes`.
    #[error("footprint_bytes: must hold one aligned slot, found {footprint_bytes}")]
    FootprintTooSmall {
        /// `footprint_bytes`.
        footprint_bytes: u64,
        /// `alignment_bytes`.
        alignment_bytes: u64,
    },
    /// A fixed request size of 0 (`size.bytes` of `kind = "fixed"`).
    #[error("size.bytes: must be positive")]
    ZeroFixedSize,
    /// Uniform size bounds that are not `0 < min_bytes <= max_bytes`.
    #[error("size: need 0 < min_bytes <= max_bytes, found {min_bytes}..{max_bytes}")]
    SizeBounds {
        /// `size.min_bytes`.
        min_bytes: u64,
        /// `size.max_bytes`.
        max_bytes: u64,
    },
    /// No multiple of the alignment lies between the uniform size bounds.
    #[error("size: no multiple of alignment_bytes {alignment_bytes} in {min_bytes}..={max_bytes}")]
    NoAlignedSize {
        /// `size.min_bytes`.
        min_bytes: u64,
        /// `size.max_bytes`.
        max_bytes: u64,
        /// `alignment_bytes` (at least 1).
        alignment_bytes: u64,
    },
    /// A size choice without sizes, or with a weight count that differs from the
    /// size count.
    #[error("size.weights: need one weight per size, at least one")]
    WeightCount {
        /// Entries of `size.bytes`.
        sizes: usize,
        /// Entries of `size.weights`.
        weights: usize,
    },
    /// A size choice lists a size of 0.
    #[error("size.bytes: sizes must be positive")]
    ZeroChoiceSize,
    /// Size-choice weights that are negative, not finite, or all zero.
    #[error("size.weights: must be non-negative and not all zero")]
    BadWeights {
        /// `size.weights`.
        weights: Vec<f64>,
    },
    /// The largest request size does not fit in the footprint.
    #[error("size: largest size {size_bytes} exceeds footprint_bytes {footprint_bytes}")]
    SizeExceedsFootprint {
        /// The largest size the configuration can produce.
        size_bytes: u64,
        /// `footprint_bytes`.
        footprint_bytes: u64,
    },
}

impl SyntheticError {
    /// The key path the problem concerns, e.g. `arrival.iops`.
    pub fn key(&self) -> &'static str {
        use SyntheticError as E;
        match self {
            E::Zero { key } | E::NotPositive { key, .. } | E::OutOfRange { key, .. } => key,
            E::FootprintTooSmall { .. } => "footprint_bytes",
            E::ZeroFixedSize | E::ZeroChoiceSize => "size.bytes",
            E::WeightCount { .. } | E::BadWeights { .. } => "size.weights",
            E::SizeBounds { .. } | E::NoAlignedSize { .. } | E::SizeExceedsFootprint { .. } => {
                "size"
            }
        }
    }
}

/// Every problem [`SyntheticConfig::validate`](super::SyntheticConfig::validate) found
/// (at least one), so that a user fixes them in one go. Displays them separated by `; `.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticErrors(pub Vec<SyntheticError>);

impl SyntheticErrors {
    /// The keys at fault, in the order the problems were found.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(SyntheticError::key)
    }
}

impl fmt::Display for SyntheticErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SyntheticErrors {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_start_with_the_key() {
        let all = [
            SyntheticError::Zero { key: "requests" },
            SyntheticError::NotPositive {
                key: "arrival.iops",
                found: -1.0,
            },
            SyntheticError::OutOfRange {
                key: "read_ratio",
                range: "[0, 1]",
                found: 1.5,
            },
            SyntheticError::FootprintTooSmall {
                footprint_bytes: 10,
                alignment_bytes: 4096,
            },
            SyntheticError::ZeroFixedSize,
            SyntheticError::SizeBounds {
                min_bytes: 9,
                max_bytes: 3,
            },
            SyntheticError::NoAlignedSize {
                min_bytes: 5000,
                max_bytes: 6000,
                alignment_bytes: 4096,
            },
            SyntheticError::WeightCount {
                sizes: 2,
                weights: 1,
            },
            SyntheticError::ZeroChoiceSize,
            SyntheticError::BadWeights { weights: vec![0.0] },
            SyntheticError::SizeExceedsFootprint {
                size_bytes: 8192,
                footprint_bytes: 4096,
            },
        ];
        for e in &all {
            let msg = e.to_string();
            assert!(msg.starts_with(&format!("{}: ", e.key())), "{msg}");
        }
    }

    #[test]
    fn the_list_joins_its_problems() {
        let errs = SyntheticErrors(vec![
            SyntheticError::Zero { key: "requests" },
            SyntheticError::OutOfRange {
                key: "read_ratio",
                range: "[0, 1]",
                found: 1.5,
            },
        ]);
        assert_eq!(
            errs.to_string(),
            "requests: must be at least 1; read_ratio: must be within [0, 1], found 1.5"
        );
        assert_eq!(errs.keys().collect::<Vec<_>>(), ["requests", "read_ratio"]);
    }
}
