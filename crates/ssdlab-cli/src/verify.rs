//! `ssdlab verify`: a run in verify mode, the full audit, the figures and a verdict.

use crate::args::RunArgs;
use crate::workload::{warn_time_jumps, warn_unfired_failures};
use crate::{build_config, create_output, prepare, print, progress, trace_source, write_json};
use crate::{Failure, Shown};
use anyhow::anyhow;
use ssdlab::SimError;
use ssdlab_stats::{Counter, Report};
use std::fmt::Write as _;

/// `ssdlab verify`: a run with every read checked, failures injected, and a full audit
/// of data and redundancy at the end; one `name: value` line per figure, then a verdict
/// line. Exit 0 when every read returned the content last written (or was reported lost)
/// and the audit found nothing wrong, 1 when not.
pub fn cmd_verify(a: &RunArgs) -> Result<(), Failure> {
    let mut cfg = build_config(&a.replay.device, &[])?;
    cfg.verify = true;
    let src = trace_source(&a.replay.trace)?;
    let (mut sim, bar) = prepare(
        cfg,
        &src,
        a.replay.device.preset.as_deref(),
        None,
        Shown::Bar,
    )?;
    let run = sim.run_to_end();
    if let Some(bar) = bar {
        bar.finish();
    }
    let audited = run.and_then(|()| {
        let spinner = progress::Progress::step("auditing every written page and its redundancy");
        let audited = sim.audit();
        drop(spinner);
        audited
    });
    let audited = match audited {
        Ok(n) => n,
        Err(e) if verify_failure(&e) => {
            print(&format!("verify: FAIL — {e}\n"))?;
            return Err(Failure::internal(anyhow!("verification failed: {e}")));
        }
        Err(e) => return Err(e.into()),
    };
    let report = sim.into_report()?;
    warn_unfired_failures(&report);
    warn_time_jumps(&report);
    print(&verify_lines(&report, audited))?;
    if let Some(p) = &a.replay.json {
        write_json(create_output("--json", p)?, p, &report)?;
    }
    Ok(())
}

/// A verification failure (a read or the audit found content other than what was
/// written), as opposed to bad input or an internal error.
fn verify_failure(e: &SimError) -> bool {
    matches!(
        e,
        SimError::VerifyMismatch { .. } | SimError::MapMismatch { .. } | SimError::Redundancy(_)
    )
}

/// The figures of a verified run, one `name: value` line each, and the verdict line.
fn verify_lines(report: &Report, audited: u64) -> String {
    let c = |counter: Counter| report.counter(counter);
    let mut s = String::new();
    let lines: [(&str, u64); 15] = [
        ("requests", report.requests.all),
        ("reads checked", c(Counter::VerifiedReads)),
        ("degraded reads", c(Counter::DegradedReads)),
        ("reconstructions", c(Counter::RaidReconstructions)),
        ("redirected reads", c(Counter::RedirectedReads)),
        ("mismatches", 0),
        ("unrecoverable reads", c(Counter::UnrecoverableReads)),
        ("unrecoverable pages", c(Counter::UnrecoverablePages)),
        ("degraded writes", c(Counter::DegradedWrites)),
        ("lost writes", c(Counter::LostWrites)),
        ("failures", c(Counter::Failures)),
        ("rebuilt pages", c(Counter::RebuiltPages)),
        ("rebuild rows done", c(Counter::RebuildRowsDone)),
        ("rebuild rows total", c(Counter::RebuildRowsTotal)),
        ("pages audited", audited),
    ];
    let n = ssdlab_stats::fmt_count;
    for (name, v) in lines {
        let _ = writeln!(s, "{name}: {}", n(v));
    }
    if report.mirror.is_some() {
        // CR5M: what the mirror chips did.
        for (name, counter) in [
            ("mirror writes", Counter::MirrorWrites),
            ("mirror-write stripes", Counter::MirrorWriteStripes),
            ("mirror reads", Counter::RaidMirrorReads),
            ("reclaims by update", Counter::MirrorReclaimsUpdate),
            ("reclaims by full stripe", Counter::MirrorReclaimsFull),
            ("reclaims by capacity", Counter::MirrorReclaimsCapacity),
            ("reclaims by pressure", Counter::MirrorReclaimsPressure),
            ("reclaims by failure", Counter::MirrorReclaimsFailure),
            ("mirror entries at end", Counter::MirrorEntriesAtEnd),
        ] {
            let _ = writeln!(s, "{name}: {}", n(c(counter)));
        }
    }
    let lost = c(Counter::UnrecoverableReads);
    let mut lost = if lost > 0 {
        format!(", {} unrecoverable reads reported as lost", n(lost))
    } else {
        String::new()
    };
    if let Some(d) = report.dram.as_ref().filter(|d| d.power_losses > 0) {
        let _ = write!(
            lost,
            ", {} acknowledged pages lost to power losses (checked at their previous content)",
            n(d.lost_pages)
        );
    }
    let _ = writeln!(
        s,
        "verify: PASS — {} reads checked, 0 mismatches, {} pages audited{lost}",
        n(c(Counter::VerifiedReads)),
        n(audited)
    );
    s
}
