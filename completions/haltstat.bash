# bash completion for haltstat(1)                          -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-only

_haltstat_options()
{
	case $1 in
	record)	echo "-o --output -d --duration -p --pid -e --event -m --buffer" \
		     "--host --guest --no-sched -h --help --" ;;
	report)	echo "-i --input -o --output --json --csv --svg --format --linear" \
		     "--bucket-size --entries --pid --vm --vcpu --start --end" \
		     "--no-advice --objective --max-poll-cpu --candidates --kernel-era" \
		     "--no-histograms --per-vm --per-vcpu --threads -h --help" ;;
	advise)	echo "-i --input --objective --max-poll-cpu --candidates --kernel-era" \
		     "--json -h --help" ;;
	replay)	echo "-i --input --settings --runs --max-halts --max-vcpus --pin --no-pin" \
		     "--kernel-era --no-handovers --predict-only --json -h --help" ;;
	top)	echo "-s --interval -d --duration -n --count -p --pid --vm --sort" \
		     "--textfile -m --buffer -h --help" ;;
	diff)	echo "--json -h --help" ;;
	esac
}

_haltstat_words()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

# The era names, from the haltstat being completed (its table in lib/era.h).
_haltstat_eras()
{
	local hs=${COMP_WORDS[0]:-haltstat}

	command -v "$hs" >/dev/null 2>&1 || hs=haltstat
	"$hs" help kernel-eras 2>/dev/null | cut -f1
}

_haltstat_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

# Completes the argument of option $1; returns 1 when $1 takes none.
_haltstat_optarg()
{
	local cmd=$1 opt=$2 cur=$3

	case $opt in
	-i|--input)
		_haltstat_files "$cur" ;;
	-o|--output|--svg)
		_haltstat_files "$cur" ;;
	--format)
		_haltstat_words "text json csv svg openmetrics prometheus markdown" "$cur" ;;
	--objective)
		_haltstat_words "latency balanced cpu" "$cur" ;;
	--sort)
		_haltstat_words "halts hits cpu p99 vm" "$cur" ;;
	--textfile|--openmetrics)
		_haltstat_files "$cur" ;;
	--kernel-era)
		_haltstat_words "$(_haltstat_eras)" "$cur" ;;
	-e|--event)
		[[ $cmd == record ]] || return 1
		local ev=/sys/kernel/tracing/available_events
		[[ -r $ev ]] && _haltstat_words "$(<"$ev")" "$cur" ;;
	-p|--pid)
		_haltstat_words "$(ps -e -o pid= 2>/dev/null)" "$cur" ;;
	-d|--duration|-m|--buffer|--bucket-size|--entries|--vm|--vcpu|--start|--end|\
	--max-poll-cpu|--candidates|--runs|--sort|-s|--settings|--max-halts|--max-vcpus)
		COMPREPLY=() ;;
	*)
		return 1 ;;
	esac
	return 0
}

_haltstat()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd="" dashdash=0 i

	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ -z $cmd ]]; then
			[[ ${COMP_WORDS[i]} != -* ]] && cmd=${COMP_WORDS[i]}
		elif [[ ${COMP_WORDS[i]} == -- ]]; then
			dashdash=$i
			break
		fi
	done
	COMPREPLY=()
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_haltstat_words "--help --version" "$cur"
		else
			_haltstat_words "record report advise replay top diff help" "$cur"
		fi
		return
	fi
	if ((dashdash)); then	# record -- COMMAND [ARGS]
		if ((COMP_CWORD == dashdash + 1)); then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
		else
			_haltstat_files "$cur"
		fi
		return
	fi
	if [[ $cmd == help ]]; then
		_haltstat_words "record report advise replay top diff kernel-eras" "$cur"
		return
	fi
	if [[ $cur == --*=* ]]; then
		_haltstat_optarg "$cmd" "${cur%%=*}" "${cur#*=}"
		return
	fi
	_haltstat_optarg "$cmd" "$prev" "$cur" && return
	if [[ $cur == -* ]]; then
		_haltstat_words "$(_haltstat_options "$cmd")" "$cur"
		return
	fi
	case $cmd in
	diff|replay|advise|report)
		_haltstat_files "$cur" ;;
	esac
}

complete -F _haltstat haltstat
