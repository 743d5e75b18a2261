#!/bin/bash
# The SVG of real KVM recordings (tests/data/real-kvm: slices of the
# recordings in ../shared/data/real-kvm) and of hand-built reports: no two
# labels overprint and no label leaves the drawing (text boxes estimated from
# font size, anchor and length), and each histogram's log axis runs from a
# bucket or two below the lowest non-empty bucket to a bucket or two above
# the highest (tests/tools/svg_check.py, against the report's JSON).
. "$HS_TOP/tests/lib.sh"
CHK=$HS_TOP/tests/tools/svg_check.py
R=$HS_BUILD/tests/tools/hs-render
DATA=$HS_TOP/tests/data/real-kvm
[ -x "$HALTSTAT" ] || { fail svg-binary "missing $HALTSTAT"; exit 0; }
have python3 || { skip svg "python3 missing"; exit 0; }
have xz || { skip svg "xz missing"; exit 0; }

# svg_ok NAME SVG [JSON]: the checker finds nothing
svg_ok() {
	local out
	if out=$(python3 "$CHK" "$2" ${3:+"$3"} 2>&1); then ok "$1"
	else fail "$1" "$(grep '^not ok' <<<"$out" | head -3 | sed 's/^not ok //' | tr '\n' ';')"; fi
}

n=0
for f in "$DATA"/*.dat.xz; do
	b=$(basename "$f" .dat.xz)
	xz -dc "$f" >"$TMP/$b.dat" || { fail "svg-$b-data" "xz -d failed"; continue; }
	"$HALTSTAT" report -i "$TMP/$b.dat" --json >"$TMP/$b.json" 2>/dev/null &&
	"$HALTSTAT" report -i "$TMP/$b.dat" --format svg -o "$TMP/$b.svg" 2>/dev/null ||
		{ fail "svg-$b-report" "report failed"; continue; }
	svg_ok "svg-$b-labels-and-axes" "$TMP/$b.svg" "$TMP/$b.json"
	# every histogram has its fitted axis and ticks the checker could read
	axes=$(python3 "$CHK" "$TMP/$b.svg" "$TMP/$b.json" | sed -n 's/.* \([0-9]*\) histogram axes.*/\1/p')
	nv=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["vcpus"]))' "$TMP/$b.json")
	check_eq "svg-$b-axes-checked" "$nv" "$axes"
	"$HALTSTAT" report -i "$TMP/$b.dat" --format svg --per-vm -o "$TMP/$b.vm.svg" 2>/dev/null
	svg_ok "svg-$b-per-vm" "$TMP/$b.vm.svg" "$TMP/$b.json"
	n=$((n + 1))
done
[ "$n" -ge 3 ] && ok svg-real-recordings || fail svg-real-recordings "$n recordings in $DATA"

# The checker is not a rubber stamp: it sees the faults it is there for.
b=cyc40-150-800-hp0-r1-slice
if [ -e "$TMP/$b.svg" ]; then
	python3 - "$TMP/$b.svg" "$TMP/bad1.svg" "$TMP/$b.json" "$TMP/bad2.json" <<'PYEOF'
import json, re, sys
# a panel's numbers moved up onto its title line
s = open(sys.argv[1]).read()
m = re.search(r'<text x="80.0" y="([0-9.]+)" font-size="12" font-weight="bold">[^<]*vCPU', s)
s = re.sub(r'(<text x="80.0" y=")[0-9.]+(" font-size="11">[0-9]+ halts, )',
           lambda n: n.group(1) + m.group(1) + n.group(2), s, count=1)
open(sys.argv[2], "w").write(s)
# an axis wider than the data: the report's two lowest buckets gone
d = json.load(open(sys.argv[3]))
d["host"]["histogram"] = d["host"]["histogram"][2:]
json.dump(d, open(sys.argv[4], "w"))
PYEOF
	# a label past the right edge
	sed 's/<text x="80.0" y="24.0"/<text x="700.0" y="24.0"/' "$TMP/$b.svg" >"$TMP/bad3.svg"
	for k in 1:"$TMP/bad1.svg" 2:"$TMP/$b.svg $TMP/bad2.json" 3:"$TMP/bad3.svg"; do
		if python3 "$CHK" ${k#*:} >/dev/null 2>&1; then fail "svg-checker-catches-${k%%:*}"
		else ok "svg-checker-catches-${k%%:*}"; fi
	done
fi

# Many vCPUs (per VM above 8), many VMs, and the hand-built extremes.
SYNTH=$HS_BUILD/tests/tools/hs-synth
if [ -x "$SYNTH" ] && "$SYNTH" -v 24 -V 3 -H 200 -g exp:150us -s 5 -o "$TMP/many.dat" -j /dev/null \
	>/dev/null 2>&1; then
	"$HALTSTAT" report -i "$TMP/many.dat" --json >"$TMP/many.json" 2>/dev/null
	"$HALTSTAT" report -i "$TMP/many.dat" --format svg -o "$TMP/many.svg" 2>/dev/null
	svg_ok svg-synth-many "$TMP/many.svg" "$TMP/many.json"
	"$HALTSTAT" report -i "$TMP/many.dat" --format svg --per-vcpu -o "$TMP/manyv.svg" 2>/dev/null
	svg_ok svg-synth-per-vcpu "$TMP/manyv.svg" "$TMP/many.json"
	check_eq svg-synth-per-vcpu-panels 24 "$(grep -c 'class="xaxis"' "$TMP/manyv.svg")"
else
	skip svg-synth "hs-synth not built"
fi
if [ -x "$R" ]; then
	for s in basic nasty empty many; do
		"$R" svg $s >"$TMP/r-$s.svg" && svg_ok "svg-render-$s-labels" "$TMP/r-$s.svg"
	done
fi
