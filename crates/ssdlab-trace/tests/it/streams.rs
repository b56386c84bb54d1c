//! Each reader's stream field (`TraceOptions::streams`): off by default (every request's
//! stream `None`), on the format's field, and a value past 32 bits refused by line.

use ssdlab_trace::{SyntheticConfig, TraceFormat, TraceOptions, TraceReader, TraceSource};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The streams of every request of `path`, read with `streams` on or off.
fn streams(path: &Path, on: bool) -> Vec<Option<u32>> {
    let opts = TraceOptions {
        streams: on,
        ..TraceOptions::default()
    };
    TraceReader::open(path, &opts)
        .unwrap()
        .map(|r| r.unwrap().stream)
        .collect()
}

fn distinct(s: &[Option<u32>]) -> BTreeSet<u32> {
    s.iter()
        .map(|v| v.expect("every request names its stream"))
        .collect()
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssdlab-trace-streams");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_reader_leaves_the_stream_out_unless_asked() {
    for rel in [
        "mqsim/tpcc-small.mqsim.gz",
        "msr/wdev_3.csv.gz",
        "fiu/mail-cheetah-10k.fiu.gz",
        "blkparse/ycsb-ext4.blkparse.gz",
        "spc-derived/financial1-50k.disksim.gz",
    ] {
        let off = streams(&super::trace(rel), false);
        assert!(!off.is_empty());
        assert!(off.iter().all(Option::is_none), "{rel}");
        assert_eq!(off.len(), streams(&super::trace(rel), true).len(), "{rel}");
    }
}

#[test]
fn each_reader_takes_its_formats_stream_field() {
    // MQSim's device column: tpcc-small names 16 devices.
    let s = distinct(&streams(&super::trace("mqsim/tpcc-small.mqsim.gz"), true));
    assert_eq!(s, (0..16).collect());
    // MSR's disk number.
    let s = distinct(&streams(&super::trace("msr/wdev_3.csv.gz"), true));
    assert_eq!(s, BTreeSet::from([3]));
    // FIU's pid (kjournald 2718, gzip 20782, swapper 0 among others).
    let s = distinct(&streams(&super::trace("fiu/mail-cheetah-10k.fiu.gz"), true));
    assert!(s.is_superset(&BTreeSet::from([0, 2718, 20782])), "{s:?}");
    // blkparse's pid.
    let s = distinct(&streams(
        &super::trace("blkparse/ycsb-ext4.blkparse.gz"),
        true,
    ));
    assert!(s.contains(&3626) && s.len() > 10, "{s:?}");
    // DiskSim's device: the spc-derived conversion puts every request on device 0.
    let s = distinct(&streams(
        &super::trace("spc-derived/financial1-50k.disksim.gz"),
        true,
    ));
    assert_eq!(s, BTreeSet::from([0]));
    // SPC's ASU.
    let spc = write_temp(
        "asu.spc",
        "0,10,4096,w,0.0\n3,10,4096,w,0.1\n1,8,512,r,0.2\n",
    );
    assert_eq!(
        streams(&spc, true),
        [Some(0), Some(3), Some(1)],
        "the ASU of each line"
    );
    assert_eq!(TraceFormat::Spc.stream_field(), "ASU");
    assert_eq!(TraceFormat::Msr.stream_field(), "DiskNumber");
}

#[test]
fn a_stream_past_32_bits_is_refused_with_its_line_and_field() {
    let text = "1 4270 p 8 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n\
                2 4294967296 p 16 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n";
    let path = write_temp("big-pid.fiu", text);
    let opts = TraceOptions {
        streams: true,
        format: Some(TraceFormat::Fiu),
        ..TraceOptions::default()
    };
    let mut r = TraceReader::open(&path, &opts).unwrap();
    assert_eq!(r.next().unwrap().unwrap().stream, Some(4270));
    let e = r.next().unwrap().unwrap_err();
    assert_eq!((e.line, e.field()), (2, Some("pid")), "{e}");
    // Not asked for, the same file reads whole.
    let opts = TraceOptions {
        streams: false,
        ..opts
    };
    assert_eq!(TraceReader::open(&path, &opts).unwrap().count(), 2);
}

#[test]
fn a_synthetic_rule_tags_writes_only_and_changes_nothing_else() {
    let plain = SyntheticConfig {
        requests: 5_000,
        read_ratio: 0.5,
        ..SyntheticConfig::default()
    };
    let tagged = SyntheticConfig {
        placement: Some(ssdlab_trace::PlacementRule::Size {
            large_bytes: 32_768,
        }),
        ..plain.clone()
    };
    let a: Vec<_> = TraceSource::Synthetic(plain)
        .open()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let b: Vec<_> = TraceSource::Synthetic(tagged)
        .open()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.stream, None);
        let want = (y.op == ssdlab_trace::Op::Write).then_some(u32::from(y.size_bytes >= 32_768));
        assert_eq!(y.stream, want, "{y:?}");
        let y = ssdlab_trace::IoRequest {
            stream: None,
            ..y.clone()
        };
        assert_eq!(*x, y, "only the stream differs");
    }
}
