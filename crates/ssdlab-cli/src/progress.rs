//! Progress displays on stderr, only when stderr is a terminal: nothing at all is
//! written when it is not (CI logs, pipes, files).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often a spinner redraws by itself (so that a long step without callbacks still
/// shows its elapsed time moving).
const TICK: Duration = Duration::from_millis(120);

/// Whether progress is shown at all.
pub fn shown() -> bool {
    std::io::stderr().is_terminal()
}

/// A spinner counting completed requests.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A spinner, or `None` when stderr is not a terminal (CI, pipes).
    pub fn new() -> Option<Self> {
        if !shown() {
            return None;
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {human_pos} requests done ({per_sec}) {elapsed}",
            )
            .expect("a valid template"),
        );
        Some(Progress { bar })
    }

    /// A spinner that says what a step of unknown length is doing (`preparing the
    /// device`, `auditing …`) and how long it has taken, until it is dropped; `None`
    /// when stderr is not a terminal.
    pub fn step(what: &str) -> Option<Step> {
        if !shown() {
            return None;
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("a valid template"),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(TICK);
        Some(Step { bar })
    }

    /// The callback the simulation calls with the number of completed requests.
    pub fn callback(&self) -> ssdlab::sim::ProgressFn {
        let bar = self.bar.clone();
        Box::new(move |done| bar.set_position(done))
    }

    /// Clears the spinner.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// A step's spinner ([`Progress::step`]); cleared when dropped.
pub struct Step {
    bar: ProgressBar,
}

impl Drop for Step {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A bar over several runs of one command (`compare`, `sweep`): runs done out of the
/// total, and the requests all runs have completed so far.
#[derive(Clone)]
pub struct Runs {
    bar: ProgressBar,
    requests: Arc<Vec<AtomicU64>>,
}

impl Runs {
    /// A bar over `runs` runs named `what` (`runs`, `points`); hidden when stderr is not
    /// a terminal.
    pub fn new(runs: usize, what: &str) -> Self {
        let bar = if shown() {
            let b = ProgressBar::new(runs as u64);
            let template = format!("{{spinner}} {{pos}}/{{len}} {what} done, {{msg}} {{elapsed}}");
            b.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
            b.set_message("setting up");
            b.enable_steady_tick(TICK);
            b
        } else {
            ProgressBar::hidden()
        };
        let requests = Arc::new((0..runs).map(|_| AtomicU64::new(0)).collect());
        Runs { bar, requests }
    }

    /// The callback run `i` of the simulation calls with its completed requests.
    pub fn callback(&self, i: usize) -> ssdlab::sim::ProgressFn {
        let me = self.clone();
        Box::new(move |done| {
            me.requests[i].store(done, Ordering::Relaxed);
            me.show_requests();
        })
    }

    /// Run `i` finished having completed `requests` requests.
    pub fn done(&self, i: usize, requests: u64) {
        self.requests[i].store(requests, Ordering::Relaxed);
        self.show_requests();
        self.bar.inc(1);
    }

    fn show_requests(&self) {
        let all: u64 = self
            .requests
            .iter()
            .map(|r| r.load(Ordering::Relaxed))
            .sum();
        self.bar
            .set_message(format!("{} requests", ssdlab_stats::fmt_count(all)));
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
