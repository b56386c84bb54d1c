//! `ssdlab sweep`: a grid over one trace, checked point by point against `ssdlab run`.

use crate::{out_path, read_json, ssdlab, tmp_file, trace};

/// The CSV as rows of (column → cell); cells hold no quotes in these tests.
fn read_csv(path: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn sweep_rows_match_single_runs() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let grid = tmp_file(
        "sweep-grid.toml",
        "[grid]\n\"scheduler.name\" = [\"async-fifo\", \"sync-fifo\"]\n\"scheduler.chip_queue_depth\" = [2, 8]\n",
    );
    let out = out_path("sweep.csv");
    ssdlab([
        "sweep", "--preset", "default", "--grid", &grid, "--traces", &t, "--out", &out, "--jobs",
        "2",
    ])
    .assert_ok();
    let rows = read_csv(&out);
    assert_eq!(rows.len(), 4);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["status"], "ok", "row {i}: {}", row["error"]);
        let json = out_path(&format!("sweep-{i}.json"));
        let depth = format!(
            "scheduler.chip_queue_depth={}",
            row["scheduler.chip_queue_depth"]
        );
        ssdlab([
            "run",
            "--preset",
            "default",
            "--trace",
            &t,
            "--scheduler",
            &row["scheduler.name"],
            "--set",
            &depth,
            "--json",
            &json,
        ])
        .assert_ok();
        let report = read_json(&json);
        assert_eq!(
            row["response.all.mean_ns"],
            report["response"]["all"]["mean_ns"].to_string()
        );
        assert_eq!(row["erases"], report["erases"].to_string());
        assert_eq!(row["meta.scheduler"], row["scheduler.name"]);
    }
    assert_eq!(rows[0]["scheduler.name"], "async-fifo");
    assert_eq!(rows[3]["scheduler.chip_queue_depth"], "8");
}

#[test]
fn sweep_failed_points_are_rows_and_bad_grids_are_errors() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let grid = tmp_file(
        "sweep-grid2.toml",
        "[grid]\n\"scheduler.chip_queue_depth\" = [4]\n",
    );
    let out = out_path("sweep2.csv");
    ssdlab([
        "sweep",
        "--preset",
        "default",
        "--grid",
        &grid,
        "--traces",
        &format!("{t},/nonexistent/t.csv"),
        "--out",
        &out,
    ])
    .assert_ok();
    let rows = read_csv(&out);
    assert_eq!(rows[0]["status"], "ok");
    assert_eq!(rows[1]["status"], "error");
    assert!(
        rows[1]["error"].contains("/nonexistent/t.csv"),
        "{:?}",
        rows[1]
    );

    let typo = tmp_file(
        "sweep-grid3.toml",
        "[grid]\n\"scheduler.queue_dpeth\" = [4]\n",
    );
    ssdlab([
        "sweep", "--preset", "default", "--grid", &typo, "--traces", &t, "--out", &out,
    ])
    .assert_input_error(&["scheduler.queue_dpeth"]);
    let parquet = out_path("sweep.parquet");
    ssdlab([
        "sweep", "--preset", "default", "--grid", &grid, "--traces", &t, "--out", &parquet,
    ])
    .assert_input_error(&["CSV"]);
}
