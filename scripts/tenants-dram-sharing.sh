#!/usr/bin/env bash
# The tenants' share of the DRAM stage (docs/HOST.md §8, docs/DRAM.md "Tenants"):
# tpcc-small and wsrch-small together (examples/tenants/tpcc-wsrch-dram.toml) with a
# write-back DRAM stage of each size in $SIZES MiB, as a data cache ("read-write") and
# as a write buffer, shared (one stage) and equally partitioned (cache.sharing =
# "equal"), each with --alone (every tenant alone on the same configuration, its
# partition included). Prints a Markdown table: per tenant its partition, DRAM read
# hits, write pages that waited for room and their mean wait, its partition's peak of
# dirty pages, its mean and p99 response time, mean alone and slowdown, FLIN's
# fairness index, and whether GC ran (erases).
#
#   cargo build --release -p ssdlab-cli && scripts/tenants-dram-sharing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
SIZES="${SIZES:-1 2}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
for m in $SIZES; do
  for mode in read-write write-buffer; do
    for s in shared equal; do
      "$B" run --config examples/tenants/tpcc-wsrch-dram.toml --alone \
        --set "cache.capacity_mib=$m" --set "cache.mode=\"$mode\"" \
        --set "cache.sharing=\"$s\"" --json "$TMP/$m~$mode~$s.json" >/dev/null
    done
  done
done
python3 - "$TMP" $SIZES <<'PY'
import json, os, sys
d, sizes = sys.argv[1], sys.argv[2:]
print("| MiB | mode | sharing | tenant | pages | read hits | write waits | wait mean µs | peak dirty | mean µs | p99 µs | alone µs | slowdown | fairness | GC runs |")
print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for m in sizes:
    for mode in ("read-write", "write-buffer"):
        for s in ("shared", "equal"):
            r = json.load(open(os.path.join(d, f"{m}~{mode}~{s}.json")))
            ts = r["tenants"]
            gc = r["gc_runs"]
            for i, t in enumerate(ts["tenants"]):
                c = t["dram"]
                first = i == 0
                head = f"| {m} | {mode} | {s} |" if first else "| | | |"
                peak = c.get("peak_dirty_pages")
                tail = f" {ts['fairness']:.3f} | {gc} |" if first else " | |"
                print(
                    f"{head} {t['name']} | {c['capacity_pages']:,} | {c['read_hits']:,} "
                    f"| {c['buffer_waits']:,} | {c['buffer_wait_ns_mean'] / 1e3:,.1f} "
                    f"| {'-' if peak is None else f'{peak:,}'} "
                    f"| {t['response']['mean_ns'] / 1e3:,.1f} | {t['response']['p99_ns'] / 1e3:,.1f} "
                    f"| {t['alone_response_ns_mean'] / 1e3:,.1f} | {t['slowdown']:.3f} |{tail}"
                )
PY
