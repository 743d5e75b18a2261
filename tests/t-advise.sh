#!/bin/bash
# haltstat advise end to end on pasted ftrace text made by the kernel rules
# (4.4/5.x: grow clamps to M, shrink to 0) with a known 25 us wake-up overhead.
. "$HS_TOP/tests/lib.sh"

have python3 || { skip advise "python3 missing"; exit 0; }

# gen MODE M: 20000 halts of one vCPU thread, printed as trace_pipe lines
gen() {
	python3 - "$1" "$2" <<'PY'
import random, sys
mode, M = sys.argv[1], int(sys.argv[2])
random.seed(1)
P, t, delta, hits = 0, 1000.0, 25000, 0
for i in range(20000):
    if mode == "periodic":
        d = 240000 + random.randrange(10000)
    else:
        r = random.random()
        d = (random.randrange(1000, 60000) if r < .4 else
             random.randrange(60000, 400000) if r < .7 else random.randrange(1000000, 5000000))
    waited = not (P and d < P)
    ns = d + delta if waited else d
    hits += not waited
    t += (ns + 20000) / 1e9
    ev = None
    if ns <= P:
        pass
    elif P and ns > M:
        ev = ("shrink", 0, P); P = 0
    elif P < M and ns < M:
        old = P; P = min(max(P * 2, 10000), M); ev = ("grow", P, old)
    if ev:
        print("     CPU 0/KVM-4242  [001] ..... %.6f: kvm_halt_poll_ns: vcpu 0: halt_poll_ns %d (%s %d)"
              % (t - 1e-6, ev[1], ev[0], ev[2]))
    print("     CPU 0/KVM-4242  [001] d..1. %.6f: kvm_vcpu_wakeup: %s time %d ns, polling valid"
          % (t, "wait" if waited else "poll", ns))
print("# hits %d" % hits, file=sys.stderr)
PY
}

gen periodic 400000 >"$TMP/periodic.txt" 2>"$TMP/periodic.hits"
gen mix 200000 >"$TMP/mix.txt" 2>"$TMP/mix.hits"

if "$HALTSTAT" advise -i "$TMP/periodic.txt" >"$TMP/p.out" 2>&1; then
	ok advise_runs
else
	fail advise_runs "$(head -c 300 "$TMP/p.out")"
fi
sugg=$(sed -n 's/^suggestion: halt_poll_ns=\([0-9]*\).*/\1/p' "$TMP/p.out")
if [ -n "$sugg" ] && [ "$sugg" -lt 250000 ]; then ok advise_1724614_below_250us
else fail advise_1724614_below_250us "suggested '$sugg'"; fi
if grep -q 'findings:.*periodic_under_window' "$TMP/p.out"; then ok advise_1724614_flagged
else fail advise_1724614_flagged; fi

# the replay of the recorded setting must agree with the generator on every halt
"$HALTSTAT" advise -i "$TMP/mix.txt" --kernel-era 5.x >"$TMP/m.out" 2>&1
check_eq advise_selfcheck_100pct "100.0%" \
	"$(sed -n 's/.*window change of \([0-9.]*%\) of .*/\1/p' "$TMP/m.out")"
# and its what-if row at the recorded 200000 has the generator's hit count
check_eq advise_replay_hits "$(sed -n 's/# hits //p' "$TMP/mix.hits")" \
	"$(awk '$1 == "200000" || $2 == "200000" { print ($1 == "*" ? $3 : $2) }' "$TMP/m.out")"

if "$HALTSTAT" advise -i "$TMP/mix.txt" --json >"$TMP/m.json" 2>&1 &&
   python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["advice"]; sys.exit(0 if a["objective"]=="balanced" and a["what_if"] else 1)' "$TMP/m.json"; then
	ok advise_json
else
	fail advise_json "$(head -c 300 "$TMP/m.json")"
fi

"$HALTSTAT" advise -i "$TMP/mix.txt" --objective fast >/dev/null 2>&1
check_eq advise_bad_objective 2 $?
"$HALTSTAT" advise -i "$TMP/mix.txt" --kernel-era bogus >/dev/null 2>&1
check_eq advise_bad_era 2 $?
