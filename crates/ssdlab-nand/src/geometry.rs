//! Flash geometry and address arithmetic.

use crate::ids::{BlockId, ChannelId, ChipId, DieId, PhysAddr, PlaneId, Ppn};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A geometry value that cannot describe a real device. `key` names the config key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A count that must be at least one is zero.
    #[error("geometry.{key} must be at least 1, found 0")]
    Zero {
        /// The offending key.
        key: &'static str,
    },
    /// The page size is not a power of two of at least 512 bytes.
    #[error("geometry.page_size_bytes must be a power of two >= 512, found {value}")]
    PageSize {
        /// The offending value.
        value: u32,
    },
    /// A block has more pages than the FTL's 16-bit page counts hold.
    #[error("geometry.pages_per_block is {value}; at most {max} are supported")]
    BlockTooLarge {
        /// The offending value.
        value: u32,
        /// The supported maximum.
        max: u32,
    },
    /// The device has more pages than 32-bit page numbers can address.
    #[error("geometry has {pages} physical pages; at most {max} are supported (reduce geometry.blocks_per_plane or geometry.pages_per_block)")]
    TooLarge {
        /// Total physical pages.
        pages: u64,
        /// The supported maximum.
        max: u64,
    },
}

/// The shape of the flash array.
///
/// `chips_per_channel` chips hang on each of `channels` buses; each chip has
/// `dies_per_chip` dies that work in parallel but share the chip's bus; each die has
/// `planes_per_die` planes that can work together in multi-plane operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Geometry {
    /// Number of channels (independent buses).
    #[schemars(range(min = 1))]
    pub channels: u32,
    /// Chips (packages, "ways") on each channel.
    #[schemars(range(min = 1))]
    pub chips_per_channel: u32,
    /// Dies in each chip.
    #[schemars(range(min = 1))]
    pub dies_per_chip: u32,
    /// Planes in each die.
    #[schemars(range(min = 1))]
    pub planes_per_die: u32,
    /// Blocks in each plane.
    #[schemars(range(min = 1))]
    pub blocks_per_plane: u32,
    /// Pages in each block.
    #[schemars(range(min = 1, max = MAX_PAGES_PER_BLOCK))]
    pub pages_per_block: u32,
    /// Bytes in each page.
    #[schemars(range(min = 512), extend("x-constraint" = "a power of two"))]
    pub page_size_bytes: u32,
}

impl Default for Geometry {
    /// A small but realistic 8-channel device: 8 × 4 chips, 2 dies, 2 planes,
    /// 512 blocks of 128 pages of 4 KiB (32 GiB raw).
    fn default() -> Self {
        Geometry {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 512,
            pages_per_block: 128,
            page_size_bytes: 4096,
        }
    }
}

/// The largest number of physical pages (`Ppn` is a `u32`; `u32::MAX` is a sentinel).
pub const MAX_PAGES: u64 = u32::MAX as u64 - 1;

/// The most pages a block may hold: the FTL counts a block's pages in 16 bits (real NAND
/// blocks hold a few hundred to a few thousand).
pub const MAX_PAGES_PER_BLOCK: u32 = u16::MAX as u32;

impl Geometry {
    /// Checks every field; returns all problems, each naming its key.
    pub fn validate(&self) -> Vec<GeometryError> {
        let mut errs = Vec::new();
        let fields = [
            ("channels", self.channels),
            ("chips_per_channel", self.chips_per_channel),
            ("dies_per_chip", self.dies_per_chip),
            ("planes_per_die", self.planes_per_die),
            ("blocks_per_plane", self.blocks_per_plane),
            ("pages_per_block", self.pages_per_block),
            ("page_size_bytes", self.page_size_bytes),
        ];
        for (key, v) in fields {
            if v == 0 {
                errs.push(GeometryError::Zero { key });
            }
        }
        if self.page_size_bytes != 0
            && (!self.page_size_bytes.is_power_of_two() || self.page_size_bytes < 512)
        {
            errs.push(GeometryError::PageSize {
                value: self.page_size_bytes,
            });
        }
        if self.pages_per_block > MAX_PAGES_PER_BLOCK {
            errs.push(GeometryError::BlockTooLarge {
                value: self.pages_per_block,
                max: MAX_PAGES_PER_BLOCK,
            });
        }
        if errs.is_empty() && self.total_pages_u64() > MAX_PAGES {
            errs.push(GeometryError::TooLarge {
                pages: self.total_pages_u64(),
                max: MAX_PAGES,
            });
        }
        errs
    }

    fn total_pages_u64(&self) -> u64 {
        [
            self.channels,
            self.chips_per_channel,
            self.dies_per_chip,
            self.planes_per_die,
            self.blocks_per_plane,
            self.pages_per_block,
        ]
        .iter()
        .map(|&v| u64::from(v))
        .product()
    }

    /// Total chips.
    #[inline]
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    /// Total dies.
    #[inline]
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    /// Total planes.
    #[inline]
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    /// Total blocks.
    #[inline]
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    /// Total physical pages (fits `u32` once validated).
    #[inline]
    pub fn pages(&self) -> u32 {
        self.blocks() * self.pages_per_block
    }
    /// Raw capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        u64::from(self.pages()) * u64::from(self.page_size_bytes)
    }

    /// The channel a chip hangs on (stripe order: channel first).
    #[inline]
    pub fn channel_of_chip(&self, chip: ChipId) -> ChannelId {
        ChannelId(chip.0 % self.channels)
    }
    /// The chip's position on its channel ("way").
    #[inline]
    pub fn way_of_chip(&self, chip: ChipId) -> u32 {
        chip.0 / self.channels
    }
    /// The chip at `way` on `channel`.
    #[inline]
    pub fn chip_at(&self, channel: ChannelId, way: u32) -> ChipId {
        ChipId(way * self.channels + channel.0)
    }
    /// The chip a die belongs to.
    #[inline]
    pub fn chip_of_die(&self, die: DieId) -> ChipId {
        ChipId(die.0 / self.dies_per_chip)
    }
    /// The `n`-th die of `chip`.
    #[inline]
    pub fn die_of_chip(&self, chip: ChipId, n: u32) -> DieId {
        DieId(chip.0 * self.dies_per_chip + n)
    }
    /// The planes of `chip`, die by die (they are numbered consecutively).
    #[inline]
    pub fn planes_of_chip(&self, chip: ChipId) -> impl Iterator<Item = PlaneId> {
        let per_chip = self.dies_per_chip * self.planes_per_die;
        (chip.0 * per_chip..(chip.0 + 1) * per_chip).map(PlaneId)
    }
    /// The die a plane belongs to.
    #[inline]
    pub fn die_of_plane(&self, plane: PlaneId) -> DieId {
        DieId(plane.0 / self.planes_per_die)
    }
    /// The `n`-th plane of `die`.
    #[inline]
    pub fn plane_of_die(&self, die: DieId, n: u32) -> PlaneId {
        PlaneId(die.0 * self.planes_per_die + n)
    }
    /// The plane a block belongs to.
    #[inline]
    pub fn plane_of_block(&self, block: BlockId) -> PlaneId {
        PlaneId(block.0 / self.blocks_per_plane)
    }
    /// The `n`-th block of `plane`.
    #[inline]
    pub fn block_of_plane(&self, plane: PlaneId, n: u32) -> BlockId {
        BlockId(plane.0 * self.blocks_per_plane + n)
    }
    /// The block a page belongs to.
    #[inline]
    pub fn block_of_page(&self, ppn: Ppn) -> BlockId {
        BlockId(ppn.0 / self.pages_per_block)
    }
    /// The `n`-th page of `block`.
    #[inline]
    pub fn page_of_block(&self, block: BlockId, n: u32) -> Ppn {
        Ppn(block.0 * self.pages_per_block + n)
    }
    /// The page offset inside its block.
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        ppn.0 % self.pages_per_block
    }
    /// The plane a page belongs to.
    #[inline]
    pub fn plane_of_page(&self, ppn: Ppn) -> PlaneId {
        self.plane_of_block(self.block_of_page(ppn))
    }
    /// The die a page belongs to.
    #[inline]
    pub fn die_of_page(&self, ppn: Ppn) -> DieId {
        self.die_of_plane(self.plane_of_page(ppn))
    }
    /// The chip a page belongs to.
    #[inline]
    pub fn chip_of_page(&self, ppn: Ppn) -> ChipId {
        self.chip_of_die(self.die_of_page(ppn))
    }

    /// Decomposes a physical page number into its coordinates.
    pub fn decompose(&self, ppn: Ppn) -> PhysAddr {
        let block = self.block_of_page(ppn);
        let plane = self.plane_of_block(block);
        let die = self.die_of_plane(plane);
        let chip = self.chip_of_die(die);
        PhysAddr {
            channel: self.channel_of_chip(chip),
            chip,
            die,
            plane,
            block,
            page_in_block: self.page_in_block(ppn),
        }
    }

    /// Bus time in nanoseconds to move `bytes` at `ps_per_byte` picoseconds a byte.
    #[inline]
    pub fn transfer_ns(bytes: u64, ps_per_byte: u64) -> u64 {
        (bytes * ps_per_byte).div_ceil(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tiny() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 3,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 4,
            pages_per_block: 8,
            page_size_bytes: 4096,
        }
    }

    #[test]
    fn counts_multiply() {
        let g = tiny();
        assert_eq!(g.chips(), 6);
        assert_eq!(g.dies(), 12);
        assert_eq!(g.planes(), 24);
        assert_eq!(g.blocks(), 96);
        assert_eq!(g.pages(), 768);
        assert!(g.validate().is_empty());
    }

    #[test]
    fn chips_are_in_stripe_order() {
        let g = tiny();
        assert_eq!(g.channel_of_chip(ChipId(0)), ChannelId(0));
        assert_eq!(g.channel_of_chip(ChipId(1)), ChannelId(1));
        assert_eq!(g.channel_of_chip(ChipId(2)), ChannelId(0));
        assert_eq!(g.way_of_chip(ChipId(5)), 2);
        assert_eq!(g.chip_at(ChannelId(1), 2), ChipId(5));
    }

    #[test]
    fn planes_of_chip_are_its_dies_planes_in_order() {
        let g = tiny();
        for c in 0..g.chips() {
            let chip = ChipId(c);
            let nested: Vec<PlaneId> = (0..g.dies_per_chip)
                .flat_map(|d| (0..g.planes_per_die).map(move |p| (d, p)))
                .map(|(d, p)| g.plane_of_die(g.die_of_chip(chip, d), p))
                .collect();
            let planes: Vec<PlaneId> = g.planes_of_chip(chip).collect();
            assert_eq!(planes, nested, "chip {c}");
            assert!(planes
                .iter()
                .all(|&p| g.chip_of_die(g.die_of_plane(p)) == chip));
        }
    }

    #[test]
    fn validation_names_keys() {
        let g = Geometry {
            pages_per_block: 0,
            page_size_bytes: 1000,
            ..tiny()
        };
        let errs = g.validate();
        assert!(errs.contains(&GeometryError::Zero {
            key: "pages_per_block"
        }));
        assert!(errs.contains(&GeometryError::PageSize { value: 1000 }));
        assert!(errs[0].to_string().contains("geometry.pages_per_block"));
        let huge = Geometry {
            blocks_per_plane: 1 << 20,
            pages_per_block: 1 << 12,
            ..tiny()
        };
        assert!(matches!(huge.validate()[0], GeometryError::TooLarge { .. }));
        let tall = Geometry {
            blocks_per_plane: 1,
            pages_per_block: MAX_PAGES_PER_BLOCK + 1,
            ..tiny()
        };
        assert_eq!(
            tall.validate(),
            [GeometryError::BlockTooLarge {
                value: 65_536,
                max: 65_535
            }]
        );
        assert!(tall.validate()[0]
            .to_string()
            .contains("geometry.pages_per_block"));
        let most = Geometry {
            pages_per_block: MAX_PAGES_PER_BLOCK,
            ..tall
        };
        assert!(most.validate().is_empty());
    }

    #[test]
    fn transfer_rounds_up() {
        assert_eq!(Geometry::transfer_ns(4096, 2_500), 10_240);
        assert_eq!(Geometry::transfer_ns(3, 333), 1);
    }

    proptest! {
        #[test]
        fn decompose_round_trips(ppn in 0u32..768) {
            let g = tiny();
            let a = g.decompose(Ppn(ppn));
            prop_assert_eq!(g.page_of_block(a.block, a.page_in_block), Ppn(ppn));
            prop_assert_eq!(g.plane_of_block(a.block), a.plane);
            prop_assert_eq!(g.die_of_plane(a.plane), a.die);
            prop_assert_eq!(g.chip_of_die(a.die), a.chip);
            prop_assert_eq!(g.channel_of_chip(a.chip), a.channel);
            prop_assert!(a.chip.0 < g.chips());
        }
    }
}
