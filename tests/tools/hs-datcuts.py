#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Prints offsets worth truncating a trace.dat v6 or v7 at: every section
boundary (and one byte either side) found by walking the layout (v7: every
section, option and compressed chunk header), every STEP-th byte of the
header, every page of the CPU data and the last bytes of the file.

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


def walk7(d):
    e = ">" if d[12] == 1 else "<"
    b = [12, 18]
    p = d.index(b"\0", 18) + 1
    p = d.index(b"\0", p) + 1
    b += [p, p + 8]
    first = struct.unpack_from(e + "Q", d, p)[0]
    data = []

    def section(off):
        fl, size = struct.unpack_from(e + "H", d, off + 2)[0], struct.unpack_from(e + "Q", d, off + 8)[0]
        b.extend([off, off + 2, off + 8, off + 16, off + 16 + size] + ([off + 24] if fl & 1 else []))
        return fl, off + 16, size

    def cpu(off, size, chunked):
        b.extend([off, off + size + (4 if chunked else 0)])
        if not chunked or not size:
            return
        n = struct.unpack_from(e + "I", d, off)[0]
        q = off + 4
        for _ in range(n):
            c = struct.unpack_from(e + "I", d, q)[0]
            b.extend([q, q + 4, q + 8, q + 8 + c])
            q += 8 + c
        data.append(off)

    off = first
    while off:
        fl, p, size = section(off)
        end, off = p + size, 0
        while p < end:
            oid, n = struct.unpack_from(e + "HI", d, p)
            b.extend([p, p + 6, p + 6 + n])
            o = d[p + 6:p + 6 + n]
            p += 6 + n
            if oid == 0:
                off = struct.unpack_from(e + "Q", o)[0]
                break
            if 16 <= oid <= 22:
                section(struct.unpack_from(e + "Q", o)[0])
            if oid == 3:
                bfl = section(struct.unpack_from(e + "Q", o)[0])[0]
                r = o.index(b"\0", 8) + 1
                r = o.index(b"\0", r) + 1
                if (len(o) - r - 4) % 20:
                    r += 4
                ncpu = struct.unpack_from(e + "I", o, r)[0]
                for c in range(ncpu):
                    _, coff, csize = struct.unpack_from(e + "IQQ", o, r + 4 + 20 * c)
                    cpu(coff, csize, bfl & 1)
    return b, (min(data) if data else first)


def main():
    d = open(sys.argv[1], "rb").read()
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    cuts = set()
    bounds, data = walk7(d) if d[10:12] == b"7\0" else walk(d)
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
