//! Where every logical page lives by layout: the RAID map (ARCHITECTURE §6).
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

    /// The channel domain's chip for `chunk` under the static way (row modulo ways),
    /// and the row inside that chip.
    #[inline]
    pub fn static_channel_chip(g: &Geometry, c: &Chunk) -> (ChipId, u64) {
        let ways = u64::from(g.chips_per_channel);
        let chip = g.chip_at(ChannelId(c.member), (c.row % ways) as u32);
        (chip, c.row / ways)
    }

    /// The plane that holds `chunk` under the static layout: the member's chip (chip
    /// domain) or the static way of the member channel (channel domain).
    pub fn home_plane(&self, g: &Geometry, c: &Chunk) -> PlaneId {
        let (chip, row_in_chip) = match self.domain {
            Domain::Chip => (ChipId(self.member_chip[c.member as usize]), c.row),
            Domain::Channel => Self::static_channel_chip(g, c),
        };
        Self::plane_in_chip(g, chip, row_in_chip)
    }

    /// The plane of FTL LPN `lpn` (host or redundancy) under the static layout.
    pub fn static_plane(&self, g: &Geometry, lpn: Lpn) -> PlaneId {
        self.home_plane(g, &self.chunk_of(lpn))
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
