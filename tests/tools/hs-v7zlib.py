#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rewrites an uncompressed trace.dat v7 (trace-cmd convert --compression none)
as a zlib-compressed one, which the trace-cmd here cannot write: the header
names zlib, the sections the options point to are compressed (compressed
size 4, uncompressed size 4, zlib stream, as trace-cmd's compress2 writes),
each CPU's pages become a chunk count and chunks of CHUNK_BYTES, and
the options sections follow at the end with their offsets rewritten.

hs-v7zlib.py IN OUT [CHUNK_BYTES [DAMAGE]]  (default 10 pages; any size, pages may straddle)
Prints the largest compressed chunk's size. DAMAGE spoils the first CPU's
chunks: csize (the first chunk's compressed size runs past the CPU's
data), usize (its inflated size one byte short), count (one chunk more
than there are).
"""
import struct
import sys
import zlib


def main():
    d = open(sys.argv[1], "rb").read()
    if d[10:12] != b"7\0" or d[12] != 0:
        sys.exit("hs-v7zlib: needs a little-endian trace.dat v7")
    page = struct.unpack_from("<I", d, 14)[0]
    p = d.index(b"\0", 18) + 1
    if d[18:p - 1] not in (b"none", b""):
        sys.exit("hs-v7zlib: input is compressed already")
    p = d.index(b"\0", p) + 1
    first = struct.unpack_from("<Q", d, p)[0]
    out = bytearray(d[:18] + b"zlib\0" + zlib.ZLIB_VERSION.encode() + b"\0" + bytes(8))
    first_at = len(out) - 8

    def section(off, compress=True):
        sid, _, sstr, size = struct.unpack_from("<HHIQ", d, off)
        body = d[off + 16:off + 16 + size]
        new = len(out)
        if compress:
            z = zlib.compress(body, 9)
            out.extend(struct.pack("<HHIQII", sid, 1, sstr, 8 + len(z), len(z), len(body)) + z)
        else:
            out.extend(struct.pack("<HHIQ", sid, 0, sstr, size) + body)
        return new

    def buffer(o):
        nonlocal largest
        sec = struct.unpack_from("<Q", o)[0]
        sid, _, sstr, _ = struct.unpack_from("<HHIQ", d, sec)
        r = o.index(b"\0", 8) + 1
        r = o.index(b"\0", r) + 1
        head = o[8:r]
        if (len(o) - r - 4) % 20:
            head += o[r:r + 4]
            r += 4
        ncpu = struct.unpack_from("<I", o, r)[0]
        hdr = len(out)
        out.extend(bytes(16))
        ents = []
        for c in range(ncpu):
            cid, coff, csize = struct.unpack_from("<IQQ", o, r + 4 + 20 * c)
            raw = d[coff:coff + csize]
            at = len(out)
            step = int(sys.argv[3]) if len(sys.argv) > 3 else 10 * page
            chunks = [raw[i:i + step] for i in range(0, len(raw), step)]
            damage = sys.argv[4] if len(sys.argv) > 4 and c == 0 else ""
            out.extend(struct.pack("<I", len(chunks) + (damage == "count")))
            for k, ch in enumerate(chunks):
                z = zlib.compress(ch, 9)
                largest = max(largest, len(z))
                cz, cu = len(z), len(ch)
                if k == 0 and damage == "csize":
                    cz = len(raw)
                if k == 0 and damage == "usize":
                    cu -= 1
                out.extend(struct.pack("<II", cz, cu) + z)
            ents.append(struct.pack("<IQQ", cid, at, len(out) - at - 4))
        out[hdr:hdr + 16] = struct.pack("<HHIQ", sid, 1, sstr, len(out) - hdr - 16)
        return struct.pack("<Q", hdr) + head + struct.pack("<I", ncpu) + b"".join(ents)

    # sections and CPU data first, then the options sections in their order
    largest = 0
    opts = []
    off = first
    while off:
        sid, fl, sstr, size = struct.unpack_from("<HHIQ", d, off)
        q, end, nxt, items = off + 16, off + 16 + size, 0, []
        while q < end:
            oid, n = struct.unpack_from("<HI", d, q)
            o = d[q + 6:q + 6 + n]
            q += 6 + n
            if oid == 0:
                nxt = struct.unpack_from("<Q", o)[0]
                break
            if 16 <= oid <= 22:
                o = struct.pack("<Q", section(struct.unpack_from("<Q", o)[0])) + o[8:]
            elif oid == 3:
                o = buffer(o)
            items.append((oid, o))
        opts.append((sstr, items, nxt != 0))
        off = nxt
    for i, (sstr, items, more) in enumerate(opts):
        body = b"".join(struct.pack("<HI", oid, len(o)) + o for oid, o in items)
        at = len(out)
        if i == 0:
            struct.pack_into("<Q", out, first_at, at)
        size = len(body) + 14
        nxt_at = at + 16 + size
        out.extend(struct.pack("<HHIQ", 0, 0, sstr, size) + body)
        out.extend(struct.pack("<HIQ", 0, 8, nxt_at if more else 0))
    open(sys.argv[2], "wb").write(out)
    print(largest)


if __name__ == "__main__":
    main()
