//! The tenants' share of the DRAM stage (`cache.sharing`, docs/DRAM.md, "Tenants"):
//! the two MQSim sample traces with a shared and an equally partitioned stage, verified
//! and audited; a full partition holds back only its own tenant; a tenant's flush waits
//! for its own partition; power losses under random tenant mixes stay verified.

use crate::util::{io, run_tenants, sample_stream, small_config, with_host};
use proptest::prelude::*;
use ssdlab::{ConfigBuilder, Report, SimConfig, Simulation, VecStream};
use ssdlab_stats::{Counter, TenantDramReport};
use ssdlab_trace::{IoRequest, Op};

/// The small device, verified, with a write-back buffer of `mib` MiB shared as
/// `sharing`, `extra` keys on top, and tenants `a` and `b` (`b` at `b_scale` of its
/// trace's times).
fn config(mib: u32, sharing: &str, b_scale: f64, extra: &[&str]) -> SimConfig {
    let mut sets = vec![
        "verify=true".to_string(),
        "cache.mode=\"write-buffer\"".to_string(),
        format!("cache.capacity_mib={mib}"),
        format!("cache.sharing=\"{sharing}\""),
        "host.device_queue_depth=128".to_string(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let text = format!(
        "[[host.tenant]]\nname = \"a\"\ntrace = \"a\"\nqueue_depth = 32\n\
         [[host.tenant]]\nname = \"b\"\ntrace = \"b\"\nqueue_depth = 32\ntime_scale = {b_scale}\n"
    );
    let cfg = with_host(small_config(&sets), &text);
    cfg.validate().unwrap();
    cfg
}

fn samples(sharing: &str) -> Report {
    let mut sim = Simulation::new(
        config(1, sharing, 0.01, &[]),
        Box::new(VecStream::new(Vec::new())),
        "tpcc + wsrch",
    )
    .unwrap();
    sim.set_tenants(vec![
        sample_stream("mqsim/tpcc-small.mqsim.gz"),
        sample_stream("mqsim/wsrch-small.mqsim.gz"),
    ])
    .unwrap();
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    sim.into_report().unwrap()
}

fn per_tenant(r: &Report) -> Vec<TenantDramReport> {
    let t = r.tenants.as_ref().expect("the tenants section");
    t.tenants
        .iter()
        .map(|x| x.dram.clone().expect("a tenant's dram figures"))
        .collect()
}

/// The per-tenant figures add up to the stage's, each tenant's capacity is as the mode
/// says, and (partitioned) a partition's peak is within its capacity.
fn check_shares(r: &Report, sharing: &str, pages: u64) {
    let d = r.dram.as_ref().expect("the dram section");
    let t = r.tenants.as_ref().unwrap();
    assert_eq!(t.dram_sharing.as_deref(), Some(sharing));
    let per = per_tenant(r);
    let sum = |f: fn(&TenantDramReport) -> u64| per.iter().map(f).sum::<u64>();
    assert_eq!(sum(|c| c.read_hits), d.read_hits);
    assert_eq!(sum(|c| c.read_misses), d.read_misses);
    assert_eq!(sum(|c| c.writes_absorbed), d.writes_absorbed);
    assert_eq!(sum(|c| c.buffer_waits), d.buffer_waits);
    for c in &per {
        if sharing == "shared" {
            assert_eq!((c.capacity_pages, c.peak_dirty_pages), (pages, None));
        } else {
            assert_eq!(c.capacity_pages, pages / 2);
            assert!(c.peak_dirty_pages.expect("a partition's peak") <= c.capacity_pages);
        }
    }
    let whole = if sharing == "shared" {
        pages
    } else {
        pages / 2 * 2
    };
    assert_eq!(d.capacity_pages, whole);
}

#[test]
fn the_sample_traces_run_verified_with_a_shared_and_a_partitioned_stage() {
    for sharing in ["shared", "equal"] {
        let r = samples(sharing);
        check_shares(&r, sharing, 256);
        let t = r.tenants.as_ref().unwrap();
        assert_eq!((t.tenants[0].reads, t.tenants[0].writes), (4381, 2618));
        assert_eq!((t.tenants[1].reads, t.tenants[1].writes), (24779, 4));
        assert!(r.counter(Counter::VerifiedReads) > 0);
        let d = r.dram.as_ref().unwrap();
        assert!(d.destaged > 0 && d.writes_absorbed > 0, "{sharing}: {d:?}");
        assert_eq!(
            d.writes_absorbed,
            d.superseded + d.destaged + d.dirty_at_end,
            "{sharing}: every absorbed write accounted for"
        );
    }
}

#[test]
fn a_partitioned_run_is_deterministic_and_differs_from_a_shared_one() {
    let a = samples("equal");
    let b = samples("equal");
    assert_eq!(a.to_json(), b.to_json(), "a run is deterministic");
    let s = samples("shared");
    assert_ne!(
        a.response.all.mean_ns, s.response.all.mean_ns,
        "the partitions change the run"
    );
}

#[test]
fn shared_is_not_written_out_and_equal_is() {
    let c = config(1, "shared", 1.0, &[]);
    assert!(
        !c.to_toml().contains("sharing"),
        "the default leaves no trace"
    );
    let e = config(1, "equal", 1.0, &[]);
    assert!(e.to_toml().contains("sharing = \"equal\""));
}

/// Tenant `a` writes a burst of `n` pages 1 µs apart; tenant `b` writes one page every
/// 50 µs.
fn burst(n: u64) -> Vec<Vec<IoRequest>> {
    let a = (0..n)
        .map(|i| IoRequest {
            arrival_ns: i * 1_000,
            ..io(0, Op::Write, i % 2_000, 1)
        })
        .collect();
    let b = (0..200).map(|i| io(i * 50, Op::Write, i, 1)).collect();
    vec![a, b]
}

#[test]
fn a_full_partition_holds_back_only_its_own_tenants_writes() {
    let equal = run_tenants(config(1, "equal", 1.0, &[]), "burst", burst(3_000));
    let e = per_tenant(&equal);
    assert!(
        e[0].buffer_waits > 0,
        "a's burst fills its partition: {e:?}"
    );
    assert_eq!(e[1].buffer_waits, 0, "b never waits behind a: {e:?}");
    assert_eq!(e[1].full, 0);
    let shared = run_tenants(config(1, "shared", 1.0, &[]), "burst", burst(3_000));
    let s = per_tenant(&shared);
    assert!(
        s[1].buffer_waits > 0,
        "shared, b's writes queue behind a's: {s:?}"
    );
    let b_mean = |r: &Report| {
        r.tenants.as_ref().unwrap().tenants[1]
            .write_response
            .mean_ns
    };
    assert!(
        b_mean(&equal) < b_mean(&shared),
        "b's writes are faster in its own partition: {} against {}",
        b_mean(&equal),
        b_mean(&shared)
    );
}

#[test]
fn a_tenants_flush_waits_for_its_own_partition_only() {
    // b leaves 60 dirty pages (below both stages' watermarks); a writes 2 and flushes.
    let run = |sharing: &str| {
        let a = vec![io(1_000, Op::Write, 5, 2), IoRequest::flush(1_100_000)];
        let b = (0..60).map(|i| io(i * 10, Op::Write, i, 1)).collect();
        run_tenants(config(1, sharing, 1.0, &[]), "flush", vec![a, b])
    };
    let e = run("equal");
    let s = run("shared");
    let (de, ds) = (e.dram.as_ref().unwrap(), s.dram.as_ref().unwrap());
    assert_eq!((de.flushes, ds.flushes), (1, 1));
    assert_eq!(
        de.dirty_at_end, 60,
        "b's pages stay in its partition: {de:?}"
    );
    assert_eq!(
        ds.dirty_at_end, 0,
        "a shared flush destages every page: {ds:?}"
    );
    assert!(
        de.flush_wait_ns_max < ds.flush_wait_ns_max,
        "{} against {}",
        de.flush_wait_ns_max,
        ds.flush_wait_ns_max
    );
}

#[test]
fn equal_sharing_is_refused_without_a_stage_or_without_tenants() {
    let off = ConfigBuilder::new()
        .set("cache.sharing=\"equal\"")
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(off.contains("cache.sharing"), "{off}");
    // Without tenants: the configuration is read before several --trace join it, so
    // the simulation refuses it.
    let alone = ConfigBuilder::new()
        .set("cache.mode=\"write-buffer\"")
        .unwrap()
        .set("cache.capacity_mib=1")
        .unwrap()
        .set("cache.sharing=\"equal\"")
        .unwrap()
        .build()
        .unwrap();
    let e = Simulation::new(alone, Box::new(VecStream::new(Vec::new())), "one")
        .err()
        .expect("refused");
    assert!(e.is_bad_input());
    let e = e.to_string();
    assert!(
        e.contains("cache.sharing") && e.contains("no tenants"),
        "{e}"
    );
    let mut shared_ns = config(1, "equal", 1.0, &[]);
    shared_ns.host.tenant[1].shared = true;
    let e = shared_ns.validate().unwrap_err().to_string();
    assert!(
        e.contains("cache.sharing") && e.contains("host.tenant[1]"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random mixes of two tenants' reads, writes, FUA writes and flushes over a
    /// partitioned stage, with and without a power loss and PLP: every request
    /// completes, every read returns what was last written (or, after a loss, what
    /// survived), and the audit finds flash and DRAM consistent.
    #[test]
    fn partitioned_stages_stay_verified_under_tenant_mixes_and_power_loss(
        ops in prop::collection::vec((0u8..10, 0u64..300, 1u64..4, 0u8..2), 50..400),
        mode in 0usize..2,
        loss in 0usize..3,
        plp in 0u64..40,
    ) {
        let mut tenants: Vec<Vec<IoRequest>> = vec![Vec::new(), Vec::new()];
        for (i, &(op, lpn, pages, who)) in ops.iter().enumerate() {
            let t = i as u64 * 7;
            let r = match op {
                0..=3 => io(t, Op::Write, lpn, pages),
                4 => IoRequest { fua: true, ..io(t, Op::Write, lpn, pages) },
                5 => IoRequest::flush(t * 1_000),
                _ => io(t, Op::Read, lpn, pages),
            };
            tenants[who as usize].push(r);
        }
        let modes = ["\"write-buffer\"", "\"read-write\""];
        let fail = ["", "raid.fail=[\"power@400us\"]", "raid.fail=[\"power@1ms\"]"];
        let mut extra = vec![format!("cache.mode={}", modes[mode])];
        if loss > 0 {
            extra.push(fail[loss].to_string());
            extra.push(format!("cache.plp_pages={plp}"));
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let r = run_tenants(config(1, "equal", 1.0, &extra), "mix", tenants);
        let d = r.dram.as_ref().expect("the dram section");
        prop_assert_eq!(d.power_losses, u64::from(loss > 0));
        let per = per_tenant(&r);
        for c in &per {
            prop_assert!(c.peak_dirty_pages.unwrap() <= c.capacity_pages);
        }
    }
}
