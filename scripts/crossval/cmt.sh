#!/usr/bin/env bash
# The cached map against MQSim (docs/VALIDATION.md, "The cached map against MQSim"):
# ssdlab with `ftl.mapping = "cached"` and MQSim with `Ideal_Mapping_Table = false`, the
# same trace and the same CMT size (65 536 entries = 458 752 bytes of MQSim's 7-byte
# entries on the 64 GiB bench device), on a random 4 KiB read trace and a mixed random
# 4 KiB trace over a 1 GiB working set (4 x the CMT), then the experiments that explain
# the differences (MQSim switches `MQSIM_CMT_NO_INITIAL_TPAGES`, `MQSIM_CMT_WRITE_NO_READ`,
# `MQSIM_CMT_WB_NO_TOUCH`, `MQSIM_CMT_READ_WHOLE_PAGE` of the patched MQSim described there).
#
#   BENCH=<bench dir> BENCH_ANCHORS=<anchors dir> MQSIM=<patched MQSim> \
#     [MQSIM_UPSTREAM=<MQSim 7ec40e3 with the anchors' fixes>] scripts/crossval/cmt.sh [OUT.md]
#
# BENCH holds gen_synth_trace.py and geometry-8x8-64GiB.toml; BENCH_ANCHORS holds
# ssdconfig_8x8_64GiB.xml. Appends one table per case to OUT.md (default results-cmt.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BENCH:?set BENCH}" "${BENCH_ANCHORS:?set BENCH_ANCHORS}" "${MQSIM:?set MQSIM}"
OUT="${1:-results-cmt.md}"
WORK="${WORK:-$(mktemp -d)}"
N="${N:-1000000}"

# 1 GiB working set: 262 144 4 KiB slots (gen_synth_trace.py: (max_sector - 8) / 8 slots).
for mix in read:1 mixed:0.5; do
  name=${mix%%:*} frac=${mix##*:}
  [ -f "$WORK/rand4k-$name-1g.mqsim" ] || python3 "$BENCH/gen_synth_trace.py" --n "$N" \
    --read-frac "$frac" --min-kb 4 --max-kb 4 --max-sector 2097160 --out "$WORK/rand4k-$name-1g.mqsim"
done

X=(python3 scripts/crossval/crossval.py --config "$BENCH/geometry-8x8-64GiB.toml"
   --mqsim-base "$BENCH_ANCHORS/ssdconfig_8x8_64GiB.xml" --workdir "$WORK/runs" --out "$OUT"
   --set 'ftl.mapping="cached"' --set ftl.cmt.entries=65536
   --set host.pcie.lanes=4 --set host.pcie.lane_gbytes_per_s=1.0)

for name in read mixed; do
  T="$WORK/rand4k-$name-1g.mqsim"
  "${X[@]}" --mqsim "$MQSIM" --name "cached map, 4 KiB random $name, 1 GiB working set, CMT 65 536 entries" --trace "$T"
  if [ -n "${MQSIM_UPSTREAM:-}" ]; then
    "${X[@]}" --mqsim "$MQSIM_UPSTREAM" --name "cached map, 4 KiB random $name: MQSim without the translation-write fix" --trace "$T"
  fi
  MQSIM_CMT_NO_INITIAL_TPAGES=1 "${X[@]}" --mqsim "$MQSIM" \
    --name "cached map, 4 KiB random $name: MQSim with no translation page written at start" --trace "$T"
  MQSIM_CMT_WB_NO_TOUCH=1 "${X[@]}" --mqsim "$MQSIM" \
    --name "cached map, 4 KiB random $name: MQSim whose writeback leaves the LRU order alone" --trace "$T"
  MQSIM_CMT_READ_WHOLE_PAGE=1 "${X[@]}" --mqsim "$MQSIM" \
    --name "cached map, 4 KiB random $name: MQSim moving whole translation pages" --trace "$T"
done
MQSIM_CMT_NO_INITIAL_TPAGES=1 MQSIM_CMT_WRITE_NO_READ=1 "${X[@]}" --mqsim "$MQSIM" \
  --name "cached map, 4 KiB random mixed: MQSim with no translation page at start and no read on a write miss" \
  --trace "$WORK/rand4k-mixed-1g.mqsim"
MQSIM_CMT_NO_INITIAL_TPAGES=1 MQSIM_CMT_WB_NO_TOUCH=1 MQSIM_CMT_READ_WHOLE_PAGE=1 "${X[@]}" --mqsim "$MQSIM" \
  --name "cached map, 4 KiB random read: MQSim with every switch" --trace "$WORK/rand4k-read-1g.mqsim"
MQSIM_CMT_NO_INITIAL_TPAGES=1 MQSIM_CMT_WRITE_NO_READ=1 MQSIM_CMT_WB_NO_TOUCH=1 MQSIM_CMT_READ_WHOLE_PAGE=1 \
  "${X[@]}" --mqsim "$MQSIM" --name "cached map, 4 KiB random mixed: MQSim with every switch" \
  --trace "$WORK/rand4k-mixed-1g.mqsim"
