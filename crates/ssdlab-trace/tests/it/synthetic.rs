//! Synthetic workloads: determinism, duplicates, skew, validation.

use ssdlab_trace::{
    AddressPattern, IoRequest, Op, SizeDist, SyntheticConfig, SyntheticError, SyntheticGen,
};
use std::collections::{HashMap, HashSet};

fn writes_only(requests: u64) -> SyntheticConfig {
    SyntheticConfig {
        requests,
        read_ratio: 0.0,
        ..SyntheticConfig::default()
    }
}

#[test]
fn same_seed_same_requests_other_seed_other_requests() {
    let cfg = SyntheticConfig {
        requests: 5000,
        ..SyntheticConfig::default()
    };
    let a: Vec<IoRequest> = SyntheticGen::new(&cfg).collect();
    let b: Vec<IoRequest> = SyntheticGen::new(&cfg).collect();
    assert_eq!(a, b);
    let c: Vec<IoRequest> = SyntheticGen::new(&SyntheticConfig { seed: 7, ..cfg }).collect();
    assert_ne!(a, c);
}

#[test]
fn duplicate_ratio_holds_over_20k_writes() {
    for ratio in [0.0, 0.2, 0.5] {
        let cfg = SyntheticConfig {
            duplicate_ratio: ratio,
            ..writes_only(20_000)
        };
        let mut seen = HashSet::new();
        let mut dups = 0;
        for r in SyntheticGen::new(&cfg) {
            assert_eq!(r.op, Op::Write);
            let seed = r.content.expect("writes carry content").page(0);
            assert_ne!(seed, 0);
            dups += u32::from(!seen.insert(seed));
        }
        let got = f64::from(dups) / 20_000.0;
        assert!((got - ratio).abs() < 0.015, "ratio {ratio}: got {got}");
    }
}

#[test]
fn reads_carry_no_content() {
    let cfg = SyntheticConfig {
        requests: 2000,
        read_ratio: 1.0,
        ..SyntheticConfig::default()
    };
    assert!(SyntheticGen::new(&cfg).all(|r| r.op == Op::Read && r.content.is_none()));
}

#[test]
fn reads_with_content_draw_it_as_writes_do() {
    let cfg = SyntheticConfig {
        requests: 20_000,
        read_ratio: 0.5,
        duplicate_ratio: 0.4,
        read_content: true,
        ..SyntheticConfig::default()
    };
    let reqs: Vec<_> = SyntheticGen::new(&cfg).collect();
    assert!(reqs.iter().all(|r| r.content.is_some()));
    let mut seen = HashSet::new();
    let mut dup_reads = 0u32;
    let mut reads = 0u32;
    for r in &reqs {
        let seed = r.content.as_ref().unwrap().page(0);
        let dup = !seen.insert(seed);
        if r.op == Op::Read {
            reads += 1;
            dup_reads += u32::from(dup);
        }
    }
    let got = f64::from(dup_reads) / f64::from(reads);
    assert!((got - 0.4).abs() < 0.02, "{got}");
    let text = toml::to_string(&cfg).unwrap();
    assert!(text.contains("read_content = true"), "{text}");
    let back: SyntheticConfig = toml::from_str(&text).unwrap();
    assert_eq!(back, cfg);
    let off = toml::to_string(&SyntheticConfig::default()).unwrap();
    assert!(!off.contains("read_content"), "absent when off: {off}");
}

/// Share of accesses that go to the most popular 1 % of the slots touched.
fn top_percent_share(address: AddressPattern) -> f64 {
    let cfg = SyntheticConfig {
        requests: 50_000,
        address,
        size: SizeDist::Fixed { bytes: 4096 },
        footprint_bytes: 4096 * 10_000,
        ..SyntheticConfig::default()
    };
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for r in SyntheticGen::new(&cfg) {
        *counts.entry(r.offset_bytes).or_default() += 1;
    }
    let mut c: Vec<u64> = counts.into_values().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    c.iter().take(100).sum::<u64>() as f64 / 50_000.0
}

#[test]
fn zipf_skew_is_visible() {
    let zipf = top_percent_share(AddressPattern::Zipf { theta: 0.9 });
    let uniform = top_percent_share(AddressPattern::Uniform);
    assert!(zipf > 0.3, "zipf top 1 %: {zipf}");
    assert!(uniform < 0.05, "uniform top 1 %: {uniform}");
    let steeper = top_percent_share(AddressPattern::Zipf { theta: 1.2 });
    assert!(steeper > zipf, "{steeper} vs {zipf}");
}

#[test]
fn validate_rejects_read_ratio_above_one_naming_it() {
    let cfg = SyntheticConfig {
        read_ratio: 1.5,
        ..SyntheticConfig::default()
    };
    let err = cfg.validate().unwrap_err();
    assert_eq!(
        err.0,
        [SyntheticError::OutOfRange {
            key: "read_ratio",
            range: "[0, 1]",
            found: 1.5
        }]
    );
    assert!(err.to_string().starts_with("read_ratio: "), "{err}");
    assert!(SyntheticConfig::default().validate().is_ok());
    assert_eq!(SyntheticGen::try_new(&cfg).err(), Some(err));
}

#[test]
fn the_msnfs4_example_is_small_random_reads_among_sequential_writes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/synthetic/msnfs4.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let cfg: SyntheticConfig = toml::from_str(&text).unwrap();
    cfg.validate().unwrap();
    let reqs: Vec<IoRequest> = SyntheticGen::new(&cfg).collect();
    assert_eq!(reqs.len(), 4352);
    let reads: Vec<&IoRequest> = reqs.iter().filter(|r| r.op == Op::Read).collect();
    let share = reads.len() as f64 / reqs.len() as f64;
    assert!((share - 0.078).abs() < 0.015, "{share}");
    assert!(reads
        .iter()
        .all(|r| (512..=4096).contains(&r.size_bytes) && r.size_bytes % 512 == 0));
    let mut next = 0;
    for w in reqs.iter().filter(|r| r.op == Op::Write) {
        assert_eq!((w.offset_bytes, w.size_bytes), (next, 8192));
        next += 8192;
    }
}
