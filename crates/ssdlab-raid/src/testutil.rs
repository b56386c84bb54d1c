//! Tiny layouts for unit tests.

use crate::config::{Layout, RaidConfig};
use crate::layout::RaidLayout;
use crate::level::RaidLevel;

/// The layout of `level` with `layout` groups of `group_size` over `members` members.
pub(crate) fn layout(
    level: RaidLevel,
    layout: Layout,
    members: u32,
    group_size: u32,
) -> RaidLayout {
    let cfg = RaidConfig {
        level,
        layout,
        group_size,
        ..RaidConfig::default()
    };
    RaidLayout::new(&cfg, members).expect("valid test layout")
}
