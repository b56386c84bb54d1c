//! JSON, table, CSV and comparison output.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use ssdlab_nand::{FlashOp, TxnReason};
use ssdlab_stats::{compare_table, Counter, OpClass, Recorder, Report, TxnRecord, CSV_HEADER};

use crate::{five_request_report, five_requests, idle_end, req, small_shape};

/// A run exercising most fields.
fn busy_report(wall_time_ns: Option<u64>) -> Report {
    let mut rec = Recorder::new(small_shape());
    for (i, r) in five_requests().iter().enumerate() {
        rec.sample_utilization(i as u32 % 5);
        rec.request_done(r);
        rec.txn_done(&TxnRecord {
            reason: TxnReason::HostRead,
            op: FlashOp::Read,
            pages: 1,
            queue_ns: 1_000 * i as u64,
            bus_wait_ns: 333,
            bus_ns: 10_000,
            array_ns: 50_000,
        });
    }
    rec.count(Counter::BufferHits, 3);
    let mut end = idle_end(1_040_000);
    end.chip_busy_ns = vec![1, 2, 3, 777_777];
    end.die_busy_ns = vec![5, 6, 7, 8, 9, 10, 11, 1_000_000];
    end.ftl.host_pages_written = 3;
    end.ftl.wear.mean = 1.0 / 3.0;
    end.wall_time_ns = wall_time_ns;
    end.events = 12_345;
    rec.finish(end).unwrap()
}

#[test]
fn json_round_trips() {
    let r = busy_report(Some(42));
    let back = Report::from_json(&r.to_json()).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.to_json(), r.to_json());
}

#[test]
fn identical_runs_give_identical_json() {
    let a = busy_report(None).to_json();
    let b = busy_report(None).to_json();
    assert_eq!(a.as_bytes(), b.as_bytes());
}

#[test]
fn wall_time_is_serialized_only_when_set() {
    let without = busy_report(None).to_json();
    assert!(!without.contains("wall_time"), "{without}");
    let with = busy_report(Some(1_500_000_000)).to_json();
    assert!(with.contains("\"wall_time_ns\": 1500000000"));
}

#[test]
fn json_uses_stable_names() {
    let json = busy_report(None).to_json();
    for key in [
        "\"host-read\"",
        "\"buffer-hits\": 3",
        "\"p999_ns\"",
        "\"sampled_chip\"",
    ] {
        assert!(json.contains(key), "{key} missing");
    }
}

#[test]
fn counters_serialize_as_a_map_in_name_order() {
    let mut rec = Recorder::new(small_shape());
    rec.count(Counter::VerifiedReads, 7);
    rec.count(Counter::BackgroundGcRuns, 0);
    rec.count(Counter::TraceSkippedLines, 1);
    rec.count(Counter::VerifiedReads, 1);
    let r = rec.finish(idle_end(0)).unwrap();
    let json = r.to_json();
    let want = "  \"counters\": {\n    \"background-gc-runs\": 0,\n    \"trace-skipped-lines\": 1,\n    \"verified-reads\": 8\n  }\n}";
    assert!(json.ends_with(want), "{json}");
    let table = r.table();
    let names: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.contains("background-gc-runs"))
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "background-gc-runs",
            "trace-skipped-lines",
            "verified-reads"
        ]
    );
    let back = Report::from_json(&json).unwrap();
    assert_eq!(back.counter(Counter::VerifiedReads), 8);
    assert_eq!(back.counter(Counter::Failures), 0);
}

#[test]
fn a_report_naming_an_unknown_counter_does_not_parse() {
    let json = five_request_report().to_json().replace(
        "\"counters\": {}",
        "\"counters\": {\n    \"no-such-counter\": 1\n  }",
    );
    assert!(json.contains("no-such-counter"), "{json}");
    let err = Report::from_json(&json).unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown counter `no-such-counter`"),
        "{err}"
    );
}

/// A writer whose bytes the test can read after the recorder has consumed it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn per_request_csv_is_exact() {
    let out = Shared::default();
    let mut rec = Recorder::new(small_shape());
    rec.set_per_request_sink(Box::new(out.clone()));
    rec.request_done(&req(7, OpClass::Read, 100, 150, 1_100, 400));
    rec.request_done(&req(8, OpClass::Write, 200, 200, 900, 800));
    rec.finish(idle_end(1_100)).unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    assert_eq!(
        text,
        "id,op,offset_bytes,size_bytes,arrival_ns,admitted_ns,completion_ns,response_ns,waiting_ns,service_ns\n\
         7,read,28672,4096,100,150,1100,1000,600,400\n\
         8,write,32768,4096,200,200,900,700,0,800\n"
    );
    assert!(text.starts_with(CSV_HEADER));
}

struct Broken;

impl Write for Broken {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
    }
    fn flush(&mut self) -> io::Result<()> {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
    }
}

#[test]
fn csv_errors_surface_at_finish() {
    let mut rec = Recorder::new(small_shape());
    rec.set_per_request_sink(Box::new(Broken));
    rec.request_done(&req(0, OpClass::Read, 0, 0, 10, 5));
    let err = rec.finish(idle_end(10)).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
}

#[test]
fn compare_normalizes_to_the_first_run() {
    let base = five_request_report();
    let mut faster = base.clone();
    faster.response.all.mean_ns = base.response.all.mean_ns * 0.82;
    faster.erases = 10;
    let names = ["fifo".to_owned(), "brr".to_owned()];
    let t = compare_table(&names, &[base, faster]);
    let line = t
        .lines()
        .find(|l| l.starts_with("mean response, all"))
        .unwrap();
    assert!(line.contains("374.00 µs (1.00×)"), "{line}");
    assert!(line.contains("306.68 µs (0.82×)"), "{line}");
    let erases = t.lines().find(|l| l.starts_with("erases")).unwrap();
    assert!(
        erases.contains("0 (1.00×)") && erases.contains("10 (n/a)"),
        "{erases}"
    );
    let header = t.lines().next().unwrap();
    assert!(header.contains("fifo") && header.contains("brr"));
    // Columns line up: every line has the same width before trimming of the header.
    let widths: Vec<_> = t.lines().skip(1).map(|l| l.chars().count()).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{t}");
}

#[test]
fn table_has_every_section() {
    let t = busy_report(Some(2_000_000_000)).table();
    for heading in [
        "Run",
        "Requests",
        "Response time (µs)",
        "Waiting time (µs)",
        "Host-queue wait (µs)",
        "Response-time breakdown (µs, mean per request)",
        "Throughput",
        "Utilization (%)",
        "Back end",
        "Transactions by reason",
        "FTL and RAID",
        "Counters",
    ] {
        assert!(
            t.lines().any(|l| l == heading),
            "missing {heading:?} in\n{t}"
        );
    }
    // 374 µs mean response, grouped counts, the named counter.
    assert!(t.contains("374.00"), "{t}");
    assert!(t.contains("12,345"), "{t}");
    assert!(t.contains("buffer-hits"), "{t}");
    assert!(t.contains("host-read"), "{t}");
    assert!(t.contains("events per wall second"), "{t}");
}
