//! The configuration reference: `config doc`, docs/CONFIG.md, `config show --explain`,
//! the names `--help` lists, and keys that would be ignored.

use crate::{ssdlab, trace, PRESETS};
use ssdlab::{ConfigBuilder, SchedulerKind, SimConfig};

#[test]
fn config_doc_prints_a_section_or_a_key() {
    let run = ssdlab(["config", "doc", "ftl.gc"]);
    run.assert_ok().assert_stdout_has(&[
        "[ftl.gc]",
        "ftl.gc.victim",
        "\"cost-benefit\"",
        "ftl.gc.threshold_free_ratio",
        "type: float · default: 0.05 · unit: fraction of blocks_per_plane · range: [0, 1)",
    ]);
    assert!(!run.stdout.contains("ftl.wear_leveling"), "{}", run.stdout);
    let run = ssdlab(["config", "doc", "timing.t_read_ns"]);
    run.assert_ok()
        .assert_stdout_has(&["type: integer · default: 25000 · unit: ns · range: >= 1"]);
    assert_eq!(run.stdout.lines().next(), Some("timing.t_read_ns"));
    let all = ssdlab(["config", "doc"]);
    all.assert_ok()
        .assert_stdout_has(&["seed", "[dsftl]", "dsftl.multipath_read"]);
}

#[test]
fn config_doc_unknown_key_names_it_and_the_closest_ones() {
    ssdlab(["config", "doc", "ftl.gc.victm"])
        .assert_input_error(&["`ftl.gc.victm`", "did you mean `ftl.gc.victim`"]);
    ssdlab(["config", "doc", "scheduler.chip_queue_dpeth"])
        .assert_input_error(&["`scheduler.chip_queue_depth`"]);
}

/// docs/CONFIG.md is what `ssdlab config doc --markdown` prints now.
#[test]
fn docs_config_md_is_current() {
    let run = ssdlab(["config", "doc", "--markdown"]);
    run.assert_ok();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/CONFIG.md");
    let file = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        file == run.stdout,
        "docs/CONFIG.md is not what `ssdlab config doc --markdown` prints; regenerate it \
         with:\n    cargo run -p ssdlab-cli -- config doc --markdown > docs/CONFIG.md"
    );
}

#[test]
fn config_show_explain_is_the_preset_with_its_comments() {
    for preset in PRESETS {
        let run = ssdlab(["config", "show", preset, "--explain"]);
        run.assert_ok();
        let cfg = ConfigBuilder::new()
            .text(&run.stdout, "explained")
            .unwrap()
            .build()
            .unwrap_or_else(|e| panic!("{preset}: {e}\n{}", run.stdout));
        assert_eq!(cfg, SimConfig::preset(preset).unwrap(), "{preset}");
    }
    ssdlab(["config", "show", "brr", "--explain"])
        .assert_ok()
        .assert_stdout_has(&[
            "# preset brr\n",
            "t_read_ns = 25000               # Table I: \"Page read latency 0.025ms\"\n",
        ]);
    ssdlab(["config", "show", "paq", "--explain"])
        .assert_ok()
        .assert_stdout_has(&["sample_planes = 8               # (default) Sample planes of"]);
    ssdlab(["config", "show", "nosuch", "--explain"]).assert_input_error(&["nosuch"]);
}

#[test]
fn help_lists_presets_schedulers_and_allocation_policies() {
    for cmd in ["run", "verify", "compare", "sweep", "bench"] {
        let run = ssdlab([cmd, "--help"]);
        run.assert_ok();
        for name in PRESETS.iter().chain(SchedulerKind::NAMES) {
            assert!(run.stdout.contains(name), "{cmd}: {name}\n{}", run.stdout);
        }
        run.assert_stdout_has(&[
            "Allocation policies (--set ftl.allocation=NAME):",
            "\n  content-aware  DS-FTL",
            "\n  hipa ",
        ]);
    }
}

#[test]
fn precondition_keys_without_preconditioning_are_refused() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let run = |sets: &[&str]| {
        let mut args = vec!["run", "--preset", "dsftl", "--trace", &t];
        for s in sets {
            args.extend(["--set", s]);
        }
        ssdlab(args)
    };
    run(&[
        "ftl.precondition.overwrite_ratio=0.5",
        "ftl.precondition.aging=sampled",
    ])
    .assert_input_error(&[
        "--set ftl.precondition.overwrite_ratio: key `ftl.precondition.overwrite_ratio`",
        "key `ftl.precondition.aging`",
        "ftl.precondition.enabled = true",
    ]);
    // The README's aged brr: the preset preconditions (checked without the run, which
    // would age a 256 GiB device).
    ssdlab([
        "raid",
        "layout",
        "--preset",
        "brr",
        "--rows",
        "1",
        "--set",
        "ftl.precondition.overwrite_ratio=0.5",
        "--set",
        "ftl.precondition.aging=sampled",
    ])
    .assert_ok();
}

/// docs/reproductions/GAPS.md is what `scripts/paper-gaps.py` reads from the committed
/// reproduction summaries now (so a regenerated summary whose headline moved shows up).
#[test]
fn docs_reproductions_gaps_md_is_current() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(python)
        .arg(format!("{root}/scripts/paper-gaps.py"))
        .output()
        .expect("python3 runs scripts/paper-gaps.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file =
        std::fs::read_to_string(format!("{root}/docs/reproductions/GAPS.md")).unwrap_or_default();
    assert!(
        file.as_bytes() == out.stdout.as_slice(),
        "docs/reproductions/GAPS.md is not what scripts/paper-gaps.py prints; regenerate it \
         with:\n    python3 scripts/paper-gaps.py > docs/reproductions/GAPS.md"
    );
}
