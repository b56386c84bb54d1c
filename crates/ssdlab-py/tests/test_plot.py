"""Every plot renders to a file (headless, Agg)."""

from __future__ import annotations

import pandas as pd
import pytest

import ssdlab

pytest.importorskip("matplotlib")
from ssdlab import plot  # noqa: E402


@pytest.fixture(scope="module")
def runs(slice7016: str) -> dict[str, ssdlab.Result]:
    return {s: ssdlab.run(preset="default", trace=slice7016, scheduler=s)
            for s in ["async-fifo", "sync-fifo"]}


def rendered(fig, path) -> None:
    fig.savefig(path)
    assert path.stat().st_size > 2000
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_latency_cdf(runs, tmp_path) -> None:
    fig = plot.latency_cdf(runs)
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 2
    assert ax.get_lines()[0].get_ydata()[-1] == 1.0
    rendered(fig, tmp_path / "cdf.png")
    rendered(plot.latency_cdf(list(runs.values()), op="read"), tmp_path / "cdf-read.png")


def test_breakdown_bars(runs, tmp_path) -> None:
    fig = plot.breakdown_bars(runs)
    assert len(fig.axes[0].patches) == 3 * 2
    rendered(fig, tmp_path / "bars.png")


def test_chip_heatmap(runs, tmp_path) -> None:
    r = runs["async-fifo"]
    fig = plot.chip_heatmap(r, metric="valid_pages")
    data = fig.axes[0].get_images()[0].get_array()
    g = ssdlab.config("default")["geometry"]
    assert data.shape == (g["channels"], g["chips_per_channel"])
    rendered(fig, tmp_path / "chips.png")
    util = plot.chip_heatmap(r).axes[0].get_images()[0].get_array()
    assert util.shape == data.shape
    assert 0.0 < util.max() <= 1.0
    with pytest.raises(ValueError, match="metric"):
        plot.chip_heatmap(r, metric="nope")


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
    rendered(fig, tmp_path / "sweep.png")
