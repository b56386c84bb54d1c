//! The cached map under CR5M (`raid.mirror_chips = true`): the mirror table (EPPN,
//! MPPN) is held in controller DRAM beside the CMT, and the MA field is part of a host
//! page's map entry (§III-B, Fig. 4), so setting or clearing it changes the entry;
//! translation pages never go to a mirror chip.

use super::tests::{cases, mapping};
use crate::config::ConfigBuilder;
use crate::sim::stream::VecStream;
use crate::sim::Simulation;
use proptest::prelude::*;
use ssdlab_stats::Counter;
use ssdlab_trace::{IoRequest, Op};

const PAGE: u64 = 2048;

fn io(at_ns: u64, op: Op, lpn: u64, pages: u64) -> IoRequest {
    IoRequest {
        arrival_ns: at_ns,
        op,
        fua: false,
        offset_bytes: lpn * PAGE,
        size_bytes: pages * PAGE,
        content: None,
        stream: None,
    }
}

/// The CR5M paper's toy geometry (4 channels of 5 chips, way 4 the mirror chips, one
/// plane each) with room for translation blocks (32 blocks of 8 pages a plane),
/// verified, with a cached map of `entries` entries, 4 a translation page.
fn toy(entries: u32, reqs: Vec<IoRequest>, sets: &[&str]) -> Simulation {
    let text = format!(
        "verify = true\n\
         [geometry]\nchannels = 4\nchips_per_channel = 5\ndies_per_chip = 1\n\
         planes_per_die = 1\nblocks_per_plane = 32\npages_per_block = 8\n\
         page_size_bytes = 2048\n\
         [ftl]\nover_provisioning = 0.3\nmapping = \"cached\"\n\
         [ftl.cmt]\nentries = {entries}\nentries_per_tpage = 4\n\
         [raid]\nlevel = 5\ndomain = \"channel\"\ngroup_size = 4\n\
         chip_in_channel = \"static\"\nupdate = \"rcw\"\nbuffer_new_writes = false\n\
         mirror_chips = true\n"
    );
    let mut b = ConfigBuilder::new().text(&text, "cr5m toy").unwrap();
    for s in sets {
        b = b.set(s).unwrap();
    }
    let mut sim = Simulation::new(
        b.build().unwrap(),
        Box::new(VecStream::new(reqs.clone())),
        "toy",
    )
    .unwrap();
    sim.set_trace_requests(reqs.len() as u64);
    sim
}

/// Runs to the end with every check: invariants (CR5M's I1–I5 among them), the audit
/// (host data, stripes over what they cover, copies, translation pages and the map).
fn finish(sim: &mut Simulation) {
    sim.run_to_end().unwrap();
    sim.check_invariants();
    sim.audit().unwrap();
    sim.cmt.as_ref().unwrap().cmt.check();
}

/// No translation page on a mirror chip (they hold only copies).
fn assert_no_tpage_on_a_mirror_chip(sim: &Simulation) {
    let c = sim.cmt.as_ref().unwrap();
    let map = &sim.raid.as_ref().unwrap().map;
    for t in 0..c.cmt.tpages() {
        if let Some(p) = sim.ftl.lookup(c.slot(t)) {
            let chip = sim.geom.chip_of_page(p);
            assert!(
                !map.is_mirror_chip(&sim.geom, chip),
                "tpage {t} on {chip:?}"
            );
        }
    }
}

#[test]
fn releasing_a_mirror_entry_clears_ma_and_dirties_the_page_s_entry() {
    // Stripe 0 (LPNs 0, 1, 2) written whole; LPN 1 updated by a mirror write; reads of
    // six other translation pages push LPN 1's entry out (written back, no longer
    // cached); then LPN 1's mirror chip fails, and the reclaim of its stripe releases
    // LPN 1's mirror entry: MA is cleared, so LPN 1's map entry changed and is cached
    // dirty again.
    let mut reqs = vec![io(0, Op::Write, 0, 3), io(10_000_000, Op::Write, 1, 1)];
    for k in 1..=6 {
        reqs.push(io(20_000_000 + k * 1_000_000, Op::Read, 4 * k + 4, 1));
    }
    reqs.push(io(50_000_000, Op::Read, 0, 1));
    let probe = toy(4, Vec::new(), &[]);
    let map = &probe.raid.as_ref().unwrap().map;
    let channel = map.chunk_of(ssdlab_nand::Lpn(1)).member;
    let mirror = map.mirror_chip(&probe.geom, ssdlab_nand::ChannelId(channel));
    let fail = format!("raid.fail=[\"chip:{}@40ms\"]", mirror.0);
    let mut sim = toy(4, reqs, &[&fail]);
    finish(&mut sim);
    assert!(sim.cmt.as_ref().unwrap().cmt.is_dirty(1));
    let r = sim.into_report().unwrap();
    assert_eq!(r.counter(Counter::MirrorWriteStripes), 1);
    assert_eq!(r.counter(Counter::MirrorReclaimsFailure), 1);
    assert_eq!(r.counter(Counter::MirrorEntriesAtEnd), 0);
    assert!(mapping(&r).translation_writes > 0);
}

/// Random small updates and reads with a tiny CMT: translation pages are rewritten all
/// the time, round robin over the planes, and none lands on a mirror chip.
#[test]
fn translation_pages_stay_off_the_mirror_chips() {
    let mut x = 7u64;
    let reqs: Vec<IoRequest> = (0..600)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let op = if x.is_multiple_of(3) {
                Op::Read
            } else {
                Op::Write
            };
            io(i * 300_000, op, (x >> 8) % 120, 1)
        })
        .collect();
    let mut sim = toy(2, reqs, &[]);
    finish(&mut sim);
    assert_no_tpage_on_a_mirror_chip(&sim);
    let r = sim.into_report().unwrap();
    assert!(r.counter(Counter::MirrorWriteStripes) > 10);
    assert!(mapping(&r).translation_writes > 40, "{:?}", mapping(&r));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(10), ..ProptestConfig::default() })]

    /// CR5M with a cached map, random small updates and reads, SDA or static chips,
    /// RMW or RCW ties, never-written stripes zero or materialized, at most one failed
    /// chip (a data chip or a mirror chip): every read returns what was written, the
    /// audit passes and no translation page is on a mirror chip.
    #[test]
    fn cr5m_with_a_cached_map_never_loses_data(
        seed in 1u64..u64::MAX,
        entries in 1u32..60,
        n in 100u64..700,
        reads in 0u64..3,
        (sda, rmw, materialize) in (any::<bool>(), any::<bool>(), any::<bool>()),
        fail in proptest::option::of(0u32..20),
    ) {
        let mut x = seed | 1;
        let reqs: Vec<IoRequest> = (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let op = if x % 3 < reads { Op::Read } else { Op::Write };
                let pages = 1 + (x >> 40) % 3;
                io(i * 200_000, op, (x >> 8) % 150, pages)
            })
            .collect();
        let mut sets = vec![
            if sda { "raid.chip_in_channel=\"sda\"" } else { "raid.chip_in_channel=\"static\"" }.to_string(),
            if rmw { "raid.update=\"rmw\"" } else { "raid.update=\"rcw\"" }.to_string(),
            if materialize {
                "raid.unwritten_stripes=\"materialize\""
            } else {
                "raid.unwritten_stripes=\"zero\""
            }
            .to_string(),
        ];
        if let Some(chip) = fail {
            sets.push(format!("raid.fail=[\"chip:{chip}@0.4\"]"));
        }
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let mut sim = toy(entries, reqs, &sets);
        finish(&mut sim);
        assert_no_tpage_on_a_mirror_chip(&sim);
        let r = sim.into_report().unwrap();
        prop_assert_eq!(r.counter(Counter::UnrecoverableReads), 0);
        prop_assert!(r.mirror.is_some() && r.mapping.is_some());
    }
}
