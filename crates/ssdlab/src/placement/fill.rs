//! The preconditioning fill's layout as a formula: a policy that knows its
//! [`PlacementPolicy::fill_plane`] answers are periodic says so
//! ([`PlacementPolicy::fill_period`]); [`fill_pattern`] turns the claim into an
//! [`ssdlab_ftl::FillPattern`] from the policy's own answers over one period, and checks
//! it against more answers rather than trusting it. The FTL then lays the fill out by
//! formula where that is exact (see `ssdlab_ftl`'s `fill` module and docs/FTL.md).

use super::PlacementPolicy;
use crate::layout::RaidMap;
use ssdlab_ftl::FillPattern;
use ssdlab_nand::{Geometry, Lpn};

/// A run of FTL pages, from `start` to the next run's start (the last to the end of the
/// fill), in which the plane `fill_plane` gives for LPN `L` depends only on
/// `(L − start) mod period`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillRun {
    /// Its first LPN.
    pub start: u32,
    /// Its period, in LPNs.
    pub period: u32,
}

/// The largest period taken: one period's table costs 12 bytes per LPN.
const MAX_PERIOD: u32 = 1 << 22;
/// LPNs of a run checked beyond its first two periods, evenly spaced (release builds).
const SAMPLES: u32 = 4096;
/// Debug builds check every LPN of fills up to this many.
const CHECK_ALL_UP_TO: u32 = 1 << 20;

/// The planes the policy gives for the sequential fill of LPNs `0 .. fill`, as a
/// pattern, if it claims a period. The policy's state ends as if it had been asked for
/// every one of them in order: its answers over the first two periods of each run and at
/// spaced samples are asked (and compared with the pattern), the others skipped
/// ([`PlacementPolicy::skip_fill`]). `None` (nothing asked) when the policy claims no
/// period or a malformed one.
///
/// # Panics
/// If an answer contradicts the claimed period: a bug in the policy, whose results would
/// otherwise be silently wrong.
pub fn fill_pattern(
    policy: &mut dyn PlacementPolicy,
    geom: &Geometry,
    raid: Option<&RaidMap>,
    fill: u32,
) -> Option<FillPattern> {
    if fill == 0 {
        return None;
    }
    let runs = policy.fill_period(geom, raid)?;
    let well_formed = runs.first().is_some_and(|r| r.start == 0)
        && runs.windows(2).all(|w| w[0].start < w[1].start)
        && runs.iter().all(|r| r.period > 0 && r.period <= MAX_PERIOD);
    if !well_formed {
        return None;
    }
    let check_all = cfg!(debug_assertions) && fill <= CHECK_ALL_UP_TO;
    let mut pattern = FillPattern::new(geom.planes());
    for (i, run) in runs.iter().enumerate() {
        if run.start >= fill {
            break;
        }
        let end = runs.get(i + 1).map_or(fill, |next| next.start.min(fill));
        let period = run.period.min(end - run.start);
        let table: Vec<_> = (run.start..run.start + period)
            .map(|l| policy.fill_plane(Lpn(l), geom, raid))
            .collect();
        let mut asked = run.start + period;
        let mut check = |l: u32, asked: &mut u32| {
            policy.skip_fill(l - *asked);
            let got = policy.fill_plane(Lpn(l), geom, raid);
            *asked = l + 1;
            let want = table[((l - run.start) % period) as usize];
            assert_eq!(
                got,
                want,
                "placement {}: fill_period claims period {} from LPN {}, but fill_plane({l}) differs",
                policy.name(),
                run.period,
                run.start
            );
        };
        let second = (run.start + 2 * period).min(end);
        while asked < second {
            check(asked, &mut asked);
        }
        if check_all {
            while asked < end {
                check(asked, &mut asked);
            }
        } else if asked < end {
            let step = ((end - asked) / SAMPLES).max(1);
            let mut l = asked;
            while l < end {
                check(l, &mut asked);
                l = l.saturating_add(step);
            }
            if asked < end {
                check(end - 1, &mut asked);
            }
        }
        policy.skip_fill(end - asked);
        pattern.push(run.start, end, &table);
    }
    Some(pattern)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;
    use crate::placement::build;
    use ssdlab_nand::PlaneId;

    /// Every plane `policy` gives for `0 .. n`, asked in order.
    fn asked(
        policy: &mut dyn PlacementPolicy,
        g: &Geometry,
        raid: Option<&RaidMap>,
        n: u32,
    ) -> Vec<PlaneId> {
        (0..n).map(|l| policy.fill_plane(Lpn(l), g, raid)).collect()
    }

    fn config(sets: &[&str]) -> crate::SimConfig {
        let mut b = ConfigBuilder::new()
            .text(
                "[geometry]\nchannels = 4\nchips_per_channel = 2\ndies_per_chip = 2\n\
                 planes_per_die = 2\nblocks_per_plane = 16\npages_per_block = 4\n\
                 [ftl]\nover_provisioning = 0.3\n",
                "t",
            )
            .unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap()
    }

    /// The RAID map of `cfg`, if RAID is on.
    fn raid_map(cfg: &crate::SimConfig) -> Option<RaidMap> {
        crate::sim::raid::RaidState::new(cfg)
            .unwrap()
            .map(|(r, _, _)| r.map)
    }

    #[test]
    fn every_policy_with_a_period_matches_its_answers_and_leaves_the_same_state() {
        let cases: &[&[&str]] = &[
            &["ftl.allocation=static", "ftl.static_order=pdwc"],
            &["ftl.allocation=dynamic", "ftl.dynamic_policy=round-robin"],
            &["ftl.allocation=dynamic", "ftl.dynamic_policy=least-busy"],
            &["ftl.allocation=hipa"],
            &["ftl.allocation=content-aware", "dsftl.base=dynamic"],
            &["raid.level=5", "raid.group_size=4"],
            &["raid.level=5", "raid.group_size=4", "raid.layout=lci"],
            &["raid.level=4", "raid.group_size=2"],
            &["raid.level=1", "raid.group_size=4"],
            &["raid.level=0"],
            &["raid.level=5", "raid.domain=channel", "raid.group_size=4"],
            &[
                "raid.level=5",
                "raid.domain=channel",
                "raid.group_size=4",
                "raid.mirror_chips=true",
                "raid.buffer_new_writes=false",
            ],
            &[
                "raid.level=5",
                "raid.domain=channel",
                "raid.group_size=2",
                "raid.chip_in_channel=sda",
            ],
        ];
        for sets in cases {
            let cfg = config(sets);
            let g = cfg.geometry;
            let map = raid_map(&cfg);
            let n = match &map {
                Some(m) => (m.host_pages + m.rows() * m.layout.redundancy_per_row()) as u32,
                None => cfg.ftl.logical_pages(&g),
            };
            for fill in [1, n / 3, n] {
                let mut a = build(&cfg);
                let mut b = build(&cfg);
                let p = fill_pattern(&mut *a, &g, map.as_ref(), fill)
                    .unwrap_or_else(|| panic!("{sets:?}: no pattern"));
                let want = asked(&mut *b, &g, map.as_ref(), fill);
                let got: Vec<_> = (0..fill).map(|l| p.plane_of(Lpn(l))).collect();
                assert_eq!(got, want, "{sets:?}, fill {fill}");
                // Both policies are now where the replay leaves them.
                assert_eq!(
                    asked(&mut *a, &g, map.as_ref(), 50),
                    asked(&mut *b, &g, map.as_ref(), 50),
                    "{sets:?}: state after the fill"
                );
            }
        }
    }

    /// A policy claiming `runs` whose `fill_plane` answers `answer`.
    #[derive(Clone)]
    struct Claim(Vec<FillRun>, fn(Lpn) -> PlaneId);

    impl PlacementPolicy for Claim {
        fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
            Box::new(self.clone())
        }
        fn name(&self) -> &'static str {
            "claim"
        }
        fn place(
            &mut self,
            _: &super::super::PageToPlace,
            _: &crate::device::DeviceView,
        ) -> PlaneId {
            PlaneId(0)
        }
        fn fill_plane(&mut self, lpn: Lpn, _: &Geometry, _: Option<&RaidMap>) -> PlaneId {
            (self.1)(lpn)
        }
        fn fill_period(&self, _: &Geometry, _: Option<&RaidMap>) -> Option<Vec<FillRun>> {
            Some(self.0.clone())
        }
    }

    #[test]
    #[should_panic(expected = "fill_period claims period 1")]
    fn a_false_period_is_caught() {
        let g = config(&[]).geometry;
        let run = vec![FillRun {
            start: 0,
            period: 1,
        }];
        let liar = |l: Lpn| PlaneId(u32::from(l.0 == 70_000));
        fill_pattern(&mut Claim(run, liar), &g, None, 100_000);
    }

    #[test]
    fn no_claim_or_a_malformed_one_gives_no_pattern() {
        let g = config(&[]).geometry;
        let run = |start, period| FillRun { start, period };
        for runs in [
            vec![],
            vec![run(1, 4)],
            vec![run(0, 0)],
            vec![run(0, 4), run(0, 4)],
            vec![run(0, MAX_PERIOD + 1)],
        ] {
            let never = |_| panic!("a malformed claim is refused before any question");
            assert!(fill_pattern(&mut Claim(runs, never), &g, None, 100).is_none());
        }
        let cfg = config(&[]);
        assert!(fill_pattern(&mut *build(&cfg), &g, None, 0).is_none());
    }
}
