//! Per-block metadata of the block manager ([`crate::block`]): the life-cycle state and
//! the 32-byte record every block keeps.

use crate::block::NONE;

/// Where a block is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    /// Erased, in the plane's free pool.
    Free = 0,
    /// The plane's host write frontier.
    HostOpen = 1,
    /// The plane's GC write frontier (destination of page moves).
    GcOpen = 2,
    /// Every page allocated; a victim candidate.
    Full = 3,
    /// Chosen as GC victim; waiting for its pages to move and its erase.
    UnderGc = 4,
    /// The plane's SLC-cache frontier: written in SLC mode, one page per wordline.
    SlcOpen = 5,
    /// An SLC-mode block with every SLC page allocated, waiting to be folded (never a
    /// GC candidate: folding takes it).
    SlcFull = 6,
    /// Retired as a grown bad block (crate::retire): in no pool, never allocated,
    /// chosen as a victim or counted by wear leveling again.
    Retired = 7,
}

impl BlockState {
    const ALL: [BlockState; 8] = [
        BlockState::Free,
        BlockState::HostOpen,
        BlockState::GcOpen,
        BlockState::Full,
        BlockState::UnderGc,
        BlockState::SlcOpen,
        BlockState::SlcFull,
        BlockState::Retired,
    ];
}

/// The flag of [`BlockMeta::doomed`] in its state byte.
const DOOMED: u64 = 0x80;

/// Metadata of one block: 32 bytes, two to a cache line. Page counts are 16-bit (a
/// block holds at most [`ssdlab_nand::MAX_PAGES_PER_BLOCK`] pages); the write stamp and
/// the state share a word.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockMeta {
    /// `stamp << 8 | doomed << 7 | state`: the stamp of the last page allocated in the
    /// block (the cost-benefit age; the FTL's page-allocation clock, far below 2^56),
    /// whether its next erase retires it ([`DOOMED`]), and the [`BlockState`].
    stamp_state: u64,
    /// Erases so far.
    pub erase_count: u32,
    /// Outstanding reads on its pages.
    pub pins: u32,
    /// Bucket list links (meaningful while `Full`).
    pub prev: u32,
    pub next: u32,
    /// Pages holding data of an LPN (mapped, or a GC copy in flight).
    pub valid: u16,
    /// Pages allocated since the last erase; the next page to allocate.
    pub write_ptr: u16,
    /// Outstanding programs into it.
    pub pending: u16,
    /// GC moves out of it begun and not yet finished.
    pub moving_out: u16,
}

impl BlockMeta {
    /// A free, never erased block, in no bucket.
    pub const FRESH: BlockMeta = BlockMeta {
        stamp_state: BlockState::Free as u64,
        erase_count: 0,
        pins: 0,
        prev: NONE,
        next: NONE,
        valid: 0,
        write_ptr: 0,
        pending: 0,
        moving_out: 0,
    };

    /// Where the block is in its life cycle.
    #[inline]
    pub fn state(&self) -> BlockState {
        BlockState::ALL[(self.stamp_state & 0x7f) as usize]
    }

    #[inline]
    pub fn set_state(&mut self, state: BlockState) {
        self.stamp_state = self.stamp_state & !0x7f | state as u64;
    }

    /// The block's next erase retires it (a program or erase on it failed).
    #[inline]
    pub fn doomed(&self) -> bool {
        self.stamp_state & DOOMED != 0
    }

    /// Marks the block to be retired at its next erase.
    pub fn doom(&mut self) {
        self.stamp_state |= DOOMED;
    }

    /// Keeps the block in service after all.
    pub fn undoom(&mut self) {
        self.stamp_state &= !DOOMED;
    }

    /// The stamp of the last page allocated in the block.
    #[inline]
    pub fn last_write(&self) -> u64 {
        self.stamp_state >> 8
    }

    #[inline]
    pub fn set_last_write(&mut self, stamp: u64) {
        debug_assert!(stamp < 1 << 56, "write stamp {stamp} out of range");
        self.stamp_state = stamp << 8 | self.stamp_state & 0xff;
    }
}

impl std::fmt::Debug for BlockMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockMeta")
            .field("state", &self.state())
            .field("last_write", &self.last_write())
            .field("valid", &self.valid)
            .field("write_ptr", &self.write_ptr)
            .field("erase_count", &self.erase_count)
            .field("pins", &self.pins)
            .field("pending", &self.pending)
            .field("moving_out", &self.moving_out)
            .field("prev", &self.prev)
            .field("next", &self.next)
            .finish()
    }
}
