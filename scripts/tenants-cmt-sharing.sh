#!/usr/bin/env bash
# The tenants' share of the cached mapping table (docs/HOST.md §7, docs/FTL.md §12):
# tpcc-small and wsrch-small together (examples/tenants/tpcc-wsrch-cmt.toml) with a
# CMT of 4 096 and 16 384 entries, shared (one LRU) and equally partitioned
# (ftl.cmt.sharing = "equal"), each with --alone (every tenant alone on the same
# configuration, its partition included). Prints a Markdown table: per tenant its CMT
# hit ratio (hits / lookups), mean and p99 response time, mean alone and slowdown, and
# FLIN's fairness index, with the translation reads and writes and whether GC ran.
#
#   cargo build --release -p ssdlab-cli && scripts/tenants-cmt-sharing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
for e in 4096 16384; do
  for s in shared equal; do
    "$B" run --config examples/tenants/tpcc-wsrch-cmt.toml --alone \
      --set "ftl.cmt.entries=$e" --set "ftl.cmt.sharing=\"$s\"" \
      --json "$TMP/$e~$s.json" >/dev/null
  done
done
python3 - "$TMP" <<'PY'
import json, os, sys
d = sys.argv[1]
print("| CMT entries | sharing | tenant | entries | lookups | hits | hit ratio | mean µs | p99 µs | alone µs | slowdown | fairness | map reads | map writes | GC runs |")
print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for e in (4096, 16384):
    for s in ("shared", "equal"):
        r = json.load(open(os.path.join(d, f"{e}~{s}.json")))
        m, ts = r["mapping"], r["tenants"]
        for i, t in enumerate(ts["tenants"]):
            c = t["cmt"]
            first = i == 0
            print(
                f"| {e if first else ''} | {s if first else ''} | {t['name']} | {c['entries']} "
                f"| {c['lookups']:,} | {c['hits']:,} | {c['hit_ratio']:.4f} "
                f"| {t['response']['mean_ns'] / 1e3:,.1f} | {t['response']['p99_ns'] / 1e3:,.1f} "
                f"| {t['alone_response_ns_mean'] / 1e3:,.1f} | {t['slowdown']:.3f} "
                f"| {ts['fairness']:.3f} | {m['miss_reads'] + m['writeback_reads'] if first else ''} "
                f"| {m['translation_writes'] if first else ''} | {r['gc_runs'] if first else ''} |"
                if first else
                f"| | | {t['name']} | {c['entries']} | {c['lookups']:,} | {c['hits']:,} "
                f"| {c['hit_ratio']:.4f} | {t['response']['mean_ns'] / 1e3:,.1f} "
                f"| {t['response']['p99_ns'] / 1e3:,.1f} | {t['alone_response_ns_mean'] / 1e3:,.1f} "
                f"| {t['slowdown']:.3f} | | | | |"
            )
PY
