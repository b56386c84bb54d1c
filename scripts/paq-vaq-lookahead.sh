#!/usr/bin/env bash
# How strict is the PAQ paper's baseline? VAQ commits its queue strictly in order
# (`scheduler.vaq.lookahead = 0`, the preset); with a lookahead of k it may commit an
# entry behind up to k blocked ones. Runs the `paq` preset as shipped (closed loop at 32
# outstanding requests) on the reproduction's eleven workloads with VAQ at k = 0, 1, 4,
# 16 and PAQ2, and prints a Markdown table: IOPS per run and PAQ2's IOPS gain over each
# VAQ reading, with the average over workloads (the paper's +32.7 % is an average).
#
#   cargo build --release -p ssdlab-cli && scripts/paq-vaq-lookahead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
KS="0 1 4 16"
WORKLOADS=(traces/disksim/desktop.disksim.gz traces/disksim/jpeg_copy.disksim.gz
  traces/spc-derived/financial1-50k.disksim.gz traces/spc-derived/websearch1-50k.disksim.gz
  traces/mqsim/tpcc-small.mqsim.gz traces/mqsim/msr-writes-only.mqsim.gz
  traces/msr/hm_0-slice7016.csv.gz examples/synthetic/fin2.toml examples/synthetic/msnfs4.toml
  examples/synthetic/sql3.toml examples/synthetic/usr2.toml)
run() { # NAME SOURCE SCHEDULER [SET...]
  local name="$1" src="$2" sched="$3"
  shift 3
  local input=(--trace "$src")
  [[ "$src" == *.toml ]] && input=(--synthetic-config "$src")
  "$B" run --preset paq --scheduler "$sched" "$@" "${input[@]}" --json "$TMP/$name.json" >/dev/null
}
for w in "${WORKLOADS[@]}"; do
  n="$(basename "$w")"
  n="${n%%.*}"
  for k in $KS; do run "$n~vaq$k" "$w" vaq --set "scheduler.vaq.lookahead=$k"; done
  run "$n~paq2" "$w" paq2
done
python3 - "$TMP" "$KS" <<'PY'
import glob, json, os, sys
d, ks = sys.argv[1], sys.argv[2].split()
names = sorted({os.path.basename(f).split("~")[0] for f in glob.glob(os.path.join(d, "*.json"))})
iops = lambda n, r: json.load(open(os.path.join(d, f"{n}~{r}.json")))["iops"]
gc = lambda n, r: json.load(open(os.path.join(d, f"{n}~{r}.json")))["gc_runs"]
head = " | ".join(f"VAQ k={k}" for k in ks)
gains = " | ".join(f"PAQ2 vs k={k}" for k in ks)
print(f"| workload | {head} | PAQ2 | {gains} | GC runs (VAQ k=0 / PAQ2) |")
print("|---|" + "---:|" * (2 * len(ks) + 2))
sums = [0.0] * len(ks)
for n in names:
    p = iops(n, "paq2")
    v = [iops(n, f"vaq{k}") for k in ks]
    g = [(p / x - 1) * 100 for x in v]
    sums = [s + x for s, x in zip(sums, g)]
    print(f"| {n} | " + " | ".join(f"{x:,.0f}" for x in v) + f" | {p:,.0f} | "
          + " | ".join(f"{x:+.1f} %" for x in g) + f" | {gc(n, 'vaq0')} / {gc(n, 'paq2')} |")
print("| **average** | " + " | " * len(ks) + " | "
      + " | ".join(f"**{s / len(names):+.1f} %**" for s in sums) + " | |")
PY
