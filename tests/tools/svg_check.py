#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks an SVG of haltstat report from its geometry alone.

svg_check.py FILE.svg [REPORT.json]

Prints one "not ok" line a fault and exits 1 if any:
- overlap: two <text> boxes intersect. A box is estimated from the text's
  font size (inherited from its ancestors), text-anchor, weight and number of
  characters: each character 0.6 em wide (0.66 em bold: DejaVu Sans, the
  usual sans-serif, averages about that for digits and lower case), from
  0.76 em above the baseline to 0.24 em below; transforms (translate,
  rotate) are applied and rotated boxes compared exactly (separating axes).
- canvas: a text box sticks out of the drawing.
- axis: with REPORT.json, each histogram's x axis (the <line class="xaxis">,
  its bars and its class="xtick" labels, which give the bucket at the axis'
  left end) must start one or two log2 buckets below the lowest non-empty
  bucket of the report and end one or two above the highest, unless that
  is the end of the scale.
"""
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
EM, EM_BOLD, ASCENT, DESCENT = 0.6, 0.66, 0.76, 0.24


def parse_transform(t):
    """A 2x3 affine matrix (a, b, c, d, e, f) for translate/rotate lists."""
    m = (1, 0, 0, 1, 0, 0)

    def mul(p, q):
        a, b, c, d, e, f = p
        A, B, C, D, E, F = q
        return (a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D,
                a * E + c * F + e, b * E + d * F + f)
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", t or ""):
        v = [float(x) for x in re.split(r"[\s,]+", args.strip()) if x]
        if name == "translate":
            q = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0)
        elif name == "rotate":
            r = math.radians(v[0])
            q = (math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0, 0)
            if len(v) == 3:
                q = mul(mul((1, 0, 0, 1, v[1], v[2]), q), (1, 0, 0, 1, -v[1], -v[2]))
        else:
            raise ValueError("transform %s not handled" % name)
        m = mul(m, q)
    return m


def apply(m, x, y):
    a, b, c, d, e, f = m
    return (a * x + c * y + e, b * x + d * y + f)


def texts(root):
    """(label, corners) of every <text>, with inherited font attributes."""
    out = []

    def walk(el, inherited):
        attrs = dict(inherited)
        for k in ("font-size", "text-anchor", "font-weight"):
            if el.get(k) is not None:
                attrs[k] = el.get(k)
        if el.tag == NS + "text":
            s = "".join(el.itertext())
            size = float(attrs.get("font-size", 16))
            w = len(s) * size * (EM_BOLD if attrs.get("font-weight") == "bold" else EM)
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            anchor = attrs.get("text-anchor", "start")
            x0 = x - (w / 2 if anchor == "middle" else w if anchor == "end" else 0)
            m = parse_transform(el.get("transform"))
            box = [(x0, y - ASCENT * size), (x0 + w, y - ASCENT * size),
                   (x0 + w, y + DESCENT * size), (x0, y + DESCENT * size)]
            out.append((s, [apply(m, px, py) for px, py in box]))
        for ch in el:
            walk(ch, attrs)
    walk(root, {})
    return out


def overlap(p, q):
    """Convex quadrilaterals intersect with a positive area (separating axis theorem)."""
    for poly in (p, q):
        for i in range(4):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            a = [nx * x + ny * y for x, y in p]
            b = [nx * x + ny * y for x, y in q]
            if max(a) <= min(b) + 1e-6 or max(b) <= min(a) + 1e-6:
                return False
    return True


def tick_ns(s):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)?", s)
    if not m:
        return None
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, None: 1}[m.group(2)]


def log2_index(ns):
    """haltstat's log2 bucket of a lower bound: 0 holds 0, k holds [2^(k-1), 2^k)."""
    return 0 if ns < 1 else int(round(math.log2(ns))) + 1


def axes(root, rep, faults):
    """Returns how many axes were checked."""
    lo = hi = None
    n = 0
    for b in rep["host"]["histogram"]:
        k = log2_index(b["lo_ns"])
        lo = k if lo is None else min(lo, k)
        hi = k if hi is None else max(hi, k)
    if lo is None:
        return 0
    els = list(root.iter())
    for ax in [e for e in els if e.tag == NS + "line" and e.get("class") == "xaxis"]:
        x1, x2, y = float(ax.get("x1")), float(ax.get("x2")), float(ax.get("y1"))
        bars = [e for e in els if e.tag == NS + "rect" and e.get("class") in ("poll", "wait")
                and abs(float(e.get("y")) + float(e.get("height")) - y) < 0.2]
        ticks = [e for e in els if e.tag == NS + "text" and e.get("class") == "xtick"
                 and 0 < float(e.get("y")) - y < 30]
        if not ticks:
            faults.append("axis at y=%.1f: no tick labels" % y)
            continue
        if bars:
            bw = float(bars[0].get("width")) + 2
        else:
            # no halts on this panel: two ticks give the bucket width
            if len(ticks) < 2:
                continue
            bw = (float(ticks[1].get("x")) - float(ticks[0].get("x"))) / \
                max(1, abs(log2_index(tick_ns(ticks[1].text)) - log2_index(tick_ns(ticks[0].text))))
        n += 1
        ncols = int(round((x2 - x1) / bw))
        t = ticks[0]
        k = int(round((float(t.get("x")) - x1) / bw))
        first = log2_index(tick_ns(t.text)) - k
        last = first + ncols - 1
        for e in ticks:
            kk = int(round((float(e.get("x")) - x1) / bw))
            if log2_index(tick_ns(e.text)) - kk != first:
                faults.append("axis at y=%.1f: tick %s not at its bucket bound" % (y, e.text))
        below, above = lo - first, last - hi
        if not (1 <= below <= 2 or (first == 0 and below <= 2)):
            faults.append("axis at y=%.1f: starts %d buckets below the lowest halt" % (y, below))
        if not (1 <= above <= 2 or (last == 63 and above <= 2)):
            faults.append("axis at y=%.1f: ends %d buckets above the highest halt" % (y, above))
        for r in bars:
            c = (float(r.get("x")) - 1 - x1) / bw
            if c < -0.01 or c > ncols - 0.99:
                faults.append("axis at y=%.1f: a bar outside the axis" % y)
    return n


def main():
    root = ET.parse(sys.argv[1]).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    faults = []
    naxes = 0
    boxes = texts(root)
    for i, (s, p) in enumerate(boxes):
        xs, ys = [x for x, _ in p], [y for _, y in p]
        if min(xs) < -0.5 or max(xs) > width + 0.5 or min(ys) < -0.5 or max(ys) > height + 0.5:
            faults.append("canvas: %r sticks out (%.0f..%.0f, %.0f..%.0f)" %
                          (s, min(xs), max(xs), min(ys), max(ys)))
        for t, q in boxes[i + 1:]:
            if overlap(p, q):
                faults.append("overlap: %r and %r" % (s, t))
    if len(sys.argv) > 2:
        naxes = axes(root, json.load(open(sys.argv[2])), faults)
    for f in faults[:20]:
        print("not ok %s" % f)
    print("# %d texts, %d histogram axes, %d faults" % (len(boxes), naxes, len(faults)))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
