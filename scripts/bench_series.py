#!/usr/bin/env python3
"""One benchmark series: builds side by side, runs alternating, medians and ranges.

Each run is one whole `ssdlab bench` process. Its wall time and peak memory are measured
from outside (os.wait4), the same way for every build, so a build that predates
`bench --jsonl` can be a baseline. Builds that know `--jsonl` add their own split of set-up
and simulation. The flash work (page reads, programs, GC moves, erases) is read from each
run's `--json` report: builds are compared only when it agrees within 0.1 %.

    scripts/bench_series.py --build new=target/release/ssdlab \
        --build base=../base/target/release/ssdlab --runs 5 --out series.jsonl CASE...

Cases are named in CASES below; the default is all of them.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

TRACES = "traces"
FIN = f"{TRACES}/spc-derived/financial1-50k.disksim.gz"
SYNTH = "target/bench-1m.trace"
# The brr preset on the 8 x 8 shared-bus layout its earlier builds had, so that builds from
# before and after the preset moved to private links simulate the same device. The same
# commit (5322332) made the FIFOs delay writes behind queued reads (write_behind_read,
# which the preset sets) and GC lazy (ftl.gc.trigger): both are pinned to what earlier
# builds did, so that every build runs the same scheduler and the same GC.
BRR = ["--preset", "brr", "--scheduler", "async-fifo", "--trace", FIN, "--repeat", "20",
       "--set", "geometry.channels=8", "--set", "geometry.chips_per_channel=8",
       "--set", "scheduler.write_behind_read=false", "--set", "ftl.gc.trigger=eager"]
PROBE = f"{TRACES}/msr/hm_0-head200.csv.gz"  # 200 requests: asks a build what it knows
# Keys a baseline may predate, with the value that is its only behaviour: a build that
# refuses the key as unknown runs without it (and so with that behaviour).
PREDATED = {"ftl.gc.trigger": "eager"}
CASES = {
    # the synthetic million-request trace on the geometries other simulators were timed on
    "synth-64g": ["--config", "bench/geometry-8x8-64GiB.toml", "--trace", SYNTH],
    "synth-16g-gc": ["--config", "bench/geometry-8x8-16GiB-gc.toml", "--trace", SYNTH],
    # the same on 64 GiB behind a 256 MiB DRAM write buffer (the DRAM stage's cost)
    "synth-64g-dram": ["--config", "bench/geometry-8x8-64GiB.toml", "--trace", SYNTH,
                       "--set", 'cache.mode="write-buffer"', "--set", "cache.capacity_mib=256"],
    # Financial1 x 20 on the 256 GB brr device
    "brr-plain": BRR + ["--set", "raid.level=none"],
    "brr-aged": BRR + ["--set", "raid.level=none", "--set", "ftl.precondition.overwrite_ratio=0.5"],
    "brr-aged-sampled": BRR + ["--set", "raid.level=none", "--set", "ftl.precondition.overwrite_ratio=0.5",
                               "--set", "ftl.precondition.aging=sampled"],
    "brr-raid5": BRR,
    "brr-raid5-aged": BRR + ["--set", "ftl.precondition.overwrite_ratio=0.5"],
    "brr-raid5-aged-sampled": BRR + ["--set", "ftl.precondition.overwrite_ratio=0.5",
                                     "--set", "ftl.precondition.aging=sampled"],
    "brr-verify": BRR + ["--verify"],
    "brr-plain-verify": BRR + ["--set", "raid.level=none", "--verify"],
    "brr-aged-verify": BRR + ["--set", "raid.level=none", "--set", "ftl.precondition.overwrite_ratio=0.5",
                              "--verify"],
}


def flash_work(report):
    reads = sum(
        t["pages"]
        for t in report["transactions"]
        if t["reason"] in ("host-read", "reconstruct-read", "pre-read", "gc-read", "reclaim-read")
    )
    return {
        "page_reads": reads,
        "programs": report["programmed_pages"],
        "gc_moves": report["gc_pages_moved"],
        "erases": report["erases"],
    }


def supports_jsonl(binary):
    out = subprocess.run([binary, "bench", "--help"], capture_output=True, text=True).stdout
    return "--jsonl" in out


def known_keys(binary, args):
    """`args` without the `--set KEY=VALUE` pairs of PREDATED keys that `binary` does not
    know (each such VALUE being what that build always does)."""
    keep = list(args)
    for key, value in PREDATED.items():
        pair = f"{key}={value}"
        if pair not in keep:
            continue
        probe = subprocess.run([binary, "run", "--preset", "default", "--trace", PROBE,
                                "--set", pair], capture_output=True, text=True)
        if probe.returncode != 0 and "unknown field" in probe.stderr:
            i = keep.index(pair)
            del keep[i - 1:i + 1]
    return keep


def run_once(binary, args, jsonl):
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "report.json")
        line = os.path.join(d, "line.jsonl")
        cmd = [binary, "bench", *args, "--json", rep]
        if jsonl:
            cmd += ["--jsonl", line]
        # Output goes to files, not pipes: the child is reaped by wait4 (for its peak
        # memory), so nothing may wait on a pipe it fills, and its exit status is
        # wait4's.
        with open(os.path.join(d, "out"), "w+b") as fo, open(os.path.join(d, "err"), "w+b") as fe:
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            fo.seek(0)
            fe.seek(0)
            out, err = fo.read(), fe.read()
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {err.decode()}")
        with open(rep) as f:
            report = json.load(f)
        row = {
            "wall_s": wall,
            "peak_rss_bytes": ru.ru_maxrss * 1024,
            "requests": report["requests"]["all"],
            "flash_work": flash_work(report),
        }
        if jsonl:
            with open(line) as f:
                own = json.loads(f.readline())
            row["setup_s"] = own["setup_s"]
            row["simulation_s"] = own["simulation_s"]
            row["device_pages"] = own["device_pages"]
        else:
            for l in out.decode().splitlines():
                if l.startswith("setup (incl. precondition):"):
                    row["setup_s"] = float(l.split(":")[1].split()[0])
                if l.startswith("simulation wall time:"):
                    row["simulation_s"] = float(l.split(":")[1].split()[0])
        return row


def agree(a, b):
    return all(abs(a[k] - b[k]) <= 0.001 * max(a[k], b[k], 1) for k in a)


def fmt_range(xs, f="{:.2f}"):
    return f"{f.format(statistics.median(xs))} ({f.format(min(xs))}–{f.format(max(xs))})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", required=True, metavar="NAME=BINARY")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", help="append every run as a JSON line here")
    ap.add_argument("cases", nargs="*", default=list(CASES))
    a = ap.parse_args()
    builds = [tuple(b.split("=", 1)) for b in a.build]
    jsonl = {name: supports_jsonl(b) for name, b in builds}
    out = open(a.out, "a") if a.out else None
    table = []
    for case in a.cases:
        if case not in CASES:
            sys.exit(f"unknown case {case!r}; cases: {', '.join(CASES)}")
        rows = {name: [] for name, _ in builds}
        for r in range(a.runs):
            order = builds if r % 2 == 0 else builds[::-1]
            for name, binary in order:
                row = run_once(binary, known_keys(binary, CASES[case]), jsonl[name])
                row.update(case=case, build=name, run=r)
                rows[name].append(row)
                print(f"{case} {name} run {r}: {row['wall_s']:.3f} s, "
                      f"{row['peak_rss_bytes'] / 2**20:.0f} MiB", file=sys.stderr)
                if out:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
        first = rows[builds[0][0]]
        for name, _ in builds:
            rs = rows[name]
            same = agree(rs[0]["flash_work"], first[0]["flash_work"])
            walls = [x["wall_s"] for x in rs]
            req = rs[0]["requests"]
            table.append({
                "case": case,
                "build": name,
                "wall": fmt_range(walls),
                "req_s": f"{req / statistics.median(walls) / 1e3:.0f} k",
                "setup": fmt_range([x.get("setup_s", float("nan")) for x in rs], "{:.3f}"),
                "rss": f"{max(x['peak_rss_bytes'] for x in rs) / 2**20:.0f} MiB",
                "speedup": statistics.median([x["wall_s"] for x in first]) / statistics.median(walls),
                "work": "same" if same else f"DIFFERS {rs[0]['flash_work']}",
            })
    print("| case | build | whole-process wall s, median (min–max) | requests/s (whole process) "
          "| set-up s | peak memory | speed-up over the first build | flash work |")
    print("|---|---|---|---|---|---|---|---|")
    for t in table:
        print(f"| {t['case']} | {t['build']} | {t['wall']} | {t['req_s']} | {t['setup']} | "
              f"{t['rss']} | {t['speedup']:.2f}× | {t['work']} |")


if __name__ == "__main__":
    main()
