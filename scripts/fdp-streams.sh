#!/usr/bin/env bash
# The experiment of docs/HOST.md §5 "Placement identifiers from the workload": write
# amplification with one placement handle per stream against one shared handle, on the
# small aged device of examples/fdp-streams/device.toml:
#   - a real trace's stream field: MQSim's tpcc-small (16 values of its `device`
#     column), replayed 40 times back to back, 8 handles (device mod 8) against 1;
#   - a synthetic placement rule: examples/fdp-streams/hot-cold.toml (hot and cold
#     regions tagged 0 and 1), 2 handles against 1.
# Prints one markdown table row per handle and per run, then a row of GC activity.
#
#   cargo build --release -p ssdlab-cli && scripts/fdp-streams.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
DEV=examples/fdp-streams/device.toml

# run NAME HANDLES WORKLOAD-ARGS...
run() {
    local name="$1" handles="$2"
    shift 2
    "$B" run --config "$DEV" "$@" --set "host.placement_handles=$handles" \
        --json "$TMP/$name-$handles.json" >/dev/null
    python3 - "$TMP/$name-$handles.json" "$name" "$handles" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
name, handles = sys.argv[2], sys.argv[3]
p = r["placement"]
for h in p["handles"]:
    if h["host_pages"] == 0 and h["gc_copies"] == 0:
        continue
    streams = ", ".join(h.get("streams", [])) or "-"
    print(f"| {name} | {handles} | {h['handle']} | {streams} | {h['host_pages']:,} | "
          f"{h['gc_copies']:,} | {h['write_amplification']:.3f} |")
print(f"| {name} | {handles} | all | | {p['host_pages']:,} | {p['gc_copies']:,} | "
      f"**{p['write_amplification']:.3f}** |")
print(f"<!-- {name} {handles}: erases {r['erases']:,}, GC runs {r['gc_runs']:,}, "
      f"mean response {r['response']['all']['mean_ns'] / 1e3:,.1f} us -->")
PY
}

echo "| workload | handles | handle | streams | host pages | GC copies | WA |"
echo "|---|---:|---|---|---:|---:|---:|"
TPCC=(--trace traces/mqsim/tpcc-small.mqsim.gz --repeat 40)
run tpcc-small 8 "${TPCC[@]}"
run tpcc-small 1 "${TPCC[@]}"
HC=(--synthetic-config examples/fdp-streams/hot-cold.toml)
run hot-cold 2 "${HC[@]}"
run hot-cold 1 "${HC[@]}"
