//! The repository as its users receive it.
//!
//! * Crates depend only on the crates below them (docs/ARCHITECTURE.md §16): the table
//!   here is the one that section prints, checked against every crate's manifest.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

// ---------------------------------------------------------------------------------------
// Crate layering.

/// Every crate of `crates/` and the crates of ours it may depend on.
const LAYERS: &[(&str, &[&str])] = &[
    ("ssdlab-engine", &[]),
    ("ssdlab-nand", &["ssdlab-engine"]),
    ("ssdlab-trace", &["ssdlab-engine"]),
    ("ssdlab-ftl", &["ssdlab-engine", "ssdlab-nand"]),
    ("ssdlab-raid", &["ssdlab-engine", "ssdlab-nand"]),
    ("ssdlab-stats", &["ssdlab-nand"]),
    (
        "ssdlab",
        &[
            "ssdlab-engine",
            "ssdlab-nand",
            "ssdlab-trace",
            "ssdlab-ftl",
            "ssdlab-raid",
            "ssdlab-stats",
        ],
    ),
    (
        "ssdlab-cli",
        &[
            "ssdlab",
            "ssdlab-trace",
            "ssdlab-stats",
            "ssdlab-nand",
            "ssdlab-raid",
        ],
    ),
    (
        "ssdlab-py",
        &[
            "ssdlab",
            "ssdlab-trace",
            "ssdlab-stats",
            "ssdlab-raid",
            "ssdlab-nand",
        ],
    ),
];

/// The names of our crates among the keys of every dependency table of `manifest`
/// (normal, dev, build, and per-target).
fn our_dependencies(manifest: &toml::Table) -> BTreeSet<String> {
    let mut tables: Vec<&toml::Table> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        tables.extend(manifest.get(key).and_then(|v| v.as_table()));
    }
    if let Some(targets) = manifest.get("target").and_then(|v| v.as_table()) {
        for target in targets.values().filter_map(|v| v.as_table()) {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                tables.extend(target.get(key).and_then(|v| v.as_table()));
            }
        }
    }
    tables
        .iter()
        .flat_map(|t| t.keys())
        .filter(|k| *k == "ssdlab" || k.starts_with("ssdlab-"))
        .cloned()
        .collect()
}

#[test]
fn crates_depend_only_on_the_crates_below_them() {
    let crates = root().join("crates");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .expect("crates/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).expect("a manifest");
        let manifest: toml::Table = text.parse().expect("a TOML manifest");
        let name = manifest["package"]["name"]
            .as_str()
            .expect("a package name")
            .to_string();
        seen.insert(name.clone());
        let Some((_, allowed)) = LAYERS.iter().find(|(n, _)| *n == name) else {
            problems.push(format!(
                "{name}: not in the table of layers (docs/ARCHITECTURE.md §16)"
            ));
            continue;
        };
        for dep in our_dependencies(&manifest) {
            if !allowed.contains(&dep.as_str()) {
                problems.push(format!("{name} depends on {dep}, which is not below it"));
            }
        }
    }
    for (name, _) in LAYERS {
        if !seen.contains(*name) {
            problems.push(format!("{name}: in the table of layers but not in crates/"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
