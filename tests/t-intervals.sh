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
# points and the point within 3 of every measurement (0: neither). Inside
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
rep, m, away = json.load(open(sys.argv[1])), int(sys.argv[2]), float(sys.argv[3])
row = [w for w in rep["host"]["what_if"] if w["halt_poll_ns"] == m][0]
lo, pt, hi = (100 * row[k] for k in ("hit_rate_low", "hit_rate", "hit_rate_high"))
bad = []
for f in sys.argv[4:]:
    wl = json.load(open(f))
    x = 100 * sum(v["kvm_stats"]["halt_successful_poll"] for v in wl["vm"]) / sum(v["halts"] for v in wl["vm"])
    if not lo - 0.05 <= x <= hi + 0.05:
        bad.append("measured %.2f outside [%.2f, %.2f]" % (x, lo, hi))
    if away and abs(pt - x) > 3:
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
# Issue 14 asks 6 points here too. Not met, and not honestly: replays of
# resampled copies of this recording's 6816 halts (40 bootstrap draws) spread
# with a standard deviation of 1.4 points at 200000, so the point alone is
# uncertain by +-2.8 (twice that), and the run being predicted samples gaps of
# its own; the block estimate gives +-5.1 for both. The bound is what holds.
check_pair exp120-hp0 200000 11 exp120-hp200000

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
