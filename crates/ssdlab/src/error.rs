//! Errors of a run. Bad input is an `Err`; a broken invariant is a panic.

use crate::config::{ConfigError, ConfigErrors};
use ssdlab_trace::TraceError;

/// A redundancy page that disagrees with the data it protects (found by the audit).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RedundancyError {
    /// A RAID-1 copy differs from its primary.
    #[error("mirror of LPN {lpn} holds {mirror:#x}, primary {primary:#x}")]
    Mirror {
        /// The host page.
        lpn: u64,
        /// The copy's token.
        mirror: u64,
        /// The primary's token.
        primary: u64,
    },
    /// A stripe's parity is not the XOR of its data pages.
    #[error("stripe row {row} group {group}: parity {parity:#x} != XOR of data {xor:#x}")]
    Parity {
        /// The stripe's row.
        row: u64,
        /// Its parity group.
        group: u32,
        /// The parity page's token.
        parity: u64,
        /// The XOR of its data pages' tokens.
        xor: u64,
    },
    /// CR5M's mirror table disagrees with the pages (a copy, a count, a misplaced page).
    #[error("mirror table: {0}")]
    MirrorTable(String),
}

impl RedundancyError {
    /// `Ok` if stripe `(row, group)`'s parity token equals the XOR of what it covers.
    pub(crate) fn check_parity(row: u64, group: u32, parity: u64, xor: u64) -> Result<(), Self> {
        if xor == parity {
            return Ok(());
        }
        Err(RedundancyError::Parity {
            row,
            group,
            parity,
            xor,
        })
    }
}

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The configuration is inconsistent.
    #[error(transparent)]
    Config(#[from] ConfigErrors),
    /// The trace is malformed.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// Redundancy disagrees with data (a parity or mirror page is wrong).
    #[error("redundancy check: {0}")]
    Redundancy(#[from] RedundancyError),
    /// A request's arrival time does not fit simulated time.
    #[error("request {request} arrives at {arrival_ns} ns × host.time_scale {time_scale}, beyond the simulator's clock range (about 146 years); check the trace's timestamps or host.time_scale")]
    TimeOverflow {
        /// 0-based index of the request in the trace.
        request: u64,
        /// Its arrival time relative to the first request, before scaling.
        arrival_ns: u64,
        /// The configured scale.
        time_scale: f64,
    },
    /// A host read returned content other than what was last written (verify mode).
    #[error("verify: read of LPN {lpn} at {at_ns} ns returned token {found:#018x}, expected {expected:#018x}")]
    VerifyMismatch {
        /// The logical page.
        lpn: u32,
        /// The token last written.
        expected: u64,
        /// The token the read returned.
        found: u64,
        /// When.
        at_ns: u64,
    },
    /// The cached map disagrees with the map it caches (verify mode): a translation page
    /// read or audited holds another version than the directory names, or an entry a
    /// translation page records is not where the map says, with the entry clean in the
    /// CMT (a map change that bypassed the table).
    #[error(
        "verify: cached map: {what} {index} at {at_ns} ns holds {found:#x}, expected {expected:#x}"
    )]
    MapMismatch {
        /// What disagrees: `"translation page"` (its slot), `"entry of LPN"` or `"group record"`.
        what: &'static str,
        /// The translation page's slot, the LPN, or the group.
        index: u32,
        /// What it should hold: a translation page's token, or the map's value (a mapped
        /// page + 1, 0 for unmapped; for a group record, its pages' fingerprint).
        expected: u64,
        /// What it holds.
        found: u64,
        /// When.
        at_ns: u64,
    },
    /// A request addresses beyond logical capacity and `ftl.address_fold = "error"`.
    #[error("request at byte {offset_bytes} (+{size_bytes}) is beyond the logical capacity of {capacity_bytes} bytes (set ftl.address_fold = \"modulo\" to fold it)")]
    AddressOutOfRange {
        /// Request offset.
        offset_bytes: u64,
        /// Request size.
        size_bytes: u64,
        /// Logical capacity.
        capacity_bytes: u64,
    },
    /// A trim runs past the device's logical capacity (trims are never folded, whatever
    /// `ftl.address_fold` says; a trace file's reader refuses such a line itself, with
    /// its line, when it is told the capacity).
    #[error("request {request} (a trim of byte {offset_bytes}, {size_bytes} bytes) runs past the end of the device ({capacity_bytes} bytes); drop discards (--discards drop) or use a larger device")]
    TrimPastEnd {
        /// 0-based index of the request in its source.
        request: u64,
        /// The trim's first byte.
        offset_bytes: u64,
        /// Its size.
        size_bytes: u64,
        /// Logical capacity.
        capacity_bytes: u64,
    },
    /// A request from a source other than a trace file (which checks this itself) is
    /// empty, runs past 2^64 bytes, or covers more pages than a request can.
    #[error("request {request} (byte {offset_bytes}, {size_bytes} bytes): {reason}")]
    BadRequest {
        /// 0-based index of the request in its source.
        request: u64,
        /// Request offset.
        offset_bytes: u64,
        /// Request size.
        size_bytes: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tenant's request is larger than its namespace (`host.tenant`).
    #[error("host.tenant[{tenant}]: a request of {size_bytes} bytes is larger than the tenant's namespace ({namespace_bytes} bytes); give it a larger namespace_bytes")]
    TenantNamespace {
        /// The tenant (0-based, in configuration order).
        tenant: usize,
        /// The request's size.
        size_bytes: u64,
        /// The namespace's size.
        namespace_bytes: u64,
    },
    /// A request is larger than the whole logical capacity of the device.
    #[error(
        "request {request} of the trace (counting from 0) is {size_bytes} bytes, larger \
         than the device's logical capacity of {capacity_bytes} bytes"
    )]
    LargerThanDevice {
        /// 0-based index of the request in its source.
        request: u64,
        /// Request size.
        size_bytes: u64,
        /// Logical capacity.
        capacity_bytes: u64,
    },
    /// The run ended with requests that could never complete (the device is full:
    /// garbage collection found nothing to reclaim).
    #[error("device full: {unfinished} requests could not complete ({parked_writes} writes found no free page and GC had nothing to reclaim)")]
    Stuck {
        /// Requests left.
        unfinished: u64,
        /// Writes waiting for space.
        parked_writes: u64,
    },
    /// Writing an output failed.
    #[error("output: {0}")]
    Io(String),
}

impl SimError {
    /// A configuration error about `key`.
    pub fn config(key: &str, message: String) -> SimError {
        SimError::Config(ConfigErrors(vec![ConfigError::Invalid {
            key: key.to_string(),
            message,
        }]))
    }

    /// True when the error is the user's input (exit code 2), not an internal failure.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            SimError::Config(_)
                | SimError::Trace(_)
                | SimError::AddressOutOfRange { .. }
                | SimError::TrimPastEnd { .. }
                | SimError::BadRequest { .. }
                | SimError::TenantNamespace { .. }
                | SimError::LargerThanDevice { .. }
                | SimError::TimeOverflow { .. }
        )
    }
}
