//! `ssdlab reproduce dgc --quick` end to end on one small trace and a small device.

use crate::{csv_column as column, ssdlab, tmp_dir, trace, Run};
use std::path::PathBuf;

/// Runs `reproduce dgc --quick` on wdev_3 into a fresh directory named `dir`, with
/// 64 blocks per plane and the extra arguments `args`.
fn reproduce_quick(dir: &str, args: &[&str]) -> (Run, PathBuf) {
    let t = trace("msr/wdev_3.csv.gz");
    let out = tmp_dir().join(dir);
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let mut argv = vec![
        "reproduce",
        "dgc",
        "--traces",
        &t,
        "--out",
        &out_s,
        "--quick",
        "--set",
        "geometry.blocks_per_plane=64",
    ];
    argv.extend_from_slice(args);
    (ssdlab(argv), out)
}

#[test]
fn reproduce_dgc_quick_writes_five_variants_and_verifies() {
    // 16 chips, each on its own link (the default private bus).
    let (r, out) = reproduce_quick("reproduce-dgc-quick", &["--set", "geometry.channels=16"]);
    r.assert_ok().assert_stdout_has(&[
        "the dgc preset as shipped (lazy GC, aged by random overwrites of half the pages), bus private, group 8",
        "verify (raid5+dgc, group 8):",
        " 0 mismatches",
    ]);
    let csv = std::fs::read_to_string(out.join("dgc-main.csv")).expect("dgc-main.csv");
    assert_eq!(
        column(&csv, "variant"),
        ["raid5", "raid5+dgc", "raid5+dgc+parity", "brr", "brr+dgc"],
        "{csv}"
    );
    assert_eq!(column(&csv, "bus"), ["private"; 5], "{csv}");
    for f in [
        "dgc-summary.md",
        "fig4-breakdown.svg",
        "fig8-mean-response.svg",
        "fig9-p99-response.svg",
        "fig10-deferred-gc.svg",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
    // Every figure is also a PNG, and carries the paper's value where it has one.
    for f in ["fig4-breakdown", "fig8-mean-response", "fig9-p99-response"] {
        let png = std::fs::read(out.join(format!("{f}.png"))).expect("a PNG beside the SVG");
        assert_eq!(&png[1..4], b"PNG", "{f}");
    }
    let fig8 = std::fs::read_to_string(out.join("fig8-mean-response.svg")).expect("fig8");
    assert!(fig8.contains("<title>paper, raid5+dgc, average: 0.771</title>"));
}

#[test]
fn reproduce_dgc_records_a_shared_bus() {
    // 8 channels of 2 chips sharing each channel.
    let (r, out) = reproduce_quick(
        "reproduce-dgc-shared-bus",
        &["--bus", "shared", "--set", "geometry.chips_per_channel=2"],
    );
    r.assert_ok()
        .assert_stdout_has(&["bus shared, group 8", " 0 mismatches"]);
    let csv = std::fs::read_to_string(out.join("dgc-main.csv")).expect("dgc-main.csv");
    assert!(csv.starts_with("trace,bus,variant,"), "{csv}");
    assert_eq!(column(&csv, "bus"), ["shared"; 5], "{csv}");
}
