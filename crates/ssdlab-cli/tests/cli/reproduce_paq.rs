//! `ssdlab reproduce paq --quick` end to end on a real trace excerpt and a synthetic
//! workload, on a small device.

use crate::{csv_column as column, ssdlab, tmp_dir, trace, Run};
use std::path::PathBuf;

/// The msnfs4-like synthetic workload shipped with the examples.
fn msnfs4() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/synthetic/msnfs4.toml"
    )
    .to_string()
}

/// Runs `reproduce paq --quick` on hm_0's first 200 requests and msnfs4 into a fresh
/// directory named `dir`, on 2 packages per channel of 64 blocks per plane, with the
/// extra arguments `args`.
fn reproduce_quick(dir: &str, args: &[&str]) -> (Run, PathBuf) {
    let (t, s) = (trace("msr/hm_0-head200.csv.gz"), msnfs4());
    let out = tmp_dir().join(dir);
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let mut argv = vec![
        "reproduce",
        "paq",
        "--traces",
        &t,
        "--traces",
        &s,
        "--out",
        &out_s,
        "--quick",
        "--set",
        "geometry.chips_per_channel=2",
        "--set",
        "geometry.blocks_per_plane=64",
    ];
    argv.extend_from_slice(args);
    (ssdlab(argv), out)
}

#[test]
fn reproduce_paq_quick_compares_the_four_schedulers_and_sweeps() {
    let (r, out) = reproduce_quick("reproduce-paq-quick", &[]);
    r.assert_ok().assert_stdout_has(&[
        "# reproduce paq: summary",
        "| IOPS | +32.7 % | +62.6 % |",
        "msnfs4 (synthetic) (7.8 %)",
        "PAQ2 ≥ PAQ1 in IOPS on",
        " 0 mismatches",
        "### Sweeps on hm_0-head200",
    ]);
    let main = std::fs::read_to_string(out.join("paq-main.csv")).expect("paq-main.csv");
    let five = ["vaq", "paq0", "paq1", "paq2", "async-fifo"];
    assert_eq!(column(&main, "scheduler"), [five, five].concat(), "{main}");
    assert_eq!(column(&main, "setting"), ["preset"; 10], "{main}");
    assert_eq!(column(&main, "iops_vs_vaq")[0], "1.0000", "{main}");
    let sweep = std::fs::read_to_string(out.join("paq-sweep.csv")).expect("paq-sweep.csv");
    let studies = column(&sweep, "study");
    assert_eq!(studies.len(), 4 * (3 + 3 + 3 + 3 + 3), "{sweep}");
    assert!(column(&sweep, "workload")
        .iter()
        .all(|w| *w == "hm_0-head200"));
    for f in [
        "paq-summary.md",
        "fig8-bandwidth.svg",
        "fig9-iops.svg",
        "fig10-latency.svg",
        "fig11-idle.svg",
        "fig12-contention.svg",
        "fig12b-bus-contention.svg",
        "fig14-iops-queue-hm_0-head200.svg",
        "fig14-iops-channels-hm_0-head200.svg",
        "fig14-iops-dies-hm_0-head200.svg",
        "fig15-awt-queue-hm_0-head200.svg",
        "fig15-awt-channels-hm_0-head200.svg",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
}

#[test]
fn reproduce_paq_refuses_an_unknown_sweep_workload() {
    let (r, _) = reproduce_quick("reproduce-paq-bad-sweep", &["--sweep", "fin9"]);
    r.assert_input_error(&["--sweep fin9", "hm_0-head200, msnfs4"]);
}
