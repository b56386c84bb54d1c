//! Any byte string, through format detection and every reader, plain or gzip: valid
//! records (positive size, within the size bound, byte range within 2^64, times that
//! never go backwards) or a typed error, never a panic.

use proptest::prelude::*;
use ssdlab_trace::{TraceFormat, TraceOptions, TraceReader};
use std::io::Write;
use std::path::PathBuf;

fn path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-trace-any-bytes");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn check(bytes: &[u8], opts: &TraceOptions, name: &str) -> Result<(), TestCaseError> {
    let p = path(name);
    std::fs::write(&p, bytes).unwrap();
    let Ok(reader) = TraceReader::open(&p, opts) else {
        return Ok(());
    };
    let mut last = 0;
    for r in reader.take(10_000) {
        let Ok(io) = r else { break };
        prop_assert!(io.size_bytes > 0);
        prop_assert!(io.size_bytes <= opts.max_request_bytes);
        prop_assert!(io.offset_bytes.checked_add(io.size_bytes - 1).is_some());
        prop_assert!(io.arrival_ns >= last);
        last = io.arrival_ns;
    }
    Ok(())
}

/// Lines that look like records of the formats, with fields drawn wide (huge, negative,
/// non-numeric), so that the readers' field checks are reached, not only the detector.
fn record_like() -> impl Strategy<Value = Vec<u8>> {
    let num = prop_oneof![
        Just("0".to_string()),
        Just("18446744073709551615".to_string()),
        Just("-1".to_string()),
        Just("1e9".to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        (0u64..100_000).prop_map(|v| v.to_string()),
    ];
    let op = prop_oneof![
        Just("Read"),
        Just("Write"),
        Just("r"),
        Just("w"),
        Just("R"),
        Just("W"),
        Just("0"),
        Just("1"),
        Just("x"),
    ];
    let line = (
        prop::collection::vec(num, 5..8),
        op,
        prop::sample::select(vec![",", " ", "\t"]),
    )
        .prop_map(|(nums, op, sep)| {
            let mut f: Vec<String> = nums;
            f.insert(3.min(f.len()), op.to_string());
            f.join(sep)
        });
    prop::collection::vec(line, 0..20).prop_map(|ls| ls.join("\n").into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048), skip in any::<bool>()) {
        let opts = TraceOptions { skip_bad_lines: skip, ..TraceOptions::default() };
        check(&bytes, &opts, "raw.trace")?;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&bytes).unwrap();
        check(&gz.finish().unwrap(), &opts, "raw.trace.gz")?;
    }

    #[test]
    fn record_like_lines_in_every_format_never_panic(text in record_like(), skip in any::<bool>(), f in 0usize..8) {
        let opts = TraceOptions {
            format: TraceFormat::ALL.get(f).copied(),
            skip_bad_lines: skip,
            ..TraceOptions::default()
        };
        check(&text, &opts, "records.trace")?;
    }
}
