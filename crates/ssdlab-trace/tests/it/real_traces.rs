//! Every sample trace parses to completion, with its count, format and read ratio.

use crate::trace;
use ssdlab_trace::{
    analyze, detect_format, Content, IoRequest, Op, SizeUnit, TraceFormat, TraceOptions,
    TraceReader,
};
use std::collections::HashMap;

struct Case {
    file: &'static str,
    format: TraceFormat,
    /// Requests delivered. For MSR files whose last line has no newline this is one
    /// more than MANIFEST.md's count (which counts newlines); for blkparse it is the
    /// number of `D` events.
    requests: u64,
    read_ratio: f64,
}

const CASES: [Case; 16] = [
    Case {
        file: "msr/hm_0-head200.csv.gz",
        format: TraceFormat::Msr,
        requests: 200,
        read_ratio: 0.005,
    },
    Case {
        file: "msr/hm_0-slice7016.csv.gz",
        format: TraceFormat::Msr,
        requests: 7016,
        read_ratio: 0.83,
    },
    Case {
        file: "msr/hm_1-writes13069.csv.gz",
        format: TraceFormat::Msr,
        requests: 13069,
        read_ratio: 0.0,
    },
    Case {
        file: "msr/wdev_1.csv.gz",
        format: TraceFormat::Msr,
        requests: 1055,
        read_ratio: 0.0,
    },
    Case {
        file: "msr/wdev_3.csv.gz",
        format: TraceFormat::Msr,
        requests: 682,
        read_ratio: 0.016,
    },
    Case {
        file: "spc-derived/financial1-50k.disksim.gz",
        format: TraceFormat::Disksim,
        requests: 50_000,
        read_ratio: 0.58,
    },
    Case {
        file: "spc-derived/websearch1-50k.disksim.gz",
        format: TraceFormat::Disksim,
        requests: 50_000,
        read_ratio: 1.0,
    },
    Case {
        file: "ssdsim/example-financial1.ssdsim.gz",
        format: TraceFormat::Ssdsim,
        requests: 10_000,
        read_ratio: 0.41,
    },
    Case {
        file: "mqsim/tpcc-small.mqsim.gz",
        format: TraceFormat::Mqsim,
        requests: 6999,
        read_ratio: 0.63,
    },
    Case {
        file: "mqsim/wsrch-small.mqsim.gz",
        format: TraceFormat::Mqsim,
        requests: 24_783,
        read_ratio: 1.0,
    },
    Case {
        file: "mqsim/msr-writes-only.mqsim.gz",
        format: TraceFormat::Mqsim,
        requests: 33_304,
        read_ratio: 0.0,
    },
    Case {
        file: "fiu/mail-cheetah-10k.fiu.gz",
        format: TraceFormat::Fiu,
        requests: 9998,
        read_ratio: 0.89,
    },
    Case {
        file: "disksim/desktop.disksim.gz",
        format: TraceFormat::Disksim,
        requests: 32_527,
        read_ratio: 0.38,
    },
    Case {
        file: "disksim/jpeg_copy.disksim.gz",
        format: TraceFormat::Disksim,
        requests: 47_120,
        read_ratio: 0.75,
    },
    Case {
        file: "blkparse/ycsb-ext4.blkparse.gz",
        format: TraceFormat::Blkparse,
        requests: 9887,
        read_ratio: 0.914,
    },
    Case {
        file: "blkparse/nvme-sample.blkparse.gz",
        format: TraceFormat::Blkparse,
        requests: 1694,
        read_ratio: 1.0,
    },
];

fn read_all(rel: &str, opts: &TraceOptions) -> (Vec<IoRequest>, TraceReader) {
    let mut r = TraceReader::open(&trace(rel), opts).unwrap_or_else(|e| panic!("{e}"));
    let reqs: Vec<IoRequest> = r
        .by_ref()
        .map(|x| x.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    (reqs, r)
}

#[test]
fn every_trace_parses_to_completion_with_its_count_and_read_ratio() {
    for c in &CASES {
        let (reqs, r) = read_all(c.file, &TraceOptions::default());
        assert_eq!(r.format(), c.format, "{}", c.file);
        assert_eq!(reqs.len() as u64, c.requests, "{}", c.file);
        assert_eq!(r.skipped_lines(), 0, "{}", c.file);
        let reads = reqs.iter().filter(|q| q.op == Op::Read).count() as f64 / reqs.len() as f64;
        assert!(
            (reads - c.read_ratio).abs() < 0.01,
            "{}: read ratio {reads}",
            c.file
        );
        assert_eq!(reqs[0].arrival_ns, 0, "{}", c.file);
        assert!(
            reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns),
            "{}",
            c.file
        );
        assert!(reqs.iter().all(|q| q.size_bytes > 0), "{}", c.file);
        assert_eq!(
            reqs.iter().any(|q| q.content.is_some()),
            c.format == TraceFormat::Fiu
        );
    }
}

#[test]
fn detection_picks_the_right_format_for_every_file() {
    for c in &CASES {
        assert_eq!(
            detect_format(&trace(c.file)).unwrap(),
            c.format,
            "{}",
            c.file
        );
    }
}

#[test]
fn a_forced_format_overrides_detection() {
    let opts = TraceOptions {
        format: Some(TraceFormat::Mqsim),
        ..TraceOptions::default()
    };
    let (as_mqsim, r) = read_all("ssdsim/example-financial1.ssdsim.gz", &opts);
    assert_eq!(r.format(), TraceFormat::Mqsim);
    let (as_ssdsim, _) = read_all(
        "ssdsim/example-financial1.ssdsim.gz",
        &TraceOptions::default(),
    );
    assert_eq!(as_mqsim, as_ssdsim);
    let wrong = TraceOptions {
        format: Some(TraceFormat::Msr),
        ..TraceOptions::default()
    };
    let err = TraceReader::open(&trace("fiu/mail-cheetah-10k.fiu.gz"), &wrong)
        .unwrap()
        .next()
        .unwrap();
    assert_eq!(err.unwrap_err().line, 1);
}

#[test]
fn msr_times_are_filetime_ticks() {
    let (reqs, _) = read_all("msr/hm_0-head200.csv.gz", &TraceOptions::default());
    // 128166385295514878 - 128166385295514663 ticks of 100 ns.
    assert_eq!(reqs[1].arrival_ns, 215 * 100);
    assert_eq!(reqs[0].offset_bytes, 9_056_014_336);
    assert_eq!(reqs[0].size_bytes, 2048);
    // 148-second slice.
    let (reqs, _) = read_all("msr/hm_0-slice7016.csv.gz", &TraceOptions::default());
    let span_s = reqs.last().unwrap().arrival_ns as f64 / 1e9;
    assert!((span_s - 148.4).abs() < 0.1, "{span_s}");
}

#[test]
fn blkparse_counts_each_request_once_and_ignores_the_rest() {
    let (reqs, r) = read_all("blkparse/ycsb-ext4.blkparse.gz", &TraceOptions::default());
    assert_eq!(reqs.len(), 9887);
    assert_eq!(reqs[0].offset_bytes, 4_938_888 * 512);
    assert_eq!(reqs[0].size_bytes, 256 * 512);
    // Dispatch times (0.000026421 s, then 0.002036907 s), not completion times.
    assert_eq!(reqs[1].arrival_ns, 2_036_907 - 26_421);
    assert_eq!(
        reqs.iter().filter(|q| q.op == Op::Write).count(),
        127 + 50 + 671
    );
    // Every other non-blank line: Q/G/I/C/U events and the closing summary.
    assert!(r.ignored_lines() > 19_000, "{}", r.ignored_lines());
    assert_eq!(r.lines_read(), 29_706);
}

#[test]
fn fiu_content_seeds_are_present_and_duplicates_measurable() {
    let (reqs, _) = read_all("fiu/mail-cheetah-10k.fiu.gz", &TraceOptions::default());
    assert!(reqs
        .iter()
        .all(|q| q.content.as_ref().is_some_and(|c| c.page(0) != 0) && q.size_bytes == 4096));
    assert_eq!(reqs[0].content, Some(Content::Seed(0xd6c7_5ba4_6e82_326f)));
    let mut r = TraceReader::open(
        &trace("fiu/mail-cheetah-10k.fiu.gz"),
        &TraceOptions::default(),
    )
    .unwrap();
    let stats = analyze(&mut r).unwrap();
    assert!(stats.content_known);
    // 304 of the 1,102 written blocks repeat an earlier written digest (counted on
    // the digest strings of the file).
    let dup = stats.duplicate_write_ratio.unwrap();
    assert!((dup - 304.0 / 1102.0).abs() < 1e-12, "{dup}");
    assert_eq!(stats.requests, 9998);
    assert_eq!(stats.format, "fiu");
}

/// The homes excerpt carries one MD5 per 512-byte sector, eight per 4 KiB line.
#[test]
fn fiu_sector_digests_fold_into_one_token_per_page() {
    let (reqs, _) = read_all("fiu/homes-replay-1k.fiu.gz", &TraceOptions::default());
    assert_eq!(reqs.len(), 1000);
    let mut tokens = std::collections::BTreeSet::new();
    for q in &reqs {
        assert_eq!(q.page_count(), 1);
        let Some(Content::Pages(t)) = &q.content else {
            panic!("per-sector digests give listed page tokens: {q:?}");
        };
        assert_eq!(t.len(), 1, "one token per page");
        assert_ne!(t[0], 0);
        tokens.insert(t[0]);
    }
    // 829 distinct eight-digest strings in the file: one token each, none shared.
    assert_eq!(tokens.len(), 829);
    let mut r = TraceReader::open(
        &trace("fiu/homes-replay-1k.fiu.gz"),
        &TraceOptions::default(),
    )
    .unwrap();
    let stats = analyze(&mut r).unwrap();
    assert_eq!((stats.reads, stats.writes), (2, 998));
    // 169 of the 998 written pages repeat an earlier page's eight digests.
    let dup = stats.duplicate_write_ratio.unwrap();
    assert!((dup - 169.0 / 998.0).abs() < 1e-12, "{dup}");
}

#[test]
fn repeat_three_gives_three_passes_with_non_decreasing_arrivals() {
    let rel = "spc-derived/financial1-50k.disksim.gz";
    let (once, _) = read_all(rel, &TraceOptions::default());
    let opts = TraceOptions {
        repeat: 3,
        ..TraceOptions::default()
    };
    let (thrice, r) = read_all(rel, &opts);
    assert_eq!(thrice.len(), 3 * once.len());
    assert!(thrice
        .windows(2)
        .all(|w| w[0].arrival_ns <= w[1].arrival_ns));
    let span = once.last().unwrap().arrival_ns;
    let gap = span / (once.len() as u64 - 1);
    let n = once.len();
    assert_eq!(thrice[n].arrival_ns, span + gap);
    assert_eq!(thrice[2 * n].arrival_ns, 2 * (span + gap));
    for (a, b) in once.iter().zip(&thrice[n..2 * n]) {
        assert_eq!(
            (a.op, a.offset_bytes, a.size_bytes),
            (b.op, b.offset_bytes, b.size_bytes)
        );
        assert_eq!(a.arrival_ns + span + gap, b.arrival_ns);
    }
    assert_eq!(r.lines_read(), 150_000);
}

#[test]
fn disksim_size_unit_is_inferred_per_file_and_can_be_forced() {
    for rel in [
        "spc-derived/financial1-50k.disksim.gz",
        "spc-derived/websearch1-50k.disksim.gz",
        "disksim/desktop.disksim.gz",
        "disksim/jpeg_copy.disksim.gz",
    ] {
        let r = TraceReader::open(&trace(rel), &TraceOptions::default()).unwrap();
        assert_eq!(r.disksim_size_unit(), Some(SizeUnit::Pages4K), "{rel}");
    }
    let rel = "spc-derived/websearch1-50k.disksim.gz";
    let sectors = TraceOptions {
        disksim_size_unit: Some(SizeUnit::Sectors),
        ..TraceOptions::default()
    };
    let (small, r) = read_all(rel, &sectors);
    assert_eq!(r.disksim_size_unit(), Some(SizeUnit::Sectors));
    let (big, _) = read_all(rel, &TraceOptions::default());
    assert_eq!(small[0].size_bytes * 8, big[0].size_bytes);
}

/// Arrival (µs, rebased, shifted) and offset of each request, mapped to its sizes.
fn by_time_and_offset(reqs: &[IoRequest], shift_ns: u64) -> HashMap<(u64, u64), Vec<u64>> {
    let mut m: HashMap<(u64, u64), Vec<u64>> = HashMap::new();
    for q in reqs {
        m.entry(((q.arrival_ns + shift_ns + 500) / 1000, q.offset_bytes))
            .or_default()
            .push(q.size_bytes);
    }
    m
}

/// Pairs of (sector-sized twin, DiskSim size) matched by time and address; asserts that
/// each DiskSim size is the twin's size in whole 4 KiB pages, at least one.
fn joined_pairs(disksim: &[IoRequest], shift_ns: u64, twin: &[IoRequest]) -> (usize, usize) {
    let d = by_time_and_offset(disksim, shift_ns);
    let (mut records, mut pairs) = (0, 0);
    for q in twin {
        if let Some(sizes) = d.get(&((q.arrival_ns + 500) / 1000, q.offset_bytes)) {
            records += 1;
            for &size in sizes {
                pairs += 1;
                assert_eq!(size, (q.size_bytes / 4096).max(1) * 4096, "{q:?}");
            }
        }
    }
    (records, pairs)
}

#[test]
fn websearch1_disksim_sizes_are_4k_pages_of_the_mqsim_copy() {
    let (disksim, _) = read_all(
        "spc-derived/websearch1-50k.disksim.gz",
        &TraceOptions::default(),
    );
    let (mqsim, _) = read_all("mqsim/wsrch-small.mqsim.gz", &TraceOptions::default());
    let (records, pairs) = joined_pairs(&disksim, 0, &mqsim);
    assert_eq!((records, pairs), (mqsim.len(), mqsim.len()));
}

#[test]
fn financial1_disksim_sizes_are_truncated_4k_pages_of_the_ssdsim_copy() {
    let (disksim, _) = read_all(
        "spc-derived/financial1-50k.disksim.gz",
        &TraceOptions::default(),
    );
    let (ssdsim, _) = read_all(
        "ssdsim/example-financial1.ssdsim.gz",
        &TraceOptions::default(),
    );
    // The same excerpt: the SSDsim copy has two more records at time 0, then record i+2
    // of it is record i of the DiskSim copy (which starts at 26.214 ms).
    let shift_ns = 26_214_000;
    for (i, (d, s)) in disksim.iter().zip(&ssdsim[2..]).enumerate() {
        assert_eq!((d.offset_bytes, d.op), (s.offset_bytes, s.op), "record {i}");
        assert!(
            (d.arrival_ns + shift_ns).abs_diff(s.arrival_ns) < 10_000,
            "record {i}"
        );
        assert_eq!(
            d.size_bytes,
            (s.size_bytes / 4096).max(1) * 4096,
            "record {i}: {s:?}"
        );
    }
    assert_eq!(ssdsim.len() - 2, 9998);
}
