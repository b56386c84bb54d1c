//! Regression tests for defects found by end-to-end testing: each stays as a guard.

use crate::{out_path, ssdlab, tmp_dir, tmp_file, trace, MSR_OK};

#[test]
fn trace_error_is_printed_once() {
    let p = tmp_file(
        "kb-printed-once.csv",
        &format!("{MSR_OK}\n128166372003061629,hm,0,Read,383496192,0,1331\n"),
    );
    let run = ssdlab(["run", "--preset", "default", "--trace", &p]);
    run.assert_input_error(&["`Size`"]);
    assert_eq!(
        run.stderr.matches("`Size`").count(),
        1,
        "{}",
        run.describe()
    );
}

#[test]
fn far_future_timestamp_is_bad_input() {
    let p = tmp_file(
        "kb-far-future.csv",
        &format!("{MSR_OK}\n1999999999999999999,hm,0,Read,383496192,32768,1331\n"),
    );
    ssdlab(["run", "--preset", "default", "--trace", &p])
        .assert_input_error(&[&format!("{p}:2"), "Timestamp"]);
}

#[test]
fn huge_time_scale_is_bad_input() {
    let t = trace("msr/wdev_3.csv.gz");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--set",
        "host.time_scale=1e9",
    ])
    .assert_input_error(&["time_scale"]);
}

#[test]
fn bench_json_error_names_the_path() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let json = tmp_dir().join("kb-no-such-dir").join("bench.json");
    let json = json.display().to_string();
    let run = ssdlab([
        "bench", "--preset", "default", "--trace", &t, "--json", &json,
    ]);
    assert_ne!(run.code, Some(0), "{}", run.describe());
    run.assert_no_panic().assert_stderr_has(&[&json]);
}

#[test]
fn seeds_beyond_the_toml_range_are_refused_by_key() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--seed",
        "18446744073709551615",
    ])
    .assert_input_error(&["seed", "9223372036854775807"]);
    let json = out_path("kb-big-seed.json");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--seed",
        "9223372036854775807",
        "--json",
        &json,
    ])
    .assert_ok();
}
