//! Integration tests of ssdlab-trace: the sample traces in the repository's `traces/`, bad input
//! written to a temp dir, synthetic workloads and content tokens.

mod any_bytes;
mod bad_input;
mod flush;
mod real_traces;
mod streams;
mod synthetic;
mod tokens;
mod trim;

use std::path::PathBuf;

/// A sample trace, by its path under the repository's `traces/`.
pub fn trace(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces")).join(rel)
}
