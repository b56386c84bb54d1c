#!/usr/bin/env python3
"""Writes fs-discard.blkparse: the dispatches of a file system mounted with online
discard (ext4 `-o discard`), in blkparse's default text output, from a fixed seed.

The pattern is that of a real capture of such a file system (blktrace on /dev/sdX,
blkparse -i -): files are created and written in extents of up to 512 KiB (`WS`), the
journal commits with a preflush + FUA write (`FWFS`) into a circular journal area at
the start of the device, a file's blocks are discarded (`DS`, the `D` event of the
kernel's REQ_OP_DISCARD) when it is deleted, and files are read back (`RA`). New
files are placed first-fit from a random goal, deleted files are picked at random. Each
request is dispatched (`D`) and completed (`C`); some are also shown queued (`Q`), which
readers pass over. Deletions keep the file system between 55 % and 75 % full, so that
over the run it writes about four times its size: without the discards the device
sees every block ever written as live, with them it knows which are free.

    python3 examples/trim/make_fs_discard.py | gzip -9n > examples/trim/fs-discard.blkparse.gz
"""

import random

SEED = 35
FS_BLOCKS = 96 * 256          # 96 MiB of 4 KiB blocks (fits the tests' 128 MiB device)
JOURNAL_BLOCKS = 1024         # 4 MiB journal at the start
DATA_FIRST = JOURNAL_BLOCKS
HIGH, LOW = 0.75, 0.55        # deletions start above HIGH and stop below LOW
WRITTEN_TARGET = 4 * FS_BLOCKS
MAX_REQ_BLOCKS = 128          # 512 KiB requests
SECTORS_PER_BLOCK = 8


def main():
    rng = random.Random(SEED)
    free = [(DATA_FIRST, FS_BLOCKS - DATA_FIRST)]  # sorted (start, length) extents
    files = []  # list of extents lists
    used = 0
    written = 0
    t = 0.0
    seq = [0]
    journal_head = 0
    out = []

    def event(action, rwbs, sector=None, sectors=None, proc="kworker/u8:2", pid=219):
        seq[0] += 1
        data = f"{sector} + {sectors} [{proc}]" if sector is not None else f"[{proc}]"
        out.append(f"  8,0    1 {seq[0]:>8} {t:14.9f} {pid:>5}  {action} {rwbs:>3} {data}")

    def request(rwbs, block, blocks, proc, pid, queued):
        nonlocal t
        sector, sectors = block * SECTORS_PER_BLOCK, blocks * SECTORS_PER_BLOCK
        if queued:
            event("Q", rwbs, sector, sectors, proc, pid)
            t += 0.000002
        event("D", rwbs, sector, sectors, proc, pid)
        t += 0.00002 + blocks * 0.000004
        event("C", rwbs, sector, sectors, "0", 0)

    def allocate(n):
        """First fit from a goal: the first free extent at or after a random block
        (ext4 spreads new files' goals over its block groups), wrapping around."""
        got = []
        goal = rng.randrange(DATA_FIRST, FS_BLOCKS)
        i = next((k for k, (s, l) in enumerate(free) if s + l > goal), 0)
        if free and free[i][0] < goal < free[i][0] + free[i][1]:
            s, l = free[i]
            free[i:i + 1] = [(s, goal - s), (goal, s + l - goal)]
            i += 1
        while n > 0 and free:
            i %= len(free)
            start, length = free[i]
            take = min(n, length)
            got.append((start, take))
            n -= take
            if take == length:
                free.pop(i)
            else:
                free[i] = (start + take, length - take)
                i += 1
        release([])
        return got

    def release(extents):
        for e in extents:
            free.append(e)
        free.sort()
        merged = []
        for s, l in free:
            if merged and merged[-1][0] + merged[-1][1] == s:
                merged[-1] = (merged[-1][0], merged[-1][1] + l)
            else:
                merged.append((s, l))
        free[:] = merged

    data_blocks = FS_BLOCKS - DATA_FIRST
    while written < WRITTEN_TARGET:
        t += rng.expovariate(100.0)
        r = rng.random()
        if r < 0.15 and files:
            # Read back part of a live file.
            f = rng.choice(files)
            s, l = rng.choice(f)
            n = min(l, rng.choice([1, 2, 4, 8, 16, 32]))
            request("RA", s, n, "dovecot", 1873, rng.random() < 0.3)
            continue
        # Create a file: log-uniform 16 KiB .. 2 MiB.
        size = max(4, int(2 ** rng.uniform(2, 9)))
        extents = allocate(size)
        files.append(extents)
        used += size
        for s, l in extents:
            off = 0
            while off < l:
                n = min(MAX_REQ_BLOCKS, l - off)
                request("WS", s + off, n, "kworker/u8:2", 219, rng.random() < 0.3)
                off += n
                written += n
        # The journal commit: a preflush, then a FUA write of the commit block(s).
        jb = rng.choice([1, 2, 4])
        if journal_head + jb > JOURNAL_BLOCKS:
            journal_head = 0
        request("FWFS", journal_head, jb, "jbd2/sda1-8", 361, False)
        journal_head += jb
        written += jb
        if used > HIGH * data_blocks:
            # Delete files at random down to LOW; ext4 discards each freed extent at
            # the commit that frees it.
            while used > LOW * data_blocks:
                i = rng.randrange(len(files))
                f = files.pop(i)
                for s, l in f:
                    off = 0
                    while off < l:
                        n = min(2048, l - off)  # discards are split at 8 MiB
                        request("DS", s + off, n, "jbd2/sda1-8", 361, rng.random() < 0.3)
                        off += n
                used -= sum(l for _, l in f)
                release(f)
            request("FWFS", journal_head, 1, "jbd2/sda1-8", 361, False)
            journal_head += 1
    print("\n".join(out))


if __name__ == "__main__":
    main()
