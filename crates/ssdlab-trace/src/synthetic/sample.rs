//! Samplers of one size distribution ([`SizeSampler`]) and one address pattern
//! ([`AddressSampler`]), each drawing from its own random stream, over the aligned slots
//! of a footprint ([`Space`]).

use super::zipf::Zipf;
use super::{AddressPattern, SizeDist};
use ssdlab_engine::SimRng;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The footprint in slots of `alignment` bytes, and the scatter of Zipf ranks over the
/// slots that every address sampler shares (so a Zipf pattern's popular slots are the
/// same ones whichever operation draws them).
#[derive(Clone, Debug)]
pub(super) struct Space {
    pub(super) alignment: u64,
    pub(super) footprint: u64,
    /// Aligned slots in the footprint.
    pub(super) slots: u64,
    /// `rank ↦ (rank × scatter_mul + scatter_add) mod slots`, a bijection.
    scatter_mul: u64,
    scatter_add: u64,
}

impl Space {
    /// The space of a valid configuration; `scatter` draws the scatter offset.
    pub(super) fn new(footprint: u64, alignment: u64, mut scatter: SimRng) -> Self {
        let slots = footprint / alignment;
        let mut scatter_mul = (0x9e37_79b9_7f4a_7c15 % slots).max(1);
        while gcd(scatter_mul, slots) != 1 {
            scatter_mul += 1;
        }
        Space {
            alignment,
            footprint,
            slots,
            scatter_mul,
            scatter_add: scatter.below(slots),
        }
    }

    fn scatter(&self, rank: u64) -> u64 {
        let m = u128::from(rank) * u128::from(self.scatter_mul) + u128::from(self.scatter_add);
        (m % u128::from(self.slots)) as u64
    }
}

/// Draws request sizes from one [`SizeDist`].
#[derive(Clone, Debug)]
pub(super) struct SizeSampler {
    dist: SizeDist,
    /// Cumulative probabilities of a `Choice`.
    cdf: Vec<f64>,
    rng: SimRng,
}

impl SizeSampler {
    pub(super) fn new(dist: &SizeDist, rng: SimRng) -> Self {
        let cdf = match dist {
            SizeDist::Choice { weights, .. } => {
                let total: f64 = weights.iter().sum();
                let mut acc = 0.0;
                weights
                    .iter()
                    .map(|w| {
                        acc += w / total;
                        acc
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        SizeSampler {
            dist: dist.clone(),
            cdf,
            rng,
        }
    }

    /// The next size; `Uniform` sizes are multiples of `alignment`.
    pub(super) fn next(&mut self, alignment: u64) -> u64 {
        match &self.dist {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => {
                let a = alignment;
                let (lo, hi) = (min_bytes.div_ceil(a), max_bytes / a);
                (lo + self.rng.below(hi - lo + 1)) * a
            }
            SizeDist::Choice { bytes, .. } => {
                let u = self.rng.unit_f64();
                let i = self
                    .cdf
                    .iter()
                    .position(|c| u < *c)
                    .unwrap_or(bytes.len() - 1);
                bytes[i]
            }
        }
    }
}

/// Draws request offsets from one [`AddressPattern`]; a `Sequential` pattern keeps its
/// own cursor.
#[derive(Clone, Debug)]
pub(super) struct AddressSampler {
    pattern: AddressPattern,
    zipf: Option<Zipf>,
    cursor_bytes: u64,
    rng: SimRng,
}

impl AddressSampler {
    pub(super) fn new(pattern: &AddressPattern, space: &Space, rng: SimRng) -> Self {
        let zipf = match *pattern {
            AddressPattern::Zipf { theta } => Some(Zipf::new(space.slots, theta)),
            _ => None,
        };
        AddressSampler {
            pattern: pattern.clone(),
            zipf,
            cursor_bytes: 0,
            rng,
        }
    }

    /// The offset of the next request of `size` bytes (`size <= space.footprint`): a
    /// multiple of the alignment, with the whole request inside the footprint.
    pub(super) fn next(&mut self, space: &Space, size: u64) -> u64 {
        let a = space.alignment;
        let footprint = space.footprint;
        let slot = match self.pattern {
            AddressPattern::Uniform => self.rng.below(space.slots),
            AddressPattern::Sequential => {
                if self.cursor_bytes + size > footprint {
                    self.cursor_bytes = 0;
                }
                let off = self.cursor_bytes;
                self.cursor_bytes += size.div_ceil(a) * a;
                return off;
            }
            AddressPattern::Zipf { .. } => {
                let rank = self.zipf.as_ref().map_or(0, |z| z.sample(&mut self.rng));
                space.scatter(rank)
            }
            AddressPattern::HotCold {
                hot_fraction,
                hot_access,
            } => {
                let hot = ((space.slots as f64 * hot_fraction) as u64).clamp(1, space.slots);
                let cold = space.slots - hot;
                if cold == 0 || self.rng.unit_f64() < hot_access {
                    self.rng.below(hot)
                } else {
                    hot + self.rng.below(cold)
                }
            }
        };
        // Keep the whole request inside the footprint.
        (slot * a).min((footprint - size) / a * a)
    }
}
