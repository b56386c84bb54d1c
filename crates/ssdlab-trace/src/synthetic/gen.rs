//! [`SyntheticGen`]: the deterministic request generator.

use super::sample::{AddressSampler, SizeSampler, Space};
use super::{Arrival, SyntheticConfig, SyntheticErrors, DUPLICATE_POOL_SEEDS};
use crate::request::{mix64, Content, IoRequest, Op};
use ssdlab_engine::SimRng;

/// Generates the requests of a [`SyntheticConfig`]; the same configuration always
/// yields the same requests.
///
/// Each request draws its arrival, then its operation, then its size and offset from
/// that operation's size and address samplers, then (writes only) its content. The
/// common `size` and `address` have one sampler each, shared by the operations without
/// a key of their own; `read_size`, `write_size`, `read_address` and `write_address`
/// each have their own sampler, random stream and (for `sequential`) cursor.
///
/// With `fua_ratio > 0`, each write draws whether it is FUA from a stream of its own;
/// with `flush_every = N > 0`, a flush command follows every N-th request, at that
/// request's arrival, drawing nothing. With `trim_ratio > 0`, each write draws from a
/// stream of its own whether it is a trim instead (after all of the write's own draws,
/// which it makes as before). None of them moves any other draw, and at their defaults
/// (0) the generator draws exactly what it drew before they existed.
#[derive(Clone, Debug)]
pub struct SyntheticGen {
    cfg: SyntheticConfig,
    emitted: u64,
    time_ns: f64,
    rng_arrival: SimRng,
    rng_op: SimRng,
    rng_content: SimRng,
    rng_fua: SimRng,
    rng_trim: SimRng,
    /// Arrival of the flush due after the request just delivered.
    flush_due: Option<u64>,
    space: Space,
    /// The common `size` sampler first, then one per per-operation size key.
    sizes: Vec<SizeSampler>,
    /// The common `address` sampler first, then one per per-operation address key.
    addresses: Vec<AddressSampler>,
    /// Index into `sizes` for reads and for writes.
    size_of: [usize; 2],
    /// Index into `addresses` for reads and for writes.
    address_of: [usize; 2],
    pool: Vec<u64>,
    pool_next: usize,
    fresh_counter: u64,
    fresh_salt: u64,
}

/// Index of reads and of writes in `size_of` / `address_of`.
fn op_index(op: Op) -> usize {
    usize::from(op == Op::Write)
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
        let space = Space::new(
            cfg.footprint_bytes,
            cfg.alignment_bytes,
            root.fork("scatter"),
        );
        let mut sizes = vec![SizeSampler::new(&cfg.size, root.fork("size"))];
        let size_of = [
            ("read_size", &cfg.read_size),
            ("write_size", &cfg.write_size),
        ]
        .map(|(stream, dist)| match dist {
            Some(d) => {
                sizes.push(SizeSampler::new(d, root.fork(stream)));
                sizes.len() - 1
            }
            None => 0,
        });
        let mut addresses = vec![AddressSampler::new(
            &cfg.address,
            &space,
            root.fork("address"),
        )];
        let address_of = [
            ("read_address", &cfg.read_address),
            ("write_address", &cfg.write_address),
        ]
        .map(|(stream, pattern)| match pattern {
            Some(p) => {
                addresses.push(AddressSampler::new(p, &space, root.fork(stream)));
                addresses.len() - 1
            }
            None => 0,
        });
        Ok(SyntheticGen {
            emitted: 0,
            time_ns: 0.0,
            rng_arrival: root.fork("arrival"),
            rng_op: root.fork("op"),
            rng_content: root.fork("content"),
            rng_fua: root.fork("fua"),
            rng_trim: root.fork("trim"),
            flush_due: None,
            space,
            sizes,
            addresses,
            size_of,
            address_of,
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
        if let Some(arrival_ns) = self.flush_due.take() {
            return Some(IoRequest::flush(arrival_ns));
        }
        if self.emitted >= self.cfg.requests {
            return None;
        }
        let arrival_ns = self.next_arrival();
        let op = if self.rng_op.unit_f64() < self.cfg.read_ratio {
            Op::Read
        } else {
            Op::Write
        };
        let i = op_index(op);
        let size_bytes = self.sizes[self.size_of[i]].next(self.space.alignment);
        let offset_bytes = self.addresses[self.address_of[i]].next(&self.space, size_bytes);
        let content = match op {
            Op::Read if !self.cfg.read_content => None,
            _ => Some(Content::Seed(self.next_content())),
        };
        // No draw at all unless FUA writes are asked for.
        let mut fua = op == Op::Write
            && self.cfg.fua_ratio > 0.0
            && self.rng_fua.unit_f64() < self.cfg.fua_ratio;
        // Nor unless trims are: a write turned trim keeps no content and no FUA.
        let trim = op == Op::Write
            && self.cfg.trim_ratio > 0.0
            && self.rng_trim.unit_f64() < self.cfg.trim_ratio;
        let (op, content) = if trim {
            fua = false;
            (Op::Trim, None)
        } else {
            (op, content)
        };
        // The rule draws nothing: every other request is as without it.
        let stream = match &self.cfg.placement {
            Some(rule) if op == Op::Write => {
                Some(rule.stream(offset_bytes, size_bytes, self.cfg.footprint_bytes))
            }
            _ => None,
        };
        self.emitted += 1;
        let every = self.cfg.flush_every;
        if every > 0 && self.emitted.is_multiple_of(every) {
            self.flush_due = Some(arrival_ns);
        }
        Some(IoRequest {
            arrival_ns,
            op,
            fua,
            offset_bytes,
            size_bytes,
            content,
            stream,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let mut left = self.cfg.requests - self.emitted;
        if let Some(every) = std::num::NonZeroU64::new(self.cfg.flush_every) {
            // Flushes still to come: those of the requests left, and one due now.
            let total = self.cfg.requests / every;
            let triggered = self.emitted / every;
            left = left.saturating_add(total - triggered + u64::from(self.flush_due.is_some()));
        }
        let left = usize::try_from(left).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{AddressPattern, SizeDist};

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

    /// A digest of every field of every request. A read and a plain write give what
    /// they gave before flushes and FUA existed.
    fn digest(cfg: &SyntheticConfig) -> u64 {
        SyntheticGen::new(cfg).fold(0x5eed, |h, r| {
            let op = match r.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Flush => 2,
                Op::Trim => 3,
            };
            let fields = [
                r.arrival_ns,
                op | u64::from(r.fua) << 2,
                r.offset_bytes,
                r.size_bytes,
                r.content.map_or(0, |c| c.page(0) ^ 1 << 63),
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
        // The durability keys written out at their defaults change nothing either.
        for (c, d) in &cases {
            let explicit = SyntheticConfig {
                flush_every: 0,
                fua_ratio: 0.0,
                trim_ratio: 0.0,
                ..c.clone()
            };
            assert_eq!(digest(&explicit), *d);
            let reqs: Vec<IoRequest> = SyntheticGen::new(c).collect();
            assert!(reqs.iter().all(|r| r.op != Op::Flush && !r.fua));
        }
    }

    /// Requests with their FUA mark cleared and flushes left out.
    fn data_only(cfg: &SyntheticConfig) -> Vec<IoRequest> {
        SyntheticGen::new(cfg)
            .filter(|r| r.op != Op::Flush)
            .map(|r| IoRequest { fua: false, ..r })
            .collect()
    }

    #[test]
    fn flushes_and_fua_move_no_other_draw() {
        let base = cfg();
        let with = SyntheticConfig {
            flush_every: 7,
            fua_ratio: 0.25,
            ..cfg()
        };
        assert_eq!(data_only(&with), data_only(&base));
        assert_ne!(digest(&with), digest(&base));
    }

    #[test]
    fn a_flush_follows_every_nth_request_at_its_arrival() {
        let c = SyntheticConfig {
            requests: 1000,
            flush_every: 100,
            ..cfg()
        };
        let mut g = SyntheticGen::new(&c);
        assert_eq!(g.size_hint(), (1010, Some(1010)));
        let reqs: Vec<IoRequest> = g.by_ref().take(100).collect();
        assert_eq!(g.size_hint(), (910, Some(910)), "the first flush is due");
        let rest: Vec<IoRequest> = g.collect();
        let all = [reqs, rest].concat();
        assert_eq!(all.len(), 1010);
        let mut since = 0;
        for (i, r) in all.iter().enumerate() {
            if r.op == Op::Flush {
                assert_eq!(since, 100, "request {i}");
                assert_eq!(*r, IoRequest::flush(all[i - 1].arrival_ns));
                since = 0;
            } else {
                since += 1;
            }
        }
        assert_eq!(all.last().map(|r| r.op), Some(Op::Flush));
        // Not a multiple: no flush after the last 99.
        let c = SyntheticConfig { requests: 199, ..c };
        let flushes = SyntheticGen::new(&c).filter(|r| r.op == Op::Flush).count();
        assert_eq!((SyntheticGen::new(&c).count(), flushes), (200, 1));
    }

    #[test]
    fn trim_ratio_turns_that_share_of_the_writes_into_trims() {
        let plain = cfg();
        let with = SyntheticConfig {
            trim_ratio: 0.3,
            ..cfg()
        };
        assert_eq!(
            digest(&SyntheticConfig {
                trim_ratio: 0.0,
                ..cfg()
            }),
            digest(&plain),
            "a ratio of 0 draws nothing"
        );
        let a: Vec<IoRequest> = SyntheticGen::new(&plain).collect();
        let b: Vec<IoRequest> = SyntheticGen::new(&with).collect();
        assert_eq!(a.len(), b.len());
        let mut trims = 0;
        for (x, y) in a.iter().zip(&b) {
            if y.op == Op::Trim {
                trims += 1;
                assert_eq!(x.op, Op::Write);
                assert_eq!(
                    (x.arrival_ns, x.offset_bytes, x.size_bytes),
                    (y.arrival_ns, y.offset_bytes, y.size_bytes)
                );
                assert!(y.content.is_none() && !y.fua);
            } else {
                assert_eq!(x, y, "every other request is as without trims");
            }
        }
        let writes = a.iter().filter(|r| r.op == Op::Write).count() as f64;
        let share = f64::from(trims) / writes;
        assert!((share - 0.3).abs() < 0.03, "{share}");
    }

    #[test]
    fn fua_ratio_marks_that_share_of_the_writes_only() {
        for ratio in [0.1, 0.5, 1.0] {
            let c = SyntheticConfig {
                fua_ratio: ratio,
                ..cfg()
            };
            let reqs: Vec<IoRequest> = SyntheticGen::new(&c).collect();
            assert!(reqs.iter().all(|r| !r.fua || r.op == Op::Write));
            let writes = reqs.iter().filter(|r| r.op == Op::Write).count() as f64;
            let fua = reqs.iter().filter(|r| r.fua).count() as f64;
            let share = fua / writes;
            assert!((share - ratio).abs() < 0.02, "{ratio}: {share}");
        }
    }

    /// Small random reads interleaved with large sequential writes.
    fn split() -> SyntheticConfig {
        SyntheticConfig {
            read_ratio: 0.3,
            read_size: Some(SizeDist::Fixed { bytes: 4096 }),
            write_size: Some(SizeDist::Fixed { bytes: 65_536 }),
            read_address: Some(AddressPattern::Uniform),
            write_address: Some(AddressPattern::Sequential),
            footprint_bytes: 64 << 20,
            ..cfg()
        }
    }

    #[test]
    fn reads_and_writes_follow_their_own_size_and_address() {
        let c = split();
        let reqs: Vec<IoRequest> = SyntheticGen::new(&c).collect();
        let (reads, writes): (Vec<&IoRequest>, Vec<&IoRequest>) =
            reqs.iter().partition(|r| r.op == Op::Read);
        let share = reads.len() as f64 / reqs.len() as f64;
        assert!((share - 0.3).abs() < 0.02, "{share}");
        assert!(reads.iter().all(|r| r.size_bytes == 4096));
        assert!(writes.iter().all(|r| r.size_bytes == 65_536));
        // Writes run through the footprint in order, wrapping at its end, whatever the
        // reads in between do.
        let per_lap = c.footprint_bytes / 65_536;
        for (i, w) in writes.iter().enumerate() {
            assert_eq!(w.offset_bytes, (i as u64 % per_lap) * 65_536, "write {i}");
        }
        // Reads are uniform over the footprint: aligned, mean offset near the middle,
        // and as many distinct slots as uniform draws give (n (1 - e^(-k/n))).
        assert!(reads
            .iter()
            .all(|r| r.offset_bytes % 4096 == 0 && r.offset_bytes + 4096 <= c.footprint_bytes));
        let k = reads.len() as f64;
        let mean = reads.iter().map(|r| r.offset_bytes as f64).sum::<f64>() / k;
        let mean = mean / c.footprint_bytes as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        let distinct: std::collections::HashSet<u64> =
            reads.iter().map(|r| r.offset_bytes).collect();
        let n = (c.footprint_bytes / 4096) as f64;
        let want = n * (1.0 - (-k / n).exp());
        let got = distinct.len() as f64;
        assert!((got / want - 1.0).abs() < 0.03, "{got} vs {want}");
    }

    #[test]
    fn each_sequential_key_has_its_own_cursor() {
        let own = SyntheticConfig {
            read_address: Some(AddressPattern::Sequential),
            write_address: Some(AddressPattern::Sequential),
            size: SizeDist::Fixed { bytes: 4096 },
            ..split()
        };
        let reqs: Vec<IoRequest> = SyntheticGen::new(&own).collect();
        for op in [Op::Read, Op::Write] {
            let offs = reqs.iter().filter(|r| r.op == op).map(|r| r.offset_bytes);
            let step = own.size_of(op).clone();
            let SizeDist::Fixed { bytes } = step else {
                unreachable!()
            };
            let per_lap = own.footprint_bytes / bytes;
            for (i, off) in offs.enumerate() {
                assert_eq!(off, (i as u64 % per_lap) * bytes, "{op:?} {i}");
            }
        }
        // The common `address` keeps one cursor for the operations that share it.
        let shared = SyntheticConfig {
            read_size: None,
            write_size: None,
            read_address: None,
            write_address: None,
            address: AddressPattern::Sequential,
            size: SizeDist::Fixed { bytes: 4096 },
            ..split()
        };
        let offs: Vec<u64> = SyntheticGen::new(&shared)
            .take(100)
            .map(|r| r.offset_bytes)
            .collect();
        let want: Vec<u64> = (0..100).map(|i| i * 4096).collect();
        assert_eq!(offs, want);
    }

    #[test]
    fn read_keys_do_not_move_the_writes() {
        let a = split();
        let b = SyntheticConfig {
            read_size: Some(SizeDist::Uniform {
                min_bytes: 4096,
                max_bytes: 32_768,
            }),
            read_address: Some(AddressPattern::Zipf { theta: 1.1 }),
            write_address: None,
            address: AddressPattern::Sequential,
            ..split()
        };
        let writes = |c: &SyntheticConfig| -> Vec<IoRequest> {
            SyntheticGen::new(c).filter(|r| r.op == Op::Write).collect()
        };
        // `b` takes its write pattern from `address` rather than `write_address`; both
        // are sequential, and reads never touch the write cursor.
        assert_eq!(writes(&a), writes(&b));
        let ops = |c: &SyntheticConfig| -> Vec<(u64, Op)> {
            SyntheticGen::new(c).map(|r| (r.arrival_ns, r.op)).collect()
        };
        assert_eq!(ops(&a), ops(&b));
    }

    #[test]
    fn an_operation_without_keys_uses_the_common_ones() {
        let c = SyntheticConfig {
            read_ratio: 0.5,
            read_size: Some(SizeDist::Fixed { bytes: 512 }),
            size: SizeDist::Fixed { bytes: 8192 },
            write_address: Some(AddressPattern::HotCold {
                hot_fraction: 0.01,
                hot_access: 1.0,
            }),
            address: AddressPattern::Uniform,
            alignment_bytes: 512,
            ..cfg()
        };
        let hot_end = c.footprint_bytes / 100;
        let mut far_reads = 0;
        for r in SyntheticGen::new(&c) {
            match r.op {
                Op::Read => {
                    assert_eq!(r.size_bytes, 512);
                    far_reads += u32::from(r.offset_bytes >= hot_end);
                }
                Op::Write => {
                    assert_eq!(r.size_bytes, 8192);
                    assert!(r.offset_bytes < hot_end);
                }
                Op::Flush | Op::Trim => panic!("no flushes or trims were asked for"),
            }
        }
        assert!(far_reads > 9000, "{far_reads}");
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
