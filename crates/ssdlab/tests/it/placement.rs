//! Placement handles (docs/HOST.md, "Placement handles"): a hot and a cold tenant on an
//! aged device, with a handle each and with one shared handle.

use crate::util::{io, small_config};
use ssdlab::{ConfigBuilder, Report, SimConfig};
use ssdlab_trace::{IoRequest, Op};

/// Pages of the hot tenant's namespace (the cold one has the rest of the device).
const HOT_PAGES: u64 = 2048;

/// The small device aged (filled, half its pages overwritten at random), with a hot
/// tenant on its first `HOT_PAGES` and a cold one on the rest, and `sets` on top.
fn config(sets: &str) -> SimConfig {
    let mut cfg = small_config(&["ftl.precondition.enabled=true"]);
    let bytes = u64::from(cfg.ftl.logical_pages(&cfg.geometry)) * 4096;
    let hot = HOT_PAGES * 4096;
    let text = format!(
        "[host]\n{sets}\n\
         [[host.tenant]]\nname = \"hot\"\ntrace = \"hot\"\nnamespace_bytes = {hot}\n\
         [[host.tenant]]\nname = \"cold\"\ntrace = \"cold\"\nnamespace_offset_bytes = {hot}\n\
         namespace_bytes = {}\n",
        (bytes - hot)
    );
    cfg = crate::util::with_host(cfg, &text);
    cfg
}

/// `n` one-page writes 50 µs apart: the hot tenant's at random in its namespace, the
/// cold one's sweeping its namespace in order.
fn writes(n: u64) -> (Vec<IoRequest>, Vec<IoRequest>) {
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let hot = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            io(i * 50, Op::Write, x % HOT_PAGES, 1)
        })
        .collect();
    let cold = (0..n).map(|i| io(i * 50 + 25, Op::Write, i, 1)).collect();
    (hot, cold)
}

fn run(cfg: SimConfig, n: u64) -> Report {
    let (hot, cold) = writes(n);
    crate::util::run_tenants(cfg, "hot + cold", vec![hot, cold])
}

/// With a handle per tenant, GC copies fewer pages than with one shared handle; each
/// handle's counts are its tenant's, and add up to the run's.
#[test]
fn a_handle_per_tenant_writes_less_than_one_shared_handle() {
    let n = 30_000;
    let apart = run(config("placement_handles = 2"), n);
    let shared = run(config("placement_handles = 1"), n);
    let p = apart.placement.as_ref().expect("placement reported");
    assert_eq!(p.handles.len(), 2);
    assert_eq!(
        (&p.handles[0].tenants[..], &p.handles[1].tenants[..]),
        (&["hot".to_string()][..], &["cold".to_string()][..])
    );
    // Every cold write is programmed; a few hot ones meet an earlier write of the same
    // page still waiting and replace it.
    assert!(p.handles[0].host_pages > n * 99 / 100 && p.handles[0].host_pages <= n);
    assert_eq!(p.handles[1].host_pages, n);
    assert_eq!(p.host_pages, apart.host_pages_written);
    assert_eq!(p.gc_copies, apart.gc_pages_moved);
    let s = shared.placement.as_ref().unwrap();
    assert_eq!(s.handles.len(), 1);
    assert_eq!(s.handles[0].tenants, ["hot", "cold"]);
    assert!(s.gc_copies > n / 2, "GC ran: {s:?}");
    assert!(
        p.write_amplification < 0.8 * s.write_amplification,
        "a handle each {:.3}, shared {:.3}",
        p.write_amplification,
        s.write_amplification
    );
}

/// One handle places every page as without handles: the runs differ only in the
/// placement section.
#[test]
fn one_handle_is_the_device_without_handles() {
    let n = 8_000;
    let off = run(config(""), n);
    let one = run(config("placement_handles = 1"), n);
    assert!(off.placement.is_none());
    assert!(one.gc_pages_moved > 0, "GC ran");
    assert_eq!(
        (off.host_pages_written, off.gc_pages_moved, off.erases),
        (one.host_pages_written, one.gc_pages_moved, one.erases)
    );
    assert_eq!(off.response, one.response);
}

/// Bad placement keys are refused by name.
#[test]
fn bad_placement_keys_are_refused_by_key() {
    for (text, key) in [
        (
            "[[host.tenant]]\ntrace = \"a\"\nplacement_handle = 1\n",
            "host.tenant[0].placement_handle",
        ),
        (
            "[host]\nplacement_handles = 2\n[[host.tenant]]\ntrace = \"a\"\nplacement_handle = 2\n",
            "host.tenant[0].placement_handle",
        ),
        (
            "[host]\nplacement_handles = 1000\n",
            "host.placement_handles",
        ),
        (
            "[host]\nplacement_handles = 2\n[[host.tenant]]\ntrace = \"a\"\nshared = true\n",
            "host.tenant[0].shared",
        ),
    ] {
        let errs = ConfigBuilder::new()
            .text(text, "t")
            .unwrap()
            .build()
            .unwrap_err();
        assert!(errs.to_string().contains(key), "{text}: {errs}");
    }
}
