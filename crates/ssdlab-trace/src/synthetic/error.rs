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
    /// `address.theta`, `address.hot_fraction`, `address.hot_access`, and the same
    /// under `read_address` / `write_address`).
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
    /// A fixed request size of 0 (`size.bytes` of `kind = "fixed"`, or the same in
    /// `read_size` / `write_size`).
    #[error("{key}: must be positive")]
    ZeroFixedSize {
        /// The key, e.g. `size.bytes`.
        key: &'static str,
    },
    /// Uniform size bounds that are not `0 < min_bytes <= max_bytes`.
    #[error("{key}: need 0 < min_bytes <= max_bytes, found {min_bytes}..{max_bytes}")]
    SizeBounds {
        /// The size table, e.g. `size` or `write_size`.
        key: &'static str,
        /// Its `min_bytes`.
        min_bytes: u64,
        /// Its `max_bytes`.
        max_bytes: u64,
    },
    /// No multiple of the alignment lies between the uniform size bounds.
    #[error(
        "{key}: no multiple of alignment_bytes {alignment_bytes} in {min_bytes}..={max_bytes}"
    )]
    NoAlignedSize {
        /// The size table, e.g. `size` or `read_size`.
        key: &'static str,
        /// Its `min_bytes`.
        min_bytes: u64,
        /// Its `max_bytes`.
        max_bytes: u64,
        /// `alignment_bytes` (at least 1).
        alignment_bytes: u64,
    },
    /// A size choice without sizes, or with a weight count that differs from the
    /// size count.
    #[error("{key}: need one weight per size, at least one")]
    WeightCount {
        /// The key, e.g. `size.weights`.
        key: &'static str,
        /// Entries of `bytes`.
        sizes: usize,
        /// Entries of `weights`.
        weights: usize,
    },
    /// A size choice lists a size of 0.
    #[error("{key}: sizes must be positive")]
    ZeroChoiceSize {
        /// The key, e.g. `size.bytes`.
        key: &'static str,
    },
    /// Size-choice weights that are negative, not finite, or all zero.
    #[error("{key}: must be non-negative and not all zero")]
    BadWeights {
        /// The key, e.g. `size.weights`.
        key: &'static str,
        /// The weights.
        weights: Vec<f64>,
    },
    /// The largest request size of a size table does not fit in the footprint.
    #[error("{key}: largest size {size_bytes} exceeds footprint_bytes {footprint_bytes}")]
    SizeExceedsFootprint {
        /// The size table, e.g. `size` or `write_size`.
        key: &'static str,
        /// The largest size the table can produce.
        size_bytes: u64,
        /// `footprint_bytes`.
        footprint_bytes: u64,
    },
    /// A placement rule that names no stream or whose values are out of order
    /// (`placement.bounds`).
    #[error("{key}: {message}")]
    Rule {
        /// The key, e.g. `placement.bounds`.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl SyntheticError {
    /// The key path the problem concerns, e.g. `arrival.iops`.
    pub fn key(&self) -> &'static str {
        use SyntheticError as E;
        match self {
            E::FootprintTooSmall { .. } => "footprint_bytes",
            E::Zero { key }
            | E::NotPositive { key, .. }
            | E::OutOfRange { key, .. }
            | E::ZeroFixedSize { key }
            | E::SizeBounds { key, .. }
            | E::NoAlignedSize { key, .. }
            | E::WeightCount { key, .. }
            | E::ZeroChoiceSize { key }
            | E::BadWeights { key, .. }
            | E::SizeExceedsFootprint { key, .. }
            | E::Rule { key, .. } => key,
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
            SyntheticError::ZeroFixedSize { key: "size.bytes" },
            SyntheticError::SizeBounds {
                key: "write_size",
                min_bytes: 9,
                max_bytes: 3,
            },
            SyntheticError::NoAlignedSize {
                key: "read_size",
                min_bytes: 5000,
                max_bytes: 6000,
                alignment_bytes: 4096,
            },
            SyntheticError::WeightCount {
                key: "size.weights",
                sizes: 2,
                weights: 1,
            },
            SyntheticError::ZeroChoiceSize {
                key: "write_size.bytes",
            },
            SyntheticError::BadWeights {
                key: "read_size.weights",
                weights: vec![0.0],
            },
            SyntheticError::SizeExceedsFootprint {
                key: "size",
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
