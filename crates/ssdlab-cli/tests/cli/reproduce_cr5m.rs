//! `ssdlab reproduce cr5m --quick --no-sweeps` end to end on a small synthetic workload
//! and a small device.

use crate::{ssdlab, tmp_dir, tmp_file};

#[test]
fn reproduce_cr5m_quick_runs_every_architecture_and_verifies_a_failure() {
    let w = tmp_file(
        "cr5m-small.toml",
        "requests = 400\nread_ratio = 0.3\narrival = { kind = \"poisson\", iops = 2000.0 }\n\
         size = { kind = \"uniform\", min_bytes = 2048, max_bytes = 8192 }\n\
         address = { kind = \"zipf\", theta = 0.9 }\nfootprint_bytes = 16777216\n\
         alignment_bytes = 2048\nduplicate_ratio = 0.0\nseed = 3\n",
    );
    let out = tmp_dir().join("reproduce-cr5m-quick");
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let r = ssdlab([
        "reproduce",
        "cr5m",
        "--traces",
        &w,
        "--out",
        &out_s,
        "--quick",
        "--no-sweeps",
        "--set",
        "geometry.blocks_per_plane=64",
    ]);
    r.assert_ok().assert_stdout_has(&[
        "## CR5M against CR5 (SSD1)",
        "## CR5 with SDA against static chips (SSD1)",
        "mismatches 0",
    ]);
    let csv = std::fs::read_to_string(out.join("cr5m-main.csv")).expect("cr5m-main.csv");
    // 5 architectures, 5 with the transfer acknowledgement, CR5 with static chips, CR5M
    // verified.
    assert_eq!(csv.lines().count(), 1 + 5 + 5 + 1 + 1, "{csv}");
    let cr5m = csv
        .lines()
        .find(|l| l.contains(",cr5m,Main,"))
        .expect("a CR5M row");
    assert!(cr5m.contains("cr5m-ssd1"), "{cr5m}");
    for f in [
        "cr5m-summary.md",
        "fig6-ssd1.svg",
        "fig6-ssd1-read.svg",
        "fig6-ssd1-write.svg",
        "fig11-prereads.svg",
        "fig12-writes-per-channel.svg",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
    assert!(!out.join("cr5m-synth.csv").exists());
    assert!(
        out.join("workloads/cr5m-small.toml").is_file(),
        "the workload run is recorded"
    );
}
