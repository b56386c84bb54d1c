//! `ssdlab sweep`: the cross product of a grid of `--set` values, traces and seeds, run
//! on this machine's cores, into one table (one row per point), written as CSV or, for
//! an output file named `*.parquet`, as Parquet (see [`crate::table`]).
//!
//! The table has the same columns as the Python package's `ssdlab.sweep` DataFrame:
//! the grid's keys, `trace`, `seed`, `status`, `error`, then the JSON report flattened
//! to dotted names (`response.all.mean_ns`, `transactions.host-read.count`, …), with
//! the wall-clock time left out so that the table depends only on its points.

use crate::args::SweepArgs;
use crate::table::{Cell, Format, Table};
use crate::{build_config, simulate, Failure};
use anyhow::anyhow;
use ssdlab::SimConfig;
use ssdlab_trace::{TraceOptions, TraceSource};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The grid file: `[grid]` maps configuration keys, as `--set` names them, to lists of
/// values, e.g. `"scheduler.chip_queue_depth" = [4, 8, 16]`.
fn read_grid(path: &Path) -> Result<Vec<(String, Vec<toml::Value>)>, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::input(anyhow!("--grid {}: {e}", path.display())))?;
    let doc: toml::Table = text
        .parse()
        .map_err(|e| Failure::input(anyhow!("--grid {}: {e}", path.display())))?;
    let mut grid = Vec::new();
    for (k, v) in doc {
        if k != "grid" {
            return Err(Failure::input(anyhow!(
                "--grid {}: unknown key `{k}`; the file holds one [grid] table",
                path.display()
            )));
        }
        let toml::Value::Table(t) = v else {
            return Err(Failure::input(anyhow!(
                "--grid {}: `grid` must be a table of KEY = [values]",
                path.display()
            )));
        };
        for (key, values) in t {
            let toml::Value::Array(values) = values else {
                return Err(Failure::input(anyhow!(
                    "--grid {}: key `grid.\"{key}\"`: expected a list of values",
                    path.display()
                )));
            };
            if values.is_empty() {
                return Err(Failure::input(anyhow!(
                    "--grid {}: key `grid.\"{key}\"`: the list is empty",
                    path.display()
                )));
            }
            grid.push((key, values));
        }
    }
    Ok(grid)
}

/// One point: values for the grid's keys, a trace, an optional seed.
struct Point {
    values: Vec<toml::Value>,
    trace: PathBuf,
    seed: Option<u64>,
}

/// The points in order: grid (first key slowest) × traces × seeds.
fn points(
    grid: &[(String, Vec<toml::Value>)],
    traces: &[PathBuf],
    seeds: &[Option<u64>],
) -> Vec<Point> {
    let mut combos: Vec<Vec<toml::Value>> = vec![Vec::new()];
    for (_, values) in grid {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push(v.clone());
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for c in combos {
        for t in traces {
            for &s in seeds {
                out.push(Point {
                    values: c.clone(),
                    trace: t.clone(),
                    seed: s,
                });
            }
        }
    }
    out
}

/// The report as one flat row (same rules as the Python package's `flatten`).
pub fn flatten(report: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    fn walk(prefix: String, v: &serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
        let join = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        };
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    walk(join(k), x, out);
                }
            }
            serde_json::Value::Array(a)
                if a.iter()
                    .all(|x| x.get("reason").is_some_and(|r| r.is_string())) =>
            {
                for x in a {
                    let reason = x["reason"].as_str().unwrap_or_default();
                    if let serde_json::Value::Object(m) = x {
                        for (k, y) in m.iter().filter(|(k, _)| *k != "reason") {
                            walk(format!("{}.{k}", join(reason)), y, out);
                        }
                    }
                }
            }
            other => out.push((prefix, other.clone())),
        }
    }
    let mut out = Vec::new();
    if let serde_json::Value::Object(m) = report {
        for (k, v) in m {
            match k.as_str() {
                "wall_time_ns" => {}
                "meta" => {
                    for f in ["config_hash", "scheduler"] {
                        out.push((format!("meta.{f}"), v[f].clone()));
                    }
                }
                _ => walk(k.clone(), v, &mut out),
            }
        }
    }
    out
}

/// A point's flattened report, or why it failed.
type PointResult = Result<Vec<(String, serde_json::Value)>, String>;

/// The configuration of point `p`.
fn point_config(
    args: &SweepArgs,
    grid: &[(String, Vec<toml::Value>)],
    p: &Point,
) -> Result<SimConfig, Failure> {
    let sets: Vec<String> = grid
        .iter()
        .zip(&p.values)
        .map(|((k, _), v)| format!("{k}={v}"))
        .collect();
    let mut device = args.device.clone();
    if p.seed.is_some() {
        device.seed = p.seed;
    }
    build_config(&device, &sets)
}

/// Runs point `p` with its configuration `cfg`; a failure is a result, not an error of
/// the sweep.
fn run_point(args: &SweepArgs, cfg: SimConfig, p: &Point, shown: crate::Shown) -> PointResult {
    let src = TraceSource::File {
        path: p.trace.clone(),
        options: TraceOptions {
            format: args.format,
            ..TraceOptions::default()
        },
    };
    let report = simulate(cfg, &src, args.device.preset.as_deref(), None, shown)
        .map_err(|f| format!("{:#}", f.err))?;
    let json: serde_json::Value =
        serde_json::from_str(&report.to_json()).map_err(|e| format!("report as JSON: {e}"))?;
    Ok(flatten(&json))
}

/// `ssdlab sweep`.
pub fn cmd_sweep(args: &SweepArgs) -> Result<(), Failure> {
    let grid = read_grid(&args.grid)?;
    if args.traces.is_empty() {
        return Err(Failure::input(anyhow!(
            "sweep needs at least one --traces FILE"
        )));
    }
    // Every point's configuration is checked before anything runs: a typo in the grid
    // or the device flags is an error of the command, not a column of failed points.
    let seeds: Vec<Option<u64>> = if args.seeds.is_empty() {
        vec![None]
    } else {
        args.seeds.iter().copied().map(Some).collect()
    };
    let pts = points(&grid, &args.traces, &seeds);
    let cfgs = pts
        .iter()
        .map(|p| point_config(args, &grid, p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = crate::create_output("--out", &args.out)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // Points on one aged device run one after the other, so that it is prepared once.
    let queue = ssdlab::sim::RunQueue::new(cfgs.iter().map(Some), jobs);
    let runs = crate::progress::Runs::new(pts.len(), "points");
    let results: Mutex<BTreeMap<usize, PointResult>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(pts.len()) {
            s.spawn(|| {
                while let Some(i) = queue.take() {
                    let shown = crate::Shown::Callback(runs.callback(i));
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_point(args, cfgs[i].clone(), &pts[i], shown)
                    }))
                    .unwrap_or_else(|_| Err("internal error: the simulation panicked".into()));
                    let requests = r
                        .as_ref()
                        .ok()
                        .and_then(|m| m.iter().find(|(k, _)| k == "requests.all"))
                        .and_then(|(_, v)| v.as_f64())
                        .map_or(0, |v| v as u64);
                    if let Ok(mut m) = results.lock() {
                        m.insert(i, r);
                    }
                    runs.done(i, requests);
                }
            });
        }
    });
    runs.finish();
    let results = results
        .into_inner()
        .map_err(|_| Failure::internal(anyhow!("a sweep thread panicked")))?;
    // Columns: parameters, trace, seed, status, error, then every metric in the order
    // first seen.
    let mut metric_cols: Vec<String> = Vec::new();
    for r in results.values().flatten() {
        for (k, _) in r {
            if !metric_cols.contains(k) {
                metric_cols.push(k.clone());
            }
        }
    }
    let mut header: Vec<String> = grid.iter().map(|(k, _)| k.clone()).collect();
    header.extend(["trace", "seed", "status", "error"].map(String::from));
    header.extend(metric_cols.iter().cloned());
    let mut rows = Vec::with_capacity(pts.len());
    let mut failed = 0;
    for (i, p) in pts.iter().enumerate() {
        let mut row: Vec<Cell> = p.values.iter().map(Cell::toml).collect();
        row.push(Cell::text(p.trace.display().to_string()));
        row.push(p.seed.map_or_else(Cell::null, |s| match i64::try_from(s) {
            Ok(s) => Cell::int(s),
            Err(_) => Cell::text(s.to_string()),
        }));
        match results.get(&i) {
            Some(Ok(m)) => {
                row.push(Cell::text("ok"));
                row.push(Cell::null());
                let m: BTreeMap<&str, &serde_json::Value> =
                    m.iter().map(|(k, v)| (k.as_str(), v)).collect();
                for c in &metric_cols {
                    row.push(m.get(c.as_str()).map_or_else(Cell::null, |v| Cell::json(v)));
                }
            }
            other => {
                failed += 1;
                row.push(Cell::text("error"));
                row.push(Cell::text(match other {
                    Some(Err(e)) => e.clone(),
                    _ => "the point did not run".into(),
                }));
                row.extend(metric_cols.iter().map(|_| Cell::null()));
            }
        }
        rows.push(row);
    }
    let table = Table { header, rows };
    let written = match Format::of(&args.out) {
        Format::Csv => out
            .write_all(table.to_csv().as_bytes())
            .map_err(|e| e.to_string()),
        Format::Parquet => table.write_parquet(&mut out).map_err(|e| e.to_string()),
    };
    written.map_err(|e| Failure::input(anyhow!("--out {}: {e}", args.out.display())))?;
    eprintln!(
        "sweep: {} points ({failed} failed) written to {}",
        pts.len(),
        args.out.display()
    );
    Ok(())
}
