"""ssdlab from Python: runs as DataFrames, sweeps on Dask, plots.

>>> import ssdlab
>>> r = ssdlab.run(preset="brr", trace="traces/msr/hm_0-head200.csv.gz")
>>> r.summary["response"]["all"]["mean_ns"]      # the JSON report, as a dict
>>> r.requests()                                 # one row per request (pandas)
>>> r.chips()                                    # per-chip wear and space

``run`` layers its configuration exactly as the ``ssdlab`` command line does and
raises the same messages, as :class:`ConfigError` / :class:`TraceError` /
:class:`SimulationError` carrying the key, file and line. Sweeps: :func:`sweep`
(``ssdlab.sweep``, needs the ``sweep`` extra); plots: :mod:`ssdlab.plot` (needs the
``plot`` extra). See docs/PYTHON.md.
"""

from __future__ import annotations

from . import _native
from ._errors import (
    ArgumentError,
    ConfigError,
    SimulationError,
    SsdlabError,
    TraceError,
)
from ._run import (
    REQUEST_COLUMNS,
    Result,
    config,
    config_toml,
    presets,
    run,
    to_toml,
    trace_info,
)
from .sweep import sweep



def release_shared_devices() -> int:
    """Drop the aged devices this process keeps so that later runs on the same device
    skip preconditioning (see docs/SIMULATOR.md, "Shared prepared devices"), and the page
    tables kept from a finished run on one for the next; returns how many devices there
    were. Runs still using one keep their share."""
    return _native.release_shared_devices()


def shared_devices() -> int:
    """Aged devices this process keeps for later runs."""
    return _native.shared_devices()


__version__: str = _native.VERSION
#: The git revision the extension was built from.
GIT_REV: str = _native.GIT_REV

__all__ = [
    "ArgumentError",
    "ConfigError",
    "GIT_REV",
    "REQUEST_COLUMNS",
    "Result",
    "SimulationError",
    "SsdlabError",
    "TraceError",
    "config",
    "config_toml",
    "presets",
    "release_shared_devices",
    "run",
    "shared_devices",
    "sweep",
    "to_toml",
    "trace_info",
]
