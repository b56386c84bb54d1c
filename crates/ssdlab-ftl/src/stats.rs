//! What the FTL reports: event counters, erase-count summary, per-plane state.

use serde::Serialize;

/// Event counters since construction (preconditioning resets them: its work is reported
/// apart, in [`crate::PreconditionReport`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FtlCounters {
    /// Host pages allocated by [`crate::Ftl::host_write`].
    pub host_pages_written: u64,
    /// GC moves that ended with the LPN remapped to the copy.
    pub gc_pages_moved: u64,
    /// GC moves whose source was overwritten or trimmed meanwhile (the copy is invalid).
    pub gc_moves_dropped: u64,
    /// Block erases.
    pub erases: u64,
    /// Victims selected (any policy, including wear-leveling picks).
    pub gc_victims: u64,
    /// Victims chosen by static wear leveling.
    pub wl_victims: u64,
    /// Victims given back by [`crate::Ftl::gc_abandon`].
    pub gc_abandoned: u64,
    /// Host writes refused with [`crate::NoSpace`].
    pub no_space: u64,
    /// Trims (of mapped and unmapped LPNs alike).
    pub trims: u64,
}

/// Erase counts over all blocks.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EraseSummary {
    /// Fewest erases of any block.
    pub min: u32,
    /// Mean erases per block.
    pub mean: f64,
    /// Most erases of any block.
    pub max: u32,
    /// Population standard deviation.
    pub std: f64,
}

impl EraseSummary {
    /// Summarises a sequence of erase counts (all zero if it is empty).
    pub fn of(counts: impl Iterator<Item = u32> + Clone) -> EraseSummary {
        let n = counts.clone().count();
        if n == 0 {
            return EraseSummary::default();
        }
        let (mut min, mut max, mut sum) = (u32::MAX, 0, 0u64);
        for c in counts.clone() {
            min = min.min(c);
            max = max.max(c);
            sum += u64::from(c);
        }
        let mean = sum as f64 / n as f64;
        let var = counts.map(|c| (f64::from(c) - mean).powi(2)).sum::<f64>() / n as f64;
        EraseSummary {
            min,
            mean,
            max,
            std: var.sqrt(),
        }
    }
}

/// The state of one plane.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PlaneSummary {
    /// Blocks in the free pool.
    pub free_blocks: u32,
    /// Pages holding LPN data (including GC copies in flight).
    pub valid_pages: u64,
    /// Written pages whose data is stale.
    pub invalid_pages: u64,
    /// Pages not yet written since their block's last erase.
    pub free_pages: u64,
    /// Whether a GC is running in the plane.
    pub gc_active: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erase_summary_of_known_values() {
        let s = EraseSummary::of([2u32, 4, 4, 4, 5, 5, 7, 9].into_iter());
        assert_eq!((s.min, s.max), (2, 9));
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.std, 2.0);
        assert_eq!(
            EraseSummary::of(std::iter::empty()),
            EraseSummary::default()
        );
    }
}
