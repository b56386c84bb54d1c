//! GC victim policies. Each is one type implementing [`GcVictimPolicy`]; [`build`] picks
//! it from the configured [`VictimPolicy`]. A policy only *chooses* among the plane's full
//! blocks (frontier, free and under-GC blocks are never candidates) and never returns a
//! block without an invalid page: such a GC would move a whole block to free one.
//! Static wear leveling overrides the policy before it is asked (see `collect.rs`).

use ssdlab_engine::SimRng;
use ssdlab_nand::PlaneId;

use crate::block::BlockManager;
use crate::config::VictimPolicy;

/// Chooses the next GC victim of a plane.
pub(crate) trait GcVictimPolicy: std::fmt::Debug + Send {
    /// A full block of `plane` with at least one invalid page, or `None`. `now` is the
    /// FTL's page-write stamp (the age clock of cost-benefit).
    fn pick(&mut self, blocks: &mut BlockManager, plane: PlaneId, now: u64) -> Option<u32>;
    /// Which policy this is.
    fn kind(&self) -> VictimPolicy;
    /// A copy of the policy in its current state.
    fn boxed_clone(&self) -> Box<dyn GcVictimPolicy>;
}

impl Clone for Box<dyn GcVictimPolicy> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// The policy object for `policy`. `rng` is only drawn from by [`Random`].
pub(crate) fn build(policy: VictimPolicy, rng: SimRng) -> Box<dyn GcVictimPolicy> {
    match policy {
        VictimPolicy::Greedy => Box::new(Greedy),
        VictimPolicy::CostBenefit => Box::new(CostBenefit),
        VictimPolicy::Random => Box::new(Random { rng }),
    }
}

/// Fewest valid pages: the most pages freed per erase and the fewest moved. O(1)
/// amortized through the block manager's valid-count buckets. Ties go to the block that
/// reached that count last (the bucket head).
#[derive(Clone, Debug)]
pub(crate) struct Greedy;

impl GcVictimPolicy for Greedy {
    fn boxed_clone(&self) -> Box<dyn GcVictimPolicy> {
        Box::new(self.clone())
    }
    fn kind(&self) -> VictimPolicy {
        VictimPolicy::Greedy
    }
    fn pick(&mut self, blocks: &mut BlockManager, plane: PlaneId, _now: u64) -> Option<u32> {
        blocks.fewest_valid(plane, blocks.ppb)
    }
}

/// Cost-benefit (Rosenblum & Ousterhout, "The design and implementation of a
/// log-structured file system", SOSP 1991): maximise `(1 − u) / (1 + u) × age`, where `u`
/// is the valid fraction and `age` the page writes since the block was last written. An
/// old, cold block is worth cleaning at a higher utilisation than a young, hot one, whose
/// remaining pages are likely to die soon anyway. Scans the plane's blocks (O(blocks per
/// plane) per GC: GC runs once per `pages_per_block` writes at most, so this stays small
/// next to the writes themselves). Ties go to the lowest block index.
#[derive(Clone, Debug)]
pub(crate) struct CostBenefit;

impl GcVictimPolicy for CostBenefit {
    fn boxed_clone(&self) -> Box<dyn GcVictimPolicy> {
        Box::new(self.clone())
    }
    fn kind(&self) -> VictimPolicy {
        VictimPolicy::CostBenefit
    }
    fn pick(&mut self, blocks: &mut BlockManager, plane: PlaneId, now: u64) -> Option<u32> {
        let ppb = f64::from(blocks.ppb);
        let mut best: Option<(f64, u32)> = None;
        for b in blocks.blocks_of(plane) {
            let m = &blocks.blocks[b as usize];
            if !blocks.is_candidate(b) || u32::from(m.valid) == blocks.ppb {
                continue;
            }
            let u = f64::from(m.valid) / ppb;
            let age = (now - m.last_write() + 1) as f64;
            let score = (1.0 - u) / (1.0 + u) * age;
            match best {
                Some((s, _)) if s >= score => {}
                _ => best = Some((score, b)),
            }
        }
        best.map(|(_, b)| b)
    }
}

/// Uniformly random among the plane's full blocks with an invalid page, drawn from the
/// FTL's own stream. Two scans of the plane per GC: count, then find the chosen one.
#[derive(Clone, Debug)]
pub(crate) struct Random {
    rng: SimRng,
}

impl GcVictimPolicy for Random {
    fn boxed_clone(&self) -> Box<dyn GcVictimPolicy> {
        Box::new(self.clone())
    }
    fn kind(&self) -> VictimPolicy {
        VictimPolicy::Random
    }
    fn pick(&mut self, blocks: &mut BlockManager, plane: PlaneId, _now: u64) -> Option<u32> {
        let ppb = blocks.ppb;
        let eligible =
            |b: &u32| blocks.is_candidate(*b) && u32::from(blocks.blocks[*b as usize].valid) < ppb;
        let n = blocks.blocks_of(plane).filter(eligible).count() as u64;
        if n == 0 {
            return None;
        }
        let k = self.rng.below(n) as usize;
        blocks.blocks_of(plane).filter(eligible).nth(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::Stream;
    use crate::testutil::one_plane;

    /// Fills `n` blocks of plane 0 at stamps 1, 2, …, and invalidates `invalid[i]` pages of
    /// the `i`-th block.
    fn setup(invalid: &[u32]) -> BlockManager {
        let g = one_plane();
        let mut bm = BlockManager::new(&g, true);
        for (i, &k) in invalid.iter().enumerate() {
            for _ in 0..bm.ppb {
                bm.alloc(PlaneId(0), Stream::Host, 0, i as u64 + 1).unwrap();
            }
            for _ in 0..bm.ppb {
                bm.program_done(i as u32);
            }
            for _ in 0..k {
                bm.invalidate(i as u32);
            }
        }
        bm
    }

    #[test]
    fn greedy_takes_the_block_with_most_invalid_pages() {
        // valid counts: 3, 1, 2, 4 → block 1.
        let mut bm = setup(&[1, 3, 2, 0]);
        assert_eq!(Greedy.pick(&mut bm, PlaneId(0), 10), Some(1));
        bm.mark_victim(1, false);
        assert_eq!(
            Greedy.pick(&mut bm, PlaneId(0), 10),
            Some(2),
            "the victim is no candidate"
        );
    }

    #[test]
    fn greedy_declines_when_nothing_can_be_gained() {
        let mut bm = setup(&[0, 0]);
        assert_eq!(Greedy.pick(&mut bm, PlaneId(0), 10), None);
        let mut empty = setup(&[]);
        assert_eq!(Greedy.pick(&mut empty, PlaneId(0), 10), None);
    }

    #[test]
    fn cost_benefit_prefers_old_cold_blocks() {
        // Block 0: written at stamp 1, 2 of 4 valid. Block 1: written at stamp 2, 1 valid.
        let mut bm = setup(&[2, 3]);
        // At similar ages the emptier block wins, as with greedy: 1/3 × 1000 < 3/5 × 999 …
        assert_eq!(CostBenefit.pick(&mut bm, PlaneId(0), 1000), Some(1));
        // … but once block 1 is young (hot) and block 0 old (cold), block 0 wins:
        // 1/3 × 2000 > 3/5 × 201, although greedy still takes block 1.
        bm.blocks[1].set_last_write(1800);
        assert_eq!(CostBenefit.pick(&mut bm, PlaneId(0), 2000), Some(0));
        assert_eq!(Greedy.pick(&mut bm, PlaneId(0), 2000), Some(1));
    }

    #[test]
    fn cost_benefit_skips_fully_valid_blocks() {
        let mut bm = setup(&[0, 1]);
        bm.blocks[1].set_last_write(100_000);
        assert_eq!(CostBenefit.pick(&mut bm, PlaneId(0), 100_001), Some(1));
        let mut full = setup(&[0]);
        assert_eq!(CostBenefit.pick(&mut full, PlaneId(0), 100), None);
    }

    #[test]
    fn random_is_seeded_and_picks_only_gainful_blocks() {
        let mut bm = setup(&[1, 0, 2, 4, 0]);
        let mut a = Random {
            rng: SimRng::new(7),
        };
        let mut b = Random {
            rng: SimRng::new(7),
        };
        let mut seen = [0u32; 5];
        for _ in 0..300 {
            let x = a.pick(&mut bm, PlaneId(0), 0).unwrap();
            assert_eq!(Some(x), b.pick(&mut bm, PlaneId(0), 0));
            seen[x as usize] += 1;
        }
        assert_eq!(seen[1], 0);
        assert_eq!(seen[4], 0);
        assert!(seen[0] > 50 && seen[2] > 50 && seen[3] > 50, "{seen:?}");
    }
}
