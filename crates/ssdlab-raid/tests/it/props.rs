//! Properties of the layout arithmetic over random valid configurations.

use proptest::prelude::*;
use ssdlab_raid::{Layout, RaidConfig, RaidLayout, RaidLevel};

/// A random valid (level, layout, members, group size) and a row to look at.
fn arb_layout() -> impl Strategy<Value = (RaidLayout, u64)> {
    let level = prop_oneof![
        Just(RaidLevel::None),
        Just(RaidLevel::Raid0),
        Just(RaidLevel::Raid1),
        Just(RaidLevel::Raid4),
        Just(RaidLevel::Raid5),
    ];
    let layout = prop_oneof![Just(Layout::Adjacent), Just(Layout::Lci)];
    (level, layout, 1u32..=8, 1u32..=7, 0u64..100_000).prop_map(|(level, layout, g, m, row)| {
        let group_size = match level {
            RaidLevel::Raid1 => 2 * g,
            RaidLevel::Raid4 | RaidLevel::Raid5 => g + 1,
            RaidLevel::None | RaidLevel::Raid0 => g,
        };
        let cfg = RaidConfig {
            level,
            layout,
            group_size,
            ..RaidConfig::default()
        };
        let members = group_size * m;
        assert!(
            cfg.validate(members).is_empty(),
            "{:?}",
            cfg.validate(members)
        );
        (RaidLayout::new(&cfg, members).unwrap(), row)
    })
}

/// The LPNs of row `row`.
fn row_lpns(l: &RaidLayout, row: u64) -> std::ops::Range<u64> {
    let dr = u64::from(l.data_per_row());
    row * dr..(row + 1) * dr
}

proptest! {
    #[test]
    fn locate_is_a_bijection_onto_the_rows_data_positions((l, row) in arb_layout()) {
        let mut seen = vec![false; l.members() as usize];
        for x in row_lpns(&l, row) {
            let c = l.locate(x);
            prop_assert_eq!(c.row, row);
            prop_assert_eq!(l.members_of(c.group)[c.pos as usize], c.member);
            prop_assert_eq!(l.group_of(c.member), c.group);
            prop_assert_eq!(l.pos_in_group(c.member), c.pos);
            prop_assert_eq!(l.lpn_at(c.row, c.group, c.pos), Some(x));
            prop_assert!(!seen[c.member as usize], "member {} twice", c.member);
            seen[c.member as usize] = true;
        }
        // Every data position of the row is hit: exactly DR positions hold data.
        let data_positions = (0..l.groups())
            .flat_map(|g| (0..l.group_size()).map(move |p| (g, p)))
            .filter(|&(g, p)| l.lpn_at(row, g, p).is_some())
            .count();
        prop_assert_eq!(data_positions, l.data_per_row() as usize);
        prop_assert_eq!(seen.iter().filter(|&&s| s).count(), data_positions);
    }

    #[test]
    fn consecutive_lpns_fill_data_members_in_stripe_order((l, row) in arb_layout()) {
        let members: Vec<u32> = row_lpns(&l, row).map(|x| l.locate(x).member).collect();
        prop_assert!(members.windows(2).all(|w| w[0] < w[1]), "{:?}", members);
        let next = l.locate(row_lpns(&l, row).end);
        prop_assert_eq!(next.row, row + 1);
    }

    #[test]
    fn redundancy_positions_never_hold_data((l, row) in arb_layout()) {
        for g in 0..l.groups() {
            if let Some(p) = l.parity(row, g) {
                prop_assert_eq!(l.lpn_at(row, g, p.pos), None);
                prop_assert_eq!(l.members_of(g)[p.pos as usize], p.member);
            }
        }
        for x in row_lpns(&l, row) {
            if let Some(m) = l.mirror(x) {
                let data = l.locate(x);
                prop_assert_eq!(l.lpn_at(row, m.group, m.pos), None);
                prop_assert_eq!(m.group, data.group);
                prop_assert_eq!(m.pos, data.pos + l.group_size() / 2);
                prop_assert_eq!(l.members_of(m.group)[m.pos as usize], m.member);
            }
        }
        let has_redundancy = l.level().is_redundant();
        prop_assert_eq!(l.mirror(row).is_some(), l.level() == RaidLevel::Raid1);
        prop_assert_eq!(l.parity(row, 0).is_some(), l.level().has_parity());
        prop_assert_eq!(l.redundancy_per_row() > 0, has_redundancy);
    }

    #[test]
    fn each_stripe_covers_its_group_exactly_once((l, row) in arb_layout()) {
        let mut lpns = Vec::new();
        for g in 0..l.groups() {
            l.stripe_lpns(row, g, &mut lpns);
            prop_assert_eq!(lpns.len(), l.data_per_stripe() as usize);
            let mut covered: Vec<u32> = lpns.iter().map(|&x| l.locate(x).member).collect();
            covered.extend(l.parity(row, g).map(|p| p.member));
            covered.extend(lpns.iter().filter_map(|&x| l.mirror(x)).map(|m| m.member));
            covered.sort_unstable();
            let mut want = l.members_of(g).to_vec();
            want.sort_unstable();
            prop_assert_eq!(covered, want);
            // Group-position order.
            let pos: Vec<u32> = lpns.iter().map(|&x| l.locate(x).pos).collect();
            prop_assert!(pos.windows(2).all(|w| w[0] < w[1]));
            prop_assert_eq!(l.parity_index(row, g), row * u64::from(l.groups()) + u64::from(g));
        }
    }

    #[test]
    fn groups_partition_the_members((l, _row) in arb_layout()) {
        let mut all: Vec<u32> = (0..l.groups()).flat_map(|g| l.members_of(g).to_vec()).collect();
        all.sort_unstable();
        prop_assert_eq!(all, (0..l.members()).collect::<Vec<_>>());
        if l.layout() == Layout::Lci && l.groups() > 1 {
            for u in 1..l.members() {
                prop_assert_ne!(l.group_of(u - 1), l.group_of(u), "members {} and {}", u - 1, u);
            }
        }
    }

    #[test]
    fn raid5_parity_rotates_over_every_member((l, row) in arb_layout()) {
        if l.level() == RaidLevel::Raid5 {
            let g = u64::from(l.group_size());
            for group in 0..l.groups() {
                let mut got: Vec<u32> =
                    (row..row + g).map(|r| l.parity(r, group).unwrap().member).collect();
                got.sort_unstable();
                let mut want = l.members_of(group).to_vec();
                want.sort_unstable();
                prop_assert_eq!(got, want);
            }
        }
    }
}
