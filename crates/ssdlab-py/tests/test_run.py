"""ssdlab.run and its Result against the command line, on real trace excerpts."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pandas as pd
import pytest

import ssdlab


def test_summary_is_the_json_report(head200: str) -> None:
    r = ssdlab.run(preset="default", trace=head200)
    assert r.summary == json.loads(r.to_json())
    assert r.summary["requests"]["all"] == 200
    assert r.summary["meta"]["preset"] == "default"
    assert r.summary["response"]["all"]["mean_ns"] > 0


def test_same_number_as_the_cli(slice7016: str, cli: str | None, tmp_path) -> None:
    if cli is None:
        pytest.skip("SSDLAB_CLI not set (scripts/test.sh sets it)")
    out = tmp_path / "out.json"
    csv = tmp_path / "out.csv"
    subprocess.run(
        [cli, "run", "--preset", "default", "--trace", slice7016, "--scheduler", "sync-fifo",
         "--set", "scheduler.chip_queue_depth=4", "--json", str(out),
         "--per-request-csv", str(csv)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    r = ssdlab.run(preset="default", trace=slice7016, scheduler="sync-fifo",
                   set={"scheduler.chip_queue_depth": 4})
    want = json.loads(out.read_text())
    got = json.loads(r.to_json())
    # Wall-clock time differs between any two runs; the git revision when the binary
    # and the extension were built at different commits.
    for d in (want, got):
        d.pop("wall_time_ns", None)
        d["meta"].pop("git_rev")
    assert got == want
    assert r.summary["response"]["all"]["mean_ns"] == json.loads(out.read_text())["response"]["all"]["mean_ns"]
    cli_rows = pd.read_csv(csv)
    rows = r.requests()
    pd.testing.assert_frame_equal(
        rows[cli_rows.columns.tolist()].assign(op=rows["op"].astype(str)),
        cli_rows.astype({c: "int64" for c in cli_rows.columns if c != "op"}).assign(
            op=cli_rows["op"].astype(str)),
        check_dtype=False,
    )


def test_trace_warm_up_and_a_fractional_failure_as_the_cli(
    head200: str, cli: str | None, tmp_path
) -> None:
    # Both read the trace again before the run: the aging replay of its writes and the
    # count a failure at a fraction of its requests needs.
    if cli is None:
        pytest.skip("SSDLAB_CLI not set (scripts/test.sh sets it)")
    out = tmp_path / "out.json"
    subprocess.run(
        [cli, "run", "--preset", "brr", "--trace", head200, "--fail", "chip:3@0.5",
         "--set", 'ftl.precondition.warmup="trace"', "--json", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    want = json.loads(out.read_text())
    for cached in (False, True):
        r = ssdlab.run(preset="brr", trace=head200, fail="chip:3@0.5", cache=cached,
                       set={"ftl.precondition.warmup": "trace"})
        assert r.summary["counters"]["failures"] == 1
        assert r.summary["response"] == want["response"]


def test_result_carries_the_configuration_it_ran(head200: str) -> None:
    args = dict(preset="default", set={"scheduler.chip_queue_depth": 3}, seed=5,
                fail="power@1ms")
    r = ssdlab.run(trace=head200, **args)
    assert r.config == ssdlab.config(**args)
    assert r.config["scheduler"]["chip_queue_depth"] == 3
    assert r.config["raid"]["fail"] == ["power@1ms"]
    # Without a DRAM stage the report has no `dram` section, and a power loss loses
    # nothing.
    assert r.dram is None
    assert r.summary["counters"]["power-losses"] == 1


def test_dram_is_the_reports_dram_stage(head200: str) -> None:
    r = ssdlab.run(preset="default", trace=head200,
                   set={"cache.mode": "write-buffer", "cache.capacity_mib": 8})
    d = r.dram
    assert d is r.summary["dram"]
    assert d["mode"] == "write-buffer"
    assert d["capacity_pages"] == 8 * 2**20 // r.config["geometry"]["page_size_bytes"]
    assert len(d["occupancy_t_ns"]) == len(d["occupancy_dirty_pages"]) >= 2
    assert max(d["occupancy_dirty_pages"]) == d["dirty_peak"]


def test_requests_columns_and_dtypes(head200: str) -> None:
    df = ssdlab.run(preset="default", trace=head200).requests()
    assert tuple(df.columns) == ssdlab.REQUEST_COLUMNS
    assert len(df) == 200
    for c in df.columns:
        if c == "op":
            assert isinstance(df[c].dtype, pd.CategoricalDtype)
            assert list(df[c].cat.categories) == ["read", "write"]
        else:
            assert df[c].dtype == "int64", c
    assert (df["response_ns"] == df["completion_ns"] - df["arrival_ns"]).all()
    assert (df["host_queue_ns"] == df["admitted_ns"] - df["arrival_ns"]).all()
    assert (df["waiting_ns"] >= 0).all()
    assert sorted(df["id"]) == list(range(200))
    assert df["response_ns"].mean() == pytest.approx(
        ssdlab.run(preset="default", trace=head200).summary["response"]["all"]["mean_ns"])


def test_media_errors_are_a_status_column(slice7016: str) -> None:
    # An aged device without redundancy: uncorrectable reads reach the host as media
    # errors, one status per request, as the report counts them. The stress RBER set
    # (docs/ERRORS.md §1.3): the fitted default loses nothing at this wear.
    stress = {"errors.rber.base": 1.0e-5, "errors.rber.pe_coeff": 2.0e-10,
              "errors.rber.pe_exp": 2.0, "errors.rber.ret_coeff": 0.02,
              "errors.rber.ret_exp": 0.25, "errors.rber.page_type_scale": [0.6, 1.0, 1.4]}
    aged = {"errors.mode": "on", "errors.initial_pe": 12000, "errors.initial_age_s": 3e7,
            **stress}
    r = ssdlab.run(preset="default", trace=slice7016, set=aged)
    rows = r.requests()
    assert rows.columns[-1] == "status"
    assert list(rows["status"].cat.categories) == ["ok", "media-error", "read-only"]
    failed = rows[rows["status"] == "media-error"]
    assert len(failed) == r.summary["errors"]["media_error_requests"] > 0
    assert set(failed["op"].astype(str)) == {"read"}
    table = r.requests_arrow()
    assert table.column_names[-1] == "status"
    # Without the model there is no status column.
    assert "status" not in ssdlab.run(preset="default", trace=slice7016).requests().columns


def test_requests_polars_through_arrow(head200: str) -> None:
    pl = pytest.importorskip("polars")
    r = ssdlab.run(preset="default", trace=head200)
    df = r.requests_polars()
    assert df.columns == list(ssdlab.REQUEST_COLUMNS)
    assert df["response_ns"].dtype == pl.Int64
    assert df["response_ns"].to_list() == r.requests()["response_ns"].tolist()


def test_chips(head200: str) -> None:
    r = ssdlab.run(preset="default", trace=head200)
    chips = r.chips()
    cfg = ssdlab.config("default")
    g = cfg["geometry"]
    assert len(chips) == g["channels"] * g["chips_per_channel"]
    assert list(chips["chip"]) == list(range(len(chips)))
    assert set(chips["channel"]) == set(range(g["channels"]))
    assert chips["erases"].sum() == r.summary["erases"] or r.summary["erases"] == 0
    # Every programmed page is valid or invalid on some chip, or erased since.
    assert (chips["valid_pages"] + chips["invalid_pages"]).sum() > 0
    assert set(r.chip_utilization) == {"mean", "std", "min", "max"}


def test_chip_utilization_per_chip_agrees_with_the_report(slice7016: str) -> None:
    r = ssdlab.run(preset="default", trace=slice7016)
    chips = r.chips()
    assert chips["utilization"].dtype == "float64"
    assert chips["busy_ns"].dtype == "int64"
    assert (chips["busy_ns"] > 0).any()
    assert chips["utilization"].between(0.0, 1.0).all()
    # The report's utilization.chip is the spread of this column over the chips.
    u = r.summary["utilization"]["chip"]
    assert chips["utilization"].mean() == pytest.approx(u["mean"], rel=1e-12)
    assert chips["utilization"].std(ddof=0) == pytest.approx(u["std"], rel=1e-9, abs=1e-15)
    assert chips["utilization"].min() == pytest.approx(u["min"], rel=1e-12)
    assert chips["utilization"].max() == pytest.approx(u["max"], rel=1e-12)
    # A die is busy at least for the array time of its transactions (no multi-plane
    # sharing on this device), and a chip is busy while any of its dies is.
    assert ssdlab.config("default")["scheduler"]["multi_plane"] is False
    array_ns = sum(t["count"] * t["array_ns_mean"] for t in r.summary["transactions"])
    dies_per_chip = r.summary["shape"]["dies"] // r.summary["shape"]["chips"]
    assert chips["busy_ns"].sum() * dies_per_chip >= array_ns


def test_requests_frame_is_writable(head200: str) -> None:
    df = ssdlab.run(preset="default", trace=head200).requests()
    df.loc[0, "response_ns"] = -1
    assert df.loc[0, "response_ns"] == -1


def test_chip_wear_agrees_with_the_report(slice7016: str) -> None:
    # A small preconditioned device, so that garbage collection erases blocks.
    r = ssdlab.run(preset="default", trace=slice7016, set={
        "geometry.blocks_per_plane": 64, "ftl.precondition.enabled": True})
    chips = r.chips()
    wear = r.summary["wear"]  # erase count per block over the device, wear included
    assert r.summary["erases"] > 0
    assert chips["erases"].sum() >= r.summary["erases"]
    assert chips["erase_max"].max() == wear["max"]
    assert chips["erase_min"].min() == wear["min"]
    g = ssdlab.config("default", set={"geometry.blocks_per_plane": 64})["geometry"]
    blocks = g["channels"] * g["chips_per_channel"] * g["dies_per_chip"] * g["planes_per_die"] * 64
    assert chips["erases"].sum() / blocks == pytest.approx(wear["mean"])


def test_determinism(slice7016: str) -> None:
    a = ssdlab.run(preset="default", trace=slice7016, seed=7)
    b = ssdlab.run(preset="default", trace=slice7016, seed=7)
    strip = lambda s: {k: v for k, v in s.items() if k != "wall_time_ns"}  # noqa: E731
    assert strip(a.summary) == strip(b.summary)
    pd.testing.assert_frame_equal(a.requests(), b.requests())
    pd.testing.assert_frame_equal(a.chips(), b.chips())


def test_cached_trace_gives_the_same_report(slice7016: str) -> None:
    plain = ssdlab.run(preset="default", trace=slice7016)
    cached = ssdlab.run(preset="default", trace=slice7016, cache=True)
    again = ssdlab.run(preset="default", trace=slice7016, cache=True)
    strip = lambda s: {k: v for k, v in s.items() if k != "wall_time_ns"}  # noqa: E731
    assert strip(cached.summary) == strip(plain.summary) == strip(again.summary)


def test_an_aged_device_is_prepared_once_and_shared(head200: str) -> None:
    aged = {
        "geometry.blocks_per_plane": 128,
        "ftl.precondition.enabled": True,
        "ftl.precondition.overwrite_ratio": 0.5,
    }
    strip = lambda s: {k: v for k, v in s.items() if k != "wall_time_ns"}  # noqa: E731
    ssdlab.release_shared_devices()
    a = ssdlab.run(preset="default", trace=head200, set=aged)
    assert ssdlab.shared_devices() >= 1
    # Another scheduler runs on the same device; the device is not changed by a run.
    other = ssdlab.run(preset="default", trace=head200, set=aged, scheduler="sync-fifo")
    again = ssdlab.run(preset="default", trace=head200, set=aged)
    assert strip(again.summary) == strip(a.summary)
    assert other.summary["meta"]["scheduler"] == "sync-fifo"
    assert other.summary["gc_runs"] > 0
    assert ssdlab.release_shared_devices() >= 1
    assert ssdlab.shared_devices() == 0
    fresh = ssdlab.run(preset="default", trace=head200, set=aged)
    assert strip(fresh.summary) == strip(a.summary)
    assert a.summary["gc_runs"] > 0


def test_runs_release_the_gil(slice7016: str) -> None:
    # While a run is in Rust, Python threads keep running.
    ticks = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.monotonic()
    ssdlab.run(preset="default", trace=slice7016, repeat=4)
    end = time.monotonic()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    assert end - start > 0.02
    assert len(during) >= 5, (end - start, len(during))


def test_config_round_trips() -> None:
    d = ssdlab.config("brr", set={"scheduler.chip_queue_depth": 3})
    assert d["scheduler"]["chip_queue_depth"] == 3
    assert ssdlab.config(config=d) == d
    text = ssdlab.to_toml(d)
    assert "chip_queue_depth = 3" in text
    assert ssdlab.config_toml("brr").startswith(ssdlab.config_toml(config=ssdlab.config("brr"))[:20])
    assert ssdlab.config_toml(config=ssdlab.config("brr")) == ssdlab.config_toml("brr")


def test_config_file_layer(tmp_path) -> None:
    f = tmp_path / "c.toml"
    f.write_text("[scheduler]\nchip_queue_depth = 5\n")
    d = ssdlab.config("default", config=f, set=["scheduler.name=sync-fifo"])
    assert d["scheduler"]["chip_queue_depth"] == 5
    assert d["scheduler"]["name"] == "sync-fifo"


def test_presets() -> None:
    names = ssdlab.presets()
    assert "brr" in names and "default" in names
    for n in names:
        assert ssdlab.config(n)["geometry"]["channels"] > 0


def test_trace_info(head200: str) -> None:
    info = ssdlab.trace_info(head200)
    assert info["requests"] == 200
    assert info["reads"] + info["writes"] == 200
    assert info["format"] == "msr"
    assert "requests: 200" in info["text"]
