//! `ssdlab reproduce dsftl --quick` end to end on the FIU homes excerpt, without the
//! stand-ins, on a small device.

use crate::{ssdlab, tmp_dir, trace};

#[test]
fn reproduce_dsftl_quick_runs_every_scheme_and_verifies() {
    let t = trace("fiu/homes-replay-1k.fiu.gz");
    let out = tmp_dir().join("reproduce-dsftl-quick");
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let argv = [
        "reproduce",
        "dsftl",
        "--traces",
        &t,
        "--out",
        &out_s,
        "--quick",
        "--no-standins",
        "--set",
        "geometry.blocks_per_plane=64",
    ];
    ssdlab(argv).assert_ok().assert_stdout_has(&[
        "# reproduce dsftl: summary",
        "| read latency, static (cpwd) | −35.3 %",
        "verify (ds-ftl): ",
        " 0 mismatches",
    ]);
    let csv = std::fs::read_to_string(out.join("dsftl-main.csv")).expect("dsftl-main.csv");
    let schemes: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).expect("a scheme column"))
        .collect();
    assert_eq!(
        &schemes[..5],
        ["static", "static-cwdp", "dynamic", "hipa", "ds-ftl"]
    );
    assert!(csv
        .lines()
        .all(|l| l.starts_with("workload,") || l.starts_with("homes-replay-1k,")));
    for f in [
        "dsftl-summary.md",
        "fig2-channel-utilization.svg",
        "fig10a-write-latency.svg",
        "fig10b-read-latency.svg",
        "fig11-plane-duplicate-rate.svg",
        "fig12-plane-duplicates.svg",
        "fig13-redirected.svg",
        "fig14-channel-std.svg",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
    assert!(
        !out.join("dsftl-sweeps.csv").exists(),
        "--quick runs no sweeps"
    );
}

#[test]
fn reproduce_dsftl_needs_a_workload() {
    let out = tmp_dir().join("reproduce-dsftl-nothing");
    let out_s = out.display().to_string();
    ssdlab(["reproduce", "dsftl", "--out", &out_s, "--no-standins"])
        .assert_input_error(&["nothing to run", "--traces"]);
}
