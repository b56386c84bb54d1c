//! Where a chunk lives: member chip, in-channel chip choice, plane of a row.

use super::RaidState;
use ssdlab_nand::{ChannelId, ChipId, Geometry, Lpn, PlaneId};
use ssdlab_raid::{ChipChoice, Chunk, Domain, RaidLevel};

impl RaidState {
    /// See [`Simulation::chunk_plane`].
    pub fn plane(
        &self,
        g: &Geometry,
        c: &Chunk,
        load: Option<(&[u32], &ssdlab_ftl::Ftl)>,
    ) -> PlaneId {
        let (chip, row_in_chip) = match self.domain {
            Domain::Chip => (ChipId(self.member_chip[c.member as usize]), c.row),
            Domain::Channel => {
                let ways = g.chips_per_channel;
                let channel = ChannelId(c.member);
                let row_in_chip = c.row / u64::from(ways);
                let static_chip = g.chip_at(channel, (c.row % u64::from(ways)) as u32);
                let chip = match (self.chip_choice, load) {
                    (ChipChoice::Dynamic, Some((load, ftl))) => (0..ways)
                        .map(|w| g.chip_at(channel, w))
                        .filter(|&chip| {
                            ftl.free_pages_in_plane(Self::plane_in_chip(g, chip, row_in_chip)) > 0
                        })
                        .min_by_key(|chip| (load[chip.idx()], chip.0))
                        .unwrap_or(static_chip),
                    _ => static_chip,
                };
                (chip, c.row / u64::from(ways))
            }
        };
        Self::plane_in_chip(g, chip, row_in_chip)
    }

    /// The plane of `chip` that row `row_in_chip` uses: rows rotate over the dies, then
    /// the planes, of a chip.
    #[inline]
    pub(crate) fn plane_in_chip(g: &Geometry, chip: ChipId, row_in_chip: u64) -> PlaneId {
        let per_chip = u64::from(g.dies_per_chip * g.planes_per_die);
        if per_chip == 1 {
            // One die of one plane (the BRR/DGC chips): no division on the hot path.
            return g.plane_of_die(g.die_of_chip(chip, 0), 0);
        }
        let n = (row_in_chip % per_chip) as u32;
        let die = g.die_of_chip(chip, n % g.dies_per_chip);
        g.plane_of_die(die, n / g.dies_per_chip)
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

    /// The plane of FTL LPN `lpn` under the static layout (preconditioning).
    pub fn static_plane(&self, g: &Geometry, lpn: Lpn) -> PlaneId {
        self.plane(g, &self.chunk_of(lpn), None)
    }
}
