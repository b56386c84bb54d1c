#!/usr/bin/env bash
# A short, bounded fuzz run of every target, for CI: SECONDS (default 10) each, from the
# committed seeds. Skips cleanly when the nightly toolchain is missing. Builds the
# targets with libFuzzer's coverage instrumentation directly (what cargo-fuzz passes,
# without a sanitizer: the code is safe Rust, so a crash is a panic), so that CI needs no
# cargo-fuzz install. Long runs: scripts/fuzz.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz smoke: no nightly toolchain, skipped"
  exit 0
fi
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions"
# An explicit --target keeps RUSTFLAGS off build scripts and proc macros (they run on
# the build machine, uninstrumented), as cargo-fuzz does.
host=$(rustc +nightly -vV | sed -n 's/^host: //p')
cargo +nightly build --release --quiet --manifest-path fuzz/Cargo.toml \
  --target-dir fuzz/target/smoke --target "$host"
for t in trace_reader config fail_spec synthetic; do
  work=$(mktemp -d)
  cp fuzz/seeds/"$t"/* "$work"/
  echo "== fuzz smoke $t (${SECONDS_EACH}s)"
  status=0
  fuzz/target/smoke/"$host"/release/"$t" "$work" -max_total_time="$SECONDS_EACH" -max_len=8192 \
    -print_final_stats=1 -artifact_prefix=fuzz/target/smoke/"$t"- > "$work.log" 2>&1 ||
    status=$?
  grep -E "stat::number_of_executed_units|panicked|ERROR" "$work.log" || true
  if [ "$status" != 0 ]; then
    tail -n 40 "$work.log" >&2
  fi
  rm -f "$work.log"
  rm -rf "$work"
  if [ "$status" != 0 ]; then
    echo "fuzz smoke: $t failed (exit $status); the input is in fuzz/target/smoke/" >&2
    exit 1
  fi
done
