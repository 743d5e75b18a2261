#!/bin/bash
# A trace.dat read in two halves of its time (formats/trace/tracedat_split.c)
# gives, byte for byte, the report of one reader: for the real recordings
# and for generated ones with sched noise, migrations, wakes and contention
# on 2 to 16 CPUs, at cuts early, in the middle and late, and with the
# second reader's stretch before the cut from none to the default, where it
# often rebuilds a front that differs from the first's and must be turned
# down. Both ends must come up (HALTSTAT_SPLIT_TRACE says how each split
# ended), or the comparisons would prove nothing.
. "$(dirname "$0")/lib.sh"
SYNTH=$HS_BUILD/tests/tools/hs-synth

if [ ! -x "$SYNTH" ]; then fail split-built "no $SYNTH"; exit 0; fi

one=(env HALTSTAT_THREADS=1 HALTSTAT_PIPE=1)
joined=0 refused=0

# split_case NAME FILE: each cut and stretch against no split
split_case() {
	local name=$1 f=$2 fmt at warm diff=0 runs=0
	for fmt in --json ""; do
		"${one[@]}" HALTSTAT_SPLIT=0 timeout 60 "$HALTSTAT" report -i "$f" $fmt >"$TMP/whole" 2>&1
		echo "exit $?" >>"$TMP/whole"
		for at in 0.2 0.5 0.8; do
			for warm in -2000000 0 300000 5000000 ""; do
				"${one[@]}" HALTSTAT_SPLIT=1 HALTSTAT_SPLIT_AT=$at ${warm:+HALTSTAT_SPLIT_WARM=$warm} \
					HALTSTAT_SPLIT_TRACE=1 timeout 60 "$HALTSTAT" report -i "$f" $fmt \
					>"$TMP/halves" 2>"$TMP/trace"
				echo "exit $?" >>"$TMP/halves"
				runs=$((runs + 1))
				cmp -s "$TMP/whole" "$TMP/halves" || { diff=$((diff + 1)); echo "# $name: at $at warm ${warm:-default} $fmt differs"; }
				if grep -q ': joined$' "$TMP/trace"; then joined=$((joined + 1))
				elif grep -q 'haltstat: split at' "$TMP/trace"; then refused=$((refused + 1)); fi
			done
		done
	done
	check_eq "split-$name-identical" "0 of $runs differ" "$diff of $runs differ"
}

for f in "$HS_TOP"/tests/data/real-kvm/*.dat.xz; do
	n=$(basename "$f" .dat.xz)
	case $n in *slice*) continue ;; esac
	xz -dc "$f" >"$TMP/$n.dat" && split_case "$n" "$TMP/$n.dat"
done

# a few MiB each: many pages per CPU, so that the second reader starts late
gen() {
	local n=$1; shift
	if "$SYNTH" "$@" -o "$TMP/$n.dat" -j /dev/null >"$TMP/synth.out" 2>&1; then
		split_case "$n" "$TMP/$n.dat"
	else
		fail "split-$n-synth" "$(head -c 200 "$TMP/synth.out")"
	fi
}
gen noise-waking -s 21 -v 3 -V 2 -H 3000 -g exp:400us -c 2 --cut 0.3 --waking --migrate 0.3 --noise 40000
gen overcommit -s 22 -v 6 -V 3 -H 1500 -g exp:1ms -c 3 --cut 0.5 --migrate 0.5 --noise 30000 --delta-spread 30us
# more CPUs than the merge scans: the cut is met in its heap
gen sixteen-cpus -s 26 -v 6 -V 3 -H 1000 -g exp:500us -c 16 --cut 0.3 --waking --migrate 0.3 --noise 5000
gen eight-cpus -s 23 -v 5 -V 5 -H 1500 -g period:250us -c 8 --cut 0.4 --waking --migrate 0.4 --noise 20000
# kvm events only: the fronts agree wherever the second starts, the cursors must not
gen kvm-only -s 25 -v 2 -H 20000 -g exp:100us -c 2
gen losses -s 24 -v 2 -H 4000 -g exp:150us -c 2 --noise 60000 --lost 2

echo "# splits joined $joined, turned down $refused"
check "split-joined-some" test "$joined" -ge 20
check "split-turned-down-some" test "$refused" -ge 20
