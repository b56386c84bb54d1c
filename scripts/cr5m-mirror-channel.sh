#!/usr/bin/env bash
# CR5M with its mirror copies on the page's own channel (the paper's design,
# `raid.mirror_channel = "own"`) against copies on the next channel (`"next"`, not in the
# paper), on the presets cr5m-ssd1 and cr5m-ssd3 with mirror chips on:
#   1. a channel failure half-way through financial1-50k, verified: reads checked,
#      degraded and unrecoverable reads;
#   2. no failure, three traces: response times, pages programmed, mirror-write share.
# Prints a Markdown table of each (docs/CR5M.md, "Copies on another channel").
#
#   cargo build --release -p ssdlab-cli && scripts/cr5m-mirror-channel.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
F1=traces/spc-derived/financial1-50k.disksim.gz

echo "| copy on | reads checked | degraded reads | unrecoverable reads | unrecoverable pages | mismatches |"
echo "|---|---:|---:|---:|---:|---:|"
for mc in own next; do
  "$B" verify --preset cr5m-ssd1 --set raid.mirror_chips=true --set "raid.mirror_channel=\"$mc\"" \
    --trace "$F1" --fail channel:1@0.5 >"$TMP/verify-$mc.txt" || true
  python3 - "$TMP/verify-$mc.txt" "$mc" <<'PY'
import sys
v = {}
for line in open(sys.argv[1]):
    if ":" in line:
        k, _, x = line.partition(":")
        v[k.strip()] = x.strip()
get = lambda k: v.get(k, "0")
print(f"| {sys.argv[2]} | {get('reads checked')} | {get('degraded reads')} | {get('unrecoverable reads')} | {get('unrecoverable pages')} | {get('mismatches')} |")
PY
done
echo

for t in "$F1" traces/ssdsim/example-financial1.ssdsim.gz traces/spc-derived/websearch1-50k.disksim.gz; do
  for p in cr5m-ssd1 cr5m-ssd3; do
    for mc in own next; do
      "$B" run --preset "$p" --set raid.mirror_chips=true --set "raid.mirror_channel=\"$mc\"" \
        --trace "$t" --json "$TMP/$(basename "$t" .gz)~$p~$mc.json" >/dev/null
    done
  done
done
python3 - "$TMP" <<'PY'
import glob, json, os, sys
print("| trace | device | copy on | mean (µs) | read | write | p99 | pages programmed | mirror-write share | GC runs |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
runs = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
keys = []
for f in runs:
    trace, dev, _ = os.path.basename(f)[:-5].split("~")
    if (trace, dev) not in keys:
        keys.append((trace, dev))
for trace, dev in keys:
    base = None
    for mc in ("own", "next"):
        d = json.load(open(os.path.join(sys.argv[1], f"{trace}~{dev}~{mc}.json")))
        r = d["response"]
        mean = r["all"]["mean_ns"] / 1e3
        rel = "" if base is None else f" ({(mean / base - 1) * 100:+.1f} %)"
        base = mean if base is None else base
        print(f"| {trace.split('.')[0]} | {dev} | {mc} | {mean:.1f}{rel} | {r['read']['mean_ns'] / 1e3:.1f} "
              f"| {r['write']['mean_ns'] / 1e3:.1f} | {r['all']['p99_ns'] / 1e3:.1f} | {d['programmed_pages']:,} "
              f"| {d['mirror']['mirror_write_share'] * 100:.1f} % | {d['gc_runs']} |")
PY
