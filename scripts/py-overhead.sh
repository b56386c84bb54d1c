#!/usr/bin/env bash
# The overhead of ssdlab.run() against the `ssdlab` binary on the million-request
# bench (docs/PYTHON.md): whole-process wall-clock time and peak memory, each variant
# N times (default 3). PY: a Python with the package installed from a release build
# (e.g. a venv where `pip install ./crates/ssdlab-py` ran).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-python3}"
N="${N:-3}"
T=target/bench-1m.trace
C=bench/geometry-8x8-16GiB-gc.toml
[ -f "$T" ] || python3 bench/gen_trace.py --out "$T"
cargo build -q --release -p ssdlab-cli
B=target/release/ssdlab
measure() {
  local name="$1"; shift
  for _ in $(seq "$N"); do
    /usr/bin/time -f "$name: %e s wall, %U s user, %S s sys, %M KiB peak" "$@" > /dev/null
  done
}
measure "cli run" "$B" run --config "$C" --trace "$T" --json /dev/null
measure "python run(per_request=False, chips=False)" "$PY" -c \
  "import ssdlab; ssdlab.run(config='$C', trace='$T', per_request=False, chips=False).to_json()"
measure "cli run --per-request-csv" "$B" run --config "$C" --trace "$T" --json /dev/null \
  --per-request-csv target/bench-1m.csv
measure "python run() (per-request results kept, chips read)" "$PY" -c \
  "import ssdlab; ssdlab.run(config='$C', trace='$T').to_json()"
measure "python run().requests() (+ DataFrame)" "$PY" -c \
  "import ssdlab; ssdlab.run(config='$C', trace='$T').requests()"
