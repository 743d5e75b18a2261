#!/bin/bash
# haltstat replay: option errors, the one-line error without /dev/kvm, the
# predictions against the what-if and the synthetic kernel, and on a KVM host
# predicted hit rates against real runs of hs-workload and of the replay.
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

# recorded without polling (per-VM KVM_CAP_HALT_POLL=0), the workload pinned
if "$HALTSTAT" record -o r0.dat -- "$WL" -n $NV -H $H -g $GAPS -p 0 -o w0.json >rec.out 2>rec.err; then
	ok replay-kvm-record
else
	fail replay-kvm-record "$(head -c 300 rec.err)"; exit 0
fi
if [ "$(jget w0.json 'd["vm"][0]["kvm_stats"] is None')" = True ]; then
	skip replay-kvm "no KVM binary statistics (Linux 5.14+)"; exit 0
fi
"$HALTSTAT" advise --json -i r0.dat --candidates 50000,200000,400000 >adv.json 2>adv.err
check replay-kvm-advise test -s adv.json

# hit rate of one hs-workload result from KVM's counters
wl_hits() { jget "$1" 'sum(v["kvm_stats"]["halt_successful_poll"] for v in d["vm"]) / sum(v["halts"] for v in d["vm"])'; }
echo "# halt_poll_ns  predicted  hs-workload measured mean (min..max) over 3 runs"
for m in 50000 200000 400000; do
	rates=""
	for k in 1 2 3; do
		if "$WL" -n $NV -H $H -g $GAPS -p $m -o w$m.$k.json 2>wl.err; then
			rates+="$(wl_hits w$m.$k.json) "
		else
			fail replay-kvm-workload-$m "$(head -c 300 wl.err)"
		fi
	done
	pred=$(jget adv.json "[w['hit_rate'] for w in d['host']['what_if'] if w['halt_poll_ns'] == $m][0]")
	python3 -c 'import sys; p=float(sys.argv[2]); r=[float(x) for x in sys.argv[3:]]; m=sum(r)/len(r)
print("# %12s  %8.1f%%  %8.1f%% (%.1f..%.1f)" % (sys.argv[1], 100*p, 100*m, 100*min(r), 100*max(r)))' $m "$pred" $rates
	check replay-kvm-predicted-$m python3 -c 'import sys; p=float(sys.argv[1]); r=[float(x) for x in sys.argv[2:]]; sys.exit(abs(p - sum(r)/len(r)) > .10)' "$pred" $rates
done

# self-check on a recording at a non-zero setting (the metadata holds the
# module parameter, so it must equal the per-VM setting)
mod=$(cat /sys/module/kvm/parameters/halt_poll_ns 2>/dev/null)
if [ "$mod" = 200000 ]; then
	"$HALTSTAT" record -o r2.dat -- "$WL" -n $NV -H $H -g $GAPS -p 200000 -o w2.json >rec2.out 2>rec2.err
	"$HALTSTAT" report --json -i r2.dat >r2.json 2>r2.err
	agree=$(jget r2.json 'min(v["selfcheck"]["agree_pct"] or 0 for v in d["vcpus"] if v["comm"].endswith("/KVM"))')
	echo "# self-check agreement at 200000: $agree%"
	check replay-kvm-selfcheck python3 -c "import sys; sys.exit($agree < 95)"
else
	skip replay-kvm-selfcheck "module halt_poll_ns is $mod, not 200000"
fi

# haltstat replay itself: measured within 10 points of its prediction
if "$HALTSTAT" replay -i r0.dat --settings 50000,200000,400000 --runs 3 --json >rp.json 2>rp.err; then
	ok replay-kvm-run
	"$HALTSTAT" replay -i r0.dat --settings 50000,200000,400000 --runs 3 2>&1 | sed 's/^/# /'
	for m in 50000 200000 400000; do
		d=$(jget rp.json "[abs(s['total']['predicted']['hit_rate'] - s['total']['measured']['hit_rate']['mean']) for s in d['settings'] if s['halt_poll_ns'] == $m][0]")
		check replay-kvm-measured-$m python3 -c "import sys; sys.exit($d > 0.10)"
	done
	check_eq replay-kvm-halts "True" "$(jget rp.json 'all(s["total"]["measured"]["halts"] == s["total"]["halts"] for s in d["settings"])')"
else
	fail replay-kvm-run "$(head -c 300 rp.err)"
fi
