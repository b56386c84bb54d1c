//! When each chip's next request is expected: the `AT` of BRR's Algorithm 2 and of DGC's
//! target test, estimated from the gaps between past arrivals at the chip.
//!
//! Every chip keeps an exponentially weighted mean of the gaps between request arrivals
//! at it (weight 1/8 for the newest gap; work arriving together counts once); arrivals
//! are taken as memoryless, so the next one is expected one mean gap from now. A chip
//! that has seen fewer than two arrivals has no estimate.

use ssdlab_nand::ChipId;

/// No time known yet.
const UNKNOWN: u64 = u64::MAX;

/// Per-chip arrival history.
#[derive(Clone, Debug, Default)]
pub(crate) struct ArrivalGaps {
    /// Per chip: time of the last arrival.
    last: Vec<u64>,
    /// Per chip: mean gap between arrivals.
    gap: Vec<u64>,
}

impl ArrivalGaps {
    /// No history for `chips` chips.
    pub fn new(chips: usize) -> Self {
        ArrivalGaps {
            last: vec![UNKNOWN; chips],
            gap: vec![UNKNOWN; chips],
        }
    }

    /// Work arrives at `chip` at `now_ns` (arrivals at the same instant count once).
    #[inline]
    pub fn arrival(&mut self, chip: ChipId, now_ns: u64) {
        let last = self.last[chip.idx()];
        if last == now_ns {
            return;
        }
        if last != UNKNOWN {
            let gap = now_ns.saturating_sub(last);
            let g = &mut self.gap[chip.idx()];
            *g = if *g == UNKNOWN {
                gap
            } else {
                *g - *g / 8 + gap / 8
            };
        }
        self.last[chip.idx()] = now_ns;
    }

    /// The mean gap between arrivals at `chip`, if known.
    #[inline]
    pub fn mean_gap(&self, chip: ChipId) -> Option<u64> {
        let g = self.gap[chip.idx()];
        (g != UNKNOWN).then_some(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_gap_weighs_the_newest_gap_by_an_eighth() {
        let mut a = ArrivalGaps::new(2);
        let c = ChipId(1);
        a.arrival(c, 100);
        assert_eq!(a.mean_gap(c), None, "one arrival gives no gap");
        a.arrival(c, 900);
        a.arrival(c, 900);
        assert_eq!(
            a.mean_gap(c),
            Some(800),
            "arrivals at one instant count once"
        );
        a.arrival(c, 1_700 + 800);
        assert_eq!(a.mean_gap(c), Some(800 - 100 + 200));
        assert_eq!(a.mean_gap(ChipId(0)), None);
    }
}
