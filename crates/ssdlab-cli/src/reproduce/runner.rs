//! Runs many independent simulations over the machine's cores (std threads pulling from
//! one job list) with a progress bar on stderr. Each run is deterministic, so the
//! results do not depend on the number of threads or their interleaving.

use indicatif::{ProgressBar, ProgressStyle};
use ssdlab::{Report, SimConfig, SimError, Simulation};
use ssdlab_trace::{TraceOptions, TraceSource};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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

impl Run {
    /// Counter `name` of the report, 0 when it never counted.
    pub fn counter(&self, name: &str) -> u64 {
        self.report.counters.get(name).copied().unwrap_or(0)
    }
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
