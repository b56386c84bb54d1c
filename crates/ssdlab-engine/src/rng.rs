//! Seeded random streams. One seed reproduces a whole run.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A deterministic pseudo-random stream (PCG-64 MCG, pinned version).
///
/// Components never share a stream: each gets its own through [`SimRng::fork`], so
/// adding a draw in one component does not perturb another.
#[derive(Clone, Debug)]
pub struct SimRng {
    inner: Pcg64Mcg,
    seed: u64,
}

/// SplitMix64 finaliser: spreads a 64-bit value over all bits.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl SimRng {
    /// A stream for `seed`.
    pub fn new(seed: u64) -> Self {
        let lo = mix64(seed);
        let hi = mix64(seed ^ 0x9e37_79b9_7f4a_7c15);
        let state = (u128::from(hi) << 64) | u128::from(lo);
        SimRng {
            inner: Pcg64Mcg::from_seed(state.to_le_bytes()),
            seed,
        }
    }

    /// An independent stream for the component named `stream`, derived from this
    /// stream's seed only (not from how much it has been used).
    pub fn fork(&self, stream: &str) -> SimRng {
        let mut h = self.seed;
        for b in stream.bytes() {
            h = mix64(h ^ u64::from(b));
        }
        SimRng::new(h)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-shift with rejection.
    /// The rejection threshold (a division) is computed only when the low half falls
    /// below `n`, where a rejection is possible at all; the result is the same.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        loop {
            let x = self.next_u64();
            let m = u128::from(x) * u128::from(n);
            let lo = m as u64;
            if lo >= n || lo >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// A uniform float in `[0, 1)` with 53 bits of precision.
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_forks_differ() {
        let mut a = SimRng::new(42);
        let mut b = SimRng::new(42);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut f1 = a.fork("ftl");
        let mut f2 = b.fork("ftl");
        let mut g = a.fork("host");
        let x = f1.next_u64();
        assert_eq!(x, f2.next_u64());
        assert_ne!(x, g.next_u64());
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SimRng::new(1);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = r.below(7) as usize;
            seen[v] = true;
        }
        assert!(seen.iter().all(|s| *s));
        let u = r.unit_f64();
        assert!((0.0..1.0).contains(&u));
    }
}
