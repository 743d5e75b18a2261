#!/bin/bash
# hs-workload: real tiny VMs halt exactly as many times as asked.
. "$(dirname "$0")/lib.sh"
WL=$HS_BUILD/tests/tools/hs-workload

if [ ! -x "$WL" ]; then fail workload-built "no $WL"; exit 0; fi

# Without /dev/kvm the tool must say so in one line and exit 8.
if ! need_kvm; then
	"$WL" -n 1 -H 10 2>"$TMP/nokvm.err" >/dev/null
	check_eq workload-no-kvm-status "8 1" "$? $(grep -c /dev/kvm "$TMP/nokvm.err")"
	skip workload "no usable /dev/kvm"
	exit 0
fi
if ! have python3; then skip workload "python3 not installed"; exit 0; fi

jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$1" "$2"; }

cd "$TMP" || exit 1
if "$WL" -n 3 -H 3000 -g 30us,100us,600us -o w.json 2>w.err; then
	ok workload-run
	check_eq workload-halts "3000 3000 3000" "$(jget w.json '" ".join(str(v["halts"]) for v in d["vm"])')"
	check_eq workload-irqs "3000 3000 3000" "$(jget w.json '" ".join(str(v["irqs"]) for v in d["vm"])')"
	check_eq workload-names "CPU 0/KVM CPU 1/KVM CPU 2/KVM" \
		"$(jget w.json '" ".join(v["comm"] for v in d["vm"])')"
	check workload-cpu-time python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if all(v["vcpu_cpu_ns"] > 0 and v["tid"] > 0 for v in d["vm"]) else 1)' w.json
else
	fail workload-run "$(head -c 300 w.err)"
fi

# One process per VM, with per-VM KVM_CAP_HALT_POLL.
if "$WL" --fork -n 2 -H 1000 -g period:50us -p 0,100000 -o f.json 2>f.err; then
	check_eq workload-fork-halts "1000 1000" "$(jget f.json '" ".join(str(v["halts"]) for v in d["vm"])')"
	check_eq workload-fork-pids 2 "$(jget f.json 'len(set(v["pid"] for v in d["vm"]))')"
	check_eq workload-fork-cap "0 100000" "$(jget f.json '" ".join(str(v["halt_poll_ns"]) for v in d["vm"])')"
else
	fail workload-fork "$(head -c 300 f.err)"
fi

# Rate: short gaps must reach 50,000 halts/s in total, on CPUs that are
# not busy with other work: what others took of the CPUs during the run
# (from /proc/stat, less the workload's own time) decides pass or skip.
busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
b0=$(busy_jiffies)
if /usr/bin/time -f '%e %U %S' -o r.time "$WL" -n 2 -H 100000 -g 1us -o r.json 2>r.err; then
	b1=$(busy_jiffies)
	rate=$(jget r.json 'int(d["halts_per_s"])')
	# others' share of one CPU: busy CPU-seconds minus the workload's, over its wall time
	others=$(awk -v b="$((b1 - b0))" -v hz="$(getconf CLK_TCK)" '{ o = (b / hz - $2 - $3) / $1;
		printf "%.2f", o < 0 ? 0 : o }' r.time)
	if [ "$rate" -ge 50000 ]; then
		ok workload-rate
	elif awk -v o="$others" 'BEGIN { exit !(o > 0.25) }'; then
		skip workload-rate "$rate halts/s while other work took $others of a CPU"
	else
		fail workload-rate "$rate halts/s (other work: $others of a CPU)"
	fi
else
	fail workload-rate "$(head -c 300 r.err)"
fi
