//! The figures of `reproduce brr`: 10-12 (read waiting, write waiting and chip
//! utilization normalized to Async-FIFO, per read-contended trace and on average), 13 and
//! 14 (BRR's read waiting against the chip queue length and the parity group size). The
//! paper's averages are drawn beside ours; an average bar has a whisker over the traces
//! it averages (an average line has every trace as a line beside it).

use super::super::plot::{self, Bars, Lines, Mark, Range};
use super::{mean, Experiment, Metric, GROUPS, SCHEDULERS};
use std::path::Path;

/// The paper's averages of BRR over Async-FIFO (§IV-B, §IV-C: read waiting −23.8 %, write
/// waiting −3.2 %, chip utilization +7.3 %), on figures 10-12's axis.
const PAPER_MAIN: [f64; 3] = [0.762, 0.968, 1.073];
/// The paper's BRR read waiting at the last queue length over queue length 1 (§IV-D,
/// −24.4 % from 1 to 256) and at group 16 over group 4 (+17.6 %).
const PAPER_QUEUE_256: f64 = 0.756;
const PAPER_GROUP_16: f64 = 1.176;

impl Experiment<'_> {
    pub(super) fn main_figures(&self, out: &Path) -> Result<(), String> {
        let figs: [(&str, &str, Metric); 3] = [
            (
                "fig10-read-waiting.svg",
                "Normalized read waiting time",
                |o| o.read_wait_ns,
            ),
            (
                "fig11-write-waiting.svg",
                "Normalized write waiting time",
                |o| o.write_wait_ns,
            ),
            (
                "fig12-chip-utilization.svg",
                "Normalized chip utilization",
                |o| o.chip_util,
            ),
        ];
        let brr = SCHEDULERS.iter().position(|&s| s == "brr").expect("brr");
        for ((file, title, f), paper) in figs.into_iter().zip(PAPER_MAIN) {
            let mut groups: Vec<String> = self
                .contended_traces()
                .into_iter()
                .map(|t| self.names[t].clone())
                .collect();
            let avg = groups.len();
            groups.push("average".into());
            let mut ranges = Vec::new();
            let series: Vec<(String, Vec<f64>)> = SCHEDULERS
                .iter()
                .enumerate()
                .map(|(i, &s)| {
                    let v = self.normalized(s, f);
                    ranges.extend(Range::over(i, avg, &v));
                    let avg = mean(&v.iter().flatten().copied().collect::<Vec<_>>());
                    let mut vals: Vec<f64> = v.iter().map(|x| x.unwrap_or(0.0)).collect();
                    vals.push(avg);
                    (s.to_string(), vals)
                })
                .collect();
            let b = Bars {
                title,
                y_label: "normalized to Async-FIFO",
                groups: &groups,
                series: &series,
                paper: &[Mark {
                    series: brr,
                    at: avg,
                    value: paper,
                }],
                ranges: &ranges,
                ..Default::default()
            };
            plot::bars(&out.join(file), &b)?;
        }
        Ok(())
    }

    pub(super) fn sweep_figures(&self, out: &Path) -> Result<(), String> {
        for (queue, values, file, title, x_label, paper) in [
            (
                true,
                self.depths.clone(),
                "fig13-queue-length.svg",
                "BRR read waiting vs chip queue length",
                "chip queue length",
                (self.depths.last() == Some(&256)).then_some(PAPER_QUEUE_256),
            ),
            (
                false,
                GROUPS.to_vec(),
                "fig14-group-size.svg",
                "BRR read waiting vs parity group size",
                "parity group size",
                (GROUPS.last() == Some(&16)).then_some(PAPER_GROUP_16),
            ),
        ] {
            let norm = self.sweep(&values, queue);
            let mut series: Vec<(String, Vec<f64>)> = self
                .names
                .iter()
                .zip(&norm)
                .filter(|(_, row)| row.iter().all(Option::is_some))
                .map(|(n, row)| (n.clone(), row.iter().flatten().copied().collect()))
                .collect();
            // Every trace the average takes is a line of its own: no whiskers.
            let avg = series.len();
            series.push(("average".into(), self.sweep_average(&values, queue)));
            let paper: Vec<Mark> = paper
                .into_iter()
                .map(|value| Mark {
                    series: avg,
                    at: values.len() - 1,
                    value,
                })
                .collect();
            let xs: Vec<String> = values.iter().map(u32::to_string).collect();
            let y_label = format!("normalized to {x_label} {}", values[0]);
            let l = Lines {
                title,
                x_label,
                y_label: &y_label,
                xs: &xs,
                series: &series,
                paper: &paper,
                ..Default::default()
            };
            plot::lines(&out.join(file), &l)?;
        }
        Ok(())
    }
}
