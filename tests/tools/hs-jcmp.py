#!/usr/bin/env python3
import json, sys
# jcmp.py A B [ts|meta|meta-ts]: compare two haltstat report --json
# documents, vCPUs matched by tid. Everything but the file's name and format
# must agree: haltstat record puts its metadata in the trace as notes, so a
# trace-cmd convert copy and trace-cmd's text keep it. ts: drop what depends
# on timestamps (text rounds them to microseconds: a halt's start, ts - ns,
# against the sched events' moments decides its contention), the advice built on it,
# and what depends on the event formats (text has none: it cannot tell
# whether kvm was loaded). meta: for files made without notes (hs-synth's),
# whose metadata only the trailer carries: drop what depends on it.
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
mode = sys.argv[3] if len(sys.argv) > 3 else ''
DROP = {'source', 'format'}
# ts: the guest replay is built on idle residencies, i.e. on timestamps
GUEST_TS = {'what_if', 'selfcheck', 'halt_extra_ns', 'halt_extra_samples'}
if mode.startswith('meta'):
    # rank: ties in the busiest-first order fall back on VM names, from the trailer
    # wake_model: like the self-check, it skips halts after lost events, which
    # a converted file may mark apart
    DROP |= {'record_seconds', 'kernel', 'params', 'advice', 'selfcheck', 'vms', 'tgid', 'vm',
             'rank', 'wake_model'}
# where one side lost the module's halt_poll_ns (a trace-cmd copy without the
# trailer), the windows told afterwards by the rules and the maximum in force
# rest on it: drop those too
def hpn(d):
    return (d.get('params') or {}).get('halt_poll_ns')
if mode.startswith('meta') and hpn(a) != hpn(b):
    DROP |= {'max_in_force', 'unknown_why', 'window_inferred', 'poll_misses', 'nopoll_waits',
             'unknown_waits', 'poll_ns', 'poll_cpu_s', 'poll_cpu_pct', 'window'}
if mode.endswith('ts'):
    DROP |= {'duration_s', 'first_ts_ns', 'last_ts_ns', 'halts_per_s', 'flaps_per_s',
             'poll_cpu_pct', 'poll_cpu_pct_per_vcpu', 'mean_ns', 'residency_ns', 'residency_pct',
             'idle_pct', 'advice', 'kvm', 'guest_what_if', 'guest_advice', 'contention',
             'wake_model'}
    # with sched events every poll is cut at a moment in time: at microseconds
    # a sched event a fraction of one from a halt's start falls on either side
    # of it, and that poll's cut moves (once in CI one vCPU of three sharing a
    # CPU differed by 4.04 ms of 28.3 over 3980 halts; 0.26 ms at most in
    # copies rounded at four offsets here). The what-if, where each miss's
    # poll ended, the vCPUs' busiest-first order and the self-check's replay
    # of the cuts move with it: drop those. The nanosecond copy (report -t)
    # is compared exactly.
    if any(d.get('host', {}).get('contention', {}).get('known') for d in (a, b)):
        DROP |= {'what_if', 'polls_cut', 'poll_ns', 'poll_cpu_s', 'poll_bounded_ns', 'rank'}
        # a halt within a microsecond of its cut may agree in one copy and
        # not the other; where polls are cut at once (VMs sharing a CPU) that
        # is up to 0.6% of the halts seen here (25 of 3952, a busy host), so
        # 2% is allowed
        SELFCHECK_NEAR = True
    # a wait timed by sched_waking: its overhead to the microsecond
    NEAR1 = {'wake_overhead_ns', 'wake_overhead_low_ns', 'wake_overhead_high_ns',
             'p10_ns', 'p50_ns', 'p90_ns', 'p99_ns'}
NEAR1 = globals().get('NEAR1', set())
KVM_WORDS = ('kvm was loaded', 'no kvm event formats', 'whether kvm was loaded')
def norm(x):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k in DROP:
                continue
            if k == 'vcpus':
                v = sorted(v, key=lambda t: t['tid'])
            if k == 'guest' and mode.endswith('ts'):
                v = [{g: w for g, w in c.items() if g not in GUEST_TS} for c in v]
            if k == 'warnings' and 'kvm' in DROP:
                v = [w for w in v if not any(s in w for s in KVM_WORDS)]
            out[k] = norm(v)
        return out
    if isinstance(x, list):
        return [norm(v) for v in x]
    return x
na, nb = norm(a), norm(b)
diffs = []
def within_us(x, y):
    return isinstance(x, (int, float)) and isinstance(y, (int, float)) and abs(x - y) <= 1000
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k in NEAR1 and within_us(x.get(k), y.get(k)):
                continue
            if globals().get('SELFCHECK_NEAR') and path.endswith('.selfcheck') and \
                    k in ('halts_agreeing', 'agree_pct') and \
                    isinstance(x.get(k), (int, float)) and isinstance(y.get(k), (int, float)):
                n = max(x.get('halts_compared') or 0, 1)
                room = max(1, n // 50) * (1 if k == 'halts_agreeing' else 100.0 / n)
                if abs(x[k] - y[k]) <= room + 1e-9:
                    continue
            # a sched_waking within a microsecond of its halt's start times it or not
            timed = k == 'timed_waits' or path.endswith('wake_overhead_measured') and k == 'waits'
            if NEAR1 and timed and isinstance(x.get(k), int) and isinstance(y.get(k), int) and \
                    abs(x[k] - y[k]) <= max(1, x[k] // 1000):
                continue
            walk(x.get(k), y.get(k), path + '.' + k)
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (p, q) in enumerate(zip(x, y)):
            walk(p, q, '%s[%d]' % (path, i))
    elif x != y:
        diffs.append('%s: %r != %r' % (path, x, y))
walk(na, nb, '')
for d in diffs[:10]:
    print(d)
if not na.get('vcpus') and not na.get('guest'):
    print('no vcpus and no guest CPUs'); sys.exit(1)
sys.exit(1 if diffs else 0)
