#!/usr/bin/env bash
# The speed benchmarks of docs/PERFORMANCE.md: one million real requests (the UMass
# Financial1 excerpt replayed 20 times back to back with shifted timestamps) on the
# 256 GB `brr` device. Run from the repository root on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p ssdlab-cli
B=target/release/ssdlab
F=../shared/traces/spc-derived/financial1-50k.disksim.gz
run() {
  echo "== $*"
  "$B" bench --preset brr --scheduler async-fifo --trace "$F" --repeat 20 "$@"
  echo
}
run --set raid.level=none                                 # plain device, no RAID
run --set raid.level=none --set ftl.precondition.overwrite_ratio=0.5   # GC active
run                                                       # the brr preset: RAID-5, LCI, groups of 8
run --verify                                              # RAID-5 with every read verified
