//! Where every logical page lives by layout: the RAID map (docs/ARCHITECTURE.md §13).
//!
//! [`RaidMap`] is the addressing half of RAID inside the SSD — pure arithmetic over the
//! layout plus the one piece of state that failures change (which chip stands behind
//! each member). The RAID engine (stripe jobs, buffers, reconstruction) and the placement
//! policies read it; only failure handling writes it (a failed member remapped to a
//! spare).
//!
//! Addressing: host LPNs come first in the FTL's map; redundancy pages follow at
//! `host_pages + redundancy index` (parity of stripe (row, group): `row × groups +
//! group`; RAID-1 mirror of host LPN x: x).

use ssdlab_nand::{ChannelId, ChipId, Geometry, Lpn, PlaneId};
use ssdlab_raid::{ChipChoice, Chunk, Domain, RaidLayout, RaidLevel};

/// The RAID layout of a run and the chip behind each member.
#[derive(Clone, Debug)]
pub struct RaidMap {
    /// Layout arithmetic (rows, groups, rotating parity, mirrors).
    pub layout: RaidLayout,
    /// RAID level.
    pub level: RaidLevel,
    /// Members are chips or channels.
    pub domain: Domain,
    /// Channel domain: how a chunk's chip inside its channel is chosen.
    pub chip_choice: ChipChoice,
    /// Host-visible pages (the rest of the FTL's map holds redundancy).
    pub host_pages: u64,
    /// The chip behind each member (chip domain); a failed member is remapped to a spare.
    pub member_chip: Vec<u32>,
    /// Channel domain: the ways of a channel that hold data and parity (all of them, less
    /// CR5M's mirror way).
    pub data_ways: u32,
    /// CR5M: way `data_ways` of every channel is its hidden mirror chip.
    pub mirror: bool,
    /// CR5M: how many channels a copy sits away from its page (`raid.mirror_channel`:
    /// 0 for the paper's own channel, 1 for the next one).
    pub mirror_shift: u32,
}

impl RaidMap {
    /// The FTL LPN of redundancy index `i`.
    #[inline]
    pub fn red_lpn(&self, i: u64) -> Lpn {
        Lpn((self.host_pages + i) as u32)
    }

    /// Rows of the layout.
    pub fn rows(&self) -> u64 {
        self.host_pages / u64::from(self.layout.data_per_row())
    }

    /// RAID-1: the FTL LPN and chunk of host LPN `lpn`'s mirror.
    pub fn mirror_of(&self, lpn: Lpn) -> Option<(Lpn, Chunk)> {
        if self.level != RaidLevel::Raid1 {
            return None;
        }
        let x = u64::from(lpn.0);
        Some((self.red_lpn(x), self.layout.mirror(x)?))
    }

    /// The stripe key (= parity index) of a chunk.
    #[inline]
    pub fn stripe_of(&self, c: &Chunk) -> u64 {
        self.layout.parity_index(c.row, c.group)
    }

    /// True for the FTL LPN of a redundancy page (parity or mirror).
    #[inline]
    pub fn is_redundancy(&self, lpn: Lpn) -> bool {
        u64::from(lpn.0) >= self.host_pages
    }

    /// The chunk that FTL LPN `lpn` (host or redundancy) stands for.
    pub fn chunk_of(&self, lpn: Lpn) -> Chunk {
        let x = u64::from(lpn.0);
        if x < self.host_pages {
            return self.layout.locate(x);
        }
        let i = x - self.host_pages;
        match self.level {
            RaidLevel::Raid1 => self.layout.mirror(i).expect("RAID-1 has mirrors"),
            _ => {
                let groups = u64::from(self.layout.groups());
                self.layout
                    .parity(i / groups, (i % groups) as u32)
                    .expect("a parity level")
            }
        }
    }

    /// The channel domain's chip for `chunk` under the static way (row modulo the data
    /// ways), and the row inside that chip.
    #[inline]
    pub fn static_channel_chip(&self, g: &Geometry, c: &Chunk) -> (ChipId, u64) {
        let ways = u64::from(self.data_ways);
        let chip = g.chip_at(ChannelId(c.member), (c.row % ways) as u32);
        (chip, c.row / ways)
    }

    /// CR5M: the mirror chip that holds the copies of `channel`'s pages: the last way
    /// of that channel, or of the next one with `raid.mirror_channel = "next"`.
    #[inline]
    pub fn mirror_chip(&self, g: &Geometry, channel: ChannelId) -> ChipId {
        debug_assert!(self.mirror, "no mirror chips");
        let holder = (channel.0 + self.mirror_shift) % g.channels;
        g.chip_at(ChannelId(holder), self.data_ways)
    }

    /// CR5M: the channel whose pages mirror chip `chip` holds copies of (the inverse of
    /// [`RaidMap::mirror_chip`]).
    #[inline]
    pub fn mirrored_channel(&self, g: &Geometry, chip: ChipId) -> u32 {
        let holder = g.channel_of_chip(chip).0;
        (holder + g.channels - self.mirror_shift % g.channels) % g.channels
    }

    /// True when `chip` is a CR5M mirror chip.
    #[inline]
    pub fn is_mirror_chip(&self, g: &Geometry, chip: ChipId) -> bool {
        self.mirror && chip.0 / g.channels == self.data_ways
    }

    /// The plane that holds `chunk` under the static layout: the member's chip (chip
    /// domain) or the static way of the member channel (channel domain).
    pub fn home_plane(&self, g: &Geometry, c: &Chunk) -> PlaneId {
        let (chip, row_in_chip) = match self.domain {
            Domain::Chip => (ChipId(self.member_chip[c.member as usize]), c.row),
            Domain::Channel => self.static_channel_chip(g, c),
        };
        Self::plane_in_chip(g, chip, row_in_chip)
    }

    /// The plane of FTL LPN `lpn` (host or redundancy) under the static layout.
    pub fn static_plane(&self, g: &Geometry, lpn: Lpn) -> PlaneId {
        self.home_plane(g, &self.chunk_of(lpn))
    }

    /// Rows after which the static layout repeats: a chunk's plane depends on its row only
    /// through `row mod row_period` (RAID-5's parity rotation over the `G` rows, the
    /// rotation of rows over a chip's planes, and in the channel domain the static way).
    pub fn row_period(&self, g: &Geometry) -> u64 {
        let per_chip = u64::from(g.dies_per_chip * g.planes_per_die);
        let parity = match self.level {
            RaidLevel::Raid5 => u64::from(self.layout.group_size()),
            _ => 1,
        };
        let rows = match self.domain {
            Domain::Chip => per_chip,
            Domain::Channel => u64::from(self.data_ways) * per_chip,
        };
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        parity / gcd(parity, rows) * rows
    }

    /// The content preconditioning leaves in FTL page `lpn` once the redundancy is fixed
    /// after a sequential fill that covers it (and no overwrite): a host page holds the
    /// fill's token `token_for(L, L + 1)`, a parity page the XOR of its stripe's, a
    /// RAID-1 copy its primary's.
    pub fn filled_token(&self, lpn: Lpn) -> u64 {
        let fill = |x: u64| ssdlab_ftl::token_for(Lpn(x as u32), x as u32 + 1);
        let x = u64::from(lpn.0);
        if x < self.host_pages {
            return fill(x);
        }
        let i = x - self.host_pages;
        match self.level {
            RaidLevel::Raid1 => fill(i),
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                let groups = u64::from(self.layout.groups());
                let (row, group) = (i / groups, (i % groups) as u32);
                (0..self.layout.group_size())
                    .filter_map(|pos| self.layout.lpn_at(row, group, pos))
                    .fold(0, |acc, x| acc ^ fill(x))
            }
            RaidLevel::Raid0 | RaidLevel::None => fill(x),
        }
    }

    /// The plane of `chip` that row `row_in_chip` uses: rows rotate over the dies, then
    /// the planes, of a chip.
    #[inline]
    pub fn plane_in_chip(g: &Geometry, chip: ChipId, row_in_chip: u64) -> PlaneId {
        let per_chip = u64::from(g.dies_per_chip * g.planes_per_die);
        if per_chip == 1 {
            // One die of one plane (the BRR/DGC chips): no division on the hot path.
            return g.plane_of_die(g.die_of_chip(chip, 0), 0);
        }
        let n = (row_in_chip % per_chip) as u32;
        let die = g.die_of_chip(chip, n % g.dies_per_chip);
        g.plane_of_die(die, n / g.dies_per_chip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_raid::RaidConfig;

    /// `channels × ways` chips of 2 dies of 2 planes each.
    fn geometry(channels: u32, ways: u32) -> Geometry {
        Geometry {
            channels,
            chips_per_channel: ways,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 8,
            page_size_bytes: 4096,
        }
    }

    /// A map of `level` in groups of 4 over `members` members, 8 rows of host pages.
    fn map(level: RaidLevel, domain: Domain, members: u32) -> RaidMap {
        let cfg = RaidConfig {
            level,
            domain,
            group_size: 4,
            ..RaidConfig::default()
        };
        let layout = RaidLayout::new(&cfg, members).unwrap();
        RaidMap {
            host_pages: 8 * u64::from(layout.data_per_row()),
            layout,
            level,
            domain,
            chip_choice: ChipChoice::Static,
            member_chip: (0..members).collect(),
            data_ways: 3,
            mirror: false,
            mirror_shift: 0,
        }
    }

    fn chip_of(g: &Geometry, plane: PlaneId) -> ChipId {
        g.chip_of_die(g.die_of_plane(plane))
    }

    /// Plane `plane` of die `die` of `chip` (2 dies of 2 planes a chip).
    fn plane_at(chip: u32, die: u32, plane: u32) -> PlaneId {
        PlaneId((chip * 2 + die) * 2 + plane)
    }

    #[test]
    fn a_copy_sits_on_its_own_channel_or_the_next_and_the_inverse_finds_its_pages() {
        let g = geometry(4, 3);
        let mut m = map(RaidLevel::Raid5, Domain::Channel, g.channels);
        m.mirror = true;
        m.data_ways = g.chips_per_channel - 1;
        for shift in [0, 1] {
            m.mirror_shift = shift;
            let mut holders = Vec::new();
            for ch in 0..g.channels {
                let chip = m.mirror_chip(&g, ChannelId(ch));
                assert!(m.is_mirror_chip(&g, chip));
                assert_eq!(g.channel_of_chip(chip).0, (ch + shift) % g.channels);
                assert_eq!(m.mirrored_channel(&g, chip), ch);
                holders.push(chip);
            }
            holders.sort_unstable();
            holders.dedup();
            assert_eq!(
                holders.len() as u32,
                g.channels,
                "one mirror chip per channel"
            );
        }
    }

    #[test]
    fn raid5_host_and_parity_pages_round_trip_through_their_chunks() {
        let m = map(RaidLevel::Raid5, Domain::Chip, 8);
        assert_eq!(m.layout.groups(), 2);
        assert_eq!(m.rows(), 8);
        for x in 0..m.host_pages {
            let lpn = Lpn(x as u32);
            let c = m.chunk_of(lpn);
            assert!(!m.is_redundancy(lpn));
            assert_eq!(c, m.layout.locate(x));
            assert_eq!(m.layout.lpn_at(c.row, c.group, c.pos), Some(x));
        }
        let mut seen = Vec::new();
        for row in 0..m.rows() {
            for group in 0..2 {
                let i = m.layout.parity_index(row, group);
                let lpn = m.red_lpn(i);
                assert_eq!(u64::from(lpn.0), m.host_pages + i);
                assert!(m.is_redundancy(lpn));
                let c = m.chunk_of(lpn);
                assert_eq!(Some(c), m.layout.parity(row, group));
                assert_eq!((c.row, c.group), (row, group));
                assert_eq!(
                    m.layout.lpn_at(row, group, c.pos),
                    None,
                    "a parity position"
                );
                assert_eq!(m.stripe_of(&c), i);
                seen.push(i);
            }
        }
        // Parity pages are numbered densely after the host pages.
        seen.sort_unstable();
        assert_eq!(seen, (0..16).collect::<Vec<u64>>());
        assert_eq!(m.mirror_of(Lpn(0)), None);
    }

    #[test]
    fn raid1_mirror_pages_round_trip_and_only_raid1_has_mirrors() {
        let m = map(RaidLevel::Raid1, Domain::Chip, 8);
        for x in 0..m.host_pages {
            let data = m.chunk_of(Lpn(x as u32));
            let (mlpn, mc) = m
                .mirror_of(Lpn(x as u32))
                .expect("RAID-1 mirrors every page");
            assert_eq!(mlpn, m.red_lpn(x));
            assert!(m.is_redundancy(mlpn));
            assert_eq!(m.chunk_of(mlpn), mc);
            assert_eq!((mc.row, mc.group), (data.row, data.group));
            assert_eq!(mc.pos, data.pos + 2, "position j is mirrored at j + G/2");
            assert_ne!(mc.member, data.member);
            assert_eq!(m.layout.lpn_at(mc.row, mc.group, mc.pos), None);
        }
        for level in [RaidLevel::Raid0, RaidLevel::Raid4, RaidLevel::Raid5] {
            let m = map(level, Domain::Chip, 8);
            assert!((0..m.host_pages).all(|x| m.mirror_of(Lpn(x as u32)).is_none()));
        }
    }

    #[test]
    fn chip_domain_home_plane_follows_the_member_chip() {
        // 10 chips, 8 members: chips 8 and 9 are spares.
        let g = geometry(5, 2);
        let mut m = map(RaidLevel::Raid5, Domain::Chip, 8);
        let chunks: Vec<Chunk> = (0..m.host_pages)
            .map(|x| m.chunk_of(Lpn(x as u32)))
            .chain((0..16).map(|i| m.chunk_of(m.red_lpn(i))))
            .collect();
        let before: Vec<PlaneId> = chunks.iter().map(|c| m.home_plane(&g, c)).collect();
        for (c, &p) in chunks.iter().zip(&before) {
            assert_eq!(chip_of(&g, p), ChipId(c.member));
        }
        // Member 3 fails and is remapped to spare chip 9: its chunks move there, each to
        // the same plane of the chip as before; nothing else moves.
        m.member_chip[3] = 9;
        for (c, &old) in chunks.iter().zip(&before) {
            let new = m.home_plane(&g, c);
            if c.member == 3 {
                assert_eq!(chip_of(&g, new), ChipId(9));
                assert_eq!(new.0 - 9 * 4, old.0 - 3 * 4);
            } else {
                assert_eq!(new, old);
            }
        }
        let x = (0..m.host_pages)
            .find(|&x| m.chunk_of(Lpn(x as u32)).member == 3)
            .unwrap();
        assert_eq!(chip_of(&g, m.static_plane(&g, Lpn(x as u32))), ChipId(9));
    }

    #[test]
    fn channel_domain_home_plane_takes_the_static_way_of_the_member_channel() {
        // 4 channels of 3 ways; the member is the channel.
        let g = geometry(4, 3);
        let mut m = map(RaidLevel::Raid5, Domain::Channel, 4);
        // The chip map is a chip-domain thing: scrambling it changes nothing here.
        m.member_chip = vec![3, 2, 1, 0];
        let mut rows_seen = 0;
        for x in 0..m.host_pages {
            let lpn = Lpn(x as u32);
            let c = m.chunk_of(lpn);
            let way = (c.row % 3) as u32;
            let chip = way * 4 + c.member;
            assert_eq!(m.static_channel_chip(&g, &c), (ChipId(chip), c.row / 3));
            // Inside the chip, the chip's rows (row / ways) go over the dies, then planes.
            let n = ((c.row / 3) % 4) as u32;
            let want = plane_at(chip, n % 2, n / 2);
            assert_eq!(m.home_plane(&g, &c), want, "lpn {x}");
            assert_eq!(m.static_plane(&g, lpn), want);
            rows_seen = rows_seen.max(c.row + 1);
        }
        assert_eq!(rows_seen, 8);
        // Parity follows the same rule.
        let c = m.chunk_of(m.red_lpn(5));
        assert_eq!(c.row, 5);
        assert_eq!(
            chip_of(&g, m.home_plane(&g, &c)),
            g.chip_at(ChannelId(c.member), 2)
        );
    }

    #[test]
    fn rows_rotate_over_the_dies_then_the_planes_of_a_chip() {
        let g = geometry(2, 1);
        let got: Vec<PlaneId> = (0..9)
            .map(|r| RaidMap::plane_in_chip(&g, ChipId(1), r))
            .collect();
        let want: Vec<PlaneId> = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .iter()
            .cycle()
            .take(9)
            .map(|&(die, plane)| plane_at(1, die, plane))
            .collect();
        assert_eq!(got, want);
        // One die of two planes: rows alternate planes. Two dies of one plane: dies.
        let one_die = Geometry {
            dies_per_chip: 1,
            ..g
        };
        let planes: Vec<u32> = (0..4)
            .map(|r| RaidMap::plane_in_chip(&one_die, ChipId(1), r).0)
            .collect();
        assert_eq!(planes, [2, 3, 2, 3]);
        let one_plane = Geometry {
            planes_per_die: 1,
            ..g
        };
        let planes: Vec<u32> = (0..4)
            .map(|r| RaidMap::plane_in_chip(&one_plane, ChipId(1), r).0)
            .collect();
        assert_eq!(planes, [2, 3, 2, 3]);
        // One plane a chip: every row in it.
        let single = Geometry {
            dies_per_chip: 1,
            planes_per_die: 1,
            ..g
        };
        assert!((0..5).all(|r| RaidMap::plane_in_chip(&single, ChipId(1), r) == PlaneId(1)));
    }
}
