//! Page-mapped flash translation layer of ssdlab, as pure data structures: no time, no
//! events. The controller (crate `ssdlab`) creates the flash transactions and calls the
//! [`Ftl`] when they are issued and when they complete.
//!
//! ```text
//!  host write ─► Controller ─ placement (static: AllocOrder / dynamic) ─► Ftl::host_write ─► PPN
//!                    │                                                     (program txn)
//!                    │ program done ───────────────────────────────────► Ftl::program_done
//!  host read ──► Controller ─► Ftl::lookup ─► PPN ─ Ftl::pin ─ (read txn) ─ Ftl::unpin
//!                    │
//!                    └ per plane: gc_needed ─► select_victim ─► victim_valid_pages
//!                         ─► gc_begin_move ─ (GC read + program) ─► gc_finish_move
//!                         ─► erasable ─ (erase txn) ─► erase_done
//! ```
//!
//! Principal types:
//!
//! * [`Ftl`]: the forward map (LPN → PPN), the reverse map and content tokens per
//!   physical page, the block manager (free pools, frontiers, valid counts, erase counts)
//!   and GC bookkeeping. [`Ftl::check_invariants`] checks all of it.
//! * [`FtlConfig`] (with [`GcConfig`], [`WearLevelingConfig`], [`PreconditionConfig`],
//!   [`HipaConfig`]):
//!   the `[ftl]` config section; [`FtlConfigError`] names the offending key.
//! * [`AllocOrder`] / [`StripeMap`]: static allocation orders (`cwdp`, `pdcw`, …).
//! * The content index ([`Ftl::enable_content_index`], [`ContentIndexConfig`]): DS-FTL's
//!   1-to-n map from a content token to every valid page holding it, with a fingerprint
//!   table (exact or a Bloom filter) per channel or chip; and the per-plane
//!   duplicate-content rate ([`Ftl::plane_duplicate_rates`]).
//! * [`FillPattern`]: the preconditioning fill's layout as a formula, which
//!   [`Ftl::precondition`] lays out without writing page by page where that is exact (the
//!   implicit fill: untouched pages cost no table entry); [`Ftl::diff_state`] compares two
//!   FTLs field by field.
//! * [`FtlCounters`], [`EraseSummary`], [`PlaneSummary`], [`PreconditionReport`]: what it
//!   reports.
//!
//! `docs/FTL.md` explains the data layout, the page state machine and the GC protocol.
#![warn(missing_docs)]

mod aging;
mod block;
mod bloom;
mod cmt;
mod cmt_config;
mod cmt_share;
mod collect;
mod config;
mod content;
mod diff;
mod error;
mod fill;
mod frozen;
mod ftl;
mod gc;
mod handles;
mod invariants;
mod mapping;
mod meta;
mod order;
mod precondition;
pub mod prefetch;
mod retire;
mod room;
mod similarity;
mod slc;
mod stats;
#[cfg(test)]
mod testutil;
mod wear;

pub use block::BlockState;
pub use bloom::{expected_false_positive_rate, MAX_HASHES};
pub use cmt::{Cmt, CmtStats, DirtyBatch, Lookup};
pub use cmt_share::{CmtTable, TenantCmtCounts};
pub use config::{
    AddressFold, Aging, Allocation, CmtConfig, CmtSharing, DynamicPolicy, FtlConfig, GcConfig,
    GcTrigger, HipaConfig, HipaLevel, HipaLoad, HipaTrigger, MapMode, PreconditionConfig,
    VictimPolicy, Warmup, WearLevelingConfig,
};
pub use content::{
    ContentFilter, ContentIndexConfig, ContentIndexStats, ContentUnit, GroupEvent, Probe,
};
pub use error::FtlConfigError;
pub use fill::{FillContent, FillPattern};
pub use frozen::{FrozenFtl, LpnTokens, Snapshot};
pub use ftl::{Ftl, NoSpace};
pub use handles::{HandleCounters, MAX_HANDLES};
pub use mapping::{release_spare_tables, PageOwner};
pub use order::{AllocOrder, Dim, StripeMap};
pub use precondition::PreconditionReport;
pub use slc::SlcCounters;
pub use stats::{EraseSummary, FtlCounters, PlaneSummary};

use ssdlab_nand::Lpn;

/// The content token of version `version` of `lpn`'s data, for writes whose trace carries
/// no content. Never 0 (0 marks a never-written page); distinct `(lpn, version)` pairs give
/// distinct tokens except for one pair (the one whose mix is 0, remapped).
#[inline]
pub fn token_for(lpn: Lpn, version: u32) -> u64 {
    // SplitMix64 finaliser: a bijection of u64, so distinct inputs stay distinct.
    let mut z = (u64::from(lpn.0) << 32 | u64::from(version)) ^ 0x5851_f42d_4c95_7f2d;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    if z == 0 {
        0x9e37_79b9_7f4a_7c15
    } else {
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_non_zero_and_distinct() {
        let mut seen = std::collections::BTreeSet::new();
        for l in 0..64 {
            for v in 0..64 {
                let t = token_for(Lpn(l), v);
                assert_ne!(t, 0);
                assert!(seen.insert(t), "collision at ({l}, {v})");
            }
        }
        assert_eq!(token_for(Lpn(5), 7), token_for(Lpn(5), 7));
    }
}
