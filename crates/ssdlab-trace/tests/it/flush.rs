//! Flush commands and FUA writes from blkparse traces and synthetic workloads: the
//! requests the reader delivers, and what `analyze` (`ssdlab trace info`) counts.

use ssdlab_trace::{
    analyze, IoRequest, Op, SyntheticConfig, TraceErrorKind, TraceFormat, TraceOptions,
    TraceReader, TraceSource,
};
use std::path::PathBuf;

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-trace-flush");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Dispatches of a journalling file system: a plain write, a pure flush, a FUA commit
/// block, a preflush + FUA commit, a preflush write, a read, a discard and a flush as
/// newer kernels log it, among events of other stages.
const JOURNAL: &str = "\
8,0 1 1 0.000100000 697 Q WS 100 + 8 [kworker]
8,0 1 2 0.000200000 697 D WS 100 + 8 [kworker]
8,0 1 3 0.000300000 697 D FWS [jbd2/sda1-8]
8,0 1 4 0.000400000 697 D WFS 200 + 8 [jbd2/sda1-8]
8,0 1 5 0.000500000 697 D FWFS 300 + 16 [jbd2/sda1-8]
8,0 1 6 0.000600000 697 D FWS 400 + 8 [kworker]
8,0 1 7 0.000700000 697 D RS 100 + 8 [java]
8,0 1 8 0.000800000 697 D DS 500 + 8 [fstrim]
8,0 1 9 0.000900000 697 D FN [kworker]
8,0 1 10 0.001000000 697 C WS 100 + 8 [0]
";

fn req(t_us: u64, op: Op, fua: bool, sector: u64, sectors: u64) -> IoRequest {
    IoRequest {
        arrival_ns: t_us * 1_000,
        op,
        fua,
        offset_bytes: sector * 512,
        size_bytes: sectors * 512,
        content: None,
        stream: None,
    }
}

fn flush(t_us: u64) -> IoRequest {
    IoRequest::flush(t_us * 1_000)
}

#[test]
fn blkparse_flushes_come_before_their_request_at_its_time() {
    let path = write_temp("journal.blkparse", JOURNAL);
    let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    assert_eq!(r.format(), TraceFormat::Blkparse);
    let got: Vec<IoRequest> = r.by_ref().map(Result::unwrap).collect();
    let want = [
        req(0, Op::Write, false, 100, 8),
        flush(100),
        req(200, Op::Write, true, 200, 8),
        flush(300),
        req(300, Op::Write, true, 300, 16),
        flush(400),
        req(400, Op::Write, false, 400, 8),
        req(500, Op::Read, false, 100, 8),
        flush(700),
    ];
    assert_eq!(got, want);
    assert_eq!(r.requests(), 9, "each flush is a request delivered");
    assert_eq!(r.ignored_lines(), 3, "the Q, the discard and the C");
}

#[test]
fn a_held_request_comes_before_the_end_and_before_an_error() {
    let last = "8,0 1 1 0.5 697 D FWS 400 + 8 [kworker]\n";
    let path = write_temp("preflush-last.blkparse", last);
    let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    assert_eq!(r.next().unwrap().unwrap(), flush(0));
    assert_eq!(r.next().unwrap().unwrap(), req(0, Op::Write, false, 400, 8));
    assert!(r.next().is_none());
    assert!(r.next().is_none(), "the end stays the end");

    let bad = format!("{last}8,0 1 2 0.6 697 D XS 400 + 8 [kworker]\n");
    let path = write_temp("preflush-then-bad.blkparse", &bad);
    let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    assert_eq!(r.next().unwrap().unwrap().op, Op::Flush);
    assert_eq!(r.next().unwrap().unwrap().op, Op::Write);
    let err = r.next().unwrap().unwrap_err();
    assert_eq!((err.line, err.field()), (2, Some("rwbs")));
    assert!(matches!(err.kind, TraceErrorKind::UnknownOp { .. }));
    assert!(r.next().is_none());
}

#[test]
fn a_skipped_preflush_line_drops_its_flush_too() {
    // The second write is larger than the limit: its line, flush included, is skipped.
    let text = "8,0 1 1 0.1 697 D FWS 0 + 8 [a]\n8,0 1 2 0.2 697 D FWS 8 + 64 [a]\n";
    let path = write_temp("preflush-skip.blkparse", text);
    let opts = TraceOptions {
        skip_bad_lines: true,
        max_request_bytes: 4096,
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    let ops: Vec<Op> = r.by_ref().map(|x| x.unwrap().op).collect();
    assert_eq!(ops, [Op::Flush, Op::Write]);
    assert_eq!((r.skipped_lines(), r.requests()), (1, 2));
}

#[test]
fn trace_info_counts_blkparse_flushes_and_fua_writes() {
    let path = write_temp("journal-info.blkparse", JOURNAL);
    let src = TraceSource::File {
        path,
        options: TraceOptions::default(),
    };
    let s = analyze(src.open().unwrap().as_mut()).unwrap();
    assert_eq!((s.requests, s.reads, s.writes), (5, 1, 4));
    assert_eq!((s.flushes, s.fua_writes), (4, 2));
    assert_eq!(
        s.duration_ns, 700_000,
        "the last flush counts in the duration"
    );
    let text = s.to_string();
    assert!(text.contains("\nflushes: 4\nfua_writes: 2\n"), "{text}");
}

#[test]
fn trace_info_counts_synthetic_flushes_and_fua_writes() {
    let cfg = SyntheticConfig {
        requests: 10_000,
        read_ratio: 0.5,
        flush_every: 50,
        fua_ratio: 0.2,
        ..SyntheticConfig::default()
    };
    let s = analyze(TraceSource::Synthetic(cfg).open().unwrap().as_mut()).unwrap();
    assert_eq!((s.requests, s.flushes), (10_000, 200));
    let share = s.fua_writes as f64 / s.writes as f64;
    assert!((share - 0.2).abs() < 0.02, "{share}");
    let plain = analyze(
        TraceSource::Synthetic(SyntheticConfig::default())
            .open()
            .unwrap()
            .as_mut(),
    )
    .unwrap();
    assert_eq!((plain.flushes, plain.fua_writes), (0, 0));
}
