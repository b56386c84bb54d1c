//! Zero-time preconditioning (docs/ARCHITECTURE.md §12): fill and age the drive directly in the
//! data structures before replay, so GC studies start in steady state instead of on a
//! fresh drive where every write lands in an erased block.
//!
//! 1. Sequential fill: LPNs `0 .. fill_ratio × map_entries`, in order (the map entries
//!    that count against the capacity: never the controller's slots, [`Ftl::with_slots`]).
//! 2. Random overwrites: `overwrite_ratio × map_entries` writes, each to an LPN drawn
//!    uniformly from the filled range.
//!
//! Every write goes to the plane `place` gives (the controller's placement) and completes
//! at once; GC runs instantly inside the plane whenever [`Ftl::gc_needed`] says so, with
//! the configured victim policy and wear leveling. Block erase counts keep the aging; the
//! event counters are reset afterwards so that the replay's statistics start from zero.
//!
//! When the caller gives the fill's layout as a [`FillPattern`], the fill takes its planes
//! from it, and where the pattern makes the result a formula (see [`crate::fill`]) the
//! fill is laid out implicitly instead of written page by page: same state, no time, and
//! no table entry for a page until something touches it. The random overwrites always
//! run page by page, on top.

use serde::Serialize;
use ssdlab_engine::SimRng;
use ssdlab_nand::{Lpn, PlaneId, Ppn};

use crate::config::{PreconditionConfig, VictimPolicy};
use crate::fill::FillPattern;
use crate::ftl::{Ftl, NoSpace};
use crate::stats::FtlCounters;
use crate::token_for;

/// Random overwrites whose map entries set-up reads together before writing them (see
/// `Mapping::warm`).
const WARM_BATCH: usize = 32;

/// At most this many bytes of random overwrites are held at once when they are written
/// plane by plane ([`Ftl::precondition_static`]): more planes than fit are taken in
/// groups, each drawing the whole stream again.
const PLANE_BATCH_BYTES: u64 = 256 << 20;

/// The `overwrites` random overwrites after a fill of `fill` LPNs, drawn from `rng`:
/// `(LPN, version)`.
fn draws(
    rng: &mut SimRng,
    fill: u32,
    hot: u32,
    overwrites: u64,
) -> impl Iterator<Item = (Lpn, u32)> + '_ {
    (0..overwrites).map(move |i| {
        let l = Lpn(rng.below(u64::from(hot)) as u32);
        (l, overwrite_version(fill, i))
    })
}

/// The version of the `i`-th random overwrite (from 0) after a fill of `fill` LPNs: the
/// fill writes versions `1 ..= fill`, the overwrites continue the sequence (wrapping past
/// `u32::MAX`).
pub(crate) fn overwrite_version(fill: u32, i: u64) -> u32 {
    (u64::from(fill) + i + 1) as u32
}

/// What preconditioning did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PreconditionReport {
    /// Whether it ran (`enabled` was set).
    pub ran: bool,
    /// Whether the sequential fill was laid out by formula (see [`FillPattern`]) rather
    /// than written page by page; the state is the same either way.
    pub implicit: bool,
    /// LPNs written by the sequential fill.
    pub filled: u64,
    /// Random overwrites performed.
    pub overwrites: u64,
    /// Writes that found no room even after GC (their plane is full of valid data, which
    /// means `place` puts more LPNs in it than it can hold); they were skipped.
    pub unplaced: u64,
    /// GC runs (victims erased).
    pub gc_runs: u64,
    /// Pages GC moved.
    pub gc_pages_moved: u64,
    /// The last write version used: tokens are `token_for(lpn, v)` for a global write
    /// sequence number `v` in `1..=last_version` (wrapping past `u32::MAX`). Later writes
    /// should use larger versions so that their tokens differ.
    pub last_version: u32,
    /// Valid pages on the device afterwards.
    pub valid_pages: u64,
    /// Invalid pages on the device afterwards.
    pub invalid_pages: u64,
}

impl PreconditionReport {
    /// The report of a preconditioning that ran, before anything was written.
    pub(crate) fn started() -> Self {
        PreconditionReport {
            ran: true,
            ..PreconditionReport::default()
        }
    }
}

impl Ftl {
    /// Fills and ages the device in zero simulated time (see the module docs). Does
    /// nothing unless `cfg.enabled`. Must run on an idle FTL (no GC running, no program
    /// outstanding in the planes it writes to).
    ///
    /// `pattern`, when given, is where the sequential fill puts LPNs `0 ..`
    /// [`Ftl::fill_count`] (it must cover them, and agree with `place`, which then places
    /// only the overwrites); without it `place` places every write.
    pub fn precondition(
        &mut self,
        cfg: &PreconditionConfig,
        pattern: Option<&FillPattern>,
        place: &mut dyn FnMut(Lpn) -> PlaneId,
        rng: &mut SimRng,
    ) -> PreconditionReport {
        self.precondition_with(cfg, pattern, place, rng, None)
    }

    /// [`Ftl::precondition`] where `place` is a function of the LPN alone (a static
    /// layout: every write of an LPN goes to one plane). The planes then age
    /// independently of one another, and with a victim policy that reads neither the
    /// device's write clock nor a random stream (greedy) the random overwrites are
    /// written plane by plane, each plane's in the order drawn: the same writes, GC and
    /// state as in the order drawn (`implicit_fill_equals_the_replayed_fill`), but one
    /// plane's tables at a time instead of the whole device's, so that the work stays in
    /// the cache. Only the blocks' write stamps differ, which only cost-benefit reads.
    /// Since `place` is the fill's own layout, the overwrites take their planes from
    /// `pattern` too when it is given (a table look-up rather than the layout's
    /// arithmetic).
    pub fn precondition_static(
        &mut self,
        cfg: &PreconditionConfig,
        pattern: Option<&FillPattern>,
        place: &mut dyn FnMut(Lpn) -> PlaneId,
        rng: &mut SimRng,
    ) -> PreconditionReport {
        let by_plane = self.policy.kind() == VictimPolicy::Greedy && self.content.is_none();
        let batch = by_plane.then_some(PLANE_BATCH_BYTES);
        let mut fixed = |l: Lpn| match pattern {
            Some(p) => p.plane_of(l),
            None => place(l),
        };
        self.precondition_with(cfg, pattern, &mut fixed, rng, batch)
    }

    /// Preconditions, writing the overwrites plane by plane, at most `by_plane` bytes of
    /// them held at once, when that is given.
    fn precondition_with(
        &mut self,
        cfg: &PreconditionConfig,
        pattern: Option<&FillPattern>,
        place: &mut dyn FnMut(Lpn) -> PlaneId,
        rng: &mut SimRng,
        by_plane: Option<u64>,
    ) -> PreconditionReport {
        if !cfg.enabled {
            return PreconditionReport::default();
        }
        let (fill, overwrites) = self.precondition_amounts(cfg);
        let hot = self.hot_count(cfg, fill);
        if let Some(p) = pattern {
            assert!(p.end() >= fill, "the fill pattern ends before the fill");
        }
        let implicit = pattern.is_some_and(|p| self.fill_implicitly(p, fill));
        let fills = (0..if implicit { 0 } else { fill }).map(|l| (Lpn(l), l.wrapping_add(1)));
        // The fill's planes come from the pattern when there is one; `place` then places
        // only the overwrites (a stateful policy has been moved past the fill).
        let mut at = |l: Lpn, filling: bool| match pattern {
            Some(p) if filling => p.plane_of(l),
            _ => place(l),
        };
        let overwrites = if fill > 0 { overwrites } else { 0 };
        let mut report = if let Some(batch) = by_plane.filter(|_| overwrites > 0) {
            let mut report = PreconditionReport::started();
            self.replay_writes(fills, std::iter::empty(), &mut at, token_for, &mut report);
            let start = rng.clone();
            for planes in self.plane_groups(overwrites, batch) {
                // Each group of planes draws the whole stream again and keeps its own.
                *rng = start.clone();
                let mut mine: Vec<Vec<(Lpn, u32)>> = vec![Vec::new(); planes.len()];
                for (l, v) in draws(rng, fill, hot, overwrites) {
                    let p = at(l, false).0;
                    if planes.contains(&p) {
                        mine[(p - planes.start) as usize].push((l, v));
                    }
                }
                let mine = mine.into_iter().flatten();
                self.replay_writes(std::iter::empty(), mine, &mut at, token_for, &mut report);
            }
            self.close_aging(&mut report);
            report
        } else {
            self.age_by_replay(fills, draws(rng, fill, hot, overwrites), &mut at, token_for)
        };
        if implicit {
            report.implicit = true;
            report.filled = u64::from(fill);
        }
        report.last_version = if fill > 0 {
            overwrite_version(fill, overwrites).wrapping_sub(1)
        } else {
            0
        };
        report
    }

    /// The planes in consecutive groups, each group's share of `overwrites` random
    /// overwrites (8 bytes each) within about `batch` bytes (one plane at least).
    fn plane_groups(
        &self,
        overwrites: u64,
        batch: u64,
    ) -> impl Iterator<Item = std::ops::Range<u32>> {
        let planes = self.geom.planes();
        let bytes = overwrites.saturating_mul(8);
        let groups = bytes.div_ceil(batch.max(1)).clamp(1, u64::from(planes)) as u32;
        let per = planes.div_ceil(groups);
        (0..planes)
            .step_by(per as usize)
            .map(move |p| p..(p + per).min(planes))
    }

    /// The LPNs the random overwrites draw from, `0 .. hot`: the first `hot_set_ratio`
    /// of a fill of `fill` LPNs (at least one).
    pub(crate) fn hot_count(&self, cfg: &PreconditionConfig, fill: u32) -> u32 {
        ((cfg.hot_set_ratio * f64::from(fill)).round() as u32).clamp(1, fill.max(1))
    }

    /// LPNs the sequential fill writes (`0 .. fill`) and the random overwrites after it.
    pub(crate) fn precondition_amounts(&self, cfg: &PreconditionConfig) -> (u32, u64) {
        let n = self.counted_entries();
        let fill = self.fill_count(cfg);
        let overwrites = (cfg.overwrite_ratio * f64::from(n)).round() as u64;
        (fill, overwrites)
    }

    /// The writes `fills` then `overwrites`, each `(lpn, version)`, completed at once with
    /// instant GC, each in the plane `at(lpn, filling)` gives; the write of version `v` of
    /// LPN `l` carries `token(l, v)`.
    pub(crate) fn age_by_replay(
        &mut self,
        fills: impl Iterator<Item = (Lpn, u32)>,
        overwrites: impl Iterator<Item = (Lpn, u32)>,
        at: &mut dyn FnMut(Lpn, bool) -> PlaneId,
        token: fn(Lpn, u32) -> u64,
    ) -> PreconditionReport {
        let mut report = PreconditionReport::started();
        self.replay_writes(fills, overwrites, at, token, &mut report);
        self.close_aging(&mut report);
        report
    }

    /// [`Ftl::age_by_replay`]'s writes, counted into `report`.
    fn replay_writes(
        &mut self,
        fills: impl Iterator<Item = (Lpn, u32)>,
        overwrites: impl Iterator<Item = (Lpn, u32)>,
        at: &mut dyn FnMut(Lpn, bool) -> PlaneId,
        token: fn(Lpn, u32) -> u64,
        report: &mut PreconditionReport,
    ) {
        let mut buf = Vec::with_capacity(self.geom.pages_per_block as usize);
        for (l, v) in fills {
            self.pre_write(l, token(l, v), at(l, true), &mut buf, report);
            report.filled += 1;
        }
        // Random overwrites, drawn a batch ahead (the draws depend on nothing the writes
        // change) so that the batch's map entries are read together first.
        let mut overwrites = overwrites;
        let mut batch: Vec<(Lpn, u32)> = Vec::with_capacity(WARM_BATCH);
        loop {
            batch.clear();
            batch.extend(overwrites.by_ref().take(WARM_BATCH));
            if batch.is_empty() {
                break;
            }
            self.map.warm(batch.iter().map(|&(l, _)| l));
            for &(l, v) in &batch {
                self.pre_write(l, token(l, v), at(l, false), &mut buf, report);
                report.overwrites += 1;
            }
        }
    }

    /// The end of aging: the device's pages and the GC work into `report`, and the event
    /// counters back to zero.
    fn close_aging(&mut self, report: &mut PreconditionReport) {
        let s = self.device_state();
        report.valid_pages = s.valid_pages;
        report.invalid_pages = s.invalid_pages;
        report.gc_runs = self.counters.erases;
        report.gc_pages_moved = self.counters.gc_pages_moved;
        self.counters = FtlCounters::default();
    }

    /// One completed write, with instant GC in its plane before (if the plane is out of
    /// space) and after (while GC is due).
    fn pre_write(
        &mut self,
        lpn: Lpn,
        token: u64,
        plane: PlaneId,
        buf: &mut Vec<(Ppn, Lpn)>,
        report: &mut PreconditionReport,
    ) {
        if self.write_with_gc(lpn, plane, token, buf).is_err() {
            report.unplaced += 1;
        }
    }

    /// Writes `lpn` with `token` into `plane` in zero time: the program completes at
    /// once, and GC runs instantly in the plane before the write (if the plane is out
    /// of space) and after it (while GC is due). `Err` if the plane has no room even
    /// after GC (it holds more valid pages than it can). Set-up work like
    /// preconditioning: the event counters are left as they were.
    pub fn write_now(&mut self, lpn: Lpn, plane: PlaneId, token: u64) -> Result<Ppn, NoSpace> {
        let counters = self.counters.clone();
        let mut buf = Vec::new();
        let written = self.write_with_gc(lpn, plane, token, &mut buf);
        self.counters = counters;
        written
    }

    fn write_with_gc(
        &mut self,
        lpn: Lpn,
        plane: PlaneId,
        token: u64,
        buf: &mut Vec<(Ppn, Lpn)>,
    ) -> Result<Ppn, NoSpace> {
        let written = loop {
            match self.host_write(lpn, plane, token) {
                Ok(ppn) => {
                    self.program_done(ppn);
                    break Ok(ppn);
                }
                Err(_) if self.instant_gc(plane, buf) => {}
                Err(e) => break Err(e),
            }
        };
        while self.gc_needed(plane) && self.instant_gc(plane, buf) {}
        written
    }

    /// One whole GC in `plane` in zero time; `false` if there was no victim.
    pub(crate) fn instant_gc(&mut self, plane: PlaneId, buf: &mut Vec<(Ppn, Lpn)>) -> bool {
        let Some(victim) = self.select_victim(plane) else {
            return false;
        };
        self.victim_valid_pages(victim, buf);
        if !buf.is_empty() {
            let plane = self.geom.plane_of_block(victim);
            self.blocks.planes[plane.idx()].victim_moved = true;
            for &(src, lpn) in buf.iter() {
                self.move_now(src, lpn, plane);
            }
        }
        self.erase_done(victim);
        true
    }

    /// Moves `src`, valid page of `lpn` in a victim of `plane`, with nothing else
    /// running: [`Ftl::gc_begin_move`] then [`Ftl::gc_finish_move`], the same changes
    /// without the checks that something ran in between (the victim's moves-out count
    /// would rise and fall back).
    #[inline]
    fn move_now(&mut self, src: Ppn, lpn: Lpn, plane: PlaneId) {
        debug_assert!(self.map.lookup(lpn) == Some(src));
        let dst = self.gc_copy(src, lpn, plane);
        self.map.clear_pending(dst);
        self.blocks.program_done(self.geom.block_of_page(dst).0);
        self.gc_commit(src, dst, lpn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{small_cfg, tiny};
    use crate::{AllocOrder, VictimPolicy};

    fn run(victim: VictimPolicy, fill: f64, overwrite: f64) -> (Ftl, PreconditionReport) {
        let g = tiny();
        let mut cfg = small_cfg();
        cfg.gc.victim = victim;
        let mut f = Ftl::new(&cfg, &g, cfg.logical_pages(&g), SimRng::new(3)).unwrap();
        let m = AllocOrder::CWDP.stripe_map(&g);
        let pre = PreconditionConfig {
            enabled: true,
            fill_ratio: fill,
            overwrite_ratio: overwrite,
            ..PreconditionConfig::default()
        };
        let r = f.precondition(&pre, None, &mut |l| m.plane_of(l), &mut SimRng::new(4));
        (f, r)
    }

    /// The shortcuts the instant GC takes (`valid_pages`, `token_of`) agree with the
    /// general accessors on every page of filled and aged devices.
    #[test]
    fn the_instant_gc_s_page_accessors_are_the_general_ones() {
        use crate::mapping::PageOwner;
        for (fill, overwrite) in [(1.0, 0.0), (0.7, 0.0), (1.0, 0.5), (0.8, 1.5)] {
            let g = tiny();
            let cfg = small_cfg();
            let n = cfg.logical_pages(&g);
            let mut f = Ftl::new(&cfg, &g, n, SimRng::new(3)).unwrap();
            let m = AllocOrder::CWDP.stripe_map(&g);
            let period: Vec<PlaneId> = (0..g.planes()).map(|l| m.plane_of(Lpn(l))).collect();
            let mut pattern = FillPattern::new(g.planes());
            pattern.push(0, n, &period);
            let pre = PreconditionConfig {
                enabled: true,
                fill_ratio: fill,
                overwrite_ratio: overwrite,
                ..PreconditionConfig::default()
            };
            f.precondition(
                &pre,
                Some(&pattern),
                &mut |l| m.plane_of(l),
                &mut SimRng::new(4),
            );
            assert!(f.map.has_fill(), "laid out by the fill's formula");
            f.check_invariants();
            let mut valid = 0;
            let ppb = f.geometry().pages_per_block;
            let mut got = Vec::new();
            for b in 0..f.geometry().blocks() {
                let first = Ppn(b * ppb);
                f.map.valid_pages(first, ppb, &mut got);
                let expected: Vec<(Ppn, Lpn)> = (first.0..first.0 + ppb)
                    .map(Ppn)
                    .filter_map(|p| match f.map.owner(p) {
                        PageOwner::Lpn(l) => {
                            assert_eq!(f.map.token_of(p, l), f.map.token(p), "{p}");
                            (f.map.lookup(l) == Some(p)).then_some((p, l))
                        }
                        _ => None,
                    })
                    .collect();
                assert_eq!(got, expected, "{fill} {overwrite}: block {b}");
                valid += got.len();
            }
            assert!(valid > 0);
        }
    }

    /// Plane by plane in groups: one plane per group (the stream drawn once per plane),
    /// a few planes per group, all planes at once; each the device aged in the order
    /// drawn, but for the blocks' write stamps, and the caller's stream left where the
    /// order drawn leaves it.
    #[test]
    fn planes_in_groups_age_as_the_order_drawn() {
        let g = tiny();
        let cfg = small_cfg();
        let m = AllocOrder::CWDP.stripe_map(&g);
        let pre = PreconditionConfig {
            enabled: true,
            overwrite_ratio: 1.5,
            ..PreconditionConfig::default()
        };
        let aged = |batch: Option<u64>| {
            let mut f = Ftl::new(&cfg, &g, cfg.logical_pages(&g), SimRng::new(3)).unwrap();
            let mut rng = SimRng::new(4);
            let r = f.precondition_with(&pre, None, &mut |l| m.plane_of(l), &mut rng, batch);
            (f, r, rng.next_u64())
        };
        let (drawn, r0, next0) = aged(None);
        assert!(r0.gc_runs > 0, "{r0:?}");
        let overwrites = r0.overwrites;
        for batch in [1, 8 * overwrites / 3, u64::MAX] {
            let groups = drawn.plane_groups(overwrites, batch).count();
            let (f, r, next) = aged(Some(batch));
            assert_eq!((&r, next), (&r0, next0), "batch {batch}");
            f.check_invariants();
            assert_eq!(f.diff_state_but_stamps(&drawn), None, "batch {batch}");
            let want = match batch {
                1 => g.planes() as usize,
                u64::MAX => 1,
                _ => 3,
            };
            assert_eq!(groups, want, "batch {batch}");
        }
    }

    /// With a hot set, the overwrites rewrite only its LPNs: every other LPN keeps the
    /// fill's version, and GC, collecting blocks of the hot set, moves fewer pages per
    /// run than after the same number of uniform overwrites.
    #[test]
    fn overwrites_stay_in_the_hot_set_and_leave_cheap_victims() {
        let age = |hot: f64| {
            let g = tiny();
            let cfg = small_cfg();
            let mut f = Ftl::new(&cfg, &g, cfg.logical_pages(&g), SimRng::new(3)).unwrap();
            let m = AllocOrder::CWDP.stripe_map(&g);
            let pre = PreconditionConfig {
                enabled: true,
                overwrite_ratio: 2.0,
                hot_set_ratio: hot,
                ..PreconditionConfig::default()
            };
            let r = f.precondition(&pre, None, &mut |l| m.plane_of(l), &mut SimRng::new(4));
            f.check_invariants();
            (f, r)
        };
        let (f, hot) = age(0.25);
        assert_eq!(
            f.hot_count(
                &PreconditionConfig {
                    hot_set_ratio: 0.25,
                    ..PreconditionConfig::default()
                },
                140
            ),
            35
        );
        let rewritten = |l: u32| f.token(f.lookup(Lpn(l)).unwrap()) != token_for(Lpn(l), l + 1);
        assert!(
            (35..140).all(|l| !rewritten(l)),
            "a cold LPN was overwritten"
        );
        assert!((0..35).filter(|&l| rewritten(l)).count() > 30);
        let (_, uniform) = age(1.0);
        assert_eq!(hot.overwrites, uniform.overwrites);
        assert!(hot.gc_runs > 0 && uniform.gc_runs > 0);
        let per_run = |r: &PreconditionReport| r.gc_pages_moved as f64 / r.gc_runs as f64;
        assert!(
            per_run(&hot) < per_run(&uniform),
            "hot {hot:?} uniform {uniform:?}"
        );
    }

    #[test]
    fn full_fill_plus_half_overwrite_reaches_steady_state() {
        for victim in [
            VictimPolicy::Greedy,
            VictimPolicy::CostBenefit,
            VictimPolicy::Random,
        ] {
            let (f, r) = run(victim, 1.0, 0.5);
            f.check_invariants();
            let n = f.map_entries();
            assert_eq!(n, 140);
            assert_eq!(r.filled, 140);
            assert_eq!(r.overwrites, 70);
            assert_eq!(r.unplaced, 0);
            for l in 0..n {
                let p = f.lookup(Lpn(l)).expect("every LPN is mapped");
                assert!(f.is_valid(p));
                assert!(!f.is_pending(p));
                assert_ne!(f.token(p), 0);
            }
            for p in 0..f.geometry().planes() {
                let s = f.plane_state(PlaneId(p));
                assert!(s.free_blocks >= 2, "plane {p}: {s:?}");
                assert!(!s.gc_active);
            }
            assert_eq!(r.valid_pages, 140);
            assert!(r.invalid_pages > 0, "{victim:?}: GC must have work: {r:?}");
            assert!(r.gc_runs > 0, "{r:?}");
            assert_eq!(
                f.counters(),
                &FtlCounters::default(),
                "counters start at zero"
            );
            assert!(f.erase_count_summary().max > 0);
        }
    }

    #[test]
    fn partial_fill_and_disabled() {
        let (f, r) = run(VictimPolicy::Greedy, 0.5, 1.0);
        assert_eq!(r.filled, 70);
        assert_eq!(f.lookup(Lpn(70)), None);
        assert!(f.lookup(Lpn(69)).is_some());
        assert_eq!(r.last_version, 70 + 140);
        let (f0, r0) = run(VictimPolicy::Greedy, 0.0, 1.0);
        assert_eq!((r0.filled, r0.overwrites), (0, 0));
        assert_eq!(f0.lookup(Lpn(0)), None);
        let g = tiny();
        let cfg = small_cfg();
        let mut f = Ftl::new(&cfg, &g, 10, SimRng::new(3)).unwrap();
        let r = f.precondition(
            &PreconditionConfig::default(),
            None,
            &mut |_| PlaneId(0),
            &mut SimRng::new(1),
        );
        assert!(!r.ran);
        assert_eq!(f.lookup(Lpn(0)), None);
    }

    #[test]
    fn overloaded_plane_reports_unplaced_writes() {
        let g = tiny();
        let cfg = small_cfg();
        let mut f = Ftl::new(&cfg, &g, 100, SimRng::new(3)).unwrap();
        let pre = PreconditionConfig {
            enabled: true,
            fill_ratio: 1.0,
            overwrite_ratio: 0.0,
            ..PreconditionConfig::default()
        };
        let r = f.precondition(&pre, None, &mut |_| PlaneId(0), &mut SimRng::new(1));
        assert_eq!(
            r.unplaced,
            100 - 24,
            "host writes fill the 6 blocks outside the reserve"
        );
        f.check_invariants();
    }
}
