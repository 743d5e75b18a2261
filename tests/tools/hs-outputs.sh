#!/bin/bash
# hs-outputs.sh HALTSTAT OUTDIR: every output format of every recording in
# tests/data (and of a few synthetic ones, made alike each time), into
# OUTDIR, one file a recording and format. Two builds are the same to the
# byte when `diff -r` of their OUTDIRs is empty: a restructuring or a speed-up
# must leave it so.
set -u
HALTSTAT=$1 OUT=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SYNTH=${HS_SYNTH:-$TOP/build/rel/tests/tools/hs-synth}
mkdir -p "$OUT" || exit 1
IN=$(mktemp -d /tmp/hs-outputs.XXXXXX)
trap 'rm -rf "$IN"' EXIT

for f in "$TOP"/tests/data/*/*.dat.xz; do
	xz -dc "$f" >"$IN/$(basename "$f" .xz)"
done
if [ -x "$SYNTH" ]; then
	"$SYNTH" -v 4 -V 2 -H 3000 -g exp:150us -c 2 --noise 2000 -s 5 -o "$IN/synth-noise.dat" \
		-t "$IN/synth-noise.txt" -j /dev/null >/dev/null 2>&1
	"$SYNTH" -v 3 -V 3 -H 3000 -g exp:150us -d 25us --cut 0.6 -c 2 -s 3 -o "$IN/synth-cut.dat" \
		-j /dev/null >/dev/null 2>&1
	"$SYNTH" -v 2 -H 3000 -g 30us,100us,600us --waking --delta-spread 15us -s 2 \
		-o "$IN/synth-waking.dat" -t "$IN/synth-waking.txt" -j /dev/null >/dev/null 2>&1
	"$SYNTH" -v 2 -H 2000 -g exp:150us --guest-idle --lost 3 -s 4 -o "$IN/synth-lost.dat" \
		-j /dev/null >/dev/null 2>&1
fi

for f in "$IN"/*; do
	n=$(basename "$f")
	"$HALTSTAT" report -i "$f" >"$OUT/$n.txt" 2>&1
	"$HALTSTAT" report -i "$f" --json >"$OUT/$n.json" 2>&1
	"$HALTSTAT" report -i "$f" --csv >"$OUT/$n.csv" 2>&1
	"$HALTSTAT" report -i "$f" --format markdown >"$OUT/$n.md" 2>&1
	"$HALTSTAT" report -i "$f" --format prometheus >"$OUT/$n.prom" 2>&1
	"$HALTSTAT" report -i "$f" --format openmetrics >"$OUT/$n.om" 2>&1
	"$HALTSTAT" report -i "$f" --format svg >"$OUT/$n.svg" 2>&1
	"$HALTSTAT" report -i "$f" --per-vcpu --linear >"$OUT/$n.linear.txt" 2>&1
	"$HALTSTAT" advise -i "$f" >"$OUT/$n.advise.txt" 2>&1
	"$HALTSTAT" advise -i "$f" --json >"$OUT/$n.advise.json" 2>&1
done
# a comparison of two recordings, both ways of writing it
a=$IN/exp120-hp0.dat b=$IN/exp120-hp200000.dat
if [ -f "$a" ] && [ -f "$b" ]; then
	"$HALTSTAT" diff "$a" "$b" >"$OUT/diff.txt" 2>&1
	"$HALTSTAT" diff "$a" "$b" --json >"$OUT/diff.json" 2>&1
fi
# the generator's file names differ from run to run only by the temporary folder
sed -i "s|$IN/||g" "$OUT"/*
