#!/usr/bin/env bash
# The one test command (README, CI): the Rust tests of the workspace, then the Python
# package built into a virtual environment under target/ and its pytest suite (which
# also executes the example notebook and compares results with the `ssdlab` binary).
#
# Needs: the Rust toolchain, Python >= 3.10 with venv and pip, network access to PyPI
# on the first run (maturin, pandas, pyarrow, dask, matplotlib, pytest, nbclient…).
set -euo pipefail
cd "$(dirname "$0")/.."

# Property tests draw their cases from one fixed seed here, so that a run is repeatable
# and CI cannot fail by the luck of the draw; scripts/soak.sh explores fresh seeds.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261124}"

echo "== cargo test --workspace (proptest seed $PROPTEST_RNG_SEED)"
cargo test --workspace

echo "== Python package (crates/ssdlab-py)"
PYTHON="${PYTHON:-python3}"
VENV="$PWD/target/pyenv"
if [ ! -x "$VENV/bin/python" ]; then
  # Some distributions ship Python without the venv module's pip: fall back to
  # virtualenv, installed for the user with pip.
  if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    "$PYTHON" -m pip install -q --user virtualenv
    "$PYTHON" -m virtualenv -q "$VENV"
  fi
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.5,<2"
# A development build (the workspace's dev profile, shared with `cargo test`) installed
# in place, with the test extras.
VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" \
  maturin develop -q -m crates/ssdlab-py/Cargo.toml --extras test

echo "== pytest"
cargo build -q -p ssdlab-cli
SSDLAB_CLI="$PWD/target/debug/ssdlab" MPLBACKEND=Agg \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider crates/ssdlab-py/tests
