//! Trace errors: every one names the file, the 1-based line and, for bad fields, the
//! field's name and the offending text.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::synthetic::SyntheticErrors;

/// What went wrong in a trace (the location is in [`TraceError`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TraceErrorKind {
    /// The file could not be opened or read.
    #[error("I/O error: {0}")]
    Io(String),
    /// The line ends before `field`.
    #[error("field `{field}`: line is truncated, the field is missing")]
    Truncated {
        /// Name of the first missing field.
        field: &'static str,
    },
    /// An integer field holds something else.
    #[error("field `{field}`: expected an integer, found `{value}`")]
    BadNumber {
        /// Name of the field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// A decimal field (a time in seconds or milliseconds) holds something else.
    #[error("field `{field}`: expected a decimal number, found `{value}`")]
    BadDecimal {
        /// Name of the field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// A number is negative where it cannot be, or too large to represent.
    #[error("field `{field}`: value `{value}` is out of range")]
    OutOfRange {
        /// Name of the field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// The operation field is neither a read nor a write.
    #[error("field `{field}`: unknown operation `{value}`")]
    UnknownOp {
        /// Name of the field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// The request size is zero or negative.
    #[error("field `{field}`: request size must be positive, found `{value}`")]
    BadSize {
        /// Name of the field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// A content hash field is not what the format requires.
    #[error("field `{field}`: expected a hexadecimal digest, found `{value}`")]
    BadDigest {
        /// Name of the field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// A request larger than the reader accepts (`max_request_bytes`).
    #[error(
        "request of {size_bytes} bytes is larger than the limit of {limit_bytes} bytes \
         (raise it with --max-request-bytes, or skip such lines with --skip-bad-lines)"
    )]
    RequestTooLarge {
        /// The request's size.
        size_bytes: u64,
        /// The limit.
        limit_bytes: u64,
    },
    /// A request's byte range ends beyond 2^64.
    #[error("byte range offset {offset_bytes} + size {size_bytes} runs past 2^64")]
    RangeOverflow {
        /// The request's first byte.
        offset_bytes: u64,
        /// Its size.
        size_bytes: u64,
    },
    /// A trim (a kept discard) whose byte range ends past the device's logical
    /// capacity ([`crate::TraceOptions::device_bytes`]).
    #[error(
        "field `{field}`: trim of bytes {offset_bytes}..{end} runs past the end of the \
         device ({capacity_bytes} bytes); drop discards with --discards drop, or use a \
         larger device",
        end = offset_bytes.saturating_add(*size_bytes)
    )]
    TrimPastEnd {
        /// Name of the field (the address).
        field: &'static str,
        /// The trim's first byte.
        offset_bytes: u64,
        /// Its size.
        size_bytes: u64,
        /// The device's logical capacity.
        capacity_bytes: u64,
    },
    /// A line is longer than any legitimate record.
    #[error("line longer than {limit_bytes} bytes")]
    LineTooLong {
        /// The limit.
        limit_bytes: usize,
    },
    /// The trace holds no request at all.
    #[error("the trace holds no requests")]
    Empty,
    /// The format could not be recognised from the first lines.
    #[error(
        "cannot recognise the trace format from its first lines \
         (formats: msr, spc, fiu, disksim, ssdsim, mqsim, blkparse); set it explicitly"
    )]
    UnknownFormat,
    /// No known format has the shape of the trace's first record line; read as the
    /// closest format (the one whose parser got furthest along its fields) it fails
    /// for `reason`.
    #[error(
        "no trace format fits this line; read as `{closest}`, the closest, {reason} \
         (formats: msr, spc, fiu, disksim, ssdsim, mqsim, blkparse; set one with --format)"
    )]
    UnrecognisedLine {
        /// The format whose parser read most of the line.
        closest: &'static str,
        /// Why that parser refused it.
        reason: Box<TraceErrorKind>,
    },
    /// The first record line fits a format's parser but not the shape detection
    /// expects of it (e.g. an MSR line whose host name is a number).
    #[error(
        "the line reads as a `{format}` record but does not have that format's usual \
         shape, so the format was not detected; set it with --format {format}"
    )]
    LooseShape {
        /// The format whose parser accepts the line.
        format: &'static str,
    },
    /// An option of the reader is invalid.
    #[error("option `{name}`: {message}")]
    BadOption {
        /// Name of the option.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A synthetic workload configuration is invalid (each problem names its key).
    #[error("invalid synthetic workload: {0}")]
    InvalidConfig(SyntheticErrors),
    /// A digest field holds a number of digests that fits neither one per 4 KiB page
    /// nor one per 512-byte sector of the request.
    #[error(
        "field `{field}`: {digests} digests for a request of {sectors} sectors \
         ({pages} pages of 4 KiB): expected 1, {pages} (one per page) or {sectors} \
         (one per sector)"
    )]
    DigestCount {
        /// Name of the field.
        field: &'static str,
        /// Digests found.
        digests: u64,
        /// The request's size in 512-byte sectors.
        sectors: u64,
        /// The 4 KiB pages the request touches.
        pages: u64,
    },
}

/// A trace error located in its file (line 0 when it concerns the whole file).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}: {kind}", Location(path, *line))]
pub struct TraceError {
    /// The trace file (`<synthetic>` for generated workloads).
    pub path: PathBuf,
    /// 1-based line number; 0 when the error is about the file as a whole.
    pub line: u64,
    /// What went wrong.
    pub kind: TraceErrorKind,
}

impl TraceError {
    /// An error at `line` of `path`.
    pub fn new(path: &Path, line: u64, kind: TraceErrorKind) -> Self {
        TraceError {
            path: path.to_path_buf(),
            line,
            kind,
        }
    }

    /// An I/O error on `path` (line 0 when it is not tied to a line).
    pub(crate) fn io(path: &Path, line: u64, err: &std::io::Error) -> Self {
        TraceError::new(path, line, TraceErrorKind::Io(err.to_string()))
    }

    /// The name of the field at fault, when the error is about one field.
    pub fn field(&self) -> Option<&'static str> {
        self.kind.field()
    }
}

impl TraceErrorKind {
    /// The name of the field at fault, when the error is about one field.
    pub fn field(&self) -> Option<&'static str> {
        use TraceErrorKind as K;
        match self {
            K::Truncated { field }
            | K::BadNumber { field, .. }
            | K::BadDecimal { field, .. }
            | K::OutOfRange { field, .. }
            | K::UnknownOp { field, .. }
            | K::BadSize { field, .. }
            | K::BadDigest { field, .. }
            | K::DigestCount { field, .. }
            | K::TrimPastEnd { field, .. } => Some(field),
            _ => None,
        }
    }
}

struct Location<'a>(&'a PathBuf, u64);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 == 0 {
            write!(f, "{}", self.0.display())
        } else {
            write!(f, "{}:{}", self.0.display(), self.1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_line_and_field() {
        let e = TraceError::new(
            Path::new("traces/x.csv"),
            17,
            TraceErrorKind::BadNumber {
                field: "Size",
                value: "12a".into(),
            },
        );
        assert_eq!(
            e.to_string(),
            "traces/x.csv:17: field `Size`: expected an integer, found `12a`"
        );
        assert_eq!(e.field(), Some("Size"));
    }

    #[test]
    fn file_level_errors_have_no_line() {
        let e = TraceError::new(Path::new("a.gz"), 0, TraceErrorKind::Empty);
        assert_eq!(e.to_string(), "a.gz: the trace holds no requests");
        assert_eq!(e.field(), None);
    }
}
