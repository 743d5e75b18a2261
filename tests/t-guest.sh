#!/bin/bash
# The guest layer: a real recording of this kind of machine's own idle
# (haltstat record --guest on a KVM guest running cpuidle-haltpoll, tests/data/guest/)
# must give the guest what-if and a guest_halt_poll_ns suggestion in advise,
# report (text, JSON, markdown); its prediction for 300000 is checked against
# a recording of the same workload made at 300000; and on a nested KVM host's
# recording the machine's own haltpoll idle is the guest layer's finding, never
# the host's (the VMs it runs are unaffected by it).
. "$(dirname "$0")/lib.sh"

DATA=$HS_TOP/tests/data/guest
SCHEMA=$HS_TOP/formats/render/report.schema.json
have xz || { skip guest "xz missing"; exit 0; }
have python3 || { skip guest "python3 missing"; exit 0; }
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then PY=$p; break; fi
done

for f in haltpoll-g0 haltpoll-g300000; do
	xz -dc "$DATA/$f.dat.xz" >"$TMP/$f.dat" || { fail guest_data "cannot unpack $f"; exit 0; }
done
xz -dc "$HS_TOP/tests/data/real-kvm/cyc40-150-800-hp0-r1-slice.dat.xz" >"$TMP/nested.dat" ||
	{ fail guest_data "cannot unpack the nested host slice"; exit 0; }
G0=$TMP/haltpoll-g0.dat
G3=$TMP/haltpoll-g300000.dat

check guest_advise_runs "$HALTSTAT" advise -i "$G0"
"$HALTSTAT" advise -i "$G0" >"$TMP/a.out" 2>&1
if grep -q '^host layer: halt_poll_ns' "$TMP/a.out" && grep -q '^guest layer: guest_halt_poll_ns' "$TMP/a.out"
then ok guest_advise_layers; else fail guest_advise_layers "$(head -c 300 "$TMP/a.out")"; fi
rows=$(sed -n '/^guest what-if:/,/^$/p' "$TMP/a.out" | grep -cE '^[ *] +[0-9]+ +4019 ')
check_eq guest_whatif_rows 12 "$rows"
if grep -qE '^suggestion: guest_halt_poll_ns=[0-9]+ \(objective balanced' "$TMP/a.out" &&
   grep -q 'Apply: echo [0-9]* > /sys/module/haltpoll/parameters/guest_halt_poll_ns' "$TMP/a.out"
then ok guest_suggestion_shown; else fail guest_suggestion_shown "$(grep suggestion "$TMP/a.out")"; fi
if grep -q 'findings: self_haltpoll' "$TMP/a.out" && grep -q 'guest_halt_poll_ns is 0: this machine never polls' "$TMP/a.out"
then ok guest_recorded_off; else fail guest_recorded_off; fi

# with latency first, polling pays: a non-zero value, and the cliff at 300000 is said
"$HALTSTAT" advise -i "$G0" --objective latency >"$TMP/l.out" 2>&1
sugg=$(sed -n 's/^suggestion: guest_halt_poll_ns=\([0-9]*\).*/\1/p' "$TMP/l.out")
if [ -n "$sugg" ] && [ "$sugg" -ge 100000 ]; then ok guest_suggestion_latency
else fail guest_suggestion_latency "suggested '$sugg'"; fi
if grep -q 'At guest_halt_poll_ns 300000 the outcome depends on a few microseconds' "$TMP/l.out"
then ok guest_cliff_said; else fail guest_cliff_said; fi

# report: text and markdown show the guest layer of a recording without VMs
"$HALTSTAT" report -i "$G0" >"$TMP/r.out" 2>&1
if grep -q '^guest what-if:' "$TMP/r.out" && grep -q '^suggestion: guest_halt_poll_ns=' "$TMP/r.out"
then ok guest_report_text; else fail guest_report_text "$(tail -c 300 "$TMP/r.out")"; fi
"$HALTSTAT" report -i "$G0" --format markdown >"$TMP/r.md" 2>&1
if grep -q "^#### Guest layer (this machine's own idle toward its hypervisor): \`guest_halt_poll_ns=" "$TMP/r.md" &&
   grep -q '^| guest_halt_poll_ns | wakes |' "$TMP/r.md"
then ok guest_report_markdown; else fail guest_report_markdown; fi

for f in "$G0" "$G3" "$TMP/nested.dat"; do
	"$HALTSTAT" report -i "$f" --format json >"$f.json" 2>"$TMP/err" || fail guest_json "$(cat "$TMP/err")"
done
if [ -n "$PY" ]; then
	for f in "$G0" "$G3" "$TMP/nested.dat"; do
		check "guest_json_schema_$(basename "$f" .dat)" "$PY" -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
' "$SCHEMA" "$f.json"
	done
else
	skip guest_json_schema "python3-jsonschema not installed"
fi

# the JSON: the guest layer's rows, suggestion and findings, each finding with its layer
check guest_json_layer python3 - "$G0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["guest_advice"]
assert a["layer"] == "guest", a["layer"]
assert isinstance(a["guest_halt_poll_ns"], int), a["guest_halt_poll_ns"]
assert [f["code"] for f in a["findings_detail"]] == a["findings"]
assert all(f["layer"] == "guest" for f in a["findings_detail"])
assert "self_haltpoll" in a["findings"]
rows = d["guest_what_if"]
assert [r["guest_halt_poll_ns"] for r in rows][:7] == [0, 10000, 20000, 50000, 100000, 150000, 200000]
for r in rows:
    assert r["hit_rate_low"] <= r["hit_rate"] <= r["hit_rate_high"], r
    assert r["hits"] + r["halts"] == r["wakes"], r
assert rows[0]["hits"] == 0 and rows[0]["poll_cpu_s"] == 0
assert d["guest"][0]["what_if"][6]["wakes"] == rows[6]["wakes"]
PY

# the replay of the recorded 300000 follows the governor: poll outcome and limit changes
check guest_selfcheck_g300000 python3 - "$G3.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["guest"][0]
sc = g["selfcheck"]
assert sc["replayed_guest_halt_poll_ns"] == 300000, sc
assert sc["wakes_compared"] > 3000 and sc["agree_pct"] >= 90, sc
PY

# prediction against measurement: the hp-0 recording's row at 300000 against
# the hits (hits / wakes) of the same workload recorded at 300000
check guest_prediction_300000 python3 - "$G0.json" "$G3.json" <<'PY'
import json, sys
p = [r for r in json.load(open(sys.argv[1]))["guest_what_if"] if r["guest_halt_poll_ns"] == 300000][0]
m = json.load(open(sys.argv[2]))
g = m["guest"][0]
wakes = [r for r in g["what_if"] if r["guest_halt_poll_ns"] == 300000][0]["wakes"]
measured = g["poll_hits"] / wakes
assert abs(p["hit_rate"] - measured) <= 0.10, (p["hit_rate"], measured)
assert p["hit_rate_high"] - p["hit_rate_low"] >= 0.05, p
PY

# pasted text (trace-cmd report, no metadata): guest_halt_poll_ns is told from the limit changes
if have trace-cmd; then
	trace-cmd report -i "$G3" 2>/dev/null | grep -E 'cpu_idle|guest_halt_poll_ns' >"$TMP/g3.txt"
	"$HALTSTAT" advise -i "$TMP/g3.txt" >"$TMP/g3.out" 2>&1
	if grep -q 'the limit changes in the trace make it 300000' "$TMP/g3.out" &&
	   grep -q 'findings:.*guest_driver_unknown' "$TMP/g3.out"
	then ok guest_text_infers_setting; else fail guest_text_infers_setting "$(grep -c . "$TMP/g3.out") lines"; fi
else
	skip guest_text_infers_setting "trace-cmd not installed"
fi

# two readers side by side give the same guest rows as one
HALTSTAT_THREADS=2 "$HALTSTAT" report -i "$G0" --format json >"$TMP/t2.json" 2>/dev/null
HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$G0" --format json >"$TMP/t1.json" 2>/dev/null
check guest_sharded_same python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["guest_what_if"] == b["guest_what_if"] and a["guest_advice"] == b["guest_advice"]
' "$TMP/t1.json" "$TMP/t2.json"

# a nested KVM host: its own haltpoll idle is the guest layer's, not the host's
"$HALTSTAT" advise -i "$TMP/nested.dat" >"$TMP/n.out" 2>&1
if grep -q "tune guest_halt_poll_ns there rather than the host's halt_poll_ns" "$TMP/n.out"
then fail guest_nested_wording "the old wrong-layer sentence is back"
else ok guest_nested_wording; fi
if grep -q "The VMs this machine runs are the other layer" "$TMP/n.out"
then ok guest_nested_layers_apart; else fail guest_nested_layers_apart; fi
check guest_nested_json_layers python3 - "$TMP/nested.dat.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h, g = d["advice"], d["guest_advice"]
assert h["layer"] == "host" and all(f["layer"] == "host" for f in h["findings_detail"])
assert "self_haltpoll" not in h["findings"] and "guest_haltpoll" not in h["findings"], h["findings"]
assert g["layer"] == "guest" and "self_haltpoll" in g["findings"], g["findings"]
assert "VMs this machine runs" in g["text"]
PY

# live: on a guest that runs cpuidle-haltpoll, record --guest gives what the above reads
if ! need_tracefs || [ ! -d /sys/kernel/tracing/events/power/cpu_idle ]; then
	skip guest_record_live "no tracefs or no power:cpu_idle here"
elif [ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)" != haltpoll ]; then
	skip guest_record_live "this machine's cpuidle driver is not haltpoll"
elif ! have perl; then
	skip guest_record_live "perl missing"
else
	"$HALTSTAT" record --guest -d 1 -o "$TMP/live.dat" -- \
		perl -MTime::HiRes=usleep -e 'usleep(100) for 1..2000' >"$TMP/rec.out" 2>&1
	"$HALTSTAT" advise -i "$TMP/live.dat" >"$TMP/live.out" 2>&1
	if grep -q '^guest what-if:' "$TMP/live.out" && grep -q '^suggestion: guest_halt_poll_ns=' "$TMP/live.out"
	then ok guest_record_live
	else fail guest_record_live "$(head -c 300 "$TMP/rec.out" "$TMP/live.out" | tr '\n' ' ')"; fi
fi
