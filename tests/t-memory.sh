#!/bin/bash
# A report's peak memory stays within 32 MiB whatever the input. Recordings
# of many CPUs are where it grows: each CPU has a pread window, a queue and
# a runqueue history in every reader, and a large file is read by two
# readers side by side (two halves of its time, or a share of the vCPUs
# each), which share one windows' budget (formats/trace/tracedat_decode.c).
# Generated recordings of 128 and 256 CPUs, as v6 in the default mode and
# with two readers forced, and as v7 zstd.
. "$(dirname "$0")/lib.sh"
SYNTH=$HS_BUILD/tests/tools/hs-synth
LIM=32768	# KiB

if [ "$SANITIZE" = 1 ]; then
	skip memory "the sanitizers' shadow and quarantine count in the peak"
	exit 0
fi
[ -x /usr/bin/time ] || { skip memory "no /usr/bin/time"; exit 0; }

# peak NAME FILE [VAR=VALUE...]: the report's peak RSS within LIM
peak() {
	local name=$1 file=$2 rc kb
	shift 2
	env "$@" /usr/bin/time -f '%M' -o "$TMP/time" "$HALTSTAT" report -i "$file" -o /dev/null \
		2>"$TMP/err"
	rc=$?
	kb=$(tail -n 1 "$TMP/time")
	echo "# $name: peak RSS $kb KiB"
	if [ "$rc" -eq 0 ] && [ "${kb:-$((LIM + 1))}" -le $LIM ]; then
		ok "memory-$name ($kb KiB)"
	else
		fail "memory-$name" "exit $rc, peak RSS $kb KiB (limit $LIM): $(head -c 200 "$TMP/err")"
	fi
}

for c in 128 256; do
	# about 60-100 MB of pages: large enough to be read by two readers
	if ! "$SYNTH" -s 1 -v 8 -V 8 -H $((2560000 / c)) -g exp:150us -c $c --noise $((512000 / c)) \
		-o "$TMP/c$c.dat" -j /dev/null >/dev/null 2>"$TMP/gen.err"; then
		fail "memory-$c-cpus" "hs-synth: $(head -c 200 "$TMP/gen.err")"
		continue
	fi
	peak "$c-cpus-v6" "$TMP/c$c.dat"
	peak "$c-cpus-v6-two-readers" "$TMP/c$c.dat" HALTSTAT_THREADS=2
	if have trace-cmd && trace-cmd convert -i "$TMP/c$c.dat" -o "$TMP/c$c.v7" --file-version 7 \
		--compression zstd >/dev/null 2>&1; then
		peak "$c-cpus-v7" "$TMP/c$c.v7"
	else
		skip "memory-$c-cpus-v7" "trace-cmd cannot convert here"
	fi
	rm -f "$TMP/c$c.dat" "$TMP/c$c.v7"
done
