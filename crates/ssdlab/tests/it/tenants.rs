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
    let with: SimConfig = ConfigBuilder::new()
        .text(&cfg.to_toml(), "small")
        .unwrap()
        .text(&text, "tenants")
        .unwrap()
        .build()
        .unwrap();
    cfg.host = with.host;
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
