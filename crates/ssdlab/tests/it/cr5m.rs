//! CR5M and the channel RAID levels it is compared with, on small devices: random
//! updates, reads, GC and a failure with every read verified and the mirror table
//! audited; real-trace replays with a chip failure; a channel failure's losses counted.

use crate::util::{assert_counter, page, small_config, trace_sim, vec_sim};
use proptest::prelude::*;
use ssdlab::Simulation;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

/// 4 channels × 3 chips (2 data ways + the mirror chip) of the small device, channel
/// RAID-5 over the 4 channels with mirror chips, verify on.
const CR5M: [&str; 8] = [
    "verify=true",
    "geometry.chips_per_channel=3",
    "raid.level=5",
    "raid.domain=\"channel\"",
    "raid.group_size=4",
    "raid.buffer_new_writes=false",
    "raid.update=\"rcw\"",
    "raid.mirror_chips=true",
];

/// GC pressure on the small device.
const PRESSURE: [&str; 5] = [
    "geometry.blocks_per_plane=16",
    "ftl.over_provisioning=0.3",
    "ftl.gc.threshold_free_ratio=0.2",
    "ftl.gc.background_free_ratio=0.25",
    "ftl.precondition.enabled=true",
];

fn sim_of(sets: &[String], reqs: Vec<IoRequest>) -> Simulation {
    let mut all: Vec<&str> = CR5M.to_vec();
    all.extend(sets.iter().map(String::as_str));
    let mut sim = vec_sim(small_config(&all), reqs.clone());
    sim.set_trace_requests(reqs.len() as u64);
    sim
}

/// Runs `sim` to its end with every check: verified reads, invariants, the audit.
fn checked(mut sim: Simulation) -> Result<ssdlab::Report, String> {
    sim.run_to_end().map_err(|e| format!("run: {e}"))?;
    sim.check_invariants();
    sim.audit().map_err(|e| format!("audit: {e}"))?;
    sim.into_report().map_err(|e| format!("report: {e}"))
}

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

/// The knobs a random case turns.
#[derive(Clone, Debug)]
struct Knobs {
    sda: bool,
    rmw: bool,
    idle_die: bool,
    materialize: bool,
    transfer_ack: bool,
    shortest_queue: bool,
    erased: bool,
    free_ratio: f64,
    scheduler: &'static str,
    pressure: bool,
    next_channel: bool,
    /// A cached map of this many entries (16 to a translation page); `None`: ideal.
    cached: Option<u32>,
}

impl Knobs {
    /// Where the property test's failing cases shrank to: every switch at its first
    /// value, reclaim at 2 %, GC pressure, the ideal map.
    const SHRUNK: Knobs = Knobs {
        sda: false,
        rmw: false,
        idle_die: false,
        materialize: false,
        transfer_ack: false,
        shortest_queue: false,
        erased: false,
        free_ratio: 0.02,
        scheduler: "async-fifo",
        pressure: true,
        next_channel: false,
        cached: None,
    };

    fn sets(&self) -> Vec<String> {
        let pick = |c: bool, a: &str, b: &str| if c { a.to_string() } else { b.to_string() };
        let mut s = vec![
            pick(
                self.sda,
                "raid.chip_in_channel=\"sda\"",
                "raid.chip_in_channel=\"static\"",
            ),
            pick(self.rmw, "raid.update=\"rmw\"", "raid.update=\"rcw\""),
            pick(
                self.idle_die,
                "raid.mirror_idle=\"die\"",
                "raid.mirror_idle=\"chip\"",
            ),
            pick(
                self.materialize,
                "raid.unwritten_stripes=\"materialize\"",
                "raid.unwritten_stripes=\"zero\"",
            ),
            pick(
                self.transfer_ack,
                "timing.write_ack=\"transfer\"",
                "timing.write_ack=\"program\"",
            ),
            pick(
                self.shortest_queue,
                "raid.mirror_read_choice=\"shortest-queue\"",
                "raid.mirror_read_choice=\"busy-fallback\"",
            ),
            pick(
                self.erased,
                "raid.mirror_avail=\"erased\"",
                "raid.mirror_avail=\"not-live\"",
            ),
            format!("raid.mirror_reclaim_free_ratio={}", self.free_ratio),
            format!("raid.mirror_reclaim_stop_ratio={}", self.free_ratio + 0.005),
            format!("scheduler.name=\"{}\"", self.scheduler),
        ];
        if self.pressure {
            s.extend(PRESSURE.iter().map(|x| x.to_string()));
        }
        if self.next_channel {
            s.push("raid.mirror_channel=\"next\"".into());
        }
        if let Some(entries) = self.cached {
            s.push("ftl.mapping=\"cached\"".into());
            s.push(format!("ftl.cmt.entries={entries}"));
            s.push("ftl.cmt.entries_per_tpage=16".into());
        }
        s
    }
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        (any::<bool>(), any::<bool>(), any::<bool>()),
        prop_oneof![Just(0.02), Just(0.9), Just(0.98)],
        prop_oneof![
            Just("async-fifo"),
            Just("sync-fifo"),
            Just("piq"),
            Just("brr")
        ],
        (any::<bool>(), any::<bool>()),
        proptest::option::of(1u32..200),
    )
        .prop_map(
            |(
                (sda, rmw, idle_die, materialize),
                (transfer_ack, shortest_queue, erased),
                free_ratio,
                scheduler,
                (pressure, next_channel),
                cached,
            )| Knobs {
                sda,
                rmw,
                idle_die,
                materialize,
                transfer_ack,
                shortest_queue,
                erased,
                free_ratio,
                scheduler,
                pressure,
                next_channel,
                cached,
            },
        )
}

/// Requests: (write?, lpn, pages), mostly small updates of a hot spot.
fn ops() -> impl Strategy<Value = Vec<(bool, u64, u64)>> {
    proptest::collection::vec(
        (
            prop_oneof![2 => Just(true), 1 => Just(false)],
            prop_oneof![3 => 0u64..30, 2 => 0u64..600],
            prop_oneof![3 => Just(1u64), 2 => 1u64..10],
        ),
        60..220,
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        // `PROPTEST_CASES` when set (an explicit `cases` would otherwise hide it).
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random updates, reads, GC and at most one failed chip (a data chip or a mirror
    /// chip), or with copies on the next channel a whole failed channel, with the ideal
    /// or a cached map: every read returns the last token written, the audit (parity
    /// over what it covers, every live copy equal to its page, the mirror table against
    /// the FTL, translation pages against the map) passes, and nothing is
    /// unrecoverable.
    #[test]
    fn cr5m_random_workloads_with_a_chip_failure_never_lose_or_corrupt(
        k in knobs(),
        ops in ops(),
        fail in proptest::option::of((0u32..16, 0u32..1000)),
        gap_ns in prop_oneof![Just(5_000u64), Just(200_000u64)],
    ) {
        let mut sets = k.sets();
        if let Some((target, f)) = fail {
            let at = f64::from(f) / 1000.0;
            if k.next_channel && target >= 12 {
                sets.push(format!("raid.fail=[\"channel:{}@{at}\"]", target - 12));
            } else {
                sets.push(format!("raid.fail=[\"chip:{}@{at}\"]", target % 12));
            }
        }
        let reqs: Vec<IoRequest> = ops
            .iter()
            .enumerate()
            .map(|(i, &(w, lpn, n))| {
                req(i as u64 * gap_ns, if w { Op::Write } else { Op::Read }, lpn, n)
            })
            .collect();
        let r = checked(sim_of(&sets, reqs)).map_err(|e| TestCaseError::fail(format!("{sets:?}: {e}; gap {gap_ns}; ops {ops:?}")))?;
        prop_assert_eq!(r.counter(Counter::UnrecoverableReads), 0, "{:?}", sets);
        prop_assert_eq!(r.counter(Counter::UnrecoverablePages), 0, "{:?}", sets);
        prop_assert!(r.mirror.is_some());
    }
}

/// CR1, CR4, CR5 (SDA) and CR5M on a real trace, each with a chip failure half-way:
/// every read verified, the audit passes, nothing unrecoverable.
#[test]
fn channel_raid_levels_verify_on_a_real_trace_with_a_chip_failure() {
    let cr = |level: &str, extra: &[&str]| {
        let mut s: Vec<String> = [
            "verify=true",
            "geometry.chips_per_channel=3",
            "raid.domain=\"channel\"",
            "raid.buffer_new_writes=false",
            "raid.update=\"rcw\"",
            "raid.chip_in_channel=\"sda\"",
            "raid.unwritten_stripes=\"materialize\"",
            "raid.fail=[\"chip:5@0.5\"]",
        ]
        .iter()
        .map(|x| x.to_string())
        .collect();
        s.push(format!("raid.level={level}"));
        s.extend(extra.iter().map(|x| x.to_string()));
        s
    };
    for (name, sets) in [
        (
            "cr1",
            cr("1", &["raid.group_size=4", "raid.layout=\"lci\""]),
        ),
        ("cr4", cr("4", &["raid.group_size=4"])),
        ("cr5", cr("5", &["raid.group_size=4"])),
        (
            "cr5m",
            cr("5", &["raid.group_size=4", "raid.mirror_chips=true"]),
        ),
    ] {
        let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
        let mut sim = trace_sim(small_config(&refs), "msr/hm_0-slice7016.csv.gz");
        sim.set_trace_requests(7015);
        let r = checked(sim).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.counter(Counter::Failures), 1, "{name}");
        assert!(r.counter(Counter::VerifiedReads) > 1000, "{name}");
        assert_eq!(r.counter(Counter::UnrecoverableReads), 0, "{name}");
        assert_eq!(r.counter(Counter::UnrecoverablePages), 0, "{name}");
        if name == "cr5m" {
            assert!(r.counter(Counter::MirrorWrites) > 0, "{:?}", r.counters);
            let m = r.mirror.expect("a mirror section");
            assert!(m.mirror_write_share > 0.0);
            assert!(m.data_writes_per_channel.mean > 0.0);
        } else {
            assert!(r.mirror.is_none(), "{name}");
        }
    }
}

/// Stripes 0-4 written whole, then one-page updates of their channel-0 pages (mirror
/// writes: the new data and its copy both on channel 0), then channel 0 fails: those
/// pages' newest content is gone with both copies (the parity covers only the version
/// before the update), so their reads are unrecoverable — counted, never answered —
/// while the other pages of the stripes still read back.
#[test]
fn a_channel_failure_takes_a_mirrored_page_and_its_copy_and_says_so() {
    let mut reqs = vec![req(0, Op::Write, 0, 15)];
    // Channel 0 holds D0, D3, D6 and D12 (row 3's parity is on channel 0).
    let on_ch0: Vec<u64> = vec![0, 3, 6, 12];
    for (i, &x) in on_ch0.iter().enumerate() {
        reqs.push(page(2_000_000 + i as u64 * 1_000_000, Op::Write, x));
    }
    for x in 0..15 {
        reqs.push(page(20_000_000 + x * 1_000_000, Op::Read, x));
    }
    let sets = vec![
        "raid.chip_in_channel=\"static\"".to_string(),
        "raid.fail=[\"channel:0@10ms\"]".to_string(),
    ];
    let r = checked(sim_of(&sets, reqs)).unwrap();
    assert_counter(&r, Counter::MirrorWriteStripes, 4);
    assert_counter(&r, Counter::MirrorReclaimsFailure, 4);
    assert_counter(&r, Counter::UnrecoverableReads, 4);
    assert_counter(&r, Counter::VerifiedReads, 11);
    assert_counter(&r, Counter::UnrecoverablePages, 4);
}

/// The same updates and channel failure with `raid.mirror_channel = "next"`: each copy
/// sits on channel 1's mirror chip, so every updated page of channel 0 reads back from
/// its copy (a degraded read with one source) and nothing is lost; channel 0's mirror
/// chip held channel 3's copies, and channel 3 took no update here.
#[test]
fn copies_on_the_next_channel_survive_the_page_channel_failure() {
    let mut reqs = vec![req(0, Op::Write, 0, 15)];
    for (i, &x) in [0u64, 3, 6, 12].iter().enumerate() {
        reqs.push(page(2_000_000 + i as u64 * 1_000_000, Op::Write, x));
    }
    for x in 0..15 {
        reqs.push(page(20_000_000 + x * 1_000_000, Op::Read, x));
    }
    let sets = vec![
        "raid.chip_in_channel=\"static\"".to_string(),
        "raid.mirror_channel=\"next\"".to_string(),
        "raid.fail=[\"channel:0@10ms\"]".to_string(),
    ];
    let r = checked(sim_of(&sets, reqs)).unwrap();
    assert_counter(&r, Counter::MirrorWriteStripes, 4);
    assert_counter(&r, Counter::MirrorReclaimsFailure, 0);
    assert_counter(&r, Counter::UnrecoverableReads, 0);
    assert_counter(&r, Counter::UnrecoverablePages, 0);
    assert_counter(&r, Counter::VerifiedReads, 15);
    // The four pages of channel 0 are degraded reads, each served by its one copy.
    assert_counter(&r, Counter::DegradedReads, 4);
    assert_counter(&r, Counter::RaidReconstructReads, 4);
}

/// A copy on the next channel's mirror chip: a mirror write of a channel-3 page programs
/// its copy on channel 0's mirror chip, and that chip's failure reclaims the stripe.
#[test]
fn the_next_channel_mirror_chip_holds_the_last_channel_copies() {
    // Every page of stripes 0-4 is updated once; some of them live on channel 3.
    let mut reqs = vec![req(0, Op::Write, 0, 15)];
    for (i, x) in (0..15u64).enumerate() {
        reqs.push(page(2_000_000 + i as u64 * 1_000_000, Op::Write, x));
    }
    for x in 0..15 {
        reqs.push(page(40_000_000 + x * 1_000_000, Op::Read, x));
    }
    let sets = vec![
        "raid.chip_in_channel=\"static\"".to_string(),
        "raid.mirror_channel=\"next\"".to_string(),
        "raid.fail=[\"channel:0@30ms\"]".to_string(),
    ];
    let r = checked(sim_of(&sets, reqs)).unwrap();
    assert!(
        r.counter(Counter::MirrorWriteStripes) > 0,
        "{:?}",
        r.counters
    );
    // Channel 0's mirror chip held the copies of channel 3's updated pages: their
    // stripes are reclaimed when it dies.
    assert!(
        r.counter(Counter::MirrorReclaimsFailure) > 0,
        "{:?}",
        r.counters
    );
    assert_counter(&r, Counter::UnrecoverableReads, 0);
    assert_counter(&r, Counter::VerifiedReads, 15);
}

/// A mirror chip below its threshold reclaims its oldest entries: with the threshold
/// at 99.5 % of a mirror chip, only a few entries fit, the reclaims are counted by
/// trigger, and the copies and expired pages they free stay consistent.
#[test]
fn a_mirror_chip_short_of_space_reclaims_its_oldest_entries() {
    let mut reqs = vec![req(0, Op::Write, 0, 300)];
    for i in 0..200u64 {
        // One-page updates of distinct pages, far enough apart for the mirror chips
        // to be idle.
        reqs.push(page(5_000_000 + i * 400_000, Op::Write, (i * 3) % 300));
    }
    let sets = vec![
        "raid.mirror_reclaim_free_ratio=0.995".to_string(),
        "raid.mirror_reclaim_stop_ratio=0.996".to_string(),
    ];
    let r = checked(sim_of(&sets, reqs)).unwrap();
    let capacity = r.counter(Counter::MirrorReclaimsCapacity);
    assert!(capacity > 0, "{:?}", r.counters);
    // A mirror chip has 2 planes × 64 blocks × 32 pages = 4096 pages: 0.5 % is 20.
    assert!(
        r.counter(Counter::MirrorEntriesPeak) <= 4 * 21,
        "{:?}",
        r.counters
    );
    assert!(r.reason(ssdlab_nand::TxnReason::ReclaimWrite).is_some());
    let m = r.mirror.unwrap();
    assert!(m.mirror_avail_ratio_min < 0.996, "{m:?}");
}

/// Expired pages are valid pages of the data chips: on a device short of
/// over-provisioning they fill planes until GC finds no victim, and the pressure valve
/// reclaims the stripes that own them instead of letting writes wait for ever.
#[test]
fn expired_pages_that_fill_a_plane_are_reclaimed_under_pressure() {
    let mut reqs = Vec::new();
    for i in 0..3_000u64 {
        reqs.push(page(i * 300_000, Op::Write, (i * 7) % 1500));
    }
    let sets: Vec<String> = [
        "geometry.blocks_per_plane=16",
        "ftl.over_provisioning=0.2",
        "ftl.gc.threshold_free_ratio=0.15",
        "ftl.gc.background_free_ratio=0.2",
        "ftl.precondition.enabled=true",
        "raid.unwritten_stripes=\"materialize\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let r = checked(sim_of(&sets, reqs)).unwrap();
    assert!(r.gc_runs > 0);
    assert!(
        r.counter(Counter::MirrorReclaimsPressure) > 0,
        "{:?}",
        r.counters
    );
}

/// `timing.write_ack = "transfer"`: an update completes when its data and its mirror
/// copy have crossed channel 0's bus (one after the other), not after the program; the
/// same update by RCW waits for a pre-read and then its parity's transfer. These are
/// the idle-device bounds of what a mirror write saves (docs/reproductions/cr5m.md).
#[test]
fn a_write_acknowledged_at_transfer_waits_for_its_copy_on_the_same_bus() {
    const XFER: u64 = 10_240;
    let reqs = vec![req(0, Op::Write, 0, 3), page(5_000_000, Op::Write, 0)];
    let run = |ack: &str| {
        let sets = vec![
            "raid.chip_in_channel=\"static\"".to_string(),
            format!("timing.write_ack=\"{ack}\""),
        ];
        checked(sim_of(&sets, reqs.clone())).unwrap()
    };
    let transfer = run("transfer");
    assert_eq!(transfer.counter(Counter::MirrorWriteStripes), 1);
    // The full stripe: three data pages and the parity on four buses at once.
    assert_eq!(transfer.response.write.min_ns, XFER);
    assert_eq!(transfer.response.write.max_ns, 2 * XFER);
    let program = run("program");
    assert_eq!(program.response.write.min_ns, XFER + 200_000);
    assert_eq!(program.response.write.max_ns, 2 * XFER + 200_000);
    // Without the mirror write the update is an RCW: two pre-reads on two other
    // channels at once (array, then transfer), then the parity's transfer.
    let rcw = |ack: &str| {
        let sets = vec![
            "raid.chip_in_channel=\"static\"".to_string(),
            "raid.mirror_write=false".to_string(),
            format!("timing.write_ack=\"{ack}\""),
        ];
        checked(sim_of(&sets, reqs.clone())).unwrap()
    };
    let (t, p) = (rcw("transfer"), rcw("program"));
    assert_eq!(t.counter(Counter::RaidRcw), 1);
    assert_eq!(t.response.write.max_ns, 25_000 + 2 * XFER);
    assert_eq!(p.response.write.max_ns, 25_000 + 2 * XFER + 200_000);
}

/// A mirror write moves its page's old version to the page's EPPN when it is admitted.
/// Here (preconditioned, GC pressure, a cached map of one entry whose translation pages
/// take space) LPN 365's new data page waits for space on chip 7, and chip 7 dies before
/// it is placed: the write is recorded through redundancy only and LPN 365 stays
/// unmapped. Its map entry changed all the same, so the CMT holds it dirty; otherwise
/// its translation page would still name the old version, which the audit catches.
/// (Found by the property test above with the cached-map knob, shrunk.)
#[test]
fn a_parked_mirror_write_whose_chip_dies_still_dirties_the_page_s_entry() {
    let mut sets = Knobs {
        scheduler: "piq",
        cached: Some(1),
        ..Knobs::SHRUNK
    }
    .sets();
    sets.push("raid.fail=[\"chip:7@0.034\"]".into());
    let mut reqs = vec![req(0, Op::Write, 12, 6), req(200_000, Op::Write, 365, 1)];
    for i in 2..60u64 {
        reqs.push(req(
            i * 200_000,
            if i == 9 { Op::Read } else { Op::Write },
            0,
            1,
        ));
    }
    reqs.push(req(12_000_000, Op::Read, 365, 1));
    reqs.push(req(12_200_000, Op::Read, 12, 6));
    let r = checked(sim_of(&sets, reqs)).unwrap();
    assert_counter(&r, Counter::VerifiedReads, 8);
    assert_counter(&r, Counter::UnrecoverableReads, 0);
    assert!(
        r.counter(Counter::MirrorWriteStripes) > 0,
        "{:?}",
        r.counters
    );
    assert!(r.counter(Counter::ParkedWrites) > 0, "{:?}", r.counters);
    assert!(r.counter(Counter::DegradedWrites) > 0, "{:?}", r.counters);
}

/// With the ideal map, preconditioned and short of space (over-provisioning 0.2): a
/// mirror write of LPN 88 moves its old version to the EPPN, its new data page waits
/// for space on chip 5, and chip 5 dies first, so LPN 88 is known only through
/// redundancy — its mirror copy, which holds the newest content. The next parity update
/// of its stripe (row 29) must read the copy for LPN 88; taking the page for lost left
/// neither RMW nor RCW possible, and the stripe's losses were recorded as if two members
/// had died (one unrecoverable page after a single chip failure).
/// (Found by the property test above with less spare space, shrunk.)
#[test]
fn a_mirrored_page_whose_new_data_page_never_reached_flash_is_read_from_its_copy() {
    let mut sets = Knobs {
        scheduler: "async-fifo",
        ..Knobs::SHRUNK
    }
    .sets();
    sets.push("ftl.over_provisioning=0.2".into());
    sets.push("raid.fail=[\"chip:5@0.734\"]".into());
    let ops: [(u64, u64); 60] = [
        (0, 1),
        (1, 1),
        (10, 7),
        (11, 6),
        (0, 5),
        (9, 8),
        (28, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (9, 8),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 5),
        (11, 6),
        (0, 1),
        (11, 6),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (7, 1),
        (84, 5),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 1),
    ];
    let mut reqs: Vec<IoRequest> = ops
        .iter()
        .enumerate()
        .map(|(i, &(lpn, n))| req(i as u64 * 200_000, Op::Write, lpn, n))
        .collect();
    reqs.push(req(12_000_000, Op::Read, 84, 6));
    reqs.push(req(12_200_000, Op::Read, 0, 18));
    let r = checked(sim_of(&sets, reqs)).unwrap();
    // Before the fix: 1 unrecoverable read (LPN 88), 1 unrecoverable page, 23 verified.
    assert_counter(&r, Counter::VerifiedReads, 24);
    assert_counter(&r, Counter::UnrecoverableReads, 0);
    assert_counter(&r, Counter::UnrecoverablePages, 0);
    assert_counter(&r, Counter::Failures, 1);
    assert!(
        r.counter(Counter::MirrorWriteStripes) > 0,
        "{:?}",
        r.counters
    );
    assert!(r.counter(Counter::ParkedWrites) > 0, "{:?}", r.counters);
    assert!(r.erases > 0, "GC ran");
}
