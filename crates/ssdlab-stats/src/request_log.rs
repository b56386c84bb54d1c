//! The optional in-memory per-request log: the per-request CSV's columns as arrays.
//!
//! A front end that hands results to a DataFrame (the Python package) keeps this
//! instead of CSV text: appending a request is eight stores, with no number formatting
//! and no parsing on the other side.

use crate::record::{OpClass, RequestRecord};

/// Every completed request, in completion order, one array per column.
///
/// The columns are those of [`crate::CSV_HEADER`] without the two derived ones
/// (`response_ns` = completion − arrival and `waiting_ns` = response − service,
/// saturating at 0), which [`RequestLog::response_ns`] and [`RequestLog::waiting_ns`]
/// compute.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestLog {
    /// Request ids (trace order).
    pub id: Vec<u64>,
    /// 0 for a read, 1 for a write.
    pub op: Vec<u8>,
    /// First byte addressed.
    pub offset_bytes: Vec<u64>,
    /// Bytes transferred.
    pub size_bytes: Vec<u64>,
    /// Arrival times, ns.
    pub arrival_ns: Vec<u64>,
    /// Admission to the device queue, ns.
    pub admitted_ns: Vec<u64>,
    /// Completion times, ns.
    pub completion_ns: Vec<u64>,
    /// Service times (bus + array of the last-completing sub-request), ns.
    pub service_ns: Vec<u64>,
    /// The CSV's `status` column, on a device whose requests can fail (the error
    /// model): 0 `ok`, 1 `media-error`, 2 `read-only`; `None` otherwise.
    pub status: Option<Vec<u8>>,
    /// The CSV's `tenant` column, in a run of several tenants: each request's tenant
    /// (its index in the configuration); `None` otherwise.
    pub tenant: Option<Vec<u16>>,
}

impl RequestLog {
    /// The code of `op` in [`RequestLog::op`].
    pub fn op_code(op: OpClass) -> u8 {
        match op {
            OpClass::Read => 0,
            OpClass::Write => 1,
        }
    }

    /// Appends one completed request. Amortized O(1).
    #[inline]
    pub(crate) fn push(&mut self, r: &RequestRecord, tenant: usize) {
        self.id.push(r.id);
        self.op.push(Self::op_code(r.op));
        self.offset_bytes.push(r.offset_bytes);
        self.size_bytes.push(r.size_bytes);
        self.arrival_ns.push(r.arrival_ns);
        self.admitted_ns.push(r.admitted_ns);
        self.completion_ns.push(r.completion_ns);
        self.service_ns.push(r.service_ns);
        if let Some(s) = self.status.as_mut() {
            s.push(r.status as u8);
        }
        if let Some(t) = self.tenant.as_mut() {
            t.push(tenant as u16);
        }
    }

    /// Requests logged.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether no request was logged.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// The 64-bit columns by their CSV names, in CSV order (`op` is [`RequestLog::op`]).
    pub fn u64_columns(&self) -> [(&'static str, &[u64]); 7] {
        [
            ("id", &self.id),
            ("offset_bytes", &self.offset_bytes),
            ("size_bytes", &self.size_bytes),
            ("arrival_ns", &self.arrival_ns),
            ("admitted_ns", &self.admitted_ns),
            ("completion_ns", &self.completion_ns),
            ("service_ns", &self.service_ns),
        ]
    }

    /// Response time of request `i` (completion − arrival, saturating), as in the CSV.
    pub fn response_ns(&self, i: usize) -> u64 {
        self.completion_ns[i].saturating_sub(self.arrival_ns[i])
    }

    /// Waiting time of request `i` (response − service, saturating), as in the CSV.
    pub fn waiting_ns(&self, i: usize) -> u64 {
        self.response_ns(i).saturating_sub(self.service_ns[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_the_records() {
        let mut log = RequestLog {
            tenant: Some(Vec::new()),
            ..RequestLog::default()
        };
        assert!(log.is_empty());
        for (id, op) in [(3, OpClass::Write), (1, OpClass::Read)] {
            log.push(
                &RequestRecord {
                    id,
                    op,
                    offset_bytes: id * 4096,
                    size_bytes: 8192,
                    arrival_ns: 10 * id,
                    admitted_ns: 10 * id + 1,
                    completion_ns: 10 * id + 50,
                    service_ns: 60,
                    pages: 2,
                    flash_ops: 2,
                    buffer_hits: 0,
                    pre_read_ns: 0,
                    status: crate::RequestStatus::Ok,
                },
                id as usize + 4,
            );
        }
        assert_eq!(log.len(), 2);
        assert_eq!(
            log.tenant.as_deref(),
            Some(&[7, 5][..]),
            "each request's tenant"
        );
        assert_eq!(log.id, [3, 1]);
        assert_eq!(log.op, [1, 0]);
        assert_eq!(log.offset_bytes, [3 * 4096, 4096]);
        assert_eq!(log.response_ns(0), 50);
        assert_eq!(log.waiting_ns(0), 0, "saturates like the CSV's waiting_ns");
        let names: Vec<_> = log.u64_columns().iter().map(|c| c.0).collect();
        let csv: Vec<_> = crate::CSV_HEADER
            .split(',')
            .filter(|c| !matches!(*c, "op" | "response_ns" | "waiting_ns"))
            .collect();
        assert_eq!(names, csv, "the same columns in the same order as the CSV");
    }
}
