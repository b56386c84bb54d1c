//! The tenants' share of the stage, rule by rule, and its invariants under random
//! operations.

use super::*;
use crate::config::{CacheMode, WritePolicy};

/// Two tenants: LPNs 0..100 and 100..200.
const NS: [u32; 2] = [0, 100];

/// A write-back buffer of `pages` pages (1 MiB of pages of `2^20 / pages` bytes)
/// shared by tenants starting at `ns` as `sharing` says.
fn stages(pages: u32, ns: &[u32], sharing: CacheSharing) -> DramStages {
    let cfg = CacheConfig {
        mode: CacheMode::WriteBuffer,
        capacity_mib: 1,
        write_policy: WritePolicy::WriteBack,
        sharing,
        ..CacheConfig::default()
    };
    let s = DramStages::new(&cfg, (1 << 20) / pages, 1, 64, 0, ns);
    s.check_invariants();
    s
}

fn absorbed(o: WriteOutcome) -> u64 {
    match o {
        WriteOutcome::Absorbed { seq, .. } => seq,
        WriteOutcome::Full => panic!("full"),
    }
}

fn plan(s: &mut DramStages, part: usize) -> Vec<u32> {
    let mut v = Vec::new();
    s.plan(part, &mut v);
    s.check_invariants();
    v.iter().map(|v| v.lpn.0).collect()
}

#[test]
fn without_tenants_the_stage_is_one_and_counts_no_tenant() {
    let mut s = stages(16, &[], CacheSharing::Equal);
    assert!(matches!(s, DramStages::One(_)));
    assert!(!s.partitioned());
    assert_eq!((s.parts(), s.capacity()), (1, 16));
    absorbed(s.write(0, Lpn(150), 1));
    assert_eq!(s.part(Lpn(150)), 0);
    assert_eq!(s.tenant_counts(0), None);
}

#[test]
fn equal_partitions_take_the_capacity_divided_rounded_down() {
    let s = stages(16, &NS, CacheSharing::Equal);
    assert!(s.partitioned());
    assert_eq!((s.parts(), s.capacity()), (2, 16));
    let s = stages(16, &[0, 60, 120], CacheSharing::Equal);
    assert_eq!(
        s.capacity(),
        15,
        "5 + 5 + 5: MQSim leaves the remainder unused"
    );
    let mut s = stages(16, &[0, 60, 120], CacheSharing::Equal);
    let c = s.tenant_counts(0).unwrap();
    assert!(c.iter().all(|c| c.capacity == 5 && c.peak_dirty == Some(0)));
    let mut shared = stages(16, &NS, CacheSharing::Shared);
    assert!(!shared.partitioned());
    assert_eq!((shared.parts(), shared.capacity()), (1, 16));
    let c = shared.tenant_counts(0).unwrap();
    assert!(c.iter().all(|c| c.capacity == 16 && c.peak_dirty.is_none()));
}

#[test]
fn a_page_lives_in_the_partition_of_its_namespaces_tenant() {
    let mut s = stages(16, &[100, 0], CacheSharing::Equal);
    assert_eq!(s.part(Lpn(0)), 1);
    assert_eq!(s.part(Lpn(99)), 1);
    assert_eq!(s.part(Lpn(100)), 0);
    absorbed(s.write(0, Lpn(7), 70));
    absorbed(s.write(0, Lpn(107), 170));
    assert_eq!(s.peek_dirty(Lpn(7)), Some(70));
    assert_eq!(s.read(Lpn(107)), Some(170));
    assert_eq!(s.read(Lpn(108)), None);
    let DramStages::Tenants(t) = &s else {
        panic!("tenants")
    };
    assert!(t.parts[1].holds(Lpn(7)) && !t.parts[0].holds(Lpn(7)));
    assert!(t.parts[0].holds(Lpn(107)));
    let c = s.tenant_counts(0).unwrap();
    assert_eq!((c[0].read_hits, c[0].read_misses), (1, 1));
    assert_eq!((c[1].writes_absorbed, c[0].writes_absorbed), (1, 1));
    s.check_invariants();
}

#[test]
fn a_full_partition_makes_only_its_own_tenant_wait() {
    let mut s = stages(8, &NS, CacheSharing::Equal);
    for l in 0..4 {
        absorbed(s.write(0, Lpn(l), l.into()));
    }
    assert_eq!(s.write(0, Lpn(4), 4), WriteOutcome::Full);
    s.queue_write(Lpn(5));
    for l in 100..104 {
        absorbed(s.write(0, Lpn(l), l.into()));
    }
    let c = s.tenant_counts(0).unwrap();
    assert_eq!((c[0].full, c[1].full), (2, 0));
    // The same writes on a shared stage of the same size: tenant 0 takes tenant 1's room.
    let mut one = stages(8, &NS, CacheSharing::Shared);
    for l in 0..8 {
        absorbed(one.write(0, Lpn(l), l.into()));
    }
    assert_eq!(one.write(0, Lpn(100), 1), WriteOutcome::Full);
    s.stop_waiting(Lpn(4));
    s.stop_waiting(Lpn(5));
    s.note_wait(Lpn(4), 30);
    s.note_wait(Lpn(5), 50);
    let c = s.tenant_counts(0).unwrap();
    assert_eq!((c[0].waits, c[0].wait_ns, c[0].wait_ns_max), (2, 80, 50));
    assert_eq!(c[1].waits, 0);
    s.check_invariants();
}

#[test]
fn a_waiting_write_makes_only_its_own_partition_destage() {
    // On-demand destaging: only waiting writes start it.
    let cfg = CacheConfig {
        mode: CacheMode::WriteBuffer,
        capacity_mib: 1,
        destage: crate::config::Destage::OnDemand,
        sharing: CacheSharing::Equal,
        ..CacheConfig::default()
    };
    let mut s = DramStages::new(&cfg, (1 << 20) / 8, 1, 64, 0, &NS);
    for l in 0..4 {
        absorbed(s.write(0, Lpn(l), l.into()));
    }
    absorbed(s.write(0, Lpn(100), 1));
    assert!(plan(&mut s, 0).is_empty() && plan(&mut s, 1).is_empty());
    assert_eq!(s.write(0, Lpn(4), 4), WriteOutcome::Full);
    assert_eq!(plan(&mut s, 0), [0], "room for tenant 0's waiting write");
    assert!(plan(&mut s, 1).is_empty(), "tenant 1 has nothing waiting");
}

#[test]
fn each_partition_has_its_own_watermarks() {
    // 20 pages: partitions of 10, high 0.8 → 8 dirty pages start destaging, low 0.6 → 6.
    let mut s = stages(20, &NS, CacheSharing::Equal);
    for l in 0..7 {
        absorbed(s.write(0, Lpn(l), 1));
    }
    assert!(
        plan(&mut s, 0).is_empty(),
        "7 of 10: below the high watermark"
    );
    absorbed(s.write(0, Lpn(7), 1));
    let v = plan(&mut s, 0);
    assert_eq!(
        v,
        [0, 1],
        "8 of 10: down to the low watermark (6), LRU first"
    );
    assert!(plan(&mut s, 1).is_empty());
    // Shared, the same 8 dirty pages are 8 of 20: below its high watermark (16).
    let mut one = stages(20, &NS, CacheSharing::Shared);
    for l in 0..8 {
        absorbed(one.write(0, Lpn(l), 1));
    }
    assert!(plan(&mut one, 0).is_empty());
}

#[test]
fn a_tenants_flush_waits_for_its_own_partition_only() {
    let mut s = stages(20, &NS, CacheSharing::Equal);
    let a = absorbed(s.write(0, Lpn(1), 1));
    let b = absorbed(s.write(0, Lpn(101), 2));
    assert!(b > a, "one counter numbers every partition's writes");
    let upto = s.flush(Some(0));
    assert_eq!(upto, b, "the mark is the newest write of any partition");
    assert!(!s.flushed(Some(0), upto));
    assert!(plan(&mut s, 1).is_empty(), "tenant 1's page is not flushed");
    let mut v = Vec::new();
    s.plan(0, &mut v);
    assert_eq!(v.len(), 1);
    assert!(s.destaged(5, Lpn(1), v[0].seq));
    assert!(
        s.flushed(Some(0), upto),
        "tenant 1's dirty page does not hold it"
    );
    assert!(
        !s.flushed(None, upto),
        "a flush of every page would still wait"
    );
    let all = s.flush(None);
    assert_eq!(plan(&mut s, 1), [101]);
    assert!(s.durable(Lpn(1), a) && !s.durable(Lpn(101), b));
    s.destaged(9, Lpn(101), b);
    assert!(s.flushed(None, all));
    s.check_invariants();
}

#[test]
fn a_power_loss_saves_the_oldest_dirty_pages_of_the_whole_dram() {
    let mut s = stages(20, &NS, CacheSharing::Equal);
    absorbed(s.write(0, Lpn(1), 11));
    absorbed(s.write(0, Lpn(101), 12));
    absorbed(s.write(0, Lpn(2), 13));
    absorbed(s.write(0, Lpn(102), 14));
    let loss = s.power_loss(10, 3);
    let saved: Vec<u32> = loss.saved.iter().map(|v| v.lpn.0).collect();
    let lost: Vec<u32> = loss.lost.iter().map(|v| v.lpn.0).collect();
    assert_eq!((saved, lost), (vec![1, 101, 2], vec![102]));
    let c = s.counters();
    assert_eq!((c.power_losses, c.plp_saved, c.lost), (1, 3, 1));
    assert_eq!(s.dirty_pages(), 0);
    assert!(s.read(Lpn(1)).is_none());
    // Writes go on after the loss, numbered after every earlier one.
    assert!(absorbed(s.write(11, Lpn(3), 1)) > 4);
    s.check_invariants();
}

#[test]
fn the_whole_drams_occupancy_and_each_partitions_peak() {
    let mut s = stages(20, &NS, CacheSharing::Equal);
    absorbed(s.write(0, Lpn(1), 1));
    absorbed(s.write(0, Lpn(2), 1));
    absorbed(s.write(0, Lpn(101), 1));
    assert_eq!(s.dirty_pages(), 3);
    let o = s.occupancy(5_000_000).clone();
    assert_eq!(o.dirty_pages.iter().copied().max(), Some(3));
    let c = s.tenant_counts(5_000_000).unwrap();
    assert_eq!((c[0].peak_dirty, c[1].peak_dirty), (Some(2), Some(1)));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Random writes, reads, destages, flushes, trims and power losses over three
        /// tenants' partitions: every partition keeps its invariants and only its
        /// tenant's pages, and a page's newest dirty content is what DRAM answers.
        #[test]
        fn partitions_keep_their_pages_and_invariants(
            ops in prop::collection::vec((0u8..6, 0u32..60), 1..300),
            pages in 6u32..24,
        ) {
            let mut s = stages(pages, &[0, 20, 40], CacheSharing::Equal);
            let mut newest = std::collections::HashMap::new();
            let mut flying: Vec<Victim> = Vec::new();
            let mut token = 1u64;
            for (i, (op, lpn)) in ops.into_iter().enumerate() {
                let now = i as u64;
                match op {
                    0 | 1 => {
                        token += 1;
                        match s.write(now, Lpn(lpn), token) {
                            WriteOutcome::Absorbed { .. } => {
                                newest.insert(lpn, token);
                            }
                            WriteOutcome::Full => s.stop_waiting(Lpn(lpn)),
                        }
                    }
                    2 => {
                        for p in 0..s.parts() {
                            let mut v = Vec::new();
                            s.plan(p, &mut v);
                            for x in &v {
                                prop_assert_eq!(s.part(x.lpn), p);
                            }
                            flying.extend(v);
                        }
                    }
                    3 => {
                        if let Some(v) = flying.pop() {
                            s.destaged(now, v.lpn, v.seq);
                        }
                    }
                    4 => {
                        s.flush(Some((lpn / 20) as usize));
                    }
                    _ => {
                        if lpn % 7 == 0 {
                            s.power_loss(now, u64::from(lpn % 3));
                            newest.clear();
                        } else {
                            s.discard(Lpn(lpn));
                            newest.remove(&lpn);
                        }
                    }
                }
                s.check_invariants();
                for (&l, &t) in &newest {
                    if let Some(d) = s.peek_dirty(Lpn(l)) {
                        prop_assert_eq!(d, t);
                    }
                }
            }
            let c = s.tenant_counts(300).unwrap();
            for c in c {
                prop_assert!(c.peak_dirty.unwrap() <= u64::from(pages / 3));
            }
        }
    }
}
