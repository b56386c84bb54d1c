//! The implicit fill against the page-by-page fill: the same state after preconditioning
//! (every LPN, every page, every block and plane), and the same state after the same
//! random run on both.

use proptest::prelude::*;
use ssdlab_engine::SimRng;
use ssdlab_ftl::{
    AllocOrder, ContentFilter, ContentIndexConfig, ContentUnit, FillPattern, Ftl, FtlConfig,
    PreconditionConfig, PreconditionReport, VictimPolicy,
};
use ssdlab_nand::{Geometry, Lpn, PlaneId};

use crate::driver::{Driver, Op};
use crate::protocol::{geom as small, op};

/// How the fill is laid out.
#[derive(Clone, Debug)]
enum Shape {
    /// A static allocation order (the index into [`AllocOrder::all`]).
    Order(usize),
    /// Two segments split at a fraction of the map, each with its own period of planes
    /// (plane numbers modulo the planes): the form of a RAID layout's data and
    /// redundancy pages.
    Segments(f64, Vec<u32>, Vec<u32>),
}

fn geometry() -> impl Strategy<Value = Geometry> {
    (1u32..=2, 1u32..=2, 1u32..=2, 1u32..=2, 8u32..=14, 2u32..=6).prop_map(
        |(channels, ways, dies, planes, blocks, pages)| Geometry {
            channels,
            chips_per_channel: ways,
            dies_per_chip: dies,
            planes_per_die: planes,
            blocks_per_plane: blocks,
            pages_per_block: pages,
            page_size_bytes: 4096,
        },
    )
}

fn shape() -> impl Strategy<Value = Shape> {
    let period = prop::collection::vec(0u32..16, 1..10);
    prop_oneof![
        (0usize..24).prop_map(Shape::Order),
        (0.0..1.0f64, period.clone(), period)
            .prop_map(|(split, a, b)| Shape::Segments(split, a, b)),
    ]
}

fn config() -> impl Strategy<Value = FtlConfig> {
    let victim = prop_oneof![
        Just(VictimPolicy::Greedy),
        Just(VictimPolicy::CostBenefit),
        Just(VictimPolicy::Random),
    ];
    let op = prop_oneof![Just(0.3), Just(0.45)];
    (victim, any::<bool>(), 0u32..=2, 1u32..=2, op).prop_map(
        |(victim, dynamic, spread, reserve, op)| {
            let mut c = FtlConfig {
                over_provisioning: op,
                ..FtlConfig::default()
            };
            c.gc.victim = victim;
            c.gc.reserve_blocks = reserve;
            c.wear_leveling.dynamic = dynamic;
            c.wear_leveling.static_spread = spread;
            c
        },
    )
}

/// The pattern of `shape` over `n` LPNs on `g`.
fn pattern(shape: &Shape, g: &Geometry, n: u32) -> FillPattern {
    let planes = g.planes();
    let mut p = FillPattern::new(planes);
    match shape {
        Shape::Order(i) => {
            let m = AllocOrder::all().nth(*i).unwrap().stripe_map(g);
            let period: Vec<PlaneId> = (0..planes).map(|l| m.plane_of(Lpn(l))).collect();
            p.push(0, n, &period);
        }
        Shape::Segments(split, a, b) => {
            let cut = ((split * f64::from(n)) as u32).clamp(1, n - 1);
            let a: Vec<PlaneId> = a.iter().map(|x| PlaneId(x % planes)).collect();
            let b: Vec<PlaneId> = b.iter().map(|x| PlaneId(x % planes)).collect();
            p.push(0, cut, &a);
            p.push(cut, n, &b);
        }
    }
    p
}

/// An FTL over `n` LPNs preconditioned by `pre`, with the fill laid out by `pattern`
/// (implicitly where it can) or replayed page by page (`pattern` = None).
fn build(
    cfg: &FtlConfig,
    g: &Geometry,
    n: u32,
    pre: &PreconditionConfig,
    layout: &FillPattern,
    pattern: Option<&FillPattern>,
) -> (Ftl, PreconditionReport) {
    let mut f = Ftl::new(cfg, g, n, SimRng::new(5)).unwrap();
    let r = f.precondition(
        pre,
        pattern,
        &mut |l| layout.plane_of(l),
        &mut SimRng::new(6),
    );
    (f, r)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn implicit_fill_equals_the_replayed_fill(
        g in geometry(),
        cfg in config(),
        shape in shape(),
        fill in prop_oneof![Just(1.0), Just(0.0), 0.0..=1.0f64],
        overwrite in prop_oneof![Just(0.0), 0.0..0.8f64],
        ops in prop::collection::vec(op(), 0..150),
    ) {
        prop_assume!(cfg.validate_for(&g).is_empty());
        let n = cfg.logical_pages(&g);
        prop_assume!(n >= 2);
        let layout = pattern(&shape, &g, n);
        let pre = PreconditionConfig {
            enabled: true,
            fill_ratio: fill,
            overwrite_ratio: overwrite,
            ..PreconditionConfig::default()
        };
        let (replayed, r0) = build(&cfg, &g, n, &pre, &layout, None);
        let (implicit, r1) = build(&cfg, &g, n, &pre, &layout, Some(&layout));
        prop_assert_eq!(&r1, &PreconditionReport { implicit: r1.implicit, ..r0.clone() });
        implicit.check_invariants();
        if let Some(d) = implicit.diff_state(&replayed) {
            panic!("after preconditioning ({r1:?}): {d}");
        }
        // Overwrites written plane by plane (greedy) or in the order drawn (the other
        // policies read the write clock or draw victims): the same device.
        // (As `build` does, through the entry point for static layouts.)
        let mut planewise = Ftl::new(&cfg, &g, n, SimRng::new(5)).unwrap();
        let mut place = |l| layout.plane_of(l);
        let r2 = planewise.precondition_static(&pre, Some(&layout), &mut place, &mut SimRng::new(6));
        prop_assert_eq!(&r2, &r1);
        planewise.check_invariants();
        let same = |a: &Ftl, b: &Ftl| match cfg.gc.victim {
            VictimPolicy::Greedy => a.diff_state_but_stamps(b),
            _ => a.diff_state(b),
        };
        if let Some(d) = same(&planewise, &replayed) {
            panic!("plane by plane, after preconditioning ({r2:?}): {d}");
        }
        if overwrite == 0.0 {
            // The formula applies exactly when the replay was never refused a page and
            // never came to the GC threshold.
            let calm = (0..g.planes()).all(|p| !replayed.gc_needed(PlaneId(p)));
            prop_assert_eq!(r1.implicit, r0.filled > 0 && r0.unplaced == 0 && calm);
        }
        // The run writes each LPN to its plane of the fill; it needs every plane to keep
        // room beside its share of the LPNs (a skewed pattern may leave none).
        let room = (g.blocks_per_plane - cfg.gc.reserve_blocks - 1) * g.pages_per_block;
        let ops = if (0..g.planes()).all(|p| layout.count_below(PlaneId(p), n) < u64::from(room)) {
            ops
        } else {
            Vec::new()
        };
        let version = r0.last_version;
        let place = |layout: &FillPattern| {
            let layout = layout.clone();
            Box::new(move |l| layout.plane_of(l)) as Box<dyn Fn(Lpn) -> PlaneId>
        };
        // The same device frozen and shared: a copy reads through to its tables.
        let frozen = build(&cfg, &g, n, &pre, &layout, Some(&layout)).0.freeze();
        let mut a = Driver::on(replayed, place(&layout), version);
        let mut b = Driver::on(implicit, place(&layout), version);
        let mut c = Driver::on(frozen.thaw(), place(&layout), version);
        let mut d = Driver::on(planewise, place(&layout), version);
        for op in &ops {
            a.apply(op);
            b.apply(op);
            c.apply(op);
            d.apply(op);
        }
        a.drain();
        b.drain();
        c.drain();
        d.drain();
        b.check_final();
        c.check_final();
        d.check_final();
        if let Some(e) = same(&d.ftl, &a.ftl) {
            panic!("after the run on the device aged plane by plane ({r2:?}): {e}");
        }
        if let Some(d) = b.ftl.diff_state(&a.ftl) {
            panic!("after the run ({r1:?}): {d}");
        }
        if let Some(d) = c.ftl.diff_state(&a.ftl) {
            panic!("after the run on the shared device ({r1:?}): {d}");
        }
        // The run wrote nothing into the shared tables.
        if let Some(d) = frozen.thaw().diff_state(&build(&cfg, &g, n, &pre, &layout, None).0) {
            panic!("the shared tables changed ({r1:?}): {d}");
        }
    }
}

fn full_fill() -> PreconditionConfig {
    PreconditionConfig {
        enabled: true,
        fill_ratio: 1.0,
        overwrite_ratio: 0.0,
        ..PreconditionConfig::default()
    }
}

fn small_cfg() -> FtlConfig {
    FtlConfig {
        over_provisioning: 0.45,
        ..FtlConfig::default()
    }
}

/// Fills both ways and checks that the formula was (or was not) used and that the
/// states agree.
fn both_ways(cfg: &FtlConfig, n: u32, layout: &FillPattern, want_implicit: bool) -> Ftl {
    let g = small();
    let (replayed, r0) = build(cfg, &g, n, &full_fill(), layout, None);
    let (implicit, r1) = build(cfg, &g, n, &full_fill(), layout, Some(layout));
    assert_eq!(r1.implicit, want_implicit, "{r1:?}");
    assert!(!r0.implicit);
    assert_eq!(implicit.diff_state(&replayed), None);
    implicit.check_invariants();
    implicit
}

/// LPNs `0 .. n` striped over the 4 planes of [`small`].
fn striped(n: u32) -> FillPattern {
    let mut p = FillPattern::new(4);
    p.push(0, n, &[PlaneId(0), PlaneId(1), PlaneId(2), PlaneId(3)]);
    p
}

#[test]
fn the_formula_is_used_where_it_is_exact_and_the_replay_elsewhere() {
    let g = small();
    let cfg = small_cfg();
    let n = cfg.logical_pages(&g);
    let even = striped(n);
    let f = both_ways(&cfg, n, &even, true);
    assert_eq!(f.lookup(Lpn(5)), Some(ssdlab_nand::Ppn(32 + 1)));

    // One plane takes half the pages: it would reach the GC threshold (and its reserve).
    let mut skewed = FillPattern::new(4);
    skewed.push(0, n, &[PlaneId(0), PlaneId(0), PlaneId(1), PlaneId(2)]);
    both_ways(&cfg, n, &skewed, false);

    // A content index is kept page by page.
    let (mut a, mut b) = (
        Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap(),
        Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap(),
    );
    let index = ContentIndexConfig {
        unit: ContentUnit::Chip,
        filter: ContentFilter::Exact,
        bloom_bits_per_page: 10,
        bloom_hashes: 3,
        bloom_rebuild_writes: 0,
    };
    a.enable_content_index(&index);
    b.enable_content_index(&index);
    let mut place = |l| even.plane_of(l);
    let r = a.precondition(&full_fill(), Some(&even), &mut place, &mut SimRng::new(2));
    assert!(!r.implicit);
    b.precondition(&full_fill(), None, &mut place, &mut SimRng::new(2));
    assert_eq!(a.diff_state(&b), None);
    a.check_invariants();

    // A device already written to is not fresh: the fill is replayed on top.
    let mut used = Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap();
    let ppn = used.host_write(Lpn(3), PlaneId(1), 77).unwrap();
    used.program_done(ppn);
    let r = used.precondition(&full_fill(), Some(&even), &mut place, &mut SimRng::new(2));
    assert!(!r.implicit);
    used.check_invariants();
}

#[test]
fn pages_the_run_touches_leave_the_formula_and_erased_blocks_forget_it() {
    let g = small();
    let cfg = small_cfg();
    let n = cfg.logical_pages(&g);
    let mut f = both_ways(&cfg, n, &striped(n), true);
    let old = f.lookup(Lpn(0)).unwrap();
    let token = f.token(old);
    assert_eq!(token, ssdlab_ftl::token_for(Lpn(0), 1));
    // Overwrite every LPN of block 0 of plane 0 (LPNs 0, 4, 8, 12): it is all invalid.
    for l in [0, 4, 8, 12] {
        let p = f
            .host_write(Lpn(l), PlaneId(0), 1000 + u64::from(l))
            .unwrap();
        f.program_done(p);
    }
    assert_eq!(f.page_owner(old), ssdlab_ftl::PageOwner::Invalid);
    assert_eq!(f.token(old), token, "stale data stays readable");
    f.trim(Lpn(1));
    assert_eq!(f.lookup(Lpn(1)), None);
    f.check_invariants();
    let v = f.select_victim(PlaneId(0)).unwrap();
    assert_eq!(v.0, 0);
    assert!(f.erasable(v));
    f.erase_done(v);
    assert_eq!(f.page_owner(old), ssdlab_ftl::PageOwner::Free);
    assert_eq!(f.token(old), 0);
    f.check_invariants();
    // A custom content replaces the fill's tokens, and set_token can write any token
    // (0 included) over it.
    let custom = FillPattern::new(4);
    let mut custom = custom.with_content(std::sync::Arc::new(|l: Lpn| u64::from(l.0) * 3));
    custom.push(0, n, &[PlaneId(0), PlaneId(1), PlaneId(2), PlaneId(3)]);
    let mut f = Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap();
    let r = f.precondition(
        &full_fill(),
        Some(&custom),
        &mut |l| custom.plane_of(l),
        &mut SimRng::new(2),
    );
    assert!(r.implicit);
    let p = f.lookup(Lpn(7)).unwrap();
    assert_eq!(f.token(p), 21);
    f.set_token(p, 0);
    assert_eq!(f.token(p), 0);
    f.set_token(p, 9);
    assert_eq!(f.token(p), 9);
    f.check_invariants();
}

#[test]
fn a_pattern_shorter_than_the_fill_is_refused() {
    let g = small();
    let cfg = small_cfg();
    let n = cfg.logical_pages(&g);
    let mut short = FillPattern::new(4);
    short.push(0, n - 1, &[PlaneId(0), PlaneId(1), PlaneId(2), PlaneId(3)]);
    let mut f = Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        f.precondition(
            &full_fill(),
            Some(&short),
            &mut |_| PlaneId(0),
            &mut SimRng::new(2),
        )
    }));
    assert!(r.is_err());
}

#[test]
fn the_driver_runs_on_an_implicit_device() {
    let g = small();
    let cfg = small_cfg();
    let n = cfg.logical_pages(&g);
    let stripe = AllocOrder::CWDP.stripe_map(&g);
    let period: Vec<PlaneId> = (0..4).map(|l| stripe.plane_of(Lpn(l))).collect();
    let mut p = FillPattern::new(4);
    p.push(0, n, &period);
    let (f, r) = build(&cfg, &g, n, &full_fill(), &p, Some(&p));
    assert!(r.implicit);
    let mut d = Driver::on(f, Box::new(move |l| stripe.plane_of(l)), r.last_version);
    for i in 0..3000u32 {
        let op = match i % 5 {
            0..=2 => Op::Write(i.wrapping_mul(2_654_435_761) >> 7),
            3 => Op::Gc(i, i as usize),
            _ => Op::Complete(i as usize),
        };
        d.apply(&op);
    }
    d.drain();
    d.check_final();
    assert!(d.ftl.counters().erases > 20);
}
