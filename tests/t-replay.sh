#!/bin/bash
# haltstat replay: option errors, the one-line error without /dev/kvm, the
# predictions against the what-if and the synthetic kernel, and on a KVM host
# real runs of hs-workload and of the replay inside the predicted intervals
# (a skip, with the share said, when other processes took more than a
# twentieth of a CPU meanwhile: any runnable task ends a poll).
. "$(dirname "$0")/lib.sh"
SYNTH=$HS_BUILD/tests/tools/hs-synth
WL=$HS_BUILD/tests/tools/hs-workload
FORMATS=$HS_TOP/tests/data/formats
GAPS=30us,100us,600us

if [ ! -x "$SYNTH" ] || [ ! -x "$HALTSTAT" ]; then fail replay-built "missing tools"; exit 0; fi
if ! have python3; then skip replay "python3 not installed"; exit 0; fi
cd "$TMP" || exit 1

synth() { "$SYNTH" --formats "$FORMATS" "$@" 2>>synth.err; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$1" "$2"; }

synth -v 2 -H 3000 -g $GAPS -m 200000 -o s.dat -j s.json || { fail replay-synth "$(head -c 300 synth.err)"; exit 0; }

# Bad command lines: exit 2 before anything else, KVM or not.
for bad in "--runs 0" "--runs x" "--settings abc" "--settings 5000000000" "--max-halts 0" \
	   "--max-vcpus 999" "--kernel-era 9" "--bogus" "extra" "--settings"; do
	# shellcheck disable=SC2086
	"$HALTSTAT" replay -i s.dat $bad >/dev/null 2>bad.err
	check_eq "replay-usage-${bad// /_}" "2 1" "$? $(wc -l <bad.err)"
done

# Every long option of cmd/replay.c is in the man page and in the completions.
missing=""
for o in $(cmd_long_options replay); do
	grep -q -- "\\\\-\\\\-${o//-/\\\\-}" "$(man_page haltstat-replay)" || missing+=" man:--$o"
	grep -q -- "--$o" "$HS_TOP/completions/haltstat.bash" || missing+=" bash:--$o"
	grep -q -- "--$o" "$HS_TOP/completions/_haltstat" || missing+=" zsh:--$o"
	grep -q -- "-l $o" "$HS_TOP/completions/haltstat.fish" || missing+=" fish:--$o"
done
check_eq replay-options-documented "" "$missing"

# Without /dev/kvm: exit 8 with one line that names it.
if ! need_kvm; then
	"$HALTSTAT" replay -i s.dat >nokvm.out 2>nokvm.err
	check_eq replay-no-kvm "8 1 1 0" \
		"$? $(wc -l <nokvm.err) $(grep -c /dev/kvm nokvm.err) $(wc -c <nokvm.out)"
fi

# Predictions without VMs: per vCPU, the replayed times to wake give the
# generator's own hit count and polling time at the recorded setting, and
# the what-if's rows at every setting.
if "$HALTSTAT" replay -i s.dat --predict-only --no-pin --max-vcpus 2 --json \
	--settings 50000,200000,400000 >p.json 2>p.err; then
	ok replay-predict-only
else
	fail replay-predict-only "$(head -c 300 p.err)"
fi
# schema_check NAME FILE: FILE validates against formats/render/replay.schema.json
schema_check() {
	if python3 -c 'import jsonschema' 2>/dev/null; then
		check "$1" python3 -c 'import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))' \
			"$HS_TOP/formats/render/replay.schema.json" "$2"
	else
		skip "$1" "python3-jsonschema not installed"
	fi
}
schema_check replay-schema-predict-only p.json
python3 - p.json s.json <<'PY' >p.cmp
import json, sys
r, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
truth = {t["tid"]: t for t in s["threads"]}
at = {x["halt_poll_ns"]: x for x in r["settings"]}[200000]
for v, f in zip(r["vcpus"], at["vcpus"]):
    t = truth[v["tid"]]
    print(v["halts_replayed"] == t["halts"], f["predicted"]["hits"] == t["poll_hits"],
          round(f["predicted"]["poll_cpu_s"] * 1e9) == t["poll_cpu_ns"])
PY
check_eq replay-predict-vs-generator "$(printf 'True True True\nTrue True True')" "$(cat p.cmp)"
"$HALTSTAT" advise -i s.dat --json --candidates 50000,200000,400000 >a.json 2>a.err
python3 - p.json a.json <<'PY' >pa.cmp
import json, sys
r, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = {v["tid"]: {w["halt_poll_ns"]: w for w in v["what_if"]} for v in a["vcpus"]}
for st in r["settings"]:
    for v, f in zip(r["vcpus"], st["vcpus"]):
        w = rows[v["tid"]][st["halt_poll_ns"]]
        print(f["predicted"]["hits"] == w["hits"] and f["halts"] == w["halts"])
PY
check_eq replay-predict-vs-whatif "$(printf 'True\n%.0s' 1 2 3 4 5 6)" "$(cat pa.cmp)"
# the text shows the same rows
"$HALTSTAT" replay -i s.dat --predict-only --no-pin --settings 200000 >p.txt 2>&1
check replay-predict-text grep -Eq '^ +200000 +all +6000 +33\.2 ' p.txt

# --max-halts keeps the first halts: the prediction is the what-if over a
# trace cut after them (5000 > the what-if's 4096-halt buffer, so the wake
# overhead estimate is the same).
synth -v 1 -H 8000 -g 30us,100us,600us,45us -m 200000 -o c.dat -t c.txt -j c.json
awk '/kvm_vcpu_wakeup/ { n++ } { print } n == 5000 { exit }' c.txt >cut.txt
"$HALTSTAT" replay -i c.dat --predict-only --max-halts 5000 --settings 50000,200000 --json >c.json.out 2>c.err
"$HALTSTAT" advise -i cut.txt --json --candidates 50000,200000 >cut.json 2>cut.err
python3 - c.json.out cut.json <<'PY' >c.cmp
import json, sys
r, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(r["vcpus_capped"], r["vcpus"][0]["halts_recorded"], r["vcpus"][0]["halts_replayed"])
for st, w in zip(r["settings"], a["vcpus"][0]["what_if"]):
    print(st["total"]["predicted"]["hits"] == w["hits"], st["total"]["halts"] == w["halts"])
PY
check_eq replay-capped "$(printf '1 8000 5000\nTrue True\nTrue True')" "$(cat c.cmp)"
"$HALTSTAT" replay -i c.dat --predict-only --max-halts 5000 >c.txt 2>&1
check replay-capped-said grep -q '^capped: 1 vCPU had more halts' c.txt

# The KVM test's pipeline with the generator as the kernel (its window logic
# is written apart from lib/sim.c): predictions from a recording at 0 must be
# within 10 points of the hit rates at each setting.
synth -v 1 -H 6000 -g $GAPS -m 0 -d 8000 -o z.dat -j z.truth.json
"$HALTSTAT" advise --json -i z.dat --candidates 50000,200000,400000 >z.json 2>z.err
for m in 50000 200000 400000; do
	synth -v 1 -H 6000 -g $GAPS -m $m -d 8000 -o y$m.dat -j y$m.json
	pred=$(jget z.json "[w['hit_rate'] for w in d['host']['what_if'] if w['halt_poll_ns'] == $m][0]")
	real=$(jget y$m.json "d['totals']['poll_hits'] / d['totals']['halts']")
	echo "# synthetic kernel: halt_poll_ns $m predicted from 0: $pred, generated: $real"
	check replay-synth-predict-$m python3 -c "import sys; sys.exit(abs($pred - $real) > 0.10)"
done

# ---- on a KVM host: real runs ----
if ! need_kvm; then skip replay-kvm "no usable /dev/kvm"; exit 0; fi
if ! need_tracefs; then skip replay-kvm "needs root and tracefs"; exit 0; fi
[ -x "$WL" ] || { fail replay-kvm-built "no $WL"; exit 0; }
NV=1; [ "$(nproc)" -ge 3 ] && NV=2
H=6000

# recorded without polling (per-VM KVM_CAP_HALT_POLL=0), the workload pinned;
# with sched events, so that sched_waking times every wait
if "$HALTSTAT" record --sched -o r0.dat -- "$WL" -n $NV -H $H -g $GAPS -p 0 -o w0.json \
	>rec.out 2>rec.err; then
	ok replay-kvm-record
else
	fail replay-kvm-record "$(head -c 300 rec.err)"; exit 0
fi
if [ "$(jget w0.json 'd["vm"][0]["kvm_stats"] is None')" = True ]; then
	skip replay-kvm "no KVM binary statistics (Linux 5.14+)"; exit 0
fi
"$HALTSTAT" advise --json -i r0.dat --candidates 50000,200000,400000 >adv.json 2>adv.err
check replay-kvm-advise test -s adv.json
# every vCPU's waits timed by its thread's sched_waking (all but the first),
# their overhead measured, and the workload told closed loop (it arms each
# wake when the guest halts)
"$HALTSTAT" report --json -i r0.dat >r0.json 2>/dev/null
jget r0.json '"\n".join("# vCPU %s: %d of %d waits timed, overhead %s, wake model %s" % (v["tid"], v["timed_waits"], v["waits"], v["wake_overhead_measured"], v["wake_model"]) for v in d["vcpus"])'
check_eq replay-kvm-timed-waits True "$(jget r0.json 'bool(d["vcpus"]) and all(v["timed_waits"] >= 0.9 * v["waits"] and v["wake_overhead_source"] == "sched_waking" for v in d["vcpus"])')"
check_eq replay-kvm-timed-closed-loop True "$(jget r0.json 'all(v["wake_model"]["model"] == "closed" and v["wake_model"]["evidence"] == "timed_waits" for v in d["vcpus"])')"

# hit rate of one hs-workload result from KVM's counters
wl_hits() { jget "$1" 'sum(v["kvm_stats"]["halt_successful_poll"] for v in d["vm"]) / sum(v["halts"] for v in d["vm"])'; }
# busy CPU time of the whole machine, in jiffies (with steal, and without
# it), and its steal; others_share LABEL CMD... runs CMD under
# /usr/bin/time and sets OTHERS to what other processes took of one CPU
# meanwhile (a poll ends as soon as another task is runnable on its CPU, so
# the measurements only mean something on CPUs left alone), STEAL to the
# stolen share of every CPU's wall time and STOLEN to the stolen share of
# their runnable time (what replay takes off its judged low ends)
busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $7 + $8, $9 }' /proc/stat; }
others_share() {
	local b0 r0 s0 b1 r1 s1 rc
	read -r b0 r0 s0 < <(busy_jiffies)
	/usr/bin/time -f '%e %U %S' -o others.time "$@"
	rc=$?
	read -r b1 r1 s1 < <(busy_jiffies)
	OTHERS=$(awk -v b="$((b1 - b0))" -v hz="$(getconf CLK_TCK)" '{ o = (b / hz - $2 - $3) / ($1 > 0 ? $1 : 1);
		printf "%.2f", o < 0 ? 0 : o }' others.time)
	STEAL=$(awk -v s="$((s1 - s0))" -v hz="$(getconf CLK_TCK)" -v n="$(nproc)" '{ printf "%.4f", s / hz / (($1 > 0 ? $1 : 1) * n) }' others.time)
	STOLEN=$(awk -v s="$((s1 - s0))" -v r="$((r1 - r0))" 'BEGIN { printf "%.4f", (s + r > 0 ? s / (s + r) : 0) }')
	return $rc
}
# A poll ends as soon as any other task is runnable on its CPU: a twentieth
# of a CPU taken by others, in wake-ups, already ends many (t-workload's
# quarter of a CPU is for a rate, which it barely moves)
busy() { awk -v o="$1" 'BEGIN { exit !(o > 0.05) }'; }
# claim NAME WHY: a measured prediction that missed. On this kind of machine
# (a nested KVM host) the wake-up overhead varies from wait to wait (18 to
# 130 us) and drifts within a second; the recording at 0 now times each wait
# by sched_waking, which takes that spread out of its times to wake, but
# until that is confirmed on KVM hosts (issue 14 stays open on it) a miss is
# reported, with its numbers, as a line of its own and does not fail the
# suite; HS_KVM_STRICT=1 makes it a failure, for checking the predictions on
# a quiet KVM host.
claims_missed=0
claim() {
	if [ -n "$HS_KVM_STRICT" ]; then
		fail "$1" "$2"
	else
		echo "# prediction missed (not a failure without HS_KVM_STRICT=1): $1: $2"
		claims_missed=$((claims_missed + 1))
	fi
}
# judge NAME STATUS SHARE WHAT MISS [STEAL]: ok when STATUS is 0; else a skip
# when other work took more than a twentieth of a CPU (a quiet CPU is what
# these checks need: the recording cannot know what else a run's host will
# run), when the hypervisor above this machine stole more than 5% of the
# vCPUs' CPUs (replay's steal_share; below that the steal is in the model:
# replay lowers each judged low end by the run's stolen share of the
# predicted hits), or in the sanitized pass (its binaries are the waker: on
# a nested host their load made wake-up IPIs take milliseconds, 349 of 3000
# halts over 100 us against 7, and the plain pass judges); else MISS (fail
# or claim) NAME with WHAT
judge() {
	if [ "$2" -eq 0 ]; then
		ok "$1"
	elif busy "$3"; then
		skip "$1" "$4, while other work took $3 of a CPU"
	elif [ -n "$6" ] && awk -v s="$6" 'BEGIN { exit !(s > 0.05) }'; then
		skip "$1" "$4, while the hypervisor above stole $6 of the vCPUs' CPUs"
	elif [ "$SANITIZE" = 1 ]; then
		skip "$1" "$4, in the sanitized build (the plain pass judges the timing)"
	else
		"$5" "$1" "$4 (other work: $3 of a CPU)"
	fi
}
# stolen FILE [SETTING]: the largest steal share of a replay's settings (or of
# one), 0 when unknown
stolen() { jget "$1" "max([(s['total']['measured']['steal_share'] or {'mean': 0})['mean'] for s in d['settings'] if '$2' in ('', str(s['halt_poll_ns']))] or [0])"; }
# inside LOW HIGH CUT RATES...: their mean within [LOW - CUT, HIGH], give or
# take 0.0005 (CUT: the share of halts that handed the CPU to another task,
# each of which can have lost its poll hit; see haltstat-replay(1))
inside() { python3 -c 'import sys; lo, hi, cut = (float(x) for x in sys.argv[1:4]); r = [float(x) for x in sys.argv[4:]]; m = sum(r) / len(r) if r else -1; sys.exit(0 if r and lo - cut - 5e-4 <= m <= hi + 5e-4 else 1)' "$@"; }
# the mean hand-over share of hs-workload results
wl_cut() { python3 -c 'import json, sys; d = [json.load(open(f)) for f in sys.argv[1:]]; print(sum(min(1, x["handovers"] / x["halts"]) for x in d) / len(d))' "$@"; }
echo "# halt_poll_ns  predicted (interval)  hs-workload measured mean (min..max) over 3 runs"
rec_stolen=$(jget adv.json '(d["steal"] or {"runnable_share": 0})["runnable_share"]')
for m in 50000 200000 400000; do
	rates="" worst=0 steal=0 stolen=0
	for k in 1 2 3; do
		if others_share "$WL" -n $NV -H $H -g $GAPS -p $m --handovers -o w$m.$k.json 2>wl.err; then
			rates+="$(wl_hits w$m.$k.json) "
			worst=$(awk -v a="$worst" -v b="$OTHERS" 'BEGIN { print (b > a ? b : a) }')
			steal=$(awk -v a="$steal" -v b="$STEAL" 'BEGIN { print (b > a ? b : a) }')
			stolen=$(awk -v a="$stolen" -v b="$STOLEN" 'BEGIN { print a + b / 3 }')
		else
			fail replay-kvm-workload-$m "$(head -c 300 wl.err)"
		fi
	done
	read -r pred lo hi < <(jget adv.json "' '.join(str(w[k]) for w in d['host']['what_if'] if w['halt_poll_ns'] == $m for k in ('hit_rate', 'hit_rate_low', 'hit_rate_high'))")
	python3 -c 'import sys; p, lo, hi = (float(x) for x in sys.argv[2:5]); r=[float(x) for x in sys.argv[5:]]; m=sum(r)/len(r)
print("# %12s  %8.1f%% (%.1f-%.1f)  %8.1f%% (%.1f..%.1f)" % (sys.argv[1], 100*p, 100*lo, 100*hi, 100*m, 100*min(r), 100*max(r)))' $m "$pred" "$lo" "$hi" $rates
	cut=$(wl_cut w$m.[123].json 2>/dev/null || echo 0)
	# the runs' stolen share of the predicted hits in place of the recording's
	lo=$(awk -v lo="$lo" -v p="$pred" -v rq="$rec_stolen" -v q="$stolen" 'BEGIN { print lo + (rq - q) * p }')
	echo "#               hand-overs to other tasks in a share $cut of the halts, steal $steal (of runnable time $stolen, recorded $rec_stolen)"
	inside "$lo" "$hi" "$cut" $rates
	judge replay-kvm-predicted-$m $? "$worst" "measured $rates outside [$lo - $cut, $hi]" claim "$steal"
done

# self-check on a recording at a non-zero setting (the metadata holds the
# module parameter, so it must equal the per-VM setting)
mod=$(cat /sys/module/kvm/parameters/halt_poll_ns 2>/dev/null)
if [ "$mod" = 200000 ]; then
	# with sched events, so that the self-check ends each poll where another
	# task became runnable (without them it agreed on 88.7% under load)
	others_share "$HALTSTAT" record --sched -o r2.dat -- "$WL" -n $NV -H $H -g $GAPS -p 200000 -o w2.json >rec2.out 2>rec2.err
	"$HALTSTAT" report --json -i r2.dat >r2.json 2>r2.err
	agree=$(jget r2.json 'min(v["selfcheck"]["agree_pct"] or 0 for v in d["vcpus"] if v["comm"].endswith("/KVM"))')
	echo "# self-check agreement at 200000: $agree% (other work: $OTHERS of a CPU)"
	python3 -c "import sys; sys.exit($agree < 95)"
	judge replay-kvm-selfcheck $? "$OTHERS" "agreement $agree% < 95%" fail
else
	skip replay-kvm-selfcheck "module halt_poll_ns is $mod, not 200000"
fi

# haltstat replay itself: the measured hit rate (mean of the runs) inside
# its prediction interval
if others_share "$HALTSTAT" replay -i r0.dat --settings 50000,200000,400000 --runs 3 --json >rp.json 2>rp.err; then
	ok replay-kvm-run
	"$HALTSTAT" replay -i r0.dat --settings 50000,200000,400000 --runs 3 --predict-only 2>&1 | sed 's/^/# /'
	for m in 50000 200000 400000; do
		got=$(jget rp.json "[(s['total']['measured']['runs_inside'], s['total']['measured']['hit_rate']['mean'], s['total']['predicted']['hit_rate_low'], s['total']['predicted']['hit_rate_high']) for s in d['settings'] if s['halt_poll_ns'] == $m][0]")
		[ "$(jget rp.json "[s['total']['measured']['inside'] for s in d['settings'] if s['halt_poll_ns'] == $m][0]")" = True ]
		judge replay-kvm-measured-$m $? "$OTHERS" "outside the interval; runs inside, mean, interval: $got" claim "$(stolen rp.json $m)"
	done
	check_eq replay-kvm-halts "True" "$(jget rp.json 'all(s["total"]["measured"]["halts"] == s["total"]["halts"] for s in d["settings"])')"
	schema_check replay-kvm-schema rp.json
	# this host's wake-up overhead, measured before the runs: ordered
	# quantiles, and near the timed waits' median the same host recorded
	# seconds before (within a factor 2: a nested host's wakes come in bursts)
	here=$(jget rp.json '" ".join("%d/%d" % (v["wake_overhead_here"]["p50_ns"], v["wake_overhead_ns"]) for v in d["vcpus"])')
	echo "# wake-up overhead here/recorded (ns): $here"
	check_eq replay-kvm-overhead-here True "$(jget rp.json 'all((lambda h, r: h["waits"] >= 100 and h["p10_ns"] <= h["p50_ns"] <= h["p90_ns"] <= h["p99_ns"] and r / 2 <= h["p50_ns"] <= 2 * r)(v["wake_overhead_here"], v["wake_overhead_ns"]) for v in d["vcpus"])')"
	"$HALTSTAT" replay -i r0.dat --settings 200000 --predict-only --json >rpp.json 2>/dev/null
	check_eq replay-predict-only-overhead-unmeasured True "$(jget rpp.json 'all(v["wake_overhead_here"] is None for v in d["vcpus"])')"
	# steal of the vCPUs' CPUs read for every run (/proc/stat)
	check_eq replay-kvm-steal "True" "$(jget rp.json 'all(s["total"]["measured"]["steal_share"] is not None and 0 <= s["total"]["measured"]["steal_share"]["mean"] <= 1 for s in d["settings"])')"
	# hand-overs counted in every run: a share of the halts per setting
	check_eq replay-kvm-handovers "True True" "$(jget rp.json '"%s %s" % (d["handovers_counted"], all(0 <= s["total"]["measured"]["handover_share"]["mean"] <= 1 for s in d["settings"]))')"
else
	fail replay-kvm-run "$(head -c 300 rp.err)"
fi

# A task that never sleeps on the vCPU's CPU: every poll ends at once
# (single_task_running()), every halt hands the CPU over to it, and that
# is what the hand-over count must say
vcpu_cpu=$(jget rp.json 'd["vcpus"][0]["cpu"]' 2>/dev/null)
if [ -n "$vcpu_cpu" ] && [ "$vcpu_cpu" != None ]; then
	taskset -c "$vcpu_cpu" sh -c 'while :; do :; done' &
	hog=$!
	"$HALTSTAT" replay -i r0.dat --settings 200000 --runs 1 --max-halts 1000 --max-vcpus 1 --json \
		>hog.json 2>hog.err
	kill $hog; wait $hog 2>/dev/null
	share=$(jget hog.json 'd["settings"][0]["vcpus"][0]["measured"]["handover_share"]["mean"]' 2>/dev/null)
	echo "# with a CPU hog on the vCPU's CPU: hand-overs in a share $share of the halts"
	check replay-kvm-handovers-hog python3 -c "import sys; sys.exit(not $share > 0.5)"
else
	skip replay-kvm-handovers-hog "the replay was not pinned"
fi

# Ctrl-C and SIGTERM end a replay with an error, its VMs torn down and no
# tracefs instance or event left behind
for sig in INT TERM; do
	"$HALTSTAT" replay -i r0.dat --settings 200000 --runs 20 >sig.out 2>sig.err &
	rp=$!
	sleep 1.5
	kill -$sig $rp
	wait $rp
	rc=$?
	left=$(ls /sys/kernel/tracing/instances | grep -c "^haltstat_$rp$")
	check_eq replay-kvm-sig$sig "1 0 interrupted" "$rc $left $(grep -o interrupted sig.err | head -1)"
done

# A real cycled-gap recording (40/150/800 us, made on another KVM host at
# window 0) replayed here at settings on both sides of its cliff, which lies
# between 200000 and 250000: the measured hit rate (mean of the runs) inside
# the predicted interval for at least 90% of the settings.
CLIFF=100000,150000,175000,200000,225000,250000,275000,300000,400000,500000
if xz -dc "$HS_TOP/tests/data/real-kvm/cyc40-150-800-hp0-r1.dat.xz" >cyc.dat 2>/dev/null &&
   others_share "$HALTSTAT" replay -i cyc.dat --settings $CLIFF --runs 2 --max-halts 3000 --json \
	>cliff.json 2>cliff.err; then
	python3 - cliff.json <<'PY' | sed 's/^/# /'
import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    t = s["total"]
    ho, st = t["measured"]["handover_share"], t["measured"]["steal_share"]
    print("%7d predicted %.1f%% (%.1f-%.1f) measured %.1f%% (%.1f..%.1f) other tasks %s steal %s %s" % (
        s["halt_poll_ns"], 100 * t["predicted"]["hit_rate"], 100 * t["predicted"]["hit_rate_low"],
        100 * t["predicted"]["hit_rate_high"], 100 * t["measured"]["hit_rate"]["mean"],
        100 * t["measured"]["hit_rate"]["min"], 100 * t["measured"]["hit_rate"]["max"],
        "%.1f%%" % (100 * ho["mean"]) if ho else "?", "%.2f%%" % (100 * st["mean"]) if st else "?",
        "inside" if t["measured"]["inside"] else "OUTSIDE"))
PY
	n=$(jget cliff.json 'sum(1 for s in d["settings"] if s["total"]["measured"]["inside"])')
	[ "$n" -ge 9 ]
	judge replay-kvm-cliff $? "$OTHERS" "$n of 10 settings inside the interval" claim "$(stolen cliff.json)"
else
	fail replay-kvm-cliff "$(head -c 300 cliff.err)"
fi
[ "$claims_missed" -eq 0 ] || echo "# $claims_missed measured predictions missed their interval (HS_KVM_STRICT=1 makes each a failure)"
