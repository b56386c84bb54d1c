//! `ssdlab traces`: the sample traces that come with the repository, with their
//! statistics, and where the full public trace sets are published.
//!
//! The origins and the full sets' publishers come from `traces/MANIFEST.md`, compiled
//! into the binary so that the command and the manifest cannot disagree; the statistics
//! are computed from the files themselves.

use crate::{print, Failure};
use anyhow::{anyhow, Context};
use ssdlab_stats::fmt_count;
use ssdlab_trace::{TraceOptions, TraceSource};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The manifest of the sample traces.
pub const MANIFEST: &str = include_str!("../../../traces/MANIFEST.md");

/// Where the sample traces are: `dir` if given, else `traces/` under the current
/// directory, else the repository the binary was built from.
pub(crate) fn traces_dir(dir: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(d) = dir {
        return if d.is_dir() {
            Ok(d.to_path_buf())
        } else {
            Err(Failure::input(anyhow!(
                "--dir {}: not a directory",
                d.display()
            )))
        };
    }
    let here = PathBuf::from("traces");
    if here.join("MANIFEST.md").is_file() {
        return Ok(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
    if built.join("MANIFEST.md").is_file() {
        return Ok(built);
    }
    Err(Failure::input(anyhow!(
        "no sample traces here: run from the repository's root, or give --dir DIR \
         (the repository's traces/ folder)"
    )))
}

/// The rows of the markdown table that follows the heading `heading` in `md`, each
/// split into cells with inline code and emphasis marks removed.
pub fn table_after(md: &str, heading: &str) -> Vec<Vec<String>> {
    let Some(start) = md.find(heading) else {
        return Vec::new();
    };
    md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header row and its rule
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().replace(['`', '*'], "").replace("\\|", "|"))
                .collect()
        })
        .collect()
}

/// Every trace file under `dir`, as paths relative to it, sorted.
fn trace_files(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .with_context(|| format!("{}", d.display()))
            .map_err(Failure::input)?;
        for e in entries {
            let p = e.map_err(Failure::internal)?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "gz") {
                out.push(
                    p.strip_prefix(dir)
                        .map_err(Failure::internal)?
                        .to_path_buf(),
                );
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A span of simulated time, short.
fn span(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    match s {
        s if s >= 365.25 * 86_400.0 => format!("{:.1} years", s / (365.25 * 86_400.0)),
        s if s >= 86_400.0 => format!("{:.1} days", s / 86_400.0),
        s if s >= 3_600.0 => format!("{:.1} h", s / 3_600.0),
        s if s >= 60.0 => format!("{:.1} min", s / 60.0),
        s if s >= 1.0 => format!("{s:.1} s"),
        s => format!("{:.1} ms", s * 1e3),
    }
}

/// Bytes in binary units, short.
fn bytes(b: f64) -> String {
    match b {
        b if b >= (1u64 << 30) as f64 => format!("{:.1} GiB", b / (1u64 << 30) as f64),
        b if b >= (1u64 << 20) as f64 => format!("{:.1} MiB", b / (1u64 << 20) as f64),
        b if b >= 1024.0 => format!("{:.1} KiB", b / 1024.0),
        b => format!("{b:.0} B"),
    }
}

/// The table of the sample traces in `dir` with their statistics.
fn sample_table(dir: &Path) -> Result<String, Failure> {
    let files = trace_files(dir)?;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<40} {:<9} {:>9} {:>7} {:>10} {:>12} {:>12}",
        "file", "format", "requests", "reads", "mean size", "spans", "working set"
    );
    let mut total = 0;
    for rel in &files {
        let path = dir.join(rel);
        total += std::fs::metadata(&path).map_or(0, |m| m.len());
        let src = TraceSource::File {
            path: path.clone(),
            options: TraceOptions::default(),
        };
        let mut stream = src.open().map_err(Failure::input)?;
        let st = ssdlab_trace::analyze(stream.as_mut()).map_err(Failure::input)?;
        let jump = if st.time_jumps > 0 { " *" } else { "" };
        let _ = writeln!(
            s,
            "{:<40} {:<9} {:>9} {:>6.1}% {:>10} {:>12} {:>12}",
            rel.display(),
            st.format,
            fmt_count(st.requests),
            st.read_ratio * 100.0,
            bytes(st.avg_size_bytes),
            format!("{}{jump}", span(st.duration_ns)),
            bytes(st.working_set_bytes as f64),
        );
    }
    let _ = writeln!(
        s,
        "{} files, {} of gzip. * the trace's clock jumps (a wall-clock stamp inside \
         relative times): see --max-gap.",
        files.len(),
        bytes(total as f64)
    );
    Ok(s)
}

/// Where the full trace sets live, from the manifest.
fn full_sets() -> String {
    let mut s = String::new();
    for row in table_after(MANIFEST, "## Where the full sets live") {
        let [set, publisher, place, flag, terms] = &row[..] else {
            continue;
        };
        let _ = writeln!(s, "{set}");
        let _ = writeln!(s, "  published by  {publisher}");
        let _ = writeln!(s, "  download      {place}");
        let _ = writeln!(s, "  read with     --format {flag}");
        let _ = writeln!(s, "  terms         {terms}");
    }
    s
}

/// `ssdlab traces [--dir DIR]`.
pub fn cmd_traces(dir: Option<&Path>) -> Result<(), Failure> {
    let dir = traces_dir(dir)?;
    let mut s = format!(
        "Sample traces in {} (origins, cuts and terms: its MANIFEST.md)\n\n",
        dir.display()
    );
    s.push_str(&sample_table(&dir)?);
    s.push_str(
        "\nThe full trace sets (replay any of them with --trace FILE, .gz or plain, \
         streamed in constant memory):\n\n",
    );
    s.push_str(&full_sets());
    print(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_names_every_sample_file_and_only_those() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
        let on_disk: Vec<String> = trace_files(&dir)
            .unwrap()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let mut listed: Vec<String> = table_after(MANIFEST, "## The files")
            .into_iter()
            .map(|row| row[0].clone())
            .collect();
        listed.sort();
        assert_eq!(listed, on_disk);
    }

    #[test]
    fn every_full_set_has_a_publisher_a_place_and_a_format_flag() {
        let sets = table_after(MANIFEST, "## Where the full sets live");
        assert!(sets.len() >= 5, "{sets:?}");
        for row in &sets {
            assert_eq!(row.len(), 5, "{row:?}");
            assert!(row.iter().all(|c| !c.is_empty()), "{row:?}");
        }
        let text = full_sets();
        for name in ["MSR Cambridge", "UMass", "FIU", "MQSim", "--format"] {
            assert!(text.contains(name), "{name}: {text}");
        }
    }

    #[test]
    fn spans_and_sizes_read_well() {
        assert_eq!(span(148_405_501_300), "2.5 min");
        assert_eq!(span(6_092_280), "6.1 ms");
        assert_eq!(span(596_961_941_122_500), "6.9 days");
        assert_eq!(bytes(12_088.1), "11.8 KiB");
        assert_eq!(bytes(1_299_099_648.0), "1.2 GiB");
    }
}
