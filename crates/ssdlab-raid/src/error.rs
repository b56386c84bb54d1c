//! [`RaidConfigError`]: a `[raid]` value the layer cannot work with.

use crate::config::Domain;
use crate::fail::FailSpecError;
use crate::level::RaidLevel;

/// A `[raid]` configuration value the RAID layer cannot work with. Every variant names its
/// key ([`RaidConfigError::key`]) in its message and carries the offending values.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RaidConfigError {
    /// `raid.group_size` is zero.
    #[error("raid.group_size must be at least 1, found 0")]
    GroupSizeZero,
    /// The groups do not tile the members.
    #[error("raid.group_size = {group_size} does not divide the {members} members")]
    GroupSizeNotDivisor {
        /// `raid.group_size`.
        group_size: u32,
        /// Members of the array (chips less spares, or channels).
        members: u32,
    },
    /// RAID-1 pairs position `j` with `j + G/2`, so a group has an even size.
    #[error(
        "raid.group_size = {group_size} must be even for RAID-1 (position j is mirrored at j + group_size/2)"
    )]
    Raid1OddGroupSize {
        /// `raid.group_size`.
        group_size: u32,
    },
    /// A parity group needs at least one data member beside its parity member.
    #[error(
        "raid.group_size = {group_size} is too small for {level}: a parity group needs at least 2 members (data + parity)"
    )]
    ParityGroupTooSmall {
        /// `raid.level`.
        level: RaidLevel,
        /// `raid.group_size`.
        group_size: u32,
    },
    /// Hidden spare chips only exist in the chip domain.
    #[error(
        "raid.spare_chips = {spare_chips} needs raid.domain = \"chip\" (channel members have no spare chips)"
    )]
    SparesNeedChipDomain {
        /// `raid.spare_chips`.
        spare_chips: u32,
    },
    /// No member is left to hold data.
    #[error(
        "raid.domain = \"{domain}\" with raid.spare_chips = {spare_chips} leaves no RAID members"
    )]
    NoMembers {
        /// `raid.domain`.
        domain: Domain,
        /// `raid.spare_chips`.
        spare_chips: u32,
    },
    /// `raid.chip_in_channel` only means something when members are channels.
    #[error("raid.chip_in_channel = \"sda\" needs raid.domain = \"channel\"")]
    ChipChoiceNeedsChannelDomain,
    /// The rebuild bandwidth is not a positive finite number.
    #[error("raid.rebuild_rate_mib_s must be a finite number > 0, found {value}")]
    RebuildRate {
        /// `raid.rebuild_rate_mib_s`.
        value: f64,
    },
    /// A failure spec does not parse.
    #[error("raid.fail[{index}] = {:?}: {}", .error.spec, .error.kind)]
    BadFail {
        /// Position in `raid.fail`.
        index: usize,
        /// The parse error (spec and reason).
        error: FailSpecError,
    },
    /// A failure spec names a chip or channel the device does not have.
    #[error(
        "raid.fail[{index}] = {spec:?}: {what} {found} does not exist (the device has {count})"
    )]
    FailOutOfRange {
        /// Position in `raid.fail`.
        index: usize,
        /// The spec as given.
        spec: String,
        /// `chip` or `channel`.
        what: &'static str,
        /// The index named.
        found: u32,
        /// How many the device has.
        count: u32,
    },
    /// CR5M's mirror chips extend channel-level RAID-5 only.
    #[error(
        "raid.mirror_chips = true needs raid.level = 5 and raid.domain = \"channel\" (CR5M), found level {level} in the {domain} domain"
    )]
    MirrorNeedsChannelRaid5 {
        /// `raid.level`.
        level: RaidLevel,
        /// `raid.domain`.
        domain: Domain,
    },
    /// The mirror chip is the last way of a channel: a channel needs another way for data.
    #[error(
        "raid.mirror_chips = true needs at least 2 chips per channel (the last one is the mirror chip), found {chips_per_channel}"
    )]
    MirrorNeedsTwoWays {
        /// `geometry.chips_per_channel`.
        chips_per_channel: u32,
    },
    /// A copy placement without copies.
    #[error("raid.mirror_channel = \"next\" places CR5M's mirror copies: it needs raid.mirror_chips = true")]
    MirrorChannelNeedsMirrorChips,
    /// A CR5M reclaim threshold outside its range.
    #[error("{key} must be a fraction at least {floor} and below 1, found {value}")]
    MirrorRatio {
        /// The key.
        key: &'static str,
        /// The value found.
        value: f64,
        /// The smallest value allowed.
        floor: f64,
    },
}

impl RaidConfigError {
    /// The configuration key the error is about, e.g. `raid.group_size`.
    pub fn key(&self) -> &'static str {
        match self {
            RaidConfigError::GroupSizeZero
            | RaidConfigError::GroupSizeNotDivisor { .. }
            | RaidConfigError::Raid1OddGroupSize { .. }
            | RaidConfigError::ParityGroupTooSmall { .. } => "raid.group_size",
            RaidConfigError::SparesNeedChipDomain { .. } => "raid.spare_chips",
            RaidConfigError::NoMembers { spare_chips, .. } => {
                if *spare_chips > 0 {
                    "raid.spare_chips"
                } else {
                    "raid.domain"
                }
            }
            RaidConfigError::ChipChoiceNeedsChannelDomain => "raid.chip_in_channel",
            RaidConfigError::RebuildRate { .. } => "raid.rebuild_rate_mib_s",
            RaidConfigError::BadFail { .. } | RaidConfigError::FailOutOfRange { .. } => "raid.fail",
            RaidConfigError::MirrorNeedsChannelRaid5 { .. }
            | RaidConfigError::MirrorNeedsTwoWays { .. } => "raid.mirror_chips",
            RaidConfigError::MirrorChannelNeedsMirrorChips => "raid.mirror_channel",
            RaidConfigError::MirrorRatio { key, .. } => key,
        }
    }
}
