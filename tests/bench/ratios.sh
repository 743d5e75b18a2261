#!/bin/bash
# The report against the cost of reading its file (cat) and against
# 94c411a, the last release before contention and prediction intervals,
# built here from the repository's history: paired runs in turns, the
# median of HS_BENCH_PAIRED (7) of each. Inputs: the bench's own large
# sparse v6 (hs-synth: few halts, sched_switch noise on 4 CPUs) and, where
# /dev/kvm works, a dense KVM recording (3 VMs on one CPU, >= 150000 halts,
# recorded with haltstat record's defaults, sched events included).
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/rel}
HALTSTAT=${HALTSTAT:-$PWD/$BUILD/haltstat}
N=${HS_BENCH_PAIRED:-7}
D=${HS_BENCH_DIR:-$(mktemp -d /tmp/haltstat-ratios.XXXXXX)}
BASE=94c411a
mkdir -p "$D"

base_build() {
	[ -x "$D/base/haltstat" ] && return 0
	git cat-file -e "$BASE^{commit}" 2>/dev/null || return 1
	rm -rf "$D/base" && mkdir -p "$D/base" &&
		git archive "$BASE" | tar -x -C "$D/base" &&
		make -C "$D/base" -j"$(nproc)" haltstat >"$D/base.log" 2>&1 && [ -x "$D/base/haltstat" ]
}

# median_ms CMD...: the median wall time of N runs, in ms (a warm run first)
ms_now() { date +%s%N; }
# paired FILE: "CAT_MS MAIN_MS BASE_MS" medians, the three run in turns
paired() {
	local f=$1 i s
	cat "$f" >/dev/null
	"$HALTSTAT" report -i "$f" -o /dev/null >/dev/null 2>&1
	for ((i = 0; i < N; i++)); do
		s=$(ms_now); cat "$f" >/dev/null; echo "c $(( ($(ms_now) - s) / 1000 ))"
		s=$(ms_now); "$HALTSTAT" report -i "$f" -o /dev/null >/dev/null 2>&1
		echo "m $(( ($(ms_now) - s) / 1000 ))"
		if [ -x "$D/base/haltstat" ]; then
			s=$(ms_now); "$D/base/haltstat" report -i "$f" -o /dev/null >/dev/null 2>&1
			echo "b $(( ($(ms_now) - s) / 1000 ))"
		fi
	done | awk '{ v[$1, ++n[$1]] = $2 }
		function med(k,   i, j, t, a) { for (i = 1; i <= n[k]; i++) a[i] = v[k, i]
			for (i = 1; i <= n[k]; i++) for (j = i + 1; j <= n[k]; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n[k] ? a[int((n[k] + 1) / 2)] / 1000 : -1 }
		END { printf "%.1f %.1f %.1f\n", med("c"), med("m"), med("b") }'
}
verdict() { if awk "BEGIN { exit !($2) }"; then echo "  met     $1"; else echo "  NOT MET $1"; fi; }

base_build && have_base=1 || { have_base=0; echo "bench-ratios: $BASE could not be built here: no comparison"; }
[ -s "$D/sparse.dat" ] || "$PWD/$BUILD/tests/tools/hs-synth" -s 1 -v 2 -V 1 -H 40000 -g exp:150us -c 4 \
	--noise 115000 -o "$D/sparse.dat" -j /dev/null >/dev/null 2>&1
WL=$PWD/$BUILD/tests/tools/hs-workload
if [ ! -s "$D/dense.dat" ] && [ -c /dev/kvm ] && "$WL" --check >/dev/null 2>&1; then
	"$HALTSTAT" record -o "$D/dense.dat" -- "$WL" -n 3 -H 60000 -g 20us,30us,50us -c 0 -w 1 \
		-p 200000 -o "$D/dense.w.json" >/dev/null 2>&1 || rm -f "$D/dense.dat"
fi
echo
echo "bench-ratios: medians of $N paired runs (ms); the report with the what-if, its intervals and contention"
printf '  %-34s %9s %9s %9s %10s\n' input cat report "$BASE" report/cat
# real: the bench's real recording (run.sh), where it made one: not a
# target of its own, the issue's first row was a real recording
for k in sparse dense real; do
	f=$D/$k.dat
	if [ ! -s "$f" ]; then
		[ $k != real ] && echo "  $k: no input (dense needs /dev/kvm)"
		continue
	fi
	read -r c m b < <(paired "$f")
	printf '  %-34s %9s %9s %9s %9.1fx\n' "$k ($(du -m "$f" | cut -f1) MiB)" "$c" "$m" "$b" \
		"$(awk -v a="$m" -v c="$c" 'BEGIN { print (c > 0 ? a / c : 0) }')"
	[ $k = real ] && { echo "  (real: $(cat "$D/real.kind" 2>/dev/null), no target)"; continue; }
	lim=3; [ $k = dense ] && lim=5
	verdict "$k within ${lim}x cat ($m ms against $c ms)" "$m <= $lim * $c"
	[ $have_base = 1 ] && verdict "$k not slower than $BASE ($m ms against $b ms)" "$m <= $b"
done
