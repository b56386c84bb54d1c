#!/usr/bin/env bash
# Coverage-guided fuzzing of the input parsers (cargo-fuzz, libFuzzer, nightly).
#
#   scripts/fuzz.sh [RUNS] [SECONDS]
#
# Runs each target (trace_reader, config, fail_spec, synthetic) for RUNS executions
# (default 10^7) or SECONDS seconds each (0 = no time bound), starting from the
# committed seeds (fuzz/seeds/TARGET: the malformed cases the readers must refuse) and
# from corpora built here out of the presets and the first lines of every trace in
# traces/. Crashes land in fuzz/artifacts/TARGET; keep each as a regression
# test. Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10000000}
SECONDS_EACH=${2:-0}
TARGETS=${FUZZ_TARGETS:-"trace_reader config fail_spec synthetic"}
# The code under test is safe Rust (unsafe_code = "forbid"): a crash is a panic, which
# libFuzzer catches without a sanitizer. AddressSanitizer slowed the trace reader 100x
# (it poisons the 256 KiB read buffers on every open); FUZZ_SANITIZER=address brings it back.
SANITIZER=${FUZZ_SANITIZER:-none}
# The trace reader opens a file with 256 KiB buffers per input; keep such blocks on the
# heap instead of an mmap/munmap pair each time (3x the executions per second).
export MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_:-4194304}
export MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD_:-67108864}

corpus=fuzz/corpus
mkdir -p "$corpus"/{trace_reader,config,fail_spec,synthetic}
# Trace seeds: a mode byte (0x0f: detect the format) and the first 40 lines of each
# sample trace, decompressed.
if [ -d traces ]; then
  find traces -type f \( -name '*.gz' -o -name '*.csv' -o -name '*.txt' \) | sort |
    while read -r f; do
      out="$corpus/trace_reader/$(basename "$f" | tr -c 'A-Za-z0-9._-' _)"
      [ -s "$out" ] && continue
      { printf '\x0f'; (gzip -dc "$f" 2>/dev/null || cat "$f") | head -n 40 || true; } > "$out"
    done
fi
for p in crates/ssdlab/presets/*.toml; do
  cp "$p" "$corpus/config/$(basename "$p")"
done

for t in $TARGETS; do
  echo "== fuzz $t"
  args=(-runs="$RUNS" -max_len=8192 -print_final_stats=1)
  if [ "$SECONDS_EACH" != 0 ]; then
    args+=(-max_total_time="$SECONDS_EACH")
  fi
  cargo +nightly fuzz run --sanitizer "$SANITIZER" "$t" "$corpus/$t" "fuzz/seeds/$t" -- "${args[@]}"
done
