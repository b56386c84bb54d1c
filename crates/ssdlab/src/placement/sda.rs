//! CR5's semi-dynamic allocation (SDA, CR5M §III-A and Fig. 3) as a placement policy:
//! the channel of every page comes from the RAID layout (static: the stripe formula),
//! and the chip, die and plane inside the channel are chosen when the page is written.
//!
//! ```text
//!  page ─► channel (layout) ─► chip: next available one of the channel's data ways
//!                               │     (idle chips in round-robin order after the last
//!                               │      chip chosen, else the least outstanding work,
//!                               │      ties in the same order; never dead, never full)
//!                               └─► die: the chip's next available die, the same way
//!                                   └─► plane: the die's next plane with a free page
//! ```
//!
//! This is `find_next_available` of Fig. 3: the next chip of the channel that is idle,
//! in round-robin order, else the one with the least outstanding work. Where the search
//! starts is `raid.sda_start`: at the page's static way (row modulo the data ways) and
//! its static die and plane (`"home-way"`, the default: on an idle device SDA lays pages
//! out as the static layout does and moves a page only off a busy chip), or after the
//! chip last chosen in the channel (`"after-last"`: SSDsim's round-robin tokens).
//! docs/CR5M.md gives the measurements behind the default. SSDsim takes the chip when the page is dispatched; ssdlab places pages at
//! admission, so a page placed but not yet queued counts as outstanding work of its chip
//! and die until the controller has queued the request ([`PlacementPolicy::settle`]).
//!
//! Roles: host data, parity and RAID-1 mirror pages (CR1) take SDA on their channel's
//! data ways; a CR5M mirror copy takes its channel's mirror chip, with the die and plane
//! chosen the same way. Rebuild, materialized and degraded pages take the static layout,
//! as with [`super::RaidLayoutPolicy`].

use super::{FillRun, PageToPlace, PlacementPolicy, Role};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_nand::{ChannelId, ChipId, Geometry, Lpn, PlaneId};
use ssdlab_raid::{RaidLevel, SdaStart};

/// SDA's state: the round-robin tokens and the pages placed but not yet queued.
#[derive(Clone, Debug)]
pub struct Sda {
    /// Per channel: the way chosen last.
    chip_cursor: Vec<u32>,
    /// Per chip: the die (index inside the chip) chosen last.
    die_cursor: Vec<u32>,
    /// Per die: the plane (index inside the die) chosen last.
    plane_cursor: Vec<u32>,
    /// Pages placed on each chip and die since the last settle.
    pending_chip: Vec<u32>,
    pending_die: Vec<u32>,
    /// Chips with pending pages.
    touched: Vec<ChipId>,
    /// Scratch: (outstanding work, round-robin distance, index) of the candidates.
    order: Vec<(u32, u32, u32)>,
    /// Searches start at the page's static way, die and plane (`"home-way"`).
    from_home: bool,
    /// The die and plane (indices) the page being placed starts from, in that mode.
    home: Option<(u32, u32)>,
}

impl Sda {
    /// Fresh tokens for `g`: the first choice of every channel is way 0, of every chip
    /// die 0, of every die plane 0. `start` says where a search starts
    /// (`raid.sda_start`).
    pub fn new(g: &Geometry, start: SdaStart) -> Sda {
        Sda {
            chip_cursor: vec![g.chips_per_channel - 1; g.channels as usize],
            die_cursor: vec![g.dies_per_chip - 1; g.chips() as usize],
            plane_cursor: vec![g.planes_per_die - 1; g.dies() as usize],
            pending_chip: vec![0; g.chips() as usize],
            pending_die: vec![0; g.dies() as usize],
            touched: Vec::new(),
            order: Vec::new(),
            from_home: start == SdaStart::HomeWay,
            home: None,
        }
    }

    /// The next available chip among the first `ways` ways of `channel`, and a plane of
    /// it with a free page; `None` if every chip is dead or full.
    fn pick_chip(
        &mut self,
        channel: ChannelId,
        ways: u32,
        row: u64,
        view: &DeviceView,
    ) -> Option<PlaneId> {
        let g = view.geom;
        let start = if self.from_home {
            let home = (row % u64::from(ways)) as u32;
            let n = (row / u64::from(ways) % u64::from(g.dies_per_chip * g.planes_per_die)) as u32;
            self.home = Some((n % g.dies_per_chip, n / g.dies_per_chip));
            (home + ways - 1) % ways
        } else {
            self.chip_cursor[channel.idx()] % ways
        };
        self.order.clear();
        for off in 1..=ways {
            let w = (start + off) % ways;
            let chip = g.chip_at(channel, w);
            if view.dead.is_dead(chip) {
                continue;
            }
            let work = view.load(chip) + self.pending_chip[chip.idx()];
            self.order.push((work, off, w));
        }
        // Idle chips first in round-robin order, then the least outstanding work.
        self.order.sort_unstable();
        for i in 0..self.order.len() {
            let w = self.order[i].2;
            let chip = g.chip_at(channel, w);
            if let Some(plane) = self.pick_in_chip(chip, view) {
                self.chip_cursor[channel.idx()] = w;
                return Some(plane);
            }
        }
        None
    }

    /// The next available die of `chip` with a free page, and that die's next plane with
    /// one; records the placement as pending work.
    fn pick_in_chip(&mut self, chip: ChipId, view: &DeviceView) -> Option<PlaneId> {
        let g = view.geom;
        let dies = g.dies_per_chip;
        let start = match self.home {
            Some((d, _)) => (d + dies - 1) % dies,
            None => self.die_cursor[chip.idx()],
        };
        let mut best: Option<(u32, u32, PlaneId)> = None;
        for off in 1..=dies {
            let n = (start + off) % dies;
            let die = g.die_of_chip(chip, n);
            let work = u32::from(view.queues.die_busy[die.idx()])
                + view.queues.queued_for_die(die)
                + self.pending_die[die.idx()];
            if best.is_some_and(|(b, _, _)| b <= work) {
                continue;
            }
            if let Some(plane) = self.next_plane(die, view) {
                best = Some((work, n, plane));
                if work == 0 {
                    break;
                }
            }
        }
        let (_, n, plane) = best?;
        let die = g.die_of_chip(chip, n);
        self.die_cursor[chip.idx()] = n;
        self.plane_cursor[die.idx()] = plane.0 - g.plane_of_die(die, 0).0;
        if self.pending_chip[chip.idx()] == 0 {
            self.touched.push(chip);
        }
        self.pending_chip[chip.idx()] += 1;
        self.pending_die[die.idx()] += 1;
        Some(plane)
    }

    /// The plane after the die's last one, in round-robin order, with a free page.
    fn next_plane(&self, die: ssdlab_nand::DieId, view: &DeviceView) -> Option<PlaneId> {
        let g = view.geom;
        let planes = g.planes_per_die;
        let start = match self.home {
            Some((_, p)) => (p + planes - 1) % planes,
            None => self.plane_cursor[die.idx()],
        };
        (1..=planes)
            .map(|off| g.plane_of_die(die, (start + off) % planes))
            .find(|&p| view.ftl.free_pages_in_plane(p) > 0)
    }
}

impl PlacementPolicy for Sda {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
    fn name(&self) -> &'static str {
        "sda"
    }

    fn place(&mut self, page: &PageToPlace, view: &DeviceView) -> PlaneId {
        let map = view.raid.expect("SDA runs with a RAID map");
        let chunk = match page.chunk {
            Some(c) => c,
            None => map.chunk_of(page.lpn),
        };
        let channel = ChannelId(chunk.member);
        let cr5m_copy = page.role == Role::Mirror && map.level == RaidLevel::Raid5;
        self.home = None;
        let chosen = match page.role {
            Role::Mirror if cr5m_copy => {
                let chip = map.mirror_chip(view.geom, channel);
                if view.dead.is_dead(chip) {
                    None
                } else {
                    self.pick_in_chip(chip, view)
                }
            }
            Role::Data | Role::Mirror | Role::Parity => {
                self.pick_chip(channel, map.data_ways, chunk.row, view)
            }
            Role::Rebuild | Role::Materialize | Role::Degraded => None,
        };
        if let Some(plane) = chosen {
            return plane;
        }
        // No live chip of the channel has room: the write waits for space on the
        // static way, or on a live chip if the static way is dead (only a channel without
        // a live chip writes to a dead one: a degraded write).
        let home = super::raid::static_plane(map, view, &chunk, page.role);
        let run_time = matches!(page.role, Role::Data | Role::Mirror | Role::Parity);
        if !run_time || cr5m_copy || !view.dead.plane_dead(view.geom, home) {
            return home;
        }
        let row_in_chip = chunk.row / u64::from(map.data_ways);
        (0..map.data_ways)
            .map(|w| view.geom.chip_at(channel, w))
            .find(|&chip| !view.dead.is_dead(chip))
            .map_or(home, |chip| {
                RaidMap::plane_in_chip(view.geom, chip, row_in_chip)
            })
    }

    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, raid: Option<&RaidMap>) -> PlaneId {
        raid.expect("SDA runs with a RAID map")
            .static_plane(geom, lpn)
    }

    fn fill_period(&self, geom: &Geometry, raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        super::raid::static_fill_runs(raid?, geom)
    }

    fn settles(&self) -> bool {
        true
    }

    fn settle(&mut self) {
        // Dies of a chip are numbered consecutively.
        let dies = self.pending_die.len() / self.pending_chip.len();
        for chip in self.touched.drain(..) {
            self.pending_chip[chip.idx()] = 0;
            let first = chip.idx() * dies;
            self.pending_die[first..first + dies].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::testutil::Rig;
    use ssdlab_raid::ChipChoice;

    #[test]
    fn home_way_start_follows_the_static_layout_on_an_idle_device_and_leaves_busy_chips() {
        let mut rig = Rig::new(4, 4, false, ChipChoice::Sda);
        let mut sda = Sda::new(&rig.g, SdaStart::HomeWay);
        for lpn in 0..48 {
            let plane = rig.place(&mut sda, lpn, Role::Data);
            let home = rig.map.home_plane(&rig.g, &rig.map.layout.locate(lpn));
            assert_eq!(plane, home, "lpn {lpn}");
            sda.settle();
        }
        // Row 1's static way on channel 0 is way 1: busy, so way 2 takes it.
        let x = (0..12)
            .find(|&x| x / 3 == 1 && rig.channel_of(x) == 0)
            .unwrap();
        rig.set_load(0, 1, 2);
        assert_eq!(
            rig.chip_of(rig.place(&mut sda, x, Role::Data)),
            rig.chip(0, 2)
        );
    }

    #[test]
    fn fig3_channels_for_4_and_8_channels_with_chips_chosen_inside_them() {
        for n in [4u32, 8] {
            let rig = Rig::new(n, 3, false, ChipChoice::Sda);
            let mut sda = Sda::new(&rig.g, SdaStart::AfterLast);
            for i in 0..(4 * u64::from(n)) {
                // Fig. 3: parity_channel = (N − 1) − (j mod N); channel = i mod (N − 1),
                // plus one at or past the parity channel.
                let j = i / u64::from(n - 1);
                let parity = (n - 1) - (j % u64::from(n)) as u32;
                let mut ch = (i % u64::from(n - 1)) as u32;
                if ch >= parity {
                    ch += 1;
                }
                let plane = rig.place(&mut sda, i, Role::Data);
                let chip = rig.chip_of(plane);
                assert_eq!(rig.g.channel_of_chip(chip).0, ch, "N {n}, D{i}");
                let c = rig.map.layout.parity(j, 0).unwrap();
                assert_eq!(c.member, parity, "N {n}, P{j}");
                let page = PageToPlace::new(rig.map.red_lpn(j), 1, Role::Parity).with_chunk(c);
                let view = view(&rig);
                let p = rig.chip_of(sda.place(&page, &view));
                assert_eq!(rig.g.channel_of_chip(p).0, parity, "N {n}, P{j}");
                sda.settle();
            }
        }
    }

    fn view(rig: &Rig) -> DeviceView<'_> {
        DeviceView {
            geom: &rig.g,
            ftl: &rig.ftl,
            queues: &rig.queues,
            dead: &rig.dead,
            gc: &rig.gc,
            raid: Some(&rig.map),
        }
    }

    #[test]
    fn pages_of_one_request_spread_over_the_idle_chips_of_their_channel() {
        let rig = Rig::new(4, 4, false, ChipChoice::Sda);
        let mut sda = Sda::new(&rig.g, SdaStart::AfterLast);
        // LPNs 0, 3, 6, 9 are all on channel 0 (rows 0-3, parity elsewhere): placed in one
        // admission, before any is queued, they take ways 0, 1, 2, 3, each on die 0.
        let lpns: Vec<u64> = (0..40)
            .filter(|&x| rig.channel_of(x) == 0)
            .take(4)
            .collect();
        let mut chips = Vec::new();
        for &x in &lpns {
            let plane = rig.place(&mut sda, x, Role::Data);
            chips.push(rig.chip_of(plane));
        }
        let want: Vec<ChipId> = (0..4).map(|w| rig.chip(0, w)).collect();
        assert_eq!(chips, want);
        // A fifth page finds every chip with one pending page: round-robin goes on,
        // and inside way 0 the next die.
        let x = (41..80).find(|&x| rig.channel_of(x) == 0).unwrap();
        let plane = rig.place(&mut sda, x, Role::Data);
        assert_eq!(rig.chip_of(plane), rig.chip(0, 0));
        assert_eq!(
            rig.g.die_of_plane(plane),
            rig.g.die_of_chip(rig.chip(0, 0), 1)
        );
        sda.settle();
        assert!(sda.pending_chip.iter().all(|&p| p == 0));
        assert!(sda.pending_die.iter().all(|&p| p == 0));
    }

    #[test]
    fn busy_chips_give_way_to_idle_ones_then_to_the_least_loaded() {
        let mut rig = Rig::new(4, 4, false, ChipChoice::Sda);
        let mut sda = Sda::new(&rig.g, SdaStart::AfterLast);
        for w in 0..4 {
            rig.set_load(0, w, 3);
        }
        rig.set_load(0, 2, 0);
        let first = rig.place(&mut sda, 0, Role::Data);
        assert_eq!(rig.chip_of(first), rig.chip(0, 2), "the idle chip");
        sda.settle();
        rig.set_load(0, 2, 5);
        rig.set_load(0, 1, 1);
        let next = rig.place(&mut sda, 0, Role::Data);
        assert_eq!(rig.chip_of(next), rig.chip(0, 1), "the least loaded");
        sda.settle();
        // Ties go round-robin after the last chip chosen (way 1): way 3 before way 0.
        rig.set_load(0, 1, 3);
        let tie = rig.place(&mut sda, 0, Role::Data);
        assert_eq!(rig.chip_of(tie), rig.chip(0, 3));
    }

    #[test]
    fn dead_and_full_chips_are_never_chosen_and_rebuilds_keep_the_static_way() {
        let mut rig = Rig::new(4, 4, false, ChipChoice::Sda);
        let mut sda = Sda::new(&rig.g, SdaStart::AfterLast);
        let load = [5, 5, 1, 0];
        for (w, l) in load.iter().enumerate() {
            rig.set_load(0, w as u32, *l);
        }
        rig.dead.mark(rig.chip(0, 3));
        for _ in 0..3 {
            let p = rig.place(&mut sda, 0, Role::Data);
            assert_ne!(rig.chip_of(p), rig.chip(0, 3), "however idle it looks");
            sda.settle();
        }
        assert_eq!(
            rig.chip_of(rig.place(&mut sda, 0, Role::Rebuild)),
            rig.chip(0, 0)
        );
        // Fill way 2's planes: it is skipped although it has the least work.
        let chip2 = rig.chip(0, 2);
        for plane in rig.g.planes_of_chip(chip2).collect::<Vec<_>>() {
            // Rewrites of a few LPNs use the pages up (the FTL only needs free pages).
            let mut l = 0;
            while rig.ftl.free_pages_in_plane(plane) > 0 {
                let ppn = rig.ftl.host_write(Lpn(600 + l % 8), plane, 1).unwrap();
                rig.ftl.program_done(ppn);
                l += 1;
            }
        }
        let p = rig.place(&mut sda, 0, Role::Data);
        assert!([rig.chip(0, 0), rig.chip(0, 1)].contains(&rig.chip_of(p)));
        // Every chip dead: the static way (the write becomes a degraded write).
        for w in 0..4 {
            rig.dead.mark(rig.chip(0, w));
        }
        assert_eq!(
            rig.chip_of(rig.place(&mut sda, 0, Role::Data)),
            rig.chip(0, 0)
        );
    }

    #[test]
    fn cr5m_data_and_parity_stay_off_the_mirror_chip_and_copies_go_to_it() {
        let rig = Rig::new(4, 3, true, ChipChoice::Sda);
        let mut sda = Sda::new(&rig.g, SdaStart::AfterLast);
        let mut dies = Vec::new();
        for lpn in 0..48 {
            let ch = rig.channel_of(lpn);
            let data = rig.chip_of(rig.place(&mut sda, lpn, Role::Data));
            assert!(!rig.map.is_mirror_chip(&rig.g, data), "lpn {lpn} on {data}");
            assert_eq!(rig.g.channel_of_chip(data).0, ch);
            let plane = rig.place(&mut sda, lpn, Role::Mirror);
            assert_eq!(rig.chip_of(plane), rig.chip(ch, 2), "lpn {lpn}");
            if ch == 0 {
                dies.push(rig.g.die_of_plane(plane).0 % 2);
            }
        }
        // The mirror chip's dies take turns.
        assert!(dies.windows(2).all(|w| w[0] != w[1]), "{dies:?}");
    }
}
