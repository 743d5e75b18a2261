#!/bin/bash
# The layers run one way (doc/ARCHITECTURE.md): lib/ includes and calls
# nothing in formats/ or cmd/, formats/ nothing in cmd/; no two files
# depend on each other, whether through their includes or through the
# functions they call (from the symbols of the built objects).
. "$(dirname "$0")/lib.sh"
cd "$HS_TOP" || exit 1
if ! have python3 || ! have nm; then skip layers "python3 or nm missing"; exit 0; fi

check_eq layers-lib-includes "" "$(grep -l -E '#include "\.\./(formats|cmd)/' lib/*.[ch])"
check_eq layers-formats-includes "" "$(grep -l -E '#include "\.\./cmd/' formats/*.[ch])"

python3 - "$HS_BUILD" <<'PY' >"$TMP/layers.out"
import collections, glob, os, re, subprocess, sys
build = sys.argv[1]
rank = {"lib": 0, "formats": 1, "cmd": 2}

def cycles(edges):
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found

# includes between the project's own files
inc = collections.defaultdict(set)
for f in glob.glob("lib/*.[ch]") + glob.glob("formats/*.[ch]") + glob.glob("cmd/*.[ch]"):
    for m in re.finditer(r'#include "([^"]+)"', open(f).read()):
        inc[f].add(os.path.normpath(os.path.join(os.path.dirname(f), m.group(1))))
print("include-cycles", cycles(inc) or "none")

# calls between the sources, from the built objects
defs, uses = {}, collections.defaultdict(set)
for src in glob.glob("lib/*.c") + glob.glob("formats/*.c") + glob.glob("cmd/*.c"):
    obj = os.path.join(build, src[:-2] + ".o")
    out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRV":
            defs[p[2]] = src
        elif len(p) == 2 and p[0] == "U":
            uses[src].add(p[1])
calls = collections.defaultdict(set)
for a, syms in uses.items():
    for s in syms:
        b = defs.get(s)
        if b and b != a:
            calls[a].add(b)
up = sorted("%s -> %s" % (a, b) for a in calls for b in calls[a]
            if rank[b.split("/")[0]] > rank[a.split("/")[0]])
print("calls-upward", up or "none")
print("call-cycles", cycles(calls) or "none")
PY
check_eq layers-include-cycles "include-cycles none" "$(grep '^include-cycles' "$TMP/layers.out")"
check_eq layers-calls-upward "calls-upward none" "$(grep '^calls-upward' "$TMP/layers.out")"
check_eq layers-call-cycles "call-cycles none" "$(grep '^call-cycles' "$TMP/layers.out")"
