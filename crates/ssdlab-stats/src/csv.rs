//! The optional per-request CSV: one line per completed request, in completion order.

use std::io::{self, BufWriter, Write};

use crate::record::RequestRecord;

/// The header line of the per-request CSV (without the line break).
///
/// Columns: request id, `read`/`write`, first byte, size, arrival, admission to the
/// device queue, completion, response (= completion − arrival), waiting (= response −
/// service, saturating at 0) and service, all times in ns.
pub const CSV_HEADER: &str = "id,op,offset_bytes,size_bytes,arrival_ns,admitted_ns,\
completion_ns,response_ns,waiting_ns,service_ns";

/// The column the CSV gains on a device with the error model: `ok`, or `media-error`
/// for a request a page of which could be neither read nor rebuilt.
pub const CSV_STATUS_COLUMN: &str = "status";

/// A buffered CSV writer that keeps its first error instead of interrupting the run.
pub(crate) struct CsvSink {
    out: BufWriter<Box<dyn Write + Send>>,
    error: Option<io::Error>,
    /// Whether lines end with the status column.
    status: bool,
}

impl CsvSink {
    /// Wraps `w` and writes the header, with the status column when `status`.
    pub(crate) fn new(w: Box<dyn Write + Send>, status: bool) -> Self {
        let mut sink = CsvSink {
            out: BufWriter::with_capacity(64 * 1024, w),
            error: None,
            status,
        };
        let header = if status {
            writeln!(sink.out, "{CSV_HEADER},{CSV_STATUS_COLUMN}")
        } else {
            writeln!(sink.out, "{CSV_HEADER}")
        };
        sink.keep(header);
        sink
    }

    fn keep(&mut self, result: io::Result<()>) {
        if let Err(e) = result {
            self.error.get_or_insert(e);
        }
    }

    /// Appends one request. No allocation; after the first error, does nothing.
    #[inline]
    pub(crate) fn write(&mut self, r: &RequestRecord, response_ns: u64, waiting_ns: u64) {
        if self.error.is_some() {
            return;
        }
        let line = write!(
            self.out,
            "{},{},{},{},{},{},{},{},{},{}",
            r.id,
            r.op.name(),
            r.offset_bytes,
            r.size_bytes,
            r.arrival_ns,
            r.admitted_ns,
            r.completion_ns,
            response_ns,
            waiting_ns,
            r.service_ns
        );
        self.keep(line);
        let end = match (self.status, r.media_error) {
            (false, _) => writeln!(self.out),
            (true, false) => writeln!(self.out, ",ok"),
            (true, true) => writeln!(self.out, ",media-error"),
        };
        self.keep(end);
    }

    /// Flushes, returning the first error seen while writing or flushing.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::OpClass;

    struct Failing;

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn errors_surface_at_finish() {
        let mut sink = CsvSink::new(Box::new(Failing), false);
        let r = RequestRecord {
            op: OpClass::Write,
            ..Default::default()
        };
        for _ in 0..10_000 {
            sink.write(&r, 0, 0);
        }
        let err = sink.finish().unwrap_err();
        assert_eq!(err.to_string(), "disk full");
    }
}
