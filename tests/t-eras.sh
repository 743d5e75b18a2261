#!/bin/bash
# The kernel eras reach the command line from lib/era.h alone: haltstat help
# kernel-eras lists each row once, every command that takes --kernel-era
# takes each name (and a release), lists them all in its --help and in its
# complaint about a bad one, and the oldest and newest rules replay apart. The
# completions (t-completions) and man pages (t-man) are checked against the
# same list.
. "$HS_TOP/tests/lib.sh"
SYNTH=$HS_BUILD/tests/tools/hs-synth
[ -x "$SYNTH" ] || { fail eras-built "no $SYNTH"; exit 0; }
cd "$TMP" || exit 1

"$HALTSTAT" help kernel-eras >eras.txt 2>eras.err
check_eq eras-listed "0" "$?"
mapfile -t eras < <(cut -f1 eras.txt)
[ ${#eras[@]} -ge 2 ] && ok eras-several || fail eras-several "$(cat eras.txt eras.err)"
check_eq eras-once "${#eras[@]}" "$(printf '%s\n' "${eras[@]}" | sort -u | grep -c .)"
check_eq eras-described "" "$(grep -v -E $'^[^\t ]+\tkernels (before|from) [0-9]+\\.[0-9]+.*: .' eras.txt)"

# a choice list as the usage strings and errors print it: "a, b, c or d"
choices=$(printf '%s\n' "${eras[@]}" | paste -sd, | sed 's/,/, /g; s/\(.*\), /\1 or /')
for c in report advise replay; do
	"$HALTSTAT" "$c" --help >help.txt
	check "eras-$c-help" grep -qF -- "--kernel-era ERA    replay this kernel's algorithm: $choices" help.txt
	"$HALTSTAT" "$c" -i /dev/null --kernel-era bogus 2>bad.err
	check_eq "eras-$c-bad-status" 2 $?
	check "eras-$c-bad-lists-all" grep -qF "bad --kernel-era 'bogus' ($choices)" bad.err
done

# each era by name and one release of each: accepted, and its own rules
"$SYNTH" --formats "$HS_TOP/tests/data/formats" -v 1 -H 4000 -g exp:120us -m 50000 \
	--shrink 3 -o s.dat -j s.json >/dev/null 2>synth.err || { fail eras-synth "$(cat synth.err)"; exit 0; }
sums=""
for e in "${eras[@]}"; do
	"$HALTSTAT" report -i s.dat --json --kernel-era "$e" --candidates 20000,50000,80000 \
		>"r.$e.json" 2>"r.$e.err"
	check_eq "eras-$e-report" 0 $?
	"$HALTSTAT" replay -i s.dat --predict-only --kernel-era "$e" >"p.$e.txt" 2>&1
	check "eras-$e-replay-names-it" grep -q "kernel era $e\$" "p.$e.txt"
	sums+="$(python3 -c 'import json,sys; print([(w["hits"], w["grows"], w["shrinks"]) for w in json.load(open(sys.argv[1]))["host"]["what_if"]])' "r.$e.json")"$'\n'
done
# with a fixed M some rows replay alike (5.x and 6.1 differ in what the
# trace shows, 6.1 and 6.11 in a default the recording overrides), but the
# oldest and the newest rules do not
first=$(head -1 <<<"$sums") last=$(grep . <<<"$sums" | tail -1)
[ -n "$first" ] && [ "$first" != "$last" ] && ok eras-oldest-newest-differ ||
	fail eras-oldest-newest-differ "$first"
"$HALTSTAT" advise -i s.dat --kernel-era 5.15.0-91-generic >/dev/null 2>&1
check_eq eras-release-accepted 0 $?
