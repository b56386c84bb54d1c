//! ONFI cache read and cache program (docs/NAND.md, "Cache read and cache program"): the
//! same sequential trace finishes earlier with `nand.cache_mode` on, its data intact;
//! settings that cannot work are refused naming the key.

use crate::util::{io, small_config, vec_sim};
use ssdlab::ConfigBuilder;
use ssdlab_trace::{IoRequest, Op};

/// Pages written, then read, in requests of `CHUNK` pages.
const PAGES: u64 = 4_096;
const CHUNK: u64 = 64;
/// The reads arrive at 1 s, long after the writes are done.
const READ_AT_US: u64 = 1_000_000;

/// `PAGES` pages written in order, all requests arriving at 0, then read in order.
fn sequential() -> Vec<IoRequest> {
    let mut reqs: Vec<IoRequest> = (0..PAGES / CHUNK)
        .map(|i| io(0, Op::Write, i * CHUNK, CHUNK))
        .collect();
    reqs.extend((0..PAGES / CHUNK).map(|i| io(READ_AT_US, Op::Read, i * CHUNK, CHUNK)));
    reqs
}

/// The writes alone.
fn writes() -> Vec<IoRequest> {
    let mut reqs = sequential();
    reqs.truncate((PAGES / CHUNK) as usize);
    reqs
}

fn run(mode: &str, reqs: Vec<IoRequest>) -> ssdlab::Report {
    let set = format!("nand.cache_mode=\"{mode}\"");
    let mut sets = vec!["verify=true"];
    if mode != "off" {
        sets.push(&set);
    }
    let mut sim = vec_sim(small_config(&sets), reqs);
    sim.run_to_end().unwrap();
    assert!(sim.audit().unwrap() > 0, "every written page checked");
    sim.into_report().unwrap()
}

#[test]
fn sequential_reads_and_writes_finish_earlier_with_cache_mode_on() {
    let off = run("off", writes());
    let on = run("program", writes());
    let (w_off, w_on) = (off.sim_time_ns, on.sim_time_ns);
    let (lat_off, lat_on) = (off.response.write.mean_ns, on.response.write.mean_ns);
    eprintln!(
        "writes: done at {w_off} ns without cache program, {w_on} ns with; mean latency {lat_off:.0} / {lat_on:.0} ns"
    );
    assert!(w_on < w_off && lat_on < lat_off, "{w_on} {w_off}");
    let c = on.nand.unwrap().cache.unwrap();
    assert_eq!((c.mode.as_str(), c.cached_reads), ("program", 0));
    assert!(c.cached_programs > PAGES / 2, "{c:?}");

    let off = run("off", sequential());
    let on = run("read", sequential());
    let phase = |r: &ssdlab::Report| r.sim_time_ns - READ_AT_US * 1_000;
    let (r_off, r_on) = (phase(&off), phase(&on));
    let (lat_off, lat_on) = (off.response.read.mean_ns, on.response.read.mean_ns);
    eprintln!(
        "reads: {r_off} ns for the read phase without cache read, {r_on} ns with; mean latency {lat_off:.0} / {lat_on:.0} ns"
    );
    assert!(r_on < r_off && lat_on < lat_off, "{r_on} {r_off}");
    // Reads cannot overlap their own transfers on a bus that is always busy: the gain
    // is the array time hidden behind the transfers, at most a read's array time per
    // page on each die.
    assert!(
        r_on * 10 < r_off * 9,
        "at least 10 % shorter: {r_on} {r_off}"
    );
    assert_eq!(
        on.response.write, off.response.write,
        "the writes as before"
    );
    let c = on.nand.unwrap().cache.unwrap();
    assert!(c.cached_reads > PAGES / 2, "{c:?}");
    assert_eq!(c.cached_programs, 0);

    // Both on: each phase gains its own.
    let both = run("both", sequential());
    assert!(phase(&both) < r_off);
    assert!(both.response.write.mean_ns < off.response.write.mean_ns);
}

#[test]
fn cache_mode_settings_that_cannot_work_are_refused_by_key() {
    let refused = |sets: &[&str]| {
        let mut b = ConfigBuilder::new();
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().unwrap_err().to_string()
    };
    let e = match ConfigBuilder::new().set("nand.cache_mode=\"sometimes\"") {
        Err(e) => e.to_string(),
        Ok(b) => b.build().unwrap_err().to_string(),
    };
    eprintln!("{e}");
    assert!(
        e.contains("nand.cache_mode") && e.contains("sometimes"),
        "{e}"
    );
    let e = refused(&["nand.t_cache_read_ns=3000"]);
    assert!(e.contains("nand.t_cache_read_ns"), "{e}");
    let e = refused(&["nand.cache_mode=\"read\"", "nand.t_cache_prog_ns=3000"]);
    assert!(e.contains("nand.t_cache_prog_ns"), "{e}");
    let e = refused(&["nand.cache_mode=\"program\"", "scheduler.suspend=\"reads\""]);
    assert!(
        e.contains("nand.cache_mode") && e.contains("scheduler.suspend"),
        "{e}"
    );
    for name in ["sync-fifo", "vaq", "paq2"] {
        let e = refused(&[
            "nand.cache_mode=\"read\"",
            &format!("scheduler.name=\"{name}\""),
        ]);
        assert!(e.contains("nand.cache_mode") && e.contains(name), "{e}");
    }
    // Cache read with suspend is allowed: a read under a suspension does not chain.
    ConfigBuilder::new()
        .set("nand.cache_mode=\"read\"")
        .unwrap()
        .set("scheduler.suspend=\"reads\"")
        .unwrap()
        .build()
        .unwrap();
}

#[test]
fn cache_mode_keeps_the_data_with_gc_multi_plane_and_other_schedulers() {
    // A mixed random workload with GC, under each combination: every read returns what
    // was last written, and every cache operation overlaps somewhere.
    let reqs = crate::nand::mixed(16_000, 40_000, 30_000, 50);
    let combos: &[&[&str]] = &[
        &["nand.cache_mode=\"both\""],
        &["nand.cache_mode=\"both\"", "scheduler.multi_plane=true"],
        &["nand.cache_mode=\"both\"", "scheduler.name=\"piq\""],
        &["nand.cache_mode=\"both\"", "scheduler.name=\"brr\""],
        &[
            "nand.cache_mode=\"both\"",
            "timing.write_ack=\"transfer\"",
            "nand.t_cache_read_ns=2000",
            "nand.t_cache_prog_ns=3000",
        ],
        &[
            "nand.cache_mode=\"read\"",
            "scheduler.suspend=\"reads\"",
            "nand.cell=\"tlc\"",
            "nand.t_read_ns_by_type=[60000, 80000, 100000]",
            "nand.t_prog_ns_by_type=[600000, 1200000, 2000000]",
        ],
        &[
            "nand.cache_mode=\"both\"",
            "raid.level=5",
            "raid.group_size=4",
            "raid.fail=[\"chip:3@3000ms\"]",
        ],
        &[
            "nand.cache_mode=\"both\"",
            "nand.cell=\"tlc\"",
            "nand.program=\"one-shot\"",
            "ftl.gc.copyback=true",
        ],
    ];
    for sets in combos {
        let mut all = vec!["geometry.pages_per_block=48", "verify=true"];
        all.extend_from_slice(sets);
        let mut sim = vec_sim(small_config(&all), reqs.clone());
        sim.run_to_end().unwrap();
        assert!(sim.audit().unwrap() > 0, "{sets:?}");
        let r = sim.into_report().unwrap();
        assert_eq!(
            r.requests.read + r.requests.write,
            reqs.len() as u64,
            "{sets:?}"
        );
        let c = r.nand.unwrap().cache.unwrap();
        eprintln!("{sets:?}: {c:?}");
        let mode = &c.mode;
        assert!(mode == "program" || c.cached_reads > 0, "{sets:?}: {c:?}");
        assert!(mode == "read" || c.cached_programs > 0, "{sets:?}: {c:?}");
    }
}
