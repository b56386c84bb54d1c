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

/// The column the CSV gains on a device with the error model: `ok`, `media-error` for a
/// request a page of which could be neither read nor rebuilt, or `read-only` for a write
/// a drive out of spare blocks refused.
pub const CSV_STATUS_COLUMN: &str = "status";

/// The column a run with several tenants adds at the end of each line: the name of the
/// request's tenant.
pub const CSV_TENANT_COLUMN: &str = "tenant";

/// A buffered CSV writer that keeps its first error instead of interrupting the run.
pub(crate) struct CsvSink {
    out: BufWriter<Box<dyn Write + Send>>,
    error: Option<io::Error>,
    /// Whether lines end with the status column.
    status: bool,
    /// The tenants' names, with several (then each line names its request's tenant).
    tenants: Vec<String>,
    /// The tenant of the request written next.
    pub(crate) tenant: usize,
}

impl CsvSink {
    /// Wraps `w` and writes the header, with the status column when `status`.
    pub(crate) fn new(w: Box<dyn Write + Send>, status: bool) -> Self {
        Self::with_tenants(w, Vec::new(), status)
    }

    /// Wraps `w` and writes the header, with a tenant column when `tenants` names any
    /// and the status column when `status`.
    pub(crate) fn with_tenants(
        w: Box<dyn Write + Send>,
        tenants: Vec<String>,
        status: bool,
    ) -> Self {
        let mut sink = CsvSink {
            out: BufWriter::with_capacity(64 * 1024, w),
            error: None,
            status,
            tenants,
            tenant: 0,
        };
        let tenant = if sink.tenants.is_empty() {
            String::new()
        } else {
            format!(",{CSV_TENANT_COLUMN}")
        };
        let header = if status {
            writeln!(sink.out, "{CSV_HEADER}{tenant},{CSV_STATUS_COLUMN}")
        } else {
            writeln!(sink.out, "{CSV_HEADER}{tenant}")
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
        if !self.tenants.is_empty() {
            self.write_tenant();
        }
        let end = if self.status {
            writeln!(self.out, ",{}", r.status.name())
        } else {
            writeln!(self.out)
        };
        self.keep(end);
    }

    /// The tenant column of the line being written.
    #[inline(never)]
    fn write_tenant(&mut self) {
        let name = self.tenants.get(self.tenant).map_or("", String::as_str);
        let col = write!(self.out, ",{name}");
        self.keep(col);
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

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn with_tenants_each_line_names_its_tenant() {
        let out = Shared::default();
        let mut sink =
            CsvSink::with_tenants(Box::new(out.clone()), vec!["a".into(), "b".into()], false);
        let r = RequestRecord {
            op: OpClass::Read,
            ..Default::default()
        };
        sink.tenant = 1;
        sink.write(&r, 5, 0);
        sink.tenant = 0;
        sink.write(&r, 6, 0);
        sink.finish().unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("{CSV_HEADER},tenant"));
        assert!(lines[1].ends_with(",5,0,0,b"), "{}", lines[1]);
        assert!(lines[2].ends_with(",6,0,0,a"), "{}", lines[2]);
        // Without tenants, the lines are as they were.
        let plain = Shared::default();
        let mut sink = CsvSink::new(Box::new(plain.clone()), false);
        sink.write(&r, 5, 0);
        sink.finish().unwrap();
        let text = String::from_utf8(plain.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, format!("{CSV_HEADER}\n0,read,0,0,0,0,0,5,0,0\n"));
    }
}
