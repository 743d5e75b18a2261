#!/bin/bash
# The layers run one way (doc/ARCHITECTURE.md), from what includes and calls
# what (the built objects' symbols):
#   lib/ (the engine)  <-  lib/sys/ (the live system)  <-  formats/trace/,
#   formats/render/ (side by side, never each other)  <-  cmd/
# a folder uses only those to its left; no two files depend on each other,
# through their includes or through the functions they call. The checker
# must also catch a planted include that breaks a rule.
. "$(dirname "$0")/lib.sh"
cd "$HS_TOP" || exit 1
if ! have python3 || ! have nm; then skip layers "python3 or nm missing"; exit 0; fi

cat >"$TMP/layers.py" <<'PY'
import collections, glob, os, re, subprocess, sys
root, build = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
os.chdir(root)
FOLDERS = ["lib", "lib/sys", "formats/trace", "formats/render", "cmd"]
# what each folder may use besides itself
MAY = {"lib": set(), "lib/sys": {"lib"}, "formats/trace": {"lib", "lib/sys"},
       "formats/render": {"lib", "lib/sys"},
       "cmd": {"lib", "lib/sys", "formats/trace", "formats/render"}}

def folder(path):
    return os.path.dirname(path)

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

# a file, its header and its private header are one unit: capture.c,
# capture.h and capture_priv.h
def unit(path):
    u = path[:-2] if path.endswith((".c", ".h")) else path
    return u[:-5] if u.endswith("_priv") else u

files = [f for d in FOLDERS for f in glob.glob(d + "/*.[ch]")]
inc = collections.defaultdict(set)
wrong = []
for f in files:
    for m in re.finditer(r'#include "([^"]+)"', open(f).read()):
        t = os.path.normpath(os.path.join(folder(f), m.group(1)))
        if folder(t) not in FOLDERS:
            wrong.append("%s -> %s (outside the layers)" % (f, t))
            continue
        if folder(t) != folder(f) and folder(t) not in MAY[folder(f)]:
            wrong.append("%s -> %s" % (f, t))
        if unit(t) != unit(f):
            inc[unit(f)].add(unit(t))
print("include-rules", sorted(wrong) or "none")
print("include-cycles", cycles(inc) or "none")
if not build:
    sys.exit(0)
defs, uses = {}, collections.defaultdict(set)
for src in [f for f in files if f.endswith(".c")]:
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
bad = sorted("%s -> %s" % (a, b) for a in calls for b in calls[a]
             if folder(b) != folder(a) and folder(b) not in MAY[folder(a)])
print("call-rules", bad or "none")
print("call-cycles", cycles({unit(a): {unit(b) for b in bs if unit(b) != unit(a)}
                             for a, bs in calls.items()}) or "none")
PY
python3 "$TMP/layers.py" "$HS_TOP" "$HS_BUILD" >"$TMP/layers.out"
for rule in include-rules include-cycles call-rules call-cycles; do
	check_eq "layers-$rule" "$rule none" "$(grep "^$rule " "$TMP/layers.out")"
done

# plant one include that breaks a rule in a copy of the sources: it must be caught
plant() {	# NAME FILE LINE
	rm -rf "$TMP/tree" && mkdir -p "$TMP/tree" &&
		cp -r lib formats cmd "$TMP/tree/" && printf '%s\n' "$3" >>"$TMP/tree/$2"
	if python3 "$TMP/layers.py" "$TMP/tree" | grep -q '^include-rules none$'; then
		fail "layers-catches-$1" "$3 in $2 passed"
	else
		ok "layers-catches-$1"
	fi
}
plant engine-uses-sys lib/report.c '#include "sys/capture.h"'
plant engine-uses-formats lib/hist.c '#include "../formats/trace/sink.h"'
plant render-uses-trace formats/render/report_csv.c '#include "../trace/input.h"'
plant trace-uses-render formats/trace/sink.c '#include "../render/output.h"'
plant sys-uses-formats lib/sys/tasks.c '#include "../../formats/trace/recmeta.h"'
plant formats-use-cmd formats/render/escape.c '#include "../../cmd/builtin.h"'
# and a cycle of two files in one folder
rm -rf "$TMP/tree" && mkdir -p "$TMP/tree" && cp -r lib formats cmd "$TMP/tree/" &&
	echo '#include "report.h"' >>"$TMP/tree/lib/hist.h"
if python3 "$TMP/layers.py" "$TMP/tree" | grep -q '^include-cycles none$'; then
	fail layers-catches-cycle "hist.h -> report.h passed"
else
	ok layers-catches-cycle
fi
