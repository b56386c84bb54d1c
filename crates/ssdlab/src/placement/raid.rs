//! Placement under RAID (ARCHITECTURE §6): a page goes to its chunk's member.
//!
//! * Chip domain: the member's chip ([`RaidMap::member_chip`], which failure handling
//!   remaps to a spare), the row's plane inside it.
//! * Channel domain: the member is a channel; the chip inside it is the static way
//!   (row modulo ways) or, with `raid.chip_in_channel = "dynamic"`, for run-time writes
//!   (data, mirror, parity) the live chip of the channel with the least outstanding work
//!   whose plane for the row has a free page (ties: the lowest chip). A dead chip is
//!   never chosen; when every chip of the channel is dead or full the static way is
//!   taken (and the write becomes a degraded write or waits for space there).
//!
//! Every other role — rebuild (timed, through the queues), materialization, pages
//! recorded on dead chips, and preconditioning with its redundancy fix (zero time) —
//! uses the static layout, so that it agrees with the audit.

use super::{PageToPlace, PlacementPolicy, Role};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_nand::{ChannelId, Geometry, Lpn, PlaneId};
use ssdlab_raid::{ChipChoice, Chunk, Domain};

/// The RAID layout as a placement policy.
#[derive(Clone, Debug, Default)]
pub struct RaidLayoutPolicy;

impl RaidLayoutPolicy {
    /// Channel domain with dynamic chip choice: the least-loaded live chip of the
    /// chunk's channel with room in the row's plane.
    fn dynamic_channel_plane(c: &Chunk, view: &DeviceView) -> PlaneId {
        let g = view.geom;
        let (static_chip, row_in_chip) = RaidMap::static_channel_chip(g, c);
        let channel = ChannelId(c.member);
        let chip = (0..g.chips_per_channel)
            .map(|w| g.chip_at(channel, w))
            .filter(|&chip| {
                !view.dead.is_dead(chip)
                    && view
                        .ftl
                        .free_pages_in_plane(RaidMap::plane_in_chip(g, chip, row_in_chip))
                        > 0
            })
            .min_by_key(|chip| (view.load(*chip), chip.0))
            .unwrap_or(static_chip);
        RaidMap::plane_in_chip(g, chip, row_in_chip)
    }
}

impl PlacementPolicy for RaidLayoutPolicy {
    fn name(&self) -> &'static str {
        "raid-layout"
    }

    #[inline]
    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        let map = view.raid.expect("RAID placement runs with a RAID map");
        let chunk = match page.chunk {
            Some(c) => c,
            None => map.chunk_of(page.lpn),
        };
        let run_time = matches!(page.role, Role::Data | Role::Mirror | Role::Parity);
        if run_time && map.domain == Domain::Channel && map.chip_choice == ChipChoice::Sda {
            return Self::dynamic_channel_plane(&chunk, view);
        }
        map.home_plane(view.geom, &chunk)
    }

    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, raid: Option<&RaidMap>) -> PlaneId {
        raid.expect("RAID placement runs with a RAID map")
            .static_plane(geom, lpn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;
    use crate::device::{DeadChips, GcJob};
    use crate::sched::Queues;
    use ssdlab_ftl::Ftl;
    use ssdlab_nand::{ChipId, Geometry};
    use ssdlab_raid::RaidLayout;

    /// 4 channels × 4 ways of one plane; channel RAID-5 over the 4 channels.
    fn setup(choice: ChipChoice) -> (Geometry, Ftl, RaidMap) {
        let cfg = ConfigBuilder::new()
            .text(
                "[geometry]\nchannels = 4\nchips_per_channel = 4\ndies_per_chip = 1\n\
                 planes_per_die = 1\nblocks_per_plane = 64\npages_per_block = 8\n\
                 [raid]\nlevel = 5\ndomain = \"channel\"\ngroup_size = 4\n",
                "t",
            )
            .unwrap()
            .build()
            .unwrap();
        let g = cfg.geometry;
        let ftl = Ftl::new(&cfg.ftl, &g, 2048, ssdlab_engine::SimRng::new(1).fork("f")).unwrap();
        let map = RaidMap {
            layout: RaidLayout::new(&cfg.raid, 4).unwrap(),
            level: cfg.raid.level,
            domain: Domain::Channel,
            chip_choice: choice,
            host_pages: 512,
            member_chip: (0..4).collect(),
        };
        (g, ftl, map)
    }

    fn place(
        map: &RaidMap,
        g: &Geometry,
        ftl: &Ftl,
        load: &[u32],
        dead: &DeadChips,
        role: Role,
    ) -> ChipId {
        let mut queues = Queues::new(g, 8);
        queues.load.copy_from_slice(load);
        let gc = vec![GcJob::none(); g.planes() as usize];
        let view = DeviceView {
            geom: g,
            ftl,
            queues: &queues,
            dead,
            gc: &gc,
            raid: Some(map),
        };
        let chunk = map.layout.locate(0);
        let page = PageToPlace::new(Lpn(0), 1, role).with_chunk(chunk);
        let plane = RaidLayoutPolicy.place(&page, &view);
        g.chip_of_die(g.die_of_plane(plane))
    }

    #[test]
    fn dynamic_choice_takes_the_least_loaded_live_chip_of_the_channel() {
        let (g, ftl, map) = setup(ChipChoice::Sda);
        let channel = ChannelId(map.layout.locate(0).member);
        let ways: Vec<ChipId> = (0..4).map(|w| g.chip_at(channel, w)).collect();
        let mut load = vec![5u32; g.chips() as usize];
        load[ways[2].idx()] = 1;
        load[ways[3].idx()] = 0;
        let mut dead = DeadChips::new(g.chips());
        assert_eq!(place(&map, &g, &ftl, &load, &dead, Role::Data), ways[3]);
        // The idle chip dies: it is never chosen again, however idle it looks.
        dead.mark(ways[3]);
        assert_eq!(place(&map, &g, &ftl, &load, &dead, Role::Data), ways[2]);
        assert_eq!(place(&map, &g, &ftl, &load, &dead, Role::Parity), ways[2]);
        // Rebuild keeps the static way (row 0: way 0).
        assert_eq!(place(&map, &g, &ftl, &load, &dead, Role::Rebuild), ways[0]);
        // Every chip of the channel dead: the static way (the write becomes degraded).
        for &w in &ways {
            dead.mark(w);
        }
        assert_eq!(place(&map, &g, &ftl, &load, &dead, Role::Data), ways[0]);
    }

    #[test]
    fn static_choice_ignores_load() {
        let (g, ftl, map) = setup(ChipChoice::Static);
        let channel = ChannelId(map.layout.locate(0).member);
        let mut load = vec![0u32; g.chips() as usize];
        load[g.chip_at(channel, 0).idx()] = 50;
        let dead = DeadChips::new(g.chips());
        let chip = place(&map, &g, &ftl, &load, &dead, Role::Data);
        assert_eq!(chip, g.chip_at(channel, 0));
    }
}
