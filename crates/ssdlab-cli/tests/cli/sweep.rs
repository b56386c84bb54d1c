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
}

/// The same sweep written as Parquet holds the CSV's columns and values, typed.
#[test]
fn sweep_writes_parquet_with_the_csv_columns() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let t = trace("msr/hm_0-head200.csv.gz");
    let grid = tmp_file(
        "sweep-grid4.toml",
        "[grid]\n\"scheduler.chip_queue_depth\" = [2, 8]\n",
    );
    let (csv, pq) = (out_path("sweep4.csv"), out_path("sweep4.parquet"));
    for out in [&csv, &pq] {
        ssdlab([
            "sweep", "--preset", "default", "--grid", &grid, "--traces", &t, "--seeds", "3",
            "--out", out,
        ])
        .assert_ok();
    }
    let rows = read_csv(&csv);
    let file = std::fs::File::open(&pq).unwrap();
    let reader = SerializedFileReader::new(file).unwrap();
    let table: Vec<Vec<(String, Field)>> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(k, f)| (k.clone(), f.clone()))
                .collect()
        })
        .collect();
    assert_eq!(table.len(), rows.len());
    for (pq_row, csv_row) in table.iter().zip(&rows) {
        assert_eq!(pq_row.len(), csv_row.len());
        for (name, field) in pq_row {
            let text = &csv_row[name];
            match field {
                Field::Null => assert_eq!(text, "", "{name}"),
                Field::Str(s) => assert_eq!(s, text, "{name}"),
                Field::Long(i) => assert_eq!(&i.to_string(), text, "{name}"),
                Field::Double(d) => assert_eq!(*d, text.parse::<f64>().unwrap(), "{name}"),
                Field::Bool(b) => assert_eq!(&b.to_string(), text, "{name}"),
                other => panic!("{name}: unexpected {other:?}"),
            }
        }
    }
    let get = |name: &str| &table[1].iter().find(|(k, _)| k == name).unwrap().1;
    assert_eq!(get("scheduler.chip_queue_depth"), &Field::Long(8));
    assert_eq!(get("seed"), &Field::Long(3));
    assert_eq!(get("status"), &Field::Str("ok".into()));
    assert_eq!(get("error"), &Field::Null);
    assert!(matches!(get("response.all.mean_ns"), Field::Double(_)));
}
