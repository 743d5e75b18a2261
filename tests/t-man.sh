#!/bin/bash
# Man pages: render without warnings, carry the usual sections, list the exit
# codes of lib/error.h and every long option of the commands they document.
. "$HS_TOP/tests/lib.sh"
D=$HS_TOP/doc
have groff || { skip man "groff not installed"; exit 0; }

for f in "$D"/*.1; do
	n=$(basename "$f" .1)
	out=$(groff -ww -z -man "$f" 2>&1)
	check_eq "man-$n-groff-clean" "" "$out"
	if have man; then
		out=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
		check_eq "man-$n-man-clean" "" "$out"
	fi
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO"; do
		grep -q "^\.SH \"*$sec" "$f" || fail "man-$n-section" "no $sec"
	done
done
ok man-sections

# The exit-code table of haltstat.1 against the enum in lib/error.h.
codes=$(sed -n 's/^[[:space:]]*HS_[A-Z_]* = \([0-9]*\),.*/\1/p' "$HS_TOP/lib/error.h" | sort -n | tr '\n' ' ')
listed=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$D/haltstat.1" | sed -n 's/^\.B \([0-9][0-9]*\)$/\1/p' | sort -n | tr '\n' ' ')
check_eq man-exit-codes "$codes" "$listed"

# Every long option a command parses appears in its page.
for c in record report advise top diff; do
	src=$HS_TOP/cmd/$c.c
	[ -e "$src" ] && [ -e "$D/haltstat-$c.1" ] || continue
	missing=""
	for o in $(cmd_long_options "$c"); do
		grep -q -- "\\\\-\\\\-${o//-/\\\\-}" "$D/haltstat-$c.1" || missing+=" --$o"
	done
	check_eq "man-$c-options" "" "$missing"
done
