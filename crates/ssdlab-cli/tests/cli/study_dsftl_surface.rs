//! `ssdlab study dsftl-surface` end to end on a tiny sweep: the outputs exist, every
//! gain is DS-FTL's read mean over the baseline's less one, and bad values exit 2.

use crate::{ssdlab, tmp_dir};

fn col(header: &str, name: &str) -> usize {
    header
        .split(',')
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn a_tiny_surface_writes_its_outputs_and_computes_the_gain_as_a_ratio_less_one() {
    let out = tmp_dir().join("study-dsftl-surface");
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.display().to_string();
    let argv = [
        "study",
        "dsftl-surface",
        "--out",
        &out_s,
        "--dups",
        "0,0.8",
        "--loads",
        "30",
        "--reads",
        "0.5",
        "--requests",
        "600",
    ];
    ssdlab(argv).assert_ok();
    for f in [
        "dsftl-surface.csv",
        "dsftl-surface.md",
        "dsftl-surface.svg",
        "dsftl-surface.png",
        "dsftl-surface-dynamic.svg",
        "dsftl-surface-traces.svg",
        "dsftl-surface-traces.png",
        "dsftl-surface-dram.svg",
    ] {
        assert!(out.join(f).is_file(), "missing {f}");
    }
    let csv = std::fs::read_to_string(out.join("dsftl-surface.csv")).unwrap();
    let mut lines = csv.lines();
    let h = lines.next().unwrap();
    let (dup, dram, scheme, mean, vs_s, vs_d, copies, redirected) = (
        col(h, "duplicate_ratio"),
        col(h, "dram"),
        col(h, "scheme"),
        col(h, "read_mean_us"),
        col(h, "read_gain_vs_static"),
        col(h, "read_gain_vs_dynamic"),
        col(h, "reads_with_copy_other_channel"),
        col(h, "redirected_reads"),
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Two duplicate ratios × (no DRAM, DRAM at the middle load) × three schemes.
    assert_eq!(rows.len(), 12);
    let f = |r: &[&str], c: usize| r[c].parse::<f64>().unwrap();
    for p in rows.chunks(3) {
        let names: Vec<&str> = p.iter().map(|r| r[scheme]).collect();
        assert_eq!(names, ["static", "dynamic", "ds-ftl"]);
        let ds = &p[2];
        let want_s = f(ds, mean) / f(&p[0], mean) - 1.0;
        let want_d = f(ds, mean) / f(&p[1], mean) - 1.0;
        assert!((f(ds, vs_s) - want_s).abs() < 1e-4, "{ds:?}");
        assert!((f(ds, vs_d) - want_d).abs() < 1e-4, "{ds:?}");
        assert_eq!(f(&p[0], vs_s), 0.0, "static against itself");
        if f(ds, dup) == 0.0 {
            assert_eq!(f(ds, copies), 0.0, "no duplicates, no copies");
            assert_eq!(
                f(ds, mean),
                f(&p[0], mean),
                "nothing to redirect: as static"
            );
        } else if ds[dram] == "none" {
            assert!(f(ds, copies) > 0.1, "{ds:?}");
            assert!(f(ds, redirected) > 0.0, "{ds:?}");
        }
    }
    let md = std::fs::read_to_string(out.join("dsftl-surface.md")).unwrap();
    for w in [
        "## The paper's eight traces on the surface",
        "| webmail |",
        "| home3 |",
    ] {
        assert!(md.contains(w), "{w}");
    }
}

#[test]
fn bad_sweep_values_are_input_errors() {
    let out = tmp_dir().join("study-dsftl-surface-bad");
    let out_s = out.display().to_string();
    ssdlab(["study", "dsftl-surface", "--out", &out_s, "--dups", "1.5"])
        .assert_input_error(&["--dups", "1.5"]);
    ssdlab(["study", "dsftl-surface", "--out", &out_s, "--loads", "0"])
        .assert_input_error(&["--loads"]);
}
