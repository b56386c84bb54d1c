//! The repository as its users receive it.
//!
//! * Crates depend only on the crates below them (docs/ARCHITECTURE.md §16): the table
//!   here is the one that section prints, checked against every crate's manifest.
//! * No text file names a path of a development machine (a home directory, a scratch
//!   folder, the folder beside a checkout that holds material users do not have): the
//!   docs, code, examples and scripts must stand alone. Binary and `.gz` files and build
//!   output are skipped; [`PLACEHOLDERS`] lists the forms a document may use to show a
//!   user's own path.

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
    ("ssdlab-dram", &["ssdlab-nand"]),
    (
        "ssdlab",
        &[
            "ssdlab-engine",
            "ssdlab-nand",
            "ssdlab-trace",
            "ssdlab-ftl",
            "ssdlab-raid",
            "ssdlab-stats",
            "ssdlab-dram",
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

// ---------------------------------------------------------------------------------------
// Paths of a development machine.

/// What the repository holds for its users: these files and folders, from the root.
const SCANNED: &[&str] = &[
    "README.md",
    "docs",
    "crates",
    "examples",
    "scripts",
    ".ci",
    "bench",
    "traces",
    "fuzz",
];

/// Folders never scanned, wherever they are: build output, caches, fuzzing scratch.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".venv",
    "node_modules",
    "corpus",
    "artifacts",
];

/// Forms a document may use to show a path of the user's own, e.g. in a command to
/// copy: these are taken out of a line before it is checked.
const PLACEHOLDERS: &[&str] = &["/home/you/", "/Users/you/"];

/// The machine paths looked for. Each is written in two pieces so that this file does
/// not name them itself. `true`: a name must follow (a home directory's owner).
const MACHINE_PATHS: &[(&str, bool)] = &[
    (concat!("..", "/shared"), false),
    (concat!("/wo", "rk/"), false),
    (concat!("/ro", "ot/"), false),
    (concat!("/tm", "p/"), false),
    (concat!("/ho", "me/"), true),
    (concat!("/Use", "rs/"), true),
    (concat!("/mn", "t/"), false),
    (concat!("/var/", "folders/"), false),
    (concat!("C:", "\\Users\\"), true),
];

/// The machine paths named in `line`, placeholders aside.
fn machine_paths_in(line: &str) -> Vec<&'static str> {
    let mut line = line.to_string();
    for p in PLACEHOLDERS {
        line = line.replace(p, " ");
    }
    let mut found = Vec::new();
    for &(needle, needs_name) in MACHINE_PATHS {
        let named = line.match_indices(needle).any(|(at, _)| {
            !needs_name
                || line[at + needle.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() || "_.-".contains(c))
        });
        if named {
            found.push(needle);
        }
    }
    found
}

/// Every file under `path` (or `path` itself), skipping [`SKIPPED_DIRS`], sorted.
fn files_under(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.expect("an entry").path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        if p.is_dir() && SKIPPED_DIRS.contains(&name.as_ref()) {
            continue;
        }
        files_under(&p, out);
    }
}

/// The text of `file`, or `None` for a gzip file or one that is not UTF-8 text.
fn text_of(file: &Path) -> Option<String> {
    if file.extension().is_some_and(|x| x == "gz") {
        return None;
    }
    let bytes = std::fs::read(file).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[test]
fn no_text_names_a_path_of_a_development_machine() {
    let root = root();
    let mut files = Vec::new();
    for rel in SCANNED {
        files_under(&root.join(rel), &mut files);
    }
    assert!(
        files.len() > 100,
        "the scan found only {} files",
        files.len()
    );
    let mut hits = Vec::new();
    for file in &files {
        let Some(text) = text_of(file) else { continue };
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (i, line) in text.lines().enumerate() {
            for needle in machine_paths_in(line) {
                hits.push(format!("{rel}:{}: `{needle}` in: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "{} paths of a development machine named (a user has no such path; \
         use a placeholder such as /path/to/your/trace.csv):\n{}",
        hits.len(),
        hits.join("\n")
    );
}

#[test]
fn machine_paths_are_found_and_placeholders_spared() {
    let home = concat!("see /ho", "me/alice/traces/x.csv");
    assert_eq!(machine_paths_in(home), [concat!("/ho", "me/")]);
    let shared = concat!("`..", "/shared/specs/a.md`");
    assert_eq!(machine_paths_in(shared), [concat!("..", "/shared")]);
    let scratch = concat!("--out /tm", "p/run1");
    assert_eq!(machine_paths_in(scratch), [concat!("/tm", "p/")]);
    for fine in [
        "ssdlab run --trace /path/to/your/trace.csv",
        "cp trace.csv /home/you/traces/",
        "fiu/homes-replay-1k.fiu.gz",
        "the host has one home/ folder",
    ] {
        assert!(machine_paths_in(fine).is_empty(), "{fine}");
    }
}
