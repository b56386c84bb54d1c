//! Integration tests of ssdlab-stats: recorder → report → JSON, table, CSV, comparison.

mod output;
mod recorder;

use ssdlab_stats::{EndState, OpClass, Recorder, Report, RequestRecord, RunMeta, Shape};

/// A device of 2 channels × 2 chips × 2 dies.
pub fn small_shape() -> Shape {
    Shape {
        channels: 2,
        chips: 4,
        dies: 8,
        page_size_bytes: 4096,
    }
}

/// An end state for [`small_shape`] with every resource idle.
pub fn idle_end(end_ns: u64) -> EndState {
    EndState {
        end_ns,
        die_busy_ns: vec![0; 8],
        chip_busy_ns: vec![0; 4],
        channel_busy_ns: vec![0; 2],
        meta: RunMeta {
            seed: 7,
            config_hash: "00ff".into(),
            git_rev: "abc123".into(),
            trace: "synthetic".into(),
            scheduler: "fifo".into(),
            preset: None,
            version: "0.1.0".into(),
        },
        ..Default::default()
    }
}

/// A one-page request.
pub fn req(
    id: u64,
    op: OpClass,
    arrival_ns: u64,
    admitted_ns: u64,
    completion_ns: u64,
    service_ns: u64,
) -> RequestRecord {
    RequestRecord {
        id,
        op,
        offset_bytes: id * 4096,
        size_bytes: 4096,
        arrival_ns,
        admitted_ns,
        completion_ns,
        service_ns,
        pages: 1,
        flash_ops: 1,
        buffer_hits: 0,
        pre_read_ns: 0,
        status: ssdlab_stats::RequestStatus::Ok,
    }
}

/// The five requests of the hand-computed example (times in ns).
///
/// | id | op    | arrival | admitted | completion | service | response  | waiting |
/// |----|-------|---------|----------|------------|---------|-----------|---------|
/// | 0  | read  | 0       | 0        | 100,000    | 60,000  | 100,000   | 40,000  |
/// | 1  | read  | 10,000  | 20,000   | 250,000    | 60,000  | 240,000   | 180,000 |
/// | 2  | write | 20,000  | 20,000   | 520,000    | 300,000 | 500,000   | 200,000 |
/// | 3  | read  | 30,000  | 30,000   | 60,000     | 45,000  | 30,000    | 0 (sat.)|
/// | 4  | write | 40,000  | 50,000   | 1,040,000  | 700,000 | 1,000,000 | 300,000 |
pub fn five_requests() -> Vec<RequestRecord> {
    vec![
        req(0, OpClass::Read, 0, 0, 100_000, 60_000),
        req(1, OpClass::Read, 10_000, 20_000, 250_000, 60_000),
        req(2, OpClass::Write, 20_000, 20_000, 520_000, 300_000),
        req(3, OpClass::Read, 30_000, 30_000, 60_000, 45_000),
        req(4, OpClass::Write, 40_000, 50_000, 1_040_000, 700_000),
    ]
}

/// The report of [`five_requests`] on an idle [`small_shape`] device.
pub fn five_request_report() -> Report {
    let mut rec = Recorder::new(small_shape());
    for r in five_requests() {
        rec.request_done(&r);
    }
    rec.check_invariants();
    rec.finish(idle_end(1_040_000)).expect("no sink, no error")
}
