"""Shared fixtures: the sample traces in the repository's `traces/` folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TRACES = (ROOT / "traces").resolve()


def trace(rel: str) -> str:
    path = TRACES / rel
    if not path.exists():
        pytest.fail(f"missing trace {path}: the tests replay the sample traces in traces/ (see traces/MANIFEST.md)")
    return str(path)


@pytest.fixture(scope="session")
def head200() -> str:
    """200 requests of MSR hm_0."""
    return trace("msr/hm_0-head200.csv.gz")


@pytest.fixture(scope="session")
def slice7016() -> str:
    """7016 requests of MSR hm_0."""
    return trace("msr/hm_0-slice7016.csv.gz")


@pytest.fixture(scope="session")
def cli() -> str | None:
    """The `ssdlab` binary, when the test command built it (SSDLAB_CLI)."""
    path = os.environ.get("SSDLAB_CLI")
    if path and not Path(path).exists():
        pytest.fail(f"SSDLAB_CLI={path} does not exist")
    return path
