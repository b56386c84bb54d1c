//! [`FtlConfigError`]: a value of the `[ftl]` section the FTL cannot work with.

use ssdlab_nand::GeometryError;

/// A configuration value the FTL cannot work with. Every variant names its key path.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FtlConfigError {
    /// A number outside its allowed range.
    #[error("{key} must be in {range}, found {value}")]
    OutOfRange {
        /// The offending key path, e.g. `ftl.over_provisioning`.
        key: &'static str,
        /// The value found.
        value: f64,
        /// The allowed range, in words.
        range: &'static str,
    },
    /// `ftl.gc.reserve_blocks` is zero: GC would have nowhere to move pages.
    #[error("ftl.gc.reserve_blocks must be at least 1, found 0")]
    NoReserve,
    /// Background GC would stop before foreground GC starts.
    #[error(
        "ftl.gc.background_free_ratio ({background}) must be >= ftl.gc.threshold_free_ratio ({foreground})"
    )]
    BackgroundBelowForeground {
        /// `ftl.gc.background_free_ratio`.
        background: f64,
        /// `ftl.gc.threshold_free_ratio`.
        foreground: f64,
    },
    /// `ftl.static_order` is not a permutation of `c`, `w`, `d`, `p`.
    #[error(
        "ftl.static_order: {value:?} is not a permutation of the lowercase letters c, w, d, p (e.g. \"cwdp\")"
    )]
    StaticOrder {
        /// The string found.
        value: String,
    },
    /// A plane has too few blocks for the reserve plus one host and one GC frontier block.
    #[error(
        "ftl.gc.reserve_blocks = {reserve_blocks} plus 2 open blocks needs more blocks than geometry.blocks_per_plane = {blocks_per_plane}"
    )]
    TooFewBlocks {
        /// `ftl.gc.reserve_blocks`.
        reserve_blocks: u32,
        /// `geometry.blocks_per_plane`.
        blocks_per_plane: u32,
    },
    /// More logical pages than the device can hold beside its reserve and open blocks.
    #[error(
        "ftl.over_provisioning: {map_entries} mapped pages exceed the {max} the device can hold beside its reserve and GC frontier blocks (raise ftl.over_provisioning)"
    )]
    MapTooLarge {
        /// Map entries asked for.
        map_entries: u64,
        /// The most the geometry allows.
        max: u64,
    },
    /// Another value the FTL cannot work with (the cached map's keys).
    #[error("{key}: {message}")]
    Invalid {
        /// The offending key path.
        key: &'static str,
        /// What is wrong, in words.
        message: String,
    },
    /// The geometry itself is invalid.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
}

impl FtlConfigError {
    /// The configuration key path the error is about.
    pub fn key(&self) -> &'static str {
        match self {
            FtlConfigError::OutOfRange { key, .. } | FtlConfigError::Invalid { key, .. } => key,
            FtlConfigError::NoReserve | FtlConfigError::TooFewBlocks { .. } => {
                "ftl.gc.reserve_blocks"
            }
            FtlConfigError::BackgroundBelowForeground { .. } => "ftl.gc.background_free_ratio",
            FtlConfigError::StaticOrder { .. } => "ftl.static_order",
            FtlConfigError::MapTooLarge { .. } => "ftl.over_provisioning",
            FtlConfigError::Geometry(_) => "geometry",
        }
    }
}
