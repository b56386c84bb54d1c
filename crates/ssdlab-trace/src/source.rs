//! [`TraceSource`]: one entry point over trace files and synthetic workloads.

use crate::error::{TraceError, TraceErrorKind};
use crate::options::TraceOptions;
use crate::prefetch::Prefetch;
use crate::reader::TraceReader;
use crate::request::IoRequest;
use crate::synthetic::{SyntheticConfig, SyntheticGen};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A stream of requests as the host sees it, whatever produced it. Streams are `Send`
/// so that a boxed stream can move to another thread (e.g. while bindings release the
/// interpreter lock).
pub trait RequestStream: Iterator<Item = Result<IoRequest, TraceError>> + Send {
    /// Bad lines skipped (only when skipping is asked for).
    fn skipped_lines(&self) -> u64;
    /// Records whose timestamp went backwards and was clamped.
    fn clamped_timestamps(&self) -> u64;
    /// The format's name (`msr`, …, or `synthetic`).
    fn format_name(&self) -> &'static str;
    /// Legitimate non-request lines passed over (see [`TraceReader::ignored_lines`]).
    fn ignored_lines(&self) -> u64 {
        0
    }
    /// Suspicious forward jumps of the trace's clock, and gaps cut (see
    /// [`TraceReader::time_jumps`]).
    fn time_jumps(&self) -> TimeJumps {
        TimeJumps::default()
    }
}

/// A gap between two consecutive requests longer than this (30 days) is counted as a
/// jump of the trace's clock: no workload a block trace records idles that long between
/// two requests, while a wall-clock stamp inside a trace of relative times (as a real
/// blktrace capture can hold) jumps by decades.
pub const SUSPICIOUS_GAP_NS: u64 = 30 * 86_400 * 1_000_000_000;

/// Forward jumps of a trace's clock longer than [`SUSPICIOUS_GAP_NS`], and the gaps
/// that [`TraceOptions::max_gap_ns`] cut. Counted in the first pass over the file only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeJumps {
    /// Gaps longer than [`SUSPICIOUS_GAP_NS`].
    pub count: u64,
    /// The line of the request after the first such gap (0 if none).
    pub first_line: u64,
    /// The first such gap, ns, as the trace has it (before any cut).
    pub first_gap_ns: u64,
    /// Gaps longer than `max_gap_ns`, cut to it.
    pub cut: u64,
    /// Time those cuts removed, ns.
    pub cut_ns: u64,
}

/// A snapshot of what a [`RequestStream`] counted beside its requests, for streams
/// that replay or forward another stream's requests and report its counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamCounts {
    /// [`RequestStream::skipped_lines`].
    pub skipped: u64,
    /// [`RequestStream::clamped_timestamps`].
    pub clamped: u64,
    /// [`RequestStream::ignored_lines`].
    pub ignored: u64,
    /// [`RequestStream::time_jumps`].
    pub jumps: TimeJumps,
}

impl StreamCounts {
    /// `stream`'s counts now.
    pub fn of(stream: &dyn RequestStream) -> Self {
        StreamCounts {
            skipped: stream.skipped_lines(),
            clamped: stream.clamped_timestamps(),
            ignored: stream.ignored_lines(),
            jumps: stream.time_jumps(),
        }
    }
}

impl RequestStream for TraceReader {
    fn skipped_lines(&self) -> u64 {
        TraceReader::skipped_lines(self)
    }
    fn clamped_timestamps(&self) -> u64 {
        TraceReader::clamped_timestamps(self)
    }
    fn format_name(&self) -> &'static str {
        self.format().name()
    }
    fn ignored_lines(&self) -> u64 {
        TraceReader::ignored_lines(self)
    }
    fn time_jumps(&self) -> TimeJumps {
        TraceReader::time_jumps(self)
    }
}

/// A synthetic workload as a [`RequestStream`] (it never fails).
#[derive(Debug)]
struct SyntheticStream(SyntheticGen);

impl Iterator for SyntheticStream {
    type Item = Result<IoRequest, TraceError>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(Ok)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl RequestStream for SyntheticStream {
    fn skipped_lines(&self) -> u64 {
        0
    }
    fn clamped_timestamps(&self) -> u64 {
        0
    }
    fn format_name(&self) -> &'static str {
        "synthetic"
    }
}

/// The path reported in errors about synthetic workloads.
pub const SYNTHETIC_PATH: &str = "<synthetic>";

/// Where requests come from.
// A source is made once per run and opened once: the synthetic variant's size does not
// matter, and keeping it unboxed keeps `TraceSource::Synthetic(cfg)` simple to build.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum TraceSource {
    /// A trace file.
    File {
        /// The file.
        path: PathBuf,
        /// How to read it.
        #[serde(default)]
        options: TraceOptions,
    },
    /// A generated workload.
    Synthetic(SyntheticConfig),
}

impl TraceSource {
    /// Opens the stream (validating a synthetic configuration first). It is read ahead
    /// on its own thread ([`Prefetch`]); [`TraceSource::open_inline`] reads it on the
    /// caller's.
    pub fn open(&self) -> Result<Box<dyn RequestStream>, TraceError> {
        Ok(Box::new(Prefetch::new(self.open_inline()?)))
    }

    /// Opens the stream to be read on the caller's thread.
    pub fn open_inline(&self) -> Result<Box<dyn RequestStream>, TraceError> {
        match self {
            TraceSource::File { path, options } => Ok(Box::new(TraceReader::open(path, options)?)),
            TraceSource::Synthetic(cfg) => {
                let generator = SyntheticGen::try_new(cfg).map_err(|errs| {
                    let kind = TraceErrorKind::InvalidConfig(errs);
                    TraceError::new(Path::new(SYNTHETIC_PATH), 0, kind)
                })?;
                Ok(Box::new(SyntheticStream(generator)))
            }
        }
    }

    /// A one-line description for reports.
    pub fn describe(&self) -> String {
        match self {
            TraceSource::File { path, options } => {
                let format = options.format.map_or("auto".to_string(), |f| f.to_string());
                let mut s = format!("file {} (format {format}", path.display());
                if let Some(u) = options.disksim_size_unit {
                    s.push_str(&format!(", disksim size unit {u}"));
                }
                if options.repeat != 1 {
                    s.push_str(&format!(", repeat {}", options.repeat));
                }
                if options.skip_bad_lines {
                    s.push_str(", skipping bad lines");
                }
                if options.discards != crate::options::Discards::Drop {
                    s.push_str(&format!(", discards as {}s", options.discards));
                }
                s.push(')');
                s
            }
            TraceSource::Synthetic(cfg) => format!("synthetic ({})", cfg.describe()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_source_streams_and_validates() {
        let cfg = SyntheticConfig {
            requests: 10,
            ..SyntheticConfig::default()
        };
        let src = TraceSource::Synthetic(cfg.clone());
        let mut s = src.open().unwrap();
        assert_eq!(s.format_name(), "synthetic");
        assert_eq!(s.by_ref().count(), 10);
        assert_eq!(s.skipped_lines(), 0);
        assert!(
            src.describe().starts_with("synthetic ("),
            "{}",
            src.describe()
        );
        let bad = TraceSource::Synthetic(SyntheticConfig {
            read_ratio: 1.5,
            ..cfg
        });
        let err = bad.open().err().unwrap();
        assert_eq!(
            err.to_string(),
            "<synthetic>: invalid synthetic workload: read_ratio: must be within [0, 1], found 1.5"
        );
        let TraceErrorKind::InvalidConfig(errs) = &err.kind else {
            panic!("{err:?}");
        };
        assert_eq!(errs.keys().collect::<Vec<_>>(), ["read_ratio"]);
    }

    #[test]
    fn file_source_describes_itself_and_reports_missing_files() {
        let src = TraceSource::File {
            path: "nowhere/x.csv".into(),
            options: TraceOptions {
                repeat: 3,
                ..TraceOptions::default()
            },
        };
        assert_eq!(src.describe(), "file nowhere/x.csv (format auto, repeat 3)");
        let err = src.open().err().unwrap();
        assert!(matches!(err.kind, TraceErrorKind::Io(_)));
        assert!(
            err.to_string().starts_with("nowhere/x.csv: I/O error"),
            "{err}"
        );
    }

    #[test]
    fn sources_deserialize_strictly() {
        let s: TraceSource =
            serde_json::from_str(r#"{"file": {"path": "a.gz", "options": {"repeat": 2}}}"#)
                .unwrap();
        assert!(matches!(s, TraceSource::File { ref options, .. } if options.repeat == 2));
        let s: TraceSource = serde_json::from_str(r#"{"synthetic": {"requests": 5}}"#).unwrap();
        assert!(matches!(s, TraceSource::Synthetic(ref c) if c.requests == 5));
        assert!(serde_json::from_str::<TraceSource>(r#"{"file": {"path": "a", "x": 1}}"#).is_err());
    }
}
