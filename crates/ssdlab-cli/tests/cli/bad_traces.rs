//! Malformed traces: exit code 2, and a message naming the file, the line and the field.

use crate::{out_path, read_report, ssdlab, tmp_file, trace, MSR_OK};
use ssdlab_stats::Counter;

/// An MSR file: `good` valid lines, then `bad`, then one more valid line.
fn msr_with_bad_line(name: &str, good: usize, bad: &str) -> String {
    let mut text = String::new();
    for _ in 0..good {
        text.push_str(MSR_OK);
        text.push('\n');
    }
    text.push_str(bad);
    text.push('\n');
    text.push_str(MSR_OK);
    text.push('\n');
    tmp_file(name, &text)
}

fn run_default(path: &str, extra: &[&str]) -> crate::Run {
    let mut args = vec!["run", "--preset", "default", "--trace", path];
    args.extend_from_slice(extra);
    ssdlab(args)
}

#[test]
fn msr_truncated_line() {
    let p = msr_with_bad_line(
        "bt-truncated.csv",
        1,
        "128166372003061629,hm,0,Read,383496192",
    );
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:2"), "`Size`", "truncated"]);
}

#[test]
fn msr_non_numeric_field() {
    let p = msr_with_bad_line(
        "bt-non-numeric.csv",
        3,
        "128166372003061629,hm,0,Read,38349x192,32768,1331",
    );
    run_default(&p, &[]).assert_input_error(&[
        &format!("{p}:4"),
        "`Offset`",
        "integer",
        "38349x192",
    ]);
}

#[test]
fn msr_unknown_op() {
    let p = msr_with_bad_line(
        "bt-unknown-op.csv",
        2,
        "128166372003061629,hm,0,Trim,383496192,32768,1331",
    );
    run_default(&p, &[]).assert_input_error(&[
        &format!("{p}:3"),
        "`Type`",
        "unknown operation",
        "Trim",
    ]);
}

#[test]
fn msr_zero_size() {
    let p = msr_with_bad_line(
        "bt-zero-size.csv",
        1,
        "128166372003061629,hm,0,Write,383496192,0,1331",
    );
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:2"), "`Size`", "positive", "`0`"]);
}

#[test]
fn msr_negative_size() {
    let p = msr_with_bad_line(
        "bt-negative-size.csv",
        1,
        "128166372003061629,hm,0,Write,383496192,-4096,1331",
    );
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:2"), "`Size`", "-4096"]);
}

#[test]
fn msr_size_too_large() {
    let p = msr_with_bad_line(
        "bt-size-too-large.csv",
        1,
        "128166372003061629,hm,0,Read,383496192,99999999999999999999999,1331",
    );
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:2"), "`Size`", "out of range"]);
}

#[test]
fn msr_bad_first_line() {
    // The very first line is also the one format detection looks at.
    let p = tmp_file(
        "bt-bad-first-line.csv",
        &format!("128166372003061629,hm,0,Read,38349x192,32768,1331\n{MSR_OK}\n"),
    );
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:1"), "`Offset`", "38349x192"]);
}

#[test]
fn empty_file() {
    let p = tmp_file("bt-empty.csv", "");
    run_default(&p, &[]).assert_input_error(&[&p, "no requests"]);
    let blank = tmp_file("bt-blank-lines.csv", "\n\n\n");
    run_default(&blank, &[]).assert_input_error(&[&blank, "no requests"]);
}

#[test]
fn unrecognisable_content() {
    let p = tmp_file("bt-prose.txt", "this is not\na block trace at all\n");
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:1"), "no trace format fits this line"]);
}

#[test]
fn a_lone_malformed_first_line_is_reported_at_line_1_with_its_reason() {
    let p = tmp_file(
        "bt-lone-bad-line.csv",
        "128166372003061629,hm,0,Wrte,383496192,32768,1331\n",
    );
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:1"), "`msr`", "`Type`", "Wrte"]);
}

#[test]
fn corrupt_gzip() {
    let whole = std::fs::read(trace("msr/wdev_3.csv.gz")).unwrap();
    let p = crate::tmp_dir().join("bt-corrupt.csv.gz");
    std::fs::write(&p, &whole[..200]).unwrap();
    let p = p.display().to_string();
    run_default(&p, &[]).assert_input_error(&[&p]);
}

#[test]
fn disksim_non_numeric_block() {
    let p = tmp_file(
        "bt-disksim-block.txt",
        "640.875000\t0\t522424\t16\t1\n640.875000\t0\t5224x4\t16\t1\n",
    );
    run_default(&p, &["--format", "disksim"]).assert_input_error(&[
        &format!("{p}:2"),
        "`block`",
        "5224x4",
    ]);
}

#[test]
fn disksim_truncated_line() {
    let p = tmp_file(
        "bt-disksim-truncated.txt",
        "640.875000\t0\t522424\t16\t1\n640.875000\t0\t522424\t16\t1\n640.875000\t0\t522424\n",
    );
    run_default(&p, &["--format", "disksim"]).assert_input_error(&[
        &format!("{p}:3"),
        "`size`",
        "truncated",
    ]);
}

#[test]
fn fiu_bad_digest() {
    let good = "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221";
    let bad = "89966527950584 4253 nfsd 508516672 8 W 6 0 not-a-digest";
    let p = tmp_file("bt-fiu-digest.txt", &format!("{good}\n{bad}\n"));
    run_default(&p, &["--format", "fiu"]).assert_input_error(&[
        &format!("{p}:2"),
        "`md5`",
        "not-a-digest",
    ]);
}

#[test]
fn skip_bad_lines_counts_the_bad_line() {
    let p = msr_with_bad_line(
        "bt-skip.csv",
        2,
        "128166372003061629,hm,0,Trim,383496192,32768,1331",
    );
    // Without the flag the bad line stops the run...
    run_default(&p, &[]).assert_input_error(&[&format!("{p}:3"), "Trim"]);
    // ...with it, the line is skipped and counted.
    let json = out_path("bt-skip.json");
    run_default(&p, &["--skip-bad-lines", "--json", &json]).assert_ok();
    let r = read_report(&json);
    assert_eq!(r.counter(Counter::TraceSkippedLines), 1);
    assert_eq!(r.requests.all, 3);
}

#[test]
fn skip_bad_lines_with_nothing_left_is_an_error() {
    let p = tmp_file("bt-all-bad.csv", "x,y\nfoo\n");
    run_default(&p, &["--format", "msr", "--skip-bad-lines"])
        .assert_input_error(&[&p, "no requests"]);
}

#[test]
fn trace_info_reports_bad_lines_too() {
    let p = msr_with_bad_line(
        "bt-info.csv",
        1,
        "128166372003061629,hm,0,Read,383496192,0,1331",
    );
    ssdlab(["trace", "info", &p]).assert_input_error(&[&format!("{p}:2"), "`Size`"]);
}

/// Relative DiskSim times with a wall-clock stamp from line 3 on (40 years ahead).
const JUMPY: &str = "10.0 0 8 1 1\n20.0 0 16 1 1\n1262304000000.0 0 24 1 0\n\
                     1262304000005.0 0 32 1 0\n";

#[test]
fn a_clock_jump_of_years_is_a_warning_naming_its_line() {
    let p = tmp_file("bt-jumpy.disksim", JUMPY);
    let json = out_path("bt-jumpy.json");
    run_default(&p, &["--json", &json])
        .assert_ok()
        .assert_stderr_has(&["warning:", "line 3", "40.0 years", "--max-gap"]);
    let r = read_report(&json);
    assert_eq!(r.counter(Counter::TraceTimeJumps), 1);
    assert_eq!(r.counter(Counter::TraceFirstJumpLine), 3);
    assert!(
        r.sim_time_ns > 1_000_000_000_000_000_000,
        "the clock followed the jump"
    );
}

#[test]
fn max_gap_cuts_the_jump_and_says_so() {
    let p = tmp_file("bt-jumpy-cut.disksim", JUMPY);
    let json = out_path("bt-jumpy-cut.json");
    run_default(&p, &["--max-gap", "1s", "--json", &json])
        .assert_ok()
        .assert_stderr_has(&["line 3", "--max-gap cut it", "cut 1 gap"]);
    let r = read_report(&json);
    assert_eq!(r.counter(Counter::TraceGapsCut), 1);
    assert!(r.sim_time_ns < 2_000_000_000, "{}", r.sim_time_ns);
    for bad in ["1", "1parsec", "x1s", "0s"] {
        run_default(&p, &["--max-gap", bad]).assert_input_error(&["--max-gap"]);
    }
}

/// A blkparse trace: a write, then `discard` as the second event line.
fn blkparse_with_discard(name: &str, discard: &str) -> String {
    let text = format!(
        "8,0 1 1 0.000100000 697 D WS 2048 + 16 [kworker]\n\
         8,0 3 2 0.000200000 900 D DS {discard} [fstrim]\n\
         8,0 1 3 0.000300000 697 D RS 2048 + 8 [java]\n"
    );
    tmp_file(name, &text)
}

#[test]
fn kept_discards_of_zero_length_or_past_the_device_are_refused_with_their_line() {
    let p = blkparse_with_discard("bt-discard-zero.blkparse", "2048 + 0");
    run_default(&p, &["--discards", "trim"]).assert_input_error(&[&format!("{p}:2"), "`blocks`"]);
    // 100 GiB in: past the default device's logical capacity.
    let p = blkparse_with_discard("bt-discard-past.blkparse", "209715200 + 8");
    run_default(&p, &["--discards", "trim"]).assert_input_error(&[
        &format!("{p}:2"),
        "`sector`",
        "past the end of the device",
    ]);
    // Dropped (the default), the same lines are passed over as they always were.
    let json = out_path("bt-discard-drop.json");
    run_default(&p, &["--json", &json]).assert_ok();
    let r = read_report(&json);
    assert_eq!(r.requests.all, 2);
    assert!(!r.counters.contains_key(&Counter::Trims));
    // Kept and inside the device: counted.
    let p = blkparse_with_discard("bt-discard-ok.blkparse", "2048 + 16");
    let json = out_path("bt-discard-ok.json");
    run_default(&p, &["--discards", "trim", "--json", &json]).assert_ok();
    let r = read_report(&json);
    assert_eq!(r.counter(Counter::Trims), 1);
    assert_eq!(r.counter(Counter::TrimmedPages), 2);
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &p,
        "--discards",
        "keep",
    ])
    .assert_input_error(&["keep"]);
}
