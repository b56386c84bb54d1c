//! `ssdlab reproduce dsftl`: the experiment of the DS-FTL paper's §5 on the `dsftl` preset.
//!
//! ```text
//!  workloads: the trace files of --traces (FIU: real content)
//!             + eight synthetic stand-ins for Table 3 (read ratio, request size, duplicates)
//!  ├─ static (cpwd), static (cwdp), dynamic, HIPA, DS-FTL  ─► dsftl-main.csv, fig2, fig10a/b,
//!  │                                                           fig11, fig12, fig13, fig14
//!  ├─ sensitivity: DS-FTL over dynamic, multi-path reads alone, content-aware placement
//!  │   alone, static and DS-FTL with SSDsim's read merging (1 µs completions)
//!  ├─ HIPA threshold 0, ½, 1, 2 programs                    ─► dsftl-sweeps.csv, sweep-*.svg
//!  ├─ webmail stand-in: duplicate ratio 0 … 0.704; offered load 10 %, 30 %, 50 %;
//!  │   an aged device (preconditioned: GC runs)
//!  └─ trace files: time scale 1, 1/10, 1/100                ─► dsftl-summary.md
//! ```
//!
//! Every run uses the `dsftl` preset as shipped (static `cpwd`, the content index kept by
//! every scheme); a scheme is `ftl.allocation` and, for the sensitivity rows, one more
//! key. The DS-FTL runs of the main experiment run with `verify = true`. `--quick` runs
//! shorter stand-ins and no sweeps.

use super::common::{create_out_dir, find_traces, trace_name, write_out, SSDSIM_BUFFER};
use super::runner::{self, Job, Run};
use super::{BusModel, DsftlArgs};
use crate::Failure;
use anyhow::anyhow;
use ssdlab::{ConfigBuilder, SimConfig};
use ssdlab_stats::Counter;
use ssdlab_trace::{AddressPattern, Arrival, SizeDist, SyntheticConfig, TraceSource};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// (name, overrides of the preset). The first five are the paper's schemes; the static
/// one is the baseline everything is normalized to.
pub(super) const SCHEMES: [(&str, &[&str]); 10] = [
    ("static", &["ftl.allocation=\"static\""]),
    (
        "static-cwdp",
        &["ftl.allocation=\"static\"", "ftl.static_order=\"cwdp\""],
    ),
    ("dynamic", &["ftl.allocation=\"dynamic\""]),
    ("hipa", &["ftl.allocation=\"hipa\""]),
    ("ds-ftl", &["ftl.allocation=\"content-aware\""]),
    (
        "ds-ftl/dynamic",
        &["ftl.allocation=\"content-aware\"", "dsftl.base=\"dynamic\""],
    ),
    (
        "static+multipath",
        &[
            "ftl.allocation=\"static\"",
            "dsftl.multipath_read=\"always\"",
        ],
    ),
    (
        "ds-ftl-placement",
        &[
            "ftl.allocation=\"content-aware\"",
            "dsftl.multipath_read=\"never\"",
        ],
    ),
    (
        "static+ssdsim-merge",
        &[
            "ftl.allocation=\"static\"",
            "scheduler.merge.reads=\"same-ppn\"",
            "scheduler.merge.completion=\"fixed-ns\"",
        ],
    ),
    (
        "ds-ftl+ssdsim-merge",
        &[
            "ftl.allocation=\"content-aware\"",
            "scheduler.merge.reads=\"same-content\"",
            "scheduler.merge.completion=\"fixed-ns\"",
        ],
    ),
];
/// The paper's schemes (the rest are sensitivity rows).
pub(super) const MAIN: usize = 5;
pub(super) const STATIC: usize = 0;
pub(super) const DYNAMIC: usize = 2;
pub(super) const HIPA: usize = 3;
pub(super) const DSFTL: usize = 4;

/// A stand-in for one trace of Table 3: (name, read ratio, mean request KiB, duplicate
/// ratio). Read ratio and size are Table 3's; the duplicate ratios are not in the paper's
/// text (Fig. 3 shows bars, up to 70.4 %): the home directories take the FIU homes set's
/// 0.335 and the servers the FIU web-vm set's 0.20, both measured by third parties
/// (docs/reproductions/dsftl.md).
pub(super) const STANDINS: [(&str, f64, f64, f64); 8] = [
    ("home1", 0.010, 16.06, 0.335),
    ("home2", 0.091, 23.47, 0.335),
    ("home3", 0.010, 34.16, 0.335),
    ("home4", 0.055, 7.99, 0.335),
    ("online", 0.261, 7.99, 0.20),
    ("webmail", 0.181, 7.99, 0.20),
    ("webresearch", 23.0 / 2_414_031.0, 24.57, 0.20),
    ("webusers", 0.100, 12.31, 0.20),
];
/// The stand-in the duplicate-ratio and load sweeps use.
pub(super) const SWEPT: usize = 5;
/// Offered load of the stand-ins: this fraction of the channels' aggregate page rate.
pub(super) const LOAD_PCT: u32 = 30;
/// Stand-in requests (full, `--quick`).
const REQUESTS: (u64, u64) = (100_000, 20_000);
pub(super) const DUPS_PERMILLE: [u32; 5] = [0, 200, 335, 500, 704];
pub(super) const LOADS_PCT: [u32; 3] = [10, 30, 50];
/// HIPA's threshold in half programs (the preset's is 2: one program).
pub(super) const HIPA_HALVES: [u32; 4] = [0, 1, 2, 4];
pub(super) const TIME_DIVISORS: [u32; 3] = [1, 10, 100];
/// The schemes run on an aged device (the swept stand-in).
pub(super) const AGED: [usize; 4] = [STATIC, DYNAMIC, HIPA, DSFTL];
/// The schemes run behind a DRAM write buffer (every workload).
pub(super) const BUFFERED: [usize; 4] = [STATIC, DYNAMIC, HIPA, DSFTL];
/// The aged device: 70 % of the logical pages written, then half of them overwritten at
/// random (a full fill leaves GC victims nine-tenths valid at 10 % over-provisioning, and
/// GC alone then saturates the device).
pub(super) const AGED_SETS: [&str; 2] = [
    "ftl.precondition.enabled=true",
    "ftl.precondition.fill_ratio=0.7",
];

/// What a run varies beyond its scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Sweep {
    Main,
    HipaHalves(u32),
    DupPermille(u32),
    LoadPct(u32),
    TimeDivisor(u32),
    /// Preconditioned ([`AGED_SETS`]), so that GC runs.
    Aged,
    /// Behind a DRAM write buffer ([`SSDSIM_BUFFER`]; §4.1 and Fig. 6 cache host pages
    /// in DRAM and place them at eviction; the paper gives no size): sensitivity.
    Dram,
}

/// One run: workload index, scheme index, sweep point.
pub(super) type Key = (usize, usize, Sweep);

/// A workload: a trace file or a stand-in (index into [`STANDINS`]).
#[derive(Clone, Debug)]
pub(super) enum Workload {
    File(PathBuf),
    Standin(usize),
}

/// What the experiment keeps of one run (times in ns, ratios as fractions).
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    pub requests: u64,
    pub reads: u64,
    pub read_mean: f64,
    pub read_p99: u64,
    pub write_mean: f64,
    pub channel_std: f64,
    pub chip_std: f64,
    pub channel_util: Vec<f64>,
    pub chip_util: Vec<f64>,
    pub plane_dup: f64,
    pub plane_dup_valid: f64,
    pub planes: Vec<f64>,
    pub redirected_reads: f64,
    pub redirected_writes: f64,
    pub duplicate_writes: f64,
    pub reads_with_copies: f64,
    pub gc_runs: u64,
    pub write_amplification: f64,
    pub bytes_per_page: f64,
    pub false_positives: u64,
    pub saturated: u64,
    pub hipa_dynamic: u64,
    pub verified_reads: u64,
    pub mismatches: u64,
}

impl From<&Run> for Row {
    fn from(run: &Run) -> Self {
        let r = &run.report;
        let d = r.dsftl.clone().unwrap_or_default();
        Row {
            requests: r.requests.all,
            reads: r.requests.read,
            read_mean: r.response.read.mean_ns,
            read_p99: r.response.read.p99_ns,
            write_mean: r.response.write.mean_ns,
            channel_std: r.utilization.channel.std,
            chip_std: r.utilization.chip.std,
            channel_util: d.channel_utilization.items,
            chip_util: d.chip_utilization.items,
            plane_dup: d.plane_duplicate_rate.mean,
            plane_dup_valid: d.plane_duplicate_rate_valid.mean,
            planes: d.plane_duplicate_rate.items,
            redirected_reads: r.redirected_read_ratio,
            redirected_writes: r.redirected_write_ratio,
            duplicate_writes: d.duplicate_write_ratio,
            reads_with_copies: d.reads_with_copies_ratio,
            gc_runs: r.gc_runs,
            write_amplification: r.write_amplification,
            bytes_per_page: d.bytes_per_page,
            false_positives: r.counter(Counter::DsftlBloomFalsePositives),
            saturated: r.counter(Counter::DsftlSaturatedWrites),
            hipa_dynamic: r.counter(Counter::HipaDynamicWrites),
            verified_reads: r.counter(Counter::VerifiedReads),
            mismatches: run.mismatches,
        }
    }
}

/// The runs of the experiment for `workloads` (`sweeps`: with the sensitivity sweeps).
fn keys(workloads: &[Workload], sweeps: bool) -> Vec<Key> {
    let mut keys = Vec::new();
    for (w, wl) in workloads.iter().enumerate() {
        keys.extend((0..SCHEMES.len()).map(|s| (w, s, Sweep::Main)));
        if !sweeps {
            continue;
        }
        keys.extend(HIPA_HALVES.iter().map(|&h| (w, HIPA, Sweep::HipaHalves(h))));
        keys.extend(BUFFERED.iter().map(|&s| (w, s, Sweep::Dram)));
        match wl {
            Workload::Standin(SWEPT) => {
                for s in [STATIC, HIPA, DSFTL] {
                    keys.extend(DUPS_PERMILLE.iter().map(|&d| (w, s, Sweep::DupPermille(d))));
                    keys.extend(LOADS_PCT.iter().map(|&l| (w, s, Sweep::LoadPct(l))));
                }
                keys.extend(AGED.iter().map(|&s| (w, s, Sweep::Aged)));
            }
            Workload::Standin(_) => {}
            Workload::File(_) => {
                for s in [STATIC, DSFTL] {
                    keys.extend(TIME_DIVISORS.iter().map(|&d| (w, s, Sweep::TimeDivisor(d))));
                }
            }
        }
    }
    keys.iter_mut()
        .for_each(|k| k.2 = canonical(&workloads[k.0], k.1, k.2));
    keys.sort();
    keys.dedup();
    keys
}

/// The sweep point as run: a point equal to the main run is the main run.
pub(super) fn canonical(wl: &Workload, scheme: usize, sweep: Sweep) -> Sweep {
    let same = match sweep {
        Sweep::Main => true,
        Sweep::HipaHalves(h) => scheme == HIPA && h == 2,
        Sweep::DupPermille(d) => match wl {
            Workload::Standin(i) => f64::from(d) / 1000.0 == STANDINS[*i].3,
            Workload::File(_) => false,
        },
        Sweep::LoadPct(l) => l == LOAD_PCT,
        Sweep::TimeDivisor(d) => d == 1,
        Sweep::Aged | Sweep::Dram => false,
    };
    if same {
        Sweep::Main
    } else {
        sweep
    }
}

/// Stand-in `i` for the preset `cfg`, with `requests`, a duplicate ratio and a load.
pub(super) fn standin(
    i: usize,
    cfg: &SimConfig,
    requests: u64,
    dup: f64,
    load: f64,
) -> SyntheticConfig {
    let (_, read_ratio, kib, _) = STANDINS[i];
    // Uniform over the 4 KiB multiples of [4 KiB, max]: mean (4 KiB + max) / 2.
    let max_bytes = ((2.0 * kib * 1024.0 - 4096.0) / 4096.0).round().max(1.0) as u64 * 4096;
    let mean_pages = (4096 + max_bytes) as f64 / 2.0 / 4096.0;
    SyntheticConfig {
        requests,
        arrival: Arrival::Poisson {
            iops: load * channel_pages_per_s(cfg) / mean_pages,
        },
        read_ratio,
        size: SizeDist::Uniform {
            min_bytes: 4096,
            max_bytes,
        },
        address: AddressPattern::Zipf { theta: 0.9 },
        footprint_bytes: 8 << 30,
        duplicate_ratio: dup,
        read_content: true,
        seed: 42 + i as u64,
        ..SyntheticConfig::default()
    }
}

/// The workloads' display names.
pub(super) fn names(workloads: &[Workload]) -> Vec<String> {
    workloads
        .iter()
        .map(|w| match w {
            Workload::File(p) => trace_name(p),
            Workload::Standin(i) => format!("{}-like", STANDINS[*i].0),
        })
        .collect()
}

fn job(a: &DsftlArgs, workloads: &[Workload], names: &[String], key: Key) -> Result<Job, Failure> {
    let (w, s, sweep) = key;
    let mut b = ConfigBuilder::new()
        .preset("dsftl")
        .map_err(Failure::input)?;
    let mut sets: Vec<String> = SCHEMES[s].1.iter().map(|x| x.to_string()).collect();
    if s == DSFTL && sweep == Sweep::Main {
        sets.push("verify=true".into());
    }
    match sweep {
        Sweep::HipaHalves(h) => {
            let preset = SimConfig::preset("dsftl").map_err(Failure::input)?;
            let ns = preset.ftl.hipa.threshold_ns * u64::from(h) / 2;
            sets.push(format!("ftl.hipa.threshold_ns={ns}"));
        }
        Sweep::TimeDivisor(d) => sets.push(format!("host.time_scale={}", 1.0 / f64::from(d))),
        Sweep::Aged => sets.extend(AGED_SETS.iter().map(|x| x.to_string())),
        Sweep::Dram => sets.extend(SSDSIM_BUFFER.iter().map(|x| x.to_string())),
        _ => {}
    }
    sets.extend(a.set.iter().cloned());
    for x in &sets {
        b = b.set(x).map_err(Failure::input)?;
    }
    let cfg = b.build().map_err(Failure::input)?;
    let source = match &workloads[w] {
        Workload::File(p) => runner::file(p),
        Workload::Standin(i) => {
            let requests = if a.quick { REQUESTS.1 } else { REQUESTS.0 };
            let dup = match sweep {
                Sweep::DupPermille(d) => f64::from(d) / 1000.0,
                _ => STANDINS[*i].3,
            };
            let load = match sweep {
                Sweep::LoadPct(l) => l,
                _ => LOAD_PCT,
            };
            let syn = standin(*i, &cfg, requests, dup, f64::from(load) / 100.0);
            TraceSource::Synthetic(syn)
        }
    };
    Ok(Job {
        label: format!("{} {} {sweep:?}", names[w], SCHEMES[s].0),
        preset: "dsftl",
        cfg,
        source,
    })
}

/// Runs the experiment.
pub fn run(a: &DsftlArgs) -> Result<(), Failure> {
    let mut workloads: Vec<Workload> = if a.traces.is_empty() {
        Vec::new()
    } else {
        find_traces(&a.traces)?
            .into_iter()
            .map(Workload::File)
            .collect()
    };
    if !a.no_standins {
        workloads.extend((0..STANDINS.len()).map(Workload::Standin));
    }
    if workloads.is_empty() {
        return Err(Failure::input(anyhow!(
            "nothing to run: give --traces or leave out --no-standins"
        )));
    }
    let names = names(&workloads);
    let sweeps = !a.quick && !a.no_sweeps;
    let jobs = keys(&workloads, sweeps)
        .into_iter()
        .map(|k| Ok((k, job(a, &workloads, &names, k)?)))
        .collect::<Result<Vec<_>, Failure>>()?;
    let done = runner::run_keyed(
        "reproduce dsftl",
        workloads.len(),
        BusModel::Shared,
        jobs,
        a.output.jobs,
        |r| Row::from(r),
    )?;
    create_out_dir(&a.output.out)?;
    let ex = Experiment {
        names: &names,
        workloads: &workloads,
        results: &done.results,
        sweeps,
        quick: a.quick,
        sets: &a.set,
    };
    ex.write_all(&a.output.out, done.wall_s, done.threads)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary(done.wall_s, done.threads));
    Ok(())
}

/// The finished runs and what is written from them.
pub(super) struct Experiment<'a> {
    pub names: &'a [String],
    pub workloads: &'a [Workload],
    pub results: &'a BTreeMap<Key, Row>,
    pub sweeps: bool,
    pub quick: bool,
    pub sets: &'a [String],
}

impl Experiment<'_> {
    /// The main run of scheme `s` on workload `w`.
    pub fn at(&self, w: usize, s: usize) -> &Row {
        &self.results[&(w, s, Sweep::Main)]
    }

    /// The run of a sweep point (the main run when the point is the main one).
    pub fn point(&self, w: usize, s: usize, sweep: Sweep) -> &Row {
        &self.results[&(w, s, canonical(&self.workloads[w], s, sweep))]
    }

    fn write_all(&self, out: &Path, wall_s: f64, threads: usize) -> Result<(), String> {
        let w = |name: &str, text: String| write_out(out, name, text);
        w("dsftl-main.csv", self.main_csv())?;
        self.main_figures(out)?;
        if self.sweeps {
            w("dsftl-sweeps.csv", self.sweeps_csv())?;
            w("dsftl-dram.csv", self.dram_csv())?;
            self.sweep_figures(out)?;
        }
        w("dsftl-summary.md", self.summary(wall_s, threads))
    }
}

/// Pages per second the channels of `cfg` carry together, each bus busy all the time:
/// the offered load a fraction of it names.
pub(super) fn channel_pages_per_s(cfg: &SimConfig) -> f64 {
    let g = &cfg.geometry;
    let page_ns = cfg.timing.page_transfer_ns(g.page_size_bytes) as f64;
    f64::from(g.channels) * 1e9 / page_ns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_points_equal_to_the_main_run_run_once() {
        let wl = [Workload::File("t".into()), Workload::Standin(SWEPT)];
        let quick = keys(&wl, false);
        assert_eq!(quick.len(), 2 * SCHEMES.len());
        let full = keys(&wl, true);
        // File: 10 schemes + 3 HIPA thresholds + 2 schemes × 2 time scales + 4 buffered.
        // Webmail: 10 schemes + 3 HIPA + 3 schemes × (4 duplicate ratios + 2 loads) + 4 aged
        // + 4 buffered.
        assert_eq!(full.len(), (10 + 3 + 4 + 4) + (10 + 3 + 18 + 4 + 4));
    }

    #[test]
    fn standins_offer_the_load_asked_for() {
        let cfg = SimConfig::preset("dsftl").unwrap();
        let s = standin(SWEPT, &cfg, 1000, 0.2, 0.3);
        let SizeDist::Uniform { max_bytes, .. } = s.size else {
            panic!()
        };
        assert_eq!(max_bytes, 12_288, "mean 8 KiB, as Table 3's 7.99");
        let Arrival::Poisson { iops } = s.arrival else {
            panic!()
        };
        // 8 channels at 102.575 us a page, 30 %, 2 pages a request.
        let expect = 0.3 * 8.0 * 1e9 / 102_575.0 / 2.0;
        assert!((iops - expect).abs() < 1e-6, "{iops}");
        assert!(s.read_content);
    }
}
