#!/usr/bin/env bash
# CR1 against the pure SSD on SSD1 (preset cr5m-ssd1 with the overrides that
# `ssdlab reproduce cr5m` uses for each: 4 channels of 6 chips, or CR1's 8 channels of 6
# chips in mirrored pairs) as the load rises: the Financial1 excerpts replayed with their
# arrival times multiplied by `host.time_scale` (1 = the trace's own rate). Prints a
# Markdown table: mean response (all, read, write), CR1's change, channel utilization.
#
#   cargo build --release -p ssdlab-cli && scripts/cr5m-cr1-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
PURE=(--set 'raid.level="none"' --set raid.mirror_chips=false --set geometry.chips_per_channel=6)
CR1=(--set raid.level=1 --set 'raid.layout="lci"' --set raid.mirror_chips=false
  --set geometry.chips_per_channel=6 --set geometry.channels=8 --set raid.group_size=8)
SCALES="1 0.0625 0.02 0.01 0.005 0.0025"
for t in traces/ssdsim/example-financial1.ssdsim.gz traces/spc-derived/financial1-50k.disksim.gz; do
  for ts in $SCALES; do
    n="$(basename "$t" .gz)~$ts"
    "$B" run --preset cr5m-ssd1 "${PURE[@]}" --set "host.time_scale=$ts" --trace "$t" --json "$TMP/$n~pure.json" >/dev/null
    "$B" run --preset cr5m-ssd1 "${CR1[@]}" --set "host.time_scale=$ts" --trace "$t" --json "$TMP/$n~cr1.json" >/dev/null
  done
done
python3 - "$TMP" "$SCALES" <<'PY'
import json, os, sys
d, scales = sys.argv[1], sys.argv[2].split()
print("| trace | time scale | IOPS | pure µs (read / write) | CR1 µs (read / write) | CR1 vs pure | channel busy, pure / CR1 | GC runs |")
print("|---|---:|---:|---|---|---:|---|---:|")
for t in ("example-financial1.ssdsim", "financial1-50k.disksim"):
    for ts in scales:
        p, c = (json.load(open(os.path.join(d, f"{t}~{ts}~{a}.json"))) for a in ("pure", "cr1"))
        m = lambda r, k: r["response"][k]["mean_ns"] / 1e3
        print(f"| {t.split('.')[0]} | {ts} | {p['iops']:,.0f} "
              f"| {m(p, 'all'):,.1f} ({m(p, 'read'):,.1f} / {m(p, 'write'):,.1f}) "
              f"| {m(c, 'all'):,.1f} ({m(c, 'read'):,.1f} / {m(c, 'write'):,.1f}) "
              f"| {(m(c, 'all') / m(p, 'all') - 1) * 100:+.1f} % "
              f"| {p['utilization']['channel']['mean'] * 100:.0f} % / {c['utilization']['channel']['mean'] * 100:.0f} % "
              f"| {p['gc_runs'] + c['gc_runs']} |")
PY
