"""Parameter sweeps on Dask: ``ssdlab.sweep``.

A sweep is the cross product grid × traces × seeds. Each point is one task that ships
the trace's *path* (never its bytes) and runs :func:`ssdlab.run` on a worker; each
worker process parses a trace once and keeps it (the extension's trace cache), so a
worker running many points on one trace reads the file once. Results come back as one
pandas DataFrame: the parameters as columns, then ``status`` / ``error``, then every
metric of the JSON report flattened to dotted column names
(``response.all.mean_ns``, ``transactions.host.count``, …).

With no ``client``, a ``distributed.LocalCluster`` with one single-threaded worker
process per core of this machine runs the sweep; give a ``distributed.Client``
connected to a scheduler to spread it over many machines (the trace paths must then
be valid on the workers, e.g. on a shared file system).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._run import ConfigArg, Overrides, _sets, run

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

#: Report fields that differ between identical runs (wall-clock time), left out of a
#: sweep's frame so that the frame is a deterministic function of its points.
_UNSTABLE = {"wall_time_ns"}


def flatten(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON report as one flat row: nested keys joined by dots.

    ``meta`` keeps only ``config_hash`` and ``scheduler``; ``transactions`` (a list of
    per-reason records) becomes ``transactions.<reason>.<field>``; ``counters``
    becomes ``counters.<name>``; wall-clock time is dropped.
    """
    row: dict[str, Any] = {}

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, Mapping):
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else str(k), x)
        elif isinstance(v, list) and all(isinstance(x, Mapping) and "reason" in x for x in v):
            for x in v:
                rest = {k: y for k, y in x.items() if k != "reason"}
                walk(f"{prefix}.{x['reason']}", rest)
        else:
            row[prefix] = v

    for k, v in summary.items():
        if k in _UNSTABLE:
            continue
        if k == "meta":
            row["meta.config_hash"] = v.get("config_hash")
            row["meta.scheduler"] = v.get("scheduler")
            continue
        walk(k, v)
    return row


def _point(
    params: Mapping[str, Any],
    trace: str,
    seed: int | None,
    preset: str | None,
    config: ConfigArg,
    base_set: list[str],
) -> dict[str, Any]:
    """One sweep point, run on a worker; never raises (a failure is a row)."""
    row: dict[str, Any] = {"status": "ok", "error": None}
    try:
        r = run(
            preset=preset,
            config=config,
            trace=trace,
            set=base_set + _sets(params),
            seed=seed,
            per_request=False,
            chips=False,
            cache=True,
        )
        row.update(flatten(r.summary))
    except Exception as e:  # a failed point is reported in the frame, not raised
        row["status"] = "error"
        row["error"] = f"{type(e).__name__}: {e}"
    return row


def points(
    grid: Mapping[str, Sequence[Any]],
    traces: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    seeds: Iterable[int | None] | None = None,
) -> list[tuple[dict[str, Any], str, int | None]]:
    """The sweep's points in order: grid (first key slowest) × traces × seeds."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    trace_list = [os.path.abspath(os.fspath(t)) for t in traces]
    seed_list: list[int | None] = [None] if seeds is None else list(seeds)
    keys = list(grid)
    combos = itertools.product(*(list(grid[k]) for k in keys)) if keys else [()]
    out = []
    for combo in combos:
        for t in trace_list:
            for s in seed_list:
                out.append((dict(zip(keys, combo)), t, s))
    return out


def sweep(
    grid: Mapping[str, Sequence[Any]],
    traces: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    preset: str | None = None,
    config: ConfigArg = None,
    seeds: Iterable[int | None] | None = None,
    set: Overrides = None,
    client: Client | None = None,
    n_workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Runs every point of grid × traces × seeds on Dask; one row per point.

    Args:
        grid: configuration keys as ``--set`` names them, each to its list of values,
            e.g. ``{"scheduler.name": ["async-fifo", "sync-fifo"],
            "scheduler.chip_queue_depth": [4, 8]}``.
        traces: one trace path or several.
        preset: the preset every point starts from.
        config: a configuration file or dict every point starts from.
        seeds: seeds to run each point with (default: the configuration's seed).
        set: overrides applied to every point before the grid's.
        client: a ``distributed.Client``; default: a ``LocalCluster`` on this
            machine's cores, closed at the end.
        n_workers: worker processes of the default ``LocalCluster`` (default: cores).
        progress: show a progress bar.

    Returns:
        A pandas DataFrame in point order: one column per grid key, ``trace``,
        ``seed``, ``status`` (``ok`` / ``error``), ``error`` (the message of a failed
        point), then the flattened report (see :func:`flatten`).
    """
    import pandas as pd
    from distributed import Client as DaskClient
    from distributed import LocalCluster

    pts = points(grid, traces, seeds)
    base_set = _sets(set)
    own_cluster = None
    if client is None:
        own_cluster = LocalCluster(
            n_workers=n_workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
        )
        client = DaskClient(own_cluster)
    try:
        futures = [
            client.submit(_point, p, t, s, preset, config, base_set, pure=False)
            for p, t, s in pts
        ]
        if progress:
            from distributed.diagnostics.progressbar import progress as dask_progress

            dask_progress(*futures)
        rows = []
        for (p, t, s), f in zip(pts, futures):
            try:
                res = f.result()
            except Exception as e:  # a lost worker, not a simulation error
                res = {"status": "error", "error": f"{type(e).__name__}: {e}"}
            rows.append({**p, "trace": t, "seed": s, **res})
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
    return pd.DataFrame(rows)
