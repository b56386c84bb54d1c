#!/usr/bin/env python3
"""Cross-validation of ssdlab against MQSim and SSDsim on one case.

One case = one ssdlab configuration (file + --set overrides) and one trace in MQSim's
ASCII format (time_ns device start_sector sectors type, type 0 = write, 1 = read; .gz
or plain). The harness exports the configuration with `ssdlab config export` (lenient:
keys a simulator cannot represent are listed in the table's notes), converts the trace,
runs the three simulators that are available and appends one markdown table (flash work
and latency side by side, differences in % of the anchor) to --out.

The anchors' binaries come from --mqsim/--ssdsim or $MQSIM/$SSDSIM. When neither is
given or found, the harness prints a message and exits 0 (CI runs without them).

Python 3.11+ (tomllib) standard library only.
"""
from __future__ import annotations

import argparse
import tempfile
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def read_trace(path: Path, limit: int | None) -> list[str]:
    """The first `limit` non-empty lines of an MQSim ASCII trace."""
    opener = gzip.open if path.suffix == ".gz" else open
    out: list[str] = []
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                out.append(" ".join(line.split()))
                if limit is not None and len(out) >= limit:
                    break
    return out


def to_ssdsim(lines: list[str]) -> str:
    """SSDsim's ASCII trace: `time device lsn size ope` with the same units and the same
    1 = read / 0 = write code as MQSim's; SSDsim needs no newline after the last line."""
    for i, line in enumerate(lines):
        cols = line.split()
        if len(cols) != 5 or cols[4] not in ("0", "1"):
            raise ValueError(f"trace line {i + 1}: expected 5 columns ending in 0 or 1: {line!r}")
    return "\n".join(lines)


def read_pages(lines: list[str], sectors_per_page: int) -> int:
    """Pages the trace's reads touch, one count per read request and page: what SSDsim's
    pre_process_page programs (untimed) before the replay."""
    n = 0
    for line in lines:
        _, _, lsn, size, op = line.split()
        if op == "1":
            first, last = int(lsn) // sectors_per_page, (int(lsn) + int(size) - 1) // sectors_per_page
            n += last - first + 1
    return n


def mqsim_workload(trace: Path, geometry: dict) -> str:
    """MQSim's workload file replaying `trace` on the whole device (no caching)."""
    ids = lambda n: ",".join(str(i) for i in range(n))  # noqa: E731
    return f"""<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios>
\t<IO_Scenario>
\t\t<IO_Flow_Parameter_Set_Trace_Based>
\t\t\t<Priority_Class>HIGH</Priority_Class>
\t\t\t<Device_Level_Data_Caching_Mode>TURNED_OFF</Device_Level_Data_Caching_Mode>
\t\t\t<Channel_IDs>{ids(geometry["channels"])}</Channel_IDs>
\t\t\t<Chip_IDs>{ids(geometry["chips_per_channel"])}</Chip_IDs>
\t\t\t<Die_IDs>{ids(geometry["dies_per_chip"])}</Die_IDs>
\t\t\t<Plane_IDs>{ids(geometry["planes_per_die"])}</Plane_IDs>
\t\t\t<Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage>
\t\t\t<File_Path>{trace}</File_Path>
\t\t\t<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
\t\t\t<Relay_Count>1</Relay_Count>
\t\t\t<Time_Unit>NANOSECOND</Time_Unit>
\t\t</IO_Flow_Parameter_Set_Trace_Based>
\t</IO_Scenario>
</MQSim_IO_Scenarios>
"""


def export(ssdlab: str, cfg_args: list[str], to: str, base: Path | None, out: Path) -> list[str]:
    """Runs `ssdlab config export`; returns the keys it could not represent."""
    cmd = [ssdlab, "config", "export", "--to", to, "--lenient", "--out", str(out), *cfg_args]
    if base is not None:
        clean = out.with_suffix(".base")
        clean.write_text(base.read_text(encoding="utf-8", errors="replace"))
        cmd += ["--base", str(clean)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return [l.split(": ", 1)[1] for l in p.stderr.splitlines() if l.startswith("not representable")]


PCIE_KEYS = ("lanes", "lane_gbytes_per_s", "max_payload_bytes", "tlp_overhead_bytes")


def mqsim_link(ssdlab: str, base: Path) -> list[str]:
    """ssdlab's `--set`s for the PCIe link of the MQSim device file `base`, read through
    `ssdlab config import` (the one mapping table, docs/IMPORT.md "The host link")."""
    with tempfile.TemporaryDirectory() as d:
        clean = Path(d) / "base.xml"
        clean.write_text(base.read_text(encoding="utf-8", errors="replace"))
        p = subprocess.run([ssdlab, "config", "import", str(clean)], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ssdlab config import {base}: {p.stderr.strip()}")
    pcie = tomllib.loads(p.stdout).get("host", {}).get("pcie", {})
    missing = [k for k in PCIE_KEYS if k not in pcie]
    if missing:
        raise RuntimeError(f"ssdlab config import {base}: no host.pcie.{', '.join(missing)}")
    return [f"host.pcie.{k}={pcie[k]}" for k in PCIE_KEYS]


def link_note(sets: list[str]) -> str:
    """The table note saying ssdlab runs with MQSim's link."""
    v = dict(s.split("=", 1) for s in sets)
    return (f"ssdlab runs with the MQSim file's PCIe link ({v['host.pcie.lanes']} lanes × "
            f"{v['host.pcie.lane_gbytes_per_s']} GB/s, TLPs of {v['host.pcie.max_payload_bytes']} B + "
            f"{v['host.pcie.tlp_overhead_bytes']} B; `--no-mqsim-link` turns it off)"
            "; against SSDsim, which has no link, ssdlab runs without it (column `ssdlab, no link`)")


def pct(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None:
        return "—"
    if theirs == 0:
        return "=" if ours == 0 else "∞"
    return f"{100.0 * (ours - theirs) / theirs:+.1f} %"


def ssdlab_metrics(report: dict) -> dict:
    tx = {t["reason"]: t for t in report.get("transactions", [])}
    pages = lambda r: tx.get(r, {}).get("pages", 0)  # noqa: E731
    lat = report["latency"] if "latency" in report else report
    resp = lambda c: lat["response"][c] if "response" in lat else lat[c]["response"]  # noqa: E731
    m = {
        "page reads": pages("host-read") + pages("gc-read") + report.get("work", {}).get("buffer_hits", 0),
        "page programs": report.get("programmed_pages"),
        "erases": report.get("erases"),
        "GC page moves": report.get("gc_pages_moved"),
    }
    for cls in ("all", "read", "write"):
        try:
            r = resp(cls)
        except KeyError:
            continue
        if not r.get("count"):
            continue
        for k, f in (("mean", "mean_ns"), ("p50", "p50_ns"), ("p99", "p99_ns"), ("max", "max_ns")):
            m[f"{cls} {k} (µs)"] = r[f] / 1000.0
    return m


def mqsim_metrics(result: Path) -> dict:
    root = ET.parse(result).getroot()
    # MQSim writes a statistic as an attribute (SSDDevice.FTL) or as a child element
    # (Host.IO_Flow); read both.
    fields = lambda e: {**e.attrib, **{c.tag: (c.text or "").strip() for c in e}}  # noqa: E731
    ftl = fields(next(e for e in root.iter() if e.tag == "SSDDevice.FTL"))
    flow = fields(next(e for e in root.iter() if e.tag.startswith("Host.IO_Flow")))
    n = lambda k: int(float(ftl.get(k, 0)))  # noqa: E731
    gcs = n("Total_GC_Executions")
    return {
        "page reads": n("Issued_Flash_Read_CMD") + 2 * n("Issued_Flash_Multiplane_Read_CMD")
        + n("Issued_Flash_Interleaved_Read_CMD"),
        "page programs": n("Issued_Flash_Program_CMD") + 2 * n("Issued_Flash_Multiplane_Program_CMD")
        + n("Issued_Flash_Interleaved_Program_CMD"),
        "erases": n("Issued_Flash_Erase_CMD") + 2 * n("Issued_Flash_Multiplane_Erase_CMD"),
        "GC page moves": round(gcs * float(ftl.get("Average_Page_Movement_For_GC", 0))) if gcs else 0,
        "all mean (µs)": float(flow["Device_Response_Time"]),
        "all max (µs)": float(flow["Max_Device_Response_Time"]),
    }


def ssdsim_metrics(run: Path, prefill_reads: int) -> dict:
    text = (run / "statistic10.dat").read_text(errors="replace")
    block = text[text.rfind("statistic data"):]
    g = lambda k: int(re.search(rf"^{k}:\s*(-?\d+)", block, re.M).group(1))  # noqa: E731
    m = {
        "page reads": g("read count"),
        "page programs": g("program count") - prefill_reads,
        "erases": g("erase count"),
    }
    lat: dict[str, list[int]] = {"all": [], "read": [], "write": []}
    for line in (run / "ex.out").read_text(errors="replace").splitlines():
        c = line.split()
        if len(c) == 7 and all(x.lstrip("-").isdigit() for x in c):
            cls = "read" if c[3] == "1" else "write"
            lat[cls].append(int(c[6]))
            lat["all"].append(int(c[6]))
    for cls, v in lat.items():
        if not v:
            continue
        v.sort()
        q = lambda p: v[min(len(v) - 1, int(p * len(v)))]  # noqa: E731
        m[f"{cls} mean (µs)"] = sum(v) / len(v) / 1000.0
        m[f"{cls} p50 (µs)"] = q(0.50) / 1000.0
        m[f"{cls} p99 (µs)"] = q(0.99) / 1000.0
        m[f"{cls} max (µs)"] = v[-1] / 1000.0
    return m


# The cached mapping table (ssdlab `ftl.mapping = "cached"`, MQSim `Ideal_Mapping_Table`
# false): rows present only when a simulator reports them.
CMT_ROWS = ["CMT lookups", "CMT hits", "CMT hit ratio (%)", "translation reads", "translation writes",
            "read hit mean (µs)", "read miss mean (µs)"]


def ssdlab_cmt_metrics(report: dict, m: dict) -> dict:
    """ssdlab's `mapping` section (present with the cached map) as CMT rows. Page reads
    then count translation-page reads too (`map-read`), as MQSim's read commands do;
    `programmed_pages` already counts translation programs."""
    mp = report.get("mapping")
    if not mp:
        return m
    tx = {t["reason"]: t for t in report.get("transactions", [])}
    m = dict(m)
    m["page reads"] = (m.get("page reads") or 0) + tx.get("map-read", {}).get("pages", 0)
    m["CMT lookups"] = mp["lookups"]
    m["CMT hits"] = mp["hits"]
    m["CMT hit ratio (%)"] = 100.0 * mp["hits"] / mp["lookups"] if mp["lookups"] else 0.0
    m["translation reads"] = mp["miss_reads"] + mp["writeback_reads"]
    m["translation writes"] = mp["translation_writes"]
    for k, f in (("read hit mean (µs)", "read_hit"), ("read miss mean (µs)", "read_miss")):
        if mp.get(f, {}).get("count"):
            m[k] = mp[f]["mean_ns"] / 1000.0
    return m


def mqsim_cmt_metrics(result: Path, m: dict) -> dict:
    """MQSim's CMT counters (attributes of `SSDDevice.FTL`), when its table is not ideal.
    Hits over `Total_CMT_Queries` (its `CMT_Misses` leaves out the misses that wait for a
    flash read, so it is not used); translation traffic is `Issued_Flash_Read_CMD_For_Mapping`
    and `Issued_Flash_Program_CMD_For_Mapping`, which count the transactions the mapping unit
    created (one read and one program per dirty eviction, one read per miss that reads)."""
    root = ET.parse(result).getroot()
    ftl = next(e for e in root.iter() if e.tag == "SSDDevice.FTL").attrib
    n = lambda k: int(float(ftl.get(k, 0)))  # noqa: E731
    reads, writes = n("Issued_Flash_Read_CMD_For_Mapping"), n("Issued_Flash_Program_CMD_For_Mapping")
    hits, queries = n("CMT_Hits"), n("Total_CMT_Queries")
    if reads == 0 and writes == 0 and hits == queries:
        return m  # an ideal table: every query hits, no translation traffic
    m = dict(m)
    m["CMT lookups"] = queries
    m["CMT hits"] = hits
    m["CMT hit ratio (%)"] = 100.0 * hits / queries if queries else 0.0
    m["translation reads"] = reads
    m["translation writes"] = writes
    return m


ROWS = ["page reads", "page programs", "erases", "GC page moves"] + CMT_ROWS + [
    f"{c} {k} (µs)" for c in ("all", "read", "write") for k in ("mean", "p50", "p99", "max")
]


def table(name: str, cols: dict[str, dict], notes: list[str],
          pairs: list[tuple[str, str]] | None = None) -> str:
    """One markdown table: every column, then the differences of `pairs` (ours, anchor);
    by default the first column against each other one."""
    heads = list(cols)
    pairs = pairs or [(heads[0], h) for h in heads[1:]]
    out = [f"### {name}", "", "| metric | " + " | ".join(heads) + "".join(
        f" | {a} vs {b}" for a, b in pairs) + " |",
        "|---|" + "---:|" * (len(heads) + len(pairs))]
    fmt = lambda v: "—" if v is None else (f"{v:,.1f}" if isinstance(v, float) else f"{v:,}")  # noqa: E731
    for r in ROWS:
        vals = [cols[h].get(r) for h in heads]
        if all(v is None for v in vals):
            continue
        out.append(f"| {r} | " + " | ".join(fmt(v) for v in vals)
                   + "".join(f" | {pct(cols[a].get(r), cols[b].get(r))}" for a, b in pairs) + " |")
    out += [""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(out)


def find_binary(flag: str | None, env: str) -> str | None:
    cand = flag or os.environ.get(env)
    if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
        return str(Path(cand).resolve())
    return None


def main(argv: list[str] | None = None, results: list | None = None) -> int:
    """Runs one case; with `results`, also appends `(name, columns)` to it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", required=True, help="the case's name (table heading)")
    ap.add_argument("--config", required=True, type=Path, help="ssdlab TOML configuration")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE over the configuration")
    ap.add_argument("--trace", required=True, type=Path, help="MQSim ASCII trace (.gz or plain)")
    ap.add_argument("--requests", type=int, default=None, help="replay only the first N requests")
    ap.add_argument("--ssdlab", default=None, help="ssdlab binary (default target/release or target/debug)")
    ap.add_argument("--mqsim", default=None, help="MQSim binary (or $MQSIM)")
    ap.add_argument("--ssdsim", default=None, help="SSDsim binary (or $SSDSIM)")
    ap.add_argument("--mqsim-base", type=Path, default=None, help="MQSim device file to export over")
    ap.add_argument("--ssdsim-base", type=Path, default=None, help="SSDsim page.parameters to export over")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "ssdlab-crossval",
                    help="where the converted files and the anchors' outputs go (default: the system's temporary directory)")
    ap.add_argument("--no-mqsim-link", action="store_true",
                    help="do not give ssdlab the PCIe link of the --mqsim-base file")
    ap.add_argument("--out", type=Path, default=None, help="append the markdown table here (else stdout)")
    a = ap.parse_args(argv)

    mqsim, ssdsim = find_binary(a.mqsim, "MQSIM"), find_binary(a.ssdsim, "SSDSIM")
    if mqsim is None and ssdsim is None:
        print("crossval: no anchor binaries (--mqsim/$MQSIM, --ssdsim/$SSDSIM); skipped")
        return 0
    ssdlab = a.ssdlab or next((str(p) for p in (ROOT / "target/release/ssdlab", ROOT / "target/debug/ssdlab")
                               if p.is_file()), "ssdlab")
    base_args = ["--config", str(a.config.resolve())] + [x for s in a.set for x in ("--set", s)]
    link = mqsim_link(ssdlab, a.mqsim_base) if mqsim and a.mqsim_base and not a.no_mqsim_link else []
    # The link goes before the case's own --sets, so that a case can still change it.
    cfg_args = base_args[:2] + [x for s in link for x in ("--set", s)] + base_args[2:]
    geometry = tomllib.loads(a.config.read_text())["geometry"]
    work = a.workdir / re.sub(r"[^A-Za-z0-9_.-]+", "_", a.name)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)

    lines = read_trace(a.trace, a.requests)
    trace = work / "trace.mqsim"
    trace.write_text("\n".join(lines) + "\n")
    notes = [f"{len(lines):,} requests of `{a.trace.name}`; ssdlab `{' '.join(base_args[2:]) or 'as configured'}`"]
    if link:
        notes.append(link_note(link))
    cols: dict[str, dict] = {}
    pairs: list[tuple[str, str]] = []

    def run_ssdlab(args: list[str], tag: str) -> dict:
        rep = work / f"ssdlab{tag}.json"
        subprocess.run([ssdlab, "run", *args, "--trace", str(trace), "--format", "mqsim", "--json", str(rep)],
                       check=True, stdout=subprocess.DEVNULL)
        report = json.loads(rep.read_text())
        return ssdlab_cmt_metrics(report, ssdlab_metrics(report))

    cols["ssdlab"] = run_ssdlab(cfg_args, "")

    if mqsim:
        dev = work / "ssdconfig.xml"
        refused = export(ssdlab, cfg_args, "mqsim", a.mqsim_base, dev)
        wl = work / "wl.xml"
        wl.write_text(mqsim_workload(trace, geometry))
        subprocess.run([mqsim, "-i", str(dev), "-w", str(wl)], check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, cwd=work)
        cols["MQSim"] = mqsim_cmt_metrics(work / "wl_scenario_1.xml", mqsim_metrics(work / "wl_scenario_1.xml"))
        pairs.append(("ssdlab", "MQSim"))
        notes += [f"MQSim cannot express {r}" for r in refused]
    if ssdsim:
        ours = "ssdlab"
        if link:
            ours = "ssdlab, no link"
            cols[ours] = run_ssdlab(base_args, "-nolink")
        run = work / "ssdsim"
        run.mkdir()
        refused = export(ssdlab, base_args, "ssdsim", a.ssdsim_base, run / "page.parameters")
        (run / "t.trace").write_text(to_ssdsim(lines))
        subprocess.run([ssdsim], input="t.trace\n", text=True, cwd=run, stdout=subprocess.DEVNULL)
        try:
            cols["SSDsim"] = ssdsim_metrics(run, read_pages(lines, geometry["page_size_bytes"] // 512))
            pairs.append((ours, "SSDsim"))
            notes.append("SSDsim drops the trace's last line; its programs exclude the untimed pre-fill of read pages")
        except (AttributeError, OSError):
            cols.pop("ssdlab, no link", None)
            notes.append("SSDsim wrote no complete statistics (a read-only or write-only trace stops it there:"
                         " its summary divides by both request counts; otherwise see its run directory)")
        notes += [f"SSDsim cannot express {r}" for r in refused]
    if results is not None:
        results.append((a.name, cols))
    text = table(a.name, cols, notes, pairs)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
