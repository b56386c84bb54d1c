//! What a flash transaction does, and why it exists.

use serde::{Deserialize, Serialize};

/// The array operation of a flash transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlashOp {
    /// Page read: array → register, then register → controller over the bus.
    Read,
    /// Page program: controller → register over the bus, then register → array.
    Program,
    /// Block erase: array only.
    Erase,
}

/// Why a transaction exists, so that statistics can attribute time and traffic.
///
/// Host work and the work that designs add on its behalf are kept apart: RAID
/// pre-reads and parity programs, mirror programs, GC page moves and erases,
/// redirected (reconstructing) reads, rebuild traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TxnReason {
    /// A host read of its own page.
    HostRead,
    /// A host write of its own page.
    HostWrite,
    /// A read of a parity-group member to rebuild another member's page (redirected or degraded read).
    ReconstructRead,
    /// A read of old data or parity before a parity update (RMW/RCW).
    PreRead,
    /// A parity page program.
    ParityWrite,
    /// A mirror-copy program (RAID-1, CR5M).
    MirrorWrite,
    /// A GC read of a valid page about to move.
    GcRead,
    /// A GC program of a moved page.
    GcWrite,
    /// A GC block erase.
    GcErase,
    /// A read of a valid page of an SLC-mode block being folded.
    FoldRead,
    /// The native-mode program of a folded page.
    FoldWrite,
    /// The erase of a folded SLC-mode block.
    FoldErase,
    /// A read of a valid page of a block relocated because its reads needed many
    /// read-retry steps (read reclaim, the error model: docs/ERRORS.md).
    RefreshRead,
    /// The program of a relocated page, in a fresh block.
    RefreshWrite,
    /// The erase of a relocated block.
    RefreshErase,
    /// A read of a valid page of a block being retired after a failed program (a grown
    /// bad block, the error model: docs/ERRORS.md).
    RetireRead,
    /// The program of a page moved out of a block being retired.
    RetireWrite,
    /// The erase of a block being retired (after which it leaves service).
    RetireErase,
    /// Rebuild traffic after a failure.
    Rebuild,
    /// A read of a stripe's pages by a CR5M expired-data reclaim that no host write
    /// started (mirror chip short of space, a plane short of space, a mirror chip lost).
    ReclaimRead,
    /// The parity program of such a reclaim.
    ReclaimWrite,
    /// A read of the flash copy of a page that a write covers only in part, merged with
    /// the write before its program (`timing.transfer = "sectors"`).
    MergeRead,
    /// A read of a translation page of the cached map (`ftl.mapping = "cached"`): for a
    /// host read whose entry missed in the CMT, or before a rewrite of a page not wholly
    /// cached.
    MapRead,
    /// A translation-page program of the cached map (dirty entries written back).
    MapWrite,
}

impl TxnReason {
    /// Every reason, in reporting order.
    pub const ALL: [TxnReason; 24] = [
        TxnReason::HostRead,
        TxnReason::HostWrite,
        TxnReason::ReconstructRead,
        TxnReason::PreRead,
        TxnReason::ParityWrite,
        TxnReason::MirrorWrite,
        TxnReason::GcRead,
        TxnReason::GcWrite,
        TxnReason::GcErase,
        TxnReason::FoldRead,
        TxnReason::FoldWrite,
        TxnReason::FoldErase,
        TxnReason::RefreshRead,
        TxnReason::RefreshWrite,
        TxnReason::RefreshErase,
        TxnReason::RetireRead,
        TxnReason::RetireWrite,
        TxnReason::RetireErase,
        TxnReason::Rebuild,
        TxnReason::ReclaimRead,
        TxnReason::ReclaimWrite,
        TxnReason::MergeRead,
        TxnReason::MapRead,
        TxnReason::MapWrite,
    ];

    /// Position in [`TxnReason::ALL`], for flat counters.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The stable kebab-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            TxnReason::HostRead => "host-read",
            TxnReason::HostWrite => "host-write",
            TxnReason::ReconstructRead => "reconstruct-read",
            TxnReason::PreRead => "pre-read",
            TxnReason::ParityWrite => "parity-write",
            TxnReason::MirrorWrite => "mirror-write",
            TxnReason::GcRead => "gc-read",
            TxnReason::GcWrite => "gc-write",
            TxnReason::GcErase => "gc-erase",
            TxnReason::Rebuild => "rebuild",
            TxnReason::ReclaimRead => "reclaim-read",
            TxnReason::ReclaimWrite => "reclaim-write",
            TxnReason::MergeRead => "merge-read",
            TxnReason::MapRead => "map-read",
            TxnReason::MapWrite => "map-write",
            TxnReason::FoldRead => "fold-read",
            TxnReason::FoldWrite => "fold-write",
            TxnReason::FoldErase => "fold-erase",
            TxnReason::RefreshRead => "refresh-read",
            TxnReason::RefreshWrite => "refresh-write",
            TxnReason::RefreshErase => "refresh-erase",
            TxnReason::RetireRead => "retire-read",
            TxnReason::RetireWrite => "retire-write",
            TxnReason::RetireErase => "retire-erase",
        }
    }

    /// True for the collector's traffic: GC, folding of SLC-mode blocks, relocation for
    /// bit errors and the retirement of grown bad blocks (adjacent in the enum, so that
    /// this is one range test).
    #[inline]
    pub fn is_gc(self) -> bool {
        (TxnReason::GcRead as u8..=TxnReason::RetireErase as u8).contains(&(self as u8))
    }

    /// The page read, program and erase reasons of a relocation for bit errors.
    pub const REFRESH: [TxnReason; 3] = [
        TxnReason::RefreshRead,
        TxnReason::RefreshWrite,
        TxnReason::RefreshErase,
    ];

    /// The page read, program and erase reasons of a grown bad block's retirement.
    pub const RETIRE: [TxnReason; 3] = [
        TxnReason::RetireRead,
        TxnReason::RetireWrite,
        TxnReason::RetireErase,
    ];

    /// The reasons of the collector job whose page read is `read` (a GC, fold,
    /// refresh or retire read).
    #[inline]
    pub fn collector_of(read: TxnReason) -> [TxnReason; 3] {
        match read {
            TxnReason::RefreshRead => TxnReason::REFRESH,
            TxnReason::RetireRead => TxnReason::RETIRE,
            r => TxnReason::collector(r == TxnReason::FoldRead),
        }
    }

    /// The collector's page read, program and erase reasons: GC's, or folding's.
    #[inline]
    pub fn collector(fold: bool) -> [TxnReason; 3] {
        if fold {
            [
                TxnReason::FoldRead,
                TxnReason::FoldWrite,
                TxnReason::FoldErase,
            ]
        } else {
            [TxnReason::GcRead, TxnReason::GcWrite, TxnReason::GcErase]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_in_index_order() {
        for (i, r) in TxnReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i, "{}", r.name());
        }
    }
}
