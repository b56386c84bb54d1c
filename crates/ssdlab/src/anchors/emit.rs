//! The imported configuration as commented TOML: each key under a comment naming its
//! source, then every parameter left out as `# not imported: NAME = VALUE — why`.

use super::{Entry, EntryKind, Left, NotImported, Read, Simulator};
use std::fmt::Write as _;

/// `section` and `leaf` of a dotted key (`""` for a top-level key).
fn split(key: &str) -> (&str, &str) {
    key.rsplit_once('.').unwrap_or(("", key))
}

fn sources_text(sim: Simulator, sources: &[Read]) -> String {
    let parts: Vec<String> = sources
        .iter()
        .map(|r| {
            if r.defaulted {
                format!("{} absent ({} default {})", r.name, sim.name(), r.value)
            } else {
                format!("{} = {}", r.name, r.value)
            }
        })
        .collect();
    if parts.is_empty() {
        return sim.name().to_string();
    }
    format!("{} {}", sim.name(), parts.join(", "))
}

fn comment(entry: &Entry, sim: Simulator) -> String {
    match &entry.kind {
        EntryKind::Value { sources, note, .. } => match note {
            Some(n) => format!("{}: {n}", sources_text(sim, sources)),
            None => sources_text(sim, sources),
        },
        EntryKind::Fixed { why, .. } => format!("no {} parameter: {why}", sim.name()),
        EntryKind::NotSet { why } => {
            format!(
                "{} not set (ssdlab's default applies): {why}",
                split(entry.key).1
            )
        }
    }
}

/// The whole document.
pub fn render(sim: Simulator, file: &str, entries: &[Entry], left: &[NotImported]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# ssdlab configuration imported from the {} device file {file}\n\
         # by `ssdlab config import`. Each key names the parameter(s) it comes from; a key\n\
         # not set here keeps ssdlab's default. docs/IMPORT.md explains every conversion.",
        sim.name()
    );
    let mut section = "";
    for e in entries {
        let (sec, leaf) = split(e.key);
        if sec != section {
            let _ = writeln!(s, "\n[{sec}]");
            section = sec;
        } else {
            s.push('\n');
        }
        let _ = writeln!(s, "# {}", comment(e, sim));
        match &e.kind {
            EntryKind::Value { value, .. } => {
                let _ = writeln!(s, "{leaf} = {value}");
            }
            EntryKind::Fixed { value, .. } => {
                let _ = writeln!(s, "{leaf} = {value}");
            }
            EntryKind::NotSet { .. } => {}
        }
    }
    if !left.is_empty() {
        let _ = writeln!(
            s,
            "\n# Parameters of {file} this configuration does not carry ({}):",
            left.len()
        );
    }
    for n in left {
        let effect = match n.left {
            Left::Unmapped(false) => "no effect on the simulated device",
            Left::Unmapped(true) => "changes the device's behaviour",
            Left::Approximated => "approximated; changes the device's behaviour",
            Left::Unknown => "unknown",
        };
        let _ = writeln!(
            s,
            "# not imported: {} = {} — {} [{effect}]",
            n.name, n.value, n.why
        );
    }
    s
}
