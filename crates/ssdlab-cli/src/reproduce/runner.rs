//! Runs many independent simulations over the machine's cores (std threads pulling from
//! one job list) with a progress bar on stderr. Each run is deterministic, so the
//! results do not depend on the number of threads or their interleaving.

use super::BusModel;
use crate::Failure;
use anyhow::anyhow;
use indicatif::{ProgressBar, ProgressStyle};
use ssdlab::{Report, SimConfig, SimError, Simulation};
use ssdlab_trace::{TraceOptions, TraceSource};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// The trace file.
    pub trace: PathBuf,
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
pub fn run_keyed<K: Ord + Copy, T>(
    what: &str,
    traces: usize,
    bus: BusModel,
    jobs: Vec<(K, Job)>,
    threads: Option<usize>,
    keep: impl Fn(&Run) -> T,
) -> Result<Finished<K, T>, Failure> {
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    eprintln!(
        "{what}: {traces} traces, {} runs on {threads} threads, bus {}",
        jobs.len(),
        bus.name()
    );
    let (keys, jobs): (Vec<K>, Vec<Job>) = jobs.into_iter().unzip();
    let start = Instant::now();
    let runs = run_all(&jobs, threads);
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
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Run, String>>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let out = run_one(job).map_err(|e| format!("{}: {e}", job.label));
                if bar.is_hidden() {
                    eprintln!("[{}/{}] {}", i + 1, jobs.len(), job.label);
                } else {
                    bar.set_message(job.label.clone());
                    bar.inc(1);
                }
                results.lock().expect("no thread panicked")[i] = Some(out);
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
    let src = TraceSource::File {
        path: job.trace.clone(),
        options: TraceOptions::default(),
    };
    let stream = src.open().map_err(|e| e.to_string())?;
    let verify = job.cfg.verify;
    let mut sim =
        Simulation::new(job.cfg.clone(), stream, &src.describe()).map_err(|e| e.to_string())?;
    if sim.needs_warm_up() {
        let again = src.open().map_err(|e| e.to_string())?;
        sim.warm_up(again).map_err(|e| e.to_string())?;
    }
    sim.set_preset_name(job.preset);
    let mut mismatches = 0;
    match sim.run_to_end() {
        Ok(()) => {}
        Err(SimError::VerifyMismatch { .. }) => mismatches += 1,
        Err(e) => return Err(e.to_string()),
    }
    if verify && mismatches == 0 && sim.audit().is_err() {
        mismatches += 1;
    }
    if mismatches > 0 {
        return Ok(Run {
            mismatches,
            ..Run::default()
        });
    }
    let report = sim.into_report().map_err(|e| e.to_string())?;
    Ok(Run {
        report,
        mismatches: 0,
    })
}
