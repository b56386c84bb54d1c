//! Zipf sampling by rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-
//! inversion to generate variates from monotone discrete distributions", ACM TOMACS
//! 6(3), 1996): O(1) set-up and expected O(1) time per sample for any exponent > 0 and
//! any number of elements, so footprints of billions of slots cost nothing to set up.

use ssdlab_engine::SimRng;

/// Draws ranks `0..n` with `P(rank = k) ∝ (k + 1)^-theta`.
#[derive(Clone, Debug)]
pub(crate) struct Zipf {
    n: f64,
    exponent: f64,
    h_integral_x1: f64,
    h_integral_n: f64,
    s: f64,
}

impl Zipf {
    /// A sampler over `n >= 1` ranks with exponent `theta > 0`.
    pub(crate) fn new(n: u64, theta: f64) -> Self {
        assert!(n >= 1, "zipf over no ranks");
        assert!(theta > 0.0, "zipf exponent must be positive");
        let n = n as f64;
        let mut z = Zipf {
            n,
            exponent: theta,
            h_integral_x1: 0.0,
            h_integral_n: 0.0,
            s: 0.0,
        };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(n + 0.5);
        z.s = 2.0 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2.0));
        z
    }

    /// One rank in `0..n` (0 is the most popular).
    pub(crate) fn sample(&self, rng: &mut SimRng) -> u64 {
        loop {
            let u = self.h_integral_n + rng.unit_f64() * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inverse(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64 - 1;
            }
        }
    }

    fn h(&self, x: f64) -> f64 {
        (-self.exponent * x.ln()).exp()
    }

    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        helper2((1.0 - self.exponent) * log_x) * log_x
    }

    fn h_integral_inverse(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.exponent)).max(-1.0);
        (helper1(t) * x).exp()
    }
}

/// `ln(1 + x) / x`, accurate near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// `(e^x − 1) / x`, accurate near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(n: u64, theta: f64, draws: usize) -> Vec<u64> {
        let z = Zipf::new(n, theta);
        let mut rng = SimRng::new(3);
        let mut h = vec![0u64; n as usize];
        for _ in 0..draws {
            h[z.sample(&mut rng) as usize] += 1;
        }
        h
    }

    #[test]
    fn matches_the_law_on_a_small_range() {
        for theta in [0.5, 0.99, 1.0, 1.5] {
            let n = 10u64;
            let draws = 200_000;
            let h = histogram(n, theta, draws);
            let norm: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
            for (k, &c) in h.iter().enumerate() {
                let p = ((k + 1) as f64).powf(-theta) / norm;
                let got = c as f64 / draws as f64;
                assert!(
                    (got - p).abs() < 0.01,
                    "theta {theta} rank {k}: {got} vs {p}"
                );
            }
        }
    }

    #[test]
    fn single_rank() {
        assert_eq!(histogram(1, 0.9, 100), vec![100]);
    }
}
