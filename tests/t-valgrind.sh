#!/bin/bash
# valgrind memcheck on haltstat report over real recordings: an hs-synth
# trace.dat and its text, a `record --guest` file, and the same as v7 (zstd
# and uncompressed through the own v7 reader, zstd through libtracecmd). No
# invalid access, no use of uninitialised memory, no leak (libtracecmd's
# own known leak aside, see tests/valgrind.supp).
# Skipped without valgrind, and in the SANITIZE=1 pass (ASan and valgrind
# do not mix).
. "$(dirname "$0")/lib.sh"

if ! have valgrind; then skip valgrind "valgrind not installed"; exit 0; fi
if [ "$SANITIZE" = 1 ] || nm "$HALTSTAT" 2>/dev/null | grep -q __asan_init; then
	skip valgrind "sanitized build"
	exit 0
fi
SYNTH=$HS_BUILD/tests/tools/hs-synth
[ -x "$SYNTH" ] || { fail valgrind_synth "no $SYNTH"; exit 0; }
"$SYNTH" -H 300 -v 4 -V 2 --lost 2:10 -o "$TMP/s.dat" -t "$TMP/s.txt" -j /dev/null || fail valgrind_synth "hs-synth failed"
inputs="s.dat s.txt"
if need_tracefs && [ -d /sys/kernel/tracing/events/power/cpu_idle ] &&
	"$HALTSTAT" record --guest -d 500ms -o "$TMP/r.dat" 2>/dev/null; then
	inputs+=" r.dat"
else
	skip valgrind_record "cannot record here"
fi
if have trace-cmd && trace-cmd convert -i "$TMP/s.dat" -o "$TMP/s7.dat" --file-version 7 >/dev/null 2>&1; then
	inputs+=" s7.dat"
	vg_ltc=1
fi
if have trace-cmd && trace-cmd convert -i "$TMP/s.dat" -o "$TMP/s7n.dat" --file-version 7 \
	--compression none >/dev/null 2>&1; then
	inputs+=" s7n.dat"
fi

vg() {	# NAME EXIT ARGS...: haltstat exits EXIT, valgrind finds nothing (99)
	local name=$1 want=$2 rc; shift 2
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--suppressions="$HS_TOP/tests/valgrind.supp" "$HALTSTAT" "$@" >"$TMP/vg.out" 2>"$TMP/vg.err"
	rc=$?
	if [ $rc = "$want" ]; then
		ok "$name"
	else
		fail "$name" "exit $rc: $(grep -m3 -E '==[0-9]+== [A-Z]|^haltstat' "$TMP/vg.err" | tr '\n' ' ')"
	fi
}
for f in $inputs; do
	vg "valgrind_report_${f/./_}" 0 report -i "$TMP/$f"
done
vg valgrind_report_json 0 report -i "$TMP/s.dat" --json
[ -n "$vg_ltc" ] && HALTSTAT_READER=libtracecmd vg valgrind_report_v7_libtracecmd 0 report -i "$TMP/s7.dat"
vg valgrind_stdin_text 0 report -i - --csv < "$TMP/s.txt"
vg valgrind_bad_input 3 report -i "$HS_TOP/tests/fuzz/regressions/tracedat/tep-print-fmt-segv.dat"
