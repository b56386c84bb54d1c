#!/usr/bin/env bash
# The experiments behind the account of differences in docs/reproductions/cr5m.md: CR5
# and CR5M on SSD1 (preset cr5m-ssd1; CR5 is `raid.mirror_chips=false` on 6 data chips
# per channel, as in `ssdlab reproduce cr5m`) with one knob changed at a time, the same
# knob on both sides:
#   - write acknowledgement (`timing.write_ack`: program, the preset; transfer, SSDsim),
#   - bus speed (`timing.bus_ps_per_byte`: 25 000, Table II; 12 500; 6 250),
#   - request size (the Radius9 stand-in with every request one 2 KiB page; with both
#     acknowledgements and two bus speeds),
#   - the mirror chip's idleness threshold (`raid.mirror_idle_max_outstanding` 0, 2, 8).
# Writes one CSV line per run to docs/reproductions/cr5m/explain.csv (or $1).
#
#   cargo build --release -p ssdlab-cli && scripts/cr5m-explain.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SSDLAB:-target/release/ssdlab}"
OUT="${1:-docs/reproductions/cr5m/explain.csv}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

R9=examples/synthetic/cr5m/radius9-like.toml
F1=traces/spc-derived/financial1-50k.disksim.gz
# Radius9-like with one-page requests: the smallest update, where the paper's gain is largest.
R9P="$TMP/radius9-like-2k.toml"
sed -e 's/^size = .*/size = { kind = "fixed", bytes = 2048 }/' "$R9" >"$R9P"

echo "experiment,trace,arch,write_ack,bus_ps_per_byte,mirror_idle_max_outstanding,mean_us,read_mean_us,write_mean_us,pre_reads_per_write,mirror_write_share,gc_runs" >"$OUT"

# run EXPERIMENT TRACE-NAME SOURCE ARCH ACK BUS IDLE
run() {
  local exp=$1 name=$2 src=$3 arch=$4 ack=$5 bus=$6 idle=$7
  local input=(--trace "$src")
  [[ $src == *.toml ]] && input=(--synthetic-config "$src")
  local arch_sets=()
  [[ $arch == cr5 ]] && arch_sets=(--set raid.mirror_chips=false --set geometry.chips_per_channel=6)
  "$B" run --preset cr5m-ssd1 "${input[@]}" "${arch_sets[@]}" \
    --set "timing.write_ack=\"$ack\"" --set "timing.bus_ps_per_byte=$bus" \
    --set "raid.mirror_idle_max_outstanding=$idle" --json "$TMP/r.json" >/dev/null
  jq -r --arg p "$exp,$name,$arch,$ack,$bus,$idle" \
    '[$p, (.response.all.mean_ns / 1000 * 10 | round / 10), (.response.read.mean_ns / 1000 * 10 | round / 10),
      (.response.write.mean_ns / 1000 * 10 | round / 10), (.pre_reads_per_write * 1000 | round / 1000),
      ((.mirror.mirror_write_share // 0) * 1000 | round / 1000), .gc_runs] | map(tostring) | join(",")' \
    "$TMP/r.json" >>"$OUT"
}

for t in "radius9-like $R9" "financial1-50k $F1"; do
  set -- $t
  for ack in program transfer; do
    for bus in 25000 12500 6250; do
      for arch in cr5 cr5m; do run ack-bus "$1" "$2" "$arch" "$ack" "$bus" 0; done
    done
  done
done
for ack in program transfer; do
  for bus in 25000 12500; do
    for arch in cr5 cr5m; do run size radius9-like-2k "$R9P" "$arch" "$ack" "$bus" 0; done
  done
done
for idle in 2 8; do run idle financial1-50k "$F1" cr5m program 25000 "$idle"; done
echo "wrote $OUT ($(($(wc -l <"$OUT") - 1)) runs)"
