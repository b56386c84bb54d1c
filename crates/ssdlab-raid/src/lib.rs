//! RAID inside the SSD, without time: what the `[raid]` config says, where every chunk
//! lives, and which failures to inject. The event-driven engine (crate `ssdlab`) builds
//! writes, reads, parity updates and rebuilds on top of it.
//!
//! ```text
//!  host LPN ─► RaidLayout::locate ─► Chunk { row, group, pos, member }
//!                 │                        │
//!                 │                        ├─► member = chip (chip domain)
//!                 │                        └─► member = channel; chip = static_way(row) or
//!                 │                            SDA's next available chip (channel domain, CR5)
//!                 ├─► parity(row, group) / parity_index ─► parity page (RAID-4/5)
//!                 ├─► mirror(lpn) ─────────────────────► mirror page (RAID-1)
//!                 └─► stripe_lpns(row, group) ─────────► the stripe's other data pages
//! ```
//!
//! Principal types:
//!
//! * [`RaidConfig`] (with [`RaidLevel`], [`Domain`], [`Layout`], [`UpdateRule`],
//!   [`ChipChoice`]): the `[raid]` config section; [`RaidConfigError`] names the offending
//!   key.
//! * [`RaidLayout`] and [`Chunk`]: the layout arithmetic (rows, parity groups, members,
//!   rotating parity, adjacent and LCI groups, RAID 0/1/4/5), O(1) per call and
//!   allocation-free; [`RaidLayout::table`] prints it.
//! * [`FailSpec`] ([`FailTarget`], [`FailAt`], [`FailSpecError`]): `chip:3@150ms`-style
//!   failure injection specs.
//!
//! `docs/RAID.md` gives the formulas, worked examples and how they relate to BRR (LCI
//! layout) and CR5M (channel RAID, semi-dynamic allocation).
#![warn(missing_docs)]

mod config;
mod error;
mod fail;
mod layout;
mod level;
mod table;
#[cfg(test)]
mod testutil;

pub use config::{
    ChipChoice, Domain, Layout, MirrorAvail, MirrorChannel, MirrorIdle, MirrorReadChoice,
    RaidConfig, SdaStart, UnwrittenStripes, UpdateRule,
};
pub use error::RaidConfigError;
pub use fail::{FailAt, FailSpec, FailSpecError, FailSpecErrorKind, FailTarget};
pub use layout::{Chunk, RaidLayout};
pub use level::RaidLevel;
