"""Plots of runs and sweeps (matplotlib). Each function returns a ``Figure``.

Nothing here picks a backend: in a notebook figures show inline; in scripts and tests
use a non-interactive backend (``MPLBACKEND=Agg``) and ``fig.savefig(...)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Union

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ._run import Result

Runs = Union[Mapping[str, "Result"], Sequence["Result"]]

_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _named(runs: Runs) -> list[tuple[str, Result]]:
    if isinstance(runs, Mapping):
        return list(runs.items())
    out = []
    for i, r in enumerate(runs):
        meta = r.summary.get("meta", {})
        out.append((f"{i}: {meta.get('preset') or ''} {meta.get('scheduler', '')}".strip(), r))
    return out


def _figure(figsize: tuple[float, float]) -> Figure:
    # Figure() rather than pyplot: no global state, no GUI backend needed.
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def latency_cdf(
    runs: Runs,
    *,
    op: str | None = None,
    unit: str = "ms",
    log_x: bool = True,
    title: str | None = None,
) -> Figure:
    """Cumulative distribution of response time, one line per configuration.

    Args:
        runs: results by label (a dict) or a list of results (labelled by preset and
            scheduler); each needs per-request results (``run(per_request=True)``).
        op: ``"read"`` or ``"write"`` to plot one class; all requests by default.
        unit: ``ns``, ``us``, ``ms`` or ``s``.
        log_x: logarithmic time axis.
    """
    scale = _NS[unit]
    fig = _figure((6.4, 4.2))
    ax = fig.add_subplot()
    for label, r in _named(runs):
        df = r.requests()
        if op is not None:
            df = df[df["op"] == op]
        x = np.sort(df["response_ns"].to_numpy()) / scale
        if len(x) == 0:
            continue
        y = np.arange(1, len(x) + 1) / len(x)
        ax.step(x, y, where="post", label=f"{label} (n={len(x)})")
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(f"response time ({unit})")
    ax.set_ylabel("fraction of requests")
    ax.set_ylim(0, 1.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    ax.set_title(title or f"Response time CDF ({op or 'all'} requests)")
    return fig


def breakdown_bars(
    runs: Runs,
    *,
    op: str = "all",
    unit: str = "us",
    title: str | None = None,
) -> Figure:
    """Mean response time split into its parts, one stacked bar per configuration.

    Parts (from the report's ``breakdown`` and ``host_queue_wait``, docs/METRICS.md):
    flash service, waiting behind garbage collection, other waiting (queues, bus).

    Args:
        op: ``all``, ``read`` or ``write``.
    """
    scale = _NS[unit]
    named = _named(runs)
    parts = [
        ("service_ns_mean", "service"),
        ("gc_wait_ns_mean", "GC wait"),
        ("other_wait_ns_mean", "other wait"),
    ]
    fig = _figure((max(4.0, 1.2 * len(named) + 2), 4.2))
    ax = fig.add_subplot()
    xs = np.arange(len(named))
    bottom = np.zeros(len(named))
    for key, label in parts:
        vals = np.array([r.summary["breakdown"][op][key] / scale for _, r in named])
        ax.bar(xs, vals, bottom=bottom, label=label)
        bottom += vals
    means = [r.summary["response"][op]["mean_ns"] / scale for _, r in named]
    ax.plot(xs, means, "k_", markersize=24, label="mean response")
    ax.set_xticks(xs, [n for n, _ in named], rotation=20, ha="right")
    ax.set_ylabel(f"time ({unit})")
    ax.legend(fontsize="small")
    ax.set_title(title or f"Response time breakdown ({op} requests)")
    return fig


def chip_heatmap(
    result: Result,
    *,
    metric: str = "utilization",
    title: str | None = None,
) -> Figure:
    """One cell per chip (channels as rows, ways as columns) coloured by ``metric``.

    ``metric`` is a column of :meth:`Result.chips`: ``utilization`` (the default: the
    chip's busy fraction of the run), ``busy_ns``, ``erases``, ``valid_pages``,
    ``invalid_pages``, ``free_pages``, ``free_blocks``, ``erase_max`` … The title gives
    the spread of chip utilization over the device.
    """
    chips = result.chips()
    if metric not in chips.columns or metric in ("chip", "channel", "way"):
        raise ValueError(f"metric {metric!r}: one of {', '.join(chips.columns[3:])}")
    grid = chips.pivot(index="channel", columns="way", values=metric)
    fig = _figure((1.0 + 0.7 * grid.shape[1], 1.0 + 0.5 * grid.shape[0]))
    ax = fig.add_subplot()
    im = ax.imshow(grid.to_numpy(), aspect="auto", cmap="viridis")
    ax.set_xlabel("way (chip on the channel)")
    ax.set_ylabel("channel")
    ax.set_xticks(range(grid.shape[1]), [str(c) for c in grid.columns])
    ax.set_yticks(range(grid.shape[0]), [str(c) for c in grid.index])
    fig.colorbar(im, ax=ax, label=metric)
    u = result.chip_utilization
    ax.set_title(
        title
        or f"{metric} per chip (chip utilization mean {u['mean']:.3f}, "
        f"min {u['min']:.3f}, max {u['max']:.3f})",
        fontsize="small",
    )
    return fig


def sweep_metric(
    frame: pd.DataFrame,
    x: str,
    y: str = "response.all.mean_ns",
    *,
    by: str | None = None,
    log_y: bool = False,
    title: str | None = None,
) -> Figure:
    """A sweep's metric ``y`` against parameter ``x``, one line per value of ``by``.

    Failed points (``status != "ok"``) are left out; several rows for one (``by``,
    ``x``) (traces, seeds) are averaged.
    """
    df = frame
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    fig = _figure((6.4, 4.2))
    ax = fig.add_subplot()
    groups = [(None, df)] if by is None else list(df.groupby(by, sort=False))
    for key, g in groups:
        s = g.groupby(x, sort=True)[y].mean()
        ax.plot(s.index, s.to_numpy(), marker="o", label=None if key is None else str(key))
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if log_y:
        ax.set_yscale("log")
    if by is not None:
        ax.legend(title=by, fontsize="small")
    ax.grid(True, alpha=0.3)
    ax.set_title(title or f"{y} against {x}")
    return fig
