#!/usr/bin/env python3
"""The bench's synthetic trace: one request per line, `time_ns device sector sectors op`
(the ASCII form MQSim, SSDsim and ssdlab's `--format mqsim` all read; op 1 = read).

The workload, as the cross-simulator comparison defines it (docs/PERFORMANCE.md):
- Poisson arrivals, exponential gaps of mean 50 us (20 000 requests/s offered);
- size a uniform whole number of 4 KiB pages, 1 to 16 (4 to 64 KiB);
- start 4 KiB-aligned, uniform over [0, 28 000 000) sectors less the largest request
  (28 521 267 sectors are user-visible on the 16 GiB geometry at 15 % over-provisioning);
- each request a read with probability 0.5;
- Python's `random.Random(seed)`, seed 42, drawn in that order per request, so the file
  is the same bytes on every machine with CPython 3.

No newline after the last line (SSDsim would read an empty line as a request).
"""
import argparse
import random

PAGE_SECTORS = 8  # 4 KiB in 512-byte sectors


def lines(n, gap_us, read_frac, pages_min, pages_max, max_sector, seed):
    """Yields the trace's lines in order."""
    rng = random.Random(seed)
    rate_per_ns = 1.0 / (gap_us * 1000.0)
    slots = (max_sector - pages_max * PAGE_SECTORS) // PAGE_SECTORS
    now_ns = 0.0
    for _ in range(n):
        now_ns += rng.expovariate(rate_per_ns)
        sectors = rng.randint(pages_min, pages_max) * PAGE_SECTORS
        start = rng.randrange(slots) * PAGE_SECTORS
        op = 1 if rng.random() < read_frac else 0
        yield f"{int(now_ns)} 0 {start} {sectors} {op}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the trace file to write")
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--gap-us", type=float, default=50.0, help="mean inter-arrival gap")
    ap.add_argument("--read-frac", type=float, default=0.5)
    ap.add_argument("--pages-min", type=int, default=1)
    ap.add_argument("--pages-max", type=int, default=16)
    ap.add_argument("--max-sector", type=int, default=28_000_000)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    with open(a.out, "w") as f:
        f.write("\n".join(lines(a.requests, a.gap_us, a.read_frac, a.pages_min,
                                a.pages_max, a.max_sector, a.seed)))


if __name__ == "__main__":
    main()
