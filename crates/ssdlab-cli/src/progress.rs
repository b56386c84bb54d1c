//! A progress display on stderr, only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A spinner counting completed requests.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A spinner, or `None` when stderr is not a terminal (CI, pipes).
    pub fn new() -> Option<Self> {
        if !std::io::stderr().is_terminal() {
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
