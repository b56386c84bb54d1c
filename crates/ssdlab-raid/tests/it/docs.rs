//! The layout tables in `docs/RAID.md` are the output of [`RaidLayout::table`].

use ssdlab_raid::{Domain, Layout, RaidConfig, RaidLayout, RaidLevel};

/// The tables the document shows: (level, domain, layout, members, group size, rows).
const TABLES: [(RaidLevel, Domain, Layout, u32, u32, u64); 6] = [
    (RaidLevel::Raid5, Domain::Chip, Layout::Lci, 9, 3, 6),
    (RaidLevel::Raid5, Domain::Chip, Layout::Adjacent, 9, 3, 6),
    (RaidLevel::Raid4, Domain::Chip, Layout::Adjacent, 8, 4, 3),
    (RaidLevel::Raid1, Domain::Chip, Layout::Adjacent, 8, 4, 2),
    (RaidLevel::Raid1, Domain::Chip, Layout::Lci, 8, 4, 2),
    (RaidLevel::Raid5, Domain::Channel, Layout::Adjacent, 4, 4, 5),
];

#[test]
fn docs_show_current_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/RAID.md");
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    let mut missing = String::new();
    for (level, domain, layout, members, group_size, rows) in TABLES {
        let cfg = RaidConfig {
            level,
            domain,
            layout,
            group_size,
            ..RaidConfig::default()
        };
        let table = RaidLayout::new(&cfg, members).unwrap().table(rows);
        if !doc.contains(&table) {
            missing.push_str(&format!(
                "--- {level} {domain} {layout:?} M={members} G={group_size}, {rows} rows:\n{table}"
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/RAID.md lacks these tables:\n{missing}"
    );
}
