//! Integration tests of ssdlab-trace: the real traces in `shared/traces`, bad input
//! written to a temp dir, synthetic workloads and content tokens.

mod any_bytes;
mod bad_input;
mod real_traces;
mod synthetic;
mod tokens;

use std::path::PathBuf;

/// A file of the shared trace collection, by its path under `shared/traces`.
pub fn trace(rel: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces"
    ))
    .join(rel)
}
