#!/usr/bin/env python3
"""Where an MQSim trace's requests land under MQSim's address folding and ssdlab's.

A trace may address beyond the device's logical space. MQSim folds the start sector of
such a request: `start % (end - start)` over the flow's sector range
(`IO_Flow_Trace_Based.cpp`), where the range is the sum, over planes, of each plane's
logical sectors truncated (`Logical_Address_Partitioning_Unit.cpp`), and `end` its last
sector; a request running past `end` wraps to the start. ssdlab folds page numbers:
`lpn % logical_pages` (`ftl.address_fold = "modulo"`), logical_pages =
floor(pages x (1 - over_provisioning)). The two moduli differ, so a folded request can
straddle page boundaries differently and touch other pages. This counts, per request,
the pages each reading touches, and the page reads and programs they add up to
(docs/VALIDATION.md, "M19: where the TPC-C sample's addresses fold").

    python3 scripts/crossval/fold.py TRACE --planes 128 --blocks 2048 --pages 64 \
        --sectors 8 --op 0.15
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path


def mqsim_range(planes: int, blocks: int, pages: int, sectors: int, op: float) -> int:
    """MQSim's logical sectors of one flow that has every plane."""
    return planes * int(blocks * pages * sectors * (1.0 - op))


def mqsim_sectors(lba: int, n: int, lsa_count: int, sectors: int) -> dict[int, int]:
    """The sectors MQSim's request of `n` sectors at `lba` touches, as a bitmap per page,
    pages in the order the request reaches them (a request past the last sector wraps to
    sector 0)."""
    start, end = 0, lsa_count - 1
    cur = lba + start if lba <= end - start else start + lba % (end - start)
    out: dict[int, int] = {}
    for _ in range(n):
        out[cur // sectors] = out.get(cur // sectors, 0) | 1 << (cur % sectors)
        cur = start if cur + 1 > end else cur + 1
    return out


def mqsim_pages(lba: int, n: int, lsa_count: int, sectors: int) -> list[int]:
    """The pages MQSim's request of `n` sectors at `lba` touches, in order."""
    return list(mqsim_sectors(lba, n, lsa_count, sectors))


def ssdlab_pages(lba: int, n: int, logical_pages: int, sectors: int) -> list[int]:
    """The pages ssdlab's request touches (page numbers folded modulo the logical pages)."""
    return [p % logical_pages for p in range(lba // sectors, (lba + n - 1) // sectors + 1)]


def count(lines, lsa_count: int, logical_pages: int, sectors: int) -> dict:
    """Page reads and programs under each folding, the requests they differ on, and
    MQSim's update reads: a write that leaves written sectors of its page uncovered reads
    them first (`allocate_page_in_plane_for_user_write`); a read of a page never written
    records the sectors it reads (as the anchors' fix for such reads does). Requests are
    taken in trace order."""
    t = {"requests": 0, "beyond": 0, "differ": 0, "mqsim_reads": 0, "mqsim_programs": 0,
         "mqsim_update_reads": 0, "ssdlab_reads": 0, "ssdlab_programs": 0}
    written: dict[int, int] = {}
    for line in lines:
        f = line.split()
        if len(f) < 5:
            continue
        lba, n, read = int(f[2]), int(f[3]), f[4] == "1"
        touched = mqsim_sectors(lba, n, lsa_count, sectors)
        for page, bits in touched.items():
            before = written.get(page)
            if read:
                written.setdefault(page, bits)
            else:
                t["mqsim_update_reads"] += before is not None and before & ~bits != 0
                written[page] = (before or 0) | bits
        a = list(touched)
        b = ssdlab_pages(lba, n, logical_pages, sectors)
        kind = "reads" if read else "programs"
        t["requests"] += 1
        t["beyond"] += lba > lsa_count - 1
        t["differ"] += sorted(a) != sorted(b)
        t["mqsim_" + kind] += len(a)
        t["ssdlab_" + kind] += len(b)
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", type=Path, help="MQSim ASCII trace (.gz or plain)")
    ap.add_argument("--planes", type=int, required=True, help="planes of the device")
    ap.add_argument("--blocks", type=int, required=True, help="blocks per plane")
    ap.add_argument("--pages", type=int, required=True, help="pages per block")
    ap.add_argument("--sectors", type=int, default=8, help="512-byte sectors per page")
    ap.add_argument("--op", type=float, required=True, help="over-provisioning ratio")
    a = ap.parse_args(argv)
    lsa = mqsim_range(a.planes, a.blocks, a.pages, a.sectors, a.op)
    logical = int(a.planes * a.blocks * a.pages * (1.0 - a.op))
    opener = gzip.open if a.trace.suffix == ".gz" else open
    with opener(a.trace, "rt") as f:
        t = count(f, lsa, logical, a.sectors)
    print(f"{a.trace}: {t['requests']} requests, {t['beyond']} beyond MQSim's {lsa} sectors, "
          f"{t['differ']} touch other pages")
    print(f"  MQSim's folding:  {t['mqsim_reads']} page reads and {t['mqsim_update_reads']} update reads "
          f"({t['mqsim_reads'] + t['mqsim_update_reads']}), {t['mqsim_programs']} page programs")
    print(f"  ssdlab's folding: {t['ssdlab_reads']} page reads, {t['ssdlab_programs']} page programs "
          f"({logical} logical pages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
