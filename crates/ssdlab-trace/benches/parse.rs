//! Parse throughput on real traces: the Financial1 excerpt (DiskSim ASCII, 50k lines)
//! and an MSR file, from the gzip file and from an uncompressed copy in a temp dir
//! (which isolates parsing from decompression). The first case includes opening with
//! default options: format detection and the DiskSim size-unit inference.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdlab_trace::{SizeUnit, TraceFormat, TraceOptions, TraceReader};
use std::io::Read;
use std::path::{Path, PathBuf};

const FINANCIAL1: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../traces/spc-derived/financial1-50k.disksim.gz"
);
const MSR_SLICE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../traces/msr/hm_1-writes13069.csv.gz"
);

fn gunzip_to_temp(src: &str, name: &str) -> PathBuf {
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(src).expect("trace present"))
        .read_to_end(&mut text)
        .expect("gunzip");
    let dir = std::env::temp_dir().join(format!("ssdlab-trace-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp copy");
    path
}

fn count(path: &Path, opts: &TraceOptions) -> u64 {
    let reader = TraceReader::open(path, opts).expect("open");
    reader.map(|r| r.expect("valid trace").size_bytes).sum()
}

fn bench(c: &mut Criterion) {
    let disksim = TraceOptions {
        format: Some(TraceFormat::Disksim),
        disksim_size_unit: Some(SizeUnit::Pages4K),
        ..TraceOptions::default()
    };
    let msr = TraceOptions {
        format: Some(TraceFormat::Msr),
        ..TraceOptions::default()
    };
    let auto = TraceOptions::default();
    let cases = [
        (
            "financial1-50k gz, detect format and size unit",
            PathBuf::from(FINANCIAL1),
            &auto,
            50_000,
        ),
        (
            "financial1-50k gz",
            PathBuf::from(FINANCIAL1),
            &disksim,
            50_000,
        ),
        (
            "financial1-50k plain",
            gunzip_to_temp(FINANCIAL1, "financial1.disksim"),
            &disksim,
            50_000,
        ),
        (
            "hm_1-writes plain",
            gunzip_to_temp(MSR_SLICE, "hm_1.csv"),
            &msr,
            13_069,
        ),
    ];
    let mut g = c.benchmark_group("parse");
    for (name, path, opts, lines) in cases {
        g.throughput(Throughput::Elements(lines));
        g.bench_function(name, |b| b.iter(|| count(&path, opts)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
