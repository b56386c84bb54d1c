"""ssdlab.sweep on a 2-worker LocalCluster, value for value against single runs."""

from __future__ import annotations

import json
import math
import subprocess

import pytest

import ssdlab
from ssdlab.sweep import flatten, points

pytest.importorskip("distributed")

SCHEDULERS = ["async-fifo", "sync-fifo", "piq"]
DEPTHS = [1, 2, 4, 8]
GRID = {"scheduler.name": SCHEDULERS, "scheduler.chip_queue_depth": DEPTHS}


@pytest.fixture(scope="module")
def cluster_client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def frame(cluster_client, slice7016: str):
    return ssdlab.sweep(GRID, slice7016, preset="default", client=cluster_client)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_shape_and_parameters(frame, slice7016: str) -> None:
    assert len(frame) == 12
    assert (frame["status"] == "ok").all(), frame["error"].tolist()
    assert list(frame["scheduler.name"]) == [s for s in SCHEDULERS for _ in DEPTHS]
    assert list(frame["scheduler.chip_queue_depth"]) == DEPTHS * 3
    assert list(frame["meta.scheduler"]) == list(frame["scheduler.name"])
    assert "response.all.mean_ns" in frame.columns
    assert "wall_time_ns" not in frame.columns


def test_matches_single_runs_value_for_value(frame, slice7016: str) -> None:
    for _, row in frame.iterrows():
        single = ssdlab.run(preset="default", trace=slice7016, scheduler=row["scheduler.name"],
                            set={"scheduler.chip_queue_depth": int(row["scheduler.chip_queue_depth"])})
        flat = flatten(single.summary)
        assert set(flat) <= set(frame.columns)
        for k, v in flat.items():
            assert same(row[k], v), (k, row[k], v)


def test_matches_cli_runs_value_for_value(frame, slice7016: str, cli, tmp_path) -> None:
    if cli is None:
        pytest.skip("SSDLAB_CLI not set (scripts/test.sh sets it)")
    for i, row in frame.iterrows():
        out = tmp_path / f"{i}.json"
        subprocess.run(
            [cli, "run", "--preset", "default", "--trace", slice7016,
             "--scheduler", row["scheduler.name"],
             "--set", f"scheduler.chip_queue_depth={row['scheduler.chip_queue_depth']}",
             "--json", str(out)],
            check=True, stdout=subprocess.DEVNULL,
        )
        flat = flatten(json.loads(out.read_text()))
        for k, v in flat.items():
            assert same(row[k], v), (i, k, row[k], v)


def test_failed_points_are_rows_not_exceptions(cluster_client, head200: str) -> None:
    df = ssdlab.sweep({"scheduler.chip_queue_depth": [2, 0]}, [head200, "/nonexistent.csv"],
                      preset="default", client=cluster_client, progress=False)
    assert len(df) == 4
    by = {(r["scheduler.chip_queue_depth"], r["trace"]): r for _, r in df.iterrows()}
    assert by[(2, head200)]["status"] == "ok"
    assert by[(2, "/nonexistent.csv")]["status"] == "error"
    assert "TraceError" in by[(2, "/nonexistent.csv")]["error"]
    bad = by[(0, head200)]
    assert bad["status"] == "error" and "scheduler.chip_queue_depth" in bad["error"]


def test_seeds_and_points_order(head200: str) -> None:
    pts = points({"a": [1, 2]}, [head200], seeds=[1, 2, 3])
    assert [(p["a"], s) for p, _, s in pts] == [(a, s) for a in [1, 2] for s in [1, 2, 3]]


def test_default_local_cluster(head200: str) -> None:
    df = ssdlab.sweep({"scheduler.name": ["async-fifo"]}, head200, preset="default",
                      seeds=[1, 2], n_workers=1, progress=False)
    assert list(df["seed"]) == [1, 2]
    assert (df["status"] == "ok").all()


def test_cli_sweep_parquet_matches_the_frame(frame, slice7016: str, cli, tmp_path) -> None:
    """`ssdlab sweep --out FILE.parquet` holds the Python sweep's table, typed alike."""
    if cli is None:
        pytest.skip("SSDLAB_CLI not set (scripts/test.sh sets it)")
    import pandas as pd

    grid = tmp_path / "grid.toml"
    grid.write_text('[grid]\n"scheduler.name" = ["async-fifo", "sync-fifo", "piq"]\n'
                    '"scheduler.chip_queue_depth" = [1, 2, 4, 8]\n')
    out = tmp_path / "sweep.parquet"
    subprocess.run([cli, "sweep", "--preset", "default", "--grid", str(grid),
                    "--traces", slice7016, "--out", str(out), "--jobs", "2"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    table = pd.read_parquet(out)
    assert list(table.columns) == list(frame.columns)
    assert len(table) == len(frame)
    for col in frame.columns:
        if col in ("trace", "error", "seed"):
            continue
        for i in range(len(frame)):
            a, b = table[col].iloc[i], frame[col].iloc[i]
            assert same(a, b) or (pd.isna(a) and pd.isna(b)), (col, i, a, b)
    assert str(table["scheduler.chip_queue_depth"].dtype) == "int64"
    assert str(table["response.all.mean_ns"].dtype) == "float64"
