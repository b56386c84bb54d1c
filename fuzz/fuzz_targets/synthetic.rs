//! Synthetic workload descriptions (TOML): refused with errors naming keys, or valid and
//! generating requests that are themselves valid (first 200 checked).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_trace::{Op, SyntheticConfig, TraceSource};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(cfg) = toml::from_str::<SyntheticConfig>(text) else {
        return;
    };
    if cfg.validate().is_err() {
        return;
    }
    let Ok(mut stream) = TraceSource::Synthetic(cfg).open() else {
        return;
    };
    let mut last = 0;
    for r in stream.by_ref().take(200) {
        let io = r.expect("a valid description generates valid requests");
        if io.op == Op::Flush {
            assert_eq!((io.offset_bytes, io.size_bytes, io.fua), (0, 0, false));
        } else {
            assert!(io.size_bytes > 0);
            assert!(io.offset_bytes.checked_add(io.size_bytes - 1).is_some());
            assert!(!io.fua || io.op == Op::Write);
        }
        assert!(io.arrival_ns >= last);
        last = io.arrival_ns;
    }
});
