//! [`RaidLayout`]: where every data, parity and mirror chunk lives.
//!
//! Notation: `M` members, groups of `G`, `m = M / G` groups, `D` data chunks per stripe
//! (`G − 1` for RAID-4/5, `G/2` for RAID-1, `G` for RAID-0), `DR = D·m` data chunks per row.
//! Every call is O(1) closed-form arithmetic except [`RaidLayout::members_of`], which
//! returns a slice of a table built once; nothing allocates after [`RaidLayout::new`].

use crate::config::group_errors;
use crate::config::{Domain, Layout, RaidConfig};
use crate::error::RaidConfigError;
use crate::level::RaidLevel;

/// One chunk (page) of a row: its row, parity group, position inside the group's member
/// list, and member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The row (one stripe per group, one chunk on every member).
    pub row: u64,
    /// The parity group.
    pub group: u32,
    /// Position in [`RaidLayout::members_of`]`(group)`.
    pub pos: u32,
    /// The member: a chip in stripe order (chip domain) or a channel (channel domain).
    pub member: u32,
}

/// The layout arithmetic of one RAID configuration over `M` members. Pure and timing-free.
///
/// * Groups: adjacent (group `g` = members `g·G … g·G + G − 1`) or LCI (group `i` =
///   members `i, i + m, …, i + (G − 1)·m`).
/// * Row `r` holds one stripe per group. RAID-5 puts the stripe's parity at position
///   `G − 1 − (r mod G)` of every group, RAID-4 always at `G − 1`; RAID-1 keeps mirrors of
///   positions `j < G/2` at `j + G/2`.
/// * Data order: walking members `0..M` in row `r`, skipping parity and mirror chunks, the
///   `k`-th data chunk holds host LPN `r·DR + k`.
///
/// RAID-0 and `none` ignore `raid.group_size`: they have one group of all members.
#[derive(Clone, Debug)]
pub struct RaidLayout {
    level: RaidLevel,
    domain: Domain,
    layout: Layout,
    members: u32,
    group_size: u32,
    groups: u32,
    data_per_stripe: u32,
    data_per_row: u64,
    /// `member_table[group·G + pos]` = member.
    member_table: Vec<u32>,
}

impl RaidLayout {
    /// The layout of `cfg` over `members` members (see [`RaidConfig::members`]). Fails on
    /// the first group-size problem of [`RaidConfig::validate`] or on zero members.
    pub fn new(cfg: &RaidConfig, members: u32) -> Result<RaidLayout, RaidConfigError> {
        if members == 0 {
            return Err(RaidConfigError::NoMembers {
                domain: cfg.domain,
                spare_chips: cfg.spare_chips,
            });
        }
        if let Some(e) = group_errors(cfg.level, cfg.group_size, members)
            .into_iter()
            .next()
        {
            return Err(e);
        }
        let group_size = if cfg.level.is_redundant() {
            cfg.group_size
        } else {
            members
        };
        let groups = members / group_size;
        let data_per_stripe = match cfg.level {
            RaidLevel::Raid4 | RaidLevel::Raid5 => group_size - 1,
            RaidLevel::Raid1 => group_size / 2,
            RaidLevel::Raid0 | RaidLevel::None => group_size,
        };
        let mut layout = RaidLayout {
            level: cfg.level,
            domain: cfg.domain,
            layout: cfg.layout,
            members,
            group_size,
            groups,
            data_per_stripe,
            data_per_row: u64::from(data_per_stripe) * u64::from(groups),
            member_table: Vec::with_capacity(members as usize),
        };
        for group in 0..groups {
            for pos in 0..group_size {
                let member = layout.member(group, pos);
                layout.member_table.push(member);
            }
        }
        Ok(layout)
    }

    /// The RAID level.
    pub fn level(&self) -> RaidLevel {
        self.level
    }
    /// What a member is.
    pub fn domain(&self) -> Domain {
        self.domain
    }
    /// Adjacent or LCI groups.
    pub fn layout(&self) -> Layout {
        self.layout
    }
    /// `M`: members.
    pub fn members(&self) -> u32 {
        self.members
    }
    /// `m = M / G`: parity groups (stripes per row).
    pub fn groups(&self) -> u32 {
        self.groups
    }
    /// `G`: members per group.
    pub fn group_size(&self) -> u32 {
        self.group_size
    }
    /// `DR`: host pages per row (`M − m` for RAID-4/5, `M/2` for RAID-1, `M` otherwise).
    pub fn data_per_row(&self) -> u32 {
        // DR ≤ M, which is a u32.
        self.data_per_row as u32
    }
    /// `D`: host pages per stripe (`G − 1`, `G/2` or `G`).
    pub fn data_per_stripe(&self) -> u32 {
        self.data_per_stripe
    }
    /// Redundancy pages per row: `m` parity pages (RAID-4/5), `DR` mirrors (RAID-1), or 0.
    pub fn redundancy_per_row(&self) -> u64 {
        match self.level {
            RaidLevel::Raid4 | RaidLevel::Raid5 => u64::from(self.groups),
            RaidLevel::Raid1 => self.data_per_row,
            RaidLevel::Raid0 | RaidLevel::None => 0,
        }
    }

    /// Rows needed to hold `host_pages` host pages: `⌈host_pages / DR⌉`.
    pub fn rows_for(&self, host_pages: u64) -> u64 {
        host_pages.div_ceil(self.data_per_row)
    }

    /// The member at position `pos` of `group` (closed form of the member table).
    #[inline]
    fn member(&self, group: u32, pos: u32) -> u32 {
        match self.layout {
            Layout::Adjacent => group * self.group_size + pos,
            Layout::Lci => pos * self.groups + group,
        }
    }

    /// The parity position of row `row` (RAID-4/5), `None` for levels without parity.
    #[inline]
    pub fn parity_pos(&self, row: u64) -> Option<u32> {
        let g = self.group_size;
        match self.level {
            // row % G < G, so it fits a u32.
            RaidLevel::Raid5 => Some(g - 1 - (row % u64::from(g)) as u32),
            RaidLevel::Raid4 => Some(g - 1),
            _ => None,
        }
    }

    /// The position of the `idx`-th data chunk of a stripe whose parity is at `parity`.
    #[inline]
    fn data_pos(idx: u32, parity: Option<u32>) -> u32 {
        match parity {
            Some(p) if idx >= p => idx + 1,
            _ => idx,
        }
    }

    /// The data index of position `pos` in row `row`, `None` if it holds parity or a mirror.
    #[inline]
    fn data_idx(&self, row: u64, pos: u32) -> Option<u32> {
        match self.parity_pos(row) {
            Some(p) if pos == p => None,
            Some(p) if pos > p => Some(pos - 1),
            Some(_) => Some(pos),
            None if self.level == RaidLevel::Raid1 && pos >= self.group_size / 2 => None,
            None => Some(pos),
        }
    }

    /// Host LPN `lpn` → its data chunk.
    #[inline]
    pub fn locate(&self, lpn: u64) -> Chunk {
        let row = lpn / self.data_per_row;
        // The remainder is below DR ≤ M, a u32.
        let k = (lpn % self.data_per_row) as u32;
        let (group, idx) = match self.layout {
            Layout::Adjacent => (k / self.data_per_stripe, k % self.data_per_stripe),
            Layout::Lci => (k % self.groups, k / self.groups),
        };
        let pos = Self::data_pos(idx, self.parity_pos(row));
        Chunk {
            row,
            group,
            pos,
            member: self.member(group, pos),
        }
    }

    /// The host LPN stored at (`row`, `group`, `pos`), or `None` if that position holds
    /// parity or a mirror in this row.
    ///
    /// Panics if `group >= groups()` or `pos >= group_size()`.
    #[inline]
    pub fn lpn_at(&self, row: u64, group: u32, pos: u32) -> Option<u64> {
        assert!(group < self.groups, "group {group} of {}", self.groups);
        assert!(
            pos < self.group_size,
            "position {pos} of {}",
            self.group_size
        );
        let idx = self.data_idx(row, pos)?;
        let k = match self.layout {
            Layout::Adjacent => group * self.data_per_stripe + idx,
            Layout::Lci => idx * self.groups + group,
        };
        Some(row * self.data_per_row + u64::from(k))
    }

    /// Fills `out` with the data LPNs of stripe (`row`, `group`) in group-position order
    /// (clears it first).
    pub fn stripe_lpns(&self, row: u64, group: u32, out: &mut Vec<u64>) {
        out.clear();
        out.extend((0..self.group_size).filter_map(|pos| self.lpn_at(row, group, pos)));
    }

    /// The parity chunk of stripe (`row`, `group`) for RAID-4/5, `None` otherwise.
    ///
    /// Panics if `group >= groups()`.
    #[inline]
    pub fn parity(&self, row: u64, group: u32) -> Option<Chunk> {
        assert!(group < self.groups, "group {group} of {}", self.groups);
        let pos = self.parity_pos(row)?;
        Some(Chunk {
            row,
            group,
            pos,
            member: self.member(group, pos),
        })
    }

    /// The redundancy index of the parity page of stripe (`row`, `group`): `row·m + group`.
    /// Parity pages are numbered densely by it (meaningful for RAID-4/5).
    #[inline]
    pub fn parity_index(&self, row: u64, group: u32) -> u64 {
        debug_assert!(group < self.groups);
        row * u64::from(self.groups) + u64::from(group)
    }

    /// The RAID-1 mirror chunk of host LPN `lpn` (its redundancy index is `lpn` itself);
    /// `None` for other levels.
    #[inline]
    pub fn mirror(&self, lpn: u64) -> Option<Chunk> {
        if self.level != RaidLevel::Raid1 {
            return None;
        }
        let data = self.locate(lpn);
        let pos = data.pos + self.group_size / 2;
        Some(Chunk {
            pos,
            member: self.member(data.group, pos),
            ..data
        })
    }

    /// The group `member` belongs to. Panics if `member >= members()`.
    #[inline]
    pub fn group_of(&self, member: u32) -> u32 {
        assert!(member < self.members, "member {member} of {}", self.members);
        match self.layout {
            Layout::Adjacent => member / self.group_size,
            Layout::Lci => member % self.groups,
        }
    }

    /// The position of `member` in its group's member list. Panics if
    /// `member >= members()`.
    #[inline]
    pub fn pos_in_group(&self, member: u32) -> u32 {
        assert!(member < self.members, "member {member} of {}", self.members);
        match self.layout {
            Layout::Adjacent => member % self.group_size,
            Layout::Lci => member / self.groups,
        }
    }

    /// The members of `group`, in position order. Panics if `group >= groups()`.
    #[inline]
    pub fn members_of(&self, group: u32) -> &[u32] {
        assert!(group < self.groups, "group {group} of {}", self.groups);
        let g = self.group_size as usize;
        let start = group as usize * g;
        &self.member_table[start..start + g]
    }

    /// Channel domain with static chip choice: the way (chip on the channel) that holds
    /// row `row`'s chunks, `row mod ways`. Every chunk of a row sits on the same way of its
    /// channel. Panics if `ways == 0`.
    #[inline]
    pub fn static_way(row: u64, ways: u32) -> u32 {
        assert!(ways > 0, "a channel has at least one way");
        // row % ways < ways, a u32.
        (row % u64::from(ways)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::layout;

    fn members_of_row_parity(l: &RaidLayout, row: u64) -> Vec<u32> {
        (0..l.groups())
            .map(|g| l.parity(row, g).unwrap().member)
            .collect()
    }

    #[test]
    fn brr_fig8_lci_9_chips_3_groups() {
        let l = layout(RaidLevel::Raid5, Layout::Lci, 9, 3);
        assert_eq!(l.groups(), 3);
        assert_eq!(l.members_of(0), [0, 3, 6]);
        assert_eq!(l.members_of(1), [1, 4, 7]);
        assert_eq!(l.members_of(2), [2, 5, 8]);
        assert_eq!(members_of_row_parity(&l, 0), [6, 7, 8]);
        let chips: Vec<u32> = (0..6).map(|x| l.locate(x).member).collect();
        assert_eq!(chips, [0, 1, 2, 3, 4, 5]);
        assert_eq!(l.locate(6).row, 1);
        assert_eq!(l.data_per_row(), 6);
        assert_eq!(l.data_per_stripe(), 2);
        // Row 1: parity moves to position 1 (C3, C4, C5); LPNs 6..12 fill C0-C2, C6-C8.
        assert_eq!(members_of_row_parity(&l, 1), [3, 4, 5]);
        let chips: Vec<u32> = (6..12).map(|x| l.locate(x).member).collect();
        assert_eq!(chips, [0, 1, 2, 6, 7, 8]);
        let mut out = Vec::new();
        l.stripe_lpns(0, 0, &mut out);
        assert_eq!(out, [0, 3]);
    }

    #[test]
    fn brr_fig2_adjacent_9_chips_3_groups() {
        let l = layout(RaidLevel::Raid5, Layout::Adjacent, 9, 3);
        assert_eq!(l.members_of(0), [0, 1, 2]);
        assert_eq!(l.members_of(2), [6, 7, 8]);
        assert_eq!(members_of_row_parity(&l, 0), [2, 5, 8]);
        assert_eq!(l.locate(0).member, 0);
        assert_eq!(l.locate(1).member, 1);
        assert_eq!(l.locate(2).member, 3);
        assert_eq!(l.locate(2).group, 1);
        assert_eq!(members_of_row_parity(&l, 1), [1, 4, 7]);
        assert_eq!(l.parity_index(1, 2), 5);
        assert_eq!(l.redundancy_per_row(), 3);
        assert_eq!(l.rows_for(6), 1);
        assert_eq!(l.rows_for(7), 2);
        assert_eq!(l.rows_for(0), 0);
    }

    #[test]
    fn raid5_parity_visits_every_member_once_per_g_rows() {
        for kind in [Layout::Adjacent, Layout::Lci] {
            let l = layout(RaidLevel::Raid5, kind, 12, 4);
            for start in [0u64, 5, 1000] {
                for g in 0..l.groups() {
                    let mut seen: Vec<u32> = (start..start + 4)
                        .map(|r| l.parity(r, g).unwrap().member)
                        .collect();
                    seen.sort_unstable();
                    let mut want = l.members_of(g).to_vec();
                    want.sort_unstable();
                    assert_eq!(seen, want, "{kind:?} rows {start}..+4 group {g}");
                }
            }
        }
    }

    #[test]
    fn raid4_parity_is_fixed() {
        let l = layout(RaidLevel::Raid4, Layout::Adjacent, 8, 4);
        for row in 0..10 {
            assert_eq!(l.parity(row, 0).unwrap().member, 3);
            assert_eq!(l.parity(row, 1).unwrap().member, 7);
        }
        assert_eq!(l.locate(3).member, 4);
        assert_eq!(l.mirror(3), None);
        // CR4: one group of all channels, parity on the last one.
        let cr4 = layout(RaidLevel::Raid4, Layout::Adjacent, 4, 4);
        assert!((0..9).all(|r| cr4.parity(r, 0).unwrap().member == 3));
    }

    #[test]
    fn raid1_mirrors_pair_j_with_j_plus_half() {
        let l = layout(RaidLevel::Raid1, Layout::Adjacent, 8, 4);
        assert_eq!(l.data_per_row(), 4);
        assert_eq!(l.parity(0, 0), None);
        let data: Vec<u32> = (0..4).map(|x| l.locate(x).member).collect();
        let mirrors: Vec<u32> = (0..4).map(|x| l.mirror(x).unwrap().member).collect();
        assert_eq!(data, [0, 1, 4, 5]);
        assert_eq!(mirrors, [2, 3, 6, 7]);
        assert_eq!(l.lpn_at(0, 0, 2), None);
        assert_eq!(l.redundancy_per_row(), 4);
        // CR1: one group of 2N channels, channels N.. mirror channels 0..N.
        let cr1 = layout(RaidLevel::Raid1, Layout::Lci, 8, 8);
        assert_eq!(cr1.mirror(9).unwrap().member, 5);
        assert_eq!(cr1.mirror(9).unwrap().row, 2);
    }

    #[test]
    fn raid0_and_none_use_one_group_of_all_members() {
        for level in [RaidLevel::Raid0, RaidLevel::None] {
            let l = layout(level, Layout::Lci, 6, 4);
            assert_eq!((l.groups(), l.group_size(), l.data_per_row()), (1, 6, 6));
            assert_eq!(l.locate(13).member, 1);
            assert_eq!(l.parity(0, 0), None);
            assert_eq!(l.mirror(0), None);
            assert_eq!(l.redundancy_per_row(), 0);
        }
    }

    #[test]
    fn cr5_sda_channel_formula() {
        // CR5M Fig. 3: parity_channel = (N − 1) − (j mod N); data channel i mod (N − 1),
        // bumped past the parity channel.
        let n = 5u32;
        let l = layout(RaidLevel::Raid5, Layout::Adjacent, n, n);
        for lpn in 0..200u64 {
            let j = lpn / u64::from(n - 1);
            let parity = (n - 1) - (j % u64::from(n)) as u32;
            let mut ch = (lpn % u64::from(n - 1)) as u32;
            if ch >= parity {
                ch += 1;
            }
            assert_eq!(l.locate(lpn).member, ch, "lpn {lpn}");
            assert_eq!(l.locate(lpn).row, j);
            assert_eq!(l.parity(j, 0).unwrap().member, parity);
        }
    }

    #[test]
    fn construction_errors() {
        let cfg = RaidConfig {
            level: RaidLevel::Raid5,
            group_size: 6,
            ..RaidConfig::default()
        };
        let e = RaidLayout::new(&cfg, 64).unwrap_err();
        assert_eq!(e.key(), "raid.group_size");
        assert_eq!(RaidLayout::new(&cfg, 0).unwrap_err().key(), "raid.domain");
        assert_eq!(RaidLayout::static_way(9, 4), 1);
    }
}
