#!/bin/bash
# Steal (lib/steal.h) from the recording into the what-if: record keeps
# /proc/stat's steal and busy time of the CPUs in its metadata, a report
# shows them and takes the stolen share of the runnable time off each
# row's pessimistic hit rate; a recording made on a guest host without the
# figure says the intervals leave it out.
. "$HS_TOP/tests/lib.sh"

have python3 || { skip steal "python3 missing"; exit 0; }
cd "$TMP" || exit 1
jget() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

# A synthetic recording at window 0 as kernel text, then the same with
# record's end-of-trace notes: 30 ms stolen of 2 CPUs that ran 270 ms
"$HS_BUILD/tests/tools/hs-synth" -v 2 -H 4000 -g 30us,100us,600us -m 0 -t plain.txt >/dev/null
{
	sed -n '1,/^#  *| |/p' plain.txt
	for kv in record_seconds=1.000 cpu_time.cpus=2 cpu_time.busy_ns=270000000 cpu_time.steal_ns=30000000; do
		printf '        haltstat-1     [000] d..1.  1000.000000: tracing_mark_write: haltstat-meta: %s\n' "$kv"
	done
	sed '1,/^#  *| |/d' plain.txt
} >stolen.txt
"$HALTSTAT" report --json -i plain.txt >plain.json 2>plain.err
check_eq steal-unknown-without-figure "None" "$(jget plain.json 'd["steal"]')"
"$HALTSTAT" report --json -i stolen.txt >stolen.json 2>stolen.err
check_eq steal-read-from-notes "2 0.1 0.015" \
	"$(jget stolen.json '"%d %.4g %.4g" % (d["steal"]["cpus"], d["steal"]["runnable_share"], d["steal"]["wall_share"])')"
"$HALTSTAT" report -i stolen.txt >stolen.out 2>&1
check steal-text-line grep -q '^steal: 1.50% of the CPUs.* time, 10.00% of their runnable time' stolen.out

# Per vCPU and candidate: the low end lowered by a tenth of the hit rate
# (not below 0), the point and the high end untouched
check steal-low-end-lowered python3 - plain.json stolen.json <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
rows = 0
for va, vb in zip(sorted(a["vcpus"], key=lambda v: v["tid"]), sorted(b["vcpus"], key=lambda v: v["tid"])):
    for ra, rb in zip(va["what_if"], vb["what_if"]):
        want = max(0.0, ra["hit_rate_low"] - 0.1 * ra["hit_rate"])
        assert abs(rb["hit_rate_low"] - want) < 1e-9, (ra, rb)
        assert rb["hit_rate"] == ra["hit_rate"] and rb["hit_rate_high"] == ra["hit_rate_high"]
        assert rb["poll_cpu_s_high"] >= ra["poll_cpu_s_high"]
        rows += ra["hit_rate"] > 0
assert rows >= 4, rows
PY
# the suggestion rests on the pessimistic end: never a larger window with steal
check steal-suggestion-not-larger python3 - plain.json stolen.json <<'PY'
import json, sys
s = [json.load(open(f))["advice"]["halt_poll_ns"] for f in sys.argv[1:3]]
assert s[0] is not None and (s[1] is None or s[1] <= s[0]), s
PY

# A real recording from a guest host (cpuidle driver haltpoll), made
# before record kept the figure: the advice says what the intervals lack
if have xz && xz -dc "$HS_TOP/tests/data/real-kvm/cyc40-150-800-hp0-r1.dat.xz" >cyc.dat 2>/dev/null; then
	"$HALTSTAT" report --json -i cyc.dat >cyc.json 2>/dev/null
	check_eq steal-nested-note "True" "$(jget cyc.json '"steal_unknown" in d["advice"]["findings"]')"
else
	fail steal-nested-note "cannot unpack the shared recording"
fi
check_eq steal-finding-when-stolen "True False" "$(jget stolen.json '"%s %s" % ("steal" in d["advice"]["findings"], "steal_unknown" in d["advice"]["findings"])')"

# A live recording keeps the figure, for every CPU /proc/stat lists
if need_tracefs; then
	"$HALTSTAT" record -o live.dat -- sleep 0.3 >/dev/null 2>live.err
	"$HALTSTAT" report --json -i live.dat >live.json 2>/dev/null
	check_eq steal-recorded-live "$(grep -c '^cpu[0-9]' /proc/stat) True" \
		"$(jget live.json '"%s %s" % (d["steal"]["cpus"], 0 <= d["steal"]["runnable_share"] <= 1)' 2>&1)"
else
	skip steal-recorded-live "needs root and tracefs"
fi
