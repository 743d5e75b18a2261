#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Prints offsets worth truncating a trace.dat v6 at: every section boundary
(and one byte either side) found by walking the layout, every STEP-th byte
of the header, every page of the CPU data and the last bytes of the file.

hs-datcuts.py FILE [STEP [LIMIT]]  (LIMIT: keep about that many, evenly spread)
"""
import struct
import sys


def walk(d):
    e = ">" if d[12] == 1 else "<"
    b = []
    p = 10
    p = d.index(b"\0", p) + 1
    b.append(p)
    p += 2 + 4
    b.append(p)

    def u(fmt):
        nonlocal p
        v = struct.unpack_from(e + fmt, d, p)[0]
        p += struct.calcsize(fmt)
        b.append(p)
        return v

    for tag in (b"header_page\0", b"header_event\0"):
        p += len(tag)
        b.append(p)
        n = u("Q")
        p += n
        b.append(p)
    for _ in range(u("I")):
        n = u("Q")
        p += n
        b.append(p)
    for _ in range(u("I")):
        p = d.index(b"\0", p) + 1
        b.append(p)
        for _ in range(u("I")):
            n = u("Q")
            p += n
            b.append(p)
    for f in ("I", "I", "Q"):
        n = u(f)
        p += n
        b.append(p)
    ncpu = u("I")
    if d[p:p + 10] == b"options  \0":
        p += 10
        b.append(p)
        while True:
            oid = u("H")
            if oid == 0:
                break
            n = u("I")
            p += n
            b.append(p)
    p += 10
    b.append(p)
    offs = []
    for _ in range(ncpu):
        off, size = u("Q"), u("Q")
        b += [off, off + size]
        if size:
            offs.append(off)
    return b, (min(offs) if offs else p)


def main():
    d = open(sys.argv[1], "rb").read()
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    cuts = set()
    bounds, data = walk(d)
    for x in bounds:
        cuts |= {x - 1, x, x + 1}
    cuts |= set(range(0, min(data, len(d)), step))
    cuts |= set(range(data, len(d), 4096))
    cuts |= set(range(max(0, len(d) - 40), len(d)))
    cuts = sorted(x for x in cuts if 0 <= x < len(d))
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    if limit and len(cuts) > limit:
        cuts = cuts[::(len(cuts) + limit - 1) // limit]
    for c in cuts:
        print(c)


if __name__ == "__main__":
    main()
