"""ssdlab.sweep on a 2-worker LocalCluster, value for value against single runs."""

from __future__ import annotations

import json
import math
import subprocess

import pytest

import ssdlab
from ssdlab.sweep import batches, device_keys, flatten, points

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


AGED = {
    "geometry.blocks_per_plane": 128,
    "ftl.precondition.enabled": True,
    "ftl.precondition.overwrite_ratio": 0.5,
}
AGED_GRID = {"scheduler.name": ["async-fifo", "sync-fifo"]}


def test_device_keys_group_points_by_aged_device(head200: str) -> None:
    pts = points(AGED_GRID, [head200], seeds=[1, 2])
    keys = device_keys(pts, preset="default", set=AGED)
    # The scheduler is not part of the device; the seed is (it draws the overwrites).
    assert keys[0] is not None and keys[0] == keys[2] and keys[1] == keys[3]
    assert keys[0] != keys[1]
    # A device that is not aged is each run's own; a point that does not build has none.
    assert device_keys(pts, preset="default") == [None] * 4
    bad = points({"scheduler.chip_queue_depth": [0]}, [head200])
    assert device_keys(bad, preset="default", set=AGED) == [None]


def test_batches_keep_a_device_on_one_worker_and_fill_the_slots() -> None:
    keys = ["a", "b", None, "a", "b", "a", None]
    # As many devices (and single points) as slots or more: one task per device.
    assert batches(keys, 2) == [[0, 3, 5], [1, 4], [2], [6]]
    # Fewer devices than slots: a device's points split evenly.
    assert sorted(batches(["a"] * 5, 2)) == [[0, 1, 2], [3, 4]]
    assert sorted(sum(batches(keys, 8), [])) == list(range(7))
    assert batches(["a"] * 3, 8) == [[0], [1], [2]]
    # One large device beside single points: its points are spread over the slots.
    tasks = batches(["a"] * 100 + [None] * 8, 8)
    assert max(map(len, tasks)) <= 14 and sorted(sum(tasks, [])) == list(range(108))
    assert batches([], 4) == []


@pytest.mark.parametrize("own_cluster", [True, False])
def test_aged_sweep_matches_single_runs(own_cluster, cluster_client, head200: str) -> None:
    client = None if own_cluster else cluster_client
    df = ssdlab.sweep(AGED_GRID, head200, preset="default", seeds=[1, 2], set=AGED,
                      client=client, n_workers=2, progress=False)
    assert (df["status"] == "ok").all(), df["error"].tolist()
    assert list(df["seed"]) == [1, 2, 1, 2]
    if own_cluster:
        # The default cluster ran in this process and dropped what it kept here.
        assert ssdlab.shared_devices() == 0
    for _, row in df.iterrows():
        single = ssdlab.run(preset="default", trace=head200, scheduler=row["scheduler.name"],
                            seed=int(row["seed"]), set=AGED)
        assert single.summary["gc_runs"] > 0
        for k, v in flatten(single.summary).items():
            assert same(row[k], v), (k, row[k], v)
    ssdlab.release_shared_devices()
