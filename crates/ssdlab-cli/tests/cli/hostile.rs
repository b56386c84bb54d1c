//! Hostile input: requests too large to be real, byte ranges past 2^64, times out of
//! range in skip mode, over-long lines, a byte-order mark, and failures that could never
//! happen. Each exits 2 naming the file and line, or is handled as documented.

use crate::{out_path, read_report, ssdlab, tmp_file, trace, MSR_OK};
use ssdlab_stats::Counter;

/// 100 MSR lines whose line 58 asks for 1 TiB.
fn tib_trace(name: &str) -> String {
    let mut text = String::new();
    for i in 0..100u64 {
        let size = if i == 57 { 1u64 << 40 } else { 4096 };
        text.push_str(&format!(
            "{},hm,0,Write,{},{size},1000\n",
            128_166_372_003_061_629u64 + i * 1000,
            i * 4096
        ));
    }
    tmp_file(name, &text)
}

#[test]
fn a_1_tib_request_is_refused_by_info_and_run_naming_its_line() {
    let p = tib_trace("hostile-tib.csv");
    let words = [format!("{p}:58"), "larger than the limit".to_string()];
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    ssdlab(["trace", "info", &p]).assert_input_error(&words);
    ssdlab(["run", "--preset", "default", "--trace", &p]).assert_input_error(&words);
    // Skipped and counted with --skip-bad-lines; the bound is a flag.
    ssdlab(["trace", "info", &p, "--skip-bad-lines"])
        .assert_ok()
        .assert_stdout_has(&["requests: 99", "skipped_lines: 1"]);
    let json = out_path("hostile-tib.json");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &p,
        "--skip-bad-lines",
        "--json",
        &json,
    ])
    .assert_ok();
    let r = read_report(&json);
    assert_eq!(r.requests.all, 99);
    assert_eq!(r.counter(Counter::TraceSkippedLines), 1);
    // The bound is a flag: below the smallest request, line 1 is refused.
    ssdlab(["trace", "info", &p, "--max-request-bytes", "4095"])
        .assert_input_error(&[&format!("{p}:1"), "limit of 4095 bytes"]);
}

#[test]
fn byte_ranges_past_2_pow_64_exit_2_naming_the_line() {
    for (name, text) in [
        (
            "hostile-wrap.spc",
            "0,0,4096,w,0.0\n32767,1099511627775,4608,w,0.01\n",
        ),
        (
            "hostile-wrap.mqsim",
            "0 0 0 8 0\n10 0 36028797018963967 16 0\n",
        ),
    ] {
        let p = tmp_file(name, text);
        let at = format!("{p}:2");
        ssdlab(["trace", "info", &p]).assert_input_error(&[&at, "past 2^64"]);
        ssdlab(["run", "--preset", "default", "--trace", &p])
            .assert_input_error(&[&at, "past 2^64"]);
    }
}

#[test]
fn skip_mode_skips_an_out_of_range_time() {
    let p = tmp_file(
        "hostile-time.mqsim",
        "0 0 0 8 0\n18446744073709551615 0 8 8 0\n20 0 16 8 1\n",
    );
    ssdlab(["trace", "info", &p]).assert_input_error(&[&format!("{p}:2"), "time_ns"]);
    ssdlab(["trace", "info", &p, "--skip-bad-lines"])
        .assert_ok()
        .assert_stdout_has(&["requests: 2", "skipped_lines: 1"]);
}

#[test]
fn a_file_of_only_over_long_lines_names_line_1() {
    let p = tmp_file("hostile-long.csv", &format!("{}\n", "7".repeat(200 * 1024)));
    ssdlab(["trace", "info", &p]).assert_input_error(&[&format!("{p}:1"), "longer than"]);
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let p = tmp_file("hostile-bom.csv", &format!("\u{feff}{MSR_OK}\n{MSR_OK}\n"));
    ssdlab(["trace", "info", &p])
        .assert_ok()
        .assert_stdout_has(&["requests: 2"]);
}

#[test]
fn a_failure_that_could_never_happen_is_refused_or_reported() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "run", "--preset", "brr", "--trace", &t, "--fail", "chip:3@1",
    ])
    .assert_input_error(&["raid.fail", "chip:3@1", "never happen"]);
    let json = out_path("hostile-late-failure.json");
    ssdlab([
        "run",
        "--preset",
        "brr",
        "--trace",
        &t,
        "--fail",
        "chip:3@99999s",
        "--json",
        &json,
    ])
    .assert_ok()
    .assert_stderr_has(&["warning", "not applied"]);
    let r = read_report(&json);
    assert_eq!(r.counter(Counter::Failures), 0);
    assert_eq!(r.counter(Counter::FailuresNotFired), 1);
    assert!(
        r.sim_time_ns < 60_000_000_000,
        "the end of the run stays at its last request: {} ns",
        r.sim_time_ns
    );
}

#[test]
fn writes_whose_stripe_lost_its_redundancy_are_counted_lost() {
    // Chips 3 and 11 are one LCI parity group of the brr preset: after both fail, a write
    // to either has nothing left to hold it.
    let t = trace("msr/hm_0-slice7016.csv.gz");
    let json = out_path("hostile-two-failures.json");
    ssdlab([
        "run",
        "--preset",
        "brr",
        "--trace",
        &t,
        "--fail",
        "chip:3@0.2",
        "--fail",
        "chip:11@0.3",
        "--json",
        &json,
    ])
    .assert_ok();
    let r = read_report(&json);
    assert!(r.counter(Counter::LostWrites) > 0, "{:?}", r.counters);
    assert!(r.counter(Counter::UnrecoverablePages) > 0);
    let one = out_path("hostile-one-failure.json");
    ssdlab([
        "run",
        "--preset",
        "brr",
        "--trace",
        &t,
        "--fail",
        "chip:3@0.3",
        "--json",
        &one,
    ])
    .assert_ok();
    let r = read_report(&one);
    assert_eq!(r.counter(Counter::LostWrites), 0);
    assert!(r.counter(Counter::DegradedWrites) > 0);
}
