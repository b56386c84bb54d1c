#!/usr/bin/env bash
# The one test command (README, CI): the Rust tests of the workspace, then the Python
# package's pytest suite (which also executes the example notebook and compares results
# with the `ssdlab` binary).
#
# One build serves everything: `cargo test --workspace` builds the test binaries, the
# `ssdlab` binary (target/debug/ssdlab, the same build `cargo run -p ssdlab-cli` makes)
# and the Python extension (target/debug/deps/lib_native.so, as the library of
# ssdlab-py's test). The Python tests load that extension from a copy of the package
# under target/, so nothing is compiled twice and maturin is not needed here.
#
# Needs: the Rust toolchain, Python >= 3.10 with venv and pip, and PyPI the first time
# (pandas, pyarrow, dask, matplotlib, polars, pytest, nbclient, ipykernel: the
# package's `test` extra, read from crates/ssdlab-py/pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."

# Property tests draw their cases from one fixed seed here, so that a run is repeatable
# and CI cannot fail by the luck of the draw; scripts/soak.sh explores fresh seeds.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261124}"
step() { printf '\n== %s\n' "$*"; }
failed=0

step "Rust: building the workspace's tests, the ssdlab binary and the Python extension" \
  "(a fresh clone takes a few minutes on 2 cores; nothing to do when nothing changed)"
cargo test --workspace --no-run

step "Rust: running the tests (proptest seed $PROPTEST_RNG_SEED)"
# --no-fail-fast: one failing test binary does not hide the others' results.
cargo test --workspace --no-fail-fast || failed=1

PYTHON="${PYTHON:-python3}"
VENV="$PWD/target/pyenv"
if [ ! -x "$VENV/bin/python" ]; then
  step "Python: a virtual environment in target/pyenv"
  # Some distributions ship Python without the venv module's pip: fall back to
  # virtualenv, installed for the user with pip.
  if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    "$PYTHON" -m pip install -q --user virtualenv
    "$PYTHON" -m virtualenv -q "$VENV"
  fi
fi
# The package's dependencies and its test extra, installed once (and again whenever
# pyproject.toml changes them).
deps="$("$VENV/bin/python" scripts/py-deps.py crates/ssdlab-py/pyproject.toml test)"
stamp="$VENV/.ssdlab-test-deps"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$deps" ]; then
  step "Python: installing the test dependencies from PyPI (the first time about 1-2 min)"
  mapfile -t reqs <<< "$deps"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --progress-bar off "${reqs[@]}"
  printf '%s' "$deps" > "$stamp"
fi

step "Python: the package with the extension built above (no second compile)"
PKG="$PWD/target/pytest-pkg"
rm -rf "$PKG" && mkdir -p "$PKG"
cp -r crates/ssdlab-py/python/ssdlab "$PKG/ssdlab"
rm -f "$PKG"/ssdlab/*.so
cp target/debug/deps/lib_native.so "$PKG/ssdlab/_native.abi3.so"

step "Python: pytest"
PYTHONPATH="$PKG" SSDLAB_CLI="$PWD/target/debug/ssdlab" MPLBACKEND=Agg \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider crates/ssdlab-py/tests scripts/crossval || failed=1

if [ "$failed" -ne 0 ]; then
  step "FAILED: see the failing tests above"
  exit 1
fi
step "all tests passed"
