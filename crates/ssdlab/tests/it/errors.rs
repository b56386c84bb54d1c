//! Bit errors, ECC and read retry (docs/ERRORS.md) on a real trace: off changes nothing;
//! on a fresh device the model charges nothing; on an aged one reads retry, and an
//! uncorrectable read is rebuilt from chip RAID-5 (verified) or answered with a media
//! error, in the report and in the per-request CSV; the same seed gives the same errors.

use crate::util::{io, small_config, trace_sim, vec_sim, Shared};
use ssdlab::{ConfigBuilder, Report};
use ssdlab_trace::Op;

const TRACE: &str = "msr/hm_0-slice7016.csv.gz";

fn run(sets: &[&str]) -> Report {
    let mut sim = trace_sim(small_config(sets), TRACE);
    sim.run_to_end().unwrap();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

/// The stress RBER set (`RberModel::stress`, docs/ERRORS.md §1.3): wear grows with the
/// square of the P/E count, so a worn drive loses data. The fitted default does not at
/// these wear levels.
pub(crate) const STRESS: [&str; 7] = [
    "errors.rber.base=1.0e-5",
    "errors.rber.pe_coeff=2.0e-10",
    "errors.rber.pe_exp=2.0",
    "errors.rber.ret_coeff=0.02",
    "errors.rber.ret_exp=0.25",
    "errors.rber.rd_coeff=1.0e-6",
    "errors.rber.page_type_scale=[0.6, 1.0, 1.4]",
];

/// An aged device: 8000 P/E cycles spread 20 % over the blocks, a year of retention,
/// the stress RBER set.
fn aged() -> Vec<&'static str> {
    let mut v = vec![
        "errors.mode=\"on\"",
        "errors.initial_pe=8000",
        "errors.pe_spread=0.2",
        "errors.initial_age_s=3.15e7",
        "verify=true",
    ];
    v.extend(STRESS);
    v
}

#[test]
fn the_stress_sets_are_the_stress_model_and_the_default_is_the_fit() {
    let mut sets = vec!["errors.mode=\"on\""];
    assert_eq!(
        small_config(&sets).errors.rber,
        ssdlab_nand::RberModel::default()
    );
    sets.extend(STRESS);
    assert_eq!(
        small_config(&sets).errors.rber,
        ssdlab_nand::RberModel::stress()
    );
}

/// The fitted default on the same aged device: reads need retries at most, and none is
/// lost (docs/ERRORS.md §1.1: a year-old page at 8000 P/E reads at about 6e-3, within
/// the ladder's reach).
#[test]
fn with_the_fitted_default_an_aged_device_retries_but_loses_nothing() {
    let r = run(&aged()[..5]);
    let e = r.errors.as_ref().unwrap();
    assert!(e.reads_decoded > 10_000, "{e:?}");
    assert!(e.reads_retried > 0, "{e:?}");
    assert_eq!((e.uncorrectable_reads, e.lost_reads), (0, 0), "{e:?}");
}

#[test]
fn off_by_default_the_report_has_no_errors_section() {
    let r = run(&[]);
    assert!(r.errors.is_none());
    assert!(r.breakdown.all.retry_ns_mean.is_none());
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("retry_ns_mean") && !json.contains("\"errors\""));
}

#[test]
fn on_a_fresh_device_the_model_charges_nothing() {
    let off = run(&["verify=true"]);
    let on = run(&["verify=true", "errors.mode=\"on\""]);
    let e = on.errors.as_ref().unwrap();
    assert!(e.reads_decoded > 10_000, "{e:?}");
    assert_eq!(
        (e.retry_steps, e.soft_decodes, e.uncorrectable_reads),
        (0, 0, 0)
    );
    assert_eq!(on.breakdown.all.retry_ns_mean, Some(0.0));
    assert_eq!(on.response, off.response);
    assert_eq!(on.sim_time_ns, off.sim_time_ns);
}

#[test]
fn an_aged_device_retries_reads_and_pays_for_them() {
    let fresh = run(&["verify=true"]);
    let aged = run(&aged());
    let e = aged.errors.as_ref().unwrap();
    assert!(e.reads_retried > e.reads_decoded / 2, "{e:?}");
    assert!(e.retry_steps >= e.reads_retried);
    assert!(
        e.pe_cycles.min < 8000 && e.pe_cycles.max > 8000,
        "{:?}",
        e.pe_cycles
    );
    let retry = aged.breakdown.read.retry_ns_mean.unwrap();
    assert!(retry > 50_000.0, "T_retry {retry}");
    assert!(aged.breakdown.read.service_ns_mean >= retry);
    assert!(aged.response.read.mean_ns > fresh.response.read.mean_ns + retry / 2.0);
    // Writes never retry.
    assert_eq!(aged.breakdown.write.retry_ns_mean, Some(0.0));
    // The histogram covers every decoded read.
    assert_eq!(e.steps_histogram.iter().sum::<u64>(), e.reads_decoded);
}

/// What the issue asks to show, on the small device: without redundancy the aged
/// device's uncorrectable reads reach the host as media errors; with chip RAID-5 on
/// the same seed every one that was rebuilt returned the right content (verify), and
/// only reads whose stripe held a second unreadable page are lost.
#[test]
fn uncorrectable_reads_are_media_errors_without_raid_and_rebuilt_with_it() {
    let plain = run(&aged());
    let e = plain.errors.as_ref().unwrap();
    assert!(e.host_uncorrectable > 0, "{e:?}");
    assert_eq!(e.lost_reads, e.host_uncorrectable);
    assert_eq!(e.rebuilt_reads, 0);
    assert!(e.media_error_requests > 0 && e.media_error_requests <= e.lost_reads);

    let mut sets = aged();
    sets.push("raid.level=5");
    let raid = run(&sets);
    let r = raid.errors.as_ref().unwrap();
    assert!(r.rebuilt_reads > 0, "{r:?}");
    assert_eq!(
        r.rebuilt_reads, r.host_uncorrectable,
        "every one rebuilt or tried"
    );
    assert_eq!(r.lost_reads, r.failed_rebuilds);
    assert_eq!(r.rebuilt_verified, r.rebuilt_reads - r.failed_rebuilds);
    assert!(r.lost_reads < e.lost_reads, "RAID-5 {r:?} vs none {e:?}");
}

#[test]
fn with_few_weak_blocks_chip_raid5_loses_nothing() {
    // 7600 P/E cycles spread 20 %: a few of the most worn blocks' pages fail, too few
    // for two in one stripe (measured: 10 lost without RAID, 35 rebuilt with it).
    let base = [
        "errors.mode=\"on\"",
        "errors.initial_pe=7600",
        "errors.pe_spread=0.2",
        "errors.initial_age_s=3.15e7",
        "verify=true",
    ];
    let base = [&base[..], &STRESS[..]].concat();
    let plain = run(&base);
    let e = plain.errors.as_ref().unwrap();
    assert!(e.lost_reads > 0, "{e:?}");
    let mut sets = base.to_vec();
    sets.push("raid.level=5");
    let raid = run(&sets);
    let r = raid.errors.as_ref().unwrap();
    assert!(r.rebuilt_reads > 0, "{r:?}");
    assert_eq!((r.lost_reads, r.media_error_requests), (0, 0), "{r:?}");
    assert_eq!(r.rebuilt_verified, r.rebuilt_reads);
}

#[test]
fn each_media_error_is_a_status_in_the_per_request_csv() {
    let out = Shared::default();
    let mut sim = trace_sim(small_config(&aged()), TRACE);
    sim.set_per_request_csv(Box::new(out.clone()));
    sim.run_to_end().unwrap();
    let r = sim.into_report().unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().ends_with(",status"));
    let (mut ok, mut failed) = (0, 0);
    for l in lines {
        match l.rsplit(',').next().unwrap() {
            "ok" => ok += 1,
            "media-error" => {
                assert!(l.contains(",read,"), "{l}");
                failed += 1
            }
            s => panic!("status {s}"),
        }
    }
    let e = r.errors.unwrap();
    assert_eq!(failed, e.media_error_requests);
    assert_eq!(ok + failed, r.response.all.count);
    // Without the model the CSV keeps its columns.
    let plain = Shared::default();
    let mut sim = vec_sim(small_config(&[]), vec![io(0, Op::Read, 0, 1)]);
    sim.set_per_request_csv(Box::new(plain.clone()));
    sim.run_to_end().unwrap();
    drop(sim.into_report().unwrap());
    let text = String::from_utf8(plain.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text.lines().next().unwrap(), ssdlab_stats::CSV_HEADER);
}

#[test]
fn the_same_seed_gives_the_same_errors() {
    let a = run(&aged());
    let b = run(&aged());
    assert_eq!(a.errors, b.errors);
    assert_eq!(a.response, b.response);
    let mut other = aged();
    other.push("seed=2");
    let c = run(&other);
    assert_ne!(a.errors, c.errors);
}

#[test]
fn one_retried_read_costs_what_its_steps_say() {
    // An idle device, one page written then read: response = the clean read (sense +
    // transfer) plus per extra sense a sense, a transfer and its decode.
    let sets = [
        "errors.mode=\"on\"",
        "errors.rber.base=0.012",
        "errors.rber.ret_coeff=0",
    ];
    let cfg = small_config(&sets);
    let (t_read, xfer) = (cfg.timing.t_read_ns, cfg.timing.page_transfer_ns(4096));
    let mut sim = vec_sim(
        cfg,
        vec![io(0, Op::Write, 3, 1), io(10_000, Op::Read, 3, 1)],
    );
    sim.run_to_end().unwrap();
    let r = sim.into_report().unwrap();
    let e = r.errors.unwrap();
    assert_eq!(e.reads_decoded, 1);
    assert!(e.retry_steps >= 1 && e.soft_decodes == 0, "{e:?}");
    let steps = e.retry_steps;
    let decode = ssdlab_nand::EccConfig::default().decode_ns;
    let want = t_read + xfer + steps * (t_read + xfer + decode);
    assert_eq!(r.response.read.max_ns, want);
    assert_eq!(
        r.breakdown.read.retry_ns_mean,
        Some((steps * (t_read + xfer + decode)) as f64)
    );
}

#[test]
fn bad_settings_are_refused_by_key() {
    for (set, key) in [
        ("errors.ecc.retry_factors=[]", "errors.ecc.retry_factors"),
        ("errors.rber.base=-1.0", "errors.rber.base"),
        ("errors.ecc.t=100000", "errors.ecc.t"),
        ("errors.pe_spread=-0.5", "errors.pe_spread"),
        ("errors.codeword_data_bytes=0", "errors.codeword_data_bytes"),
        ("errors.erase_fail_prob=2.0", "errors.erase_fail_prob"),
        ("ftl.mapping=\"cached\"", "ftl.mapping"),
        (
            "scheduler.merge.reads=\"same-ppn\"",
            "scheduler.merge.reads",
        ),
    ] {
        let err = ConfigBuilder::new()
            .set("errors.mode=\"on\"")
            .unwrap()
            .set(set)
            .unwrap()
            .build()
            .unwrap_err()
            .to_string();
        assert!(err.contains(key), "{set}: {err}");
    }
    // A key set while the model is off would be ignored: refused.
    let err = ConfigBuilder::new()
        .set("errors.initial_pe=3000")
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("errors.mode"), "{err}");
}

mod random {
    use super::*;
    use proptest::prelude::*;
    use ssdlab::SimConfig;
    use ssdlab_trace::IoRequest;

    /// The small device with fewer blocks (GC runs), preconditioned, verified, worn
    /// enough that some reads fail, with or without redundancy.
    fn device(raid: u8, pe: u32) -> SimConfig {
        let pe = format!("errors.initial_pe={pe}");
        let mut sets = vec![
            "verify=true",
            "geometry.blocks_per_plane=24",
            "ftl.precondition.enabled=true",
            "errors.mode=\"on\"",
            "errors.pe_spread=0.3",
            "errors.initial_age_s=3.15e7",
            pe.as_str(),
        ];
        sets.extend(STRESS);
        match raid {
            0 => {}
            1 => sets.push("raid.level=5"),
            2 => sets.extend([
                "raid.level=5",
                "raid.domain=\"channel\"",
                "raid.group_size=4",
            ]),
            _ => sets.extend(["raid.level=1", "raid.group_size=2"]),
        }
        small_config(&sets)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        /// With or without read reclaim and grown bad blocks: writes, reads and (without
        /// RAID) trims in any order on a worn device: verify finds no read
        /// wrong (a rebuilt read returns the last write; a lost one returns a status,
        /// not data), the audit finds every page right, and the counts add up: every
        /// uncorrectable host read is rebuilt or lost, every failed rebuild is a lost
        /// read, and without redundancy nothing is rebuilt.
        #[test]
        fn uncorrectable_reads_never_return_wrong_data(
            ops in proptest::collection::vec((0u8..10, 0u64..2_000, 1u64..24), 50..300),
            raid in 0u8..4,
            pe in 7500u32..10000,
            reclaim in prop::bool::ANY,
            fail in 0u8..3,
        ) {
            let reqs: Vec<IoRequest> = ops
                .iter()
                .enumerate()
                .map(|(i, &(kind, lpn, pages))| {
                    // RAID devices take no trims.
                    let op = match kind {
                        0..=3 => Op::Write,
                        4 if raid == 0 => Op::Trim,
                        _ => Op::Read,
                    };
                    io(i as u64 * 40, op, lpn, pages)
                })
                .collect();
            let mut cfg = device(raid, pe);
            cfg.errors.reclaim_steps = if reclaim { 3 } else { 0 };
            // Grown bad blocks: none, failed programs, or failed programs and erases
            // (at this wear nearly every operation fails: the drive turns read-only).
            match fail {
                1 => cfg.errors.program_fail_prob = 1e-4,
                2 => {
                    cfg.errors.program_fail_prob = 1e-4;
                    cfg.errors.erase_fail_prob = 0.01;
                }
                _ => {}
            }
            let mut sim = vec_sim(cfg, reqs);
            sim.run_to_end().map_err(|e| TestCaseError::fail(format!("{e}")))?;
            sim.audit().map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let r = sim.into_report().unwrap();
            let e = r.errors.unwrap();
            if let Some(h) = &e.housekeeping {
                prop_assert!(h.retired_by_program <= h.program_failures);
                prop_assert!(h.retired_by_erase <= h.erase_failures);
                prop_assert_eq!(h.retired_blocks, h.retired_by_erase + h.retired_by_program);
            }
            prop_assert_eq!(e.steps_histogram.iter().sum::<u64>(), e.reads_decoded);
            prop_assert_eq!(*e.steps_histogram.last().unwrap(), e.uncorrectable_reads);
            prop_assert!(e.host_uncorrectable <= e.rebuilt_reads + e.lost_reads);
            prop_assert!(e.failed_rebuilds <= e.lost_reads);
            prop_assert!(e.media_error_requests <= e.lost_reads);
            if raid == 0 {
                prop_assert_eq!(e.rebuilt_reads, 0);
                prop_assert_eq!(e.lost_reads, e.host_uncorrectable);
            } else {
                prop_assert_eq!(e.rebuilt_reads + e.lost_reads - e.failed_rebuilds, e.host_uncorrectable);
            }
        }
    }
}

/// Read reclaim: a page read that needed `reclaim_steps` steps has its block relocated
/// (`refresh-*` transactions, not GC's), so that the next read of the page finds a
/// fresh copy (programmed now, not a year ago) and needs fewer steps; without reclaim
/// the second read is as slow as the first. Verify checks both reads.
#[test]
fn read_reclaim_relocates_a_weak_block() {
    let reads = |reclaim: &str| {
        let sets = [
            "verify=true",
            "ftl.precondition.enabled=true",
            "errors.mode=\"on\"",
            "errors.initial_pe=6000",
            "errors.initial_age_s=3.15e7",
            reclaim,
        ];
        let sets = [&sets[..], &STRESS[..]].concat();
        let reqs = vec![io(0, Op::Read, 40, 1), io(100_000, Op::Read, 40, 1)];
        let mut sim = vec_sim(small_config(&sets), reqs);
        sim.keep_request_log();
        sim.run_to_end().unwrap();
        sim.audit().unwrap();
        let log = sim.take_request_log().unwrap();
        let r = sim.into_report().unwrap();
        let lat: Vec<u64> = (0..2).map(|i| log.response_ns(i)).collect();
        (lat, r)
    };
    let (plain, r0) = reads("errors.reclaim_steps=0");
    let (reclaimed, r1) = reads("errors.reclaim_steps=1");
    assert!(plain[0] > 100_000, "the first read retries: {plain:?}");
    assert!(plain[1] >= plain[0], "{plain:?}");
    assert_eq!(reclaimed[0], plain[0], "the first read is the same");
    assert!(reclaimed[1] < plain[1] / 2, "{reclaimed:?} vs {plain:?}");
    let (e0, e1) = (r0.errors.clone().unwrap(), r1.errors.clone().unwrap());
    assert_eq!(e0.reclaimed_blocks, 0);
    assert_eq!(e1.reclaimed_blocks, 1);
    let pages_of = |r: &Report, reason| {
        r.transactions
            .iter()
            .find(|t| t.reason == reason)
            .map_or(0, |t| t.pages)
    };
    use ssdlab_nand::TxnReason::{GcWrite, RefreshErase, RefreshWrite};
    assert_eq!(pages_of(&r1, RefreshWrite), e1.reclaimed_pages);
    assert_eq!(pages_of(&r1, RefreshErase), 1);
    assert_eq!(pages_of(&r1, GcWrite), 0, "not GC");
    assert_eq!(r1.gc_runs, 0);
}
