//! Liveness under space pressure: whatever the placement, redundancy and binding, a run
//! whose device keeps its over-provisioning ends with every request complete and every
//! page verified. Large writes at short gaps over a preconditioned device make planes
//! starve (GC due, no victim) and stripe jobs queue behind each other.

use crate::util::{small_config, vec_sim};
use proptest::prelude::*;
use ssdlab_trace::{IoRequest, Op};

/// Placements, redundancy and binding that change where a page's versions go.
const SHAPES: [&[&str]; 9] = [
    &[],
    &["ftl.allocation=\"dynamic\""],
    &[
        "ftl.allocation=\"dynamic\"",
        "ftl.dynamic_policy=\"least-busy\"",
    ],
    &["ftl.allocation=\"hipa\""],
    &["placement.bind=\"dispatch\""],
    &[
        "ftl.allocation=\"dynamic\"",
        "placement.bind=\"dispatch\"",
        "scheduler.multi_plane=true",
    ],
    &["raid.level=5", "raid.domain=\"chip\"", "raid.group_size=4"],
    &[
        "raid.level=5",
        "raid.domain=\"chip\"",
        "raid.group_size=4",
        "raid.buffer_new_writes=false",
    ],
    &["raid.level=1", "raid.domain=\"chip\"", "raid.group_size=2"],
];

/// A device of 4 chips (one RAID-5 group), 32 blocks of 16 pages a plane, preconditioned full and
/// `overwrite` rewritten, with verify on.
fn sets(shape: usize, overwrite: u8, lazy: bool) -> Vec<String> {
    let mut s: Vec<String> = [
        "verify=true",
        "geometry.channels=2",
        "geometry.blocks_per_plane=32",
        "geometry.pages_per_block=16",
        "ftl.over_provisioning=0.25",
        "ftl.precondition.enabled=true",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    s.push(format!("ftl.precondition.overwrite_ratio=0.{overwrite}"));
    if lazy {
        s.push("ftl.gc.trigger=\"lazy\"".to_string());
    }
    s.extend(SHAPES[shape].iter().map(|x| x.to_string()));
    s
}

fn requests(ops: &[(bool, u64, u64)], gap_ns: u64) -> Vec<IoRequest> {
    ops.iter()
        .enumerate()
        .map(|(i, &(write, lpn, pages))| IoRequest {
            arrival_ns: i as u64 * gap_ns,
            op: if write { Op::Write } else { Op::Read },
            offset_bytes: lpn * 4096,
            size_bytes: pages * 4096,
            content: None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn no_run_under_space_pressure_is_left_waiting(
        shape in 0..SHAPES.len(),
        overwrite in 0u8..6,
        lazy in any::<bool>(),
        gap_ns in prop_oneof![Just(1_000u64), Just(20_000), Just(100_000)],
        ops in proptest::collection::vec(
            (prop_oneof![3 => Just(true), 1 => Just(false)], 0u64..2_900, 1u64..33),
            800..1_600,
        ),
    ) {
        let s = sets(shape, overwrite, lazy);
        let refs: Vec<&str> = s.iter().map(String::as_str).collect();
        let mut sim = vec_sim(small_config(&refs), requests(&ops, gap_ns));
        sim.run_to_end().map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
        sim.audit().map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
        sim.into_report().map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
    }
}
