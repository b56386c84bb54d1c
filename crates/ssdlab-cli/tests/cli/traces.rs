//! `ssdlab traces`: every sample file with its statistics, and the full sets.

use crate::ssdlab;

const MANIFEST: &str = include_str!("../../../../traces/MANIFEST.md");

/// (file, requests) of each row of the manifest's table of files.
fn manifest_rows() -> Vec<(String, String)> {
    let start = MANIFEST.find("## The files").unwrap();
    MANIFEST[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            let requests = cells[2].split(' ').next().unwrap().to_string();
            (cells[0].trim_matches('`').to_string(), requests)
        })
        .collect()
}

#[test]
fn every_sample_trace_is_listed_with_the_request_count_its_manifest_gives() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces");
    let run = ssdlab(["traces", "--dir", dir]);
    run.assert_ok();
    let rows = manifest_rows();
    assert_eq!(rows.len(), 17, "{rows:?}");
    for (file, requests) in rows {
        let line = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{file} ")))
            .unwrap_or_else(|| panic!("{file} not listed:\n{}", run.stdout));
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols[2], requests, "{line}");
    }
    for words in [
        "MSR Cambridge",
        "SNIA IOTTA",
        "--format msr",
        "--format spc",
        "MQSim",
    ] {
        assert!(run.stdout.contains(words), "{words}:\n{}", run.stdout);
    }
}

#[test]
fn a_missing_folder_is_bad_input() {
    ssdlab(["traces", "--dir", "no/such/dir"]).assert_input_error(&["--dir", "no/such/dir"]);
}
