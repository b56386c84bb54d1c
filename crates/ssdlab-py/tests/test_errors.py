"""Errors become exceptions that carry the key / file / line, with the CLI's messages."""

from __future__ import annotations

import gzip
import subprocess

import pytest

import ssdlab


def test_unknown_key_names_the_key(head200: str) -> None:
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(preset="brr", trace=head200, set={"scheduler.queue_dpeth": 3})
    assert e.value.key == "scheduler.queue_dpeth"
    assert "scheduler.queue_dpeth" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_invalid_value_names_the_key(head200: str) -> None:
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(preset="default", trace=head200, set={"scheduler.name": "lifo"})
    assert e.value.key == "scheduler.name"


def test_unknown_preset() -> None:
    with pytest.raises(ssdlab.ConfigError, match="unknown preset `nope`"):
        ssdlab.config("nope")


def test_missing_config_file_names_it(tmp_path) -> None:
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.config(config=tmp_path / "absent.toml")
    assert e.value.file == str(tmp_path / "absent.toml")


def test_bad_trace_line_names_file_line_field(tmp_path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "128166372003061629,hm,0,Write,9056014336,4096,1073\n"
        "128166372016853007,hm,0,Write,11855351808,4096,1071\n"
        "128166372026382136,hm,0,Write,12a,4096,1062\n"
    )
    with pytest.raises(ssdlab.TraceError) as e:
        ssdlab.run(preset="default", trace=bad, format="msr")
    assert e.value.file == str(bad)
    assert e.value.line == 3
    assert e.value.field is not None
    assert f"{bad}:3:" in str(e.value)
    # skip_bad_lines: the same trace runs, the bad line counted.
    r = ssdlab.run(preset="default", trace=bad, format="msr", skip_bad_lines=True)
    assert r.summary["requests"]["all"] == 2
    assert r.summary["counters"]["trace-skipped-lines"] == 1


def test_bad_trace_line_in_a_gzip_trace(tmp_path) -> None:
    bad = tmp_path / "bad.csv.gz"
    with gzip.open(bad, "wt") as f:
        f.write("128166372003061629,hm,0,Write,9056014336,4096,1073\n")
        f.write("128166372016853007,hm,0,Frob,11855351808,4096,1071\n")
    with pytest.raises(ssdlab.TraceError) as e:
        ssdlab.run(preset="default", trace=bad, cache=True)
    assert (e.value.file, e.value.line) == (str(bad), 2)


def test_missing_trace() -> None:
    with pytest.raises(ssdlab.TraceError) as e:
        ssdlab.run(preset="default", trace="/nonexistent/t.csv")
    assert e.value.file == "/nonexistent/t.csv"
    assert e.value.line is None


def test_argument_errors(head200: str) -> None:
    with pytest.raises(ssdlab.ArgumentError, match="trace format `xx`"):
        ssdlab.run(preset="default", trace=head200, format="xx")
    with pytest.raises(ssdlab.ArgumentError, match="no workload"):
        ssdlab.run(preset="default")
    with pytest.raises(ssdlab.ArgumentError, match="repeat"):
        ssdlab.run(preset="default", trace=head200, repeat=0)
    with pytest.raises(ssdlab.ArgumentError):
        ssdlab.run(preset="default", trace=head200, set={"scheduler": {"name": "x"}})


def test_bad_fail_spec_names_raid_fail(head200: str) -> None:
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(preset="brr", trace=head200, fail="chip:x@y")
    assert "raid.fail" in str(e.value)


def test_messages_match_the_cli(head200: str, cli: str | None) -> None:
    if cli is None:
        pytest.skip("SSDLAB_CLI not set (scripts/test.sh sets it)")
    p = subprocess.run(
        [cli, "run", "--preset", "brr", "--trace", head200, "--set", "scheduler.queue_dpeth=3"],
        capture_output=True, text=True,
    )
    assert p.returncode == 2
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(preset="brr", trace=head200, set=["scheduler.queue_dpeth=3"])
    assert p.stderr == f"error: {e.value}\n"


def test_device_full_is_a_simulation_error(slice7016: str) -> None:
    with pytest.raises(ssdlab.SsdlabError) as e:
        ssdlab.run(preset="default", trace=slice7016, set={"ftl.address_fold": "error",
                   "geometry.blocks_per_plane": 8})
    assert isinstance(e.value, (ssdlab.SimulationError, ssdlab.ConfigError))


def test_a_page_type_list_of_the_wrong_length_names_the_key(head200: str) -> None:
    tlc = {"nand.cell": "tlc", "geometry.pages_per_block": 96}
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(preset="default", trace=head200, set={**tlc, "nand.t_read_ns_by_type": [1, 2]})
    assert e.value.key == "nand.t_read_ns_by_type"
    r = ssdlab.run(
        preset="default",
        trace=head200,
        set={**tlc, "nand.t_read_ns_by_type": [50000, 70000, 90000], "scheduler.suspend": "reads"},
    )
    assert r.nand is not None
    assert [p["page_type"] for p in r.nand["reads_by_page_type"]] == ["lsb", "csb", "msb"]
    assert "program_suspends" in r.nand["suspend"]
    assert ssdlab.run(preset="default", trace=head200).nand is None


def test_an_slc_cache_reports_its_folds_and_a_bad_size_names_the_key(head200: str) -> None:
    tlc = {"nand.cell": "tlc", "geometry.pages_per_block": 96, "ftl.over_provisioning": 0.25}
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(preset="default", trace=head200,
                   set={**tlc, "nand.slc_cache.mode": "static"})
    assert e.value.key == "nand.slc_cache.blocks_per_plane"
    r = ssdlab.run(
        preset="default",
        trace=head200,
        set={**tlc, "nand.slc_cache.mode": "dynamic", "nand.slc_cache.blocks_per_plane": 1,
             "nand.slc_cache.t_prog_ns": 100000},
    )
    assert r.nand is not None
    c = r.nand["slc_cache"]
    assert c["mode"] == "dynamic" and c["pages_per_block"] == 32
    assert c["slc_pages_written"] > 0
    assert c["slc_pages_written"] + c["direct_pages_written"] > 0
    assert r.nand["reads_by_page_type"][-1]["page_type"] == "slc-mode"
