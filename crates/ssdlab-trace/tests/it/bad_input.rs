//! Bad input written to a temp dir: each error names the right kind, line and field.

use ssdlab_trace::{TraceError, TraceErrorKind, TraceFormat, TraceOptions, TraceReader};
use std::io::Write;
use std::path::PathBuf;

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-trace-bad-input");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const GOOD: &str = "128166385295514663,hm,0,Write,9056014336,2048,2833\n\
                    128166385295514878,hm,0,Read,11855351808,512,2617\n";

/// The first error of reading `text` (as MSR, after two good lines, a blank line and a
/// comment: the bad line is line 5).
fn first_error(name: &str, bad: &str) -> TraceError {
    let text = format!("{GOOD}\n# a comment\n{bad}\n{GOOD}");
    let path = write_temp(name, &text);
    let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    assert_eq!(r.format(), TraceFormat::Msr);
    for _ in 0..2 {
        r.next().unwrap().unwrap();
    }
    let err = r.next().unwrap().unwrap_err();
    assert!(r.next().is_none(), "the stream ends after an error");
    err
}

#[test]
fn each_bad_line_names_kind_line_and_field() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "truncated.csv",
            "128166385295515175,hm,0,Write,5548077056",
            "Size",
        ),
        (
            "non_numeric.csv",
            "128166385295515175,hm,0,Write,5548077056,12a,2320",
            "Size",
        ),
        (
            "unknown_op.csv",
            "128166385295515175,hm,0,Trim,5548077056,4096,2320",
            "Type",
        ),
        (
            "zero_size.csv",
            "128166385295515175,hm,0,Write,5548077056,0,2320",
            "Size",
        ),
        (
            "negative_size.csv",
            "128166385295515175,hm,0,Write,5548077056,-4096,2320",
            "Size",
        ),
        (
            "bad_time.csv",
            "12816638529551517x,hm,0,Write,5548077056,4096,2320",
            "Timestamp",
        ),
    ];
    for (name, bad, field) in cases {
        let e = first_error(name, bad);
        assert_eq!(e.line, 5, "{name}");
        assert_eq!(e.field(), Some(field), "{name}");
        assert!(e.path.ends_with(name));
        let shown = e.to_string();
        assert!(
            shown.contains(&format!("{name}:5: field `{field}`")),
            "{shown}"
        );
        let kind_ok = match name {
            "truncated.csv" => matches!(e.kind, TraceErrorKind::Truncated { .. }),
            "non_numeric.csv" => {
                e.kind
                    == TraceErrorKind::BadNumber {
                        field: "Size",
                        value: "12a".into(),
                    }
            }
            "unknown_op.csv" => {
                matches!(&e.kind, TraceErrorKind::UnknownOp { value, .. } if value == "Trim")
            }
            "zero_size.csv" => {
                matches!(&e.kind, TraceErrorKind::BadSize { value, .. } if value == "0")
            }
            "negative_size.csv" => {
                matches!(&e.kind, TraceErrorKind::BadSize { value, .. } if value == "-4096")
            }
            _ => matches!(e.kind, TraceErrorKind::BadNumber { .. }),
        };
        assert!(kind_ok, "{name}: {:?}", e.kind);
    }
}

#[test]
fn skip_mode_counts_skipped_lines() {
    let text =
        format!("{GOOD}1,hm,0,Write,1\n1,hm,0,Trim,0,512,1\n\n1,hm,0,Write,0,0,1\n{GOOD}# end\n");
    let path = write_temp("skip.csv", &text);
    let opts = TraceOptions {
        skip_bad_lines: true,
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    let n = r.by_ref().collect::<Result<Vec<_>, _>>().unwrap().len();
    assert_eq!(n, 4);
    assert_eq!(r.skipped_lines(), 3);
    assert_eq!(r.lines_read(), 9);
    let strict = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    let results: Vec<_> = strict.collect();
    assert_eq!(results.len(), 3);
    assert_eq!(results[2].as_ref().unwrap_err().line, 3);
}

#[test]
fn empty_traces_are_errors() {
    for (name, text) in [("empty.csv", ""), ("comments.csv", "# nothing\n\n  \n")] {
        let path = write_temp(name, text);
        let e = TraceReader::open(&path, &TraceOptions::default()).unwrap_err();
        assert_eq!(e.kind, TraceErrorKind::Empty, "{name}");
        let forced = TraceOptions {
            format: Some(TraceFormat::Msr),
            ..TraceOptions::default()
        };
        let mut r = TraceReader::open(&path, &forced).unwrap();
        let e = r.next().unwrap().unwrap_err();
        assert_eq!(e.kind, TraceErrorKind::Empty, "{name}");
        assert!(e.to_string().contains(name), "{e}");
        assert!(r.next().is_none());
    }
    // Every line bad and skipped: still no request.
    let path = write_temp("all_bad.csv", "1,hm,0,Write,0,0,1\n");
    let opts = TraceOptions {
        skip_bad_lines: true,
        format: Some(TraceFormat::Msr),
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    assert_eq!(r.next().unwrap().unwrap_err().kind, TraceErrorKind::Empty);
    assert_eq!(r.skipped_lines(), 1);
}

#[test]
fn unknown_formats_name_the_file_and_the_first_record_line() {
    let path = write_temp(
        "mystery.txt",
        "# notes\n\nhello world\nthis is not a trace\n",
    );
    let e = TraceReader::open(&path, &TraceOptions::default()).unwrap_err();
    assert!(
        matches!(e.kind, TraceErrorKind::UnrecognisedLine { .. }),
        "{e:?}"
    );
    assert_eq!(e.line, 3, "the first line that is not blank or a comment");
    assert!(e.to_string().contains("mystery.txt:3: "), "{e}");
}

#[test]
fn a_malformed_first_line_says_line_1_and_why() {
    // One DiskSim record missing its flags column: no format's shape.
    let path = write_temp("short.disksim", "12.5 0 100 8\n");
    let e = TraceReader::open(&path, &TraceOptions::default()).unwrap_err();
    assert_eq!(e.line, 1);
    let TraceErrorKind::UnrecognisedLine { closest, reason } = &e.kind else {
        panic!("{e:?}");
    };
    assert_eq!(*closest, "disksim");
    assert_eq!(**reason, TraceErrorKind::Truncated { field: "flags" });
    let text = e.to_string();
    assert!(
        text.contains("short.disksim:1: ") && text.contains("`flags`"),
        "{text}"
    );
}

#[test]
fn backwards_timestamps_are_clamped_and_counted() {
    let text = "10.0 0 8 1 1\n20.0 0 16 1 1\n15.0 0 24 1 0\n30.0 0 32 1 0\n";
    let path = write_temp("clamp.disksim", text);
    let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    let times: Vec<u64> = r.by_ref().map(|x| x.unwrap().arrival_ns).collect();
    assert_eq!(times, [0, 10_000_000, 10_000_000, 20_000_000]);
    assert_eq!(r.clamped_timestamps(), 1);
    assert_eq!(r.format(), TraceFormat::Disksim);
}

#[test]
fn gzip_is_recognised_by_content_and_errors_keep_line_numbers() {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(b"0 0 8 8 1\n10 0 16 8 0\n20 0 24 8 2\n")
        .unwrap();
    let path = write_temp("compressed.trace", "");
    std::fs::write(&path, enc.finish().unwrap()).unwrap();
    let results: Vec<_> = TraceReader::open(&path, &TraceOptions::default())
        .unwrap()
        .collect();
    assert_eq!(results.len(), 3);
    let e = results[2].as_ref().unwrap_err();
    assert_eq!((e.line, e.field()), (3, Some("type")));
}

#[test]
fn repeat_zero_is_rejected() {
    let path = write_temp("r0.csv", GOOD);
    let e = TraceReader::open(
        &path,
        &TraceOptions {
            repeat: 0,
            ..TraceOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(
        e.kind,
        TraceErrorKind::BadOption { name: "repeat", .. }
    ));
}

/// The first record or error of `text` read as `format` with `opts`.
fn read_all(
    name: &str,
    text: &[u8],
    opts: &TraceOptions,
) -> (Vec<ssdlab_trace::IoRequest>, Option<TraceError>, u64) {
    let path = write_temp(name, "");
    std::fs::write(&path, text).unwrap();
    let mut r = match TraceReader::open(&path, opts) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e), 0),
    };
    let mut ok = Vec::new();
    let mut err = None;
    for x in r.by_ref() {
        match x {
            Ok(io) => ok.push(io),
            Err(e) => err = Some(e),
        }
    }
    (ok, err, r.skipped_lines())
}

#[test]
fn oversized_requests_are_bad_lines_naming_file_and_line() {
    // MQSim `time dev lba size type`: one 512 TiB write (2^40 sectors) on line 2.
    let text = b"0 0 0 8 0\n10 0 0 1099511627776 0\n20 0 8 8 1\n";
    let (ok, err, _) = read_all("huge.mqsim", text, &TraceOptions::default());
    assert_eq!(ok.len(), 1);
    let e = err.expect("the 512 TiB request is refused");
    assert_eq!(e.line, 2);
    assert!(matches!(
        e.kind,
        TraceErrorKind::RequestTooLarge {
            size_bytes: 562_949_953_421_312,
            limit_bytes: ssdlab_trace::DEFAULT_MAX_REQUEST_BYTES,
        }
    ));
    let msg = e.to_string();
    assert!(msg.contains("huge.mqsim:2"), "{msg}");
    // Skipped and counted in skip mode; the bound is an option.
    let skip = TraceOptions {
        skip_bad_lines: true,
        ..TraceOptions::default()
    };
    let (ok, err, skipped) = read_all("huge.mqsim", text, &skip);
    assert!(err.is_none());
    assert_eq!((ok.len(), skipped), (2, 1));
    let small = TraceOptions {
        max_request_bytes: 2048,
        ..TraceOptions::default()
    };
    let (ok, err, _) = read_all("small-limit.mqsim", b"0 0 0 4 0\n10 0 0 5 0\n", &small);
    assert_eq!(ok.len(), 1);
    assert_eq!(err.unwrap().line, 2);
}

#[test]
fn byte_ranges_past_2_pow_64_are_refused_in_every_format() {
    let cases: [(&str, &[u8]); 3] = [
        (
            "wrap.spc",
            b"0,0,4096,w,0.0\n32767,1099511627775,4608,w,0.01\n",
        ),
        ("wrap.mqsim", b"0 0 0 8 0\n10 0 36028797018963967 16 0\n"),
        ("wrap.ssdsim", b"0 0 0 8 0\n10 0 36028797018963967 16 0\n"),
    ];
    for (name, text) in cases {
        let (ok, err, _) = read_all(name, text, &TraceOptions::default());
        assert_eq!(ok.len(), 1, "{name}");
        let e = err.unwrap_or_else(|| panic!("{name}: accepted"));
        assert_eq!(e.line, 2, "{name}");
        assert!(
            matches!(e.kind, TraceErrorKind::RangeOverflow { .. }),
            "{name}: {e}"
        );
    }
    // The last byte may be the last byte of the address space.
    let (ok, err, _) = read_all(
        "edge.mqsim",
        b"0 0 36028797018963967 1 0\n",
        &TraceOptions::default(),
    );
    assert!(err.is_none(), "{err:?}");
    assert_eq!(ok[0].offset_bytes + (ok[0].size_bytes - 1), u64::MAX);
}

#[test]
fn skip_mode_skips_an_out_of_range_time() {
    let text = b"0 0 0 8 0\n18446744073709551615 0 8 8 0\n20 0 16 8 1\n";
    let (_, err, _) = read_all("far.mqsim", text, &TraceOptions::default());
    assert_eq!(err.unwrap().line, 2);
    let skip = TraceOptions {
        skip_bad_lines: true,
        ..TraceOptions::default()
    };
    let (ok, err, skipped) = read_all("far.mqsim", text, &skip);
    assert!(err.is_none());
    assert_eq!((ok.len(), skipped), (2, 1));
    assert_eq!(
        ok[1].arrival_ns, 20,
        "a skipped time leaves the clock alone"
    );
}

#[test]
fn a_file_of_only_over_long_lines_says_so() {
    let mut text = vec![b'1'; 200 * 1024];
    text.push(b'\n');
    let (_, err, _) = read_all("long.csv", &text, &TraceOptions::default());
    let e = err.expect("refused");
    assert_eq!(e.line, 1);
    assert!(matches!(e.kind, TraceErrorKind::LineTooLong { .. }), "{e}");
}

#[test]
fn a_utf8_byte_order_mark_is_not_part_of_line_1() {
    let mut text = vec![0xef, 0xbb, 0xbf];
    text.extend_from_slice(GOOD.as_bytes());
    let (ok, err, _) = read_all("bom.csv", &text, &TraceOptions::default());
    assert!(err.is_none(), "{err:?}");
    assert_eq!(ok.len(), 2);
}

/// A relative trace with a wall-clock stamp in it: line 3 jumps 40 years ahead.
const JUMPY: &str = "10.0 0 8 1 1\n20.0 0 16 1 1\n1262304000000.0 0 24 1 0\n\
                     1262304000005.0 0 32 1 0\n";

fn arrivals(r: &mut TraceReader) -> Vec<u64> {
    r.by_ref().map(|x| x.unwrap().arrival_ns).collect()
}

#[test]
fn a_clock_jump_of_years_is_counted_at_its_line_and_followed() {
    let path = write_temp("jumpy.disksim", JUMPY);
    let mut r = TraceReader::open(&path, &TraceOptions::default()).unwrap();
    let t = arrivals(&mut r);
    let gap_ns = (1_262_304_000_000 - 20) * 1_000_000;
    assert_eq!(t, [0, 10_000_000, 10_000_000 + gap_ns, 15_000_000 + gap_ns]);
    let j = r.time_jumps();
    assert_eq!((j.count, j.first_line, j.first_gap_ns), (1, 3, gap_ns));
    assert_eq!((j.cut, j.cut_ns), (0, 0));
}

#[test]
fn max_gap_cuts_every_longer_gap_and_moves_the_rest_earlier() {
    let path = write_temp("jumpy-cut.disksim", JUMPY);
    let opts = TraceOptions {
        max_gap_ns: Some(1_000_000_000),
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    let t = arrivals(&mut r);
    assert_eq!(t, [0, 10_000_000, 1_010_000_000, 1_015_000_000]);
    let j = r.time_jumps();
    let gap_ns = (1_262_304_000_000 - 20) * 1_000_000;
    assert_eq!((j.count, j.first_line, j.first_gap_ns), (1, 3, gap_ns));
    assert_eq!((j.cut, j.cut_ns), (1, gap_ns - 1_000_000_000));
    // A gap no longer than the limit is kept whole.
    let opts = TraceOptions {
        max_gap_ns: Some(10_000_000),
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    assert_eq!(
        arrivals(&mut r),
        [0, 10_000_000, 20_000_000, 25_000_000],
        "the 10 ms gap stays, the jump is cut to 10 ms"
    );
    assert_eq!(r.time_jumps().cut, 1);
}

#[test]
fn max_gap_applies_to_every_pass_of_a_repeated_trace() {
    let path = write_temp("jumpy-repeat.disksim", JUMPY);
    let opts = TraceOptions {
        max_gap_ns: Some(1_000_000_000),
        repeat: 2,
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    let t = arrivals(&mut r);
    assert_eq!(t.len(), 8);
    // Pass 2 starts one mean gap (1.015 s / 3) after pass 1's last request and keeps
    // pass 1's shape.
    let start = 1_015_000_000 + 1_015_000_000 / 3;
    assert_eq!(
        t[4..],
        [
            start,
            start + 10_000_000,
            start + 1_010_000_000,
            start + 1_015_000_000
        ]
    );
    assert_eq!(
        r.time_jumps().count,
        1,
        "jumps are counted in the first pass only"
    );
}
