//! `ssdlab verify`: failures injected mid-run, every read checked, a full audit.

use crate::{ssdlab, trace};

const SMALL: [&str; 8] = [
    "--set",
    "geometry.blocks_per_plane=64",
    "--set",
    "geometry.pages_per_block=32",
    "--set",
    "geometry.chips_per_channel=2",
    "--set",
    "ftl.precondition.enabled=true",
];

fn value(stdout: &str, name: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no `{name}` line in:\n{stdout}"))
        .trim()
        .replace(',', "")
        .parse()
        .unwrap()
}

#[test]
fn a_chip_failure_mid_run_verifies_with_zero_mismatches() {
    let t = trace("msr/hm_0-slice7016.csv.gz");
    let mut args = vec!["verify", "--preset", "default", "--trace", &t];
    args.extend(SMALL);
    args.extend([
        "--set",
        "raid.level=5",
        "--set",
        "raid.group_size=4",
        "--fail",
        "chip:3@0.5",
    ]);
    let run = ssdlab(args);
    run.assert_ok();
    assert_eq!(value(&run.stdout, "mismatches"), 0);
    assert_eq!(value(&run.stdout, "failures"), 1);
    assert!(value(&run.stdout, "degraded reads") > 0, "{}", run.stdout);
    assert!(value(&run.stdout, "reads checked") > 0);
    assert_eq!(value(&run.stdout, "unrecoverable pages"), 0);
    assert!(value(&run.stdout, "pages audited") > 0);
    // The last line is the verdict, with the counts above it, grouped in thousands.
    let verdict = run.stdout.lines().last().unwrap();
    let reads = ssdlab_stats::fmt_count(value(&run.stdout, "reads checked"));
    let audited = ssdlab_stats::fmt_count(value(&run.stdout, "pages audited"));
    assert_eq!(
        verdict,
        format!("verify: PASS — {reads} reads checked, 0 mismatches, {audited} pages audited")
    );
    assert!(audited.contains(','), "{audited}");
}

#[test]
fn a_bad_failure_spec_is_bad_input_naming_it() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "verify",
        "--preset",
        "default",
        "--trace",
        &t,
        "--fail",
        "chip:x@1s",
    ])
    .assert_input_error(&["chip:x@1s"]);
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--fail",
        "chip:999@1s",
    ])
    .assert_input_error(&["chip:999@1s"]);
}

#[test]
fn data_lost_without_redundancy_is_reported_in_the_verdict_not_as_a_mismatch() {
    let t = trace("msr/hm_0-slice7016.csv.gz");
    let mut args = vec!["verify", "--preset", "default", "--trace", &t];
    args.extend(SMALL);
    args.extend(["--fail", "chip:3@0.3"]);
    let run = ssdlab(args);
    run.assert_ok();
    let lost = value(&run.stdout, "unrecoverable reads");
    assert!(lost > 0, "{}", run.stdout);
    let verdict = run.stdout.lines().last().unwrap();
    assert!(verdict.starts_with("verify: PASS — "), "{verdict}");
    assert!(
        verdict.ends_with(&format!(
            "{} unrecoverable reads reported as lost",
            ssdlab_stats::fmt_count(lost)
        )),
        "{verdict}"
    );
}

#[test]
fn tlc_one_shot_programs_and_suspend_verify_clean() {
    let t = trace("msr/hm_0-slice7016.csv.gz");
    let mut args = vec!["verify", "--preset", "default", "--trace", &t];
    args.extend(SMALL);
    args.extend([
        "--set",
        "geometry.pages_per_block=48",
        "--set",
        "nand.cell=\"tlc\"",
        "--set",
        "nand.program=\"one-shot\"",
        "--set",
        "nand.t_read_ns_by_type=[60000, 80000, 100000]",
        "--set",
        "nand.t_prog_ns_by_type=[600000, 1200000, 2000000]",
        "--set",
        "scheduler.suspend=\"reads\"",
    ]);
    let run = ssdlab(args);
    run.assert_ok();
    assert_eq!(value(&run.stdout, "mismatches"), 0);
    assert!(value(&run.stdout, "reads checked") > 0);
    assert!(value(&run.stdout, "pages audited") > 0);
}
