//! Sampled aging (`ftl.precondition.aging = "sampled"`): the random overwrites of
//! preconditioning replayed on a few sample planes instead of the whole device.
//!
//! With a static layout (static or HIPA allocation, the chip-level RAID layouts) the fill
//! puts LPN `l` in the plane its pattern gives, every overwrite of `l` goes back to that
//! plane, and GC never leaves a plane: the planes age independently of one another.
//! Plane `p` holds the LPNs the fill puts there, its *ranks* `k = 0 .. n_p` in LPN order,
//! and receives the fill of those ranks in order, then the overwrites that the replay's
//! random draws send to it.
//!
//! So the replay's draws are made (the same stream, in the same order), but only those of
//! `sample_planes` sample planes are kept, and each sample plane's fill and overwrites are
//! replayed, with the FTL's own write path, GC policy and wear leveling, on a one-plane FTL
//! of the same block geometry (the samples in parallel). A sample plane's state is then
//! exactly what the whole-device replay gives it (but for cost-benefit's age stamps, which
//! the device's clock advances across all planes: they are scaled by the number of
//! planes, and for the random victim policy's draws). Every other plane takes the state of
//! one sample with its own LPNs: blocks (valid counts, write pointers, erase counts, bucket
//! lists, free pool, frontiers), pages (owners, tokens `token_for(lpn, version)`) and map
//! entries. What is lost is independence between the planes that share a sample.
//!
//! A RAID layout's redundancy pages are LPNs of the fill like the others (the replay
//! overwrites them too); the controller gives them their content after aging, as after
//! the replay. Anything else (dynamic or content-aware allocation, controller slots, a
//! content index, a device not fresh) takes the page-by-page replay.

use ssdlab_engine::SimRng;
use ssdlab_nand::{Geometry, Lpn, PlaneId};
use std::cmp::Reverse;

use crate::block::{BlockManager, NONE};
use crate::config::{Aging, PreconditionConfig};
use crate::fill::{FillPattern, ImplicitFill};
use crate::ftl::Ftl;
use crate::gc;
use crate::mapping::{LpnDeltas, Mapping, SampledBase};
use crate::precondition::{overwrite_version, PreconditionReport};
use crate::stats::FtlCounters;

/// One aged sample plane: how many ranks it holds, and its tables.
struct Sample {
    ranks: u32,
    map: Mapping,
    blocks: BlockManager,
    stamp: u64,
    erases_total: u64,
    report: PreconditionReport,
}

impl Ftl {
    /// [`Ftl::precondition`] for a device whose fill is laid out by `pattern` (which must
    /// cover the fill) and whose every write of an LPN goes to the plane the pattern
    /// gives, with `cfg.aging = "sampled"`: the sampled aging of the module docs, or
    /// `None` (and nothing done) where it does not apply, for the caller to precondition
    /// as usual.
    pub fn precondition_sampled(
        &mut self,
        cfg: &PreconditionConfig,
        pattern: &FillPattern,
        rng: &mut SimRng,
    ) -> Option<PreconditionReport> {
        let (fill, overwrites) = self.precondition_amounts(cfg);
        let applies = cfg.enabled
            && cfg.aging == Aging::Sampled
            && fill > 0
            && overwrites > 0
            && pattern.end() >= fill
            && pattern.planes() == self.geom.planes()
            && self.slots == 0
            && self.content.is_none()
            && self.is_fresh();
        applies.then(|| {
            let ranks = ImplicitFill::new(pattern, fill, &self.geom);
            let hot = self.hot_count(cfg, fill);
            self.age_sampled(overwrites, hot, cfg.sample_planes, ranks, rng)
        })
    }

    /// No page written and no block erased yet.
    fn is_fresh(&self) -> bool {
        self.stamp == 0 && self.erases_total == 0
    }

    fn age_sampled(
        &mut self,
        overwrites: u64,
        hot: u32,
        sample_planes: u32,
        layout: ImplicitFill,
        rng: &mut SimRng,
    ) -> PreconditionReport {
        let fill = layout.fill();
        let planes = self.geom.planes();
        let plane_pages = self.geom.blocks_per_plane * self.geom.pages_per_block;
        let ranks: Vec<u32> = layout.filled_per_plane().to_vec();
        // Planes grouped by rank count (a static layout gives a few counts). Each
        // group's first `k` planes (`k` in proportion to the group's size, at least one)
        // are its samples; member `i` of a group takes sample `i mod k`.
        let mut counts = ranks.clone();
        counts.sort_unstable();
        counts.dedup();
        let mut sample_of = vec![usize::MAX; planes as usize]; // plane -> its sample
        let mut assign = vec![0usize; planes as usize]; // plane -> the sample it takes
        let mut sampled: Vec<u32> = Vec::new(); // sample -> its plane
        for &n in &counts {
            let members: Vec<u32> = (0..planes).filter(|&p| ranks[p as usize] == n).collect();
            let k = (u64::from(sample_planes) * members.len() as u64)
                .div_ceil(u64::from(planes))
                .clamp(1, members.len() as u64) as usize;
            let base = sampled.len();
            for (i, &p) in members.iter().enumerate() {
                if i < k {
                    sample_of[p as usize] = base + i;
                    sampled.push(p);
                }
                assign[p as usize] = base + i % k;
            }
        }
        // The replay's own draws, in its order: each overwrite landing in a sample plane
        // is kept as (rank, version).
        let mut draws: Vec<Vec<(u32, u32)>> = vec![Vec::new(); sampled.len()];
        for i in 0..overwrites {
            let l = rng.below(u64::from(hot)) as u32;
            let (plane, rank) = layout.plane_rank(Lpn(l));
            if let Some(d) = draws.get_mut(sample_of[plane as usize]) {
                d.push((rank, overwrite_version(fill, i)));
            }
        }
        let jobs = sampled
            .iter()
            .zip(draws)
            .map(|(&p, d)| (p, ranks[p as usize], d));
        let samples = self.run_samples(jobs.collect(), &layout, rng);
        let mut report = PreconditionReport {
            filled: u64::from(fill),
            last_version: overwrite_version(fill, overwrites).wrapping_sub(1),
            ..PreconditionReport::started()
        };
        for p in 0..planes {
            let s = &samples[assign[p as usize]];
            self.take_blocks(PlaneId(p), s);
            report.overwrites += s.report.overwrites;
            report.unplaced += s.report.unplaced;
            report.gc_runs += s.report.gc_runs;
            report.gc_pages_moved += s.report.gc_pages_moved;
        }
        // Pages and map entries are read through to the samples (`SampledBase`).
        let first = (0..planes)
            .map(|p| layout.lpn_of(p, 0).map_or(0, |l| l.0))
            .collect();
        let sampled = SampledBase {
            assign: assign.iter().map(|&a| a as u32).collect(),
            first,
            deltas: LpnDeltas::new(layout.fill()),
            ranks: layout,
            plane_pages,
            samples: samples.into_iter().map(|s| (s.ranks, s.map)).collect(),
        };
        self.map.set_sampled(sampled, self.geom.pages_per_block);
        let st = self.device_state();
        report.valid_pages = st.valid_pages;
        report.invalid_pages = st.invalid_pages;
        self.counters = FtlCounters::default();
        report
    }

    /// Ages one one-plane FTL per job `(plane, ranks, overwrites)` on up to the
    /// machine's cores: the fill of ranks `0 .. ranks` (rank `r` of the plane is the LPN
    /// `layout` puts in its page `r`, whose fill version is that LPN + 1), then the
    /// overwrites `(rank, version)`. Tokens hold the bare version until the pages are
    /// taken.
    fn run_samples(
        &self,
        jobs: Vec<SampleJob>,
        layout: &ImplicitFill,
        rng: &SimRng,
    ) -> Vec<Sample> {
        let geom = Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            ..self.geom
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per = jobs.len().div_ceil(threads).max(1);
        let mut jobs: Vec<_> = jobs
            .into_iter()
            .enumerate()
            .map(|(i, (p, n, d))| {
                let rng = rng.fork(&format!("sampled-aging/victim/{i}"));
                (self.one_plane_like(&geom, n, rng), p, d)
            })
            .collect();
        let mut out = Vec::new();
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            while !jobs.is_empty() {
                let chunk: Vec<_> = jobs.drain(..per.min(jobs.len())).collect();
                handles.push(scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|(mut ftl, p, draws)| {
                            let n = ftl.map_entries();
                            let fills = (0..n).map(|r| {
                                let l = layout.lpn_of(p, r).expect("a filled rank");
                                (Lpn(r), l.0.wrapping_add(1))
                            });
                            let overwrites = draws.into_iter().map(|(r, v)| (Lpn(r), v));
                            let report = ftl.age_by_replay(
                                fills,
                                overwrites,
                                &mut |_, _| PlaneId(0),
                                raw_version,
                            );
                            Sample {
                                ranks: n,
                                map: ftl.map,
                                blocks: ftl.blocks,
                                stamp: ftl.stamp,
                                erases_total: ftl.erases_total,
                                report,
                            }
                        })
                        .collect::<Vec<_>>()
                }));
            }
            for h in handles {
                out.extend(h.join().expect("a sample plane's aging panicked"));
            }
        });
        out
    }

    /// A fresh FTL of one plane of `geom` holding `ranks` LPNs, with this FTL's GC and
    /// wear-leveling settings.
    fn one_plane_like(&self, geom: &Geometry, ranks: u32, rng: SimRng) -> Ftl {
        Ftl {
            geom: *geom,
            map: Mapping::new(ranks, geom.pages()),
            blocks: BlockManager::new(geom, self.blocks.wl_dynamic),
            policy: gc::build(self.policy.kind(), rng),
            reserve_blocks: self.reserve_blocks,
            gc_threshold_blocks: self.gc_threshold_blocks,
            bg_threshold_blocks: self.bg_threshold_blocks,
            background: self.background,
            static_spread: self.static_spread,
            stamp: 0,
            erases_total: 0,
            counters: FtlCounters::default(),
            content: None,
            slots: 0,
            slc: None,
            handles: None,
            detour: false,
        }
    }

    /// Plane `p` takes sample `s`'s blocks: metadata, bucket lists, free pool, frontiers.
    fn take_blocks(&mut self, p: PlaneId, s: &Sample) {
        let (bpp, ppb) = (self.geom.blocks_per_plane, self.geom.pages_per_block);
        let block0 = p.0 * bpp;
        let shift = |b: u32| if b == NONE { NONE } else { b + block0 };
        let scale = u64::from(self.geom.planes());
        let src = &s.blocks;
        for b in 0..bpp {
            let mut m = src.blocks[b as usize];
            m.prev = shift(m.prev);
            m.next = shift(m.next);
            m.set_last_write(m.last_write() * scale);
            self.blocks.blocks[(block0 + b) as usize] = m;
        }
        let mut pm = src.planes[0].clone();
        pm.free = pm
            .free
            .into_iter()
            .map(|Reverse(key)| Reverse(key + u64::from(block0)))
            .collect();
        pm.host_frontier = shift(pm.host_frontier);
        pm.gc_frontier = shift(pm.gc_frontier);
        pm.victim = shift(pm.victim);
        self.blocks.planes[p.idx()] = pm;
        let width = ppb as usize + 1;
        for (v, &head) in src.heads[..width].iter().enumerate() {
            self.blocks.heads[p.idx() * width + v] = shift(head);
        }
        self.stamp = self.stamp.max(s.stamp * scale);
        self.erases_total += s.erases_total;
    }
}

/// A sample plane to age: the plane, its rank count, its overwrites `(rank, version)`.
type SampleJob = (u32, u32, Vec<(u32, u32)>);

/// The token of a sample plane's write: its version itself, made a token when a plane's
/// page is read (with the plane's own LPN, `SampledBase`).
fn raw_version(_: Lpn, version: u32) -> u64 {
    u64::from(version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::PageOwner;
    use crate::{token_for, AllocOrder, FtlConfig, VictimPolicy};
    use ssdlab_nand::Ppn;

    /// 2 × 2 chips × 2 planes (8 planes) of `blocks` blocks × `ppb` pages.
    fn geom(blocks: u32, ppb: u32) -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: blocks,
            pages_per_block: ppb,
            page_size_bytes: 4096,
        }
    }

    /// The fill pattern of the CWDP stripe over `n` LPNs of `g`.
    fn cwdp(g: &Geometry, n: u32) -> FillPattern {
        let map = AllocOrder::CWDP.stripe_map(g);
        let period: Vec<PlaneId> = (0..g.planes()).map(|l| map.plane_of(Lpn(l))).collect();
        let mut pattern = FillPattern::new(g.planes());
        pattern.push(0, n, &period);
        pattern
    }

    fn aged(g: &Geometry, victim: VictimPolicy, aging: Aging, overwrite: f64) -> Ftl {
        aged_seed(g, victim, aging, overwrite, 4)
    }

    /// A device of `g` filled and aged with `overwrite` × its LPNs, `seed` for the draws.
    fn aged_seed(
        g: &Geometry,
        victim: VictimPolicy,
        aging: Aging,
        overwrite: f64,
        seed: u64,
    ) -> Ftl {
        let mut cfg = FtlConfig {
            over_provisioning: 0.15,
            ..FtlConfig::default()
        };
        cfg.gc.victim = victim;
        let mut f = Ftl::new(&cfg, g, cfg.logical_pages(g), SimRng::new(3)).unwrap();
        let pre = PreconditionConfig {
            enabled: true,
            overwrite_ratio: overwrite,
            aging,
            sample_planes: 4,
            ..PreconditionConfig::default()
        };
        let map = AllocOrder::CWDP.stripe_map(g);
        let mut rng = SimRng::new(seed);
        let r = match f.precondition_sampled(&pre, &cwdp(g, f.map_entries()), &mut rng) {
            Some(r) => r,
            None => f.precondition(&pre, None, &mut |l| map.plane_of(l), &mut rng),
        };
        assert_eq!(r.filled, u64::from(f.map_entries()));
        assert_eq!(r.valid_pages, u64::from(f.map_entries()), "{r:?}");
        f
    }

    /// Full blocks by valid pages, in `bins` bins, as fractions of all full blocks.
    fn valid_histogram(f: &Ftl, bins: u32) -> Vec<f64> {
        let ppb = f.geom.pages_per_block;
        let full: Vec<u32> = f
            .blocks
            .blocks
            .iter()
            .filter(|m| m.state() == crate::BlockState::Full)
            .map(|m| u32::from(m.valid))
            .collect();
        let mut h = vec![0.0; bins as usize];
        for v in &full {
            h[(v * bins / (ppb + 1)) as usize] += 1.0 / full.len() as f64;
        }
        h
    }

    /// Total variation distance between two histograms.
    fn distance(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>() / 2.0
    }

    /// Erases per host write over `n` more uniform random overwrites.
    fn erases_per_write(f: &mut Ftl, n: u32) -> f64 {
        let map = AllocOrder::CWDP.stripe_map(&f.geom);
        let mut rng = SimRng::new(77);
        let before = f.erases_total;
        let lpns = u64::from(f.counted_entries());
        for v in 0..n {
            let l = Lpn(rng.below(lpns) as u32);
            let token = token_for(l, u32::MAX - v);
            f.write_now(l, map.plane_of(l), token).unwrap();
        }
        (f.erases_total - before) as f64 / f64::from(n)
    }

    #[test]
    fn a_sampled_device_holds_every_lpn_where_its_stripe_puts_it() {
        for victim in [VictimPolicy::Greedy, VictimPolicy::CostBenefit] {
            let g = geom(24, 8);
            let f = aged(&g, victim, Aging::Sampled, 0.5);
            f.check_invariants();
            let map = AllocOrder::CWDP.stripe_map(&g);
            let mut tokens = std::collections::HashSet::new();
            for l in 0..f.map_entries() {
                let p = f.lookup(Lpn(l)).expect("every LPN is mapped");
                assert_eq!(f.geom.plane_of_page(p), map.plane_of(Lpn(l)), "LPN {l}");
                assert_eq!(f.map.owner(p), PageOwner::Lpn(Lpn(l)));
                assert!(!f.is_pending(p));
                assert!(tokens.insert(f.token(p)), "token of LPN {l} is not unique");
            }
            assert!(f.erase_count_summary().max > 0, "GC ran");
            for p in 0..g.planes() {
                let s = f.plane_state(PlaneId(p));
                assert!(s.free_blocks >= f.reserve_blocks, "plane {p}: {s:?}");
                assert_eq!(s.valid_pages + s.invalid_pages + s.free_pages, 24 * 8);
            }
        }
    }

    /// The sampled state against the replayed one, with the replay's own spread across
    /// seeds as the yardstick: per-block valid-count histogram, free blocks per plane,
    /// wear, and write amplification (erases per write) over the next 40 000 writes.
    #[test]
    fn sampled_aging_matches_the_replay_statistically() {
        let g = geom(256, 32);
        let replay = aged(&g, VictimPolicy::Greedy, Aging::Replay, 0.5);
        let sampled = aged(&g, VictimPolicy::Greedy, Aging::Sampled, 0.5);
        let fresh = aged(&g, VictimPolicy::Greedy, Aging::Replay, 0.0);
        sampled.check_invariants();
        let hr = valid_histogram(&replay, 33);
        let spread = (5..10)
            .map(|seed| aged_seed(&g, VictimPolicy::Greedy, Aging::Replay, 0.5, seed))
            .map(|f| distance(&hr, &valid_histogram(&f, 33)))
            .fold(0.0, f64::max);
        let d = distance(&hr, &valid_histogram(&sampled, 33));
        assert!(
            d < 1.5 * spread,
            "valid-count histograms: distance {d} against the replay's spread {spread}"
        );
        let df = distance(&hr, &valid_histogram(&fresh, 33));
        assert!(
            df > 10.0 * spread,
            "the measure tells aged from fresh: {df}"
        );
        let (sr, ss) = (replay.device_state(), sampled.device_state());
        let per_plane = |s: &crate::PlaneSummary| f64::from(s.free_blocks) / 8.0;
        assert!(
            (per_plane(&sr) - per_plane(&ss)).abs() <= 1.0,
            "{sr:?} {ss:?}"
        );
        let rel = |a: f64, b: f64| (a - b).abs() / a;
        let wear = |f: &Ftl| f.erases_total as f64 / f64::from(g.blocks());
        let (wr, ws) = (wear(&replay), wear(&sampled));
        assert!(
            rel(wr, ws) < 0.03,
            "mean erase count: replay {wr}, sampled {ws}"
        );
        let (mut replay, mut sampled) = (replay, sampled);
        let n = 40_000;
        let (er, es) = (
            erases_per_write(&mut replay, n),
            erases_per_write(&mut sampled, n),
        );
        assert!(
            rel(er, es) < 0.03,
            "erases per write: replay {er}, sampled {es}"
        );
    }

    /// A layout like a RAID array's: two segments whose periods put unequal numbers of
    /// LPNs in the planes, in another order than the stripe's.
    fn two_segments(g: &Geometry, n: u32) -> FillPattern {
        let planes = g.planes();
        let a: Vec<PlaneId> = (0..3 * planes - 1)
            .map(|i| PlaneId((i * 5 + i / planes) % planes))
            .collect();
        let b: Vec<PlaneId> = (0..planes).rev().map(PlaneId).collect();
        let mut pattern = FillPattern::new(planes);
        pattern.push(0, n * 7 / 8, &a);
        pattern.push(n * 7 / 8, n, &b);
        pattern
    }

    /// With every plane its own sample, the state is the replay's, page for page, with
    /// the stripe's layout and with a RAID-like one.
    #[test]
    fn with_every_plane_a_sample_the_state_is_the_replays() {
        let layouts: [fn(&Geometry, u32) -> FillPattern; 2] = [cwdp, two_segments];
        for layout in layouts {
            every_plane_a_sample(layout);
        }
    }

    fn every_plane_a_sample(layout: fn(&Geometry, u32) -> FillPattern) {
        let g = geom(32, 8);
        let mut cfg = FtlConfig {
            over_provisioning: 0.15,
            ..FtlConfig::default()
        };
        cfg.gc.victim = VictimPolicy::Greedy;
        let fresh = || Ftl::new(&cfg, &g, cfg.logical_pages(&g), SimRng::new(3)).unwrap();
        let mut f = fresh();
        let pattern = layout(&g, f.map_entries());
        let pre = PreconditionConfig {
            enabled: true,
            overwrite_ratio: 0.7,
            aging: Aging::Sampled,
            sample_planes: g.planes(),
            ..PreconditionConfig::default()
        };
        let mut replay = fresh();
        let replayed = PreconditionConfig {
            aging: Aging::Replay,
            ..pre
        };
        let place = &mut |l| pattern.plane_of(l);
        let rr = replay.precondition(&replayed, None, place, &mut SimRng::new(4));
        assert_eq!(rr.unplaced, 0, "{rr:?}");
        let r = f
            .precondition_sampled(&pre, &pattern, &mut SimRng::new(4))
            .unwrap();
        assert!(r.gc_runs > 0, "{r:?}");
        assert_eq!(
            (r.overwrites, r.gc_runs, r.gc_pages_moved, r.valid_pages),
            (rr.overwrites, rr.gc_runs, rr.gc_pages_moved, rr.valid_pages)
        );
        for l in 0..f.map_entries() {
            assert_eq!(f.lookup(Lpn(l)), replay.lookup(Lpn(l)), "LPN {l}");
        }
        for q in 0..g.pages() {
            let q = Ppn(q);
            assert_eq!(f.map.owner(q), replay.map.owner(q), "{q}");
            if matches!(f.map.owner(q), PageOwner::Lpn(_)) {
                assert_eq!(f.token(q), replay.token(q), "token of {q}");
            }
        }
        for (b, (x, y)) in f
            .blocks
            .blocks
            .iter()
            .zip(&replay.blocks.blocks)
            .enumerate()
        {
            let strip = |m: &crate::meta::BlockMeta| {
                let mut m = *m;
                m.set_last_write(0);
                m
            };
            assert_eq!(
                format!("{:?}", strip(x)),
                format!("{:?}", strip(y)),
                "block {b}"
            );
        }
        assert_eq!(
            format!("{:?}", f.blocks.planes),
            format!("{:?}", replay.blocks.planes)
        );
        assert_eq!(f.blocks.heads, replay.blocks.heads);
        assert_eq!(f.erases_total, replay.erases_total);
        // Content set in place (as the RAID parity fix does), by LPN and by page, reads
        // the same on both, by LPN and by page (a sampled base keeps it by LPN), and GC
        // carries it along when the writes below move those pages.
        let n = f.map_entries();
        for i in 0..400u32 {
            let l = Lpn(i.wrapping_mul(40_503) % n);
            let token = token_for(l, 1 << 30 | i);
            if i % 2 == 0 {
                assert_eq!(f.set_lpn_token(l, token), replay.set_lpn_token(l, token));
            } else if let Some(p) = f.lookup(l) {
                f.set_token(p, token);
                replay.set_token(p, token);
            }
            assert_eq!(f.lpn_tokens().get(l), Some(token), "{l}");
            assert_eq!(replay.lpn_tokens().get(l), Some(token), "{l}");
            let p = f.lookup(l).unwrap();
            assert_eq!((f.token(p), replay.token(p)), (token, token), "{l} at {p}");
        }
        // The same writes on both (the sampled device's pages and map entries are read
        // through to its samples until written) leave the same pages and map.
        let erased = f.erases_total;
        for i in 0..3000u32 {
            let l = Lpn(i.wrapping_mul(2_654_435_761) % n);
            let plane = pattern.plane_of(l);
            let token = token_for(l, u32::MAX - i);
            assert_eq!(
                f.write_now(l, plane, token),
                replay.write_now(l, plane, token)
            );
        }
        f.check_invariants();
        assert!(f.erases_total > erased, "GC ran during the writes");
        for l in (0..n).map(Lpn) {
            assert_eq!(f.lookup(l), replay.lookup(l), "after the writes: {l}");
        }
        for q in (0..g.pages()).map(Ppn) {
            let owner = f.map.owner(q);
            assert_eq!(owner, replay.map.owner(q), "after the writes: {q}");
            if matches!(owner, PageOwner::Lpn(_)) {
                assert_eq!(
                    f.token(q),
                    replay.token(q),
                    "after the writes: token of {q}"
                );
            }
        }
    }

    #[test]
    fn other_cases_fall_back_to_the_replay() {
        let g = geom(24, 8);
        let a = aged(&g, VictimPolicy::Greedy, Aging::Sampled, 0.0);
        let b = aged(&g, VictimPolicy::Greedy, Aging::Replay, 0.0);
        for l in 0..a.map_entries() {
            assert_eq!(
                a.lookup(Lpn(l)),
                b.lookup(Lpn(l)),
                "no overwrites: the fill"
            );
        }
    }
}
