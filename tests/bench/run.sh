#!/bin/bash
# make bench: haltstat report against trace-cmd report on the same inputs,
# side by side: a >= 3 M event trace.dat from hs-synth (with sched_switch
# noise) as uncompressed v6, as zstd v7 (trace-cmd convert) and as kernel
# text, plus 100 k and 10 M event files for peak RSS, and a real recording
# made here (real_input). Warm page cache (one untimed run first), the
# fastest of HS_BENCH_RUNS (5) runs. Then the recorder benchmark
# (tests/bench/record.sh). Inputs go to HS_BENCH_DIR (kept when
# given, so a second run skips generating them; else a temporary dir).
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/rel}
HALTSTAT=${HALTSTAT:-$PWD/$BUILD/haltstat}
SYNTH=$PWD/$BUILD/tests/tools/hs-synth
RUNS=${HS_BENCH_RUNS:-5}

for f in "$HALTSTAT" "$SYNTH" /usr/bin/time; do
	[ -x "$f" ] || { echo "bench: $f missing (make BUILD=$BUILD first)"; exit 1; }
done
have_tc=1
command -v trace-cmd >/dev/null 2>&1 || have_tc=0
if [ -n "$HS_BENCH_DIR" ]; then
	D=$HS_BENCH_DIR; mkdir -p "$D" || exit 1
else
	D=$(mktemp -d /tmp/haltstat-bench.XXXXXX)
fi

# gen NAME SYNTH-ARGS...: NAME.dat (+ NAME.json expected counts), once
gen() {
	local n=$1; shift
	[ -s "$D/$n.dat" ] && [ -s "$D/$n.json" ] && return 0
	echo "bench: generating $n ($*)"
	"$SYNTH" -s 1 "$@" -o "$D/$n.dat" -j "$D/$n.json" >/dev/null 2>"$D/gen.err" ||
		{ echo "bench: hs-synth failed: $(head -c 300 "$D/gen.err")"; exit 1; }
}
events_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$1"; }

. tests/bench/lib.sh
trap 'load_stop; [ -z "$HS_BENCH_DIR" ] && rm -rf "$D"' EXIT

# A real recording: a KVM workload where /dev/kvm works (vCPU wakeups and
# window changes), else this machine's guest idle events; both under the
# pipe ping-pong load (sched_switch). About 3 M events; once per HS_BENCH_DIR.
real_input() {
	local wl=$PWD/$BUILD/tests/tools/hs-workload
	[ -s "$D/real.dat" ] && [ -s "$D/real.kind" ] && return 0
	[ "$(id -u)" -eq 0 ] || return 1
	[ -d /sys/kernel/tracing/instances ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		return 1
	echo "bench: recording the real input"
	load_start
	if [ -c /dev/kvm ] && [ -x "$wl" ] &&
	   "$HALTSTAT" record -e sched:sched_switch -o "$D/real.dat" -- \
		"$wl" -n 2 -H 100000 -g exp:150us -o "$D/wl.json" >/dev/null 2>"$D/real.err"; then
		echo "real KVM recording" >"$D/real.kind"
	elif "$HALTSTAT" record --guest -e sched:sched_switch -d 15 -o "$D/real.dat" \
		>/dev/null 2>"$D/real.err"; then
		echo "real guest recording" >"$D/real.kind"
	fi
	load_stop
	recorded_events "$D/real.err" >"$D/real.events"
	[ -s "$D/real.kind" ]
}

T0=$(date +%s)
[ -s "$D/big.txt" ] || rm -f "$D/big.dat"
gen big -v 8 -V 2 -H 250000 -g exp:150us -c 4 --noise 5000 -t "$D/big.txt"
gen small -v 4 -V 1 -H 16000 -g exp:150us -c 2 --noise 2000
# the big input's halts without its sched_switch noise: what tracking runqueues costs
gen bigquiet -v 8 -V 2 -H 250000 -g exp:150us -c 4
gen huge -v 8 -V 2 -H 630000 -g exp:150us -c 4 --noise 5000
# the big input with every wait timed by sched_waking (record --sched): the
# what-if replays each timed wait with its own time to wake and overhead
gen bigwaking -v 8 -V 2 -H 250000 -g exp:150us -c 4 --noise 5000 --waking --delta-spread 15us
if [ $have_tc = 1 ] && [ ! -s "$D/big.v7.dat" ]; then
	echo "bench: converting big.dat to v7 zstd"
	trace-cmd convert -i "$D/big.dat" -o "$D/big.v7.dat" --file-version 7 --compression zstd \
		>/dev/null 2>&1 || rm -f "$D/big.v7.dat"
fi
have_real=0
real_input && have_real=1
# written-back pages of new inputs would compete with the timed runs
sync
T1=$(date +%s)

printf '\n%-24s %10s %11s %11s %8s %10s %9s\n' input events haltstat_s trace-cmd_s ratio "M ev/s" "RSS MiB"
declare -A HS_T TC_T RSS EVS
row() {	# row KEY LABEL FILE EVENTS TC_RUNS [env...]
	local key=$1 label=$2 f=$3 ev=$4 tcruns=$5; shift 5
	local hs tc="" ratio="-"
	read -r hs rss < <(measure "$RUNS" env "$@" "$HALTSTAT" report -i "$f" -o /dev/null)
	if [ "$hs" = failed ]; then
		printf '%-24s %10d %11s\n' "$label" "$ev" failed; HS_T[$key]=failed; return
	fi
	if [ "$tcruns" -gt 0 ] && [ $have_tc = 1 ]; then
		read -r tc _ < <(measure "$tcruns" sh -c 'trace-cmd report "$1" >/dev/null 2>&1' sh "$f")
		ratio=$(awk -v a="$tc" -v b="$hs" 'BEGIN { printf "%.1fx", a / b }')
	fi
	HS_T[$key]=$hs; TC_T[$key]=$tc; RSS[$key]=$rss; EVS[$key]=$ev
	printf '%-24s %10d %11s %11s %8s %10.1f %9s\n' "$label" "$ev" "$hs" "${tc:--}" "$ratio" \
		"$(awk -v e="$ev" -v t="$hs" 'BEGIN { print e / t / 1e6 }')" "$rss"
}
BIG=$(events_of "$D/big.json"); SMALL=$(events_of "$D/small.json"); HUGE=$(events_of "$D/huge.json")
LINES=$(grep -c '' "$D/big.txt")
row v6 "big v6 trace.dat" "$D/big.dat" "$BIG" "$RUNS"
row v6one "  same, one reader" "$D/big.dat" "$BIG" 0 HALTSTAT_THREADS=1
row quiet "  same, no sched events" "$D/bigquiet.dat" "$(events_of "$D/bigquiet.json")" 0
row v6nowi "  same, no what-if" "$D/big.dat" "$BIG" 0 HALTSTAT_WHATIF=off
WAKING=$(events_of "$D/bigwaking.json")
row waking "  same, waits timed" "$D/bigwaking.dat" "$WAKING" 0
row wakingnowi "  same, timed, no what-if" "$D/bigwaking.dat" "$WAKING" 0 HALTSTAT_WHATIF=off
[ -s "$D/big.v7.dat" ] && row v7 "big v7 zstd" "$D/big.v7.dat" "$BIG" "$RUNS"
row txt "big kernel text (lines)" "$D/big.txt" "$LINES" 0
row small "100k v6 trace.dat" "$D/small.dat" "$SMALL" "$RUNS"
row huge "10M v6 trace.dat" "$D/huge.dat" "$HUGE" 1
[ $have_real = 1 ] && row real "$(cat "$D/real.kind")" "$D/real.dat" "$(cat "$D/real.events")" "$RUNS"
[ $have_real = 1 ] && row realnowi "  same, no what-if" "$D/real.dat" "$(cat "$D/real.events")" 0 HALTSTAT_WHATIF=off
printf '(inputs generated in %d s; events = records in the file, sched_switch noise included)\n' $((T1 - T0))

# verdict TEXT AWK-CONDITION KEY: KEY's haltstat run must have worked
verdict() {
	if ! [[ ${HS_T[$3]} =~ ^[0-9.]+$ ]]; then echo "  FAILED  $1 (haltstat report failed)"
	elif awk "BEGIN { exit !($2) }"; then echo "  met     $1"
	else echo "  NOT MET $1"; fi
}
echo
echo "targets:"
verdict "v6 >= 30x trace-cmd report (${TC_T[v6]:-?} / ${HS_T[v6]} s)" \
	"${TC_T[v6]:-0} / ${HS_T[v6]} >= 30" v6
verdict "v6 >= 20 M events/s warm" "${EVS[v6]} / ${HS_T[v6]} >= 20e6" v6
if [ -n "${HS_T[real]}" ]; then
	verdict "${EVS[real]} events real: >= 30x trace-cmd report (${TC_T[real]:-?} / ${HS_T[real]} s)" \
		"${TC_T[real]:-0} / ${HS_T[real]} >= 30" real
	verdict "${EVS[real]} events real: >= 20 M events/s warm" "${EVS[real]} / ${HS_T[real]} >= 20e6" real
fi
[ -n "${HS_T[v7]}" ] && verdict "v7 zstd >= 3x trace-cmd report (${TC_T[v7]:-?} / ${HS_T[v7]} s)" \
	"${TC_T[v7]:-0} / ${HS_T[v7]} >= 3" v7
# the v7 report against inflating the same data: big.dat as one zstd stream
if [ -n "${HS_T[v7]}" ] && command -v zstd >/dev/null 2>&1; then
	[ -s "$D/big.dat.zst" ] || zstd -q -f "$D/big.dat" -o "$D/big.dat.zst"
	read -r zs _ < <(measure "$RUNS" sh -c 'zstd -dc "$1" >/dev/null' sh "$D/big.dat.zst")
	verdict "v7 zstd within 2x zstd -dc of its data (${HS_T[v7]} s against $zs s)" \
		"${HS_T[v7]} <= 2 * $zs" v7
elif [ -n "${HS_T[v7]}" ]; then
	echo "  (v7 against zstd -dc: no zstd command here, not measured)"
fi
# the what-if (every candidate replayed, with its prediction intervals) is
# what a report spends beyond reading: the difference to a run without it.
# The two are run in turns, 2 * RUNS times each, the fastest of each kept:
# rows timed minutes apart on a shared host differ by more than the cost.
# paired FILE: "WITH_S WITHOUT_S"
paired() {
	local i
	"$HALTSTAT" report -i "$1" -o /dev/null >/dev/null 2>&1
	for ((i = 0; i < 2 * RUNS; i++)); do
		echo "w $(timed "$HALTSTAT" report -i "$1" -o /dev/null)"
		echo "n $(timed env HALTSTAT_WHATIF=off "$HALTSTAT" report -i "$1" -o /dev/null)"
	done | awk '{ if (!($1 in t) || $2 < t[$1]) t[$1] = $2 }
		END { printf "%.3f %.3f\n", t["w"] / 1e6, t["n"] / 1e6 }'
}
for k in v6 waking real; do
	[ -n "${HS_T[$k]}" ] && [[ ${HS_T[${k}nowi]} =~ ^[0-9.]+$ ]] || continue
	case $k in v6) f=$D/big.dat ;; waking) f=$D/bigwaking.dat ;; real) f=$D/real.dat ;; esac
	read -r with without < <(paired "$f")
	share=$(awk -v a="$with" -v b="$without" 'BEGIN { s = (a - b) / a; printf "%.0f", 100 * (s < 0 ? 0 : s) }')
	verdict "$k: the what-if with intervals < 25% of the report's time ($share%: $with s, $without s without, in turns)" \
		"$share < 25" $k
done
verdict "text >= 6 M lines/s ($(awk -v e="${EVS[txt]}" -v t="${HS_T[txt]}" 'BEGIN { printf "%.1f", e / t / 1e6 }') M)" "${EVS[txt]} / ${HS_T[txt]} >= 6e6" txt
# the same halts: the extra time is decoding the sched_switch noise and following runqueues
[[ ${HS_T[quiet]} =~ ^[0-9.]+$ ]] &&
	verdict "sched events (contention) cost <= 50% of the report's time ($(awk -v a="${HS_T[v6]}" \
		-v b="${HS_T[quiet]}" 'BEGIN { printf "%+.0f%%", 100 * (a - b) / b }'): ${HS_T[v6]} s with, ${HS_T[quiet]} s without)" \
		"${HS_T[v6]} <= 1.5 * ${HS_T[quiet]}" v6
verdict "peak RSS < 32 MiB at 100k events (${RSS[small]} MiB)" "${RSS[small]} < 32" small
verdict "peak RSS < 32 MiB at 10M events (${RSS[huge]} MiB)" "${RSS[huge]} < 32" huge
for k in v6 v7 txt real; do
	[ -n "${RSS[$k]}" ] && verdict "peak RSS < 32 MiB on $k (${RSS[$k]} MiB)" "${RSS[$k]} < 32" $k
done
echo
HS_BENCH_DIR=$D bash tests/bench/ratios.sh
bash tests/bench/record.sh
echo "bench: total $(( $(date +%s) - T0 )) s"
