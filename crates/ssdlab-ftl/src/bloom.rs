//! The Bloom filters of DS-FTL's fingerprint tables (paper §4.2.2): one per unit
//! (channel or chip), asked whether the unit already holds a content.
//!
//! A filter is an array of `m` 4-bit counters and `k` index functions. Insert raises the
//! `k` counters of a token; a query answers "maybe held" when all `k` are non-zero and
//! "not held" otherwise, which is always right (no false negatives). The counters make
//! deletion possible (a counting Bloom filter): removing a token lowers its counters
//! again. A counter that reaches 15 saturates and is never lowered, so deletions can only
//! ever leave extra positives, never false negatives. The plain variant keeps one bit
//! per position and never deletes; it is rebuilt from the exact index now and then.
//!
//! Index functions: double hashing of the mixed token, `h_i = a + i·b` with `a = mix(token)`
//! and `b` an odd second mix (Kirsch & Mitzenmacher, "Less hashing, same performance", ESA
//! 2006), each reduced to `0..m` by multiplication. The expected false-positive rate with `n` tokens is
//! `(1 − e^(−k·n/m))^k`.

/// The largest value of a 4-bit counter; it is never decremented once reached.
const SATURATED: u8 = 15;

/// One Bloom filter of `m` counters (4 bits each, two per byte) and `k` hashes.
#[derive(Clone, Debug)]
pub(crate) struct Bloom {
    counters: Vec<u8>,
    m: u64,
    k: u32,
    /// Plain filter: inserts set counters to 1 and removes do nothing.
    plain: bool,
}

impl Bloom {
    /// A filter of `m ≥ 1` positions and `k ≥ 1` hashes.
    pub fn new(m: u64, k: u32, plain: bool) -> Bloom {
        assert!(m >= 1 && k >= 1, "a Bloom filter needs m >= 1 and k >= 1");
        Bloom {
            counters: vec![0; m.div_ceil(2) as usize],
            m,
            k,
            plain,
        }
    }

    /// Heap bytes of the counters.
    pub fn heap_bytes(&self) -> u64 {
        self.counters.capacity() as u64
    }

    /// The `k` positions of `token`: `h_i = a + i·b` over 64 bits, mapped onto `0..m` by
    /// multiplication (Lemire's fast range reduction) rather than a division.
    #[inline]
    fn positions(&self, token: u64) -> impl Iterator<Item = u64> + '_ {
        let a = mix(token);
        let b = mix(a ^ 0x9e37_79b9_7f4a_7c15) | 1;
        let m = u128::from(self.m);
        (0..u64::from(self.k)).map(move |i| {
            let h = a.wrapping_add(i.wrapping_mul(b));
            ((u128::from(h) * m) >> 64) as u64
        })
    }

    #[inline]
    fn get(&self, pos: u64) -> u8 {
        let byte = self.counters[(pos / 2) as usize];
        if pos.is_multiple_of(2) {
            byte & 0x0f
        } else {
            byte >> 4
        }
    }

    #[inline]
    fn set(&mut self, pos: u64, v: u8) {
        let byte = &mut self.counters[(pos / 2) as usize];
        *byte = if pos.is_multiple_of(2) {
            (*byte & 0xf0) | v
        } else {
            (*byte & 0x0f) | (v << 4)
        };
    }

    /// Adds `token`.
    pub fn insert(&mut self, token: u64) {
        for pos in self.positions(token).collect::<PosBuf>().iter() {
            let c = self.get(pos);
            let v = if self.plain {
                1
            } else {
                (c + 1).min(SATURATED)
            };
            self.set(pos, v);
        }
    }

    /// Removes `token`, which must have been inserted (nothing for a plain filter).
    pub fn remove(&mut self, token: u64) {
        if self.plain {
            return;
        }
        for pos in self.positions(token).collect::<PosBuf>().iter() {
            let c = self.get(pos);
            debug_assert!(c > 0, "removing a token that was never inserted");
            if c < SATURATED {
                self.set(pos, c.saturating_sub(1));
            }
        }
    }

    /// False when `token` is certainly absent; true when it may be present.
    #[inline]
    pub fn may_contain(&self, token: u64) -> bool {
        self.positions(token).all(|p| self.get(p) > 0)
    }

    /// Forgets every token (a plain filter's rebuild starts here).
    pub fn clear(&mut self) {
        self.counters.fill(0);
    }
}

/// The positions of one token without a heap allocation (k ≤ 32, validated).
struct PosBuf {
    pos: [u64; MAX_HASHES as usize],
    n: usize,
}

/// The most hash functions a filter may use.
pub const MAX_HASHES: u32 = 32;

impl FromIterator<u64> for PosBuf {
    fn from_iter<I: IntoIterator<Item = u64>>(it: I) -> Self {
        let mut b = PosBuf {
            pos: [0; MAX_HASHES as usize],
            n: 0,
        };
        for p in it {
            b.pos[b.n] = p;
            b.n += 1;
        }
        b
    }
}

impl PosBuf {
    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.pos[..self.n].iter().copied()
    }
}

/// SplitMix64's finaliser: tokens from content hashes are uniform already, but tokens
/// derived from LPNs and versions are not.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The expected false-positive rate of a filter of `m` positions and `k` hashes holding
/// `n` distinct tokens: `(1 − e^(−k·n/m))^k`.
pub fn expected_false_positive_rate(m: u64, k: u32, n: u64) -> f64 {
    let k = f64::from(k);
    (1.0 - (-k * n as f64 / m as f64).exp()).powf(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct pseudo-random tokens.
    fn tokens(from: u64, n: u64) -> impl Iterator<Item = u64> {
        (from..from + n).map(|i| mix(i ^ 0xabcd) | 1)
    }

    #[test]
    fn no_false_negatives_and_deletion_forgets() {
        let mut b = Bloom::new(1000, 5, false);
        for t in tokens(0, 100) {
            b.insert(t);
        }
        assert!(tokens(0, 100).all(|t| b.may_contain(t)));
        for t in tokens(0, 50) {
            b.remove(t);
        }
        assert!(tokens(50, 50).all(|t| b.may_contain(t)), "kept tokens stay");
        for t in tokens(50, 50) {
            b.remove(t);
        }
        assert!(
            b.counters.iter().all(|&c| c == 0),
            "every counter back to 0"
        );
    }

    #[test]
    fn saturated_counters_never_go_down() {
        let mut b = Bloom::new(8, 1, false);
        let t = 12345;
        for _ in 0..20 {
            b.insert(t);
        }
        for _ in 0..20 {
            b.remove(t);
        }
        assert!(b.may_contain(t), "a saturated counter keeps answering yes");
    }

    #[test]
    fn measured_false_positive_rate_is_close_to_theory() {
        // 10 positions per token and 7 hashes: about 0.82 % in theory.
        let (n, m, k) = (20_000u64, 200_000u64, 7);
        let mut b = Bloom::new(m, k, false);
        for t in tokens(0, n) {
            b.insert(t);
        }
        let probes = 200_000u64;
        let fp = tokens(1 << 40, probes)
            .filter(|&t| b.may_contain(t))
            .count();
        let measured = fp as f64 / probes as f64;
        let theory = expected_false_positive_rate(m, k, n);
        assert!((theory - 0.0082).abs() < 0.0005, "{theory}");
        assert!(
            (measured - theory).abs() < 0.15 * theory,
            "measured {measured}, theory {theory}"
        );
    }

    #[test]
    fn plain_filters_never_delete_and_clear_forgets() {
        let mut b = Bloom::new(100, 3, true);
        b.insert(7);
        b.insert(7);
        b.remove(7);
        assert!(b.may_contain(7));
        b.clear();
        assert!(!b.may_contain(7));
    }
}
