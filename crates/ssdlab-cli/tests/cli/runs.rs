//! Successful runs: determinism, verify mode with GC, the per-request CSV, the
//! synthetic workload and the output files.

use crate::{
    json_u64, out_path, read_json, read_report, ssdlab, tmp_dir, tmp_file, trace, SMALL_DEVICE,
};
use ssdlab_stats::Counter;

/// Requests in `msr/wdev_3.csv.gz` (one per data line).
const WDEV_3_REQUESTS: u64 = 682;

/// `ssdlab run --preset default --trace hm_0-slice7016 --seed SEED ARGS... --json OUT`,
/// which must succeed; returns the bytes of the JSON report.
fn slice_json(out: &str, seed: &str, args: &[&str]) -> Vec<u8> {
    let t = trace("msr/hm_0-slice7016.csv.gz");
    let json = out_path(out);
    let mut all = vec![
        "run", "--preset", "default", "--trace", &t, "--seed", seed, "--json", &json,
    ];
    all.extend_from_slice(args);
    ssdlab(all).assert_ok();
    std::fs::read(&json).unwrap()
}

/// The report without its `meta` section (seed, config hash, …): the simulated results.
fn results(bytes: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    v.as_object_mut().unwrap().remove("meta");
    v
}

#[test]
fn same_seed_gives_identical_json() {
    let a = slice_json("runs-det-a.json", "5", &[]);
    let b = slice_json("runs-det-b.json", "5", &[]);
    assert!(a == b, "two runs with seed 5 wrote different JSON reports");
    assert_eq!(json_u64(&results(&a), &["requests", "all"]), 7016);
}

#[test]
fn seed_changes_preconditioned_results() {
    let pre = ["--set", "ftl.precondition.enabled=true"];
    let five = slice_json("runs-seed-5.json", "5", &pre);
    let six = slice_json("runs-seed-6.json", "6", &pre);
    assert_ne!(five, six);
    // Not only the recorded seed: the simulated results differ.
    let (five, six) = (results(&five), results(&six));
    assert!(
        five != six,
        "seeds 5 and 6 gave the same results with preconditioning"
    );
    assert!(json_u64(&five, &["gc_runs"]) > 0);
}

/// A preconditioned, verified run on the small device; returns the JSON report path.
fn small_device_gc_run(json_name: &str, csv_name: Option<&str>) -> String {
    let t = trace("msr/hm_0-slice7016.csv.gz");
    let json = out_path(json_name);
    let mut args: Vec<String> = SMALL_DEVICE.iter().map(|s| s.to_string()).collect();
    args.extend(
        [
            "--set",
            "ftl.precondition.enabled=true",
            "--seed",
            "3",
            "--verify",
            "--trace",
            &t,
            "--json",
            &json,
        ]
        .map(String::from),
    );
    if let Some(csv) = csv_name {
        args.extend(["--per-request-csv".to_string(), out_path(csv)]);
    }
    ssdlab(std::iter::once("run".to_string()).chain(args)).assert_ok();
    json
}

#[test]
fn verify_with_gc_active() {
    let json = small_device_gc_run("runs-verify.json", None);
    let verified = read_report(&json).counter(Counter::VerifiedReads);
    let r = read_json(&json);
    assert!(verified > 0, "{r:#}");
    assert!(json_u64(&r, &["gc_runs"]) > 0, "{r:#}");
    assert!(json_u64(&r, &["erases"]) > 0, "{r:#}");
    assert!(json_u64(&r, &["gc_pages_moved"]) > 0, "{r:#}");
    assert_eq!(json_u64(&r, &["requests", "all"]), 7016);
}

#[test]
fn gc_runs_are_deterministic_too() {
    let a = small_device_gc_run("runs-gc-det-a.json", Some("runs-gc-det-a.csv"));
    let b = small_device_gc_run("runs-gc-det-b.json", Some("runs-gc-det-b.csv"));
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    let csv = |p: &str| std::fs::read(tmp_dir().join(p)).unwrap();
    assert!(csv("runs-gc-det-a.csv") == csv("runs-gc-det-b.csv"));
}

/// One data line of the per-request CSV, by column name.
struct CsvRow<'a> {
    header: &'a [&'a str],
    fields: Vec<&'a str>,
}

impl CsvRow<'_> {
    fn u64(&self, col: &str) -> u64 {
        let i = self.header.iter().position(|h| *h == col).unwrap();
        self.fields[i]
            .parse()
            .unwrap_or_else(|e| panic!("{col} = {:?}: {e}", self.fields[i]))
    }
    fn str(&self, col: &str) -> &str {
        let i = self.header.iter().position(|h| *h == col).unwrap();
        self.fields[i]
    }
}

#[test]
fn per_request_csv_has_one_line_per_request() {
    let t = trace("msr/wdev_3.csv.gz");
    let csv = out_path("runs-per-request.csv");
    let json = out_path("runs-per-request.json");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--per-request-csv",
        &csv,
        "--json",
        &json,
    ])
    .assert_ok();
    let report = read_json(&json);
    assert_eq!(json_u64(&report, &["requests", "all"]), WDEV_3_REQUESTS);

    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header line").split(',').collect();
    for col in [
        "id",
        "op",
        "arrival_ns",
        "completion_ns",
        "response_ns",
        "waiting_ns",
        "service_ns",
    ] {
        assert!(header.contains(&col), "no column {col} in {header:?}");
    }
    let rows: Vec<CsvRow> = lines
        .map(|l| CsvRow {
            header: &header,
            fields: l.split(',').collect(),
        })
        .collect();
    assert_eq!(rows.len() as u64, WDEV_3_REQUESTS);

    let mut ids = Vec::new();
    let (mut reads, mut writes) = (0, 0);
    for (n, row) in rows.iter().enumerate() {
        assert_eq!(row.fields.len(), header.len(), "line {}", n + 2);
        let (arrival, completion) = (row.u64("arrival_ns"), row.u64("completion_ns"));
        assert!(completion >= arrival, "line {}", n + 2);
        assert_eq!(
            row.u64("response_ns"),
            completion - arrival,
            "line {}",
            n + 2
        );
        assert_eq!(
            row.u64("waiting_ns") + row.u64("service_ns"),
            row.u64("response_ns"),
            "line {}",
            n + 2
        );
        match row.str("op") {
            "read" => reads += 1,
            "write" => writes += 1,
            other => panic!("line {}: op {other:?}", n + 2),
        }
        ids.push(row.u64("id"));
    }
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..WDEV_3_REQUESTS),
        "request ids are not 0..{WDEV_3_REQUESTS}, each once"
    );
    assert_eq!(reads, json_u64(&report, &["requests", "read"]));
    assert_eq!(writes, json_u64(&report, &["requests", "write"]));
}

#[test]
fn repeat_replays_the_trace_again() {
    let t = trace("msr/wdev_3.csv.gz");
    let csv = out_path("runs-repeat.csv");
    let json = out_path("runs-repeat.json");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--repeat",
        "2",
        "--per-request-csv",
        &csv,
        "--json",
        &json,
    ])
    .assert_ok();
    assert_eq!(
        json_u64(&read_json(&json), &["requests", "all"]),
        2 * WDEV_3_REQUESTS
    );
    let lines = std::fs::read_to_string(&csv).unwrap().lines().count() as u64;
    assert_eq!(lines, 1 + 2 * WDEV_3_REQUESTS);
}

#[test]
fn synthetic_workload_runs() {
    let json = out_path("runs-synthetic.json");
    ssdlab(["run", "--preset", "default", "--synthetic", "--json", &json])
        .assert_ok()
        .assert_stdout_has(&["synthetic", "async-fifo"]);
    assert_eq!(json_u64(&read_json(&json), &["requests", "all"]), 100_000);
}

#[test]
fn synthetic_config_file_runs() {
    let cfg = tmp_file(
        "runs-synthetic.toml",
        "requests = 500\nread_ratio = 0.5\nseed = 9\n[address]\nkind = \"sequential\"\n",
    );
    let json = out_path("runs-synthetic-config.json");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--synthetic-config",
        &cfg,
        "--json",
        &json,
    ])
    .assert_ok()
    .assert_stdout_has(&["500 requests", "sequential"]);
    assert_eq!(json_u64(&read_json(&json), &["requests", "all"]), 500);
}

#[test]
fn the_msnfs4_example_runs_on_the_paq_preset() {
    let cfg = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/synthetic/msnfs4.toml"
    );
    let json = out_path("runs-msnfs4.json");
    ssdlab([
        "run",
        "--preset",
        "paq",
        "--synthetic-config",
        cfg,
        "--json",
        &json,
    ])
    .assert_ok()
    .assert_stdout_has(&["reads 512-4096 B uniform", "writes 8192 B sequential"]);
    let report = read_json(&json);
    assert_eq!(json_u64(&report, &["requests", "all"]), 4352);
    let reads = json_u64(&report, &["requests", "read"]) as f64 / 4352.0;
    assert!((reads - 0.078).abs() < 0.015, "{reads}");
}

#[test]
fn json_to_a_missing_directory_fails_naming_the_path() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let json = tmp_dir().join("runs-no-such-dir").join("report.json");
    let json = json.display().to_string();
    let run = ssdlab(["run", "--preset", "default", "--trace", &t, "--json", &json]);
    assert_ne!(run.code, Some(0), "{}", run.describe());
    run.assert_no_panic().assert_stderr_has(&[&json]);
}

#[test]
fn json_to_a_directory_fails_naming_the_path() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let dir = tmp_dir().display().to_string();
    let run = ssdlab(["run", "--preset", "default", "--trace", &t, "--json", &dir]);
    assert_ne!(run.code, Some(0), "{}", run.describe());
    run.assert_no_panic().assert_stderr_has(&[&dir]);
}

#[test]
fn per_request_csv_to_a_missing_directory_fails_naming_the_path() {
    let t = trace("msr/hm_0-head200.csv.gz");
    let csv = tmp_dir().join("runs-no-such-dir").join("requests.csv");
    let csv = csv.display().to_string();
    let run = ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--per-request-csv",
        &csv,
    ]);
    assert_ne!(run.code, Some(0), "{}", run.describe());
    run.assert_no_panic().assert_stderr_has(&[&csv]);
}

#[test]
fn run_prints_the_report_table() {
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--scheduler",
        "sync-fifo",
        "--seed",
        "7",
    ])
    .assert_ok()
    .assert_stdout_has(&[
        "hm_0-head200.csv.gz",
        "sync-fifo",
        "preset",
        "default",
        "seed",
        "7",
        "Response time",
        "Counters",
    ]);
}
