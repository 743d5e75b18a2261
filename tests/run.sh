#!/bin/bash
# Runs every test and prints one closing line: "N passed, N failed, N skipped".
# A test is an executable under tests/unit (C, built by make) or a tests/t-*.sh
# script. Each prints lines "ok NAME", "not ok NAME: why" or "skip NAME: why";
# a test that exits non-zero without a "not ok" line counts as one failure.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build/rel}
export HS_TOP=$PWD HS_BUILD=$PWD/$BUILD HALTSTAT=$PWD/$BUILD/haltstat
# SANITIZE=1: leaks inside libtracecmd/libtraceevent are not ours (tests/lsan.supp)
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
passed=0 failed=0 skipped=0
failures=()

run_one() {
	local name=$1; shift
	local out rc
	out=$(timeout --kill-after=10 600 "$@" 2>&1)
	rc=$?
	local p f s
	p=$(grep -c '^ok ' <<<"$out")
	f=$(grep -c '^not ok ' <<<"$out")
	s=$(grep -c '^skip ' <<<"$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		out+=$'\n'"not ok $name: exited with status $rc"
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	printf '%-40s %3d ok %3d failed %3d skipped\n' "$name" "$p" "$f" "$s"
	if [ "$f" -gt 0 ]; then
		failures+=("$name")
		grep -E '^(not ok|#)' <<<"$out" | sed 's/^/    /'
	fi
	# HS_VERBOSE=1: every test's whole output, the measured numbers of a pass too
	[ -n "$HS_VERBOSE" ] && sed 's/^/    | /' <<<"$out"
	grep '^skip ' <<<"$out" | sed 's/^/    /'
	# a measured prediction that missed its interval is said even when it does not fail
	grep '^# prediction missed' <<<"$out" | sed 's/^/    /'
}

for t in "$BUILD"/tests/unit/*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in tests/t-*.sh; do
	[ -e "$t" ] || continue
	[ -n "$HS_ONLY" ] && [[ "$t" != *"$HS_ONLY"* ]] && continue
	run_one "$(basename "$t" .sh)" bash "$t"
done

[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
