//! Tenants (docs/HOST.md): several workloads at once, each in its own namespace and
//! submission queue, fetched into the shared device queue by round robin or weighted
//! round robin; their results reported one by one.

use crate::util::{io, small_config};
use ssdlab::{ConfigBuilder, Report, SimConfig};
use ssdlab_trace::{Content, IoRequest, Op};

/// `n` one-page writes at LPNs 0.. (content seeded by `seed`), 10 µs apart, then reads
/// of the same pages.
fn write_then_read(n: u64, seed: u64) -> Vec<IoRequest> {
    let mut v: Vec<IoRequest> = (0..n)
        .map(|i| IoRequest {
            content: Some(Content::Seed(seed + i)),
            ..io(i * 10, Op::Write, i, 1)
        })
        .collect();
    v.extend((0..n).map(|i| io(10 * n + 1000 + i * 10, Op::Read, i, 1)));
    v
}

/// `cfg` with two tenants (the traces are in memory: the paths only name them).
fn two_tenants(extra: &str) -> SimConfig {
    let mut cfg = small_config(&["verify=true"]);
    let text = format!(
        "[[host.tenant]]\nname = \"a\"\ntrace = \"a\"\n{extra}\n[[host.tenant]]\nname = \"b\"\ntrace = \"b\"\n{extra}\n"
    );
    cfg = crate::util::with_host(cfg, &text);
    cfg
}

fn run(cfg: SimConfig, a: Vec<IoRequest>, b: Vec<IoRequest>) -> Report {
    crate::util::run_tenants(cfg, "a + b", vec![a, b])
}

/// Two tenants writing and reading the same addresses, each in its namespace: verify
/// finds every read right (neither overwrote the other), each tenant's counts are its
/// own and add up to the run's, and a second run gives the same report.
#[test]
fn two_tenants_on_the_same_addresses_keep_their_data_apart() {
    let r = run(
        two_tenants(""),
        write_then_read(200, 1),
        write_then_read(200, 1 << 40),
    );
    let t = r.tenants.as_ref().expect("tenants reported");
    assert_eq!(t.tenants.len(), 2);
    for x in &t.tenants {
        assert_eq!((x.reads, x.writes), (200, 200), "{}", x.name);
        assert_eq!(x.response.count, 400);
    }
    let sum = |f: fn(&ssdlab_stats::TenantReport) -> u64| t.tenants.iter().map(f).sum::<u64>();
    assert_eq!(sum(|x| x.reads), r.requests.read);
    assert_eq!(sum(|x| x.writes), r.requests.write);
    assert_eq!(r.counter(ssdlab_stats::Counter::VerifiedReads), 400);
    // 400 distinct pages written: the namespaces kept the same addresses apart.
    assert_eq!(r.host_pages_written, 400);
    let again = run(
        two_tenants(""),
        write_then_read(200, 1),
        write_then_read(200, 1 << 40),
    );
    assert_eq!(r.to_json(), again.to_json(), "a run is deterministic");
}

/// With `shared = true` on both, the tenants address the same pages: still checked
/// right (each read sees the last write), but the two namespaces are one.
#[test]
fn shared_tenants_address_the_same_pages() {
    let r = run(
        two_tenants("shared = true"),
        write_then_read(50, 1),
        Vec::new(),
    );
    let t = r.tenants.unwrap();
    assert_eq!((t.tenants[0].reads, t.tenants[1].reads), (50, 0));
    assert_eq!(r.requests.read, 50);
}

/// A burst of reads from each tenant at once through a device queue of 2: under round
/// robin they fare alike; under weighted round robin the urgent tenant's requests are
/// all fetched first, and a high tenant of weight 8 waits less than a low one of 1.
#[test]
fn arbitration_decides_who_waits() {
    let burst = |first: u64| -> Vec<IoRequest> {
        (0..300)
            .map(|i| io(0, Op::Read, first + i * 7, 1))
            .collect()
    };
    let mean = |extra: &str, classes: [&str; 2]| -> [f64; 2] {
        let mut cfg = two_tenants("");
        cfg.host.device_queue_depth = 2;
        let text = format!("[host]\n{extra}\n");
        let more: SimConfig = ConfigBuilder::new()
            .text(&text, "arb")
            .unwrap()
            .build()
            .unwrap();
        cfg.host.arbitration = more.host.arbitration;
        cfg.host.weights = more.host.weights;
        for (t, c) in cfg.host.tenant.iter_mut().zip(classes) {
            let one: SimConfig = ConfigBuilder::new()
                .text(
                    &format!("[[host.tenant]]\ntrace = \"x\"\nclass = \"{c}\"\n"),
                    "c",
                )
                .unwrap()
                .build()
                .unwrap();
            t.class = one.host.tenant[0].class;
        }
        let r = run(cfg, burst(0), burst(3));
        let t = r.tenants.unwrap();
        [t.tenants[0].response.mean_ns, t.tenants[1].response.mean_ns]
    };
    let rr = mean("", ["medium", "medium"]);
    assert!((rr[0] / rr[1] - 1.0).abs() < 0.05, "round robin: {rr:?}");
    let urgent = mean("arbitration = \"weighted-round-robin\"", ["low", "urgent"]);
    assert!(urgent[1] * 1.6 < urgent[0], "urgent first: {urgent:?}");
    let wrr = "arbitration = \"weighted-round-robin\"\nweights = [8, 1, 1]";
    let weighted = mean(wrr, ["high", "low"]);
    assert!(weighted[0] * 1.3 < weighted[1], "weights: {weighted:?}");
}

/// Bad tenant keys are refused by name.
#[test]
fn bad_tenants_are_refused_by_key() {
    for (text, key) in [
        ("[[host.tenant]]\ntrace = \"a\"\nqueue_depth = 0\n", "host.tenant[0].queue_depth"),
        ("[host]\nweights = [0, 1, 1]\n[[host.tenant]]\ntrace = \"a\"\n", "host.weights[0]"),
        (
            "[[host.tenant]]\ntrace = \"a\"\nnamespace_bytes = 4096\nnamespace_offset_bytes = 1099511627776\n",
            "host.tenant[0].namespace_bytes",
        ),
        (
            "[[host.tenant]]\ntrace = \"a\"\nnamespace_bytes = 8192\n[[host.tenant]]\ntrace = \"b\"\nnamespace_bytes = 8192\n",
            "host.tenant[1].namespace_offset_bytes",
        ),
    ] {
        let errs = ConfigBuilder::new().text(text, "t").unwrap().build().unwrap_err();
        assert!(errs.to_string().contains(key), "{text}: {errs}");
    }
}

/// For tenant `name`'s rows of a per-request CSV: `(arrival, completion)` in ns.
fn spans(csv: &str, name: &str) -> Vec<(u64, u64)> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |c: &str| head.iter().position(|&h| h == c).unwrap();
    let (a, c, t) = (col("arrival_ns"), col("completion_ns"), col("tenant"));
    lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .filter(|f| f[t] == name)
        .map(|f| (f[a].parse().unwrap(), f[c].parse().unwrap()))
        .collect()
}

/// A closed-loop tenant keeps exactly its queue depth outstanding, its trace times
/// ignored: its first `qd` requests arrive at once, and every later one arrives when
/// one of its requests completes. The open-loop tenant beside it keeps its trace
/// times. A second run gives the same report.
#[test]
fn a_closed_loop_tenant_keeps_its_queue_depth_outstanding() {
    let qd = 4;
    let go = || {
        let mut cfg = two_tenants("");
        cfg.host.tenant[0].mode = Some(ssdlab::config::HostMode::Closed);
        cfg.host.tenant[0].queue_depth = qd;
        // A second apart: an open-loop replay would take 300 s.
        let a: Vec<IoRequest> = (0..300)
            .map(|i| {
                io(
                    i * 1_000_000,
                    if i % 3 == 0 { Op::Write } else { Op::Read },
                    i * 5,
                    2,
                )
            })
            .collect();
        let b: Vec<IoRequest> = (0..50).map(|i| io(i * 100, Op::Write, i, 1)).collect();
        crate::util::run_tenants_csv(cfg, "a + b", vec![a, b])
    };
    let (r, csv) = go();
    let a = spans(&csv, "a");
    assert_eq!(a.len(), 300);
    let mut arrivals: Vec<u64> = a.iter().map(|s| s.0).collect();
    let mut completions: Vec<u64> = a.iter().map(|s| s.1).collect();
    arrivals.sort_unstable();
    completions.sort_unstable();
    assert!(arrivals[..qd as usize].iter().all(|&t| t == 0));
    assert_eq!(
        arrivals[qd as usize..],
        completions[..300 - qd as usize],
        "each later request arrives as one completes"
    );
    // Exactly qd outstanding just after each completion before the one that finds the
    // workload over.
    let over = completions[300 - qd as usize];
    for &t in completions.iter().filter(|&&t| t < over) {
        let out = a.iter().filter(|&&(s, e)| s <= t && t < e).count();
        assert_eq!(out, qd as usize, "at {t} ns");
    }
    assert!(
        *completions.last().unwrap() < 1_000_000_000,
        "trace times ignored"
    );
    // The open-loop tenant arrives at its trace times.
    let b = spans(&csv, "b");
    let mut b_arrivals: Vec<u64> = b.iter().map(|s| s.0).collect();
    b_arrivals.sort_unstable();
    assert_eq!(
        b_arrivals,
        (0..50).map(|i| i * 100_000).collect::<Vec<u64>>()
    );
    let (again, csv2) = go();
    assert_eq!(r.to_json(), again.to_json(), "a run is deterministic");
    assert_eq!(csv, csv2);
}

/// `host.mode = "closed"` makes every tenant closed loop unless one says otherwise.
#[test]
fn host_mode_closed_applies_to_every_tenant() {
    let mut cfg = two_tenants("queue_depth = 2");
    cfg.host.mode = ssdlab::config::HostMode::Closed;
    cfg.validate().unwrap();
    let reqs = |first: u64| -> Vec<IoRequest> {
        (0..40)
            .map(|i| io(i * 1_000_000, Op::Write, first + i, 1))
            .collect()
    };
    let (r, csv) = crate::util::run_tenants_csv(cfg, "a + b", vec![reqs(0), reqs(100)]);
    assert_eq!(r.requests.write, 80);
    for name in ["a", "b"] {
        let s = spans(&csv, name);
        assert_eq!(s.iter().filter(|x| x.0 == 0).count(), 2, "{name}");
        assert!(
            s.iter().all(|x| x.1 < 1_000_000_000),
            "{name}: trace times ignored"
        );
    }
}

/// For tenant `name`'s rows of a per-request CSV: `(admitted, completion)` in ns.
fn in_device(csv: &str, name: &str) -> Vec<(u64, u64)> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |c: &str| head.iter().position(|&h| h == c).unwrap();
    let (a, c, t) = (col("admitted_ns"), col("completion_ns"), col("tenant"));
    lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .filter(|f| f[t] == name)
        .map(|f| (f[a].parse().unwrap(), f[c].parse().unwrap()))
        .collect()
}

/// The most of `spans` open at once.
fn most_at_once(spans: &[(u64, u64)]) -> usize {
    spans
        .iter()
        .map(|&(s, _)| spans.iter().filter(|&&(a, e)| a <= s && s < e).count())
        .max()
        .unwrap_or(0)
}

/// The fetch size (MQSim's `Queue_Fetch_Size`) bounds a queue's commands in the device:
/// with `fetch_size = 2` at most two of tenant a's requests are between admission and
/// completion at any time, though it keeps eight outstanding; tenant b, limited by its
/// queue depth only, has more. `host.fetch_size` sets it for every tenant.
#[test]
fn the_fetch_size_bounds_a_queues_commands_in_the_device() {
    let burst = |first: u64| -> Vec<IoRequest> {
        (0..200)
            .map(|i| io(0, Op::Read, first + i * 7, 1))
            .collect()
    };
    let mut cfg = two_tenants("queue_depth = 8\nmode = \"closed\"");
    cfg.host.tenant[0].fetch_size = Some(2);
    let (_, csv) = crate::util::run_tenants_csv(cfg.clone(), "a + b", vec![burst(0), burst(3)]);
    assert_eq!(most_at_once(&in_device(&csv, "a")), 2);
    assert!(most_at_once(&in_device(&csv, "b")) > 2);
    // Outstanding in the host, though: eight at once.
    assert_eq!(spans(&csv, "a").iter().filter(|s| s.0 == 0).count(), 8);
    cfg.host.tenant[0].fetch_size = None;
    cfg.host.fetch_size = 3;
    let (_, csv) = crate::util::run_tenants_csv(cfg, "a + b", vec![burst(0), burst(3)]);
    assert_eq!(most_at_once(&in_device(&csv, "a")), 3);
    assert_eq!(most_at_once(&in_device(&csv, "b")), 3);
}
