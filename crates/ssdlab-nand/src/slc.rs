//! The SLC cache's configuration (`[nand.slc_cache]`, docs/NAND.md): blocks of a TLC or
//! QLC part used in SLC mode, one bit per cell, written fast and folded into the
//! native mode later.
//!
//! A block in SLC mode stores one page per wordline: `pages_per_block / bits` pages,
//! addressed as the block's first pages. Host writes go there at the SLC-mode program
//! time while the region has room; folding moves the valid pages into blocks of the
//! native cell type (bits SLC pages fill one wordline) and erases the SLC block. The
//! FTL keeps the region (`ssdlab_ftl`'s `SlcCache`); the back end times SLC-mode pages.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the SLC region is sized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SlcMode {
    /// No SLC cache: every block in the native mode.
    #[default]
    Off,
    /// A fixed region: `blocks_per_plane` blocks of every plane are the region's, each
    /// holding SLC data or kept free for it (native data never takes them); the native
    /// side's capacity is the rest.
    Static,
    /// Free blocks used in SLC mode while the plane has room: at most
    /// `blocks_per_plane`, at most `free_share` of the plane's free blocks, and never
    /// taking the plane below its GC threshold. The region shrinks as the drive fills.
    Dynamic,
}

/// What a host write does when its plane's SLC region is full and folding has not yet
/// freed a block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WhenFull {
    /// Written directly to a native-mode block, at the native program time; the full
    /// region is folded in idle time (`idle_fold`), or when GC needs the space.
    #[default]
    Direct,
    /// Written directly to a native-mode block while the plane folds its oldest full
    /// SLC block at once; a block the fold frees takes later writes in SLC mode.
    DirectFold,
    /// Waits for the plane's fold, started at once, to erase an SLC block (a write waits
    /// only while a fold is pending or running in its plane; otherwise it goes direct).
    Wait,
}

/// The SLC cache section (`[nand.slc_cache]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SlcCacheConfig {
    /// Off, a static region, or a dynamic one.
    pub mode: SlcMode,
    /// Static: the region's blocks per plane. Dynamic: the most blocks a plane may hold
    /// in SLC mode.
    pub blocks_per_plane: u32,
    /// Dynamic: the largest share of a plane's free blocks (counting those in SLC
    /// mode as free) that may be in SLC mode, in (0, 1].
    pub free_share: f64,
    /// Array read time of a page in an SLC-mode block, ns; 0: `timing.t_read_ns`.
    pub t_read_ns: u64,
    /// Program time of a page in an SLC-mode block, ns; 0: `timing.t_prog_ns`.
    pub t_prog_ns: u64,
    /// Host writes when the region is full and folding lags.
    pub when_full: WhenFull,
    /// Fold a plane's full SLC blocks in idle time: when the host has had no request
    /// outstanding for `idle_after_ns` and the plane's chip has nothing queued (besides
    /// folding when the region is full and when GC needs space). An idle fold pauses
    /// while the host has requests outstanding.
    pub idle_fold: bool,
    /// How long the host must have had no request outstanding before an idle fold
    /// starts or a paused one resumes, ns (0: as soon as it has none).
    #[schemars(range(max = i64::MAX))]
    pub idle_after_ns: u64,
    /// Destination wordlines a fold keeps in flight per plane: it hands the scheduler
    /// at most this many wordlines' worth of moves at a time (bits per cell pages each
    /// with a one-shot program, one page otherwise), the next as they finish; 0: every
    /// move of the block at once, as GC does.
    pub fold_wordlines_in_flight: u32,
}

impl Default for SlcCacheConfig {
    fn default() -> Self {
        SlcCacheConfig {
            mode: SlcMode::Off,
            blocks_per_plane: 0,
            free_share: 0.5,
            t_read_ns: 0,
            t_prog_ns: 0,
            when_full: WhenFull::Direct,
            idle_fold: true,
            idle_after_ns: 0,
            fold_wordlines_in_flight: 2,
        }
    }
}

impl SlcCacheConfig {
    /// True when the cache is on.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.mode != SlcMode::Off
    }

    /// Every key at its default.
    pub fn is_default(&self) -> bool {
        *self == SlcCacheConfig::default()
    }

    /// Pages an SLC-mode block holds: one per wordline.
    pub fn pages_per_block(pages_per_block: u32, bits: u32) -> u32 {
        pages_per_block / bits.max(1)
    }

    /// The SLC-mode read time, with `t_read_ns` standing in for 0.
    pub fn read_ns(&self, t_read_ns: u64) -> u64 {
        if self.t_read_ns == 0 {
            t_read_ns
        } else {
            self.t_read_ns
        }
    }

    /// The SLC-mode program time, with `t_prog_ns` standing in for 0.
    pub fn prog_ns(&self, t_prog_ns: u64) -> u64 {
        if self.t_prog_ns == 0 {
            t_prog_ns
        } else {
            self.t_prog_ns
        }
    }

    /// Checks the section for a cell of `bits` bits and planes of `blocks_per_plane`
    /// blocks of which `kept` (the GC threshold) must stay free for the native side;
    /// returns `(key under nand.slc_cache, message)` for every problem. The capacity
    /// left to fold into is checked with the FTL's configuration.
    pub fn validate(
        &self,
        bits: u32,
        blocks_per_plane: u32,
        kept: u32,
    ) -> Vec<(&'static str, String)> {
        let mut errs = Vec::new();
        if !self.is_on() {
            if !self.is_default() {
                errs.push((
                    "mode",
                    "is \"off\" but other [nand.slc_cache] keys are set: configured but never used; set mode = \"static\" or \"dynamic\", or leave them out".into(),
                ));
            }
            return errs;
        }
        if bits < 2 {
            errs.push((
                "mode",
                "an SLC cache needs a cell of more than one bit: set nand.cell to \"mlc\", \"tlc\" or \"qlc\"".into(),
            ));
        }
        if self.blocks_per_plane == 0 {
            errs.push((
                "blocks_per_plane",
                "must be at least 1 with the cache on".into(),
            ));
        } else if self.blocks_per_plane.saturating_add(kept) >= blocks_per_plane {
            errs.push((
                "blocks_per_plane",
                format!(
                    "{} SLC blocks per plane and the {kept} the GC threshold keeps free do not fit in a plane of {blocks_per_plane} blocks: the cache is larger than the device",
                    self.blocks_per_plane
                ),
            ));
        }
        if !self.idle_fold && self.idle_after_ns > 0 {
            errs.push((
                "idle_after_ns",
                "is set but idle_fold = false: configured but never used".into(),
            ));
        }
        if !(self.free_share > 0.0 && self.free_share <= 1.0) {
            errs.push((
                "free_share",
                format!("must be in (0, 1], not {}", self.free_share),
            ));
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(mode: SlcMode, blocks: u32) -> SlcCacheConfig {
        SlcCacheConfig {
            mode,
            blocks_per_plane: blocks,
            ..SlcCacheConfig::default()
        }
    }

    #[test]
    fn off_changes_nothing_and_set_keys_while_off_are_refused() {
        let c = SlcCacheConfig::default();
        assert!(!c.is_on() && c.is_default());
        assert!(c.validate(3, 100, 5).is_empty());
        let stray = SlcCacheConfig { t_prog_ns: 1, ..c };
        assert_eq!(stray.validate(3, 100, 5)[0].0, "mode");
    }

    #[test]
    fn bad_sizes_and_cells_are_named() {
        let keys = |c: &SlcCacheConfig, bits| -> Vec<&str> {
            c.validate(bits, 100, 5).iter().map(|e| e.0).collect()
        };
        assert!(keys(&on(SlcMode::Static, 20), 3).is_empty());
        assert_eq!(keys(&on(SlcMode::Static, 20), 1), ["mode"]);
        assert_eq!(keys(&on(SlcMode::Dynamic, 0), 3), ["blocks_per_plane"]);
        assert_eq!(keys(&on(SlcMode::Static, 95), 3), ["blocks_per_plane"]);
        assert!(keys(&on(SlcMode::Static, 94), 3).is_empty());
        let unused = SlcCacheConfig {
            idle_fold: false,
            idle_after_ns: 1_000_000,
            ..on(SlcMode::Static, 20)
        };
        assert_eq!(keys(&unused, 3), ["idle_after_ns"]);
        let share = SlcCacheConfig {
            free_share: 0.0,
            ..on(SlcMode::Dynamic, 10)
        };
        assert_eq!(keys(&share, 4), ["free_share"]);
    }

    #[test]
    fn times_default_to_the_timing_section() {
        let c = on(SlcMode::Dynamic, 4);
        assert_eq!((c.read_ns(25_000), c.prog_ns(200_000)), (25_000, 200_000));
        let c = SlcCacheConfig {
            t_read_ns: 30_000,
            t_prog_ns: 160_000,
            ..c
        };
        assert_eq!((c.read_ns(25_000), c.prog_ns(200_000)), (30_000, 160_000));
        assert_eq!(SlcCacheConfig::pages_per_block(384, 3), 128);
    }
}
