"""Plots of runs and sweeps (matplotlib). Each function returns a ``Figure``.

Every figure is sized for one column of a two-column paper: :data:`COLUMN_IN` (3.5 in)
wide, text at least 7 pt at that size, the legend above the plot area (never over the
data), a light major grid only. :func:`save` writes a figure as PNG (300 dpi) and as
SVG or PDF; ``fig.savefig(...)`` works as usual.

Nothing here picks a backend: in a notebook figures show inline; in scripts and tests
use a non-interactive backend (``MPLBACKEND=Agg``) and :func:`save` or ``fig.savefig``.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Union

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ._run import Result

Runs = Union[Mapping[str, "Result"], Sequence["Result"]]

#: Width of one column of a two-column paper, in inches: every figure's width.
COLUMN_IN = 3.5
#: The smallest text, in points (tick labels, legend, colour bar).
TEXT_PT = 7.5
#: Axis labels.
LABEL_PT = 8.0
#: The title.
TITLE_PT = 8.5
#: Resolution of the PNG that :func:`save` writes.
PNG_DPI = 300

_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_GRID = {"color": "0.87", "linewidth": 0.5}


def _named(runs: Runs) -> list[tuple[str, Result]]:
    if isinstance(runs, Mapping):
        return list(runs.items())
    out = []
    for i, r in enumerate(runs):
        meta = r.summary.get("meta", {})
        out.append((f"{i}: {meta.get('preset') or ''} {meta.get('scheduler', '')}".strip(), r))
    return out


def _figure(height_in: float) -> Figure:
    # Figure() rather than pyplot: no global state, no GUI backend needed.
    from matplotlib.figure import Figure

    return Figure(figsize=(COLUMN_IN, height_in), layout="constrained")


def _title(fig: Figure, text: str) -> None:
    """The title, wrapped to the column so that it never clips."""
    fig.suptitle(textwrap.fill(text, 52), fontsize=TITLE_PT)


def _axes(fig: Figure, xlabel: str, ylabel: str) -> Axes:
    """One axes with the house style: labels, tick sizes, a light major grid only."""
    ax = fig.add_subplot()
    ax.set_xlabel(xlabel, fontsize=LABEL_PT)
    ax.set_ylabel(ylabel, fontsize=LABEL_PT)
    ax.tick_params(which="both", labelsize=TEXT_PT)
    ax.set_axisbelow(True)
    ax.grid(True, which="major", **_GRID)
    ax.grid(False, which="minor")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def _text_width_pt(text: str, size: float) -> float:
    """How wide ``text`` renders in the default font at ``size`` points, in points."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width, _, _ = TextToPath().get_text_width_height_descent(
        text, FontProperties(size=size), ismath=False
    )
    return float(width)


def _legend_above(
    ax: Axes,
    title: str | None = None,
    handles: list | None = None,
    labels: list[str] | None = None,
) -> None:
    """The legend in rows above the plot area, centred, with as many columns as fit in
    the axes' width."""
    if handles is None or labels is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    # An entry is its handle (1.6 em), the gap after it (0.8 em), its text and the
    # space to the next column (1 em); the axes are about 0.7 in narrower than the figure.
    entry = max(_text_width_pt(s, TEXT_PT) for s in labels) + 3.4 * TEXT_PT
    ncol = max(1, min(len(labels), int((COLUMN_IN - 0.7) * 72 // entry)))
    # matplotlib fills the columns one after another; read row by row instead.
    order = [i for j in range(ncol) for i in range(j, len(labels), ncol)]
    ax.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        # Centred above the axes; not mode="expand", which makes constrained layout
        # give up on a vector file saved after a 300 dpi PNG.
        loc="lower center",
        bbox_to_anchor=(0.5, 1.02),
        ncol=ncol,
        borderaxespad=0.0,
        frameon=False,
        fontsize=TEXT_PT,
        title=title,
        title_fontsize=TEXT_PT,
        handlelength=1.6,
        handletextpad=0.8,
        columnspacing=1.0,
    )


def save(
    fig: Figure, path: str | Path, formats: Iterable[str] = ("png", "svg")
) -> list[Path]:
    """Writes ``fig`` once per format beside ``path`` (its suffix replaced): ``png`` at
    :data:`PNG_DPI`, vector ``svg`` or ``pdf`` (a heat map's cells in them drawn at the
    same resolution). Returns the files written."""
    out = []
    for fmt in formats:
        p = Path(path).with_suffix("." + fmt)
        fig.savefig(p, dpi=PNG_DPI)
        out.append(p)
    return out


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
        log_x: logarithmic time axis, labelled at powers of ten only (at most six of
            them), or at 1, 2 and 5 times a power of ten when the data span fewer than
            two powers of ten.
    """
    scale = _NS[unit]
    fig = _figure(2.6)
    ax = _axes(fig, f"response time ({unit})", "fraction of requests")
    positive = []
    for label, r in _named(runs):
        df = r.requests()
        if op is not None:
            df = df[df["op"] == op]
        x = np.sort(df["response_ns"].to_numpy()) / scale
        if len(x) == 0:
            continue
        y = np.arange(1, len(x) + 1) / len(x)
        ax.step(x, y, where="post", label=f"{label} (n={len(x)})", linewidth=1.0)
        positive.append(x[x > 0])
    if log_x:
        ax.set_xscale("log")
        _log_ticks(ax, np.concatenate(positive) if positive else np.array([]))
    ax.set_ylim(0, 1.0)
    _legend_above(ax)
    _title(fig, title or f"Response time CDF ({op or 'all'} requests)")
    return fig


def _plain(v: float) -> str:
    """A tick value as a plain number, thousands separated: ``140,000``, ``0.5``."""
    return f"{round(v):,}" if v == round(v) else f"{v:,g}"


def _spaced_ticks(ax: Axes) -> None:
    """Plain-number labels on a linear x axis, as many as keep a space of 1 em between
    neighbours (long times in ms, ``140,000``, get fewer)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    lo, hi = ax.get_xlim()
    # The axes are about 0.9 in narrower than the figure (the y label and its ticks).
    width_pt = (COLUMN_IN - 0.9) * 72
    for bins in (6, 5, 4, 3, 2):
        locator = MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10], min_n_ticks=2)
        ticks = [t for t in locator.tick_values(lo, hi) if lo <= t <= hi]
        if len(ticks) < 2:
            break
        widest = max(_text_width_pt(_plain(t), TEXT_PT) for t in ticks)
        if width_pt * (ticks[1] - ticks[0]) / (hi - lo) >= widest + TEXT_PT:
            break
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _plain(v)))


def _dram(result: Result) -> dict | None:
    """The report's DRAM stage, or ``None``."""
    d: dict | None = result.summary.get("dram")
    return d


#: Nanoseconds per unit of a failure spec's time (``power@150ms``).
_FAIL_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def _power_loss_times(result: Result) -> list[float] | None:
    """The simulated times (ns) of the run's power losses, from ``raid.fail`` in its
    configuration; ``None`` when one of them cannot be told.

    A spec with a unit (``power@150ms``) is that time; one given as a fraction of the
    trace's requests (``power@0.5``) is the arrival of request ``floor(n x 0.5)``, read
    from the per-request results when the run kept them and the trace has no flush
    commands (which take a request number but no row). A timed loss after the last
    request completed never happens (the report does not count it) and is dropped.
    """
    cfg = getattr(result, "config", None)
    if not cfg:
        return None
    times: list[float] = []
    for spec in cfg.get("raid", {}).get("fail", []):
        target, _, when = str(spec).strip().partition("@")
        if target != "power":
            continue
        number = when.rstrip("".join(_FAIL_UNITS))
        unit = when[len(number):]
        try:
            value = float(number)
        except ValueError:
            return None
        if unit:
            if unit not in _FAIL_UNITS:
                return None
            times.append(value * _FAIL_UNITS[unit])
            continue
        if result.summary.get("counters", {}).get("flushes", 0):
            return None
        try:
            rows = result.requests()
        except (ValueError, AttributeError):  # per_request=False, or no such results
            return None
        index = math.floor(len(rows) * value)
        at = rows.loc[rows["id"] == index, "arrival_ns"]
        if at.empty:
            return None
        times.append(float(at.iloc[0]))
    d = _dram(result)
    end = d["occupancy_t_ns"][-1] if d and d["occupancy_t_ns"] else 0
    return sorted(t for t in times if t <= end)


def dram_occupancy(
    runs: Runs,
    *,
    unit: str = "ms",
    share: bool = True,
    title: str | None = None,
) -> Figure:
    """Dirty pages in the DRAM stage over simulated time, one line per run.

    The report's ``dram.occupancy_t_ns`` / ``dram.occupancy_dirty_pages`` (each point
    the most since the previous one, so drawn as steps up to it), as a share of the
    stage's ``capacity_pages`` (axis in per cent) or, with ``share=False``, in pages.

    With ``cache.destage = "watermark"`` the high and low watermarks from the run's
    configuration (:attr:`Result.config`) are light dashed lines: grey when every run
    has them at the same height, in the run's colour otherwise (pages of different
    capacities). Power losses (``dram.power_losses``) are dotted vertical lines at the
    times the configuration's ``raid.fail`` gives them: ``power@150ms`` as it says,
    ``power@0.5`` at the arrival of the request it names when the run kept per-request
    results and its trace has no flush commands. When a loss's time cannot be told
    that way (no per-request results, a trace with flushes, a result without its
    configuration), or the times found do not add up to the report's count, the run's
    losses are not marked.

    Args:
        runs: results by label (a dict) or a list of results (labelled by preset and
            scheduler); each needs a DRAM stage (``cache.mode`` other than ``"off"``).
        unit: ``ns``, ``us``, ``ms`` or ``s``.
        share: dirty pages as a share of the capacity (default), or in pages.

    Raises:
        ValueError: naming the first run without a DRAM stage.
    """
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, PercentFormatter

    scale = _NS[unit]
    named = _named(runs)
    for label, r in named:
        if _dram(r) is None:
            raise ValueError(
                f"run {label!r} has no DRAM stage (cache.mode = \"off\"): no dirty "
                "occupancy to plot"
            )
    fig = _figure(2.6)
    ax = _axes(
        fig,
        f"simulated time ({unit})",
        "dirty pages (% of DRAM)" if share else "dirty pages",
    )
    marks: dict[float, list[str]] = {}  # watermark height -> colours of its runs
    marked = 0  # runs with watermarks
    losses: set[float] = set()
    for label, r in named:
        d = _dram(r)
        cap = d["capacity_pages"]
        t = np.asarray(d["occupancy_t_ns"], dtype=float) / scale
        y = np.asarray(d["occupancy_dirty_pages"], dtype=float)
        per = 1.0 / cap if share else 1.0
        line = ax.step(t, y * per, where="pre", linewidth=1.0, label=label)[0]
        cache = (getattr(r, "config", None) or {}).get("cache", {})
        if d.get("destage") == "watermark" and "high_watermark" in cache:
            marked += 1
            for w in (cache["high_watermark"], cache["low_watermark"]):
                marks.setdefault(w * cap * per, []).append(line.get_color())
        if d.get("power_losses", 0):
            times = _power_loss_times(r)
            if times is not None and len(times) == d["power_losses"]:
                losses.update(times)
    extra_handles, extra_labels = [], []
    dashed = {"linestyle": (0, (4, 3)), "linewidth": 0.7, "zorder": 1}
    for height, colours in marks.items():
        if len(colours) == marked:  # every run's: grey
            ax.axhline(height, color="0.6", **dashed)
        else:
            ax.axhline(height, color=colours[0], alpha=0.55, **dashed)
    if marks:
        extra_handles.append(Line2D([], [], color="0.6", **dashed))
        extra_labels.append("watermarks")
    dotted = {"color": "0.15", "linestyle": ":", "linewidth": 1.0}
    for at in sorted(losses):
        ax.axvline(at / scale, zorder=3, **dotted)
    if losses:
        extra_handles.append(Line2D([], [], **dotted))
        extra_labels.append("power loss")
    ax.set_xlim(left=0)
    _spaced_ticks(ax)
    if share:
        ax.set_ylim(0, 1.04)
        ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    else:
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _plain(v)))
    handles, labels = ax.get_legend_handles_labels()
    _legend_above(ax, handles=handles + extra_handles, labels=labels + extra_labels)
    _title(fig, title or "DRAM dirty occupancy")
    return fig


def _log_ticks(ax: Axes, x: np.ndarray) -> None:
    """Labels for a logarithmic x axis that never crowd: the powers of ten, at most six
    (every second, third, … on a wide range); on a range holding fewer than two of
    them, 1, 2 and 5 times the powers of ten, written as plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    powers = 0  # powers of ten from the least to the greatest value
    if len(x):
        powers = math.floor(math.log10(x.max())) - math.ceil(math.log10(x.min())) + 1
    if powers >= 2:
        ax.xaxis.set_major_locator(LogLocator(base=10, numticks=6))
    else:
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=6))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


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
    fig = _figure(2.8)
    ax = _axes(fig, "", f"time ({unit})")
    ax.grid(False, axis="x")
    xs = np.arange(len(named))
    bottom = np.zeros(len(named))
    for key, label in parts:
        vals = np.array([r.summary["breakdown"][op][key] / scale for _, r in named])
        ax.bar(xs, vals, bottom=bottom, label=label, width=0.7)
        bottom += vals
    means = [r.summary["response"][op]["mean_ns"] / scale for _, r in named]
    ax.plot(xs, means, "k_", markersize=14, markeredgewidth=1.5, label="mean response")
    turn = len(named) > 3 or max((len(n) for n, _ in named), default=0) > 10
    ax.set_xticks(
        xs,
        [n for n, _ in named],
        rotation=30 if turn else 0,
        ha="right" if turn else "center",
    )
    # The parts in the order they stack, then the mean.
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] == "mean response")
    _legend_above(
        ax, handles=[handles[i] for i in order], labels=[labels[i] for i in order]
    )
    _title(fig, title or f"Response time breakdown ({op} requests)")
    return fig


@dataclass
class _Grid:
    """Chips laid out for a heat map: ``data`` (NaN where no chip), the labels of its
    columns and rows, the axis titles, and the rows in a band when the grid is wrapped
    into bands of more than one row (0 otherwise): white lines go between them."""

    data: np.ndarray
    xticks: list[str]
    yticks: list[str]
    xlabel: str
    ylabel: str
    band_rows: int = 0


#: A grid longer than this many times its height is wrapped into bands.
_WRAP_RATIO = 6


def _band_width(long: int, short: int) -> int:
    """How many chips of the long side go in one band, for a near-square result: the
    smallest divisor of ``long`` from sqrt(long x short) on, so that the stacked bands
    are no taller than wide; failing one up to twice that, sqrt(long x short) rounded up,
    the last band then partly empty."""
    least = math.ceil(math.sqrt(long * short))
    for width in range(least, min(long, 2 * least) + 1):
        if long % width == 0:
            return width
    return least


def _chip_grid(chips: pd.DataFrame, metric: str) -> _Grid:
    """The chips' ``metric`` laid out for a column-wide heat map.

    The device's longer side (channels or ways) runs across, the shorter one down. A
    grid more than six times as long as it is tall is wrapped: the long side is cut
    into bands stacked one under another, so that 64 channels x 1 chip draw as 8 x 8
    (rows labelled by their first channel, columns by the offset from it) and 32 x 2 as
    four bands of 8 channels x 2 ways.
    """
    channels = int(chips["channel"].max()) + 1
    ways = int(chips["way"].max()) + 1
    by_channel = (
        chips.pivot(index="channel", columns="way", values=metric)
        .reindex(index=range(channels), columns=range(ways))
        .to_numpy(dtype=float)
    )
    if channels >= ways:
        m, along, across = by_channel.T, "channel", "way"
    else:
        m, along, across = by_channel, "way", "channel"
    short, long = m.shape
    if long <= _WRAP_RATIO * short:
        return _Grid(
            m,
            [str(i) for i in range(long)],
            [str(j) for j in range(short)],
            along,
            across,
        )
    width = _band_width(long, short)
    bands = math.ceil(long / width)
    data = np.full((bands * short, width), np.nan)
    for k in range(bands):
        part = m[:, k * width : (k + 1) * width]
        data[k * short : (k + 1) * short, : part.shape[1]] = part
    if short == 1:
        yticks = [str(k * width) for k in range(bands)]
        ylabel = f"{along} (row start)"
    else:
        yticks = [f"{k * width}/{j}" for k in range(bands) for j in range(short)]
        ylabel = f"{along} (row start) / {across}"
    return _Grid(
        data,
        [f"+{c}" for c in range(width)],
        yticks,
        f"{along} (row start + column)",
        ylabel,
        band_rows=short if short > 1 else 0,
    )


#: Bounds on the heat map's height, in inches: never a sliver, never taller than wide.
_MAP_MIN_IN = 0.7
_MAP_MAX_IN = 2.4


def _fit_height(fig: Figure, ax: Axes, rows: int, cols: int) -> None:
    """Sets the figure's height so that the cells of ``ax`` come out square (within the
    bounds on the map's height), once the layout has placed the labels and colour bar."""
    for _ in range(4):
        fig.draw_without_rendering()
        w_in, h_in = fig.get_size_inches()
        box = ax.get_position()
        width, height = box.width * w_in, box.height * h_in
        want = min(max(width * rows / cols, _MAP_MIN_IN), _MAP_MAX_IN)
        if abs(want - height) < 0.005:
            return
        fig.set_size_inches(w_in, h_in + want - height)


def _tick_step(labels: list[str], cell_pt: float, across: bool) -> int:
    """Label every n-th cell, n a power of two, so that neighbouring labels keep clear."""
    if across:
        need = max(_text_width_pt(s, TEXT_PT) for s in labels) + 0.4 * TEXT_PT
    else:
        need = 1.3 * TEXT_PT
    step = 1
    while step * cell_pt < need:
        step *= 2
    return step


def chip_heatmap(
    result: Result,
    *,
    metric: str = "utilization",
    title: str | None = None,
) -> Figure:
    """One cell per chip coloured by ``metric``, at most as tall as it is wide.

    The device's longer side (usually the channels) runs across and the shorter one
    down, cells about square; a device more than six times as long as it is wide is
    wrapped into bands stacked one under another: the ``brr`` device's 64 channels x 1
    chip draw as 8 x 8, each row labelled by its first channel, each column by the
    offset from it.

    ``metric`` is a column of :meth:`Result.chips`: ``utilization`` (the default: the
    chip's busy fraction of the run), ``busy_ns``, ``erases``, ``valid_pages``,
    ``invalid_pages``, ``free_pages``, ``free_blocks``, ``erase_max`` … The title gives
    the spread of chip utilization over the device.
    """
    from matplotlib import colormaps
    from matplotlib.ticker import ScalarFormatter

    chips = result.chips()
    if metric not in chips.columns or metric in ("chip", "channel", "way"):
        raise ValueError(f"metric {metric!r}: one of {', '.join(chips.columns[3:])}")
    grid = _chip_grid(chips, metric)
    rows, cols = grid.data.shape
    # A first guess (the map about 2.1 in wide, 1.1 in for title and labels), which
    # _fit_height then corrects to square cells.
    map_in = min(max(2.1 * rows / cols, _MAP_MIN_IN), _MAP_MAX_IN)
    fig = _figure(map_in + 1.1)
    ax = fig.add_subplot()
    cmap = colormaps["viridis"].with_extremes(bad="0.92")
    im = ax.imshow(grid.data, aspect="auto", cmap=cmap, interpolation="nearest")
    if grid.band_rows:
        for k in range(1, rows // grid.band_rows):
            ax.axhline(k * grid.band_rows - 0.5, color="white", linewidth=1.5)
    ax.set_xlabel(grid.xlabel, fontsize=LABEL_PT)
    ax.set_ylabel(grid.ylabel, fontsize=LABEL_PT)
    ax.tick_params(labelsize=TEXT_PT, length=2)
    ax.set_xticks(range(cols), grid.xticks)
    ax.set_yticks(range(rows), grid.yticks)
    # The bar beside the map, exactly as tall; values under 0.01 or from 10 000 up get a
    # common factor above the bar rather than long labels.
    bar = fig.colorbar(im, cax=ax.inset_axes((1.03, 0.0, 0.04, 1.0)))
    factor = ScalarFormatter(useMathText=True)
    factor.set_powerlimits((-3, 4))
    bar.ax.yaxis.set_major_formatter(factor)
    bar.ax.yaxis.get_offset_text().set_fontsize(TEXT_PT)
    bar.ax.tick_params(labelsize=TEXT_PT, length=2)
    bar.set_label(metric, fontsize=LABEL_PT)
    u = result.chip_utilization
    _title(
        fig,
        title
        or f"{metric} per chip (chip utilization mean {u['mean']:.3g}, "
        f"min {u['min']:.3g}, max {u['max']:.3g})",
    )
    _fit_height(fig, ax, rows, cols)
    # Now that the cells' size is known, label only as many as fit.
    w_in, h_in = fig.get_size_inches()
    box = ax.get_position()
    step_x = _tick_step(grid.xticks, 72 * box.width * w_in / cols, across=True)
    step_y = _tick_step(grid.yticks, 72 * box.height * h_in / rows, across=False)
    ax.set_xticks(range(0, cols, step_x), grid.xticks[::step_x])
    ax.set_yticks(range(0, rows, step_y), grid.yticks[::step_y])
    _fit_height(fig, ax, rows, cols)
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
    ``x``) (traces, seeds) are averaged, and the point gets an error bar from the
    lowest to the highest of them.
    """
    df = frame
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    fig = _figure(2.6)
    ax = _axes(fig, x, y)
    groups = [(None, df)] if by is None else list(df.groupby(by, sort=False))
    for key, g in groups:
        s = g.groupby(x, sort=True)[y].agg(["mean", "min", "max", "count"])
        line = ax.plot(
            s.index,
            s["mean"].to_numpy(),
            marker="o",
            markersize=3,
            linewidth=1.0,
            label=None if key is None else str(key),
        )[0]
        several = s["count"].to_numpy() > 1
        if several.any():
            m = s[several]
            ax.errorbar(
                m.index,
                m["mean"].to_numpy(),
                yerr=[(m["mean"] - m["min"]).to_numpy(), (m["max"] - m["mean"]).to_numpy()],
                fmt="none",
                ecolor=line.get_color(),
                elinewidth=0.8,
                capsize=2,
            )
    if np.issubdtype(df[x].dtype, np.integer):
        # Queue depths, counts: no tick at 2.5.
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if log_y:
        ax.set_yscale("log")
    if by is not None:
        _legend_above(ax, title=by)
    _title(fig, title or f"{y} against {x}")
    return fig
