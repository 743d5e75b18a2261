#!/bin/bash
# Shell completions: the bash one is driven with COMP_WORDS/COMP_CWORD as
# bash itself would; fish answers `complete -C`; zsh is only parsed.
. "$HS_TOP/tests/lib.sh"
C=$HS_TOP/completions

# comp WORDS...: the completions bash offers for the last word
comp() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_haltstat; printf "%s\n" "${COMPREPLY[@]}"' _ "$C/haltstat.bash" "$@" | sort | tr '\n' ' '
}

mkdir -p "$TMP/d" && : >"$TMP/d/run1.dat" && : >"$TMP/d/run2.dat"
check bash-syntax bash -n "$C/haltstat.bash"
check_eq bash-subcommands "advise diff help record replay report top " "$(comp haltstat '')"
check_eq bash-subcommand-prefix "record replay report " "$(comp haltstat re)"
check_eq bash-objective "balanced cpu latency " "$(comp haltstat report --objective '')"
check_eq bash-objective-eq "latency " "$(comp haltstat advise --objective=l)"
check_eq bash-kernel-era "4.4 5.x 6.1 6.11 " "$(comp haltstat report --kernel-era '')"
check_eq bash-report-j "--json " "$(comp haltstat report --j)"
check_eq bash-report-no "--no-advice --no-histograms " "$(comp haltstat report --no)"
check_eq bash-format "openmetrics " "$(comp haltstat report --format o)"
check_eq bash-record-opts "--help --host " "$(comp haltstat record --h)"
check_eq bash-top-level-opts "--help --version " "$(comp haltstat -)"
check_eq bash-help-arg "top " "$(comp haltstat help t)"
# after "record --" the first word is a command, then its arguments are files
check_eq bash-record-command "bash " "$(comp haltstat record -d 1 -- bas | tr ' ' '\n' | grep -x bash | tr '\n' ' ')"
check_eq bash-record-command-args "$TMP/d/run1.dat $TMP/d/run2.dat " "$(comp haltstat record -- sh "$TMP/d/run")"
check_eq bash-input-files "$TMP/d/run1.dat $TMP/d/run2.dat " "$(comp haltstat report -i "$TMP/d/run")"
check_eq bash-top-sort "halts hits " "$(comp haltstat top --sort h)"
check_eq bash-top-sort-eq "p99 " "$(comp haltstat top --sort=p)"
check_eq bash-top-opts "--count " "$(comp haltstat top --cou)"
check_eq bash-top-textfile "$TMP/d/run1.dat $TMP/d/run2.dat " "$(comp haltstat top --textfile "$TMP/d/run")"
check_eq bash-top-textfile-old-name "$TMP/d/run1.dat $TMP/d/run2.dat " "$(comp haltstat top --openmetrics "$TMP/d/run")"
check_eq bash-diff-opts "--json " "$(comp haltstat diff --j)"
check_eq bash-diff-files "$TMP/d/run1.dat $TMP/d/run2.dat " "$(comp haltstat diff "$TMP/d/r")"
# every option the bash file offers must be in the fish and zsh files too
for o in $(bash -c '. "$1"; for c in record report advise replay top diff; do _haltstat_options $c; done' _ "$C/haltstat.bash" | tr ' ' '\n' | grep '^--.' | sort -u); do
	grep -q -- "${o#--}" "$C/haltstat.fish" || fail "fish-has$o"
	grep -q -- "$o" "$C/_haltstat" || fail "zsh-has$o"
done
ok options-in-all-shells

if have zsh; then
	check zsh-parse zsh -n "$C/_haltstat"
	check zsh-compdef grep -q '^#compdef haltstat' "$C/_haltstat"
else
	skip zsh-parse "zsh not installed"
fi
if have fish; then
	check fish-parse fish --no-execute "$C/haltstat.fish"
	fc() { fish -N -c "source '$C/haltstat.fish'; complete -C '$1'" 2>/dev/null | cut -f1 | sort | tr '\n' ' '; }
	check_eq fish-subcommand-prefix "record replay report " "$(fc 'haltstat re')"
	check_eq fish-objective "balanced cpu latency " "$(fc 'haltstat report --objective ')"
	check_eq fish-report-j "--json " "$(fc 'haltstat report --j')"
	check_eq fish-top-sort "halts hits " "$(fc 'haltstat top --sort h')"
	check_eq fish-top-count "--count " "$(fc 'haltstat top --cou')"
else
	skip fish-parse "fish not installed"
fi
