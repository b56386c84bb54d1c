#!/usr/bin/env bash
# The speed benchmarks of docs/PERFORMANCE.md as one series. Run from anywhere, on an
# otherwise idle machine:
#
#   scripts/bench.sh                                    # this build alone, every case
#   scripts/bench.sh --baseline ../base/target/release/ssdlab --runs 5 synth-64g synth-16g-gc
#
# Cases (scripts/bench_series.py): synth-64g and synth-16g-gc (the synthetic million-request
# trace of bench/ on its 64 GiB and GC-active 16 GiB geometries), synth-64g-dram (64 GiB
# behind a 256 MiB DRAM write buffer), brr-plain,
# brr-aged, brr-aged-sampled, brr-raid5, brr-raid5-aged, brr-raid5-aged-sampled, brr-verify
# (RAID-5), brr-plain-verify and brr-aged-verify (UMass Financial1 replayed 20 times, one
# million requests, on the 256 GB brr device). With --baseline, the baseline build and this one run
# alternately and the table gives the speed-up; every run is appended to
# target/bench-series.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
builds=()
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) builds+=(--build "baseline=$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
cargo build --release -p ssdlab-cli
if [ ! -f target/bench-1m.trace ]; then
  python3 bench/gen_trace.py --out target/bench-1m.trace   # seed 42
fi
exec python3 scripts/bench_series.py "${builds[@]}" --build "this=target/release/ssdlab" \
  --out target/bench-series.jsonl "${args[@]}"
