//! Runs many independent simulations over the machine's cores (std threads pulling from
//! one job list) with a progress bar on stderr. Each run is deterministic, so the
//! results do not depend on the number of threads or their interleaving.

use indicatif::{ProgressBar, ProgressStyle};
use ssdlab::{SimConfig, SimError, Simulation};
use ssdlab_trace::{TraceOptions, TraceSource};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One simulation to run.
pub struct Job {
    /// Shown in the progress display.
    pub label: String,
    /// The configuration.
    pub cfg: SimConfig,
    /// The trace file.
    pub trace: PathBuf,
}

/// What the experiment keeps of one run.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Host requests completed.
    pub requests: u64,
    /// Mean waiting time of reads and writes (BRR's T_w).
    pub read_wait_ns: f64,
    /// See `read_wait_ns`.
    pub write_wait_ns: f64,
    /// Mean response time of reads.
    pub read_response_ns: f64,
    /// BRR's chip utilization: busy-chip fraction sampled at each arrival.
    pub chip_util: f64,
    /// Redirected reads / host read pages.
    pub redirected_ratio: f64,
    /// Flash reads issued by reconstructions (BRR's extra reads).
    pub extra_reads: u64,
    /// Host reads checked against the content last written (verify runs).
    pub verified_reads: u64,
    /// Reads or audited pages that disagreed (verify runs).
    pub mismatches: u64,
}

/// Runs every job on `threads` threads; results in job order.
pub fn run_all(jobs: &[Job], threads: usize) -> Vec<Result<Outcome, String>> {
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
    let results: Mutex<Vec<Option<Result<Outcome, String>>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let out = run_one(job);
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

fn run_one(job: &Job) -> Result<Outcome, String> {
    let src = TraceSource::File {
        path: job.trace.clone(),
        options: TraceOptions::default(),
    };
    let stream = src.open().map_err(|e| e.to_string())?;
    let verify = job.cfg.verify;
    let mut sim =
        Simulation::new(job.cfg.clone(), stream, &src.describe()).map_err(|e| e.to_string())?;
    sim.set_preset_name("brr");
    let mut mismatches = 0;
    match sim.run_to_end() {
        Ok(()) => {}
        Err(SimError::VerifyMismatch { .. }) => mismatches += 1,
        Err(e) => return Err(format!("{}: {e}", job.label)),
    }
    if verify && mismatches == 0 && sim.audit().is_err() {
        mismatches += 1;
    }
    if mismatches > 0 {
        return Ok(Outcome {
            mismatches,
            ..Outcome::default()
        });
    }
    let r = sim.into_report().map_err(|e| e.to_string())?;
    let counter = |k: &str| r.counters.get(k).copied().unwrap_or(0);
    Ok(Outcome {
        requests: r.requests.all,
        read_wait_ns: r.waiting.read.mean_ns,
        write_wait_ns: r.waiting.write.mean_ns,
        read_response_ns: r.response.read.mean_ns,
        chip_util: r.utilization.sampled_chip,
        redirected_ratio: r.redirected_read_ratio,
        extra_reads: counter("raid-reconstruct-reads"),
        verified_reads: counter("verified-reads"),
        mismatches,
    })
}
