//! `ssdlab run` with tenants (docs/HOST.md): repeated `--trace` flags, `--alone`, and
//! refusals by key.

use crate::{out_path, read_report, ssdlab, tmp_file, trace};

/// Two sample traces as two tenants, each run alone too: the report has each tenant's
/// counts (adding up to the run's), its slowdown and the fairness index.
#[test]
fn two_traces_make_two_tenants_with_slowdowns_and_fairness() {
    let (a, b) = (
        trace("msr/hm_0-head200.csv.gz"),
        trace("mqsim/tpcc-small.mqsim.gz"),
    );
    let json = out_path("tenants-two.json");
    ssdlab([
        "run", "--trace", &a, "--trace", &b, "--alone", "--json", &json,
    ])
    .assert_ok()
    .assert_stdout_has(&[
        "Tenants (round-robin)",
        "fairness (min slowdown / max slowdown)",
    ]);
    let r = read_report(&json);
    let t = r.tenants.expect("a tenants section");
    assert_eq!(t.tenants.len(), 2);
    let reads: u64 = t.tenants.iter().map(|x| x.reads).sum();
    let writes: u64 = t.tenants.iter().map(|x| x.writes).sum();
    assert_eq!((reads, writes), (r.requests.read, r.requests.write));
    let s: Vec<f64> = t.tenants.iter().map(|x| x.slowdown.unwrap()).collect();
    let f = t.fairness.unwrap();
    assert_eq!(f, s[0].min(s[1]) / s[0].max(s[1]));
    assert!(f > 0.0 && f <= 1.0, "{f}");
}

#[test]
fn bad_tenant_keys_exit_2_naming_the_key() {
    let cfg = tmp_file(
        "tenants-bad.toml",
        "[host]\nweights = [1, 0, 1]\n[[host.tenant]]\ntrace = \"x\"\ntime_scale = -1.0\n",
    );
    ssdlab(["run", "--config", &cfg])
        .assert_input_error(&["host.weights[1]", "host.tenant[0].time_scale"]);
    let t = trace("msr/hm_0-head200.csv.gz");
    ssdlab(["verify", "--trace", &t, "--trace", &t]).assert_input_error(&["several --trace"]);
}

/// Closed-loop tenants (`host.mode = "closed"` for all) run alone too: every request
/// completes in the shared run and each tenant has a slowdown.
#[test]
fn closed_loop_tenants_run_shared_and_alone() {
    let (a, b) = (
        trace("msr/hm_0-head200.csv.gz"),
        trace("mqsim/tpcc-small.mqsim.gz"),
    );
    let json = out_path("tenants-closed.json");
    ssdlab([
        "run",
        "--trace",
        &a,
        "--trace",
        &b,
        "--set",
        "host.mode=\"closed\"",
        "--alone",
        "--json",
        &json,
    ])
    .assert_ok();
    let r = read_report(&json);
    let t = r.tenants.expect("a tenants section");
    assert_eq!(r.requests.all, 200 + 6999);
    assert!(
        t.tenants.iter().all(|x| x.slowdown.unwrap() >= 0.99),
        "{t:?}"
    );
}

/// With tenants, the per-request CSV ends each line with the request's tenant; with one
/// workload it has no such column.
#[test]
fn the_per_request_csv_names_each_requests_tenant() {
    let (a, b) = (
        trace("msr/hm_0-head200.csv.gz"),
        trace("mqsim/tpcc-small.mqsim.gz"),
    );
    let csv = out_path("tenants-requests.csv");
    ssdlab([
        "run",
        "--trace",
        &a,
        "--trace",
        &b,
        "--per-request-csv",
        &csv,
    ])
    .assert_ok();
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("{},tenant", ssdlab_stats::CSV_HEADER)
    );
    let tenants: Vec<&str> = lines.map(|l| l.rsplit(',').next().unwrap()).collect();
    let t0 = tenants.iter().filter(|&&t| t == "t0").count();
    let t1 = tenants.iter().filter(|&&t| t == "t1").count();
    assert_eq!(t0, 200, "hm_0-head200's requests");
    assert_eq!(t0 + t1, tenants.len(), "every line names t0 or t1");
    assert!(t1 > 0);
    let one = out_path("one-requests.csv");
    ssdlab(["run", "--trace", &a, "--per-request-csv", &one]).assert_ok();
    let text = std::fs::read_to_string(&one).unwrap();
    assert_eq!(text.lines().next().unwrap(), ssdlab_stats::CSV_HEADER);
}
