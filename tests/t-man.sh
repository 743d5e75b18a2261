#!/bin/bash
# Man pages: render without warnings, carry the usual sections, list the exit
# codes of lib/error.h, every long option of the commands they document and
# the kernel eras of lib/era.h. The pages made from doc/*.1.in are checked as
# make wrote them ($HS_BUILD/doc).
. "$HS_TOP/tests/lib.sh"
D=$HS_TOP/doc
have groff || { skip man "groff not installed"; exit 0; }

pages=("$D"/*.1)
for t in "$D"/*.1.in; do
	f=$HS_BUILD/doc/$(basename "$t" .in)
	if [ -e "$f" ]; then pages+=("$f"); else fail "man-made-$(basename "$f")" "make did not write $f"; fi
done
for f in "${pages[@]}"; do
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
	page=$(man_page "haltstat-$c")
	[ -e "$HS_TOP/cmd/$c.c" ] && [ -e "$page" ] || continue
	missing=""
	for o in $(cmd_long_options "$c"); do
		grep -q -- "\\\\-\\\\-${o//-/\\\\-}" "$page" || missing+=" --$o"
	done
	check_eq "man-$c-options" "" "$missing"
done

# The pages that document --kernel-era name exactly the eras of the binary,
# in its order, and no template line is left.
eras=$(kernel_eras | tr '\n' ' ')
for c in report advise replay; do
	page=$(man_page "haltstat-$c")
	listed=$(sed -n '/^\.BI \\-\\-kernel\\-era/,/^\.TP/p' "$page" | sed -n 's/^\.BR //p' |
		 tr -d '",' | sed 's/ or / /' | tr -s ' ' '\n' | grep . | tr '\n' ' ')
	check_eq "man-$c-kernel-eras" "$eras" "$listed"
	grep -q '^@KERNEL_ERAS@$' "$page" && fail "man-$c-template-filled" "$page"
done
[ -n "$eras" ] || fail man-kernel-eras-listed "haltstat help kernel-eras printed nothing"
