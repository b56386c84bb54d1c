//! Discards from blkparse traces: dropped by default, kept as trims on request, and a
//! bad kept discard refused with its file and line; trims from synthetic workloads.

use ssdlab_trace::{
    analyze, Discards, IoRequest, Op, SyntheticConfig, TraceOptions, TraceReader, TraceSource,
};
use std::path::PathBuf;

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-trace-trim");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A write, an `fstrim` discard of it with its queue and completion events, and a read.
const TRACE: &str = "\
8,0 1 1 0.000100000 697 D WS 2048 + 16 [kworker]
8,0 3 2 0.000200000 900 Q DS 2048 + 16 [fstrim]
8,0 3 3 0.000300000 900 D DS 2048 + 16 [fstrim]
8,0 3 4 0.000400000 0 C DS 2048 + 16 [0]
8,0 1 5 0.000500000 697 D RS 2048 + 8 [java]
";

fn kept() -> TraceOptions {
    TraceOptions {
        discards: Discards::Trim,
        ..TraceOptions::default()
    }
}

#[test]
fn discards_are_dropped_by_default_and_kept_as_trims_when_asked() {
    let path = write_temp("fstrim.blkparse", TRACE);
    let ops = |opts: &TraceOptions| -> Vec<Op> {
        TraceReader::open(&path, opts)
            .unwrap()
            .map(|r| r.unwrap().op)
            .collect()
    };
    assert_eq!(ops(&TraceOptions::default()), [Op::Write, Op::Read]);
    assert_eq!(ops(&kept()), [Op::Write, Op::Trim, Op::Read]);
    let trim = TraceReader::open(&path, &kept())
        .unwrap()
        .nth(1)
        .unwrap()
        .unwrap();
    assert_eq!(
        trim,
        IoRequest {
            arrival_ns: 200_000,
            op: Op::Trim,
            fua: false,
            offset_bytes: 2048 * 512,
            size_bytes: 16 * 512,
            content: None,
            stream: None,
        }
    );
    let src = TraceSource::File {
        path: path.clone(),
        options: kept(),
    };
    assert!(
        src.describe().ends_with(", discards as trims)"),
        "{}",
        src.describe()
    );
    let stats = analyze(&mut *src.open().unwrap()).unwrap();
    assert_eq!(
        (stats.requests, stats.trims, stats.trimmed_bytes),
        (2, 1, 8192)
    );
    assert!(stats.to_string().contains("trims: 1\n"));
    let plain = TraceSource::File {
        path,
        options: TraceOptions::default(),
    };
    let stats = analyze(&mut *plain.open().unwrap()).unwrap();
    assert_eq!(stats.trims, 0);
    let json = serde_json::to_string(&stats).unwrap();
    assert!(!json.contains("trim"), "listed only when present: {json}");
}

#[test]
fn a_zero_length_discard_or_one_past_the_device_is_refused_with_its_line() {
    let zero = write_temp(
        "zero.blkparse",
        "8,0 1 1 0.1 697 D WS 0 + 8 [x]\n8,0 1 2 0.2 697 D DS 64 + 0 [fstrim]\n",
    );
    let err = TraceReader::open(&zero, &kept())
        .unwrap()
        .find_map(Result::err)
        .unwrap();
    assert_eq!((err.line, err.field()), (2, Some("blocks")));
    assert!(err.to_string().contains("zero.blkparse:2"), "{err}");
    // Dropped, the same line is passed over as it always was.
    assert!(TraceReader::open(&zero, &TraceOptions::default())
        .unwrap()
        .all(|r| r.is_ok()));

    let past = write_temp(
        "past.blkparse",
        "8,0 1 1 0.1 697 D WS 0 + 8 [x]\n8,0 1 2 0.2 697 D DS 2040 + 16 [fstrim]\n",
    );
    let small = TraceOptions {
        device_bytes: Some(2048 * 512),
        ..kept()
    };
    let err = TraceReader::open(&past, &small)
        .unwrap()
        .find_map(Result::err)
        .unwrap();
    assert_eq!((err.line, err.field()), (2, Some("sector")));
    let text = err.to_string();
    assert!(
        text.contains("past.blkparse:2") && text.contains("past the end"),
        "{text}"
    );
    // Inside the device, or with no capacity known, it is a trim.
    let big = TraceOptions {
        device_bytes: Some(2056 * 512),
        ..kept()
    };
    assert!(TraceReader::open(&past, &big).unwrap().all(|r| r.is_ok()));
    // Skipped and counted with --skip-bad-lines.
    let skip = TraceOptions {
        skip_bad_lines: true,
        ..small
    };
    let mut r = TraceReader::open(&past, &skip).unwrap();
    assert_eq!(r.by_ref().count(), 1);
    assert_eq!(r.skipped_lines(), 1);
}

#[test]
fn synthetic_trims_are_counted() {
    let cfg = SyntheticConfig {
        requests: 2_000,
        read_ratio: 0.5,
        trim_ratio: 0.2,
        ..SyntheticConfig::default()
    };
    assert!(
        cfg.describe().contains("20% of writes trims"),
        "{}",
        cfg.describe()
    );
    let stats = analyze(&mut *TraceSource::Synthetic(cfg).open().unwrap()).unwrap();
    assert!(stats.trims > 100 && stats.trims < 300, "{}", stats.trims);
    assert_eq!(stats.requests + stats.trims, 2_000);
}
