//! Placement under RAID (docs/ARCHITECTURE.md §13): a page goes to its chunk's member.
//!
//! * Chip domain: the member's chip ([`RaidMap::member_chip`], which failure handling
//!   remaps to a spare), the row's plane inside it.
//! * Channel domain: the member is a channel; the chip inside it is the static way (row
//!   modulo the data ways). With `raid.chip_in_channel = "sda"` run-time writes take
//!   [`super::Sda`] instead.
//! * CR5M (`raid.mirror_chips`): a mirror copy goes to its channel's mirror chip, the
//!   row's plane there (or the first plane of the chip with a free page).
//!
//! Every other role — rebuild (timed, through the queues), materialization, pages
//! recorded on dead chips, and preconditioning with its redundancy fix (zero time) —
//! uses the static layout, so that it agrees with the audit.

use super::{FillRun, PageToPlace, PlacementPolicy, Role};
use crate::device::DeviceView;
use crate::layout::RaidMap;
use ssdlab_nand::{ChannelId, Geometry, Lpn, PlaneId};
use ssdlab_raid::{Chunk, RaidLevel};

/// The RAID layout as a placement policy.
#[derive(Clone, Debug, Default)]
pub struct RaidLayoutPolicy;

/// The static plane of `chunk` for a page of `role`: its member's home plane, or for a
/// CR5M mirror copy the mirror chip of its channel (the row's plane there when it has a
/// free page, else the chip's first plane with one).
pub(super) fn static_plane(map: &RaidMap, view: &DeviceView, chunk: &Chunk, role: Role) -> PlaneId {
    let g = view.geom;
    if role == Role::Mirror && map.level == RaidLevel::Raid5 {
        let chip = map.mirror_chip(g, ChannelId(chunk.member));
        let home = RaidMap::plane_in_chip(g, chip, chunk.row / u64::from(map.data_ways));
        if view.ftl.free_pages_in_plane(home) > 0 {
            return home;
        }
        return g
            .planes_of_chip(chip)
            .find(|&p| view.ftl.free_pages_in_plane(p) > 0)
            .unwrap_or(home);
    }
    map.home_plane(g, chunk)
}

impl PlacementPolicy for RaidLayoutPolicy {
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
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
        static_plane(map, view, &chunk, page.role)
    }

    fn fill_plane(&mut self, lpn: Lpn, geom: &Geometry, raid: Option<&RaidMap>) -> PlaneId {
        raid.expect("RAID placement runs with a RAID map")
            .static_plane(geom, lpn)
    }

    fn fill_is_static(&self) -> bool {
        true
    }

    fn fill_period(&self, geom: &Geometry, raid: Option<&RaidMap>) -> Option<Vec<FillRun>> {
        static_fill_runs(raid?, geom)
    }
}

/// The static layout's fill runs: host pages, then redundancy pages, each periodic over
/// [`RaidMap::row_period`] rows (`None` if a period overflows).
pub(super) fn static_fill_runs(map: &RaidMap, geom: &Geometry) -> Option<Vec<FillRun>> {
    let rows = map.row_period(geom);
    let host = u32::try_from(rows.checked_mul(u64::from(map.layout.data_per_row()))?).ok()?;
    let mut runs = vec![FillRun {
        start: 0,
        period: host,
    }];
    let red = map.layout.redundancy_per_row();
    if red > 0 {
        runs.push(FillRun {
            start: u32::try_from(map.host_pages).ok()?,
            period: u32::try_from(rows.checked_mul(red)?).ok()?,
        });
    }
    Some(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::testutil::Rig;
    use ssdlab_raid::ChipChoice;

    #[test]
    fn static_choice_ignores_load() {
        let mut rig = Rig::new(4, 4, false, ChipChoice::Static);
        let ch = rig.channel_of(0);
        rig.set_load(ch, 0, 50);
        let plane = rig.place(&mut RaidLayoutPolicy, 0, Role::Data);
        assert_eq!(rig.chip_of(plane), rig.chip(ch, 0));
        // Row 5 (LPNs 15..18) on way 5 mod 4 = 1.
        let plane = rig.place(&mut RaidLayoutPolicy, 15, Role::Data);
        assert_eq!(rig.chip_of(plane), rig.chip(rig.channel_of(15), 1));
    }

    #[test]
    fn cr5m_static_ways_skip_the_mirror_way_and_mirror_copies_take_it() {
        // 4 channels of 5 ways: ways 0-3 hold data and parity, way 4 is the mirror chip.
        let rig = Rig::new(4, 5, true, ChipChoice::Static);
        let mut p = RaidLayoutPolicy;
        for lpn in 0..60 {
            let ch = rig.channel_of(lpn);
            let row = lpn / 3;
            let data = rig.chip_of(rig.place(&mut p, lpn, Role::Data));
            assert_eq!(data, rig.chip(ch, (row % 4) as u32), "lpn {lpn}");
            let copy = rig.chip_of(rig.place(&mut p, lpn, Role::Mirror));
            assert_eq!(
                copy,
                rig.chip(ch, 4),
                "lpn {lpn}: its channel's mirror chip"
            );
        }
    }
}
