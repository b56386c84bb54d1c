//! Requests from sources that do not check them (in-memory streams, bindings): the
//! controller refuses what it cannot take with a typed error, never a panic or a wrap.

use crate::util::{page, small_config, vec_sim};
use ssdlab::SimError;
use ssdlab_trace::{IoRequest, Op};

fn run_one(bad: IoRequest) -> SimError {
    let reqs = vec![page(0, Op::Write, 1), bad, page(2_000, Op::Read, 1)];
    let err = vec_sim(small_config(&[]), reqs).run().unwrap_err();
    assert!(err.is_bad_input(), "{err}");
    err
}

#[test]
fn empty_wrapping_and_oversized_requests_are_bad_input() {
    let base = page(1_000, Op::Write, 0);
    for (bad, words) in [
        (
            IoRequest {
                size_bytes: 0,
                ..base.clone()
            },
            "positive size",
        ),
        (
            IoRequest {
                offset_bytes: u64::MAX - 10,
                size_bytes: 4096,
                ..base.clone()
            },
            "past 2^64",
        ),
        (
            IoRequest {
                offset_bytes: 0,
                size_bytes: 1 << 50,
                ..base
            },
            "2^32 - 1 pages",
        ),
    ] {
        let e = run_one(bad).to_string();
        assert!(e.contains("request 1") && e.contains(words), "{e}");
    }
}

#[test]
fn a_request_larger_than_the_device_is_refused() {
    let bad = IoRequest {
        offset_bytes: 0,
        size_bytes: 1 << 30,
        ..page(1_000, Op::Write, 0)
    };
    let e = run_one(bad);
    assert!(
        matches!(e, SimError::LargerThanDevice { request: 1, .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains("logical capacity") && text.contains("1073741824"),
        "{text}"
    );
}

#[test]
fn the_request_table_counts_flash_operations_by_what_they_are() {
    // Writes only: every flash operation a request submitted is a program of its own.
    let reqs: Vec<IoRequest> = (0..20).map(|i| page(i * 1_000, Op::Write, i)).collect();
    let r = vec_sim(small_config(&[]), reqs).run().unwrap();
    assert_eq!(r.work.read.flash_ops, 0);
    assert_eq!(r.work.write.flash_ops, 20);
    assert_eq!(r.work.all.flash_ops, 20);
    let json = r.to_json();
    assert!(json.contains("\"flash_ops\"") && !json.contains("flash_reads"));
}
