//! The CSV files of `reproduce dsftl`: one row per workload and scheme, one per sweep
//! point.

use super::common::{cell, ratio};
use super::dsftl::{Experiment, Sweep, BUFFERED, SCHEMES, STATIC};
use std::fmt::Write as _;

impl Experiment<'_> {
    pub(super) fn main_csv(&self) -> String {
        let mut s = String::from(
            "workload,scheme,requests,reads,read_mean_us,read_p99_us,write_mean_us,\
             read_mean_norm,write_mean_norm,channel_util_std_pct,chip_util_std_pct,\
             plane_dup_rate,plane_dup_rate_valid,redirected_read_ratio,redirected_write_ratio,\
             duplicate_write_ratio,reads_with_copies_ratio,gc_runs,write_amplification,\
             index_bytes_per_page,bloom_false_positives,saturated_writes,hipa_dynamic_writes,\
             verified_reads,mismatches\n",
        );
        for (w, name) in self.names.iter().enumerate() {
            let base = self.at(w, STATIC);
            for (sc, (scheme, _)) in SCHEMES.iter().enumerate() {
                let o = self.at(w, sc);
                let norm = |a: f64, b: f64| cell(ratio(a, b));
                let _ = writeln!(
                    s,
                    "{name},{scheme},{},{},{:.3},{:.3},{:.3},{},{},{:.4},{:.4},{:.5},{:.5},{:.5},{:.5},{:.5},{:.5},{},{:.4},{:.3},{},{},{},{},{}",
                    o.requests,
                    o.reads,
                    o.read_mean / 1e3,
                    o.read_p99 as f64 / 1e3,
                    o.write_mean / 1e3,
                    norm(o.read_mean, base.read_mean),
                    norm(o.write_mean, base.write_mean),
                    o.channel_std * 100.0,
                    o.chip_std * 100.0,
                    o.plane_dup,
                    o.plane_dup_valid,
                    o.redirected_reads,
                    o.redirected_writes,
                    o.duplicate_writes,
                    o.reads_with_copies,
                    o.gc_runs,
                    o.write_amplification,
                    o.bytes_per_page,
                    o.false_positives,
                    o.saturated,
                    o.hipa_dynamic,
                    o.verified_reads,
                    o.mismatches,
                );
            }
        }
        s
    }

    /// The sweep points run, as (workload, scheme, sweep) in key order.
    pub fn sweep_points(&self) -> impl Iterator<Item = (usize, usize, Sweep)> + '_ {
        self.results.keys().copied().filter(|k| k.2 != Sweep::Main)
    }

    pub(super) fn sweeps_csv(&self) -> String {
        let mut s = String::from(
            "workload,scheme,sweep,value,read_mean_us,write_mean_us,channel_util_std_pct,\
             redirected_read_ratio,redirected_write_ratio,hipa_dynamic_writes,gc_runs,\
             write_amplification\n",
        );
        for (w, sc, sweep) in self.sweep_points() {
            let (what, value) = match sweep {
                Sweep::HipaHalves(h) => ("hipa_threshold_programs", f64::from(h) / 2.0),
                Sweep::DupPermille(d) => ("duplicate_ratio", f64::from(d) / 1000.0),
                Sweep::LoadPct(l) => ("offered_load", f64::from(l) / 100.0),
                Sweep::TimeDivisor(d) => ("time_scale", 1.0 / f64::from(d)),
                Sweep::Aged => ("preconditioned", 1.0),
                Sweep::Main | Sweep::Dram => continue,
            };
            let o = &self.results[&(w, sc, sweep)];
            let _ = writeln!(
                s,
                "{},{},{what},{value},{:.3},{:.3},{:.4},{:.5},{:.5},{},{},{:.4}",
                self.names[w],
                SCHEMES[sc].0,
                o.read_mean / 1e3,
                o.write_mean / 1e3,
                o.channel_std * 100.0,
                o.redirected_reads,
                o.redirected_writes,
                o.hipa_dynamic,
                o.gc_runs,
                o.write_amplification,
            );
        }
        s
    }

    /// The buffer's sensitivity: each buffered scheme without and with the DRAM write
    /// buffer, on every workload.
    pub(super) fn dram_csv(&self) -> String {
        let mut s = String::from(
            "workload,scheme,buffer,requests,read_mean_us,write_mean_us,write_vs_static,\
             read_vs_static,redirected_write_ratio,plane_duplicate_rate,gc_runs,\
             write_amplification\n",
        );
        for w in 0..self.names.len() {
            for (buffer, sweep) in [("none", Sweep::Main), ("ssdsim-32mib", Sweep::Dram)] {
                let base = self.point(w, STATIC, sweep);
                for &sc in &BUFFERED {
                    let o = self.point(w, sc, sweep);
                    let _ = writeln!(
                        s,
                        "{},{},{buffer},{},{:.3},{:.3},{},{},{:.5},{:.5},{},{:.4}",
                        self.names[w],
                        SCHEMES[sc].0,
                        o.requests,
                        o.read_mean / 1e3,
                        o.write_mean / 1e3,
                        cell(ratio(o.write_mean, base.write_mean)),
                        cell(ratio(o.read_mean, base.read_mean)),
                        o.redirected_writes,
                        o.plane_dup,
                        o.gc_runs,
                        o.write_amplification,
                    );
                }
            }
        }
        s
    }
}
