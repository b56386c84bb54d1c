"""Runs with tenants from Python: their per-tenant results as a frame."""

from __future__ import annotations

import math

import pytest

import ssdlab


def test_tenants_frame_is_the_reports_tenants(head200: str, slice7016: str) -> None:
    config = {"host": {"tenant": [{"trace": head200, "name": "a"},
                                   {"trace": slice7016, "name": "b"}]}}
    r = ssdlab.run(preset="default", config=config)
    df = r.tenants()
    assert df is not None
    assert list(df["tenant"]) == ["a", "b"]
    section = r.summary["tenants"]["tenants"]
    for i, t in enumerate(section):
        assert df["reads"][i] == t["reads"]
        assert df["writes"][i] == t["writes"]
        assert df["response_mean_ns"][i] == t["response"]["mean_ns"]
        assert df["read_response_p99_ns"][i] == t["read_response"]["p99_ns"]
        assert math.isnan(df["slowdown"][i])
    # The tenants' requests are the run's.
    assert int(df["reads"].sum() + df["writes"].sum()) == r.summary["requests"]["all"]
    assert int(df["reads"][0] + df["writes"][0]) == 200
    assert len(r.requests()) == r.summary["requests"]["all"]


def test_one_workload_has_no_tenants_frame(head200: str) -> None:
    assert ssdlab.run(preset="default", trace=head200).tenants() is None


def test_tenants_and_a_trace_are_refused(head200: str) -> None:
    config = {"host": {"tenant": [{"trace": head200}]}}
    with pytest.raises(ssdlab.ArgumentError, match="host.tenant"):
        ssdlab.run(preset="default", config=config, trace=head200)


def test_requests_name_each_requests_tenant(head200: str, slice7016: str) -> None:
    config = {"host": {"tenant": [{"trace": head200, "name": "a"},
                                   {"trace": slice7016, "name": "b"}]}}
    r = ssdlab.run(preset="default", config=config)
    df = r.requests()
    assert list(df.columns)[-1] == "tenant"
    assert list(df["tenant"].cat.categories) == ["a", "b"]
    counts = df["tenant"].value_counts()
    section = r.summary["tenants"]["tenants"]
    for t in section:
        assert counts[t["name"]] == t["reads"] + t["writes"]
    # Each tenant's mean response time is the report's.
    for t in section:
        mine = df[df["tenant"] == t["name"]]["response_ns"]
        assert mine.mean() == pytest.approx(t["response"]["mean_ns"], rel=1e-9)
    table = r.requests_arrow()
    assert table.column("tenant").to_pylist() == list(df["tenant"].astype(str))
    # One workload: no tenant column.
    assert "tenant" not in ssdlab.run(preset="default", trace=head200).requests().columns


def test_tenants_frame_has_each_tenants_share_of_the_cached_map(
    head200: str, slice7016: str
) -> None:
    config = {
        "ftl": {"mapping": "cached", "cmt": {"entries": 512, "sharing": "equal"}},
        "host": {"tenant": [{"trace": head200, "name": "a"},
                            {"trace": slice7016, "name": "b"}]},
    }
    r = ssdlab.run(preset="default", config=config)
    df = r.tenants()
    assert df is not None
    assert r.summary["tenants"]["cmt_sharing"] == "equal"
    for i, t in enumerate(r.summary["tenants"]["tenants"]):
        assert df["cmt_entries"][i] == 256
        assert df["cmt_lookups"][i] == t["cmt"]["lookups"]
        assert df["cmt_hit_ratio"][i] == t["cmt"]["hit_ratio"]
        assert df["cmt_peak_entries"][i] <= 256
    assert int(df["cmt_lookups"].sum()) == r.summary["mapping"]["lookups"]


def test_tenants_frame_has_each_tenants_share_of_the_dram_stage(
    head200: str, slice7016: str
) -> None:
    config = {
        "cache": {"mode": "write-buffer", "capacity_mib": 1, "sharing": "equal"},
        "host": {"tenant": [{"trace": head200, "name": "a"},
                            {"trace": slice7016, "name": "b"}]},
    }
    r = ssdlab.run(preset="default", config=config)
    df = r.tenants()
    assert df is not None
    assert r.summary["tenants"]["dram_sharing"] == "equal"
    pages = r.summary["dram"]["capacity_pages"] // 2
    for i, t in enumerate(r.summary["tenants"]["tenants"]):
        assert df["dram_capacity_pages"][i] == pages
        assert df["dram_writes_absorbed"][i] == t["dram"]["writes_absorbed"]
        assert df["dram_peak_dirty_pages"][i] <= pages
    assert int(df["dram_read_hits"].sum()) == r.summary["dram"]["read_hits"]
    assert int(df["dram_buffer_waits"].sum()) == r.summary["dram"]["buffer_waits"]
