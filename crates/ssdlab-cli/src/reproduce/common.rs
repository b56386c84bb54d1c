//! Helpers every reproduction shares: finding traces and summarizing ratios.

use crate::Failure;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The DRAM write buffer of the sensitivity rows of the reproductions whose papers ran
/// on SSDsim (CR5M, DS-FTL): SSDsim's rule — an LRU write buffer destaged only when a
/// write finds it full (`buffer_management`, `insert2buffer`) — at 32 MiB. SSDsim's own
/// default (`dram capacity = 131074` B in its page.parameters) is below one MiB, and
/// neither paper gives a size: 32 MiB is our choice, the write buffer of a small SSD.
pub(super) const SSDSIM_BUFFER: [&str; 4] = [
    "cache.mode=\"write-buffer\"",
    "cache.capacity_mib=32",
    "cache.destage=\"on-demand\"",
    "cache.replacement=\"lru\"",
];

/// True for a synthetic workload description (`.toml`, as `--synthetic-config` takes).
pub(super) fn is_workload(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "toml")
}

/// The traces: files given, and the files directly inside directories given, whose
/// format is recognized (or that describe a synthetic workload, `.toml`); sorted by path
/// inside each directory.
pub(super) fn find_traces(args: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            for f in files_in(p)? {
                if is_workload(&f) {
                    super::runner::source_of(&f).map_err(|e| Failure::input(anyhow!(e)))?;
                    out.push(f);
                    continue;
                }
                match ssdlab_trace::detect_format(&f) {
                    Ok(_) => out.push(f),
                    Err(_) => eprintln!("skipping {} (not a trace)", f.display()),
                }
            }
        } else if is_workload(p) {
            super::runner::source_of(p).map_err(|e| Failure::input(anyhow!(e)))?;
            out.push(p.clone());
        } else {
            ssdlab_trace::detect_format(p).map_err(Failure::input)?;
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        return Err(Failure::input(anyhow!("no trace found in --traces")));
    }
    Ok(out)
}

/// The files directly inside directory `dir`, sorted by path.
pub(super) fn files_in(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Failure::input(anyhow!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// Creates the output directory `out` (and its parents).
pub(super) fn create_out_dir(out: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(out).map_err(|e| Failure::input(anyhow!("{}: {e}", out.display())))
}

/// Writes output file `name` into `out`; the error names the file.
pub(super) fn write_out(out: &Path, name: &str, text: String) -> Result<(), String> {
    std::fs::write(out.join(name), text).map_err(|e| format!("{name}: {e}"))
}

/// A short name for a trace file: its name without extensions.
pub(super) fn trace_name(p: &Path) -> String {
    let name = p
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    name.split('.').next().unwrap_or(&name).to_string()
}

/// `a / b`, or None when `b` is zero (e.g. a trace without reads).
pub(super) fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// The mean of `v`; NaN when empty.
pub(super) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The median of `v` (the mean of the middle two for an even count); NaN when empty.
pub(super) fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// A figure's values: `v` with 0 where undefined, then the mean of the defined ones.
pub(super) fn with_average(v: &[Option<f64>]) -> Vec<f64> {
    let avg = mean(&v.iter().flatten().copied().collect::<Vec<_>>());
    let mut vals: Vec<f64> = v.iter().map(|x| x.unwrap_or(0.0)).collect();
    vals.push(avg);
    vals
}

/// A ratio as a CSV cell (empty when undefined).
pub(super) fn cell(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x:.4}"))
}
