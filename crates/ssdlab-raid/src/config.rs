//! The `[raid]` section of a configuration, its defaults and its validation.

use crate::error::RaidConfigError;
use crate::fail::{FailSpec, FailTarget};
use crate::level::RaidLevel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ssdlab_nand::Geometry;
use std::fmt;

/// What one RAID member is: the unit that fails and that a stripe has one chunk on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Domain {
    /// A member is a chip (BRR, DGC): members are the chips in stripe order, less spares.
    #[default]
    Chip,
    /// A member is a channel (CR1, CR4, CR5, CR5M); the chip inside it comes from
    /// `raid.chip_in_channel`.
    Channel,
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Domain::Chip => "chip",
            Domain::Channel => "channel",
        })
    }
}

/// Which members form a parity group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Group `g` is members `g·G … g·G + G − 1`: neighbours in stripe order share a group.
    #[default]
    Adjacent,
    /// Longest code interval (BRR §III-C): group `i` is members `i, i + m, …, i + (G−1)·m`
    /// with `m` groups, so neighbours in stripe order fall in different groups.
    Lci,
}

/// Which parity update a partial-stripe write takes when read-modify-write and
/// read-reconstruct-write need equally many pre-reads (the cheaper one always wins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UpdateRule {
    /// Read old data and old parity (DGC's choice).
    #[default]
    Rmw,
    /// Read the stripe's untouched data (CR5M's choice: it does not depend on the parity).
    Rcw,
}

/// How the chip inside a channel member is chosen (channel domain only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ChipChoice {
    /// Way `row mod ways` of the channel (the static layout's way).
    #[default]
    Static,
    /// CR5's semi-dynamic allocation (CR5M Fig. 3): the channel comes from the layout,
    /// and each page takes the channel's next available chip (round-robin over idle
    /// chips, else the least outstanding work), then the chip's next available die and
    /// plane. `"dynamic"` is accepted as its former name.
    #[serde(alias = "dynamic")]
    Sda,
}

/// Where SDA's search for the next available chip, die and plane starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SdaStart {
    /// At the page's static way (row modulo the data ways) and its static die and
    /// plane: on an idle device SDA lays pages out as the static layout does, and moves
    /// a page only off a busy chip.
    #[default]
    HomeWay,
    /// After the chip (die, plane) chosen last: round-robin tokens, as SSDsim's.
    AfterLast,
}

/// What a write to a RAID-4/5 stripe finds in the stripe's pages that were never written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UnwrittenStripes {
    /// Zeros: a write to a stripe never written needs no pre-read (its parity is the
    /// XOR of the pages written).
    #[default]
    Zero,
    /// The stripe's unwritten pages and its parity are written in zero time first, as
    /// if the device had held them before the trace began (as a read of a never-written
    /// page does, `host.unwritten_reads`): every partial-stripe write is an update.
    Materialize,
}

/// When CR5M's mirror chip counts as idle, so that a partial-stripe update may take a
/// mirror write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorIdle {
    /// The chip has at most `raid.mirror_idle_max_outstanding` transactions outstanding
    /// (queued, running or held), 0 by default: in SSDsim a chip is busy as a whole.
    #[default]
    Chip,
    /// Some die of the chip is idle and nothing is queued for it.
    Die,
}

/// How CR5M measures a mirror chip's available capacity against
/// `raid.mirror_reclaim_free_ratio`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorAvail {
    /// Pages that hold no live mirror copy: free pages and invalid pages GC can recover.
    #[default]
    NotLive,
    /// Erased pages only (free pages host writes may still take).
    Erased,
}

/// Which copy a read of a mirrored page takes under CR5M.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorReadChoice {
    /// The data chip, unless it has outstanding work and the mirror chip has none
    /// (§III-B 2: "sent to chip 4 if chip 1 is busy").
    #[default]
    BusyFallback,
    /// The chip with less outstanding work; ties go to the data chip (the RAID-1 rule).
    ShortestQueue,
}

/// Which channel's mirror chip holds a CR5M page's copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorChannel {
    /// The mirror chip of the page's own channel (the paper's Fig. 2 and §III-B: the copy
    /// shares the page's channel, so a channel failure takes both).
    #[default]
    Own,
    /// The mirror chip of the next channel, `(c + 1) mod N` (not in the paper): a page and
    /// its copy never share a channel, so one channel failure leaves one of them.
    Next,
}

impl MirrorChannel {
    /// True for the paper's placement, the default (the key is then not written).
    pub fn is_own(&self) -> bool {
        *self == MirrorChannel::Own
    }

    /// How many channels a copy sits away from its page: 0 or 1.
    pub fn shift(self) -> u32 {
        match self {
            MirrorChannel::Own => 0,
            MirrorChannel::Next => 1,
        }
    }
}

/// `[raid]`: RAID inside the SSD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RaidConfig {
    /// `0`, `1`, `4`, `5` or `"none"` (no RAID layer, the default).
    pub level: RaidLevel,
    /// What a member is: a chip or a channel.
    pub domain: Domain,
    /// Members per parity group, `G`. RAID-4/5: data + 1 parity, at least 2. RAID-1: even,
    /// position `j` mirrored at `j + G/2`. Ignored for RAID-0 and `none` (one group of all
    /// members).
    #[schemars(extend("x-unit" = "members"))]
    pub group_size: u32,
    /// Which members form a group.
    pub layout: Layout,
    /// Tie rule between RMW and RCW.
    pub update: UpdateRule,
    /// A new-write group buffer encodes when all data chunks of its stripe are present or
    /// after this long.
    pub encode_timeout_ns: u64,
    /// Chip inside a channel member (channel domain only).
    pub chip_in_channel: ChipChoice,
    /// Hidden spare chips (chip domain only): the last `spare_chips` chips in stripe order
    /// are not members; rebuilds target them.
    pub spare_chips: u32,
    /// Background rebuild bandwidth cap, MiB/s, `> 0`.
    #[schemars(extend("exclusiveMinimum" = 0.0))]
    pub rebuild_rate_mib_s: f64,
    /// Failures to inject, each `chip:K@T` or `channel:K@T` with `T` a time (`150ms`) or a
    /// fraction of the trace's requests (`0.25`), e.g. `["chip:3@150ms"]`.
    pub fail: Vec<String>,
    /// Writes to a stripe none of whose pages were written yet open a group buffer:
    /// the parity is encoded once, when the stripe's data is all present or the timeout
    /// expires (BRR §III-B). Off: every write updates parity at once (CR5).
    pub buffer_new_writes: bool,
    /// Serve every host read by XOR of its parity group whenever the stripe allows it
    /// (a validation knob that exercises reconstruction on every read; schedulers such
    /// as BRR choose per read instead).
    pub force_reconstruct_reads: bool,
    /// What a write finds in a stripe's never-written pages (RAID-4/5).
    pub unwritten_stripes: UnwrittenStripes,
    /// `chip_in_channel = "sda"`: where the search for the next available chip starts.
    pub sda_start: SdaStart,
    /// CR5M (channel-level RAID-5 only; with `level = "none"`, like every RAID key, it
    /// does nothing): the last way of every channel is a hidden mirror chip, outside the
    /// host capacity, that takes mirror writes of small updates.
    pub mirror_chips: bool,
    /// CR5M: partial-stripe updates may take a mirror write (false: the mirror chips
    /// only exist, for a like-for-like capacity comparison).
    pub mirror_write: bool,
    /// CR5M: when a mirror chip counts as idle.
    pub mirror_idle: MirrorIdle,
    /// CR5M with `mirror_idle = "chip"`: outstanding transactions a mirror chip may have
    /// and still count as idle.
    #[schemars(extend("x-unit" = "transactions"))]
    pub mirror_idle_max_outstanding: u32,
    /// CR5M: a mirror chip whose available capacity falls below this fraction of its
    /// pages takes no mirror write and starts expired-data reclaim (§III-B 1d: 2 %).
    #[schemars(range(min = 0.0), extend("exclusiveMaximum" = 1.0, "x-unit" = "fraction of the mirror chip's pages"))]
    pub mirror_reclaim_free_ratio: f64,
    /// CR5M: capacity-triggered reclaim releases the oldest entries of the mirror chip
    /// until its available capacity is back to this fraction (not in the paper).
    #[schemars(extend("exclusiveMaximum" = 1.0, "x-unit" = "fraction of the mirror chip's pages", "x-constraint" = ">= mirror_reclaim_free_ratio"))]
    pub mirror_reclaim_stop_ratio: f64,
    /// CR5M: what "available capacity" of a mirror chip counts.
    pub mirror_avail: MirrorAvail,
    /// CR5M: a read of a mirrored page may take the mirror copy (§III-B 2).
    pub mirror_reads: bool,
    /// CR5M: which copy such a read takes.
    pub mirror_read_choice: MirrorReadChoice,
    /// CR5M: a data plane that cannot collect garbage (no block with an invalid page)
    /// while it holds expired pages reclaims the stripes that own them (not in the
    /// paper: without it, expired pages could fill a plane's over-provisioning).
    pub mirror_pressure_reclaim: bool,
    /// CR5M: which channel's mirror chip holds a page's copy (`"own"`: the paper's).
    #[serde(skip_serializing_if = "MirrorChannel::is_own")]
    #[schemars(extend("default" = "own"))]
    pub mirror_channel: MirrorChannel,
}

impl Default for RaidConfig {
    fn default() -> Self {
        RaidConfig {
            level: RaidLevel::None,
            domain: Domain::Chip,
            group_size: 8,
            layout: Layout::Adjacent,
            update: UpdateRule::Rmw,
            encode_timeout_ns: 1_000_000,
            chip_in_channel: ChipChoice::Static,
            spare_chips: 0,
            rebuild_rate_mib_s: 64.0,
            fail: Vec::new(),
            buffer_new_writes: true,
            force_reconstruct_reads: false,
            unwritten_stripes: UnwrittenStripes::Zero,
            sda_start: SdaStart::HomeWay,
            mirror_chips: false,
            mirror_write: true,
            mirror_idle: MirrorIdle::Chip,
            mirror_idle_max_outstanding: 0,
            mirror_reclaim_free_ratio: 0.02,
            mirror_reclaim_stop_ratio: 0.03,
            mirror_avail: MirrorAvail::NotLive,
            mirror_reads: true,
            mirror_read_choice: MirrorReadChoice::BusyFallback,
            mirror_pressure_reclaim: true,
            mirror_channel: MirrorChannel::Own,
        }
    }
}

impl RaidConfig {
    /// The number of RAID members on `geom`: chips less spares (chip domain, saturating at
    /// 0) or channels (channel domain).
    pub fn members(&self, geom: &Geometry) -> u32 {
        match self.domain {
            Domain::Chip => geom.chips().saturating_sub(self.spare_chips),
            Domain::Channel => geom.channels,
        }
    }

    /// Checks every value against an array of `members` members (see
    /// [`RaidConfig::members`]); returns all problems, each naming its key. Failure targets
    /// are range-checked where `members` tells the count (chips in the chip domain,
    /// channels in the channel domain); [`RaidConfig::validate_for`] checks them all.
    pub fn validate(&self, members: u32) -> Vec<RaidConfigError> {
        let (chips, channels) = match self.domain {
            Domain::Chip => (Some(members.saturating_add(self.spare_chips)), None),
            Domain::Channel => (None, Some(members)),
        };
        self.check(members, chips, channels)
    }

    /// [`RaidConfig::validate`] with the members of `geom`, range-checking every failure
    /// target against its chips and channels.
    pub fn validate_for(&self, geom: &Geometry) -> Vec<RaidConfigError> {
        let mut errs = self.check(self.members(geom), Some(geom.chips()), Some(geom.channels));
        if self.mirror_chips && self.level != RaidLevel::None && geom.chips_per_channel < 2 {
            errs.push(RaidConfigError::MirrorNeedsTwoWays {
                chips_per_channel: geom.chips_per_channel,
            });
        }
        errs
    }

    /// Ways of each channel that hold data and parity: all of them, less CR5M's mirror
    /// way (the last one) when `mirror_chips` is on.
    pub fn data_ways(&self, geom: &Geometry) -> u32 {
        geom.chips_per_channel - u32::from(self.mirror_chips)
    }

    /// The parsed failure specs, in order; the first bad one is an error.
    pub fn fail_specs(&self) -> Result<Vec<FailSpec>, RaidConfigError> {
        self.fail
            .iter()
            .enumerate()
            .map(|(index, s)| {
                FailSpec::parse(s).map_err(|error| RaidConfigError::BadFail { index, error })
            })
            .collect()
    }

    fn check(
        &self,
        members: u32,
        chips: Option<u32>,
        channels: Option<u32>,
    ) -> Vec<RaidConfigError> {
        let mut errs = Vec::new();
        if members == 0 {
            errs.push(RaidConfigError::NoMembers {
                domain: self.domain,
                spare_chips: self.spare_chips,
            });
        }
        errs.extend(group_errors(self.level, self.group_size, members));
        if self.domain == Domain::Channel && self.spare_chips > 0 {
            errs.push(RaidConfigError::SparesNeedChipDomain {
                spare_chips: self.spare_chips,
            });
        }
        if self.domain == Domain::Chip && self.chip_in_channel == ChipChoice::Sda {
            errs.push(RaidConfigError::ChipChoiceNeedsChannelDomain);
        }
        let raid = self.level != RaidLevel::None;
        if self.mirror_chips
            && raid
            && (self.level != RaidLevel::Raid5 || self.domain != Domain::Channel)
        {
            errs.push(RaidConfigError::MirrorNeedsChannelRaid5 {
                level: self.level,
                domain: self.domain,
            });
        }
        if raid && !self.mirror_chips && !self.mirror_channel.is_own() {
            errs.push(RaidConfigError::MirrorChannelNeedsMirrorChips);
        }
        let (free, stop) = (
            self.mirror_reclaim_free_ratio,
            self.mirror_reclaim_stop_ratio,
        );
        if !(free.is_finite() && (0.0..1.0).contains(&free)) {
            errs.push(RaidConfigError::MirrorRatio {
                key: "raid.mirror_reclaim_free_ratio",
                value: free,
                floor: 0.0,
            });
        }
        if !(stop.is_finite() && stop >= free && stop < 1.0) {
            errs.push(RaidConfigError::MirrorRatio {
                key: "raid.mirror_reclaim_stop_ratio",
                value: stop,
                floor: free,
            });
        }
        let rate = self.rebuild_rate_mib_s;
        if !(rate.is_finite() && rate > 0.0) {
            errs.push(RaidConfigError::RebuildRate { value: rate });
        }
        for (index, s) in self.fail.iter().enumerate() {
            match FailSpec::parse(s) {
                Err(error) => errs.push(RaidConfigError::BadFail { index, error }),
                Ok(spec) => {
                    let (what, found, count) = match spec.target {
                        FailTarget::Chip(c) => ("chip", c.0, chips),
                        FailTarget::Channel(c) => ("channel", c.0, channels),
                        FailTarget::Power => continue,
                    };
                    if let Some(count) = count.filter(|&n| found >= n) {
                        errs.push(RaidConfigError::FailOutOfRange {
                            index,
                            spec: s.clone(),
                            what,
                            found,
                            count,
                        });
                    }
                }
            }
        }
        errs
    }
}

/// The group-size problems of `level` with `group_size` over `members` members (none for
/// RAID-0 and `none`, which ignore the group size).
pub(crate) fn group_errors(
    level: RaidLevel,
    group_size: u32,
    members: u32,
) -> Vec<RaidConfigError> {
    let mut errs = Vec::new();
    if !level.is_redundant() {
        return errs;
    }
    if group_size == 0 {
        errs.push(RaidConfigError::GroupSizeZero);
        return errs;
    }
    if members > 0 && !members.is_multiple_of(group_size) {
        errs.push(RaidConfigError::GroupSizeNotDivisor {
            group_size,
            members,
        });
    }
    if level == RaidLevel::Raid1 && !group_size.is_multiple_of(2) {
        errs.push(RaidConfigError::Raid1OddGroupSize { group_size });
    }
    if level.has_parity() && group_size < 2 {
        errs.push(RaidConfigError::ParityGroupTooSmall { level, group_size });
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_toml(text: &str) -> Result<RaidConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_valid_and_documented() {
        let c = RaidConfig::default();
        assert!(c.validate(64).is_empty(), "{:?}", c.validate(64));
        assert_eq!(c.level, RaidLevel::None);
        assert_eq!(c.group_size, 8);
        assert_eq!(c.encode_timeout_ns, 1_000_000);
        assert!(c.buffer_new_writes);
        assert!(!c.force_reconstruct_reads);
        assert_eq!(c.rebuild_rate_mib_s, 64.0);
        assert_eq!(from_toml("").unwrap(), c);
    }

    #[test]
    fn copies_on_the_next_channel_need_mirror_chips() {
        let mut c = RaidConfig {
            level: RaidLevel::Raid5,
            domain: Domain::Channel,
            group_size: 4,
            mirror_channel: MirrorChannel::Next,
            ..RaidConfig::default()
        };
        let keys: Vec<_> = c.validate(4).iter().map(RaidConfigError::key).collect();
        assert_eq!(keys, ["raid.mirror_channel"]);
        c.mirror_chips = true;
        assert!(c.validate(4).is_empty());
        assert_eq!(
            from_toml("mirror_channel = \"next\"")
                .unwrap()
                .mirror_channel,
            MirrorChannel::Next
        );
        // The paper's placement is the default and is not written.
        let text = toml::to_string(&RaidConfig::default()).unwrap();
        assert!(!text.contains("mirror_channel"), "{text}");
    }

    #[test]
    fn every_validation_error_names_its_key() {
        let c = RaidConfig {
            level: RaidLevel::Raid1,
            domain: Domain::Channel,
            group_size: 3,
            spare_chips: 1,
            rebuild_rate_mib_s: 0.0,
            fail: vec!["chip:x@1s".into(), "channel:8@1ms".into()],
            ..RaidConfig::default()
        };
        let errs = c.validate(8);
        let keys: Vec<_> = errs.iter().map(RaidConfigError::key).collect();
        assert_eq!(
            keys,
            [
                "raid.group_size",
                "raid.group_size",
                "raid.spare_chips",
                "raid.rebuild_rate_mib_s",
                "raid.fail",
                "raid.fail",
            ]
        );
        for e in &errs {
            assert!(e.to_string().contains(e.key()), "{e}");
        }
        let texts: Vec<_> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts[0],
            "raid.group_size = 3 does not divide the 8 members"
        );
        assert_eq!(
            texts[4],
            "raid.fail[0] = \"chip:x@1s\": chip index must be a number"
        );
        assert_eq!(
            texts[5],
            "raid.fail[1] = \"channel:8@1ms\": channel 8 does not exist (the device has 8)"
        );
    }

    #[test]
    fn group_size_rules_per_level() {
        let with = |level, group_size| RaidConfig {
            level,
            group_size,
            ..RaidConfig::default()
        };
        let keys =
            |c: RaidConfig, m| -> Vec<&str> { c.validate(m).iter().map(|e| e.key()).collect() };
        assert_eq!(keys(with(RaidLevel::Raid5, 0), 64), ["raid.group_size"]);
        assert_eq!(
            with(RaidLevel::Raid5, 6).validate(64)[0].to_string(),
            "raid.group_size = 6 does not divide the 64 members"
        );
        assert_eq!(keys(with(RaidLevel::Raid5, 1), 8), ["raid.group_size"]);
        assert_eq!(keys(with(RaidLevel::Raid4, 1), 8), ["raid.group_size"]);
        assert!(with(RaidLevel::Raid5, 2).validate(8).is_empty());
        assert!(with(RaidLevel::Raid1, 2).validate(8).is_empty());
        assert_eq!(keys(with(RaidLevel::Raid1, 1), 8), ["raid.group_size"]);
        // RAID-0 and none ignore the group size.
        assert!(with(RaidLevel::Raid0, 0).validate(9).is_empty());
        assert!(with(RaidLevel::None, 7).validate(9).is_empty());
    }

    #[test]
    fn domain_specific_keys() {
        let chip = RaidConfig {
            level: RaidLevel::Raid5,
            spare_chips: 4,
            chip_in_channel: ChipChoice::Sda,
            fail: vec![
                "chip:3@1s".into(),
                "chip:4@1s".into(),
                "channel:9@1s".into(),
            ],
            ..RaidConfig::default()
        };
        // 4 members + 4 spares = 8 chips; validate() does not know the channels.
        let errs = chip.validate(4);
        let keys: Vec<_> = errs.iter().map(RaidConfigError::key).collect();
        assert_eq!(keys, ["raid.group_size", "raid.chip_in_channel"]);
        let geom = Geometry {
            channels: 4,
            chips_per_channel: 2,
            ..Geometry::default()
        };
        assert_eq!(chip.members(&geom), 4);
        let errs = chip.validate_for(&geom);
        let keys: Vec<_> = errs.iter().map(RaidConfigError::key).collect();
        assert_eq!(
            keys,
            ["raid.group_size", "raid.chip_in_channel", "raid.fail"]
        );
        assert!(
            errs[2].to_string().contains("channel 9 does not exist"),
            "{}",
            errs[2]
        );
        let all_spare = RaidConfig {
            spare_chips: 8,
            ..RaidConfig::default()
        };
        let errs = all_spare.validate_for(&geom);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].key(), "raid.spare_chips");
        let channel = RaidConfig {
            level: RaidLevel::Raid5,
            domain: Domain::Channel,
            group_size: 4,
            chip_in_channel: ChipChoice::Sda,
            ..RaidConfig::default()
        };
        assert_eq!(channel.members(&geom), 4);
        assert!(channel.validate_for(&geom).is_empty());
    }

    #[test]
    fn serde_accepts_numbers_and_none() {
        let c = from_toml("level = 5\nlayout = \"lci\"\ngroup_size = 3").unwrap();
        assert_eq!(c.level, RaidLevel::Raid5);
        assert_eq!(c.layout, Layout::Lci);
        assert_eq!(
            from_toml("level = \"none\"").unwrap().level,
            RaidLevel::None
        );
        assert_eq!(from_toml("level = 0").unwrap().level, RaidLevel::Raid0);
        let c = from_toml(
            "domain = \"channel\"\nchip_in_channel = \"dynamic\"\nupdate = \"rcw\"\nfail = [\"chip:1@2s\"]",
        )
        .unwrap();
        assert_eq!(c.domain, Domain::Channel);
        assert_eq!(c.chip_in_channel, ChipChoice::Sda, "the former name");
        let sda = from_toml("chip_in_channel = \"sda\"").unwrap();
        assert_eq!(sda.chip_in_channel, ChipChoice::Sda);
        assert_eq!(c.update, UpdateRule::Rcw);
        assert_eq!(c.fail_specs().unwrap()[0].to_string(), "chip:1@2s");
    }

    #[test]
    fn mirror_chips_need_channel_raid5_two_ways_and_sane_ratios() {
        let geom = Geometry {
            channels: 4,
            chips_per_channel: 2,
            ..Geometry::default()
        };
        let cr5m = RaidConfig {
            level: RaidLevel::Raid5,
            domain: Domain::Channel,
            group_size: 4,
            mirror_chips: true,
            ..RaidConfig::default()
        };
        assert!(cr5m.validate_for(&geom).is_empty());
        assert_eq!(cr5m.data_ways(&geom), 1);
        let keys = |c: &RaidConfig, g: &Geometry| -> Vec<&str> {
            c.validate_for(g).iter().map(RaidConfigError::key).collect()
        };
        for (level, domain) in [
            (RaidLevel::Raid4, Domain::Channel),
            (RaidLevel::Raid1, Domain::Channel),
            (RaidLevel::Raid5, Domain::Chip),
        ] {
            let c = RaidConfig {
                level,
                domain,
                ..cr5m.clone()
            };
            assert_eq!(keys(&c, &geom), ["raid.mirror_chips"], "{level} {domain}");
        }
        let one_way = Geometry {
            chips_per_channel: 1,
            ..geom
        };
        let e = cr5m.validate_for(&one_way);
        assert_eq!(e.len(), 1);
        assert!(
            e[0].to_string().contains("at least 2 chips per channel"),
            "{}",
            e[0]
        );
        let ratios = RaidConfig {
            mirror_reclaim_free_ratio: 1.5,
            mirror_reclaim_stop_ratio: 0.01,
            ..cr5m.clone()
        };
        assert_eq!(
            keys(&ratios, &geom),
            [
                "raid.mirror_reclaim_free_ratio",
                "raid.mirror_reclaim_stop_ratio"
            ]
        );
        let c = from_toml(
            "mirror_chips = true\nmirror_idle = \"die\"\nmirror_avail = \"erased\"\n\
             mirror_read_choice = \"shortest-queue\"\nunwritten_stripes = \"materialize\"",
        )
        .unwrap();
        assert!(c.mirror_chips);
        assert_eq!(c.mirror_idle, MirrorIdle::Die);
        assert_eq!(c.mirror_avail, MirrorAvail::Erased);
        assert_eq!(c.mirror_read_choice, MirrorReadChoice::ShortestQueue);
        assert_eq!(c.unwritten_stripes, UnwrittenStripes::Materialize);
        assert!(from_toml("mirror_idle = \"bus\"").is_err());
    }

    #[test]
    fn serde_rejects_bad_levels_and_unknown_keys() {
        for bad in [
            "level = 3",
            "level = -1",
            "level = \"raid5\"",
            "level = 2.0",
        ] {
            let e = from_toml(bad).unwrap_err();
            assert!(e.contains("raid.level"), "{bad}: {e}");
        }
        assert!(from_toml("level = 3").unwrap_err().contains("found 3"));
        assert!(from_toml("group_sise = 4")
            .unwrap_err()
            .contains("group_sise"));
        assert!(from_toml("layout = \"LCI\"").is_err());
    }

    #[test]
    fn serde_round_trips() {
        let c = RaidConfig {
            level: RaidLevel::Raid4,
            layout: Layout::Lci,
            fail: vec!["channel:1@0.5".into()],
            ..RaidConfig::default()
        };
        let text = toml::to_string(&c).unwrap();
        assert!(text.contains("level = 4"), "{text}");
        assert_eq!(from_toml(&text).unwrap(), c);
        let none = toml::to_string(&RaidConfig::default()).unwrap();
        assert!(none.contains("level = \"none\""), "{none}");
    }
}
