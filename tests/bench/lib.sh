# Shared by tests/bench/run.sh and record.sh; D is the scratch directory.

# timed CMD...: one run, prints "MICROSECONDS PEAK_RSS_KB"
timed() {
	local s e
	s=$(date +%s%N)
	/usr/bin/time -f "%M" -o "$D/time.out" "$@" >/dev/null 2>"$D/cmd.err" || {
		echo "bench: failed: $* ($(head -c 200 "$D/cmd.err"))" >&2; echo "999999999 0"; return; }
	e=$(date +%s%N)
	echo "$(( (e - s) / 1000 )) $(tail -1 "$D/time.out")"
}

# measure N CMD...: warm run, then the fastest of N runs in seconds and
# their max RSS (MiB). The fastest, not the median: other tenants of a
# shared host only ever add time, and on one (a PVM guest) the median of
# three runs moved a row by half from one bench to the next.
measure() {
	local n=$1 i; shift
	"$@" >/dev/null 2>&1
	for ((i = 0; i < n; i++)); do timed "$@"; done | sort -n | awk '
		{ t[NR] = $1; if ($2 > r) r = $2; if ($1 == 999999999) f = 1 }
		END { if (f) { print "failed 0"; exit }
		      printf "%.3f %.1f\n", t[1] / 1e6, r / 1024 }'
}

# load_start: on every CPU two processes bouncing a byte through two pipes,
# two context switches per round trip (sched_switch, and idle entries).
# load_stop ends them.
load_start() {
	local cpu
	cat > "$D/pingpong.py" <<'PY'
import os, sys
a, b = os.pipe(), os.pipe()
if os.fork() == 0:
    os.close(a[1]); os.close(b[0])
    try:
        while os.read(a[0], 1):    # EOF once the parent is killed
            os.write(b[1], b"x")
    except BrokenPipeError:
        pass
    sys.exit(0)
os.close(a[0]); os.close(b[1])
while True:
    os.write(a[1], b"x")
    os.read(b[0], 1)
PY
	LOAD_PIDS=""
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" python3 "$D/pingpong.py" &
		LOAD_PIDS+=" $!"
	done
	sleep 0.5
}
load_stop() {
	[ -n "$LOAD_PIDS" ] && kill $LOAD_PIDS 2>/dev/null && wait $LOAD_PIDS 2>/dev/null
	LOAD_PIDS=""
}

# events recorded, from haltstat record's summary on stderr (file $1)
recorded_events() { awk '/ events, / { print $5 }' "$1"; }
