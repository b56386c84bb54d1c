//! Random host workloads interleaved with GC steps, outstanding programs and pinned
//! reads, with every invariant checked after every step.

use proptest::prelude::*;
use ssdlab_ftl::{ContentFilter, ContentIndexConfig, ContentUnit, FtlConfig, VictimPolicy};
use ssdlab_nand::Geometry;

use crate::driver::{Driver, Op};

/// 2 channels × 1 chip × 1 die × 2 planes × 8 blocks × 4 pages: 4 planes, 128 pages.
pub fn geom() -> Geometry {
    Geometry {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 8,
        pages_per_block: 4,
        page_size_bytes: 4096,
    }
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        40 => any::<u32>().prop_map(Op::Write),
        4 => any::<u32>().prop_map(Op::Trim),
        18 => any::<usize>().prop_map(Op::Complete),
        8 => any::<u32>().prop_map(Op::Read),
        8 => any::<usize>().prop_map(Op::Unpin),
        25 => (any::<u32>(), any::<usize>()).prop_map(|(p, k)| Op::Gc(p, k)),
        1 => any::<u32>().prop_map(Op::Abandon),
    ]
}

fn config() -> impl Strategy<Value = FtlConfig> {
    let victim = prop_oneof![
        Just(VictimPolicy::Greedy),
        Just(VictimPolicy::CostBenefit),
        Just(VictimPolicy::Random),
    ];
    (victim, any::<bool>(), 0u32..=2, 1u32..=2, any::<bool>()).prop_map(
        |(victim, background, spread, reserve, dynamic)| {
            let mut c = FtlConfig {
                over_provisioning: 0.45,
                ..FtlConfig::default()
            };
            c.gc.victim = victim;
            c.gc.background = background;
            c.gc.background_free_ratio = 0.5;
            c.gc.reserve_blocks = reserve;
            c.wear_leveling.static_spread = spread;
            c.wear_leveling.dynamic = dynamic;
            c
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn gc_protocol_never_loses_data(
        cfg in config(),
        lpns in 1u32..=76,
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..600),
    ) {
        let g = geom();
        let lpns = lpns.min(cfg.max_map_entries(&g) as u32);
        let mut d = Driver::new(&cfg, &g, lpns, seed);
        for op in &ops {
            d.apply(op);
        }
        d.drain();
        d.ftl.check_invariants();
        d.check_final();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// With placement handles (LPN ranges on handles, some LPNs moved to another handle
    /// by their writes), the protocol keeps every invariant, open blocks of different
    /// handles included, and the handles' counters add up to the FTL's.
    #[test]
    fn placement_handles_keep_every_invariant(
        cfg in config(),
        handles in 1u32..=4,
        persistent in any::<bool>(),
        lpns in 1u32..=76,
        seed in any::<u64>(),
        moved in prop::collection::vec((any::<u32>(), any::<u32>()), 0..8),
        ops in prop::collection::vec(op(), 1..600),
    ) {
        // Four times the blocks: every handle keeps a host and a GC open block per
        // plane, which the over-provisioning must leave room for beside the reserve.
        let g = Geometry { blocks_per_plane: 32, ..geom() };
        let lpns = (4 * lpns).min(cfg.max_map_entries(&g) as u32);
        let mut d = Driver::new(&cfg, &g, lpns, seed);
        let share = lpns.div_ceil(handles);
        let ranges: Vec<_> = (0..handles)
            .map(|h| ((h * share).min(lpns), ((h + 1) * share).min(lpns), h))
            .collect();
        d.ftl.enable_handles(handles, &ranges, persistent);
        for &(l, h) in &moved {
            d.ftl.set_handle(ssdlab_nand::Lpn(l % lpns), h % handles);
        }
        for op in &ops {
            d.apply(op);
        }
        d.drain();
        d.ftl.check_invariants();
        d.check_final();
        let c = d.ftl.counters().clone();
        let per = d.ftl.handle_counters().unwrap();
        prop_assert_eq!(per.iter().map(|h| h.host_pages).sum::<u64>(), c.host_pages_written);
        prop_assert_eq!(per.iter().map(|h| h.gc_copies).sum::<u64>(), c.gc_pages_moved);
    }
}

fn content_index() -> impl Strategy<Value = ContentIndexConfig> {
    let filter = prop_oneof![
        Just(ContentFilter::Exact),
        Just(ContentFilter::Bloom),
        Just(ContentFilter::BloomPlain),
    ];
    let unit = prop_oneof![Just(ContentUnit::Channel), Just(ContentUnit::Chip)];
    (filter, unit, 1u32..=10, 1u32..=7, 0u64..=5).prop_map(
        |(filter, unit, bits, hashes, rebuild)| ContentIndexConfig {
            unit,
            filter,
            bloom_bits_per_page: bits,
            bloom_hashes: hashes,
            bloom_rebuild_writes: rebuild,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The content index (and its filters) stays exact through writes of shared content,
    /// overwrites, trims and GC moves: `check_invariants` checks it after every step.
    #[test]
    fn content_index_follows_every_page_change(
        cfg in config(),
        index in content_index(),
        contents in 1u32..=12,
        lpns in 1u32..=76,
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..400),
    ) {
        let g = geom();
        let lpns = lpns.min(cfg.max_map_entries(&g) as u32);
        let mut d = Driver::new(&cfg, &g, lpns, seed).with_content(&index, contents);
        for op in &ops {
            d.apply(op);
        }
        d.drain();
        d.check_final();
        let live = d.expected.iter().filter(|t| t.is_some()).count() as u32;
        let indexed: u32 = (1..=u64::from(contents)).map(|t| d.ftl.content_copies(t)).sum();
        prop_assert_eq!(indexed, live);
    }
}

#[test]
fn a_long_overwrite_run_with_every_policy_keeps_its_data() {
    for victim in [
        VictimPolicy::Greedy,
        VictimPolicy::CostBenefit,
        VictimPolicy::Random,
    ] {
        let mut cfg = FtlConfig {
            over_provisioning: 0.45,
            ..FtlConfig::default()
        };
        cfg.gc.victim = victim;
        cfg.wear_leveling.static_spread = 3;
        let g = geom();
        let lpns = cfg.max_map_entries(&g) as u32;
        let mut d = Driver::new(&cfg, &g, lpns, 1);
        let mut x = 12345u32;
        for i in 0..5000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let op = match i % 7 {
                0..=3 => Op::Write(x >> 8),
                4 => Op::Complete(x as usize),
                5 => Op::Gc(x >> 4, x as usize),
                _ => Op::Read(x >> 8),
            };
            d.apply(&op);
            if i % 3 == 0 {
                d.apply(&Op::Unpin(0));
            }
        }
        d.drain();
        d.check_final();
        let c = d.ftl.counters();
        assert!(c.erases > 100, "{victim:?}: {c:?}");
        assert!(
            c.no_space > 0,
            "{victim:?}: the workload must hit the reserve: {c:?}"
        );
        assert!(
            c.wl_victims > 0,
            "{victim:?}: static wear leveling must act: {c:?}"
        );
        let s = d.ftl.erase_count_summary();
        assert!(s.max - s.min <= 8, "{victim:?}: wear spread bounded: {s:?}");
    }
}

#[test]
fn same_seed_same_state() {
    let mut cfg = FtlConfig {
        over_provisioning: 0.45,
        ..FtlConfig::default()
    };
    cfg.gc.victim = VictimPolicy::Random;
    let run = || {
        let mut d = Driver::new(&cfg, &geom(), 60, 77);
        for i in 0..2000u32 {
            let op = if i % 3 == 2 {
                Op::Gc(i, i as usize)
            } else {
                Op::Write(i * 7919)
            };
            d.apply(&op);
        }
        let map: Vec<_> = (0..60).map(|l| d.ftl.lookup(ssdlab_nand::Lpn(l))).collect();
        (map, d.ftl.counters().clone(), d.ftl.erase_count_summary())
    };
    assert_eq!(run(), run());
}

fn slc_cache() -> impl Strategy<Value = ssdlab_nand::SlcCacheConfig> {
    use ssdlab_nand::{SlcCacheConfig, SlcMode, WhenFull};
    let mode = prop_oneof![Just(SlcMode::Static), Just(SlcMode::Dynamic)];
    let when = prop_oneof![Just(WhenFull::Direct), Just(WhenFull::Wait)];
    (mode, when, 1u32..=2, any::<bool>(), 1u32..=4).prop_map(
        |(mode, when_full, blocks, idle_fold, share)| SlcCacheConfig {
            mode,
            blocks_per_plane: blocks,
            free_share: f64::from(share) / 4.0,
            when_full,
            idle_fold,
            ..SlcCacheConfig::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// With an SLC cache (MLC: 2 SLC pages per block), writes, waits, folds, abandoned
    /// folds and GC keep every LPN's data, and the region's bookkeeping stays exact:
    /// `check_invariants` checks it after every step.
    #[test]
    fn slc_cache_protocol_never_loses_data(
        cfg in config(),
        slc in slc_cache(),
        lpns in 1u32..=76,
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..600),
    ) {
        let g = geom();
        let native = Geometry {
            blocks_per_plane: g.blocks_per_plane - slc.blocks_per_plane,
            ..g
        };
        let room = if slc.mode == ssdlab_nand::SlcMode::Static {
            cfg.max_map_entries(&native)
        } else {
            cfg.max_map_entries(&g)
        };
        let lpns = lpns.min(room as u32);
        let mut d = Driver::new(&cfg, &g, lpns, seed);
        d.ftl.enable_slc_cache(&slc, 2);
        for op in &ops {
            d.apply(op);
        }
        d.drain();
        d.ftl.check_invariants();
        d.check_final();
        let c = d.ftl.slc_counters().unwrap();
        // Every fold begun ran to its erase (an abandoned one is not counted).
        prop_assert_eq!(c.folds, c.slc_erases);
        prop_assert!(c.slc_pages_written + c.direct_pages_written > 0 || ops.iter().all(|o| !matches!(o, crate::driver::Op::Write(_))));
    }
}
