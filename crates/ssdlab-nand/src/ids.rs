//! Typed identifiers. Each is a `u32` index in its global numbering (see the crate docs).

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as `usize`, for indexing flat tables.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A channel (bus) index.
    ChannelId
);
id_type!(
    /// A chip, numbered in stripe order: `way × channels + channel`.
    ChipId
);
id_type!(
    /// A die, numbered `chip × dies_per_chip + die_in_chip`.
    DieId
);
id_type!(
    /// A plane, numbered `die × planes_per_die + plane_in_die`.
    PlaneId
);
id_type!(
    /// A block, numbered `plane × blocks_per_plane + block_in_plane`.
    BlockId
);
id_type!(
    /// A physical page number: `block × pages_per_block + page_in_block`.
    Ppn
);
id_type!(
    /// A logical page number (host address divided by the page size).
    Lpn
);

/// A physical page number decomposed into its hardware coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhysAddr {
    /// The channel the chip hangs on.
    pub channel: ChannelId,
    /// The global chip index.
    pub chip: ChipId,
    /// The global die index.
    pub die: DieId,
    /// The global plane index.
    pub plane: PlaneId,
    /// The global block index.
    pub block: BlockId,
    /// The page offset inside its block.
    pub page_in_block: u32,
}
