//! Any bytes, plain or gzip, through format detection (or each forced format) and the
//! reader: valid records (positive size, byte range within 2^64, FUA on writes only;
//! flushes without data; times that never go backwards) or a typed error, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_trace::{Op, TraceFormat, TraceOptions, TraceReader};
use std::io::Write;

fn temp_path() -> std::path::PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("ssdlab-fuzz-{}.trace", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    let path = temp_path();
    let bytes = if mode & 0x80 != 0 {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(body).unwrap();
        gz.finish().unwrap()
    } else {
        body.to_vec()
    };
    std::fs::write(&path, &bytes).unwrap();
    let format = match mode & 0x0f {
        n @ 0..=6 => Some(TraceFormat::ALL[n as usize]),
        _ => None,
    };
    let opts = TraceOptions {
        format,
        skip_bad_lines: mode & 0x40 != 0,
        repeat: if mode & 0x20 != 0 { 2 } else { 1 },
        ..TraceOptions::default()
    };
    if let Ok(reader) = TraceReader::open(&path, &opts) {
        let mut last = 0u64;
        for r in reader.take(100_000) {
            let Ok(io) = r else { break };
            if io.op == Op::Flush {
                let empty = (io.offset_bytes, io.size_bytes, io.fua);
                assert_eq!(empty, (0, 0, false), "a flush carries no data");
            } else {
                assert!(io.size_bytes > 0, "empty request");
                assert!(io.size_bytes <= opts.max_request_bytes, "oversized request");
                assert!(
                    io.offset_bytes.checked_add(io.size_bytes - 1).is_some(),
                    "byte range past 2^64"
                );
                assert!(!io.fua || io.op == Op::Write, "FUA on a read");
            }
            assert!(io.arrival_ns >= last, "time went backwards");
            assert!(io.arrival_ns <= ssdlab_trace::MAX_ARRIVAL_NS * 2);
            last = io.arrival_ns;
        }
    }
    let _ = std::fs::remove_file(&path);
});
