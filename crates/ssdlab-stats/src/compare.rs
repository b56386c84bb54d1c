//! Several runs side by side, each value normalized to the first run.

use crate::report::Report;
use crate::table::{fmt_count, fmt_grouped, fmt_us};

/// How a row's value is printed.
#[derive(Clone, Copy)]
enum Unit {
    /// Nanoseconds, printed in µs.
    Us,
    /// Per second, 2 decimals, grouped.
    PerSec,
    /// A fraction, printed in percent.
    Pct,
    /// A plain ratio, 3 decimals.
    Ratio,
    /// An integer count, grouped.
    Count,
}

struct Row {
    label: &'static str,
    unit: Unit,
    value: fn(&Report) -> f64,
}

/// The rows of [`compare_table`], in order.
const ROWS: &[Row] = &[
    Row {
        label: "mean response, all",
        unit: Unit::Us,
        value: |r| r.response.all.mean_ns,
    },
    Row {
        label: "p99 response, all",
        unit: Unit::Us,
        value: |r| r.response.all.p99_ns as f64,
    },
    Row {
        label: "mean response, read",
        unit: Unit::Us,
        value: |r| r.response.read.mean_ns,
    },
    Row {
        label: "p99 response, read",
        unit: Unit::Us,
        value: |r| r.response.read.p99_ns as f64,
    },
    Row {
        label: "mean response, write",
        unit: Unit::Us,
        value: |r| r.response.write.mean_ns,
    },
    Row {
        label: "p99 response, write",
        unit: Unit::Us,
        value: |r| r.response.write.p99_ns as f64,
    },
    Row {
        label: "mean waiting, read",
        unit: Unit::Us,
        value: |r| r.waiting.read.mean_ns,
    },
    Row {
        label: "mean waiting, write",
        unit: Unit::Us,
        value: |r| r.waiting.write.mean_ns,
    },
    Row {
        label: "IOPS",
        unit: Unit::PerSec,
        value: |r| r.iops,
    },
    Row {
        label: "chip utilization (sampled)",
        unit: Unit::Pct,
        value: |r| r.utilization.sampled_chip,
    },
    Row {
        label: "chip utilization std",
        unit: Unit::Pct,
        value: |r| r.utilization.chip.std,
    },
    Row {
        label: "write amplification",
        unit: Unit::Ratio,
        value: |r| r.write_amplification,
    },
    Row {
        label: "erases",
        unit: Unit::Count,
        value: |r| r.erases as f64,
    },
    Row {
        label: "GC runs",
        unit: Unit::Count,
        value: |r| r.gc_runs as f64,
    },
];

fn fmt_value(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Us => format!("{} µs", fmt_us(v)),
        Unit::PerSec => fmt_grouped(v, 2),
        Unit::Pct => format!("{:.2} %", v * 100.0),
        Unit::Ratio => format!("{v:.3}"),
        Unit::Count => fmt_count(v as u64),
    }
}

/// `v / base` as `"0.82×"`; `"1.00×"` when both are 0, `"n/a"` when only the base is.
fn fmt_norm(v: f64, base: f64) -> String {
    if base == 0.0 {
        if v == 0.0 {
            "1.00×".to_owned()
        } else {
            "n/a".to_owned()
        }
    } else {
        format!("{:.2}×", v / base)
    }
}

/// A table of key metrics (rows) for several runs (columns). Each cell shows the raw
/// value and, in parentheses, its ratio to the first run's value, e.g.
/// `"123.40 µs (0.82×)"`; the first column therefore always reads `1.00×` (or `n/a`
/// where its value is 0 and another run's is not).
///
/// Precondition: `names.len() == reports.len()`.
pub fn compare_table(names: &[String], reports: &[Report]) -> String {
    assert_eq!(names.len(), reports.len(), "one name per report");
    let mut cells: Vec<Vec<String>> = Vec::with_capacity(ROWS.len() + 1);
    let mut header = vec!["metric".to_owned()];
    header.extend(names.iter().cloned());
    cells.push(header);
    for row in ROWS {
        let base = reports.first().map(row.value).unwrap_or(0.0);
        let mut line = vec![row.label.to_owned()];
        for r in reports {
            let v = (row.value)(r);
            line.push(format!(
                "{} ({})",
                fmt_value(row.unit, v),
                fmt_norm(v, base)
            ));
        }
        cells.push(line);
    }
    let columns = names.len() + 1;
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            cells
                .iter()
                .map(|line| line[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, line) in cells.iter().enumerate() {
        push_line(&mut out, line, &widths);
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
            push_line(&mut out, &rule, &widths);
        }
    }
    out
}

/// First column left-aligned, the others right-aligned, two spaces apart.
fn push_line(out: &mut String, line: &[String], widths: &[usize]) {
    for (c, (cell, &w)) in line.iter().zip(widths).enumerate() {
        if c == 0 {
            out.push_str(&format!("{cell:<w$}"));
        } else {
            out.push_str(&format!("  {cell:>w$}"));
        }
    }
    let trimmed = out.trim_end_matches(' ').len();
    out.truncate(trimmed);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_handles_zero_bases() {
        assert_eq!(fmt_norm(0.0, 0.0), "1.00×");
        assert_eq!(fmt_norm(3.0, 0.0), "n/a");
        assert_eq!(fmt_norm(41.0, 50.0), "0.82×");
    }

    #[test]
    fn no_runs_gives_labels_only() {
        let t = compare_table(&[], &[]);
        assert_eq!(t.lines().count(), ROWS.len() + 2);
        assert!(t.starts_with("metric"));
    }

    #[test]
    #[should_panic(expected = "one name per report")]
    fn names_and_reports_must_match() {
        compare_table(&["a".to_owned()], &[]);
    }
}
