//! Adversarial and property-based checks of the RAID, failure, rebuild and DGC engine:
//! random multi-page workloads over many RAID configurations, with GC pressure and
//! failures. In verify mode no read may return stale content, the end-of-run audit must
//! pass, no run may end stuck, and with at most one failed member per parity group no
//! page may be unrecoverable.

use crate::util::{page, small_config, trace_sim, vec_sim};
use proptest::prelude::*;
use ssdlab::Simulation;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

/// A request of `pages` pages starting at `lpn`.
fn req(arrival_ns: u64, op: Op, lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        arrival_ns,
        op,
        fua: false,
        offset_bytes: lpn * 4096,
        size_bytes: pages * 4096,
        content: None,
        stream: None,
    }
}

/// Simulated time after which a run of in-memory requests that has not ended is
/// considered runaway (every such workload here ends within a second).
const RUNAWAY_NS: u64 = 20_000_000_000;

/// Events after which a run is considered livelocked (the real-trace runs here take a
/// few million at most).
const MAX_EVENTS: u64 = 50_000_000;

/// Runs `sim` to its end with every check: verified reads, invariants, audit, no
/// unfinished request.
fn run_all(sim: Simulation) -> Result<ssdlab::Report, String> {
    run_all_until(sim, RUNAWAY_NS)
}

/// [`run_all`] with a runaway limit of `limit_ns` of simulated time.
fn run_all_until(mut sim: Simulation, limit_ns: u64) -> Result<ssdlab::Report, String> {
    let mut events: u64 = 0;
    while sim.step().map_err(|e| format!("run: {e}"))? {
        events += 1;
        if events > MAX_EVENTS {
            return Err(format!(
                "{events} events, still at {} ns",
                sim.now().as_ns()
            ));
        }
        if sim.now().as_ns() > limit_ns {
            let at = sim.now().as_ns();
            let state = match sim.into_report() {
                Ok(_) => "nothing unfinished".to_string(),
                Err(e) => e.to_string(),
            };
            return Err(format!("still running at {at} ns: {state}"));
        }
    }
    sim.check_invariants();
    sim.audit().map_err(|e| format!("audit: {e}"))?;
    sim.into_report().map_err(|e| format!("report: {e}"))
}

/// `small_config` with verify on and `sets`.
fn cfg(sets: &[String]) -> ssdlab::SimConfig {
    let mut all = vec!["verify=true".to_string()];
    all.extend(sets.iter().cloned());
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    small_config(&refs)
}

fn run_reqs(
    sets: &[String],
    reqs: Vec<IoRequest>,
    trace_requests: Option<u64>,
) -> Result<ssdlab::Report, String> {
    let mut sim = vec_sim(cfg(sets), reqs);
    if let Some(n) = trace_requests {
        sim.set_trace_requests(n);
    }
    run_all(sim)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// GC pressure on the small device.
const PRESSURE: [&str; 5] = [
    "geometry.blocks_per_plane=16",
    "ftl.over_provisioning=0.3",
    "ftl.gc.threshold_free_ratio=0.2",
    "ftl.gc.background_free_ratio=0.25",
    "ftl.precondition.enabled=true",
];

// ---------------------------------------------------------------------------------------
// The random configuration space.

#[derive(Clone, Debug)]
pub(crate) struct RaidCase {
    level: u8,
    channel: bool,
    lci: bool,
    rcw: bool,
    buffer: bool,
    force_recon: bool,
    dgc: bool,
    /// DGC redirects parity programs too (`dgc.redirect_parity`).
    dgc_parity: bool,
    spares: bool,
    scheduler: &'static str,
    host: u8,
    encode_timeout_ns: u64,
    fill_half: bool,
}

impl RaidCase {
    /// Members, group size and spare chips for the 4 × 2 chip device.
    fn shape(&self) -> (u32, u32, u32) {
        match (self.channel, self.level, self.spares) {
            (true, 1, _) => (4, 2, 0),
            (true, _, _) => (4, 4, 0),
            (false, 1, true) => (6, 2, 2),
            (false, 1, false) => (8, 4, 0),
            (false, _, true) => (6, 3, 2),
            (false, _, false) => (8, 4, 0),
        }
    }

    /// The parity group of member `u`.
    fn group_of(&self, u: u32) -> u32 {
        let (m, g, _) = self.shape();
        let groups = m / g;
        if self.lci {
            u % groups
        } else {
            u / g
        }
    }

    /// The member a failure target hits, if any (spare chips are not members).
    fn member_of(&self, target: &Target) -> Option<u32> {
        let (m, _, _) = self.shape();
        match (*target, self.channel) {
            (Target::Chip(c), false) => (c < m).then_some(c),
            (Target::Chip(c), true) => Some(c % 4),
            (Target::Channel(ch), true) => Some(ch),
            // A channel failure in the chip domain kills the two chips of the channel.
            (Target::Channel(_), false) => None,
        }
    }

    fn sets(&self) -> Vec<String> {
        let (_, g, spares) = self.shape();
        let mut v = strings(&PRESSURE);
        if self.fill_half {
            v.push("ftl.precondition.fill_ratio=0.5".into());
        }
        v.push(format!("raid.level={}", self.level));
        v.push(format!("raid.group_size={g}"));
        if self.channel {
            v.push("raid.domain=channel".into());
        }
        if spares > 0 {
            v.push(format!("raid.spare_chips={spares}"));
            v.push("raid.rebuild_rate_mib_s=2000".into());
        }
        v.push(format!(
            "raid.layout={}",
            if self.lci { "lci" } else { "adjacent" }
        ));
        v.push(format!(
            "raid.update={}",
            if self.rcw { "rcw" } else { "rmw" }
        ));
        v.push(format!("raid.buffer_new_writes={}", self.buffer));
        v.push(format!("raid.force_reconstruct_reads={}", self.force_recon));
        v.push(format!("raid.encode_timeout_ns={}", self.encode_timeout_ns));
        if self.dgc {
            v.push("dgc.enabled=true".into());
            v.push(format!("dgc.redirect_parity={}", self.dgc_parity));
        }
        v.push(format!("scheduler.name={}", self.scheduler));
        match self.host {
            1 => v.push("host.device_queue_depth=1".into()),
            2 => {
                v.push("host.mode=closed".into());
                v.push("host.queue_depth=4".into());
            }
            _ => {}
        }
        v
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    Chip(u32),
    Channel(u32),
}

impl Target {
    fn spec(&self) -> String {
        match self {
            Target::Chip(c) => format!("chip:{c}"),
            Target::Channel(c) => format!("channel:{c}"),
        }
    }
}

fn raid_case() -> impl Strategy<Value = RaidCase> {
    (
        prop_oneof![Just(1u8), Just(4u8), Just(5u8), Just(5u8)],
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![3 => Just(false), 1 => Just(true)],
        0u8..3,
        any::<bool>(),
        prop_oneof![
            Just("async-fifo"),
            Just("sync-fifo"),
            Just("piq"),
            Just("brr")
        ],
        0u8..3,
        prop_oneof![Just(1u64), Just(50_000u64), Just(1_000_000u64)],
        any::<bool>(),
    )
        .prop_map(
            |(
                level,
                channel,
                lci,
                rcw,
                buffer,
                force_recon,
                dgc,
                spares,
                scheduler,
                host,
                encode_timeout_ns,
                fill_half,
            )| RaidCase {
                level,
                channel,
                lci,
                rcw,
                buffer,
                force_recon,
                // DGC needs chip-level parity.
                dgc: dgc > 0 && !channel && level != 1,
                dgc_parity: dgc == 2,
                spares: spares && !channel,
                scheduler,
                host,
                encode_timeout_ns,
                fill_half,
            },
        )
}

/// Requests: (write?, lpn, pages). LPNs come from a hot spot, a wider warm range, or a
/// range high enough to be unwritten when only half the device is preconditioned.
fn ops() -> impl Strategy<Value = Vec<(bool, u64, u64)>> {
    proptest::collection::vec(
        (
            any::<bool>(),
            prop_oneof![
                2 => 0u64..24,
                2 => 0u64..320,
                1 => 3_300u64..3_400,
            ],
            prop_oneof![3 => Just(1u64), 2 => 1u64..13],
        ),
        60..240,
    )
}

fn to_reqs(ops: &[(bool, u64, u64)], gap_ns: u64) -> Vec<IoRequest> {
    ops.iter()
        .enumerate()
        .map(|(i, &(w, lpn, n))| {
            req(
                i as u64 * gap_ns,
                if w { Op::Write } else { Op::Read },
                lpn,
                n,
            )
        })
        .collect()
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        4 => (0u32..8).prop_map(Target::Chip),
        1 => (0u32..4).prop_map(Target::Channel),
    ]
}

/// Failures as (target, fraction of the requests in per-mille).
fn failures() -> impl Strategy<Value = Vec<(Target, u32)>> {
    proptest::collection::vec((target(), 0u32..1000), 0..3)
}

/// True when no parity group loses more than one member, and no chip-domain failure
/// takes a whole channel.
fn one_per_group(case: &RaidCase, fails: &[(Target, u32)]) -> bool {
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for (t, _) in fails {
        if !case.channel && matches!(t, Target::Channel(_)) {
            return false;
        }
        if let Some(u) = case.member_of(t) {
            let g = case.group_of(u);
            if seen.iter().any(|&(gg, uu)| gg == g && uu != u) {
                return false;
            }
            seen.push((g, u));
        }
    }
    true
}

/// True when the failures cannot cost data: at most one failed member per group, and
/// under DGC at most one failed chip in all, spares included (a chunk DGC redirected
/// into another group makes its stripe depend on a chip of that group, see
/// `dgc_with_one_failure_in_each_of_two_groups_counts_the_stripes_it_loses`; a spare that
/// stands in for a failed member takes redirected chunks too, and the rebuild restores
/// only the member's own chunks).
fn tolerated(case: &RaidCase, fails: &[(Target, u32)]) -> bool {
    let mut chips: Vec<String> = fails.iter().map(|(t, _)| t.spec()).collect();
    chips.sort_unstable();
    chips.dedup();
    one_per_group(case, fails) && (!case.dgc || chips.len() <= 1)
}

fn fail_set(fails: &[(Target, u32)]) -> Option<String> {
    if fails.is_empty() {
        return None;
    }
    let specs: Vec<String> = fails
        .iter()
        .map(|(t, f)| format!("\"{}@{}\"", t.spec(), f64::from(*f) / 1000.0))
        .collect();
    Some(format!("raid.fail=[{}]", specs.join(", ")))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any RAID configuration, any workload, at most one failed member per group: every
    /// read verifies, the audit passes, nothing is stuck and nothing is unrecoverable.
    #[test]
    fn random_raid_workloads_with_failures_never_lose_or_corrupt(
        case in raid_case(),
        ops in ops(),
        fails in failures(),
    ) {
        let mut case = case;
        // A narrower space than `random_raid_workloads_with_failures_over_the_whole_space`
        // (below), which also covers half-full preconditioning, RAID-1 with failures,
        // spares with two dead pages in one stripe and DGC with failures.
        case.fill_half = false;
        let raid1_dead = case.level == 1 && !fails.is_empty();
        let fails = if raid1_dead { Vec::new() } else { fails };
        let one = one_per_group(&case, &fails);
        case.spares &= one && !fails.is_empty();
        case.dgc &= fails.is_empty();
        let mut sets = case.sets();
        if let Some(f) = fail_set(&fails) {
            sets.push(f);
        }
        let n = ops.len() as u64;
        let r = run_reqs(&sets, to_reqs(&ops, 20_000), Some(n));
        let r = match r {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!("{sets:?}: {e}; ops {ops:?}"))),
        };
        if one_per_group(&case, &fails) {
            prop_assert_eq!(r.counter(Counter::UnrecoverableReads), 0, "{:?}", sets);
            prop_assert_eq!(r.counter(Counter::UnrecoverablePages), 0, "{:?}", sets);
        }
        if case.spares && !fails.is_empty() {
            prop_assert_eq!(
                r.counter(Counter::RebuildRowsDone),
                r.counter(Counter::RebuildRowsTotal),
                "{:?}", sets
            );
        }
    }
}

/// One case of the whole configuration space: any RAID configuration (half-full
/// preconditioning, RAID-1 and spares with failures, DGC with failures included), any
/// workload, any failures. Every read verifies, the audit passes, nothing is stuck;
/// with failures the array tolerates ([`tolerated`]) nothing is unrecoverable; a rebuild
/// walks all its rows.
pub(crate) fn whole_space_case(
    case: &RaidCase,
    ops: &[(bool, u64, u64)],
    fails: &[(Target, u32)],
) -> Result<(), TestCaseError> {
    let mut sets = case.sets();
    if let Some(f) = fail_set(fails) {
        sets.push(f);
    }
    let n = ops.len() as u64;
    let r = run_reqs(&sets, to_reqs(ops, 20_000), Some(n))
        .map_err(|e| TestCaseError::fail(format!("{sets:?}: {e}; ops {ops:?}")))?;
    if tolerated(case, fails) {
        prop_assert_eq!(r.counter(Counter::UnrecoverableReads), 0, "{:?}", sets);
        prop_assert_eq!(r.counter(Counter::UnrecoverablePages), 0, "{:?}", sets);
    }
    if case.spares && !fails.is_empty() {
        prop_assert_eq!(
            r.counter(Counter::RebuildRowsDone),
            r.counter(Counter::RebuildRowsTotal),
            "{:?}",
            sets
        );
    }
    Ok(())
}

/// One input of [`whole_space_case`]: a configuration, the requests, the failures.
pub(crate) type SpaceCase = (RaidCase, Vec<(bool, u64, u64)>, Vec<(Target, u32)>);

/// The strategy of [`whole_space_case`]'s inputs.
pub(crate) fn whole_space() -> impl Strategy<Value = SpaceCase> {
    (raid_case(), ops(), failures())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The same over the whole configuration space, half-full preconditioning included
    /// (a short run here; `cargo bench -p ssdlab --bench adversarial` runs thousands of
    /// cases).
    #[test]
    fn random_raid_workloads_with_failures_over_the_whole_space(
        (case, ops, fails) in whole_space(),
    ) {
        whole_space_case(&case, &ops, &fails)?;
    }
}

// ---------------------------------------------------------------------------------------
// Targeted cases.

#[test]
fn same_lpn_written_back_to_back_within_one_request_by_folding() {
    // A request longer than the host capacity folds onto itself: later pages of the
    // request overwrite earlier ones. Raid-5 chip, groups of 4: 8 chips.
    let sets = strings(&[
        "geometry.blocks_per_plane=16",
        "ftl.over_provisioning=0.3",
        "raid.level=5",
        "raid.group_size=4",
    ]);
    // Host capacity is a few thousand pages; fold a long write twice over LPN 0.
    let mut reqs = vec![req(0, Op::Write, 0, 24)];
    for i in 0..24 {
        reqs.push(page(1_000_000 + i * 10_000, Op::Write, i));
        reqs.push(page(1_000_000 + i * 10_000 + 1, Op::Write, i));
        reqs.push(page(1_000_000 + i * 10_000 + 2, Op::Read, i));
    }
    reqs.push(req(5_000_000, Op::Read, 0, 24));
    run_reqs(&sets, reqs, None).unwrap();
}

#[test]
fn unwritten_reads_in_stripes_with_a_dead_member_materialize_consistently() {
    for level in ["4", "5"] {
        for (lvl_fail, fail) in [("chip", "chip:1@0us"), ("chip", "chip:3@500us")] {
            let sets = strings(&[
                "raid.group_size=4",
                &format!("raid.level={level}"),
                &format!("raid.fail=[\"{fail}\"]"),
            ]);
            let mut reqs = Vec::new();
            for i in 0..40u64 {
                reqs.push(page(i * 20_000, Op::Read, i * 5));
                reqs.push(page(i * 20_000 + 5, Op::Write, i * 3));
                reqs.push(req(i * 20_000 + 9, Op::Read, i * 5 + 1, 4));
            }
            let r =
                run_reqs(&sets, reqs, None).unwrap_or_else(|e| panic!("{lvl_fail} {fail}: {e}"));
            assert_eq!(r.counter(Counter::UnrecoverableReads), 0, "{fail}");
            assert_eq!(r.counter(Counter::UnrecoverablePages), 0, "{fail}");
        }
    }
}

#[test]
fn tiny_encode_timeout_with_overlapping_new_writes() {
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.encode_timeout_ns=1",
        "raid.layout=lci",
    ]);
    let mut reqs = Vec::new();
    for i in 0..60u64 {
        reqs.push(req(i * 3_000, Op::Write, (i * 7) % 40, 1 + i % 5));
        reqs.push(req(i * 3_000 + 1, Op::Read, (i * 5) % 40, 1 + i % 3));
    }
    run_reqs(&sets, reqs, None).unwrap();
}

/// After a failed member is rebuilt onto a spare, its group is redundant again: a later
/// failure of another member of that group loses nothing.
#[test]
fn rebuild_restores_parity_pages_of_the_failed_member() {
    // 8 chips: 6 members in two adjacent groups of 3 ({0,1,2}, {3,4,5}) and 2 spares.
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=3",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=4000",
        "raid.fail=[\"chip:0@0.49\", \"chip:1@0.5\"]",
    ]);
    // 48 pages written sequentially: full stripes, parity on every member of group 0.
    let mut reqs: Vec<_> = (0..48u64).map(|i| page(i * 1_000, Op::Write, i)).collect();
    // Request 48 (chip 0 fails), request 49 after its rebuild (chip 1 fails), then
    // everything is read back.
    reqs.push(page(50_000_000, Op::Read, 100));
    reqs.push(page(250_000_000, Op::Read, 100));
    reqs.extend((0..48u64).map(|i| page(300_000_000 + i * 1_000, Op::Read, i)));
    let r = run_reqs(&sets, reqs, Some(98)).unwrap();
    assert!(r.counter(Counter::RebuiltPages) > 0, "{:?}", r.counters);
    assert_eq!(
        r.counter(Counter::RebuildRowsDone),
        r.counter(Counter::RebuildRowsTotal),
        "{:?}",
        r.counters
    );
    assert_eq!(r.counter(Counter::Failures), 2);
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
    assert_eq!(
        r.counter(Counter::UnrecoverablePages),
        0,
        "{:?}",
        r.counters
    );
}

/// The same for RAID-1: a rebuilt primary's mirror pages come back too.
#[test]
fn rebuild_restores_mirror_pages_of_the_failed_member() {
    // 6 members in three adjacent mirror pairs ({0,1}, {2,3}, {4,5}) and 2 spares;
    // member 1 holds the mirrors of member 0.
    let sets = strings(&[
        "raid.level=1",
        "raid.group_size=2",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=4000",
        "raid.fail=[\"chip:1@0.49\", \"chip:0@0.5\"]",
    ]);
    let mut reqs: Vec<_> = (0..48u64).map(|i| page(i * 1_000, Op::Write, i)).collect();
    reqs.push(page(50_000_000, Op::Read, 100));
    reqs.push(page(250_000_000, Op::Read, 100));
    reqs.extend((0..48u64).map(|i| page(300_000_000 + i * 1_000, Op::Read, i)));
    let r = run_reqs(&sets, reqs, Some(98)).unwrap();
    assert!(r.counter(Counter::RebuiltPages) > 0, "{:?}", r.counters);
    assert_eq!(
        r.counter(Counter::RebuildRowsDone),
        r.counter(Counter::RebuildRowsTotal),
        "{:?}",
        r.counters
    );
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
    assert_eq!(
        r.counter(Counter::UnrecoverablePages),
        0,
        "{:?}",
        r.counters
    );
}

/// DGC keeps single-failure tolerance (its §4.4), but a chunk redirected into another
/// group makes its stripe depend on a chip of that group: with one failure in each of two
/// groups, stripes that lost a chunk in each are lost. Plain RAID-5 survives the same
/// failures. The loss must be counted and never answered (verify on, audit at the end).
#[test]
fn dgc_with_one_failure_in_each_of_two_groups_counts_the_stripes_it_loses() {
    // Adjacent groups of 4: chip 1 is in group 0, chip 6 in group 1.
    let run = |dgc: bool| {
        let sets = strings(&[
            "ftl.precondition.enabled=true",
            "raid.level=5",
            "raid.group_size=4",
            &format!("dgc.enabled={dgc}"),
            "raid.fail=[\"chip:1@0.3\", \"chip:6@0.6\"]",
        ]);
        let mut sim = trace_sim(cfg(&sets), "msr/hm_1-writes13069.csv.gz");
        sim.set_trace_requests(13_069);
        let r = run_all_until(sim, u64::MAX).unwrap();
        assert_eq!(
            r.counter(Counter::UnrecoverableReads),
            0,
            "{:?}",
            r.counters
        );
        r
    };
    let plain = run(false);
    assert_eq!(
        plain.counter(Counter::UnrecoverablePages),
        0,
        "{:?}",
        plain.counters
    );
    let dgc = run(true);
    assert!(
        dgc.counter(Counter::RedirectedWrites) > 0,
        "{:?}",
        dgc.counters
    );
    assert!(
        dgc.counter(Counter::UnrecoverablePages) > 0,
        "{:?}",
        dgc.counters
    );
}

#[test]
fn a_failed_spare_is_not_used_as_a_rebuild_target() {
    // 6 members in groups of 3 and spares 6, 7; spare 6 dies first, then member 2.
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=3",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=4000",
        "raid.fail=[\"chip:6@10us\", \"chip:2@1ms\", \"chip:4@200ms\"]",
    ]);
    let mut reqs: Vec<_> = (0..48u64).map(|i| page(i * 1_000, Op::Write, i)).collect();
    reqs.extend((0..48u64).map(|i| page(2_000_000 + i * 1_000, Op::Write, i)));
    reqs.extend((0..48u64).map(|i| page(300_000_000 + i * 1_000, Op::Read, i)));
    let r = run_reqs(&sets, reqs, None).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
    assert_eq!(
        r.counter(Counter::UnrecoverablePages),
        0,
        "{:?}",
        r.counters
    );
}

/// A write of a never-written page whose chip is dead and whose plane on that chip has
/// no free page left (GC stops on dead chips) must still be readable through parity.
#[test]
fn a_degraded_write_of_a_new_page_to_a_full_dead_plane_is_not_lost() {
    // RAID-5, adjacent groups of 4 over 8 chips. LPN 0 (row 0) and LPN 12 (row 2) are
    // data on member 0 = chip 0, in the same plane (rows alternate over 2 planes).
    let sets = strings(&[
        "geometry.blocks_per_plane=16",
        "ftl.over_provisioning=0.3",
        "raid.level=5",
        "raid.group_size=4",
        "raid.fail=[\"chip:0@0us\"]",
    ]);
    // Each overwrite of LPN 0 takes a page of the dead plane, which is never collected.
    let mut reqs: Vec<_> = (0..700u64)
        .map(|i| page(1_000 + i * 20_000, Op::Write, 0))
        .collect();
    let t = 1_000 + 700 * 20_000;
    reqs.push(page(t, Op::Write, 12));
    reqs.push(page(t + 5_000_000, Op::Read, 12));
    let r = run_reqs(&sets, reqs, None).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
    assert_eq!(
        r.counter(Counter::UnwrittenZeroReads),
        0,
        "{:?}",
        r.counters
    );
}

/// RAID-1 must not read a copy on a dead chip: once the dead mirror's plane is full its
/// mirror pages keep old content.
#[test]
fn raid1_never_reads_the_copy_on_a_dead_chip() {
    // Adjacent mirror pairs: LPN 0 on chip 0, its mirror on chip 1; LPN 4 is on chip 0.
    let sets = strings(&[
        "geometry.blocks_per_plane=16",
        "ftl.over_provisioning=0.3",
        "raid.level=1",
        "raid.group_size=2",
        "raid.fail=[\"chip:1@0us\"]",
    ]);
    let mut reqs: Vec<_> = (0..700u64)
        .map(|i| page(1_000 + i * 300_000, Op::Write, 0))
        .collect();
    let t = 1_000 + 700 * 300_000 + 5_000_000;
    // Chip 0 busy with a program, chip 1 (dead) idle: the read must still take chip 0.
    for k in 0..4u64 {
        reqs.push(page(t + k * 1_000_000, Op::Write, 4));
        reqs.push(page(t + k * 1_000_000 + 1, Op::Read, 0));
    }
    let r = run_reqs(&sets, reqs, None).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
}

/// A burst of overwrites on one plane of a chip that dies during the burst: every
/// write completes, and reads of the stripes are still served.
#[test]
fn a_burst_of_overwrites_on_a_chip_that_dies_mid_burst() {
    for at in ["1ms", "3ms", "6ms"] {
        let mut sets = strings(&PRESSURE);
        sets.extend(strings(&[
            "ftl.precondition.fill_ratio=0.5",
            "raid.level=5",
            "raid.group_size=4",
            "host.device_queue_depth=1000",
            &format!("raid.fail=[\"chip:3@{at}\"]"),
        ]));
        // LPNs 6r + 2 with r = 2 mod 4 are data on chip 3, plane 0: a burst of
        // overwrites exhausts the plane faster than GC frees it.
        let lpns: Vec<u64> = (0..8u64).map(|j| (2 + 4 * j) * 6 + 2).collect();
        let mut reqs = Vec::new();
        for i in 0..600u64 {
            reqs.push(page(i, Op::Write, lpns[(i % 8) as usize]));
        }
        for (k, &l) in lpns.iter().enumerate() {
            reqs.push(page(50_000_000 + 2 * k as u64, Op::Read, l));
            reqs.push(page(50_000_001 + 2 * k as u64, Op::Read, l - 1));
        }
        let r = run_reqs(&sets, reqs, None).unwrap_or_else(|e| panic!("fail at {at}: {e}"));
        assert_eq!(
            r.counter(Counter::UnrecoverableReads),
            0,
            "{:?}",
            r.counters
        );
    }
}

/// Reading a never-written page materializes its stripe (unwritten pages and parity).
/// When another page of that stripe is a write still waiting for space, the parity must
/// include the waiting content, not the version it replaces.
#[test]
fn materializing_a_stripe_with_a_parked_write_keeps_parity_consistent() {
    for read_at in [1_500_000u64, 2_500_000, 4_000_000, 8_000_000] {
        let mut sets = strings(&PRESSURE);
        sets.extend(strings(&[
            "ftl.precondition.fill_ratio=0.5",
            "raid.level=5",
            "raid.group_size=4",
            "host.device_queue_depth=1000",
        ]));
        // Data on chip 3, plane 0: LPNs 6r + 2 with r = 2 mod 4. Rows below ~470 are
        // preconditioned; row 482 (LPNs 2892..2894) is not.
        let lpns: Vec<u64> = (0..8u64).map(|j| (2 + 4 * j) * 6 + 2).collect();
        let mut reqs = Vec::new();
        for i in 0..600u64 {
            reqs.push(page(i, Op::Write, lpns[(i % 8) as usize]));
        }
        reqs.push(page(100_000, Op::Write, 2894));
        reqs.push(page(read_at, Op::Read, 2892));
        reqs.push(page(100_000_000, Op::Read, 2894));
        let r = run_reqs(&sets, reqs, None).unwrap_or_else(|e| panic!("read at {read_at}: {e}"));
        assert!(r.counter(Counter::ParkedWrites) > 0, "{:?}", r.counters);
    }
}

/// Two failures in one group where the stripe's parity was never written (its member
/// was already dead when the stripe was first encoded): a read of the lost page is
/// unrecoverable, and the run still ends.
#[test]
fn a_read_of_a_stripe_with_lost_data_and_never_written_parity_ends() {
    // Adjacent groups of 4: row 0 of group 0 is LPNs 0..2 on chips 0..2, parity chip 3.
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.fail=[\"chip:3@0us\", \"chip:0@5ms\"]",
    ]);
    let reqs = vec![
        req(10_000, Op::Write, 0, 3),
        page(10_000_000, Op::Read, 0),
        page(10_000_001, Op::Read, 1),
    ];
    let r = run_reqs(&sets, reqs, None).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        1,
        "{:?}",
        r.counters
    );
}

/// A never-written parity page whose member is dead is not a redundancy mismatch: the
/// stripe is degraded, its data intact.
#[test]
fn a_stripe_first_written_while_its_parity_member_is_dead_audits() {
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.fail=[\"chip:3@0us\"]",
    ]);
    let reqs = vec![req(10_000, Op::Write, 0, 3), page(10_000_000, Op::Read, 0)];
    let r = run_reqs(&sets, reqs, None).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
}

/// A failure at a simulated time happens at that time: requests before it run on the
/// intact array, requests after it see the failure.
#[test]
fn timed_failures_do_not_delay_the_trace() {
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.fail=[\"chip:0@50ms\"]",
    ]);
    let mut reqs: Vec<_> = (0..6u64).map(|i| page(i * 1_000, Op::Write, i)).collect();
    reqs.push(page(100_000_000, Op::Read, 0));
    let r = run_reqs(&sets, reqs, None).unwrap();
    // The writes arrive at 0..5 µs and must not be degraded by a failure at 50 ms.
    assert_eq!(r.counter(Counter::DegradedWrites), 0, "{:?}", r.counters);
    assert!(
        r.counter(Counter::MeanResponseNsBeforeFailure) > 0,
        "{:?}",
        r.counters
    );
    assert_eq!(r.counter(Counter::DegradedReads), 1, "{:?}", r.counters);
}

/// Reading a never-written page that lives on a dead chip answers nothing, and must not
/// leave its stripe half materialized (data pages without their parity).
#[test]
fn a_read_of_an_unwritten_page_on_a_dead_chip_leaves_its_stripe_consistent() {
    // Adjacent groups of 4: row 0 of group 0 is LPNs 0, 1, 2 on chips 0, 1, 2, parity on
    // chip 3. Chip 2 is dead; nothing was ever written.
    let sets = strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.fail=[\"chip:2@0us\"]",
    ]);
    let reqs = vec![page(10_000, Op::Read, 2), page(1_000_000, Op::Read, 0)];
    let r = run_reqs(&sets, reqs, None).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        0,
        "{:?}",
        r.counters
    );
}

/// Preconditioning gives every stripe its parity, whatever the fill ratio and spares.
#[test]
fn preconditioned_half_full_array_with_spares_audits() {
    let sets = strings(&[
        "ftl.precondition.enabled=true",
        "ftl.precondition.fill_ratio=0.5",
        "raid.level=5",
        "raid.group_size=3",
        "raid.spare_chips=2",
    ]);
    let sim = vec_sim(cfg(&sets), Vec::new());
    sim.audit().unwrap();
}

/// Overwriting one page faster than the chip programs, on a small plane without
/// preconditioning: every request completes, with or without RAID.
#[test]
fn repeated_overwrites_of_one_page_all_complete() {
    for level in [
        vec!["raid.level=none"],
        vec!["raid.level=5", "raid.group_size=4"],
        vec!["raid.level=1", "raid.group_size=2"],
    ] {
        let mut sets = strings(&["geometry.blocks_per_plane=16", "ftl.over_provisioning=0.3"]);
        sets.extend(strings(&level));
        let reqs: Vec<_> = (0..600u64)
            .map(|i| page(1_000 + i * 20_000, Op::Write, 0))
            .collect();
        run_reqs(&sets, reqs, None).unwrap_or_else(|e| panic!("{level:?}: {e}"));
    }
}

/// A stripe that lost two members (data and parity) cannot answer for the lost data.
/// Here the channel dies chip by chip: the rebuild of the data member starts while the
/// parity member is still alive and reads the old parity; then the write of a surviving
/// page finds both members dead and writes a parity (onto the spare) that covers the
/// surviving page only. The rebuild must not write the lost page back behind that
/// parity's back: the loss stays visible and the stripe consistent.
#[test]
fn a_write_to_a_stripe_that_lost_data_and_parity_keeps_the_loss_visible() {
    // RAID-4, LCI groups of 3 over 6 members (groups {0, 2, 4} and {1, 3, 5}), spares 6
    // and 7. Stripe (row 79, group 0): LPN 316 on chip 0, LPN 318 on chip 2, parity on
    // chip 4. Channel 0 holds chips 0 and 4.
    let sets = strings(&[
        "raid.level=4",
        "raid.group_size=3",
        "raid.layout=lci",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=2000",
        "raid.fail=[\"channel:0@0.34\"]",
    ]);
    let reqs = vec![
        req(0, Op::Write, 316, 3),
        page(10_000_000, Op::Write, 318),
        page(20_000_000, Op::Read, 316),
    ];
    let r = run_reqs(&sets, reqs, Some(3)).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        1,
        "{:?}",
        r.counters
    );
}

/// The DGC variant: with two dead members in a group, a redirected rewrite of one lost
/// page must not turn the other lost page into a wrong answer.
#[test]
fn dgc_rewrite_in_a_stripe_with_two_dead_members_keeps_the_loss_visible() {
    // RAID-5, LCI groups of 4 over 8 chips: groups {0, 2, 4, 6} and {1, 3, 5, 7}.
    // Stripe (row 565, group 0): LPN 3390 on chip 0, LPN 3392 on chip 2, parity on chip
    // 4, LPN 3394 on chip 6. Channel 2 holds chips 2 and 6.
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.layout=lci",
        "raid.buffer_new_writes=false",
        "dgc.enabled=true",
        "raid.fail=[\"channel:2@0.5\"]",
    ]));
    let reqs = vec![page(0, Op::Write, 3394), page(10_000_000, Op::Read, 3392)];
    let r = run_reqs(&sets, reqs, Some(1)).unwrap();
    assert_eq!(
        r.counter(Counter::UnrecoverableReads),
        1,
        "{:?}",
        r.counters
    );
}

/// DGC with one chip failure mid-run (sync-fifo): every request completes.
#[test]
fn dgc_with_a_chip_failure_under_sync_fifo_completes_every_request() {
    // (write?, first LPN, pages), one request every 20 µs; chip 7 fails on the arrival
    // of request 58.
    const OPS: [(bool, u64, u64); 142] = [
        (true, 24, 1),
        (false, 0, 1),
        (true, 9, 12),
        (true, 2, 1),
        (true, 11, 1),
        (true, 3, 11),
        (false, 25, 1),
        (true, 16, 1),
        (true, 3318, 6),
        (true, 6, 11),
        (true, 315, 9),
        (false, 25, 1),
        (true, 18, 1),
        (true, 198, 4),
        (true, 19, 8),
        (true, 3379, 11),
        (true, 1, 1),
        (true, 3392, 1),
        (true, 3351, 1),
        (true, 3360, 1),
        (false, 0, 1),
        (true, 1, 4),
        (true, 14, 1),
        (false, 0, 1),
        (false, 0, 1),
        (true, 7, 1),
        (true, 6, 1),
        (true, 3325, 1),
        (false, 27, 1),
        (false, 27, 1),
        (true, 2, 1),
        (false, 23, 5),
        (true, 88, 8),
        (true, 21, 10),
        (false, 31, 1),
        (true, 3367, 7),
        (true, 283, 5),
        (false, 0, 1),
        (true, 3315, 1),
        (false, 0, 1),
        (false, 0, 1),
        (true, 238, 1),
        (true, 7, 7),
        (false, 31, 1),
        (true, 304, 10),
        (false, 1, 1),
        (false, 0, 1),
        (true, 3370, 1),
        (true, 16, 1),
        (true, 20, 1),
        (false, 0, 1),
        (true, 22, 7),
        (false, 0, 1),
        (true, 3336, 1),
        (true, 272, 1),
        (false, 31, 1),
        (true, 3310, 10),
        (false, 7, 11),
        (true, 36, 9),
        (true, 3319, 1),
        (false, 242, 1),
        (false, 31, 1),
        (true, 3348, 4),
        (true, 21, 2),
        (true, 3369, 1),
        (true, 176, 9),
        (false, 45, 1),
        (true, 159, 9),
        (false, 0, 1),
        (true, 10, 1),
        (false, 166, 2),
        (true, 8, 1),
        (true, 212, 1),
        (true, 97, 4),
        (true, 12, 1),
        (false, 0, 1),
        (false, 29, 1),
        (true, 5, 2),
        (true, 3320, 1),
        (false, 0, 1),
        (true, 20, 1),
        (true, 181, 8),
        (false, 3300, 1),
        (true, 11, 1),
        (true, 8, 1),
        (false, 23, 1),
        (false, 0, 1),
        (true, 13, 1),
        (true, 3315, 10),
        (true, 3, 1),
        (false, 0, 1),
        (false, 0, 1),
        (true, 9, 1),
        (false, 0, 1),
        (true, 3353, 1),
        (true, 1, 7),
        (true, 300, 9),
        (true, 89, 11),
        (false, 0, 1),
        (true, 0, 10),
        (false, 22, 1),
        (false, 7, 4),
        (false, 15, 1),
        (false, 15, 1),
        (false, 10, 1),
        (false, 15, 1),
        (false, 2, 9),
        (true, 7, 1),
        (false, 8, 3),
        (false, 10, 1),
        (true, 70, 4),
        (false, 10, 1),
        (false, 4, 7),
        (false, 10, 1),
        (false, 5, 6),
        (false, 10, 1),
        (true, 0, 1),
        (true, 0, 8),
        (true, 3362, 5),
        (true, 3367, 6),
        (true, 14, 12),
        (true, 116, 1),
        (true, 301, 1),
        (true, 0, 1),
        (true, 1, 1),
        (true, 17, 4),
        (false, 10, 1),
        (true, 3321, 10),
        (true, 212, 1),
        (true, 12, 9),
        (true, 54, 1),
        (true, 53, 7),
        (true, 210, 3),
        (true, 153, 5),
        (true, 6, 1),
        (true, 76, 4),
        (true, 1, 11),
        (true, 30, 1),
        (true, 14, 7),
        (true, 188, 1),
        (true, 22, 9),
        (true, 114, 1),
    ];
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.layout=lci",
        "raid.buffer_new_writes=false",
        "raid.encode_timeout_ns=1",
        "dgc.enabled=true",
        "scheduler.name=sync-fifo",
        "raid.fail=[\"chip:7@0.411972\"]",
    ]));
    run_reqs(&sets, to_reqs(&OPS, 20_000), Some(OPS.len() as u64)).unwrap();
}

/// A degraded read that waits for its stripe must not be answered by reconstruction
/// once a parity update has declared its page lost (the new parity no longer covers it).
/// RAID-4, adjacent groups of 3 (members 0-2 and 3-5), spares 6 and 7: chip 1 and then
/// chip 0 die; LPN 4 (chip 0) and LPN 5 (chip 1) share a stripe whose parity is on chip 2.
#[test]
fn a_degraded_read_that_waited_never_answers_a_page_declared_lost_meanwhile() {
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "raid.level=4",
        "raid.group_size=3",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=2000",
        "raid.buffer_new_writes=false",
        "raid.encode_timeout_ns=1",
        "raid.fail=[\"chip:1@0.167\", \"chip:0@0.2\"]",
    ]));
    let mut ops = vec![(false, 0u64, 1u64); 60];
    ops[9] = (true, 5, 1);
    ops[11] = (true, 1, 4);
    ops[35] = (false, 1, 4);
    ops[55] = (true, 5, 1);
    let r = run_reqs(&sets, to_reqs(&ops, 20_000), Some(60)).unwrap();
    assert!(
        r.counter(Counter::UnrecoverableReads) >= 1,
        "{:?}",
        r.counters
    );
}
/// A read admitted before a write of its page must return the old content. BRR may
/// redirect it to a reconstruction only while its page is still the current version:
/// once the write's parity update has landed, the stripe encodes the new content.
/// (RAID-4, LCI groups of 3, spares, DGC, chip 1 failing early: the case the whole-space
/// test found.)
#[test]
fn a_read_older_than_a_write_of_its_page_is_not_rebuilt_from_the_new_stripe() {
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "raid.level=4",
        "raid.group_size=3",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=2000",
        "raid.layout=lci",
        "raid.buffer_new_writes=false",
        "raid.encode_timeout_ns=1",
        "scheduler.name=brr",
        "dgc.enabled=true",
        "raid.fail=[\"chip:1@0.017\"]",
    ]));
    #[rustfmt::skip]
    let ops: [(bool, u64, u64); 60] = [
        (true, 187, 1), (false, 28, 1), (false, 0, 1), (true, 4, 2), (true, 5, 3),
        (true, 7, 1), (true, 7, 1), (true, 91, 1), (false, 0, 1), (true, 18, 8),
        (false, 0, 1), (false, 0, 4), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (true, 29, 1), (false, 0, 1), (false, 0, 1), (false, 8, 4),
        (false, 0, 1), (true, 16, 8), (true, 187, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 9, 3), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 30, 4),
        (true, 2, 2), (false, 125, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 5, 7), (false, 9, 1), (false, 92, 12), (true, 3, 1), (false, 13, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (true, 0, 10), (false, 0, 1),
        (false, 111, 9), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (true, 103, 9), (false, 0, 1), (false, 0, 1), (false, 0, 1),
    ];
    run_reqs(&sets, to_reqs(&ops, 20_000), Some(ops.len() as u64)).unwrap();
}

/// With parity redirection, a stripe's parity may live on a chip of another group. When
/// its own parity member then dies (no spare), the next parity update writes nothing; the
/// redirected parity page is stale and must not stay mapped (RAID-5, adjacent groups of
/// 4, DGC with `redirect_parity`, channel 2 failing: chips 2 and 6).
#[test]
fn a_stale_redirected_parity_is_retired_when_its_member_is_dead() {
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "raid.level=5",
        "raid.group_size=4",
        "raid.update=rcw",
        "raid.buffer_new_writes=false",
        "raid.encode_timeout_ns=1",
        "dgc.enabled=true",
        "dgc.redirect_parity=true",
        "scheduler.name=sync-fifo",
        "host.mode=closed",
        "host.queue_depth=4",
        "raid.fail=[\"channel:2@0.867\"]",
    ]));
    #[rustfmt::skip]
    let ops: [(bool, u64, u64); 60] = [
        (false, 1, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 52, 1),
        (false, 0, 1), (true, 98, 8), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (true, 15, 1), (false, 1, 1), (false, 26, 2), (false, 0, 6),
        (false, 0, 1), (true, 12, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (true, 26, 1), (false, 0, 1), (false, 3301, 11), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 4), (true, 1, 1), (false, 0, 1), (true, 6, 4),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (true, 21, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (true, 5, 7), (true, 3, 7), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
    ];
    run_reqs(&sets, to_reqs(&ops, 20_000), Some(ops.len() as u64)).unwrap();
}

/// A write to a page whose chip died while an older write of it was still being
/// programmed there: the dead plane has no room to record the new version, which lives
/// only in the copy. A read must take the copy, not the older version from the write
/// buffer (RAID-1, LCI groups of 4; chip 3 holds LPN 15, chip 7 its copy).
#[test]
fn a_degraded_write_over_a_version_still_programming_on_the_dead_chip_is_read_from_the_copy() {
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "raid.level=1",
        "raid.group_size=4",
        "raid.layout=lci",
        "raid.buffer_new_writes=false",
        "raid.encode_timeout_ns=1",
        "raid.fail=[\"chip:3@0.722\"]",
    ]));
    #[rustfmt::skip]
    let ops: [(bool, u64, u64); 79] = [
        (true, 19, 5), (false, 0, 1), (true, 1, 7), (true, 92, 4), (true, 0, 8),
        (true, 7, 1), (true, 3, 5), (true, 4, 4), (true, 5, 11), (true, 4, 12),
        (true, 0, 8), (true, 0, 8), (true, 1, 7), (true, 8, 8), (true, 0, 8),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (true, 4, 4), (false, 0, 1), (false, 0, 1), (true, 4, 12), (true, 0, 8),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (true, 3300, 4), (false, 0, 1), (false, 0, 1), (true, 76, 4), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (true, 7, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (true, 13, 11), (false, 0, 1), (false, 0, 1), (true, 0, 8),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (true, 110, 10), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (true, 9, 7), (false, 4, 12),
    ];
    run_reqs(&sets, to_reqs(&ops, 20_000), Some(ops.len() as u64)).unwrap();
}

/// Materializing an unwritten stripe whose parity member is dead (no spare) writes no
/// parity; a parity DGC had redirected to a live chip is stale then and must be retired,
/// as in a parity update (half-full device, RAID-5 adjacent groups of 4, parity
/// redirection, chip 6 and then channel 2 failing).
#[test]
fn materializing_a_stripe_retires_a_stale_redirected_parity() {
    let mut sets = strings(&PRESSURE);
    sets.extend(strings(&[
        "ftl.precondition.fill_ratio=0.5",
        "raid.level=5",
        "raid.group_size=4",
        "raid.buffer_new_writes=false",
        "raid.encode_timeout_ns=1",
        "dgc.enabled=true",
        "dgc.redirect_parity=true",
        "scheduler.name=piq",
        "host.mode=closed",
        "host.queue_depth=4",
        "raid.fail=[\"channel:2@0.552\", \"chip:6@0\"]",
    ]));
    #[rustfmt::skip]
    let ops: [(bool, u64, u64); 154] = [
        (false, 4, 1), (true, 20, 1), (true, 8, 3), (true, 102, 8), (false, 0, 1),
        (false, 123, 1), (true, 13, 9), (false, 35, 5), (true, 19, 11), (true, 190, 1),
        (false, 13, 3), (false, 3, 1), (true, 6, 1), (true, 7, 1), (false, 2, 1),
        (true, 1, 5), (true, 3, 1), (false, 3304, 5), (false, 3337, 1), (false, 2, 1),
        (false, 44, 1), (false, 1, 1), (false, 50, 1), (false, 10, 1), (true, 64, 2),
        (false, 2, 1), (true, 8, 10), (false, 18, 5), (false, 69, 6), (true, 3343, 1),
        (true, 181, 10), (false, 0, 1), (false, 107, 4), (false, 19, 1), (true, 89, 1),
        (true, 3302, 12), (false, 4, 1), (false, 5, 1), (true, 199, 1), (false, 92, 3),
        (true, 15, 1), (false, 6, 1), (true, 284, 8), (false, 6, 1), (true, 6, 1),
        (false, 3322, 1), (true, 163, 1), (false, 3354, 1), (false, 7, 6), (false, 1, 1),
        (true, 171, 1), (false, 13, 1), (true, 14, 1), (true, 3358, 6), (false, 50, 1),
        (true, 13, 1), (false, 7, 1), (true, 3322, 6), (false, 11, 1), (false, 4, 8),
        (false, 7, 5), (true, 304, 12), (false, 7, 1), (false, 0, 1), (true, 53, 8),
        (false, 0, 1), (true, 10, 1), (false, 3384, 5), (false, 90, 1), (true, 1, 1),
        (true, 11, 5), (true, 59, 5), (true, 0, 3), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (true, 3318, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 3310, 10), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
        (false, 0, 1), (false, 0, 1), (false, 0, 1), (false, 0, 1),
    ];
    run_reqs(&sets, to_reqs(&ops, 20_000), Some(ops.len() as u64)).unwrap();
}

/// Found by the random RAID test: LCI groups of 3 with two spares, BRR, RMW updates and a
/// 1 ns encode timeout; chip 1 fails at 23.6 % of the requests. A host read of LPN 11
/// waited in its chip queue while the page was rewritten; BRR then redirected it to a
/// reconstruction, which returned the stripe's newer version instead of the one the read
/// was admitted for.
#[test]
fn a_read_redirected_after_its_page_was_rewritten_returns_its_own_version() {
    let sets = strings(&[
        "geometry.blocks_per_plane=16",
        "ftl.over_provisioning=0.3",
        "ftl.gc.threshold_free_ratio=0.2",
        "ftl.gc.background_free_ratio=0.25",
        "ftl.precondition.enabled=true",
        "raid.level=5",
        "raid.group_size=3",
        "raid.spare_chips=2",
        "raid.rebuild_rate_mib_s=2000",
        "raid.layout=lci",
        "raid.update=rmw",
        "raid.encode_timeout_ns=1",
        "scheduler.name=brr",
        "raid.fail=[\"chip:1@0.236\"]",
    ]);
    let n = REWRITTEN_WHILE_QUEUED.len() as u64;
    let r = run_reqs(&sets, to_reqs(REWRITTEN_WHILE_QUEUED, 20_000), Some(n)).unwrap();
    assert!(r.counter(Counter::RedirectedReads) > 0, "{:?}", r.counters);
    assert_eq!(r.counter(Counter::UnrecoverableReads), 0);
    assert_eq!(r.counter(Counter::UnrecoverablePages), 0);
}

/// The workload of the test above: (write?, lpn, pages).
#[rustfmt::skip]
const REWRITTEN_WHILE_QUEUED: &[(bool, u64, u64)] = &[
    (false, 252, 7), (false, 6, 12), (false, 11, 1), (true, 55, 1), (true, 3351, 1),
    (true, 125, 1), (true, 167, 5), (true, 206, 1), (true, 274, 4), (true, 3337, 10),
    (true, 136, 12), (true, 18, 10), (true, 4, 1), (false, 2, 8), (true, 0, 2),
    (false, 2, 8), (false, 5, 1), (false, 3342, 1), (false, 3336, 10), (false, 3, 1),
    (true, 112, 1), (false, 19, 2), (true, 118, 9), (false, 117, 10), (true, 257, 7),
    (true, 108, 1), (true, 170, 1), (false, 16, 1), (true, 3300, 1), (false, 17, 1),
    (false, 18, 9), (true, 187, 3), (false, 3385, 1), (false, 157, 1), (false, 20, 1),
    (false, 117, 1), (true, 145, 11), (false, 5, 1), (true, 249, 1), (false, 231, 1),
    (true, 272, 1), (false, 8, 3), (true, 3346, 9), (true, 3358, 1), (true, 149, 1),
    (true, 156, 1), (false, 239, 1), (false, 317, 9), (false, 11, 1), (false, 3389, 1),
    (true, 3318, 1), (true, 14, 6), (true, 2, 1), (false, 33, 1), (true, 245, 1),
    (false, 3393, 1), (true, 3343, 1), (false, 256, 1), (true, 263, 10), (true, 20, 11),
    (false, 13, 1), (false, 182, 1), (true, 229, 1), (false, 211, 1), (true, 3374, 1),
    (false, 238, 1), (false, 0, 1), (false, 3371, 1), (false, 3320, 1), (true, 74, 1),
    (true, 3305, 1), (false, 225, 1), (false, 0, 6), (false, 12, 1), (true, 12, 1),
    (true, 19, 1), (false, 7, 1), (false, 1, 12), (false, 6, 1), (false, 261, 6),
    (true, 3329, 2), (false, 192, 1), (false, 3, 1), (false, 201, 1), (true, 236, 1),
    (false, 242, 1), (false, 152, 2), (true, 77, 1), (true, 58, 3), (false, 3, 11),
    (true, 12, 1), (true, 14, 8), (true, 5, 1), (true, 6, 1), (true, 20, 1),
    (true, 156, 11), (false, 210, 12), (false, 11, 1), (true, 11, 12), (true, 1, 1),
    (false, 149, 1), (true, 3345, 1), (true, 3383, 1), (false, 3311, 4), (true, 6, 10),
    (true, 16, 11), (false, 3329, 8), (false, 5, 1), (true, 18, 8), (false, 6, 1),
    (true, 15, 12),
];
