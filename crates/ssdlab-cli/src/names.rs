//! The names `run --help` (and `verify`, `compare`, `sweep`, `bench`) lists: presets
//! from [`ssdlab::presets::NAMES`], schedulers from the `schedulers!` registry
//! ([`ssdlab::SchedulerKind::NAMES`]), allocation policies from the FTL's allocation
//! enum (the values of `ftl.allocation` in the configuration reference), each with its
//! one-line meaning where it has one. Nothing is typed here, so a new preset, scheduler
//! or policy shows up by itself.

use ssdlab::config::doc::{lookup, ValueDoc};
use ssdlab::SchedulerKind;
use std::fmt::Write as _;

/// `ssdlab config list`: each preset with its organization, raw capacity, scheduler and,
/// when its map is cached, the table's size.
///
/// # Errors
/// A preset that does not resolve (a defect of the shipped presets).
pub fn preset_list() -> Result<String, ssdlab::ConfigErrors> {
    let mut s = String::new();
    let width = ssdlab::presets::NAMES
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    for n in ssdlab::presets::NAMES {
        let cfg = ssdlab::SimConfig::preset(n)?;
        let g = cfg.geometry;
        // The ideal map takes no modelled DRAM; a cached one its table's bytes.
        let map = match cfg.ftl.dram_bytes() {
            0 => String::new(),
            b => format!(", cached map of {} MiB", b >> 20),
        };
        let _ = writeln!(
            s,
            "{n:<width$} {}ch x {}chips x {}dies x {}planes, {} GiB raw, {}{map}",
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
            g.capacity_bytes() >> 30,
            cfg.scheduler.name.name()
        );
    }
    Ok(s)
}

/// `--preset`'s help.
pub fn preset_help() -> String {
    format!(
        "A named preset: {} (`ssdlab config list`)",
        ssdlab::presets::NAMES.join(", ")
    )
}

/// `--scheduler`'s help.
pub fn scheduler_help() -> String {
    format!(
        "Scheduler name (sets scheduler.name): {}",
        SchedulerKind::NAMES.join(", ")
    )
}

/// The values of `key` in the configuration reference, without TOML quotes.
fn values(key: &str) -> Vec<ValueDoc> {
    let d = lookup(key).unwrap_or_else(|| panic!("the configuration has the key {key}"));
    d.values
        .into_iter()
        .map(|v| ValueDoc {
            value: v.value.trim_matches('"').to_string(),
            description: v.description,
        })
        .collect()
}

/// The first sentence of a value's meaning.
fn first_sentence(v: &ValueDoc) -> &str {
    let p = v.description.first().map_or("", String::as_str);
    p.find(". ").map_or(p, |i| &p[..=i])
}

/// The lists after the options, when the command line asks for help; empty otherwise.
/// Building them walks the configuration reference (tens of millions of instructions),
/// which no run should pay for: clap takes `after_help` whenever it builds the command.
pub fn device_lists() -> &'static str {
    static LISTS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let help = std::env::args_os()
        .skip(1)
        .any(|a| a == "-h" || a == "--help" || a == "help");
    if help {
        LISTS.get_or_init(lists_text)
    } else {
        ""
    }
}

/// The lists after the options: presets, schedulers and allocation policies.
fn lists_text() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Presets (--preset NAME; `ssdlab config show NAME --explain`):"
    );
    let _ = writeln!(out, "  {}", ssdlab::presets::NAMES.join(", "));
    let schedulers = values("scheduler.name");
    debug_assert_eq!(schedulers.len(), SchedulerKind::NAMES.len());
    let lists = [
        ("Schedulers (--scheduler NAME):", schedulers),
        (
            "Allocation policies (--set ftl.allocation=NAME):",
            values("ftl.allocation"),
        ),
    ];
    for (title, list) in lists {
        let _ = writeln!(out, "\n{title}");
        let w = list.iter().map(|v| v.value.len()).max().unwrap_or(0);
        for v in &list {
            let _ = writeln!(out, "  {:<w$}  {}", v.value, first_sentence(v));
        }
    }
    let _ = write!(
        out,
        "\nEvery configuration key: `ssdlab config doc [KEY]` (docs/CONFIG.md)."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_come_from_the_code() {
        let text = lists_text();
        for name in ssdlab::presets::NAMES.iter().chain(SchedulerKind::NAMES) {
            assert!(text.contains(name), "{name}\n{text}");
        }
        for policy in ["static", "dynamic", "hipa", "content-aware"] {
            assert!(text.contains(&format!("\n  {policy} ")), "{policy}\n{text}");
        }
        assert!(text.contains("  brr "), "{text}");
        assert!(scheduler_help().ends_with(&SchedulerKind::NAMES.join(", ")));
    }
}
