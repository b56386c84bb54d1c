//! Liveness under space pressure: whatever the placement, redundancy and binding, a run
//! whose device keeps its over-provisioning ends with every request complete and every
//! page verified. Large writes at short gaps over a preconditioned device make planes
//! starve (GC due, no victim) and stripe jobs queue behind each other.

use crate::util::{small_config, vec_sim};
use proptest::prelude::*;
use ssdlab_stats::Counter;
use ssdlab_trace::{Content, IoRequest, Op};

/// Placements, redundancy and binding that change where a page's versions go.
pub(crate) const SHAPES: [&[&str]; 9] = [
    &[],
    &["ftl.allocation=\"dynamic\""],
    &[
        "ftl.allocation=\"dynamic\"",
        "ftl.dynamic_policy=\"least-busy\"",
    ],
    &["ftl.allocation=\"hipa\""],
    &["placement.bind=\"dispatch\""],
    &[
        "ftl.allocation=\"dynamic\"",
        "placement.bind=\"dispatch\"",
        "scheduler.multi_plane=true",
    ],
    &["raid.level=5", "raid.domain=\"chip\"", "raid.group_size=4"],
    &[
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=4",
        "raid.buffer_new_writes=false",
    ],
    &["raid.level=1", "raid.domain=\"chip\"", "raid.group_size=2"],
];

/// CR5's keys (channel RAID-5 of two, chips chosen by SDA, no group buffer), then
/// `$extra`.
macro_rules! cr5 {
    ($($extra:expr),*) => {
        &[
            "raid.level=5",
            "raid.domain=\"channel\"",
            "raid.group_size=2",
            "raid.chip_in_channel=\"sda\"",
            "raid.buffer_new_writes=false",
            $($extra),*
        ]
    };
}

/// DS-FTL's content index, DGC, CR5 and CR5M, on the same device (CR5M also on a
/// smaller one).
pub(crate) const DESIGNS: [&[&str]; 7] = [
    &["ftl.allocation=\"content-aware\"", "dsftl.index=true"],
    &[
        "ftl.allocation=\"content-aware\"",
        "dsftl.index=true",
        "dsftl.base=\"dynamic\"",
    ],
    &["ftl.allocation=\"hipa\"", "dsftl.index=true"],
    &[
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=2",
        "dgc.enabled=true",
    ],
    cr5!(),
    cr5!("raid.mirror_chips=true", "raid.mirror_write=true"),
    // CR5M on small planes of two dies a chip, closed loop: a plane's invalid pages can
    // all sit in its open blocks.
    cr5!(
        "raid.mirror_chips=true",
        "raid.mirror_write=true",
        "geometry.blocks_per_plane=16",
        "geometry.dies_per_chip=2",
        "host.mode=\"closed\"",
        "host.queue_depth=8"
    ),
];

/// A device of 4 chips (one RAID-5 group), 32 blocks of 16 pages a plane, preconditioned full and
/// `overwrite` rewritten, with verify on.
pub(crate) fn sets(shape: &[&str], overwrite: u8, lazy: bool) -> Vec<String> {
    let mut s: Vec<String> = [
        "verify=true",
        "geometry.channels=2",
        "geometry.blocks_per_plane=32",
        "geometry.pages_per_block=16",
        "ftl.over_provisioning=0.25",
        "ftl.precondition.enabled=true",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    s.push(format!("ftl.precondition.overwrite_ratio=0.{overwrite}"));
    if lazy {
        s.push("ftl.gc.trigger=\"lazy\"".to_string());
    }
    s.extend(shape.iter().map(|x| x.to_string()));
    s
}

/// The requests of `ops` (write, first LPN, pages, content seed), one every `gap_ns`.
/// A content seed below 20 gives the request known content, so that writes repeat
/// content across requests; `None` or 20 and above leave it unknown (unique).
pub(crate) fn requests(ops: &[(bool, u64, u64, Option<u64>)], gap_ns: u64) -> Vec<IoRequest> {
    ops.iter()
        .enumerate()
        .map(|(i, &(write, lpn, pages, seed))| IoRequest {
            arrival_ns: i as u64 * gap_ns,
            op: if write { Op::Write } else { Op::Read },
            fua: false,
            offset_bytes: lpn * 4096,
            size_bytes: pages * 4096,
            content: seed.filter(|&c| c < 20).map(Content::Seed),
            stream: None,
        })
        .collect()
}

/// Operations for [`requests`], as many as `len` says: three writes in four, 1 to 32
/// pages at LPNs below 2 900, half of them with one of 20 contents.
pub(crate) fn ops_with_content(
    len: std::ops::Range<usize>,
) -> impl Strategy<Value = Vec<(bool, u64, u64, Option<u64>)>> {
    proptest::collection::vec(
        (
            prop_oneof![3 => Just(true), 1 => Just(false)],
            0u64..2_900,
            1u64..33,
            (0u64..40).prop_map(Some),
        ),
        len,
    )
}

/// Runs `reqs` on the device of `sets` to its end, verified, audited and reported: the
/// pages the audit checked, and the report. The trace's length is known (for failures
/// given as a fraction of it).
pub(crate) fn finishes(
    s: &[String],
    reqs: Vec<IoRequest>,
) -> Result<(u64, ssdlab::Report), TestCaseError> {
    let refs: Vec<&str> = s.iter().map(String::as_str).collect();
    let n = reqs.len() as u64;
    let mut sim = vec_sim(small_config(&refs), reqs);
    sim.set_trace_requests(n);
    let fail = |e: ssdlab::SimError| TestCaseError::fail(format!("{s:?}: {e}"));
    sim.run_to_end().map_err(fail)?;
    let checked = sim.audit().map_err(fail)?;
    Ok((checked, sim.into_report().map_err(fail)?))
}

/// [`sets`] for `shape` aged `overwrite` tenths, with chip `chip` failing after
/// fraction `at` of the requests.
fn failing_sets(shape: &[&str], overwrite: u8, chip: u32, at: f64) -> Vec<String> {
    let mut s = sets(shape, overwrite, false);
    s.push(format!("raid.fail=[\"chip:{chip}@{at}\"]"));
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn no_run_under_space_pressure_is_left_waiting(
        shape in 0..SHAPES.len(),
        overwrite in 0u8..6,
        lazy in any::<bool>(),
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in proptest::collection::vec(
            (prop_oneof![3 => Just(true), 1 => Just(false)], 0u64..2_900, 1u64..33),
            800..1_600,
        ),
    ) {
        // The strategy above is kept as it was when the cases in
        // proptest-regressions/liveness.txt failed, so that their seeds replay them.
        let ops: Vec<_> = ops.into_iter().map(|(w, l, p)| (w, l, p, None)).collect();
        finishes(&sets(SHAPES[shape], overwrite, lazy), requests(&ops, gap_ns))?;
    }

    #[test]
    fn no_design_under_space_pressure_is_left_waiting(
        design in 0..DESIGNS.len(),
        overwrite in 0u8..6,
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in ops_with_content(800..1_600),
    ) {
        finishes(&sets(DESIGNS[design], overwrite, false), requests(&ops, gap_ns))?;
    }
}

/// `n` operations for [`requests`] from a fixed generator: three writes in four, 1 to 32
/// pages at LPNs below 2 900, unique content.
fn fixed_ops(n: u64) -> Vec<(bool, u64, u64, Option<u64>)> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let r = x >> 20;
            (
                !r.is_multiple_of(4),
                (r >> 4) % 2_900,
                1 + (r >> 16) % 32,
                None,
            )
        })
        .collect()
}

/// `n` fixed operations on the device of `shape` whose chip 0 fails after the first
/// request, run verified to the end and audited; its report.
fn with_chip_0_lost(shape: &[&str], n: u64) -> ssdlab::Report {
    let s = failing_sets(shape, 0, 0, 0.001);
    let (checked, report) = finishes(&s, requests(&fixed_ops(n), 1_000)).unwrap();
    assert!(checked > 0, "pages checked");
    report
}

#[test]
fn a_chip_lost_without_redundancy_under_dynamic_allocation_never_panics() {
    // With no plane free, dynamic allocation fell back on a plane by counter, a dead one
    // too; the write was then recorded as known only through redundancy, and the audit
    // asked RAID (there is none) for it.
    let r = with_chip_0_lost(&["ftl.allocation=\"dynamic\""], 150);
    assert!(
        r.counter(Counter::UnrecoverableReads) > 0,
        "{:?}",
        r.counters
    );
}

#[test]
fn writes_to_a_full_dead_plane_without_redundancy_are_lost() {
    // Static allocation records each write of a dead chip's page on the dead plane until
    // it is full; a page never written before (no preconditioning here) is then lost,
    // not "known only through redundancy" (there is none), which made reads and the
    // audit ask RAID for it.
    let r = with_chip_0_lost(&["ftl.precondition.enabled=false"], 1_200);
    assert!(r.counter(Counter::LostWrites) > 0, "{:?}", r.counters);
}

/// Redundancy shapes for failures under space pressure: chip RAID-5 with and without
/// group buffers, RAID-5 of two, RAID-4, RAID-1, DGC, CR5 and CR5M. CR5 with SDA and
/// no mirror chips is left out: the live chip of the failed channel takes the dead
/// one's writes and runs out of room on this small device (docs/RAID.md, "Capacity
/// after a failure").
const FAILING: [&[&str]; 8] = [
    SHAPES[6],
    SHAPES[7],
    &["raid.level=5", "raid.domain=\"chip\"", "raid.group_size=2"],
    &["raid.level=4", "raid.domain=\"chip\"", "raid.group_size=4"],
    SHAPES[8],
    DESIGNS[3],
    &[
        "raid.level=5",
        "raid.domain=\"channel\"",
        "raid.group_size=2",
    ],
    DESIGNS[5],
];

/// Every scheduler, with and without RAID, with a chip failing mid-run under two.
const SCHEDULERS: [&[&str]; 12] = [
    &["scheduler.name=\"sync-fifo\""],
    &["scheduler.name=\"piq\""],
    &["scheduler.name=\"vaq\""],
    &["scheduler.name=\"paq0\""],
    &["scheduler.name=\"paq1\""],
    &["scheduler.name=\"paq2\""],
    &["scheduler.name=\"paq2\"", "ftl.allocation=\"dynamic\""],
    &[
        "scheduler.multi_plane=true",
        "scheduler.write_behind_read=true",
        "ftl.allocation=\"dynamic\"",
    ],
    &[
        "scheduler.name=\"brr\"",
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=4",
    ],
    &[
        "scheduler.name=\"paq2\"",
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=4",
    ],
    &[
        "scheduler.name=\"piq\"",
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=4",
        "raid.fail=[\"chip:1@2ms\"]",
    ],
    &[
        "scheduler.name=\"brr\"",
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=4",
        "raid.fail=[\"chip:2@2ms\"]",
    ],
];

/// The report of `ops` at `gap_ns` on the device of `shape`, aged `overwrite` tenths,
/// whose chip `chip` fails after fraction `at` of the requests; run verified to the end
/// and audited.
fn with_failure(
    shape: &[&str],
    overwrite: u8,
    chip: u32,
    at: f64,
    ops: &[(bool, u64, u64, Option<u64>)],
    gap_ns: u64,
) -> Result<ssdlab::Report, TestCaseError> {
    let s = failing_sets(shape, overwrite, chip, at);
    finishes(&s, requests(ops, gap_ns)).map(|(_, report)| report)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// A chip that dies while writes wait for space: every request completes, every read
    /// returns what was last written, and the audit finds every page.
    #[test]
    fn a_failure_under_space_pressure_leaves_nothing_waiting_or_wrong(
        shape in 0..FAILING.len(),
        overwrite in 0u8..6,
        chip in 0u32..4,
        at in prop_oneof![Just(0.001), 0.05f64..0.9],
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in proptest::collection::vec(
            (prop_oneof![3 => Just(true), 1 => Just(false)], 0u64..2_900, 1u64..33),
            600..1_200,
        ),
    ) {
        let ops: Vec<_> = ops.into_iter().map(|(w, l, p)| (w, l, p, None)).collect();
        with_failure(FAILING[shape], overwrite, chip, at, &ops, gap_ns)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn every_scheduler_under_space_pressure_finishes_verified(
        scheduler in 0..SCHEDULERS.len(),
        overwrite in 0u8..6,
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in ops_with_content(600..1_200),
    ) {
        finishes(&sets(SCHEDULERS[scheduler], overwrite, false), requests(&ops, gap_ns))?;
    }
}

#[test]
fn degraded_reads_wait_for_their_stripe_without_polling() {
    // CR5M with a chip lost from the start, under space pressure: many degraded reads
    // find their stripe settling (a parity update, a write waiting for space). They used
    // to try again every t_R, some fifty events per flash transaction; they now try
    // again after each event, which adds none.
    let r = with_failure(FAILING[7], 2, 0, 0.001, &fixed_ops(1_200), 1_000).unwrap();
    let txns: u64 = r.transactions.iter().map(|t| t.count).sum();
    assert!(r.counter(Counter::DegradedReads) > 100, "{:?}", r.counters);
    assert!(
        r.events < 4 * txns,
        "{} events, {txns} transactions",
        r.events
    );
}
