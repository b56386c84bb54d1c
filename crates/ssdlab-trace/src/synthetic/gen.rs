//! [`SyntheticGen`]: the deterministic request generator.

use super::zipf::Zipf;
use super::{
    AddressPattern, Arrival, SizeDist, SyntheticConfig, SyntheticErrors, DUPLICATE_POOL_SEEDS,
};
use crate::request::{mix64, IoRequest, Op};
use ssdlab_engine::SimRng;

/// Generates the requests of a [`SyntheticConfig`]; the same configuration always
/// yields the same requests.
#[derive(Clone, Debug)]
pub struct SyntheticGen {
    cfg: SyntheticConfig,
    emitted: u64,
    time_ns: f64,
    rng_arrival: SimRng,
    rng_op: SimRng,
    rng_size: SimRng,
    rng_address: SimRng,
    rng_content: SimRng,
    /// Aligned slots in the footprint.
    slots: u64,
    zipf: Option<Zipf>,
    /// `rank ↦ (rank × scatter_mul + scatter_add) mod slots`, a bijection.
    scatter_mul: u64,
    scatter_add: u64,
    cursor_bytes: u64,
    choice_cdf: Vec<f64>,
    pool: Vec<u64>,
    pool_next: usize,
    fresh_counter: u64,
    fresh_salt: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl SyntheticGen {
    /// A generator for `cfg`.
    ///
    /// # Panics
    /// If `cfg` is invalid (check it with [`SyntheticConfig::validate`] first;
    /// `TraceSource::open` does).
    pub fn new(cfg: &SyntheticConfig) -> Self {
        match Self::try_new(cfg) {
            Ok(g) => g,
            Err(e) => panic!("invalid synthetic configuration: {e}"),
        }
    }

    /// A generator for `cfg`, or the problems [`SyntheticConfig::validate`] finds.
    pub fn try_new(cfg: &SyntheticConfig) -> Result<Self, SyntheticErrors> {
        cfg.validate()?;
        let root = SimRng::new(cfg.seed);
        let slots = cfg.footprint_bytes / cfg.alignment_bytes;
        let zipf = match cfg.address {
            AddressPattern::Zipf { theta } => Some(Zipf::new(slots, theta)),
            _ => None,
        };
        let mut scatter = root.fork("scatter");
        let mut scatter_mul = (0x9e37_79b9_7f4a_7c15 % slots).max(1);
        while gcd(scatter_mul, slots) != 1 {
            scatter_mul += 1;
        }
        let choice_cdf = match &cfg.size {
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
        Ok(SyntheticGen {
            emitted: 0,
            time_ns: 0.0,
            rng_arrival: root.fork("arrival"),
            rng_op: root.fork("op"),
            rng_size: root.fork("size"),
            rng_address: root.fork("address"),
            rng_content: root.fork("content"),
            slots,
            zipf,
            scatter_mul,
            scatter_add: scatter.below(slots),
            cursor_bytes: 0,
            choice_cdf,
            pool: Vec::with_capacity(DUPLICATE_POOL_SEEDS.min(cfg.requests as usize)),
            pool_next: 0,
            fresh_counter: 0,
            fresh_salt: root.fork("fresh").next_u64(),
            cfg: cfg.clone(),
        })
    }

    fn next_arrival(&mut self) -> u64 {
        if self.emitted > 0 {
            match self.cfg.arrival {
                Arrival::Poisson { iops } => {
                    let u = self.rng_arrival.unit_f64();
                    self.time_ns += -(1.0 - u).ln() * 1e9 / iops;
                }
                Arrival::Fixed { interval_ns } => self.time_ns += interval_ns as f64,
            }
        }
        self.time_ns.round() as u64
    }

    fn next_size(&mut self) -> u64 {
        match &self.cfg.size {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => {
                let a = self.cfg.alignment_bytes;
                let (lo, hi) = (min_bytes.div_ceil(a), max_bytes / a);
                (lo + self.rng_size.below(hi - lo + 1)) * a
            }
            SizeDist::Choice { bytes, .. } => {
                let u = self.rng_size.unit_f64();
                let i = self
                    .choice_cdf
                    .iter()
                    .position(|c| u < *c)
                    .unwrap_or(bytes.len() - 1);
                bytes[i]
            }
        }
    }

    fn next_offset(&mut self, size: u64) -> u64 {
        let a = self.cfg.alignment_bytes;
        let footprint = self.cfg.footprint_bytes;
        let slot = match self.cfg.address {
            AddressPattern::Uniform => self.rng_address.below(self.slots),
            AddressPattern::Sequential => {
                if self.cursor_bytes + size > footprint {
                    self.cursor_bytes = 0;
                }
                let off = self.cursor_bytes;
                self.cursor_bytes += size.div_ceil(a) * a;
                return off;
            }
            AddressPattern::Zipf { .. } => {
                let rank = self
                    .zipf
                    .as_ref()
                    .map_or(0, |z| z.sample(&mut self.rng_address));
                let m =
                    u128::from(rank) * u128::from(self.scatter_mul) + u128::from(self.scatter_add);
                (m % u128::from(self.slots)) as u64
            }
            AddressPattern::HotCold {
                hot_fraction,
                hot_access,
            } => {
                let hot = ((self.slots as f64 * hot_fraction) as u64).clamp(1, self.slots);
                let cold = self.slots - hot;
                if cold == 0 || self.rng_address.unit_f64() < hot_access {
                    self.rng_address.below(hot)
                } else {
                    hot + self.rng_address.below(cold)
                }
            }
        };
        // Keep the whole request inside the footprint.
        (slot * a).min((footprint - size) / a * a)
    }

    fn next_content(&mut self) -> u64 {
        let dup = self.rng_content.unit_f64() < self.cfg.duplicate_ratio;
        if dup && !self.pool.is_empty() {
            return self.pool[self.rng_content.below(self.pool.len() as u64) as usize];
        }
        let seed = loop {
            self.fresh_counter += 1;
            // mix64 is a bijection, so distinct counters give distinct seeds.
            let s = mix64(self.fresh_salt.wrapping_add(self.fresh_counter));
            if s != 0 {
                break s;
            }
        };
        if self.pool.len() < DUPLICATE_POOL_SEEDS {
            self.pool.push(seed);
        } else {
            self.pool[self.pool_next] = seed;
            self.pool_next = (self.pool_next + 1) % DUPLICATE_POOL_SEEDS;
        }
        seed
    }
}

impl Iterator for SyntheticGen {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.emitted >= self.cfg.requests {
            return None;
        }
        let arrival_ns = self.next_arrival();
        let op = if self.rng_op.unit_f64() < self.cfg.read_ratio {
            Op::Read
        } else {
            Op::Write
        };
        let size_bytes = self.next_size();
        let offset_bytes = self.next_offset(size_bytes);
        let content = match op {
            Op::Read => None,
            Op::Write => Some(self.next_content()),
        };
        self.emitted += 1;
        Some(IoRequest {
            arrival_ns,
            op,
            offset_bytes,
            size_bytes,
            content,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.cfg.requests - self.emitted).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SyntheticConfig {
        SyntheticConfig {
            requests: 20_000,
            ..SyntheticConfig::default()
        }
    }

    #[test]
    fn requests_respect_the_config() {
        let c = cfg();
        let reqs: Vec<IoRequest> = SyntheticGen::new(&c).collect();
        assert_eq!(reqs.len(), 20_000);
        assert_eq!(reqs[0].arrival_ns, 0);
        let mut prev = 0;
        for r in &reqs {
            assert!(r.arrival_ns >= prev);
            prev = r.arrival_ns;
            assert_eq!(r.offset_bytes % 4096, 0);
            assert_eq!(r.size_bytes % 4096, 0);
            assert!((4096..=65_536).contains(&r.size_bytes));
            assert!(r.offset_bytes + r.size_bytes <= c.footprint_bytes);
            assert_eq!(r.content.is_some(), r.op == Op::Write);
        }
        let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as f64 / 20_000.0;
        assert!((reads - 0.7).abs() < 0.02, "{reads}");
        // Mean gap of 50 µs at 20k IOPS.
        let mean_gap = prev as f64 / 19_999.0;
        assert!((mean_gap - 50_000.0).abs() < 2_000.0, "{mean_gap}");
    }

    #[test]
    fn sequential_wraps_inside_the_footprint() {
        let c = SyntheticConfig {
            requests: 100,
            address: AddressPattern::Sequential,
            size: SizeDist::Fixed { bytes: 4096 * 3 },
            footprint_bytes: 4096 * 10,
            arrival: Arrival::Fixed { interval_ns: 10 },
            ..SyntheticConfig::default()
        };
        let offs: Vec<u64> = SyntheticGen::new(&c)
            .take(5)
            .map(|r| r.offset_bytes / 4096)
            .collect();
        assert_eq!(offs, [0, 3, 6, 0, 3]);
        let times: Vec<u64> = SyntheticGen::new(&c)
            .take(3)
            .map(|r| r.arrival_ns)
            .collect();
        assert_eq!(times, [0, 10, 20]);
    }

    #[test]
    fn hot_cold_and_choice() {
        let c = SyntheticConfig {
            address: AddressPattern::HotCold {
                hot_fraction: 0.1,
                hot_access: 0.9,
            },
            size: SizeDist::Choice {
                bytes: vec![4096, 16_384],
                weights: vec![3.0, 1.0],
            },
            footprint_bytes: 4096 * 1000,
            ..cfg()
        };
        let reqs: Vec<IoRequest> = SyntheticGen::new(&c).collect();
        let hot = reqs.iter().filter(|r| r.offset_bytes < 4096 * 100).count() as f64 / 20_000.0;
        assert!((hot - 0.9).abs() < 0.02, "{hot}");
        let small = reqs.iter().filter(|r| r.size_bytes == 4096).count() as f64 / 20_000.0;
        assert!((small - 0.75).abs() < 0.02, "{small}");
        assert!(reqs
            .iter()
            .all(|r| r.size_bytes == 4096 || r.size_bytes == 16_384));
    }

    /// A digest of every field of every request.
    fn digest(cfg: &SyntheticConfig) -> u64 {
        SyntheticGen::new(cfg).fold(0x5eed, |h, r| {
            let fields = [
                r.arrival_ns,
                u64::from(r.op == Op::Write),
                r.offset_bytes,
                r.size_bytes,
                r.content.map_or(0, |c| c ^ 1 << 63),
            ];
            fields.iter().fold(h, |h, f| mix64(h ^ f).rotate_left(7))
        })
    }

    /// Configurations without per-operation keys generate exactly the requests they
    /// generated before those keys existed (digests computed with that code).
    #[test]
    fn configs_without_per_op_keys_are_unchanged() {
        let base = SyntheticConfig::default();
        let cases = [
            (base.clone(), 0x67fb_4704_3a57_6496),
            (
                SyntheticConfig {
                    address: AddressPattern::Sequential,
                    size: SizeDist::Fixed { bytes: 12_288 },
                    footprint_bytes: 4096 * 1000,
                    arrival: Arrival::Fixed { interval_ns: 1000 },
                    ..base.clone()
                },
                0x6361_2c1c_1b13_9cd0,
            ),
            (
                SyntheticConfig {
                    address: AddressPattern::HotCold {
                        hot_fraction: 0.1,
                        hot_access: 0.9,
                    },
                    size: SizeDist::Choice {
                        bytes: vec![512, 4096, 16_384],
                        weights: vec![1.0, 3.0, 1.0],
                    },
                    alignment_bytes: 512,
                    read_ratio: 0.3,
                    seed: 7,
                    ..base.clone()
                },
                0x6103_58b6_1dc4_2844,
            ),
            (
                SyntheticConfig {
                    address: AddressPattern::Uniform,
                    size: SizeDist::Uniform {
                        min_bytes: 8192,
                        max_bytes: 131_072,
                    },
                    duplicate_ratio: 0.5,
                    ..base.clone()
                },
                0x91ae_65fb_6e87_686d,
            ),
            (
                SyntheticConfig {
                    address: AddressPattern::Zipf { theta: 1.2 },
                    footprint_bytes: 1 << 24,
                    read_ratio: 0.078,
                    seed: 3,
                    ..base
                },
                0x8985_1a77_c54b_a17b,
            ),
        ];
        let got: Vec<u64> = cases.iter().map(|(c, _)| digest(c)).collect();
        let want: Vec<u64> = cases.iter().map(|(_, d)| *d).collect();
        assert_eq!(got, want, "{got:#x?}");
    }

    #[test]
    #[should_panic(expected = "read_ratio")]
    fn invalid_config_panics_in_new() {
        SyntheticGen::new(&SyntheticConfig {
            read_ratio: 2.0,
            ..cfg()
        });
    }
}
