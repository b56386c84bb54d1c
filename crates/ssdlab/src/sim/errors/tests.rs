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
