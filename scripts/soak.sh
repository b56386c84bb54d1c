#!/usr/bin/env bash
# Property tests on fresh seeds: runs the workspace's proptests ROUNDS times (default 20),
# each round with a new PROPTEST_RNG_SEED, and prints every seed that failed with the
# test's message. `scripts/test.sh` (and CI) uses one fixed seed; this is where new cases
# are found. A failing seed reproduces with `PROPTEST_RNG_SEED=N cargo test ...`.
#
#   scripts/soak.sh [ROUNDS] [FILTER]     FILTER: a test-name filter (default: every test)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-20}"
filter="${2:-}"
cargo test --workspace --no-run -q 2>/dev/null || cargo test --workspace --no-run
failed=0
for ((i = 1; i <= rounds; i++)); do
  seed=$(( (RANDOM << 30) | (RANDOM << 15) | RANDOM ))
  if ! out=$(PROPTEST_RNG_SEED=$seed cargo test --workspace -q -- $filter 2>&1); then
    failed=$((failed + 1))
    echo "round $i: seed $seed FAILED"
    printf '%s\n' "$out" | grep -E "Test failed|panicked|minimal failing" | head -5
  else
    echo "round $i: seed $seed ok"
  fi
done
echo "$failed of $rounds rounds failed"
[ "$failed" -eq 0 ]
