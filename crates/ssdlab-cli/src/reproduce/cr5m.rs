//! `ssdlab reproduce cr5m`: the experiment of the CR5M paper's §IV on the `cr5m-ssd1..3`
//! presets.
//!
//! ```text
//!  traces ──► pure, CR1, CR4, CR5, CR5M on SSD1-SSD3 ─────────► cr5m-main.csv, fig6/7/8,
//!        │                                                      fig11, fig12
//!        ├──► SSD1: every architecture with write_ack = transfer (sensitivity)
//!        ├──► SSD1: CR5 with static chips (is SDA no slower?)
//!        └──► SSD1: CR5M verified, with a chip failure
//!  generated workloads (write ratio, request size) on SSD1 ──► cr5m-synth.csv, fig9, fig10
//!                                                               cr5m-summary.md
//! ```
//!
//! Every run is a `cr5m-ssdN` preset as shipped (the CR5M column of Table III) or one
//! override set away from it (the other columns, [`arch_sets`]); every architecture gets
//! the same knobs otherwise. `--quick` runs SSD1 only and cuts synthetic workloads to
//! [`QUICK_REQUESTS`] requests. Synthetic workloads a run uses are written to
//! `OUT/workloads/` (the generated sweeps, and shortened copies under `--quick`).

pub(super) use super::common::SSDSIM_BUFFER as DRAM_SETS;
use super::common::{create_out_dir, find_traces, is_workload, trace_name, write_out};
use super::runner::{self, Job, Run};
use super::Cr5mArgs;
use crate::Failure;
use anyhow::anyhow;
use ssdlab::ConfigBuilder;
use ssdlab_stats::{CountSpread, Counter};
use ssdlab_trace::SyntheticConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "cr5m_report.rs"]
mod report;
#[path = "cr5m_summary.rs"]
mod summary;

/// The paper's configurations: preset, channels and chips per channel of its CR5M column.
pub(super) const SSDS: [(&str, u32, u32); 3] = [
    ("cr5m-ssd1", 4, 7),
    ("cr5m-ssd2", 6, 5),
    ("cr5m-ssd3", 8, 4),
];
/// The architectures compared (Table III's columns).
pub(super) const ARCHS: [&str; 5] = ["pure", "cr1", "cr4", "cr5", "cr5m"];
/// Synthetic requests per workload under `--quick`.
const QUICK_REQUESTS: u64 = 20_000;
/// Requests of each generated sweep workload.
const SWEEP_REQUESTS: u64 = 100_000;
/// Fig. 9: write percentages (16 KiB mean, 240 req/s).
pub(super) const WRITE_PCTS: [u32; 4] = [20, 40, 60, 80];
/// Fig. 10: mean request sizes in KiB (60 % writes, 240 req/s).
pub(super) const SIZES_KIB: [u32; 5] = [4, 8, 16, 32, 64];
/// Generated workloads: Fig. 9's points, then Fig. 10's.
pub(super) const SWEEP_POINTS: usize = WRITE_PCTS.len() + SIZES_KIB.len();
/// The chip that fails in the verified run (channel 3's first chip on SSD1).
const FAIL: &str = "chip:3@0.5";

/// Runs beside the main matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Variant {
    /// The preset's write acknowledgement (after the program).
    Main,
    /// `timing.write_ack = "transfer"` (SSDsim's): sensitivity, SSD1.
    Transfer,
    /// CR5 with `raid.chip_in_channel = "static"`: the SDA check, SSD1.
    Static,
    /// CR5M with `verify = true` and a chip failure, SSD1.
    Verify,
    /// A DRAM write buffer ([`DRAM_SETS`], the paper extended SSDsim's buffer
    /// management, §IV) in front of every architecture, SSD1:
    /// sensitivity (the paper gives no buffer size; the presets have none).
    Dram,
    /// The same buffer with `timing.transfer = "sectors"` (SSDsim moves only the sectors
    /// a read asks for, and the buffer counts the bytes a request moves), SSD1:
    /// sensitivity.
    Sectors,
}

/// One run: source index (traces, then sweep workloads), SSD, architecture, variant.
pub(super) type Key = (usize, usize, usize, Variant);

/// What the experiment keeps of one run (times in ns).
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    pub requests: u64,
    /// Mean response: all, read, write.
    pub mean: [f64; 3],
    pub p99: u64,
    pub pre_reads: f64,
    pub pre_reads_reclaim: f64,
    /// Pages programmed per channel on the data chips (all chips without mirror chips).
    pub wpc_data: CountSpread,
    /// Pages programmed per channel, mirror chips included.
    pub wpc_all: CountSpread,
    pub mirror_chip_writes: f64,
    pub mw_share: f64,
    pub mirror_read_share: f64,
    pub mw_stripes: u64,
    pub reclaims: [u64; 4],
    pub entries_end: u64,
    pub gc_runs: u64,
    pub write_amp: f64,
    pub materialized: u64,
    pub verified: u64,
    pub mismatches: u64,
    pub degraded_reads: u64,
    pub unrecoverable: u64,
    pub failures: u64,
}

impl From<&Run> for Row {
    fn from(run: &Run) -> Self {
        let r = &run.report;
        let c = |x: Counter| r.counter(x);
        let all = r.writes_per_channel.unwrap_or_default();
        let m = r.mirror.unwrap_or_default();
        Row {
            requests: r.requests.all,
            mean: [
                r.response.all.mean_ns,
                r.response.read.mean_ns,
                r.response.write.mean_ns,
            ],
            p99: r.response.all.p99_ns,
            pre_reads: r.pre_reads_per_write,
            pre_reads_reclaim: if r.mirror.is_some() {
                m.pre_reads_per_write_with_reclaim
            } else {
                r.pre_reads_per_write
            },
            wpc_data: if r.mirror.is_some() {
                m.data_writes_per_channel
            } else {
                all
            },
            wpc_all: all,
            mirror_chip_writes: m.mirror_chip_writes.mean,
            mw_share: m.mirror_write_share,
            mirror_read_share: m.mirror_read_share,
            mw_stripes: c(Counter::MirrorWriteStripes),
            reclaims: [
                c(Counter::MirrorReclaimsUpdate),
                c(Counter::MirrorReclaimsFull),
                c(Counter::MirrorReclaimsCapacity),
                c(Counter::MirrorReclaimsPressure),
            ],
            entries_end: c(Counter::MirrorEntriesAtEnd),
            gc_runs: r.gc_runs,
            write_amp: r.write_amplification,
            materialized: c(Counter::RaidMaterializedStripes),
            verified: c(Counter::VerifiedReads),
            mismatches: run.mismatches,
            degraded_reads: c(Counter::DegradedReads),
            unrecoverable: c(Counter::UnrecoverableReads) + c(Counter::UnrecoverablePages),
            failures: c(Counter::Failures),
        }
    }
}

/// The overrides that turn the CR5M preset of SSD `ssd` into architecture `arch`.
pub(super) fn arch_sets(ssd: usize, arch: &str) -> Vec<String> {
    let (_, n, c) = SSDS[ssd];
    let ways = format!("geometry.chips_per_channel={}", c - 1);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match arch {
        "pure" => [
            s(&["raid.level=\"none\"", "raid.mirror_chips=false"]),
            vec![ways],
        ]
        .concat(),
        "cr1" => [
            s(&[
                "raid.level=1",
                "raid.layout=\"lci\"",
                "raid.mirror_chips=false",
            ]),
            vec![
                ways,
                format!("geometry.channels={}", 2 * n),
                format!("raid.group_size={}", 2 * n),
            ],
        ]
        .concat(),
        "cr4" => [s(&["raid.level=4", "raid.mirror_chips=false"]), vec![ways]].concat(),
        "cr5" => [s(&["raid.mirror_chips=false"]), vec![ways]].concat(),
        _ => Vec::new(),
    }
}

/// The sweep workload `i` (Fig. 9 points first, then Fig. 10's): write share and mean
/// size; sizes uniform over 2 KiB steps in `[2 KiB, 2 × mean − 2 KiB]`, Poisson arrivals
/// at 240 req/s, uniform addresses over 8 GiB (docs/reproductions/cr5m.md).
pub(super) fn sweep_point(i: usize) -> (u32, u32) {
    if i < WRITE_PCTS.len() {
        (WRITE_PCTS[i], 16)
    } else {
        (60, SIZES_KIB[i - WRITE_PCTS.len()])
    }
}

fn sweep_workload(i: usize, requests: u64) -> String {
    let (w, kib) = sweep_point(i);
    let mean = u64::from(kib) * 1024;
    format!(
        "# generated by `ssdlab reproduce cr5m`: {w} % writes, mean {kib} KiB, 240 req/s\n\
         requests = {requests}\n\
         read_ratio = {:.2}\n\
         arrival = {{ kind = \"poisson\", iops = 240.0 }}\n\
         size = {{ kind = \"uniform\", min_bytes = 2048, max_bytes = {} }}\n\
         address = {{ kind = \"uniform\" }}\n\
         footprint_bytes = 8589934592\n\
         alignment_bytes = 2048\n\
         duplicate_ratio = 0.0\n\
         seed = {}\n",
        1.0 - f64::from(w) / 100.0,
        2 * mean - 2048,
        100 + i
    )
}

/// The sources: the traces given (synthetic ones shortened under `--quick`, as copies
/// in `OUT/workloads/`), then the generated sweep workloads. Returns (paths, names).
fn sources(a: &Cr5mArgs) -> Result<(Vec<PathBuf>, Vec<String>, usize), Failure> {
    let traces = find_traces(&a.traces)?;
    let dir = a.output.out.join("workloads");
    std::fs::create_dir_all(&dir).map_err(|e| Failure::input(anyhow!("{}: {e}", dir.display())))?;
    let mut paths = Vec::new();
    for t in &traces {
        if a.quick && is_workload(t) {
            let mut cfg = match runner::source_of(t).map_err(|e| Failure::input(anyhow!(e)))? {
                ssdlab_trace::TraceSource::Synthetic(c) => c,
                ssdlab_trace::TraceSource::File { .. } => unreachable!("a .toml is a workload"),
            };
            cfg.requests = cfg.requests.min(QUICK_REQUESTS);
            let text = toml::to_string(&cfg).map_err(|e| Failure::internal(anyhow!(e)))?;
            let p = dir.join(format!("{}.toml", trace_name(t)));
            write_file(&p, &text)?;
            paths.push(p);
        } else {
            paths.push(t.clone());
        }
    }
    let n_traces = paths.len();
    let requests = if a.quick {
        QUICK_REQUESTS
    } else {
        SWEEP_REQUESTS
    };
    let sweeps = if a.no_sweeps { 0 } else { SWEEP_POINTS };
    for i in 0..sweeps {
        let (w, kib) = sweep_point(i);
        let fig = if i < WRITE_PCTS.len() { 9 } else { 10 };
        let p = dir.join(format!("fig{fig}-w{w}-s{kib}k.toml"));
        write_file(&p, &sweep_workload(i, requests))?;
        // A generated workload must be one the generator takes.
        let _: SyntheticConfig = crate::toml_from_str(&sweep_workload(i, requests))
            .map_err(|e| Failure::internal(anyhow!(e)))?;
        paths.push(p);
    }
    let names = paths.iter().map(|p| trace_name(p)).collect();
    Ok((paths, names, n_traces))
}

fn write_file(p: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(p, text).map_err(|e| Failure::input(anyhow!("{}: {e}", p.display())))
}

/// Every run of the experiment.
fn keys(quick: bool, traces: usize, sweeps: usize, verify_trace: usize) -> Vec<Key> {
    let ssds = if quick { 1 } else { SSDS.len() };
    let mut keys = Vec::new();
    for t in 0..traces {
        for s in 0..ssds {
            keys.extend((0..ARCHS.len()).map(|a| (t, s, a, Variant::Main)));
        }
        keys.extend((0..ARCHS.len()).map(|a| (t, 0, a, Variant::Transfer)));
        keys.push((t, 0, 3, Variant::Static));
        keys.extend((0..ARCHS.len()).map(|a| (t, 0, a, Variant::Dram)));
        keys.extend((0..ARCHS.len()).map(|a| (t, 0, a, Variant::Sectors)));
    }
    keys.push((verify_trace, 0, 4, Variant::Verify));
    for w in traces..traces + sweeps {
        keys.extend((0..ARCHS.len()).map(|a| (w, 0, a, Variant::Main)));
    }
    keys
}

fn job(a: &Cr5mArgs, paths: &[PathBuf], names: &[String], key: Key) -> Result<Job, Failure> {
    let (t, s, arch, v) = key;
    let preset = SSDS[s].0;
    let mut sets = arch_sets(s, ARCHS[arch]);
    match v {
        Variant::Main => {}
        Variant::Transfer => sets.push("timing.write_ack=\"transfer\"".into()),
        Variant::Static => sets.push("raid.chip_in_channel=\"static\"".into()),
        Variant::Dram => sets.extend(DRAM_SETS.iter().map(|x| x.to_string())),
        Variant::Sectors => {
            sets.extend(DRAM_SETS.iter().map(|x| x.to_string()));
            sets.push("timing.transfer=\"sectors\"".into());
        }
        Variant::Verify => {
            sets.push("verify=true".into());
            sets.push(format!("raid.fail=[\"{FAIL}\"]"));
        }
    }
    sets.extend(a.set.iter().cloned());
    let mut b = ConfigBuilder::new()
        .preset(preset)
        .map_err(Failure::input)?;
    for x in &sets {
        b = b.set(x).map_err(Failure::input)?;
    }
    Ok(Job {
        label: format!("{} {preset} {} {v:?}", names[t], ARCHS[arch]),
        preset,
        cfg: b.build().map_err(Failure::input)?,
        source: runner::source_of(&paths[t]).map_err(|e| Failure::input(anyhow!(e)))?,
    })
}

/// Runs the experiment.
pub fn run(a: &Cr5mArgs) -> Result<(), Failure> {
    create_out_dir(&a.output.out)?;
    let (paths, names, n_traces) = sources(a)?;
    let sweeps = paths.len() - n_traces;
    // The verified failure run takes Financial1 when it is among the traces.
    let verify_trace = (0..n_traces)
        .find(|&t| names[t].contains("financial1") && !is_workload(&paths[t]))
        .unwrap_or(0);
    let keys = keys(a.quick, n_traces, sweeps, verify_trace);
    let jobs = keys
        .iter()
        .map(|&k| job(a, &paths, &names, k))
        .collect::<Result<Vec<Job>, Failure>>()?;
    let threads = runner::threads_or_cores(a.output.jobs);
    eprintln!(
        "reproduce cr5m: {n_traces} traces, {sweeps} sweep workloads, {} runs on {threads} threads",
        jobs.len()
    );
    let start = Instant::now();
    let runs = runner::run_all(&jobs, threads);
    let wall_s = start.elapsed().as_secs_f64();
    let mut results = BTreeMap::new();
    for (k, run) in keys.into_iter().zip(runs) {
        let run = run.map_err(|e| Failure::internal(anyhow!(e)))?;
        results.insert(k, Row::from(&run));
    }
    let ex = report::Experiment {
        names: &names,
        traces: n_traces,
        sweeps: sweeps > 0,
        results: &results,
        quick: a.quick,
        sets: &a.set,
        verify_trace,
    };
    ex.write_all(&a.output.out, wall_s, threads)
        .map_err(|e| Failure::internal(anyhow!(e)))?;
    print!("{}", ex.summary(wall_s, threads));
    Ok(())
}

/// Writes output file `name` of the experiment.
pub(super) fn out_file(out: &Path, name: &str, text: String) -> Result<(), String> {
    write_out(out, name, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_of_table_iii_is_one_override_set_from_the_preset() {
        for (s, &(preset, n, c)) in SSDS.iter().enumerate() {
            for arch in ARCHS {
                let mut b = ConfigBuilder::new().preset(preset).unwrap();
                for x in arch_sets(s, arch) {
                    b = b.set(&x).unwrap();
                }
                let cfg = b.build().unwrap_or_else(|e| panic!("{preset} {arch}: {e}"));
                let g = cfg.geometry;
                let (ch, cp) = match arch {
                    "cr1" => (2 * n, c - 1),
                    "cr5m" => (n, c),
                    _ => (n, c - 1),
                };
                assert_eq!(
                    (g.channels, g.chips_per_channel),
                    (ch, cp),
                    "{preset} {arch}"
                );
                assert_eq!(cfg.raid.mirror_chips, arch == "cr5m");
                // 24 data chips everywhere; CR1 mirrors them (Table III).
                let data = match arch {
                    "cr1" => ch * cp / 2,
                    "cr5m" => ch * (cp - 1),
                    _ => ch * cp,
                };
                assert_eq!(data, 24, "{preset} {arch}");
            }
        }
    }

    #[test]
    fn sweep_workloads_parse_and_keep_their_mean_size() {
        for i in 0..SWEEP_POINTS {
            let cfg: SyntheticConfig = crate::toml_from_str(&sweep_workload(i, 10)).unwrap();
            cfg.validate().unwrap();
            let (w, kib) = sweep_point(i);
            assert!((cfg.read_ratio - (1.0 - f64::from(w) / 100.0)).abs() < 1e-9);
            let text = sweep_workload(i, 10);
            let max = 2 * u64::from(kib) * 1024 - 2048;
            assert!(text.contains(&format!("max_bytes = {max}")), "{text}");
        }
    }
}
