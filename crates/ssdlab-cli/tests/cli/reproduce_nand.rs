//! `ssdlab reproduce nand` end to end at a small scale: the write cliff over the first
//! 2 GB of the drive (`--fill-bytes`) and mixed runs of 20 000 requests (`--requests`),
//! both stated in the summary.

use crate::{csv_column as column, ssdlab, tmp_dir};

#[test]
fn reproduce_nand_writes_both_figures_and_states_a_short_fill() {
    let out = tmp_dir().join("reproduce-nand");
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let r = ssdlab([
        "reproduce",
        "nand",
        "--out",
        &out_s,
        "--fill-bytes",
        "2000000000",
        "--requests",
        "20000",
    ]);
    r.assert_ok().assert_stdout_has(&[
        "# reproduce nand: summary",
        "15 258 writes of 128 KiB, sequential from byte 0: 1 999 896 576 B (2.0 GB, 0.20 % of \
         the logical capacity of 1 005 513 080 832 B; `--fill-bytes` asked for less than the \
         whole drive)",
        "`size_bytes` 112 742 891 520 B (112.7 GB)",
        "| 1 | 0 | 2.0 | 2 |",
        "20 000 requests of 16 KiB, 70 % reads",
        "| as shipped, 20k IOPS | nothing: the preset as shipped | 20 000 IOPS |",
        "| as shipped, 100k IOPS | nothing: the preset as shipped | 100 000 IOPS |",
        "| SLC cache off, 100k IOPS | `nand.slc_cache.mode=\"off\"`",
        "| as-shipped suspend=host-reads |",
        "| as-shipped-100k suspend=off |",
        "| slc-off suspend=off |",
        "| SLC cache off, 100k IOPS | lsb | 35.3 µs |",
    ]);
    let cliff = std::fs::read_to_string(out.join("write-cliff.csv")).expect("write-cliff.csv");
    assert_eq!(column(&cliff, "level"), ["1", "1"], "{cliff}");
    assert_eq!(column(&cliff, "end_gb")[1], "1.999897", "{cliff}");
    let cdf = std::fs::read_to_string(out.join("suspend-cdf.csv")).expect("suspend-cdf.csv");
    assert_eq!(
        cdf.lines().next(),
        Some(
            "quantile,as-shipped_suspend_host-reads_us,as-shipped_suspend_off_us,\
             as-shipped-100k_suspend_host-reads_us,as-shipped-100k_suspend_off_us,\
             slc-off_suspend_host-reads_us,slc-off_suspend_off_us"
        )
    );
    let q = column(&cdf, "quantile");
    assert_eq!(
        (q.len(), q[0], q[998], q[1001]),
        (1002, "0.0010", "0.9990", "1.0000")
    );
    let p50: f64 = column(&cdf, "slc-off_suspend_off_us")[499].parse().unwrap();
    assert!(
        p50 > 45.0,
        "a read takes at least its array and bus time: {p50}"
    );
    for f in [
        "nand-summary.md",
        "write-cliff.svg",
        "write-cliff.png",
        "suspend-cdf.svg",
        "suspend-cdf.png",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
}

#[test]
fn reproduce_nand_refuses_a_fill_beyond_the_drive() {
    let out = tmp_dir().join("reproduce-nand-too-much");
    let r = ssdlab([
        "reproduce",
        "nand",
        "--out",
        &out.display().to_string(),
        "--fill-bytes",
        "2000000000000",
    ]);
    r.assert_input_error(&["--fill-bytes 2000000000000", "1005513080832"]);
}
