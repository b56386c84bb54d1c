//! Write amplification per placement handle (`host.placement_handles`: NVMe Flexible
//! Data Placement's reclaim unit handles).

use crate::ratio;
use serde::{Deserialize, Serialize};
use std::fmt::{self, Write};

/// What one placement handle wrote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandleReport {
    /// The handle (the placement identifier's index).
    pub handle: u32,
    /// The tenants writing through it (empty without tenants).
    pub tenants: Vec<String>,
    /// The workload's streams written through it (`host.placement_from = "workload"`),
    /// each as its field and value (`ASU 3`, `pid 2718`) or its synthetic rule's name;
    /// empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<String>,
    /// Host pages written through it.
    pub host_pages: u64,
    /// GC copies of pages its writes stored.
    pub gc_copies: u64,
    /// (host pages + GC copies) / host pages (0 with no host page).
    pub write_amplification: f64,
}

/// Write amplification per placement handle and over all of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementReport {
    /// One per handle, in order.
    pub handles: Vec<HandleReport>,
    /// Host pages of all handles.
    pub host_pages: u64,
    /// GC copies of all handles.
    pub gc_copies: u64,
    /// (host pages + GC copies) / host pages over all handles.
    pub write_amplification: f64,
}

/// (host + gc) / host, 0 with no host page.
fn wa(host: u64, gc: u64) -> f64 {
    ratio((host + gc) as f64, host as f64)
}

impl PlacementReport {
    /// The report of handles whose `(host pages, GC copies)` are `counts`, written by
    /// the tenants `tenants[h]` each.
    pub fn new(counts: &[(u64, u64)], mut tenants: Vec<Vec<String>>) -> PlacementReport {
        tenants.resize(counts.len(), Vec::new());
        let handles = counts
            .iter()
            .zip(tenants)
            .enumerate()
            .map(|(h, (&(host, gc), tenants))| HandleReport {
                handle: h as u32,
                tenants,
                streams: Vec::new(),
                host_pages: host,
                gc_copies: gc,
                write_amplification: wa(host, gc),
            })
            .collect::<Vec<_>>();
        let host_pages = counts.iter().map(|c| c.0).sum();
        let gc_copies = counts.iter().map(|c| c.1).sum();
        PlacementReport {
            handles,
            host_pages,
            gc_copies,
            write_amplification: wa(host_pages, gc_copies),
        }
    }

    /// The report with the workload's streams of each handle (`streams[h]`).
    pub fn with_streams(mut self, streams: Vec<Vec<String>>) -> PlacementReport {
        for (h, s) in self.handles.iter_mut().zip(streams) {
            h.streams = s;
        }
        self
    }

    /// The section of the text report.
    pub fn write_table(&self, w: &mut dyn Write) -> fmt::Result {
        writeln!(w, "\nPlacement handles")?;
        let by_stream = self.handles.iter().any(|h| !h.streams.is_empty());
        let who = if by_stream { "streams" } else { "tenants" };
        writeln!(
            w,
            "  {:<7} {who:<20} {:>12} {:>12} {:>8}",
            "handle", "host pages", "GC copies", "WA"
        )?;
        let row = |w: &mut dyn Write, h: &str, t: &str, host: u64, gc: u64, wa: f64| {
            writeln!(w, "  {h:<7} {t:<20} {host:>12} {gc:>12} {wa:>8.3}")
        };
        for h in &self.handles {
            let t = if by_stream && !h.streams.is_empty() {
                h.streams.join(",")
            } else if h.tenants.is_empty() {
                "-".to_string()
            } else {
                h.tenants.join(",")
            };
            let id = h.handle.to_string();
            row(w, &id, &t, h.host_pages, h.gc_copies, h.write_amplification)?;
        }
        let (host, gc, wa) = (self.host_pages, self.gc_copies, self.write_amplification);
        row(w, "all", "", host, gc, wa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_amplification_per_handle_and_over_all() {
        let r = PlacementReport::new(&[(100, 50), (300, 0), (0, 0)], vec![vec!["hot".into()]]);
        assert_eq!(r.handles[0].write_amplification, 1.5);
        assert_eq!(r.handles[1].write_amplification, 1.0);
        assert_eq!(r.handles[2].write_amplification, 0.0, "no host page");
        assert_eq!(r.handles[0].tenants, ["hot"]);
        assert!(r.handles[1].tenants.is_empty());
        assert_eq!((r.host_pages, r.gc_copies), (400, 50));
        assert_eq!(r.write_amplification, 1.125);
        let mut s = String::new();
        r.write_table(&mut s).unwrap();
        assert!(s.contains("hot"), "{s}");
        assert!(
            s.lines().last().unwrap().trim_end().ends_with("1.125"),
            "{s}"
        );
        assert!(s.contains(" tenants "), "{s}");
        assert!(!serde_json::to_string(&r).unwrap().contains("streams"));
    }

    #[test]
    fn handles_of_a_workload_name_their_streams() {
        let r = PlacementReport::new(&[(10, 5), (20, 0)], Vec::new())
            .with_streams(vec![vec!["ASU 0".into(), "ASU 2".into()], Vec::new()]);
        assert_eq!(r.handles[0].streams, ["ASU 0", "ASU 2"]);
        let mut s = String::new();
        r.write_table(&mut s).unwrap();
        assert!(s.contains(" streams "), "{s}");
        assert!(s.contains("ASU 0,ASU 2"), "{s}");
        let row1 = s
            .lines()
            .find(|l| l.trim_start().starts_with("1 "))
            .unwrap();
        assert!(row1.contains(" - "), "a handle without a stream: {row1}");
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains(r#""streams":["ASU 0","ASU 2"]"#), "{json}");
    }
}
