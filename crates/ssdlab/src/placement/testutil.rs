//! Test only: a small channel-RAID device as placement policies see it.

use super::{PageToPlace, PlacementPolicy, Role};
use crate::config::ConfigBuilder;
use crate::device::{DeadChips, DeviceView, GcJob};
use crate::layout::RaidMap;
use crate::sched::Queues;
use ssdlab_ftl::Ftl;
use ssdlab_nand::{ChannelId, ChipId, Geometry, Lpn, PlaneId};
use ssdlab_raid::{ChipChoice, Domain, RaidLayout};

/// `channels` channels of `ways` chips of 2 dies × 2 planes; channel RAID-5 over all the
/// channels, with a mirror chip per channel when `mirror`.
pub struct Rig {
    pub g: Geometry,
    pub ftl: Ftl,
    pub map: RaidMap,
    pub queues: Queues,
    pub dead: DeadChips,
    pub gc: Vec<GcJob>,
}

impl Rig {
    pub fn new(channels: u32, ways: u32, mirror: bool, choice: ChipChoice) -> Rig {
        let cfg = ConfigBuilder::new()
            .text(
                &format!(
                    "[geometry]\nchannels = {channels}\nchips_per_channel = {ways}\n\
                     dies_per_chip = 2\nplanes_per_die = 2\nblocks_per_plane = 64\n\
                     pages_per_block = 8\n[raid]\nlevel = 5\ndomain = \"channel\"\n\
                     group_size = {channels}\nmirror_chips = {mirror}\nbuffer_new_writes = false\n"
                ),
                "t",
            )
            .unwrap()
            .build()
            .unwrap();
        let g = cfg.geometry;
        let ftl = Ftl::new(&cfg.ftl, &g, 1024, ssdlab_engine::SimRng::new(1)).unwrap();
        let map = RaidMap {
            layout: RaidLayout::new(&cfg.raid, channels).unwrap(),
            level: cfg.raid.level,
            domain: Domain::Channel,
            chip_choice: choice,
            host_pages: 512,
            member_chip: (0..channels).collect(),
            data_ways: cfg.raid.data_ways(&g),
            mirror,
            mirror_shift: cfg.raid.mirror_channel.shift(),
        };
        Rig {
            queues: Queues::new(&g, 8),
            dead: DeadChips::new(g.chips()),
            gc: vec![GcJob::none(); g.planes() as usize],
            g,
            ftl,
            map,
        }
    }

    /// The chip at `way` of `channel`.
    pub fn chip(&self, channel: u32, way: u32) -> ChipId {
        self.g.chip_at(ChannelId(channel), way)
    }

    /// Sets the outstanding work of the chip at `way` of `channel`.
    pub fn set_load(&mut self, channel: u32, way: u32, load: u32) {
        let chip = self.chip(channel, way);
        self.queues.load[chip.idx()] = load;
    }

    /// The plane `policy` gives host LPN `lpn`'s page of `role` (its chunk located).
    pub fn place(&self, policy: &mut dyn PlacementPolicy, lpn: u64, role: Role) -> PlaneId {
        let view = DeviceView {
            geom: &self.g,
            ftl: &self.ftl,
            queues: &self.queues,
            dead: &self.dead,
            gc: &self.gc,
            raid: Some(&self.map),
        };
        let chunk = self.map.layout.locate(lpn);
        let page = PageToPlace::new(Lpn(lpn as u32), 1, role).with_chunk(chunk);
        policy.place(&page, &view)
    }

    /// The chip of `plane`.
    pub fn chip_of(&self, plane: PlaneId) -> ChipId {
        self.g.chip_of_die(self.g.die_of_plane(plane))
    }

    /// The channel of host LPN `lpn` (its member).
    pub fn channel_of(&self, lpn: u64) -> u32 {
        self.map.layout.locate(lpn).member
    }
}
