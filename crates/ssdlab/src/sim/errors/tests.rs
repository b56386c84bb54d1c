//! The error layer's rules one by one, on its own state (no simulation).

use super::state::ErrorsState;
use crate::config::ErrorsConfig;
use crate::config::ErrorsMode;
use ssdlab_engine::SimRng;
use ssdlab_nand::EccConfig;
use ssdlab_nand::{BlockId, Geometry, Ppn, StepTimes};

/// 2 blocks of 4 pages per plane, 2 planes: 4 blocks, 16 pages of 4 KiB.
fn geom() -> Geometry {
    Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 2,
        pages_per_block: 4,
        page_size_bytes: 4096,
    }
}

fn cfg() -> ErrorsConfig {
    ErrorsConfig {
        mode: ErrorsMode::On,
        ..ErrorsConfig::default()
    }
}

const TIMES: StepTimes = StepTimes {
    sense_ns: 50_000,
    xfer_ns: 10_000,
};

#[test]
fn wear_is_the_initial_cycles_plus_the_runs_erases() {
    let mut c = cfg();
    c.initial_pe = 3000;
    let s = ErrorsState::new(&c, &geom(), &SimRng::new(1));
    assert_eq!(s.pe(BlockId(0), 0), 3000);
    assert_eq!(s.pe(BlockId(3), 7), 3007);
}

#[test]
fn the_wear_spread_has_its_mean_and_follows_the_seed() {
    let mut c = cfg();
    c.initial_pe = 3000;
    c.pe_spread = 0.2;
    let g = Geometry {
        blocks_per_plane: 2000,
        ..geom()
    };
    let a = ErrorsState::new(&c, &g, &SimRng::new(1));
    let mean = a.base_pe.iter().map(|&p| f64::from(p)).sum::<f64>() / a.base_pe.len() as f64;
    assert!((mean - 3000.0).abs() < 60.0, "mean {mean}");
    let var = a
        .base_pe
        .iter()
        .map(|&p| (f64::from(p) - mean).powi(2))
        .sum::<f64>()
        / a.base_pe.len() as f64;
    let cv = var.sqrt() / mean;
    assert!((cv - 0.2).abs() < 0.02, "cv {cv}");
    assert_eq!(a.base_pe, ErrorsState::new(&c, &g, &SimRng::new(1)).base_pe);
    assert_ne!(a.base_pe, ErrorsState::new(&c, &g, &SimRng::new(2)).base_pe);
    // Without a spread every block is alike.
    c.pe_spread = 0.0;
    let flat = ErrorsState::new(&c, &g, &SimRng::new(1));
    assert!(flat.base_pe.iter().all(|&p| p == 3000));
}

#[test]
fn age_counts_from_the_program_or_from_the_initial_age() {
    let mut c = cfg();
    c.initial_age_s = 1000.0;
    let mut s = ErrorsState::new(&c, &geom(), &SimRng::new(1));
    // Data on the device at the start: its initial age plus the run's time.
    assert_eq!(s.age_s(Ppn(5), 2_000_000_000), 1002.0);
    // Programmed at 1.5 s, read at 4 s: 2.5 s old (ms resolution).
    s.programmed(Ppn(5), 1_500_000_000);
    assert!((s.age_s(Ppn(5), 4_000_000_000) - 2.5).abs() < 1e-9);
    // Another page keeps the initial age.
    assert_eq!(s.age_s(Ppn(6), 0), 1000.0);
}

#[test]
fn reads_count_against_their_block_until_it_is_erased() {
    let mut s = ErrorsState::new(&cfg(), &geom(), &SimRng::new(1));
    for t in 0..3 {
        s.read(t, Ppn(4), 0, 0, 0, TIMES);
    }
    s.read(3, Ppn(0), 0, 0, 0, TIMES);
    assert_eq!(s.reads[1], 3, "pages 4..8 are block 1");
    assert_eq!(s.reads[0], 1);
    s.erased(BlockId(1));
    assert_eq!(s.reads[1], 0);
    assert_eq!(s.c.reads, 4);
}

#[test]
fn a_clean_read_has_no_charge() {
    // A fresh device: RBER 1e-5 over 9216-bit codewords, far within t = 72.
    let mut s = ErrorsState::new(&cfg(), &geom(), &SimRng::new(1));
    for t in 0..100 {
        assert_eq!(s.read(t, Ppn(t % 16), 0, 0, 0, TIMES), None);
    }
    assert!(s.charged.is_empty());
    assert_eq!(s.histogram[0], 100);
}

#[test]
fn a_retried_read_is_charged_its_senses_transfers_and_decodes() {
    let mut c = cfg();
    // RBER 0.012: about 111 raw errors per codeword, beyond t = 72, corrected after
    // one or two ladder steps (×0.7 → 78, ×0.5 → 55).
    c.rber.base = 0.012;
    c.rber.ret_coeff = 0.0;
    let mut s = ErrorsState::new(&c, &geom(), &SimRng::new(1));
    let ch = s.read(9, Ppn(1), 0, 1, 0, TIMES).expect("retried");
    let ecc = EccConfig::default();
    assert!(!ch.uncorrectable);
    assert!((1..=3).contains(&ch.senses), "{ch:?}");
    // Each retry: a sense and a hard decode on the die, a transfer on the bus.
    assert_eq!(ch.array_ns, u64::from(ch.senses) * (50_000 + ecc.decode_ns));
    assert_eq!(
        ch.retry_ns,
        u64::from(ch.senses) * (50_000 + 10_000 + ecc.decode_ns)
    );
    assert_eq!(s.take(9), Some(ch));
    assert_eq!(s.take(9), None, "taken once");
    assert_eq!(s.c.retried, 1);
    assert_eq!(s.histogram[ch.senses as usize], 1);
}

#[test]
fn an_unreadable_page_is_uncorrectable_after_the_whole_ladder() {
    let mut c = cfg();
    c.rber.base = 0.2;
    c.rber.ret_coeff = 0.0;
    let mut s = ErrorsState::new(&c, &geom(), &SimRng::new(1));
    let ch = s.read(0, Ppn(2), 0, 1, 0, TIMES).expect("charged");
    assert!(ch.uncorrectable);
    let ecc = EccConfig::default();
    let ladder = ecc.retry_factors.len() as u32;
    let soft: u32 = ecc.soft_tiers.iter().map(|t| t.senses).sum();
    assert_eq!(ch.senses, ladder + soft);
    assert_eq!(s.c.uncorrectable, 1);
    assert_eq!(*s.histogram.last().unwrap(), 1);
    let r = s.report(|_| 0, false);
    assert_eq!(r.uncorrectable_reads, 1);
    assert_eq!(r.steps_histogram.iter().sum::<u64>(), 1);
}

#[test]
fn same_seed_same_outcomes() {
    let mut c = cfg();
    c.rber = ssdlab_nand::RberModel::stress();
    c.initial_pe = 6000;
    c.pe_spread = 0.3;
    let run = |seed| {
        let mut s = ErrorsState::new(&c, &geom(), &SimRng::new(seed));
        (0..400u32)
            .map(|t| {
                s.read(
                    t,
                    Ppn(t % 16),
                    t / 16,
                    t % 3,
                    u64::from(t) * 1_000_000,
                    TIMES,
                )
            })
            .collect::<Vec<_>>()
    };
    let a = run(5);
    assert_eq!(a, run(5));
    assert_ne!(a, run(6));
    assert!(a.iter().any(Option::is_some) && a.iter().any(Option::is_none));
}

#[test]
fn the_report_spreads_wear_over_blocks() {
    let mut c = cfg();
    c.initial_pe = 100;
    let s = ErrorsState::new(&c, &geom(), &SimRng::new(1));
    let r = s.report(|b| b.0 * 10, false);
    assert_eq!(r.initial_pe, 100);
    assert_eq!((r.pe_cycles.min, r.pe_cycles.max), (100, 130));
    assert_eq!(r.pe_cycles.mean, 115.0);
    assert!(r.all_finite());
}

mod house {
    use super::super::house::{Cause, Housekeeping};
    use super::cfg;
    use crate::config::ErrorsConfig;
    use ssdlab_engine::SimRng;
    use ssdlab_nand::{BlockId, Ppn};

    fn failing(erase: f64, program: f64) -> ErrorsConfig {
        ErrorsConfig {
            erase_fail_prob: erase,
            program_fail_prob: program,
            ..cfg()
        }
    }

    #[test]
    fn none_without_failures_or_refresh() {
        assert!(Housekeeping::new(&cfg(), 8, &SimRng::new(1)).is_none());
        assert!(Housekeeping::new(&failing(0.0, 1e-3), 8, &SimRng::new(1)).is_some());
        let refresh = ErrorsConfig {
            refresh_age_s: 10.0,
            ..cfg()
        };
        assert!(Housekeeping::new(&refresh, 8, &SimRng::new(1)).is_some());
    }

    #[test]
    fn the_failure_probability_is_the_written_power_law() {
        // rated 3000, exponent 2: p(PE) = p_rated × (PE / 3000)^2, at most 1.
        let h = Housekeeping::new(&failing(0.01, 0.0), 8, &SimRng::new(1)).unwrap();
        assert_eq!(h.fail_prob(0.01, 3000), 0.01);
        assert!((h.fail_prob(0.01, 1500) - 0.0025).abs() < 1e-15);
        assert_eq!(h.fail_prob(0.01, 0), 0.0);
        assert_eq!(h.fail_prob(0.01, 300_000), 1.0, "clamped");
        assert_eq!(h.fail_prob(0.0, 9000), 0.0);
    }

    #[test]
    fn failures_follow_the_seed_the_block_and_its_erase_count_only() {
        let c = failing(0.05, 0.05);
        let a = Housekeeping::new(&c, 8, &SimRng::new(1)).unwrap();
        let b = Housekeeping::new(&c, 8, &SimRng::new(1)).unwrap();
        let other = Housekeeping::new(&c, 8, &SimRng::new(2)).unwrap();
        let draws = |h: &Housekeeping| -> Vec<bool> {
            (0..4000u32)
                .flat_map(|i| {
                    [
                        h.erase_fails(BlockId(i % 400), i / 400, 3000),
                        h.program_fails(Ppn(i), i % 7, 3000),
                    ]
                })
                .collect()
        };
        let (da, db, dother) = (draws(&a), draws(&b), draws(&other));
        assert_eq!(da, db, "same seed, same failures");
        assert_ne!(da, dother, "another seed, other failures");
        // Asked in another order, the same key gives the same answer.
        let rev: Vec<bool> = (0..4000u32)
            .rev()
            .map(|i| a.erase_fails(BlockId(i % 400), i / 400, 3000))
            .collect();
        let fwd: Vec<bool> = da.iter().step_by(2).copied().collect();
        assert!(rev.iter().rev().eq(fwd.iter()));
        // At the rated wear about 5 % fail; a fresh block never does.
        let n = da.iter().filter(|&&f| f).count();
        assert!((300..500).contains(&n), "{n} of 8000");
        assert!((0..1000).all(|i| !a.erase_fails(BlockId(i), 0, 0)));
    }

    #[test]
    fn retirements_are_counted_by_cause_and_a_failed_program_queues_one_move() {
        let mut h = Housekeeping::new(&failing(0.1, 0.1), 8, &SimRng::new(1)).unwrap();
        h.doomed(BlockId(3), Cause::Program);
        h.doomed(BlockId(5), Cause::Erase);
        assert_eq!(h.retire, [BlockId(3)], "only a failed program moves data");
        h.retired(BlockId(3));
        h.retired(BlockId(5));
        assert_eq!(h.r.program_failures, 1);
        assert_eq!(h.r.erase_failures, 1);
        assert_eq!(
            (
                h.r.retired_blocks,
                h.r.retired_by_program,
                h.r.retired_by_erase
            ),
            (2, 1, 1)
        );
        assert!(!h.read_only());
        h.turn_read_only(7_000);
        h.retired(BlockId(6));
        h.turn_read_only(9_000);
        assert_eq!(h.r.read_only_at_ns, Some(7_000), "the first moment");
        assert_eq!(h.r.retired_at_read_only, 2);
    }

    #[test]
    fn the_retention_scan_queues_the_oldest_blocks_first() {
        let c = ErrorsConfig {
            refresh_age_s: 100.0,
            refresh_scan_s: 10.0,
            ..cfg()
        };
        // 4 blocks of 4 pages. Block 0 holds data from before the run (50 s old at the
        // start); block 1 was programmed at 1 s, block 2 at 30 s; block 3 is not full.
        let mut h = Housekeeping::new(&c, 4, &SimRng::new(1)).unwrap();
        h.programmed(Ppn(4), 4, 1_000_000_000);
        h.programmed(Ppn(5), 4, 20_000_000_000); // not the block's first: no change
        h.programmed(Ppn(8), 4, 30_000_000_000);
        let full = |b: BlockId| b.0 < 3;
        assert!(h.scan_due(0));
        h.scan(0, 50.0, full);
        assert!(h.refresh.is_empty(), "nothing 100 s old yet");
        assert!(!h.scan_due(9_999_999_999) && h.scan_due(10_000_000_000));
        // At 120 s: block 0 is 170 s old, block 1 119 s, block 2 90 s.
        h.scan(120_000_000_000, 50.0, full);
        assert_eq!(h.refresh, [BlockId(0), BlockId(1)], "oldest first");
        // Queued blocks are not queued twice; erased ones leave the queue.
        h.scan(200_000_000_000, 50.0, full);
        assert_eq!(h.refresh, [BlockId(0), BlockId(1), BlockId(2)]);
        h.erased(BlockId(1));
        assert_eq!(h.refresh, [BlockId(0), BlockId(2)]);
        assert_eq!(h.r.refresh_scans, 3);
        // Erased, the block's data is new when next programmed.
        h.programmed(Ppn(4), 4, 150_000_000_000);
        assert_eq!(h.oldest_age_s(BlockId(1), 200_000_000_000, 50.0), 50.0);
    }
}
