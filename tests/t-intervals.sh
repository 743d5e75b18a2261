#!/bin/bash
# The what-if's prediction intervals against KVM's own counts, from files
# alone: real recordings at halt_poll_ns 0 (tests/data/real-kvm) and KVM's
# measured hit rate (halt_successful_poll over the guest's halts) of the same
# workload run at another setting. Every measurement must lie inside its
# interval; away from cliffs the interval must be narrow and the point close.
. "$HS_TOP/tests/lib.sh"

have python3 || { skip intervals "python3 missing"; exit 0; }
have xz || { skip intervals "xz missing"; exit 0; }
D=$HS_TOP/tests/data/real-kvm
cd "$TMP" || exit 1
for f in cyc40-150-800-hp0-r1 cyc40-150-800-hp0-r2 exp120-hp0; do
	xz -dc "$D/$f.dat.xz" >"$f.dat" || { fail intervals-data "$f"; exit 0; }
done

# check_pair RECORDING SETTING AWAY MEASURED...: AWAY=W also asks width <= W
# points and the point within 3 of every measurement (point: only the
# latter; 0: neither). Inside
# allows the 0.05 points the text rounds to.
check_pair() {
	local rec=$1 m=$2 away=$3; shift 3
	local meas="" f
	for f in "$@"; do meas+="$D/$f.workload.json "; done
	if ! "$HALTSTAT" advise --json -i "$rec.dat" --candidates "$m" >"$rec.$m.json" 2>err; then
		fail "intervals-$rec-$m" "$(head -c 300 err)"; return
	fi
	python3 - "$rec.$m.json" "$m" "$away" $meas <<'PY' >cmp.out
import json, sys
rep, m = json.load(open(sys.argv[1])), int(sys.argv[2])
near = sys.argv[3] != "0"
away = float(sys.argv[3]) if sys.argv[3] != "point" else 0
row = [w for w in rep["host"]["what_if"] if w["halt_poll_ns"] == m][0]
lo, pt, hi = (100 * row[k] for k in ("hit_rate_low", "hit_rate", "hit_rate_high"))
bad = []
for f in sys.argv[4:]:
    wl = json.load(open(f))
    x = 100 * sum(v["kvm_stats"]["halt_successful_poll"] for v in wl["vm"]) / sum(v["halts"] for v in wl["vm"])
    if not lo - 0.05 <= x <= hi + 0.05:
        bad.append("measured %.2f outside [%.2f, %.2f]" % (x, lo, hi))
    if near and abs(pt - x) > 3:
        bad.append("point %.2f more than 3 points from %.2f" % (pt, x))
if away and hi - lo > away:
    bad.append("interval [%.2f, %.2f] wider than %g points" % (lo, hi, away))
print("; ".join(bad))
PY
	echo "# $rec -> $m: $(python3 -c 'import json,sys; w=[w for w in json.load(open(sys.argv[1]))["host"]["what_if"] if w["halt_poll_ns"] == int(sys.argv[2])][0]; print("%.2f%% [%.2f, %.2f]" % tuple(100 * w[k] for k in ("hit_rate", "hit_rate_low", "hit_rate_high")))' "$rec.$m.json" "$m")"
	check_eq "intervals-$rec-$m" "" "$(cat cmp.out)"
}

for r in r1 r2; do
	rec=cyc40-150-800-hp0-$r
	check_pair $rec 100000 6 cyc40-150-800-hp100000-r1 cyc40-150-800-hp100000-r2
	check_pair $rec 300000 0 cyc40-150-800-hp300000-r1 cyc40-150-800-hp300000-r2
	check_pair $rec 500000 6 cyc40-150-800-hp500000-r1 cyc40-150-800-hp500000-r2
done
# Issue 14 asks 6 points here too. Not met, and not honestly: the run being
# predicted varies that much by itself. Its own recording at 200000, cut in
# 100 ms stretches (about 660 halts each), gives hit rates from 40% to 60%;
# scaled to a run as long as the hp=0 recording that is a standard error of
# about 1.9 points, so two such runs (the one recorded, the one predicted)
# differ by up to 2 * sqrt(2) * 1.9 = 5.3 points either way, one time in
# twenty. The check: the measurement lies inside, the point within 3, and
# the interval is no wider than that spread of the real run allows (plus a
# quarter for the model part and for an estimate from 12 stretches): earned
# from the data, not padded.
check_pair exp120-hp0 200000 point exp120-hp200000
xz -dc "$D/exp120-hp200000.dat.xz" >run200.dat || { fail intervals-data exp120-hp200000; exit 0; }
for i in $(seq 0 11); do
	"$HALTSTAT" report --json --no-advice -i run200.dat --start $((i * 100))ms \
		--end $((i * 100 + 100))ms >"stretch$i.json" 2>err || { fail intervals-stretch "$(head -c 300 err)"; break; }
done
check_eq intervals-exp120-earned "" "$(python3 - exp120-hp0.200000.json stretch*.json <<'PY'
import json, math, statistics, sys
row = [w for w in json.load(open(sys.argv[1]))["host"]["what_if"] if w["halt_poll_ns"] == 200000][0]
lo, pt, hi = (100 * row[k] for k in ("hit_rate_low", "hit_rate", "hit_rate_high"))
vs = [json.load(open(f))["vcpus"][0] for f in sys.argv[2:]]
rates = [100 * v["hit_rate"] for v in vs]
se = statistics.stdev(rates) * math.sqrt(statistics.mean(v["halts"] for v in vs) / row["halts"])
allowed = 1.25 * 2 * math.sqrt(2) * se
print("# exp120: the real run's stretches give a standard error of %.2f points at %d halts;"
      " allowed %.2f either way, interval -%.2f +%.2f" % (se, row["halts"], allowed, pt - lo, hi - pt),
      file=sys.stderr)
if len(rates) != 12 or max(pt - lo, hi - pt) > allowed:
    print("interval [%.2f, %.2f] around %.2f wider than the run's own spread allows (%.2f)"
          % (lo, hi, pt, allowed))
PY
)"

# Between 200000 and 250000 the cycled recording has its cliff: the advice
# says so in words, and the rows are ordered low <= point <= high.
"$HALTSTAT" advise -i cyc40-150-800-hp0-r1.dat --candidates 100000,200000,250000,300000 \
	--objective latency >cliff.txt 2>&1
check intervals-cliff-words grep -q 'Between 200000 and 250000 the hit rate jumps from [0-9]*% to [0-9]*%: the outcome depends on a few microseconds' cliff.txt
"$HALTSTAT" report --json -i cyc40-150-800-hp0-r1.dat >all.json 2>err
check intervals-ordered python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["host"]["what_if"] + [w for v in d["vcpus"] for w in v["what_if"]]
ok = all(w["hit_rate_low"] <= w["hit_rate"] <= w["hit_rate_high"] and
         w["poll_cpu_s_low"] <= w["poll_cpu_s"] <= w["poll_cpu_s_high"] for w in rows)
sys.exit(0 if ok and rows else 1)' all.json
# a recording at 0 cannot tell the wake model: closed loop by default, said so
check_eq intervals-wake-model "closed False" \
	"$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["vcpus"][0]["wake_model"]; print(w["model"], w["supported"])' all.json)"
