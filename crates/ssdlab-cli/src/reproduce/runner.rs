//! Runs many independent simulations over the machine's cores (std threads pulling from
//! one job list) with a progress bar on stderr. Each run is deterministic, so the
//! results do not depend on the number of threads or their interleaving.

use super::BusModel;
use crate::workload::synthetic_from_file;
use crate::Failure;
use anyhow::anyhow;
use indicatif::{ProgressBar, ProgressStyle};
use ssdlab::{Report, SimConfig, SimError, Simulation};
use ssdlab_stats::RequestLog;
use ssdlab_trace::{TraceOptions, TraceSource};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// One simulation to run.
pub struct Job {
    /// Shown in the progress display and in errors.
    pub label: String,
    /// The preset `cfg` was built from, for the report.
    pub preset: &'static str,
    /// The configuration.
    pub cfg: SimConfig,
    /// The trace file or synthetic workload.
    pub source: TraceSource,
}

/// The source of trace file `path`, read with the default options.
pub fn file(path: &Path) -> TraceSource {
    TraceSource::File {
        path: path.to_path_buf(),
        options: TraceOptions::default(),
    }
}

/// One finished run.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Everything the run measured; all zero when a mismatch stopped a verify run.
    pub report: Report,
    /// Reads or audited pages that disagreed with the content last written (verify runs).
    pub mismatches: u64,
}

/// The runs of an experiment, keyed as its jobs were, and what they took.
pub struct Finished<K, T> {
    /// What the experiment keeps of each run.
    pub results: BTreeMap<K, T>,
    /// Wall time of all runs, in seconds.
    pub wall_s: f64,
    /// Threads they ran on.
    pub threads: usize,
}

/// Runs an experiment's keyed jobs on `threads` threads (default: the machine's cores)
/// after announcing it on stderr as `what` over `traces` traces with `bus`, and keeps
/// what `keep` takes of each run. A run that fails is an internal error.
pub fn run_keyed<K: Ord + Copy + Sync, T>(
    what: &str,
    traces: usize,
    bus: BusModel,
    jobs: Vec<(K, Job)>,
    threads: Option<usize>,
    keep: impl Fn(&Run) -> T,
) -> Result<Finished<K, T>, Failure> {
    let threads = threads_or_cores(threads);
    eprintln!(
        "{what}: {traces} traces, {} runs on {threads} threads, bus {}",
        jobs.len(),
        bus.name()
    );
    run_keyed_by(jobs, threads, |_, job| run_one(job), keep)
}

/// `threads`, or the machine's cores.
pub fn threads_or_cores(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs keyed jobs on `threads` threads through `run` (given each job's key) and keeps
/// what `keep` takes of each outcome. A run that fails is an internal error.
pub fn run_keyed_by<K: Ord + Copy + Sync, R: Send, T>(
    jobs: Vec<(K, Job)>,
    threads: usize,
    run: impl Fn(&K, &Job) -> Result<R, String> + Sync,
    keep: impl Fn(&R) -> T,
) -> Result<Finished<K, T>, Failure> {
    let (keys, jobs): (Vec<K>, Vec<Job>) = jobs.into_iter().unzip();
    let start = Instant::now();
    let runs = run_all_by(&jobs, threads, |i, job| run(&keys[i], job));
    let wall_s = start.elapsed().as_secs_f64();
    let mut results = BTreeMap::new();
    for (k, run) in keys.into_iter().zip(runs) {
        let run = run.map_err(|e| Failure::internal(anyhow!(e)))?;
        results.insert(k, keep(&run));
    }
    Ok(Finished {
        results,
        wall_s,
        threads,
    })
}

/// Runs every job on `threads` threads; results in job order.
pub fn run_all(jobs: &[Job], threads: usize) -> Vec<Result<Run, String>> {
    run_all_by(jobs, threads, |_, job| run_one(job))
}

/// Runs every job on `threads` threads through `run` (given the job's index); results
/// in job order.
pub fn run_all_by<R: Send>(
    jobs: &[Job],
    threads: usize,
    run: impl Fn(usize, &Job) -> Result<R, String> + Sync,
) -> Vec<Result<R, String>> {
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(jobs.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed} (eta {eta}) {msg}")
                .expect("a valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let queue = ssdlab::sim::RunQueue::new(jobs.iter().map(|j| Some(&j.cfg)), threads);
    let results: Mutex<Vec<Option<Result<R, String>>>> =
        Mutex::new(jobs.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                while let Some(i) = queue.take() {
                    let job = &jobs[i];
                    let out = run(i, job).map_err(|e| format!("{}: {e}", job.label));
                    if bar.is_hidden() {
                        eprintln!("[{}/{}] {}", i + 1, jobs.len(), job.label);
                    } else {
                        bar.set_message(job.label.clone());
                        bar.inc(1);
                    }
                    results.lock().expect("no thread panicked")[i] = Some(out);
                }
            });
        }
    });
    bar.finish_and_clear();
    results
        .into_inner()
        .expect("no thread panicked")
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

fn run_one(job: &Job) -> Result<Run, String> {
    run_logged(job, false).map(|(run, _)| run)
}

/// The workload of `job`: its trace file, or the synthetic workload a `.toml` file
/// describes (`ssdlab run --synthetic-config`), checked.
pub fn source_of(path: &Path) -> Result<TraceSource, String> {
    if path.extension().is_some_and(|e| e == "toml") {
        let cfg = synthetic_from_file(path).map_err(|f| format!("{:#}", f.err))?;
        cfg.validate()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(TraceSource::Synthetic(cfg));
    }
    Ok(TraceSource::File {
        path: path.to_path_buf(),
        options: TraceOptions::default(),
    })
}

/// Runs `job`; with `keep_log`, also returns its per-request log (what
/// `--per-request-csv` writes, in completion order).
pub fn run_logged(job: &Job, keep_log: bool) -> Result<(Run, Option<RequestLog>), String> {
    let src = &job.source;
    let verify = job.cfg.verify;
    let mut sim = Simulation::on_trace(job.cfg.clone(), || src.open(), &src.describe())
        .map_err(|e| e.to_string())?;
    sim.set_preset_name(job.preset);
    if keep_log {
        sim.keep_request_log();
    }
    let mut mismatches = 0;
    match sim.run_to_end() {
        Ok(()) => {}
        Err(SimError::VerifyMismatch { .. } | SimError::MapMismatch { .. }) => mismatches += 1,
        Err(e) => return Err(e.to_string()),
    }
    if verify && mismatches == 0 {
        match sim.audit_changes() {
            Ok(_) => {}
            Err(e @ SimError::Stuck { .. }) => return Err(e.to_string()),
            Err(_) => mismatches += 1,
        }
    }
    if mismatches > 0 {
        let run = Run {
            mismatches,
            ..Run::default()
        };
        return Ok((run, None));
    }
    let log = sim.take_request_log();
    let report = sim.into_report().map_err(|e| e.to_string())?;
    let run = Run {
        report,
        mismatches: 0,
    };
    Ok((run, log))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab::ConfigBuilder;

    fn job(sets: &[&str]) -> Job {
        let mut b = ConfigBuilder::new().preset("dgc").unwrap();
        for s in sets {
            b = b.set(s).unwrap();
        }
        Job {
            label: sets.join(" "),
            preset: "dgc",
            cfg: b.build().unwrap(),
            source: file(Path::new("unused.csv")),
        }
    }

    /// Runs of one aged device start together, at the place of the first; runs on
    /// devices of their own keep their places. On two threads, two devices' first runs
    /// start first, so that both are prepared at once.
    #[test]
    fn runs_of_one_device_start_together() {
        let g4 = "raid.group_size=4";
        let fresh = "ftl.precondition.overwrite_ratio=0";
        let jobs = [
            job(&[]),
            job(&[g4]),
            job(&[fresh]),
            job(&["ftl.gc.trigger=\"eager\""]),
            job(&[fresh]),
            job(&[g4, "dgc.enabled=true"]),
            job(&["host.time_scale=0.5"]),
        ];
        let order = |threads| ssdlab::sim::device_order(jobs.iter().map(|j| Some(&j.cfg)), threads);
        assert_eq!(order(1), [0, 3, 6, 1, 5, 2, 4]);
        assert_eq!(order(2), [0, 1, 3, 6, 5, 2, 4]);
    }
}
