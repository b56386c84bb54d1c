//! `ssdlab reproduce dgc --quick` end to end on one small trace and a small device.

use crate::{ssdlab, tmp_dir, trace};

#[test]
fn reproduce_dgc_quick_writes_four_variants_and_verifies() {
    let t = trace("msr/wdev_3.csv.gz");
    let out = tmp_dir().join("reproduce-dgc-quick");
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let r = ssdlab([
        "reproduce",
        "dgc",
        "--traces",
        &t,
        "--out",
        &out_s,
        "--quick",
        "--set",
        "geometry.blocks_per_plane=64",
        "--set",
        "geometry.chips_per_channel=2",
    ]);
    r.assert_ok()
        .assert_stdout_has(&["verify (raid5+dgc, group 8):", " 0 mismatches"]);
    let csv = std::fs::read_to_string(out.join("dgc-main.csv")).expect("dgc-main.csv");
    let variants: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(variants, ["raid5", "raid5+dgc", "brr", "brr+dgc"], "{csv}");
    for f in [
        "dgc-summary.md",
        "fig4-breakdown.svg",
        "fig8-mean-response.svg",
        "fig9-p99-response.svg",
        "fig10-deferred-gc.svg",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
}
