//! The whole-space random test of the RAID, failure, rebuild and DGC engine
//! (`adversarial::random_raid_workloads_with_failures_over_the_whole_space`) at length:
//! thousands of cases instead of the few dozen `cargo test` runs. A nightly-style check,
//! not a timing benchmark:
//!
//! ```sh
//! cargo bench -p ssdlab --bench adversarial                 # 4096 cases
//! SSDLAB_WIDE_CASES=20000 cargo bench -p ssdlab --bench adversarial
//! ```
//!
//! The cases come from a fixed seed unless `SSDLAB_WIDE_SEED` names another; a failing
//! case is shrunk and printed, and the process exits with status 1.

#[allow(dead_code)]
#[path = "../tests/it/util.rs"]
mod util;

#[allow(dead_code, unused_imports)]
#[path = "../tests/it/adversarial.rs"]
mod adversarial;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn env_u64(key: &str, default: u64) -> u64 {
    match std::env::var(key) {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("{key}={v:?} is not a number");
            std::process::exit(2)
        }),
        Err(_) => default,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is expected.
    let cases = env_u64("SSDLAB_WIDE_CASES", 4096) as u32;
    let seed = env_u64("SSDLAB_WIDE_SEED", 13);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let start = std::time::Instant::now();
    let result = runner.run(&adversarial::whole_space(), |(case, ops, fails)| {
        adversarial::whole_space_case(&case, &ops, &fails)
    });
    match result {
        Ok(()) => println!(
            "whole-space RAID test: {cases} cases passed (seed {seed}) in {:.1} s",
            start.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("whole-space RAID test failed (seed {seed}): {e}");
            std::process::exit(1);
        }
    }
}
