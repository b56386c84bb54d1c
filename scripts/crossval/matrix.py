#!/usr/bin/env python3
"""The cross-validation matrix of docs/VALIDATION.md: every case through crossval.py.

Generates the traces (the bench's gen_synth_trace.py, a 128 KiB sequential generator
here, the MQSim samples under traces/mqsim), runs each case against MQSim (and SSDsim
where its model allows the case: traces with both reads and writes, no GC), appends
every case's table to --out and ends with a summary table (means, p99 where the anchor
gives one, ratios, whether GC ran).

    python3 scripts/crossval/matrix.py --bench $BENCH --anchors $BENCH_ANCHORS \\
        --mqsim $ANCHORS/mqsim/MQSim --ssdsim $ANCHORS/ssdsim-O2/ssd --out matrix.md

`--only REGEX` runs the cases whose name matches; `--list` prints them.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import crossval  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# Traces: name -> gen_synth_trace.py arguments, or a callable writing the file.
SYNTH = {
    "mixed-20k": ["--n", "20000"],
    "rand4k-read-20k": ["--n", "20000", "--read-frac", "1", "--min-kb", "4", "--max-kb", "4"],
    "rand4k-write-20k": ["--n", "20000", "--read-frac", "0", "--min-kb", "4", "--max-kb", "4"],
    "rand4k-mixed-20k": ["--n", "20000", "--min-kb", "4", "--max-kb", "4"],
    "synth-1M": [],
    # 64 KiB random writes at 4 000 IOPS: 5.1 M pages, more than the 16 GiB device's
    # 4.19 M physical pages, so GC runs in the second part of the trace.
    # 4 KiB random reads offered at 1 M IOPS: more than 32 stay outstanding.
    "rand4k-read-20k-1us": ["--n", "20000", "--read-frac", "1", "--min-kb", "4", "--max-kb", "4",
                            "--mean-interarrival-us", "1"],
    "rand64k-write-320k": ["--n", "320000", "--read-frac", "0", "--min-kb", "64", "--max-kb", "64",
                           "--mean-interarrival-us", "250"],
}


def seq128k(path: Path, kind: str, n: int = 5000) -> None:
    """128 KiB sequential extents, one request every 200 µs: `mixed` alternates a write
    and a read of consecutive extents (i even: write), `read` / `write` only that."""
    code = {"mixed": lambda i: i % 2, "read": lambda i: 1, "write": lambda i: 0}[kind]
    path.write_text("\n".join(f"{200_000 * (i + 1)} 0 {256 * i} 256 {code(i)}" for i in range(n)))


SEQ = {"seq128k-mixed-5k": "mixed", "seq128k-read-5k": "read", "seq128k-write-5k": "write"}
SAMPLES = {"tpcc-small": "traces/mqsim/tpcc-small.mqsim.gz", "wsrch-small": "traces/mqsim/wsrch-small.mqsim.gz"}

G64, G16 = "64GiB", "16GiB"
BOTH = True  # SSDsim runs too

# (name, geometry, trace, --sets, SSDsim?)
CASES: list[tuple[str, str, str, list[str], bool]] = [
    ("M01 64 GiB, synthetic mixed 4-64 KiB, QD 512", G64, "mixed-20k", [], BOTH),
    ("M02 64 GiB, synthetic mixed, QD 1", G64, "mixed-20k", ["host.device_queue_depth=1"], BOTH),
    ("M03 64 GiB, synthetic mixed, QD 32", G64, "mixed-20k", ["host.device_queue_depth=32"], BOTH),
    ("M04 64 GiB, synthetic mixed, QD 1024", G64, "mixed-20k", ["host.device_queue_depth=1024"], BOTH),
    ("M05 64 GiB, synthetic mixed, multi-plane on", G64, "mixed-20k", ["scheduler.multi_plane=true"], BOTH),
    ("M06 64 GiB, 4 KiB random read, QD 512", G64, "rand4k-read-20k", [], False),
    ("M07 64 GiB, 4 KiB random read, QD 32", G64, "rand4k-read-20k", ["host.device_queue_depth=32"], False),
    ("M08 64 GiB, 4 KiB random read, QD 1", G64, "rand4k-read-20k", ["host.device_queue_depth=1"], False),
    ("M09 64 GiB, 4 KiB random write, QD 512", G64, "rand4k-write-20k", [], False),
    ("M10 64 GiB, 4 KiB random write, QD 32", G64, "rand4k-write-20k", ["host.device_queue_depth=32"], False),
    ("M11 64 GiB, 4 KiB random write, QD 1", G64, "rand4k-write-20k", ["host.device_queue_depth=1"], False),
    ("M12 64 GiB, 4 KiB random mixed, QD 512", G64, "rand4k-mixed-20k", [], BOTH),
    ("M13 64 GiB, 4 KiB random mixed, multi-plane on", G64, "rand4k-mixed-20k",
     ["scheduler.multi_plane=true"], BOTH),
    ("M14 64 GiB, 128 KiB sequential mixed, QD 512", G64, "seq128k-mixed-5k", [], BOTH),
    ("M15 64 GiB, 128 KiB sequential read, QD 512", G64, "seq128k-read-5k", [], False),
    ("M16 64 GiB, 128 KiB sequential write, QD 512", G64, "seq128k-write-5k", [], False),
    ("M17 64 GiB, 128 KiB sequential mixed, QD 32", G64, "seq128k-mixed-5k", ["host.device_queue_depth=32"], BOTH),
    ("M18 64 GiB, 128 KiB sequential write, multi-plane on", G64, "seq128k-write-5k",
     ["scheduler.multi_plane=true"], False),
    ("M19 64 GiB, MQSim TPC-C sample, QD 512", G64, "tpcc-small", [], BOTH),
    ("M20 64 GiB, MQSim WebSearch sample, QD 512", G64, "wsrch-small", [], BOTH),
    ("M21 16 GiB GC, synthetic 1 M mixed, QD 512", G16, "synth-1M", [], False),
    ("M22 16 GiB GC, 64 KiB random write, QD 512", G16, "rand64k-write-320k", [], False),
    ("M23 16 GiB GC, 64 KiB random write, QD 32", G16, "rand64k-write-320k", ["host.device_queue_depth=32"], False),
    ("M24 16 GiB GC, 64 KiB random write, multi-plane on", G16, "rand64k-write-320k",
     ["scheduler.multi_plane=true"], False),
    ("M25 16 GiB GC, 64 KiB random write, GC threshold 0.10", G16, "rand64k-write-320k",
     ["ftl.gc.threshold_free_ratio=0.1", "ftl.gc.background_free_ratio=0.1"], False),
    ("M26 16 GiB GC, 64 KiB random write, copyback", G16, "rand64k-write-320k", ["ftl.gc.copyback=true"], False),
    ("M27 16 GiB GC, 64 KiB random write, random victim", G16, "rand64k-write-320k", ["ftl.gc.victim=random"],
     False),
    ("M28 64 GiB, 4 KiB random read at 1 M IOPS, QD 512", G64, "rand4k-read-20k-1us", [], False),
    ("M29 64 GiB, 4 KiB random read at 1 M IOPS, QD 32", G64, "rand4k-read-20k-1us",
     ["host.device_queue_depth=32"], False),
    # Experiments (docs/VALIDATION.md, "GC active: the order of GC and host work"): ssdlab
    # with MQSim's TSU order under non-preemptible GC (GC work first on its chip, its
    # other planes filled by GC work, then host work).
    ("M30 experiment: M21 with GC first + multi-plane", G16, "synth-1M",
     ["scheduler.gc_first=true", "scheduler.multi_plane=true"], False),
    ("M31 experiment: M22 with GC first + multi-plane", G16, "rand64k-write-320k",
     ["scheduler.gc_first=true", "scheduler.multi_plane=true"], False),
    ("M32 experiment: M23 with GC first + multi-plane", G16, "rand64k-write-320k",
     ["host.device_queue_depth=32", "scheduler.gc_first=true", "scheduler.multi_plane=true"], False),
    ("M33 experiment: M25 with GC first + multi-plane", G16, "rand64k-write-320k",
     ["ftl.gc.threshold_free_ratio=0.1", "ftl.gc.background_free_ratio=0.1", "scheduler.gc_first=true",
      "scheduler.multi_plane=true"], False),
]

FILES = {
    G64: ("geometry-8x8-64GiB.toml", "ssdconfig_8x8_64GiB.xml", "ssdsim-page.parameters_64GiB"),
    G16: ("geometry-8x8-16GiB-gc.toml", "ssdconfig_8x8_16GiB.xml", "ssdsim-page.parameters_16GiB"),
}


def trace(name: str, bench: Path, work: Path) -> Path:
    """The trace `name`, generated into `work` the first time."""
    if name in SAMPLES:
        return ROOT / SAMPLES[name]
    path = work / f"{name}.mqsim"
    if not path.exists():
        if name in SEQ:
            seq128k(path, SEQ[name])
        else:
            subprocess.run([sys.executable, str(bench / "gen_synth_trace.py"), *SYNTH[name], "--out", str(path)],
                           check=True)
    return path


def summary(rows: list[tuple[str, dict, float]]) -> str:
    """One line per case: means (and p99 against SSDsim), ratios ssdlab/anchor, GC."""
    f = lambda v: "—" if v is None else f"{v:,.1f}"  # noqa: E731
    r = lambda a, b: "—" if a is None or not b else f"{a / b:.3f}"  # noqa: E731
    out = ["| case | ssdlab mean (µs) | MQSim mean (µs) | ssdlab/MQSim | ssdlab max / MQSim max | "
           "ssdlab (no link) mean | SSDsim mean (µs) | ssdlab/SSDsim | p99 ssdlab/SSDsim | GC ran "
           "(erases ssdlab / MQSim) | wall s |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for name, cols, wall in rows:
        s, m, d = cols.get("ssdlab", {}), cols.get("MQSim", {}), cols.get("SSDsim")
        n = cols.get("ssdlab, no link", s)
        mean = "all mean (µs)"
        gc = f"{s.get('erases', 0):,} / {m.get('erases', 0):,}"
        gc = ("yes " if (s.get("erases") or m.get("erases")) else "no ") + f"({gc})"
        out.append(f"| {name} | {f(s.get(mean))} | {f(m.get(mean))} | {r(s.get(mean), m.get(mean))} | "
                   f"{r(s.get('all max (µs)'), m.get('all max (µs)'))} | "
                   + (f"{f(n.get(mean))} | {f(d.get(mean))} | {r(n.get(mean), d.get(mean))} | "
                      f"{r(n.get('all p99 (µs)'), d.get('all p99 (µs)'))}" if d else "— | — | — | —")
                   + f" | {gc} | {wall:.0f} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path, help="the bench directory (gen_synth_trace.py, geometry-8x8-*.toml)")
    ap.add_argument("--anchors", type=Path, help="the anchors' directory (ssdconfig_8x8_*.xml, ssdsim-page.parameters_*)")
    ap.add_argument("--mqsim", help="MQSim binary")
    ap.add_argument("--ssdsim", default=None, help="SSDsim binary (optional)")
    ap.add_argument("--ssdlab", default=None, help="ssdlab binary (default target/release, else target/debug)")
    ap.add_argument("--work", type=Path, default=Path("target/crossval-matrix"), help="traces and runs")
    ap.add_argument("--out", type=Path, default=None, help="append every case's table and the summary here")
    ap.add_argument("--only", default=None, help="run the cases whose name matches this regular expression")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    a = ap.parse_args(argv)
    cases = [c for c in CASES if a.only is None or re.search(a.only, c[0])]
    if a.list:
        for name, geo, tr, sets, ss in cases:
            print(f"{name}: {geo}, {tr}, {' '.join(sets) or '-'}{', SSDsim' if ss else ''}")
        return 0
    if not (a.bench and a.anchors and a.mqsim):
        ap.error("--bench, --anchors and --mqsim are needed to run the matrix")
    a.work.mkdir(parents=True, exist_ok=True)
    ssdlab = a.ssdlab or next((str(p) for p in (ROOT / "target/release/ssdlab", ROOT / "target/debug/ssdlab")
                               if p.is_file()), "ssdlab")
    rows: list[tuple[str, dict, float]] = []
    failed: list[str] = []
    for name, geo, tr, sets, ss in cases:
        cfg, xml, params = FILES[geo]
        argv = ["--name", name, "--config", str(a.bench / cfg), "--trace", str(trace(tr, a.bench, a.work)),
                "--ssdlab", ssdlab, "--mqsim", a.mqsim, "--mqsim-base", str(a.anchors / xml),
                "--workdir", str(a.work / "runs")] + [x for s in sets for x in ("--set", s)]
        if ss and a.ssdsim:
            argv += ["--ssdsim", a.ssdsim, "--ssdsim-base", str(a.anchors / params)]
        else:
            argv += ["--ssdsim", "/nonexistent"]
        if a.out:
            argv += ["--out", str(a.out)]
        t0 = time.monotonic()
        results: list = []
        try:
            crossval.main(argv, results)
        except subprocess.CalledProcessError as e:
            # One simulator failing one case (MQSim crashes on some GC settings) must not
            # cost the rest of the matrix: the case is listed as failed in the summary.
            why = f"{Path(e.cmd[0]).name} exited with {e.returncode}"
            failed.append(f"{name}: {why}")
            print(f"== {name}: FAILED ({why})", file=sys.stderr, flush=True)
            continue
        rows.append((name, results[0][1], time.monotonic() - t0))
        print(f"== {name}: {rows[-1][2]:.0f} s", file=sys.stderr, flush=True)
    text = summary(rows) + "".join(f"\n- failed: {f}" for f in failed)
    if a.out:
        with open(a.out, "a") as f:
            f.write("### Summary\n\n" + text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
