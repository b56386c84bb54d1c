"""The cross-validation harness without the anchors: it skips cleanly, converts the
trace, reads the anchors' output formats, and the configuration conversion is the
identity both ways (ssdlab → MQSim XML → ssdlab, ssdlab → SSDsim → ssdlab) on a tiny
case. Needs the ssdlab binary ($SSDLAB_CLI, as scripts/test.sh sets it)."""
import gzip
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import crossval  # noqa: E402

CLI = os.environ.get("SSDLAB_CLI", str(Path(__file__).resolve().parents[2] / "target/debug/ssdlab"))

TINY = """seed = 3
[geometry]
channels = 2
chips_per_channel = 2
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 32
page_size_bytes = 4096
[timing]
t_read_ns = 40000
t_prog_ns = 400000
t_erase_ns = 2000000
bus_ps_per_byte = 5000
t_cmd_ns = 35
[ftl]
over_provisioning = 0.2
allocation = "static"
static_order = "cwdp"
[ftl.gc]
victim = "greedy"
threshold_free_ratio = 0.1
copyback = false
[host]
device_queue_depth = 32
[scheduler]
multi_plane = true
"""

# What each simulator needs on top of TINY to represent all of it: SSDsim acknowledges a
# write at transfer and has no dynamic wear leveling; MQSim's GC threshold is a fraction
# of free blocks above its mapping frontier, never below 11 blocks of 64 here.
FOR = {
    "mqsim": TINY.replace("threshold_free_ratio = 0.1", "threshold_free_ratio = 0.2\nbackground_free_ratio = 0.2")
    + "[host.pcie]\nlanes = 8\nlane_gbytes_per_s = 2.5\nmax_payload_bytes = 128\ntlp_overhead_bytes = 28\n",
    "ssdsim": TINY + "[ftl.wear_leveling]\ndynamic = false\n",
}
FOR["ssdsim"] = FOR["ssdsim"].replace("t_cmd_ns = 35", "t_cmd_ns = 35\nwrite_ack = \"transfer\"")

# Keys of TINY each simulator has a parameter for (the others are fixed or absent there).
SHARED = {
    "mqsim": ["seed", "geometry.*", "timing.t_read_ns", "timing.t_prog_ns", "timing.t_erase_ns",
              "timing.bus_ps_per_byte", "ftl.over_provisioning", "ftl.static_order",
              "ftl.gc.victim", "ftl.gc.copyback", "host.device_queue_depth", "host.pcie.*"],
    "ssdsim": ["geometry.*", "timing.*", "ftl.over_provisioning", "ftl.allocation",
               "ftl.static_order", "ftl.gc.threshold_free_ratio", "ftl.gc.copyback",
               "host.device_queue_depth", "scheduler.multi_plane"],
}


def flat(t: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in t.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def wanted(key: str, patterns: list[str]) -> bool:
    return any(key == p or (p.endswith("*") and key.startswith(p[:-1])) for p in patterns)


@pytest.mark.parametrize("to", ["mqsim", "ssdsim"])
def test_config_round_trip_is_the_identity_on_shared_keys(tmp_path, to):
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(FOR[to])
    dev = tmp_path / "device"
    refused = crossval.export(CLI, ["--config", str(cfg)], to, None, dev)
    back = subprocess.run([CLI, "config", "import", str(dev)], capture_output=True, text=True, check=True)
    got = flat(tomllib.loads(back.stdout))
    want = flat(tomllib.loads(FOR[to]))
    keys = [k for k in want if wanted(k, SHARED[to])]
    assert len(keys) >= 9
    for k in keys:
        assert got.get(k) == want[k], (to, k, got.get(k), back.stdout)
    assert refused == [], refused


def test_export_lists_what_a_simulator_cannot_express(tmp_path):
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(TINY.replace("multi_plane = true", "multi_plane = false"))
    refused = crossval.export(CLI, ["--config", str(cfg)], "mqsim", None, tmp_path / "d.xml")
    assert any(r.startswith("scheduler.multi_plane:") for r in refused), refused
    strict = subprocess.run([CLI, "config", "export", "--to", "mqsim", "--config", str(cfg)],
                            capture_output=True, text=True)
    assert strict.returncode == 2 and "scheduler.multi_plane" in strict.stderr, strict.stderr


def test_skips_without_anchors(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("MQSIM", raising=False)
    monkeypatch.delenv("SSDSIM", raising=False)
    rc = crossval.main(["--name", "x", "--config", str(tmp_path / "none.toml"), "--trace", str(tmp_path / "t")])
    assert rc == 0 and "skipped" in capsys.readouterr().out


def test_trace_conversion_and_read_pages():
    lines = crossval.read_trace(Path(__file__).parent / "tiny.mqsim", None)
    assert lines == ["0 0 0 8 1", "1000 0 4 8 0", "2000 0 12 16 1"]
    text = crossval.to_ssdsim(lines)
    assert text == "0 0 0 8 1\n1000 0 4 8 0\n2000 0 12 16 1", "no newline after the last line"
    assert crossval.read_pages(lines, 8) == 1 + 3
    with pytest.raises(ValueError, match="line 1"):
        crossval.to_ssdsim(["0 0 0 8 2"])


def test_reads_the_anchors_outputs(tmp_path):
    res = tmp_path / "r.xml"
    res.write_text('<MQSim_Results><Host><Host.IO_Flow Device_Response_Time="234" '
                   'Max_Device_Response_Time="900"/></Host><SSDDevice><SSDDevice.FTL '
                   'Issued_Flash_Read_CMD="10" Issued_Flash_Multiplane_Read_CMD="3" '
                   'Issued_Flash_Program_CMD="5" Issued_Flash_Multiplane_Program_CMD="2" '
                   'Issued_Flash_Erase_CMD="1" Total_GC_Executions="1" '
                   'Average_Page_Movement_For_GC="4.0"/></SSDDevice></MQSim_Results>')
    m = crossval.mqsim_metrics(res)
    assert (m["page reads"], m["page programs"], m["erases"], m["GC page moves"]) == (16, 9, 1, 4)
    assert m["all mean (µs)"] == 234.0
    (tmp_path / "statistic10.dat").write_text(
        "read count: 99\n---------------------------statistic data---------------------------\n"
        "read count:            12\nprogram count:            20  include\nerase count:             2\n")
    (tmp_path / "ex.out").write_text(
        "      arrive           lsn     size ope     begin time    response time    process time\n"
        "               0          0      8  1                0            30000      30000\n"
        "            1000          4      8  0             1000            16000      15000\n")
    m = crossval.ssdsim_metrics(tmp_path, 5)
    assert (m["page reads"], m["page programs"], m["erases"]) == (12, 15, 2)
    assert m["read mean (µs)"] == 30.0 and m["write max (µs)"] == 15.0 and m["all mean (µs)"] == 22.5
    assert "+10.0 %" == crossval.pct(110, 100)


def test_export_says_mqsim_cannot_do_without_a_link(tmp_path):
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(TINY)
    refused = crossval.export(CLI, ["--config", str(cfg)], "mqsim", None, tmp_path / "d.xml")
    assert [r for r in refused if r.startswith("host.pcie")] == [
        r for r in refused if r.startswith("host.pcie.lane_gbytes_per_s: ") and "no host link" in r], refused
    assert any(r.startswith("host.pcie.lane_gbytes_per_s") for r in refused), refused
    refused = crossval.export(CLI, ["--config", str(cfg), "--set", "host.pcie.generation=3"], "ssdsim", None,
                              tmp_path / "p")
    assert any(r.startswith("host.pcie.lane_gbytes_per_s") and "SSDsim has no host link" in r
               for r in refused), refused


def test_the_link_of_the_mqsim_file_becomes_sets(tmp_path):
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(FOR["mqsim"])
    dev = tmp_path / "device.xml"
    crossval.export(CLI, ["--config", str(cfg)], "mqsim", None, dev)
    sets = crossval.mqsim_link(CLI, dev)
    assert sets == ["host.pcie.lanes=8", "host.pcie.lane_gbytes_per_s=2.5", "host.pcie.max_payload_bytes=128",
                    "host.pcie.tlp_overhead_bytes=28"]
    note = crossval.link_note(sets)
    assert "8 lanes × 2.5 GB/s" in note and "128 B + 28 B" in note and "--no-mqsim-link" in note
    bad = tmp_path / "bad.xml"
    bad.write_text(dev.read_text().replace("<PCIe_Lane_Count>8<", "<PCIe_Lane_Count>3<"))
    with pytest.raises(RuntimeError, match="PCIe_Lane_Count"):
        crossval.mqsim_link(CLI, bad)


def test_table_compares_the_given_pairs():
    cols = {"ssdlab": {"erases": 110}, "MQSim": {"erases": 100}, "ssdlab, no link": {"erases": 90},
            "SSDsim": {"erases": 100}}
    t = crossval.table("x", cols, ["n"], [("ssdlab", "MQSim"), ("ssdlab, no link", "SSDsim")])
    assert "| ssdlab vs MQSim | ssdlab, no link vs SSDsim |" in t
    assert "| erases | 110 | 100 | 90 | 100 | +10.0 % | -10.0 % |" in t, t


def pcie_means(v) -> list:
    """Every `pcie_ns_mean` in a JSON report."""
    if isinstance(v, dict):
        return [x for k, w in v.items() for x in ([w] if k == "pcie_ns_mean" else pcie_means(w))]
    if isinstance(v, list):
        return [x for w in v for x in pcie_means(w)]
    return []


FAKE_MQSIM = """#!/bin/sh
# Stands in for MQSim: keeps the device file it was given and writes a result.
while [ $# -gt 0 ]; do [ "$1" = -i ] && cp "$2" given-device.xml; shift; done
cat > wl_scenario_1.xml <<'X'
<MQSim_Results><Host><Host.IO_Flow Device_Response_Time="50" Max_Device_Response_Time="90"/></Host>
<SSDDevice><SSDDevice.FTL Issued_Flash_Read_CMD="2" Issued_Flash_Program_CMD="3"/></SSDDevice></MQSim_Results>
X
"""


@pytest.mark.parametrize("no_link", [False, True])
def test_a_case_runs_ssdlab_with_the_mqsim_files_link(tmp_path, no_link):
    mq = tmp_path / "mqsim"
    mq.write_text(FAKE_MQSIM)
    mq.chmod(0o755)
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(FOR["mqsim"])
    base = tmp_path / "base.xml"
    crossval.export(CLI, ["--config", str(cfg)], "mqsim", None, base)
    plain = tmp_path / "plain.toml"
    plain.write_text(FOR["mqsim"].split("[host.pcie]")[0])
    out = tmp_path / "out.md"
    argv = ["--name", "c", "--config", str(plain), "--trace", str(Path(__file__).parent / "tiny.mqsim"),
            "--ssdlab", CLI, "--mqsim", str(mq), "--mqsim-base", str(base), "--workdir", str(tmp_path / "w"),
            "--out", str(out)] + (["--no-mqsim-link"] if no_link else [])
    assert crossval.main(argv) == 0
    text = out.read_text()
    report = json.loads((tmp_path / "w" / "c" / "ssdlab.json").read_text())
    given = (tmp_path / "w" / "c" / "given-device.xml").read_text()
    assert "<PCIe_Lane_Count>8</PCIe_Lane_Count>" in given, "the base's link, written back"
    if no_link:
        assert "the MQSim file's PCIe link" not in text and "host.pcie.lane_gbytes_per_s: " in text, text
        assert not any(pcie_means(report)), "no link"
    else:
        assert "the MQSim file's PCIe link (8 lanes × 2.5 GB/s" in text, text
        assert "MQSim cannot express" not in text, text
        assert any(v and v > 0 for v in pcie_means(report)), "time on the link"


def test_matrix_cases_traces_and_summary(tmp_path, capsys):
    import matrix
    assert len(matrix.CASES) >= 24 and len({c[0] for c in matrix.CASES}) == len(matrix.CASES)
    for name, geo, tr, sets, _ in matrix.CASES:
        assert geo in matrix.FILES and (tr in matrix.SYNTH or tr in matrix.SEQ or tr in matrix.SAMPLES), name
        assert all("=" in s for s in sets), name
    path = tmp_path / "s"
    matrix.seq128k(path, "mixed", 3)
    assert path.read_text() == "200000 0 0 256 0\n400000 0 256 256 1\n600000 0 512 256 0"
    rows = [("a", {"ssdlab": {"all mean (µs)": 110.0, "erases": 0}, "MQSim": {"all mean (µs)": 100.0, "erases": 0}}, 1.0),
            ("b", {"ssdlab": {"all mean (µs)": 50.0, "erases": 7},
                   "MQSim": {"all mean (µs)": 100.0, "all max (µs)": 200.0, "erases": 9},
                   "ssdlab, no link": {"all mean (µs)": 40.0, "all p99 (µs)": 60.0},
                   "SSDsim": {"all mean (µs)": 80.0, "all p99 (µs)": 30.0}}, 2.0)]
    text = matrix.summary(rows)
    assert "| a | 110.0 | 100.0 | 1.100 | — | — | — | — | — | no (0 / 0) | 1 |" in text, text
    assert "| b | 50.0 | 100.0 | 0.500 | — | 40.0 | 80.0 | 0.500 | 2.000 | yes (7 / 9) | 2 |" in text, text
    assert matrix.main(["--list", "--only", "^M2[12] "]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 2 and "16GiB" in out


def test_ssdsim_inflight_counts_overlap_in_simulated_time(tmp_path):
    import ssdsim_inflight as sf
    (tmp_path / "ex.out").write_text(
        "      arrive           lsn     size ope     begin time    response time    process time\n"
        "               0          0      8  1                0            30000      30000\n"
        "            1000          4      8  0             1000            16000      15000\n"
        "           40000          4      8  0            45000            50000      10000\n")
    r = sf.inflight(sf.requests(tmp_path / "ex.out"))
    assert r["requests"] == 3 and r["most overlapping [arrival, end)"] == 2
    assert r["most overlapping [begin, end)"] == 2 and r["begin = arrival"] == 2
    assert r["last completion (ms)"] == 0.05 and r["sum of end − begin (ms)"] == (30000 + 15000 + 5000) / 1e6
    assert sf.most_at_once([(0, 5), (5, 9)]) == 1, "an interval ending as another starts does not overlap"
def test_cached_map_round_trip_through_mqsim(tmp_path):
    # MQSim's entries on this 2^14-page device: 5 bytes cached, 3 in a translation page.
    text = FOR["mqsim"].replace('static_order = "cwdp"', 'static_order = "cwdp"\nmapping = "cached"')
    text += "[ftl.cmt]\nentries = 1000\nentry_bytes = 3\n"
    cfg = tmp_path / "cached.toml"
    cfg.write_text(text)
    dev = tmp_path / "device.xml"
    assert crossval.export(CLI, ["--config", str(cfg)], "mqsim", None, dev) == []
    xml = dev.read_text()
    assert "<Ideal_Mapping_Table>false</Ideal_Mapping_Table>" in xml and "<CMT_Capacity>5000</CMT_Capacity>" in xml
    back = subprocess.run([CLI, "config", "import", str(dev)], capture_output=True, text=True, check=True)
    got = flat(tomllib.loads(back.stdout))
    assert (got["ftl.mapping"], got["ftl.cmt.entries"], got["ftl.cmt.entry_bytes"]) == ("cached", 1000, 3)
    refused = crossval.export(CLI, ["--config", str(cfg)], "ssdsim", None, tmp_path / "p")
    assert any(r.startswith("ftl.mapping:") for r in refused), refused


def test_reads_both_cmt_counters(tmp_path):
    res = tmp_path / "r.xml"
    res.write_text('<MQSim_Results><SSDDevice><SSDDevice.FTL Issued_Flash_Read_CMD="110" '
                   'Issued_Flash_Read_CMD_For_Mapping="30" Issued_Flash_Program_CMD_For_Mapping="4" '
                   'CMT_Hits="25" CMT_Misses="60" Total_CMT_Queries="100"/></SSDDevice></MQSim_Results>')
    m = crossval.mqsim_cmt_metrics(res, {"page reads": 110})
    assert (m["CMT lookups"], m["CMT hits"], m["translation reads"], m["translation writes"]) == (100, 25, 30, 4)
    assert m["CMT hit ratio (%)"] == 25.0 and m["page reads"] == 110
    res.write_text('<MQSim_Results><SSDDevice><SSDDevice.FTL Issued_Flash_Read_CMD_For_Mapping="0" '
                   'Issued_Flash_Program_CMD_For_Mapping="0" CMT_Hits="7" Total_CMT_Queries="7"/>'
                   '</SSDDevice></MQSim_Results>')
    assert "CMT hits" not in crossval.mqsim_cmt_metrics(res, {}), "an ideal table has no CMT rows"
    report = {"transactions": [{"reason": "host-read", "pages": 80}, {"reason": "map-read", "pages": 31}],
              "mapping": {"lookups": 100, "hits": 24, "miss_reads": 29, "writeback_reads": 2,
                          "translation_writes": 3, "read_hit": {"count": 2, "mean_ns": 40000.0},
                          "read_miss": {"count": 0, "mean_ns": 0.0}}}
    m = crossval.ssdlab_cmt_metrics(report, {"page reads": 80})
    assert (m["page reads"], m["translation reads"], m["translation writes"]) == (111, 31, 3)
    assert m["CMT hit ratio (%)"] == 24.0 and m["read hit mean (µs)"] == 40.0 and "read miss mean (µs)" not in m
    assert crossval.ssdlab_cmt_metrics({"transactions": []}, {"page reads": 5}) == {"page reads": 5}


def test_fold_counts_what_ssdlab_runs_and_where_mqsim_folds(tmp_path):
    """fold.py's ssdlab folding gives the page reads and programs ssdlab's own run does
    on the MQSim TPC-C sample, whose addresses reach past a 64 GiB device; MQSim's
    folding, over a range one sector short, lands those requests elsewhere."""
    import fold

    root = Path(__file__).resolve().parents[2]
    trace = root / "traces/mqsim/tpcc-small.mqsim.gz"
    cfg = tmp_path / "g64.toml"
    cfg.write_text(
        "[geometry]\nchannels = 8\nchips_per_channel = 8\ndies_per_chip = 1\nplanes_per_die = 2\n"
        "blocks_per_plane = 2048\npages_per_block = 64\npage_size_bytes = 4096\n"
        "[ftl]\nover_provisioning = 0.15\n"
    )
    rep = tmp_path / "r.json"
    subprocess.run([CLI, "run", "--config", str(cfg), "--trace", str(trace), "--format", "mqsim",
                    "--json", str(rep)], check=True, stdout=subprocess.DEVNULL)
    work = json.loads(rep.read_text())["work"]
    lsa = fold.mqsim_range(128, 2048, 64, 8, 0.15)
    with gzip.open(trace, "rt") as f:
        t = fold.count(f, lsa, int(128 * 2048 * 64 * 0.85), 8)
    assert (t["ssdlab_reads"], t["ssdlab_programs"]) == (work["read"]["pages"], work["write"]["pages"])
    assert t["beyond"] == t["differ"] > 0
    assert (t["mqsim_reads"], t["mqsim_programs"]) != (t["ssdlab_reads"], t["ssdlab_programs"])


def test_mqsim_folding_keeps_the_start_and_wraps_at_the_end():
    import fold

    # 4 pages of 8 sectors: sectors 0..31, the range's modulus is 31.
    assert fold.mqsim_pages(0, 8, 32, 8) == [0]
    assert fold.mqsim_pages(31, 1, 32, 8) == [3]
    assert fold.mqsim_pages(32, 8, 32, 8) == [0, 1]  # 32 % 31 = 1: one sector later
    assert fold.mqsim_pages(28, 8, 32, 8) == [3, 0]  # past the last sector, back to 0
    assert fold.ssdlab_pages(32, 8, 4, 8) == [0]
    # A write of sectors 0-3 over a page with 0-7 written reads the other four first.
    t = fold.count(["0 0 0 8 0", "1 0 0 4 0", "2 0 8 4 1", "3 0 8 8 0"], 32, 4, 8)
    assert t["mqsim_update_reads"] == 1
    assert (t["mqsim_reads"], t["mqsim_programs"]) == (1, 3)
