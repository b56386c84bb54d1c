//! Placement identifiers named by the workload (`host.placement_from = "workload"`,
//! docs/HOST.md §5): a write's stream (a trace's stream field, a synthetic workload's
//! placement rule) picks its placement handle, the stream modulo the handle count; the
//! streams seen through each handle name it in the report.

use ssdlab_trace::TraceFormat;
use std::collections::BTreeSet;

/// Stream values listed per handle in the report; more are summarised by their count.
const LISTED: usize = 8;

/// The rule from a write's stream to its handle, and the streams each handle took.
#[derive(Debug)]
pub(crate) struct StreamTags {
    handles: u32,
    /// What a stream value is in the workload (`ASU`, `pid`, …; `stream` for a
    /// synthetic workload, whose rule numbers its streams).
    field: &'static str,
    seen: Vec<BTreeSet<u32>>,
}

impl StreamTags {
    /// The tags of a workload whose format is named `format` (a trace format's name
    /// or `synthetic`) on a device with `handles` handles (> 0).
    pub(crate) fn new(handles: u32, format: &str) -> StreamTags {
        assert!(handles > 0, "streams need placement handles");
        let field = format
            .parse::<TraceFormat>()
            .map_or("stream", TraceFormat::stream_field);
        StreamTags {
            handles,
            field,
            seen: vec![BTreeSet::new(); handles as usize],
        }
    }

    /// The handle of a write that names `stream` (remembered for the report).
    pub(crate) fn handle(&mut self, stream: u32) -> u32 {
        let h = stream % self.handles;
        self.seen[h as usize].insert(stream);
        h
    }

    /// Each handle's streams as the report names them: `ASU 3`, up to [`LISTED`] of
    /// them, then how many more.
    pub(crate) fn labels(&self) -> Vec<Vec<String>> {
        self.seen
            .iter()
            .map(|s| {
                let mut out: Vec<String> = s
                    .iter()
                    .take(LISTED)
                    .map(|v| format!("{} {v}", self.field))
                    .collect();
                if s.len() > LISTED {
                    out.push(format!("{} more", s.len() - LISTED));
                }
                out
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_takes_its_value_modulo_the_handles() {
        let mut t = StreamTags::new(4, "spc");
        assert_eq!(t.handle(0), 0);
        assert_eq!(t.handle(5), 1);
        assert_eq!(t.handle(9), 1);
        assert_eq!(t.handle(3), 3);
        assert_eq!(t.handle(5), 1, "the same stream, the same handle");
        let labels = t.labels();
        assert_eq!(labels[0], ["ASU 0"]);
        assert_eq!(labels[1], ["ASU 5", "ASU 9"]);
        assert!(labels[2].is_empty(), "a handle no stream took");
        assert_eq!(labels[3], ["ASU 3"]);
    }

    #[test]
    fn each_format_names_its_field_and_long_lists_are_cut() {
        assert_eq!(StreamTags::new(1, "msr").field, "DiskNumber");
        assert_eq!(StreamTags::new(1, "fiu").field, "pid");
        assert_eq!(StreamTags::new(1, "blkparse").field, "pid");
        assert_eq!(StreamTags::new(1, "mqsim").field, "device");
        assert_eq!(StreamTags::new(1, "synthetic").field, "stream");
        let mut t = StreamTags::new(1, "fiu");
        for pid in 0..10 {
            t.handle(pid);
        }
        let l = &t.labels()[0];
        assert_eq!(l.len(), LISTED + 1);
        assert_eq!(l[LISTED], "2 more");
    }
}
