//! Bad command lines: exit code 2 with a clear message.

use crate::{ssdlab, tmp_file, trace};

#[test]
fn unknown_flag() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab(["run", "--preset", "default", "--trace", &t, "--bogus"])
        .assert_input_error(&["--bogus"]);
}

#[test]
fn unknown_subcommand() {
    ssdlab(["simulate"]).assert_input_error(&["simulate"]);
}

#[test]
fn no_subcommand() {
    ssdlab::<_, &str>([]).assert_input_error(&["Usage"]);
}

#[test]
fn run_without_a_workload() {
    ssdlab(["run", "--preset", "default"]).assert_input_error(&[
        "no workload",
        "--trace",
        "--synthetic",
    ]);
}

#[test]
fn trace_and_synthetic_conflict() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab(["run", "--preset", "default", "--trace", &t, "--synthetic"])
        .assert_input_error(&["--synthetic", "--trace"]);
}

#[test]
fn unknown_trace_format() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "run", "--preset", "default", "--trace", &t, "--format", "csv",
    ])
    .assert_input_error(&["--format", "csv", "msr"]);
}

#[test]
fn non_numeric_seed() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "run", "--preset", "default", "--trace", &t, "--seed", "five",
    ])
    .assert_input_error(&["--seed", "five"]);
}

#[test]
fn repeat_zero() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab(["run", "--preset", "default", "--trace", &t, "--repeat", "0"])
        .assert_input_error(&["--repeat"]);
}

#[test]
fn trace_info_without_a_trace() {
    ssdlab(["trace", "info"]).assert_input_error(&["FILE"]);
}

#[test]
fn config_show_needs_a_preset_name() {
    ssdlab(["config", "show"]).assert_input_error(&["PRESET"]);
}

#[test]
fn config_show_unknown_preset() {
    ssdlab(["config", "show", "nosuch"]).assert_input_error(&["nosuch", "default"]);
}

#[test]
fn compare_with_one_variant() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "compare",
        "--preset",
        "default",
        "--trace",
        &t,
        "--schedulers",
        "async-fifo",
    ])
    .assert_input_error(&["at least two variants"]);
}

#[test]
fn compare_with_no_variant() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab(["compare", "--preset", "default", "--trace", &t])
        .assert_input_error(&["at least two variants"]);
}

#[test]
fn compare_with_an_unknown_scheduler() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "compare",
        "--preset",
        "default",
        "--trace",
        &t,
        "--schedulers",
        "async-fifo,lifo",
    ])
    .assert_input_error(&["scheduler.name", "lifo"]);
}

#[test]
fn synthetic_config_with_unknown_key() {
    let cfg = tmp_file(
        "ba-synthetic-unknown.toml",
        "requests = 500\nread_ratio = 0.5\nreqeusts = 3\n",
    );
    ssdlab(["run", "--preset", "default", "--synthetic-config", &cfg])
        .assert_input_error(&["reqeusts", &cfg]);
}

#[test]
fn synthetic_config_with_unknown_nested_key() {
    let cfg = tmp_file(
        "ba-synthetic-nested.toml",
        "requests = 500\n[arrival]\nkind = \"poisson\"\niopz = 5000\n",
    );
    ssdlab(["run", "--preset", "default", "--synthetic-config", &cfg])
        .assert_input_error(&["iopz", "arrival", &cfg]);
}

#[test]
fn synthetic_config_with_invalid_value() {
    let cfg = tmp_file("ba-synthetic-invalid.toml", "requests = 0\n");
    ssdlab(["run", "--preset", "default", "--synthetic-config", &cfg])
        .assert_input_error(&["requests", "at least 1"]);
}

#[test]
fn synthetic_config_with_fua_ratio_above_one() {
    let cfg = tmp_file("ba-synthetic-fua.toml", "fua_ratio = 1.5\n");
    ssdlab(["run", "--preset", "default", "--synthetic-config", &cfg]).assert_input_error(&[
        "fua_ratio",
        "[0, 1]",
        "1.5",
    ]);
}

#[test]
fn missing_synthetic_config() {
    let cfg = crate::tmp_dir().join("ba-no-such-synthetic.toml");
    let cfg = cfg.display().to_string();
    ssdlab(["run", "--preset", "default", "--synthetic-config", &cfg]).assert_input_error(&[&cfg]);
}
