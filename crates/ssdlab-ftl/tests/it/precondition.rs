//! Preconditioning a small multi-plane device.

use ssdlab_engine::SimRng;
use ssdlab_ftl::{AllocOrder, Ftl, FtlConfig, PreconditionConfig};
use ssdlab_nand::{Geometry, Lpn, PlaneId};

#[test]
fn fill_and_half_overwrite_leaves_a_steady_state_device() {
    let g = Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 2,
        planes_per_die: 2,
        blocks_per_plane: 32,
        pages_per_block: 16,
        page_size_bytes: 4096,
    };
    let cfg = FtlConfig {
        over_provisioning: 0.15,
        static_order: "cdwp".parse().unwrap(),
        precondition: PreconditionConfig {
            enabled: true,
            fill_ratio: 1.0,
            overwrite_ratio: 0.5,
            ..PreconditionConfig::default()
        },
        ..FtlConfig::default()
    };
    assert!(
        cfg.validate_for(&g).is_empty(),
        "{:?}",
        cfg.validate_for(&g)
    );
    let n = cfg.logical_pages(&g);
    let mut f = Ftl::new(&cfg, &g, n, SimRng::new(1)).unwrap();
    let m = cfg.static_order.stripe_map(&g);
    let r = f.precondition(
        &cfg.precondition,
        None,
        &mut |l| m.plane_of(l),
        &mut SimRng::new(2),
    );
    f.check_invariants();
    assert_eq!(r.unplaced, 0);
    assert_eq!(r.filled, u64::from(n));
    for l in 0..n {
        let ppn = f
            .lookup(Lpn(l))
            .unwrap_or_else(|| panic!("lpn {l} unmapped"));
        assert_eq!(
            f.geometry().plane_of_page(ppn),
            m.plane_of(Lpn(l)),
            "GC stays in the plane"
        );
    }
    for p in 0..g.planes() {
        let s = f.plane_state(PlaneId(p));
        assert!(s.free_blocks >= cfg.gc.reserve_blocks, "plane {p}: {s:?}");
    }
    let s = f.device_state();
    let invalid = s.invalid_pages as f64 / f64::from(g.pages());
    assert!(invalid > 0.0, "{r:?}");
    assert!(r.gc_runs > 0, "{r:?}");
    assert!(f.erase_count_summary().mean > 0.0);
    // The report is serde data.
    let _ = AllocOrder::CWDP;
    assert!(format!("{r:?}").contains("gc_runs"));
}
