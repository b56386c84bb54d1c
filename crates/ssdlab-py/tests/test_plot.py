"""Every plot renders to a file (headless, Agg), sized for a 3.5 in column: text of 7 pt
or more, no two pieces of text over one another, the legend above the plot area, heat
maps of any geometry near-square or a short strip, log-axis labels apart. Sizes and
overlaps are measured on what the Agg renderer draws."""

from __future__ import annotations

import math
import struct
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest

import ssdlab

pytest.importorskip("matplotlib")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from ssdlab import plot  # noqa: E402


@pytest.fixture(scope="module")
def runs(slice7016: str) -> dict[str, ssdlab.Result]:
    return {s: ssdlab.run(preset="default", trace=slice7016, scheduler=s)
            for s in ["async-fifo", "sync-fifo"]}


class Chips:
    """The per-chip part of a result on a device of ``channels`` x ``ways`` chips, each
    chip's utilization telling where it is: (channel + way / 100) / (channels + 1)."""

    def __init__(self, channels: int, ways: int) -> None:
        self.channels, self.ways = channels, ways
        n = channels * ways
        channel = [c // ways for c in range(n)]
        way = [c % ways for c in range(n)]
        self.frame = pd.DataFrame({
            "chip": range(n), "channel": channel, "way": way,
            "busy_ns": [10_000_000 * (c + 1) for c in range(n)],
            "utilization": [(c + w / 100) / (channels + 1) for c, w in zip(channel, way)],
            "erases": [0] * n,
        })
        u = self.frame["utilization"]
        self.chip_utilization = {"mean": u.mean(), "std": u.std(), "min": u.min(),
                                 "max": u.max()}

    def chips(self) -> pd.DataFrame:
        return self.frame


class Latencies:
    """The per-request part of a result whose responses are ``ns``."""

    def __init__(self, ns) -> None:
        self.frame = pd.DataFrame({"op": ["read"] * len(ns), "response_ns": ns})

    def requests(self) -> pd.DataFrame:
        return self.frame


def rendered(fig, path) -> None:
    fig.savefig(path)
    assert path.stat().st_size > 2000
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def drawn(fig):
    """``fig`` laid out and drawn on an Agg canvas; the renderer."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


@contextmanager
def recording_texts():
    """Collects every non-empty text that a draw inside the block actually draws (tick
    labels outside the view and stale ones are not drawn, so they are not counted)."""
    seen: list[Text] = []
    original = Text.draw

    def draw(self, renderer):
        if self.get_visible() and self.get_text().strip():
            seen.append(self)
        return original(self, renderer)

    Text.draw = draw
    try:
        yield seen
    finally:
        Text.draw = original


def texts(fig) -> tuple[list[Text], object]:
    """The texts drawn in ``fig`` (titles, labels, ticks, legend, colour bar) and the
    renderer they were drawn with."""
    with recording_texts() as seen:
        renderer = drawn(fig)
    return list(dict.fromkeys(seen)), renderer


def overlap(a, b, tol: float = 0.5) -> bool:
    return (a.x0 < b.x1 - tol and b.x0 < a.x1 - tol
            and a.y0 < b.y1 - tol and b.y0 < a.y1 - tol)


def print_ready(fig) -> None:
    """3.5 in wide; every text at least 7 pt, inside the figure, over no other text."""
    w, _ = fig.get_size_inches()
    assert w == pytest.approx(plot.COLUMN_IN)
    drawn_texts, renderer = texts(fig)
    assert drawn_texts
    box = fig.bbox
    extents = []
    for t in drawn_texts:
        assert t.get_fontsize() >= 7.0, (t.get_text(), t.get_fontsize())
        e = t.get_window_extent(renderer)
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1, ("clipped", t.get_text())
        assert e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1, ("clipped", t.get_text())
        extents.append((t.get_text(), e))
    for i, (s, a) in enumerate(extents):
        for r, b in extents[i + 1:]:
            assert not overlap(a, b), f"{s!r} overlaps {r!r}"


def legend_above(fig) -> None:
    """The legend sits above the plot area (the axes' data rectangle), not over it."""
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    renderer = drawn(fig)
    assert legend.get_window_extent(renderer).y0 >= ax.get_window_extent(renderer).y1 - 1


def shown_ticks(axis, fig) -> list[tuple[float, Text]]:
    """The major ticks of ``axis`` whose labels are drawn: (location, label), in order."""
    drawn_texts, _ = texts(fig)
    on = {id(t) for t in drawn_texts}
    return sorted((t.get_loc(), t.label1) for t in axis.majorTicks if id(t.label1) in on)


def labels_apart(labels: list[Text], fig, horizontal: bool = True,
                 gap: float = 2.0) -> None:
    """Neighbouring labels keep at least ``gap`` pixels between their rendered extents."""
    renderer = drawn(fig)
    boxes = [t.get_window_extent(renderer) for t in labels]
    boxes.sort(key=lambda e: e.x0 if horizontal else e.y0)
    for a, b in zip(boxes, boxes[1:]):
        if horizontal:
            assert b.x0 - a.x1 >= gap, ("tick labels overlap", a, b)
        else:
            assert b.y0 - a.y1 >= gap, ("tick labels overlap", a, b)


def test_latency_cdf(runs, tmp_path) -> None:
    fig = plot.latency_cdf(runs)
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 2
    assert ax.get_lines()[0].get_ydata()[-1] == 1.0
    print_ready(fig)
    legend_above(fig)
    ticks = shown_ticks(ax.xaxis, fig)
    assert 2 <= len(ticks) <= 6
    assert all(math.log10(loc) == round(math.log10(loc)) for loc, _ in ticks)
    labels_apart([t for _, t in ticks], fig)
    rendered(fig, tmp_path / "cdf.png")
    rendered(plot.latency_cdf(list(runs.values()), op="read"), tmp_path / "cdf-read.png")
    linear = plot.latency_cdf(runs, log_x=False)
    print_ready(linear)
    legend_above(linear)


@pytest.mark.parametrize("lo_ms, hi_ms, powers_of_ten", [
    (0.03, 4.0, True),            # hm_0's spread: 0.1 and 1 inside
    (1e-3, 1e6, True),            # nine decades: every second or third power only
    (1e-4, 1e9, True),            # thirteen
    (1e-5, 1e12, True),           # seventeen
    (0.2, 0.9, False),            # no power of ten inside: 1-2-5 labels
    (0.02, 0.9, False),           # one (0.1): 1-2-5 labels
])
def test_latency_cdf_log_axis_labels_keep_apart(lo_ms, hi_ms, powers_of_ten) -> None:
    ns = np.geomspace(lo_ms * 1e6, hi_ms * 1e6, 500)
    fig = plot.latency_cdf({"a": Latencies(ns), "b": Latencies(ns * 1.1)}, log_x=True)
    ax = fig.axes[0]
    print_ready(fig)
    ticks = shown_ticks(ax.xaxis, fig)
    shown = [t.get_text() for _, t in ticks]
    decade = [math.log10(loc) == pytest.approx(round(math.log10(loc))) for loc, _ in ticks]
    if powers_of_ten:
        assert 2 <= len(ticks) <= 6 and all(decade), shown
    else:
        # Too few powers of ten to read the axis by: 1, 2 and 5 times them too.
        assert 2 <= len(ticks) <= 7 and not all(decade), shown
    labels_apart([t for _, t in ticks], fig)


def test_breakdown_bars(runs, tmp_path) -> None:
    fig = plot.breakdown_bars(runs)
    assert len(fig.axes[0].patches) == 3 * 2
    print_ready(fig)
    legend_above(fig)
    # The parts in the order they stack, then the mean, read row by row.
    _, renderer = texts(fig)
    legend = fig.axes[0].get_legend().get_texts()
    rows = sorted(legend, key=lambda t: (-round(t.get_window_extent(renderer).y0),
                                         t.get_window_extent(renderer).x0))
    assert [t.get_text() for t in rows] == ["service", "GC wait", "other wait",
                                            "mean response"]
    rendered(fig, tmp_path / "bars.png")


def test_chip_heatmap(runs, tmp_path) -> None:
    r = runs["async-fifo"]
    fig = plot.chip_heatmap(r, metric="valid_pages")
    data = fig.axes[0].get_images()[0].get_array()
    g = ssdlab.config("default")["geometry"]
    # The longer side (8 channels) across, the 4 ways down.
    assert data.shape == (g["chips_per_channel"], g["channels"])
    print_ready(fig)
    rendered(fig, tmp_path / "chips.png")
    util = plot.chip_heatmap(r).axes[0].get_images()[0].get_array()
    assert util.shape == data.shape
    assert 0.0 < util.max() <= 1.0
    chips = r.chips()
    first = chips[(chips["channel"] == 5) & (chips["way"] == 2)]["utilization"].item()
    assert util[2, 5] == first
    with pytest.raises(ValueError, match="metric"):
        plot.chip_heatmap(r, metric="nope")


def cells(fig) -> tuple[float, float, tuple[int, int]]:
    """The rendered size of one heat-map cell in inches (width, height), and the grid."""
    ax = fig.axes[0]
    im = ax.get_images()[0]
    rows, cols = im.get_array().shape
    e = im.get_window_extent(drawn(fig))
    return e.width / fig.dpi / cols, e.height / fig.dpi / rows, (rows, cols)


def test_chip_heatmap_wraps_one_chip_per_channel_into_a_square(tmp_path) -> None:
    """The `brr` device: 64 channels of one chip each."""
    fig = plot.chip_heatmap(Chips(64, 1))
    ax = fig.axes[0]
    data = ax.get_images()[0].get_array()
    assert data.shape == (8, 8)
    # Channel 9 sits in the second row (channels 8-15), second column.
    assert data[1, 1] == pytest.approx(9 / 65)
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(8 * i) for i in range(8)]
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"+{i}" for i in range(8)]
    w, h = fig.get_size_inches()
    assert 0.6 <= h / w <= 1.2, (w, h)
    cw, ch, _ = cells(fig)
    assert 0.85 <= cw / ch <= 1.18, (cw, ch)
    assert cw * 8 >= 2.0, "the map spans most of the column"
    print_ready(fig)
    title = fig._suptitle
    assert title is not None and "utilization" in title.get_text()
    files = plot.save(fig, tmp_path / "chips", formats=("png", "svg", "pdf"))
    assert [f.suffix for f in files] == [".png", ".svg", ".pdf"]
    with open(files[0], "rb") as f:
        head = f.read(24)
    width, height = struct.unpack(">II", head[16:24])
    assert width == round(plot.COLUMN_IN * plot.PNG_DPI)
    assert height == pytest.approx(h * plot.PNG_DPI, abs=2)
    assert b"<svg" in files[1].read_bytes()[:400]
    assert files[2].read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("channels, ways, shape", [
    (64, 1, (8, 8)),     # brr, dgc
    (8, 8, (8, 8)),      # paq
    (16, 4, (4, 16)),
    (8, 4, (4, 8)),      # default, cr5m-ssd3
    (8, 2, (2, 8)),      # dsftl
    (4, 7, (4, 7)),      # cr5m-ssd1: more ways than channels, the ways across
    (6, 5, (5, 6)),      # cr5m-ssd2
    (32, 1, (4, 8)),
    (32, 2, (8, 8)),     # wrapped in four bands of 8 channels x 2 ways
    (8, 1, (2, 4)),
    (1, 6, (1, 6)),      # one channel of six ways: a strip
    (128, 1, (8, 16)),
    (61, 1, (8, 8)),     # a prime: the last row partly empty
])
def test_chip_heatmap_shape_for_every_geometry(channels, ways, shape) -> None:
    fig = plot.chip_heatmap(Chips(channels, ways))
    cw, ch, grid = cells(fig)
    assert grid == shape
    data = fig.axes[0].get_images()[0].get_array()
    assert np.isfinite(data).sum() == channels * ways
    w, h = fig.get_size_inches()
    assert h <= w, "never taller than the column is wide"
    # Never a sliver: the map spans most of the column and is at least 0.65 in tall.
    assert cw * shape[1] >= 1.8
    assert ch * shape[0] >= 0.65
    assert 0.5 <= cw / ch <= 1.25, (cw, ch)
    if shape[0] * 2 >= shape[1]:
        assert 0.85 <= cw / ch <= 1.18, "cells of a squarish grid are square"
    print_ready(fig)
    ax = fig.axes[0]
    labels_apart([t for _, t in shown_ticks(ax.xaxis, fig)], fig)
    labels_apart([t for _, t in shown_ticks(ax.yaxis, fig)], fig, horizontal=False, gap=0.0)


def test_chip_heatmap_of_a_constant_metric() -> None:
    fig = plot.chip_heatmap(Chips(64, 1), metric="erases")
    print_ready(fig)


def test_sweep_metric(tmp_path) -> None:
    frame = pd.DataFrame({
        "scheduler.name": ["a", "a", "b", "b", "b"],
        "scheduler.chip_queue_depth": [1, 2, 1, 2, 4],
        "status": ["ok"] * 4 + ["error"],
        "response.all.mean_ns": [5.0, 4.0, 6.0, 3.0, float("nan")],
    })
    fig = plot.sweep_metric(frame, "scheduler.chip_queue_depth", by="scheduler.name")
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2
    assert list(lines[1].get_xdata()) == [1, 2]
    assert not fig.axes[0].containers, "no point averages several rows"
    assert all(v == int(v) for v in fig.axes[0].get_xticks()), "integer ticks for integers"
    print_ready(fig)
    legend_above(fig)
    rendered(fig, tmp_path / "sweep.png")


def test_sweep_metric_averages_seeds_with_min_max_error_bars() -> None:
    frame = pd.DataFrame({
        "seed": [1, 2, 3, 1, 2, 3],
        "x": [1, 1, 1, 2, 2, 2],
        "y": [4.0, 6.0, 5.0, 2.0, 2.0, 2.0],
    })
    fig = plot.sweep_metric(frame, "x", "y")
    ax = fig.axes[0]
    assert list(ax.get_lines()[0].get_ydata()) == [5.0, 2.0]
    (bars,) = ax.containers
    segments = bars.lines[2][0].get_segments()
    assert [tuple(s[:, 1]) for s in segments] == [(4.0, 6.0), (2.0, 2.0)]
    print_ready(fig)


def test_save_writes_each_format(runs, tmp_path) -> None:
    fig = plot.latency_cdf(runs)
    files = plot.save(fig, tmp_path / "cdf.whatever", formats=("pdf", "png"))
    assert files == [tmp_path / "cdf.pdf", tmp_path / "cdf.png"]
    assert all(f.stat().st_size > 2000 for f in files)


def write_buffer(trace: str, mib: int, **kw) -> ssdlab.Result:
    return ssdlab.run(preset="default", trace=trace,
                      set={"cache.mode": "write-buffer", "cache.capacity_mib": mib}, **kw)


@pytest.fixture(scope="module")
def buffered(slice7016: str) -> dict[str, ssdlab.Result]:
    return {f"{m} MiB": write_buffer(slice7016, m) for m in (8, 64)}


def occupancy_lines(ax) -> list:
    """The runs' lines, without the watermarks and power-loss marks (unlabelled)."""
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def dashed_heights(ax) -> list[float]:
    return sorted({float(ln.get_ydata()[0]) for ln in ax.get_lines()
                   if ln.get_label().startswith("_") and ln.get_linestyle() == "--"})


def test_dram_occupancy_is_the_reports_series_as_a_share(buffered, tmp_path) -> None:
    r = buffered["8 MiB"]
    d = r.dram
    assert d is not None and d["capacity_pages"] > 0
    assert max(d["occupancy_dirty_pages"]) > 0, "hm_0 dirties the buffer"
    fig = plot.dram_occupancy({"8 MiB": r})
    ax = fig.axes[0]
    (line,) = occupancy_lines(ax)
    share = np.array(d["occupancy_dirty_pages"]) / d["capacity_pages"]
    assert np.array_equal(line.get_ydata(), share)
    assert np.array_equal(line.get_xdata(), np.array(d["occupancy_t_ns"]) / 1e6)
    assert line.get_drawstyle() == "steps-pre", "each point is the most since the last"
    # The configuration's watermarks (0.8 and 0.6 by default), dashed, as shares.
    assert r.config["cache"]["destage"] == "watermark"
    assert dashed_heights(ax) == [0.6, 0.8]
    assert ax.get_ylim() == (0.0, pytest.approx(1.04))
    assert ax.get_xlabel() == "simulated time (ms)"
    print_ready(fig)
    legend_above(fig)
    # 148 s in ms: long labels (140,000), so fewer of them, kept apart.
    ticks = shown_ticks(ax.xaxis, fig)
    assert 3 <= len(ticks) <= 6
    assert all("," in t.get_text() for loc, t in ticks if loc >= 1000)
    labels_apart([t for _, t in ticks], fig)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["8 MiB", "watermarks"]
    rendered(fig, tmp_path / "dram.png")


def test_dram_occupancy_of_several_runs_in_pages(buffered, tmp_path) -> None:
    fig = plot.dram_occupancy(buffered, unit="s", share=False)
    ax = fig.axes[0]
    lines = occupancy_lines(ax)
    assert [ln.get_label() for ln in lines] == ["8 MiB", "64 MiB"]
    for ln, r in zip(lines, buffered.values()):
        assert list(ln.get_ydata()) == r.dram["occupancy_dirty_pages"]
        assert ln.get_xdata()[-1] == r.dram["occupancy_t_ns"][-1] / 1e9
    # In pages each capacity has watermarks of its own, in its run's colour.
    caps = [r.dram["capacity_pages"] for r in buffered.values()]
    assert caps[1] == 8 * caps[0]
    assert dashed_heights(ax) == sorted(w * c for c in caps for w in (0.6, 0.8))
    colours = {ln.get_color() for ln in lines}
    marks = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert {m.get_color() for m in marks} == colours
    print_ready(fig)
    legend_above(fig)
    labels_apart([t for _, t in shown_ticks(ax.xaxis, fig)], fig)
    rendered(fig, tmp_path / "dram-pages.png")
    # A list: labelled by preset and scheduler, one line each.
    listed = plot.dram_occupancy(list(buffered.values()))
    assert len(occupancy_lines(listed.axes[0])) == 2
    print_ready(listed)


def test_dram_occupancy_needs_a_dram_stage(buffered, runs) -> None:
    assert runs["sync-fifo"].dram is None
    with pytest.raises(ValueError, match="'unbuffered' has no DRAM stage"):
        plot.dram_occupancy({"8 MiB": buffered["8 MiB"], "unbuffered": runs["sync-fifo"]})


def test_dram_occupancy_on_demand_destage_has_no_watermarks(slice7016) -> None:
    r = ssdlab.run(preset="default", trace=slice7016, per_request=False, chips=False,
                   set={"cache.mode": "write-buffer", "cache.capacity_mib": 8,
                        "cache.destage": "on-demand"})
    ax = plot.dram_occupancy({"on demand": r}).axes[0]
    assert dashed_heights(ax) == []
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["on demand"]


def test_dram_occupancy_marks_power_losses(slice7016) -> None:
    timed = write_buffer(slice7016, 8, fail="power@40ms")
    assert timed.dram["power_losses"] == 1
    ax = plot.dram_occupancy({"timed": timed}).axes[0]
    (mark,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert list(mark.get_xdata()) == [40.0, 40.0]
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == [
        "power loss", "timed", "watermarks"]
    print_ready(ax.figure)

    # Half-way through the requests: the arrival of request n / 2.
    half = write_buffer(slice7016, 8, fail="power@0.5")
    assert half.dram["power_losses"] == 1
    rows = half.requests()
    at = rows.loc[rows["id"] == len(rows) // 2, "arrival_ns"].item()
    ax = plot.dram_occupancy({"half": half}).axes[0]
    (mark,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert mark.get_xdata()[0] == at / 1e6

    # Without the per-request results that moment is unknown: no mark.
    blind = write_buffer(slice7016, 8, fail="power@0.5", per_request=False)
    assert blind.dram["power_losses"] == 1
    ax = plot.dram_occupancy({"blind": blind}).axes[0]
    assert not [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert "power loss" not in [t.get_text() for t in ax.get_legend().get_texts()]
