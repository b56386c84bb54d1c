#!/usr/bin/env python3
"""How many requests SSDsim had in service at once, from its per-request log `ex.out`.

SSDsim's `queue_length` caps its request queue (`get_requests()` in ssd.c rewinds the
trace while the queue is full). This reads `ex.out` (arrival, lsn, size, op, begin,
end, end − arrival; ns) and reports, in simulated time, the most requests whose
[arrival, end) intervals overlap, the most whose [begin, end) overlap, the last
completion against the last arrival, and the sum of the requests' times in the device.
With a queue of 1, requests served one at a time cannot overlap and cannot end before
the sum of their service times; docs/VALIDATION.md uses it for SSDsim's queue depth.

    python3 scripts/crossval/ssdsim_inflight.py RUN_DIR [RUN_DIR ...]
"""
from __future__ import annotations

import sys
from pathlib import Path


def requests(exout: Path) -> list[tuple[int, int, int, int]]:
    """(arrival, op, begin, end) of every request logged in `ex.out`."""
    out = []
    for line in exout.read_text(errors="replace").splitlines():
        c = line.split()
        if len(c) == 7 and all(x.lstrip("-").isdigit() for x in c):
            out.append((int(c[0]), int(c[3]), int(c[4]), int(c[0]) + int(c[6])))
    return out


def most_at_once(intervals: list[tuple[int, int]]) -> int:
    """The most half-open intervals [a, b) covering one instant."""
    ev = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals], key=lambda e: (e[0], e[1]))
    cur = best = 0
    for _, d in ev:
        cur += d
        best = max(best, cur)
    return best


def inflight(reqs: list[tuple[int, int, int, int]]) -> dict:
    return {
        "requests": len(reqs),
        "most overlapping [arrival, end)": most_at_once([(a, e) for a, _, _, e in reqs]),
        "most overlapping [begin, end)": most_at_once([(b, e) for _, _, b, e in reqs]),
        "begin = arrival": sum(1 for a, _, b, _ in reqs if a == b),
        "last arrival (ms)": max(a for a, _, _, _ in reqs) / 1e6,
        "last completion (ms)": max(e for _, _, _, e in reqs) / 1e6,
        "sum of end − begin (ms)": sum(e - b for _, _, b, e in reqs) / 1e6,
        "mean end − arrival (µs)": sum(e - a for a, _, _, e in reqs) / len(reqs) / 1e3,
    }


def main(argv: list[str]) -> int:
    for d in argv:
        print(d)
        for k, v in inflight(requests(Path(d) / "ex.out")).items():
            print(f"  {k}: {v:,.1f}" if isinstance(v, float) else f"  {k}: {v:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
