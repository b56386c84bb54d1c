//! End-to-end tests of the `ssdlab` binary: exit codes, error messages, outputs.
//!
//! Every test runs the real binary on small real traces (read in place from the
//! repository's `traces/` folder) or on small files written into the target's temporary directory.

mod bad_args;
mod bad_config;
mod bad_traces;
mod commands;
mod hostile;
mod import;
mod reference;
mod regressions;
mod reproduce_cr5m;
mod reproduce_dgc;
mod reproduce_dsftl;
mod reproduce_nand;
mod reproduce_paq;
mod runs;
mod study_dsftl_surface;
mod sweep;
mod tenants;
mod traces;
mod verify;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What one invocation of the binary produced.
pub struct Run {
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Everything needed to understand a failed assertion.
    pub fn describe(&self) -> String {
        format!(
            "exit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// Asserts a successful run.
    #[track_caller]
    pub fn assert_ok(&self) -> &Self {
        assert_eq!(self.code, Some(0), "expected success\n{}", self.describe());
        self.assert_no_panic()
    }

    /// Asserts that the binary did not panic.
    #[track_caller]
    pub fn assert_no_panic(&self) -> &Self {
        assert!(
            !self.stderr.contains("panicked"),
            "the binary panicked\n{}",
            self.describe()
        );
        self
    }

    /// Asserts a bad-input failure (exit code 2, no panic) whose message on stderr
    /// contains every one of `words`.
    #[track_caller]
    pub fn assert_input_error(&self, words: &[&str]) -> &Self {
        assert_eq!(
            self.code,
            Some(2),
            "expected exit code 2 (bad input)\n{}",
            self.describe()
        );
        self.assert_no_panic();
        self.assert_stderr_has(words)
    }

    /// Asserts that stderr contains every one of `words`.
    #[track_caller]
    pub fn assert_stderr_has(&self, words: &[&str]) -> &Self {
        for w in words {
            assert!(
                self.stderr.contains(w),
                "stderr does not contain {w:?}\n{}",
                self.describe()
            );
        }
        self
    }

    /// Asserts that stdout contains every one of `words`.
    #[track_caller]
    pub fn assert_stdout_has(&self, words: &[&str]) -> &Self {
        for w in words {
            assert!(
                self.stdout.contains(w),
                "stdout does not contain {w:?}\n{}",
                self.describe()
            );
        }
        self
    }
}

/// Runs `ssdlab` with `args` and collects its outputs.
pub fn ssdlab<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("the ssdlab binary starts");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A sample trace of the repository's `traces/` folder, e.g. `trace("msr/wdev_3.csv.gz")`.
pub fn trace(rel: &str) -> String {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces")).join(rel);
    assert!(p.is_file(), "missing sample trace {}", p.display());
    p.display().to_string()
}

/// Column `name` of every data row of the CSV `text`.
pub fn csv_column<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let mut lines = text.lines();
    let header = lines.next().expect("a header");
    let i = header
        .split(',')
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name} in {header}"));
    lines.map(|l| l.split(',').nth(i).unwrap()).collect()
}

/// The directory this test binary writes its files into.
pub fn tmp_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-cli-tests");
    std::fs::create_dir_all(&dir).expect("the temporary directory can be created");
    dir
}

/// Writes `contents` to a file called `name` in [`tmp_dir`] and returns its path.
/// Names must be unique per test.
pub fn tmp_file(name: &str, contents: &str) -> String {
    let p = tmp_dir().join(name);
    std::fs::write(&p, contents).expect("the temporary file can be written");
    p.display().to_string()
}

/// A path called `name` in [`tmp_dir`] for an output file; any file left there by an
/// earlier run is removed first so it cannot be mistaken for fresh output.
pub fn out_path(name: &str) -> String {
    let p = tmp_dir().join(name);
    match std::fs::remove_file(&p) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("cannot remove {}: {e}", p.display()),
    }
    p.display().to_string()
}

/// Reads and parses a JSON report.
pub fn read_json(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the JSON report {path} is readable: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is valid JSON: {e}"))
}

/// Reads a JSON report as the typed [`Report`](ssdlab_stats::Report), for its counters.
pub fn read_report(path: &str) -> ssdlab_stats::Report {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the JSON report {path} is readable: {e}"));
    ssdlab_stats::Report::from_json(&text).unwrap_or_else(|e| panic!("{path} is a report: {e}"))
}

/// An unsigned integer field of a JSON report, e.g. `json_u64(&r, &["requests", "all"])`.
#[track_caller]
pub fn json_u64(report: &serde_json::Value, path: &[&str]) -> u64 {
    let mut v = report;
    for key in path {
        v = v
            .get(key)
            .unwrap_or_else(|| panic!("the JSON report has no {path:?}\n{report:#}"));
    }
    v.as_u64()
        .unwrap_or_else(|| panic!("{path:?} is not an unsigned integer: {v}"))
}

/// A valid MSR Cambridge CSV line (a 32 KiB read).
pub const MSR_OK: &str = "128166372003061629,hm,0,Read,383496192,32768,1331";

/// The `default` preset shrunk so that preconditioning is fast and GC runs at once.
pub const SMALL_DEVICE: &[&str] = &[
    "--preset",
    "default",
    "--set",
    "geometry.blocks_per_plane=64",
    "--set",
    "geometry.pages_per_block=32",
    "--set",
    "geometry.chips_per_channel=2",
];

/// The presets `ssdlab config list` must show.
pub const PRESETS: &[&str] = &[
    "default",
    "brr",
    "dgc",
    "cr5m-ssd1",
    "cr5m-ssd2",
    "cr5m-ssd3",
    "paq",
    "dsftl",
    "tlc-1tb",
    "tlc-1tb-hmb",
];
