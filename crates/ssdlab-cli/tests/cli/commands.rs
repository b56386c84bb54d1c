//! The other subcommands: compare, trace info, config show/list, demo, bench.

use crate::{json_u64, out_path, read_json, ssdlab, tmp_dir, trace, PRESETS};

/// The number after `key: ` in `trace info` output.
fn info_value<'a>(stdout: &'a str, key: &str) -> &'a str {
    let prefix = format!("{key}: ");
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{key}:` line in\n{stdout}"))
        .trim()
}

#[test]
fn compare_two_schedulers() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let dir = tmp_dir().join("cmd-compare-json");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_s = dir.display().to_string();
    let run = ssdlab([
        "compare",
        "--preset",
        "default",
        "--trace",
        &t,
        "--schedulers",
        "async-fifo,sync-fifo",
        "--json-dir",
        &dir_s,
    ]);
    run.assert_ok()
        .assert_stdout_has(&["async-fifo", "sync-fifo", "1.00×", "mean response"]);
    // The first variant is the baseline: every metric row is normalized to it.
    let header = run.stdout.lines().next().unwrap();
    let (a, s) = (
        header.find("async-fifo").unwrap(),
        header.find("sync-fifo").unwrap(),
    );
    assert!(a < s, "variants out of order: {header}");
    for line in run.stdout.lines().skip(2).filter(|l| !l.trim().is_empty()) {
        assert!(
            line.contains("(1.00×)"),
            "row not normalized to the first variant: {line}"
        );
    }
    // One JSON report per variant, in order.
    for (i, name) in ["async-fifo", "sync-fifo"].iter().enumerate() {
        let r = read_json(&dir.join(format!("run-{i}.json")).display().to_string());
        assert_eq!(r["meta"]["scheduler"], *name, "run-{i}.json");
        assert_eq!(json_u64(&r, &["requests", "all"]), 200);
    }
}

#[test]
fn compare_variants_by_override() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "compare",
        "--preset",
        "default",
        "--trace",
        &t,
        "--variant",
        "scheduler.chip_queue_depth=1",
        "--variant",
        "scheduler.chip_queue_depth=64",
    ])
    .assert_ok()
    .assert_stdout_has(&[
        "scheduler.chip_queue_depth=1",
        "scheduler.chip_queue_depth=64",
        "1.00×",
    ]);
}

#[test]
fn trace_info_on_fiu() {
    let t = trace("fiu/mail-cheetah-10k.fiu.gz");
    let run = ssdlab(["trace", "info", &t]);
    run.assert_ok();
    let out = &run.stdout;
    assert_eq!(info_value(out, "format"), "fiu");
    assert_eq!(info_value(out, "requests"), "9998");
    let read_ratio: f64 = info_value(out, "read_ratio").parse().unwrap();
    assert!(
        (0.88..0.90).contains(&read_ratio),
        "read_ratio {read_ratio}"
    );
    assert_eq!(info_value(out, "content_known"), "true");
    let dup: f64 = info_value(out, "duplicate_write_ratio")
        .parse()
        .expect("FIU carries content, so a duplicate ratio is known");
    assert!(dup > 0.0 && dup < 1.0, "duplicate_write_ratio {dup}");
}

#[test]
fn trace_info_on_msr() {
    let t = trace("msr/wdev_3.csv.gz");
    let run = ssdlab(["trace", "info", &t]);
    run.assert_ok();
    assert_eq!(info_value(&run.stdout, "format"), "msr");
    assert_eq!(info_value(&run.stdout, "requests"), "682");
    assert_eq!(info_value(&run.stdout, "content_known"), "false");
}

#[test]
fn trace_info_counts_skipped_lines() {
    let p = crate::tmp_file(
        "cmd-info-skip.csv",
        &format!("{ok}\nnot,a,line\n{ok}\n", ok = crate::MSR_OK),
    );
    let run = ssdlab(["trace", "info", &p, "--skip-bad-lines"]);
    run.assert_ok();
    assert_eq!(info_value(&run.stdout, "requests"), "2");
    assert_eq!(info_value(&run.stdout, "skipped_lines"), "1");
}

#[test]
fn trace_info_counts_flushes_and_fua_writes() {
    let p = crate::tmp_file(
        "cmd-info-flush.blkparse",
        "8,0 1 1 0.1 697 D WS 100 + 8 [kworker]\n\
         8,0 1 2 0.2 697 D FWS [jbd2/sda1-8]\n\
         8,0 1 3 0.3 697 D FWFS 200 + 8 [jbd2/sda1-8]\n",
    );
    let run = ssdlab(["trace", "info", &p]);
    run.assert_ok();
    let out = &run.stdout;
    assert_eq!(info_value(out, "format"), "blkparse");
    assert_eq!(info_value(out, "requests"), "2");
    assert_eq!(info_value(out, "flushes"), "2");
    assert_eq!(info_value(out, "fua_writes"), "1");
    let cfg = crate::tmp_file(
        "cmd-info-flush.toml",
        "requests = 1000\nread_ratio = 0.0\nflush_every = 10\nfua_ratio = 1.0\n",
    );
    let run = ssdlab(["trace", "info", "--synthetic-config", &cfg]);
    run.assert_ok();
    assert_eq!(info_value(&run.stdout, "flushes"), "100");
    assert_eq!(info_value(&run.stdout, "fua_writes"), "1000");
}

#[test]
fn config_list_shows_every_preset() {
    let run = ssdlab(["config", "list"]);
    run.assert_ok();
    let names: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, PRESETS, "\n{}", run.stdout);
}

#[test]
fn config_show_output_is_a_valid_config_file() {
    let t = trace("msr/hm_0-head200.csv.gz");
    for preset in PRESETS {
        let shown = ssdlab(["config", "show", preset]);
        shown
            .assert_ok()
            .assert_stdout_has(&["[geometry]", "[scheduler]"]);
        let file = tmp_dir().join(format!("cmd-show-{preset}.toml"));
        std::fs::write(&file, &shown.stdout).unwrap();
        let file = file.display().to_string();

        // Preconditioning a full-size preset is slow in a debug build and does not
        // change what is checked: the file resolves to the preset's configuration.
        let no_pre = "ftl.precondition.enabled=false";
        let from_file = out_path(&format!("cmd-show-{preset}-file.json"));
        ssdlab([
            "run", "--config", &file, "--set", no_pre, "--trace", &t, "--json", &from_file,
        ])
        .assert_ok();
        let from_preset = out_path(&format!("cmd-show-{preset}-preset.json"));
        ssdlab([
            "run",
            "--preset",
            preset,
            "--set",
            no_pre,
            "--trace",
            &t,
            "--json",
            &from_preset,
        ])
        .assert_ok();
        let (f, p) = (read_json(&from_file), read_json(&from_preset));
        assert_eq!(
            f["meta"]["config_hash"], p["meta"]["config_hash"],
            "`config show {preset}` does not resolve to the preset"
        );
        assert_eq!(f["response"], p["response"], "{preset}");
    }
}

#[test]
fn config_show_default_runs_as_is() {
    let shown = ssdlab(["config", "show", "default"]);
    shown.assert_ok();
    let file = tmp_dir().join("cmd-show-default-as-is.toml");
    std::fs::write(&file, &shown.stdout).unwrap();
    let file = file.display().to_string();
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab(["run", "--config", &file, "--trace", &t])
        .assert_ok()
        .assert_stdout_has(&["async-fifo", "Response time"]);
}

#[test]
fn demo_compares_the_two_fifo_schedulers() {
    ssdlab(["demo"]).assert_ok().assert_stdout_has(&[
        "async-fifo",
        "sync-fifo",
        "1.00×",
        "synthetic",
    ]);
}

#[test]
fn bench_reports_the_request_count() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let json = out_path("cmd-bench.json");
    let run = ssdlab([
        "bench", "--preset", "default", "--trace", &t, "--json", &json,
    ]);
    run.assert_ok();
    assert_eq!(info_value(&run.stdout, "host requests"), "200");
    assert_eq!(json_u64(&read_json(&json), &["requests", "all"]), 200);
}

#[test]
fn bench_appends_one_json_line_per_run_with_the_flash_work_of_its_report() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let json = out_path("cmd-bench-line.json");
    let lines = out_path("cmd-bench-lines.jsonl");
    let _ = std::fs::remove_file(&lines);
    for label in ["first", "second"] {
        ssdlab([
            "bench", "--preset", "default", "--trace", &t, "--json", &json, "--jsonl", &lines,
            "--label", label,
        ])
        .assert_ok()
        .assert_stdout_has(&["whole process:"]);
    }
    let text = std::fs::read_to_string(&lines).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0]["label"], "first");
    assert_eq!(rows[1]["label"], "second");
    let report = read_json(&json);
    let row = &rows[1];
    assert_eq!(row["host_requests"], 200);
    assert_eq!(
        row["flash_work"]["programs"], report["programmed_pages"],
        "{row}"
    );
    let reads: u64 = report["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"].as_str().unwrap().ends_with("read"))
        .map(|t| t["pages"].as_u64().unwrap())
        .sum();
    assert_eq!(row["flash_work"]["page_reads"], reads);
    let f = |k: &str| row[k].as_f64().unwrap();
    assert!(
        f("whole_process_s") >= f("setup_s") + f("simulation_s"),
        "{row}"
    );
    assert_eq!(row["device_pages"], 8 * 1024 * 1024, "the default device");
}
