"""Parameter sweeps on Dask: ``ssdlab.sweep``.

A sweep is the cross product grid × traces × seeds. Tasks ship the trace's *path*
(never its bytes) and run :func:`ssdlab.run` on a worker; each worker process parses a
trace once and keeps it (the extension's trace cache), so a worker running many points
on one trace reads the file once. Results come back as one pandas DataFrame: the
parameters as columns, then ``status`` / ``error``, then every metric of the JSON report
flattened to dotted column names (``response.all.mean_ns``,
``transactions.host.count``, …).

Points whose device is aged and equal (:func:`device_keys`) run one after the other, so
that a process prepares their device once. With no ``client``, the sweep runs in this
process on a ``distributed.LocalCluster`` of threads, one per core (the simulation
releases the GIL): every point shares the one trace cache and the prepared devices, as
``ssdlab reproduce`` and ``ssdlab sweep`` do. Give a ``distributed.Client`` connected to
a scheduler to spread it over many processes or machines (the trace paths must then be
valid on the workers, e.g. on a shared file system); the points of one device then go
to a worker together, in tasks of at most about points / worker threads (:func:`batches`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _native
from ._run import ConfigArg, Overrides, _resolve, _sets, run

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


def _batch(
    items: Sequence[tuple[Mapping[str, Any], str, int | None]],
    preset: str | None,
    config: ConfigArg,
    base_set: list[str],
) -> list[dict[str, Any]]:
    """One task: points run one after the other on one worker, a row each."""
    return [_point(p, t, s, preset, config, base_set) for p, t, s in items]


def device_keys(
    pts: Sequence[tuple[Mapping[str, Any], str, int | None]],
    *,
    preset: str | None = None,
    config: ConfigArg = None,
    set: Overrides = None,
) -> list[str | None]:
    """The prepared device each point starts from, as text (``None``: a device of its own).

    Points with equal keys share one preparation (the aging) in a process: their devices
    are aged and equal apart from what preconditioning never reads (the host, the
    scheduler, DGC, verify mode, the flash timing, GC's trigger and background GC, the
    warm-up). A point whose configuration does not build gets ``None``; it fails as a
    row when it runs.
    """
    base_set = _sets(set)
    keys: list[str | None] = []
    for params, _trace, seed in pts:
        try:
            _, _, key = _resolve(preset, base_set + _sets(params), config, seed,
                                 False, None, None, False)
        except Exception:  # reported by the point itself, as a row
            key = None
        keys.append(key)
    return keys


def batches(keys: Sequence[str | None], slots: int) -> list[list[int]]:
    """Points (by index) grouped into tasks for ``slots`` worker threads of their own
    processes: the points of one shared device together, so that a worker prepares it
    once, in tasks of at most about ``len(keys) / slots`` points, so that every slot has
    work (a device whose points are more than that is split evenly, each part prepared
    by the worker that runs it). Largest tasks first."""
    groups: list[list[int]] = []
    for i in _native.device_order(list(keys), 1):
        if groups and keys[i] is not None and keys[groups[-1][0]] == keys[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    most = max(1, -(-len(keys) // max(1, slots)))
    out: list[list[int]] = []
    for g in groups:
        parts = -(-len(g) // most)
        size, extra = divmod(len(g), parts)
        start = 0
        for j in range(parts):
            end = start + size + (1 if j < extra else 0)
            out.append(g[start:end])
            start = end
    return sorted(out, key=len, reverse=True)


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
        client: a ``distributed.Client``; default: a ``LocalCluster`` of threads in this
            process, closed at the end.
        n_workers: points the default ``LocalCluster`` runs at once, one thread each
            (default: cores).
        progress: show a progress bar.

    Returns:
        A pandas DataFrame in point order: one column per grid key, ``trace``,
        ``seed``, ``status`` (``ok`` / ``error``), ``error`` (the message of a failed
        point), then the flattened report (see :func:`flatten`).

    The default cluster runs in this process, so at the end the sweep drops what it
    kept here for its points: the parsed traces and the prepared devices (with any that
    earlier :func:`ssdlab.run` calls had left). Its result does not depend on how the
    points were spread: each row is the point's own run.
    """
    import pandas as pd
    from distributed import Client as DaskClient
    from distributed import LocalCluster

    pts = points(grid, traces, seeds)
    base_set = _sets(set)
    keys = device_keys(pts, preset=preset, config=config, set=base_set)
    own_cluster = None
    if client is None:
        threads = n_workers or os.cpu_count() or 1
        own_cluster = LocalCluster(
            n_workers=1, threads_per_worker=threads, processes=False, dashboard_address=":0"
        )
        client = DaskClient(own_cluster)
        # One process: its threads share the prepared devices, so single points in
        # device order keep every thread busy and prepare each device once.
        tasks = [[i] for i in _native.device_order(keys, threads)]
    else:
        tasks = batches(keys, max(1, sum(client.nthreads().values())))
    rows: list[dict[str, Any]] = [{} for _ in pts]
    try:
        futures = [
            client.submit(_batch, [pts[i] for i in task], preset, config, base_set, pure=False)
            for task in tasks
        ]
        if progress:
            from distributed.diagnostics.progressbar import progress as dask_progress

            dask_progress(*futures)
        for task, f in zip(tasks, futures):
            try:
                results = f.result()
            except Exception as e:  # a lost worker, not a simulation error
                results = [{"status": "error", "error": f"{type(e).__name__}: {e}"}] * len(task)
            for i, res in zip(task, results):
                p, t, s = pts[i]
                rows[i] = {**p, "trace": t, "seed": s, **res}
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
            _native.clear_trace_cache()
            _native.release_shared_devices()
    return pd.DataFrame(rows)
