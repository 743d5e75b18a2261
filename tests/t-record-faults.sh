#!/bin/bash
# haltstat record when the system is not as it should be (the cases
# t-record.sh does not cover): tracefs not mounted (record mounts it),
# tracefs impossible to mount, kvm events missing, two recordings at once,
# a traced command that cannot start. After each: no haltstat_* instance
# left behind and the top-level set_event untouched.
. "$HS_TOP/tests/lib.sh"

T=/sys/kernel/tracing
need_record record_faults

top_before=$(md5sum < $T/set_event)
# instances of live or dead haltstat runs started by this script
left() { ls $T/instances 2>/dev/null | grep -c "^haltstat_\($1\)\$"; }
clean() {	# NAME PIDS: nothing left of those runs, top level untouched
	check_eq "$1_instance_gone" 0 "$(left "$2")"
	check_eq "$1_top_set_event" "$top_before" "$(md5sum < $T/set_event)"
}
valid() {	# NAME FILE: trace-cmd reads it without a warning
	if trace-cmd report "$2" >"$TMP/v.txt" 2>"$TMP/v.err" && [ ! -s "$TMP/v.err" ]; then
		ok "$1_file_valid"
	else
		fail "$1_file_valid" "$(head -c 200 "$TMP/v.err")"
	fi
}
ns_ok=0
unshare -m true 2>/dev/null && ns_ok=1

# --- tracefs not mounted: record mounts it (private mount namespace) --------
if [ $ns_ok = 1 ]; then
	unshare -m sh -c "umount -l $T 2>/dev/null; umount -l /sys/kernel/debug/tracing 2>/dev/null
		[ -d $T/instances ] && exit 99
		exec $HALTSTAT record --guest -d 300ms -o $TMP/mnt.dat" 2>"$TMP/mnt.err" &
	pid=$!	# unshare execs sh, which execs haltstat: one pid
	wait $pid
	rc=$?
	if [ $rc = 99 ]; then
		skip record_mounts_tracefs "tracefs stays visible after umount in a namespace"
	else
		check_eq record_mounts_tracefs_exit 0 $rc
		valid record_mounts_tracefs "$TMP/mnt.dat"
	fi
	clean record_mounts_tracefs $pid

	# --- tracefs impossible: no mount point (empty read-only /sys/kernel) ---
	unshare -m sh -c "mount -t tmpfs -o ro,size=4k none /sys/kernel &&
		exec $HALTSTAT record --guest -d 300ms -o $TMP/nofs.dat" 2>"$TMP/nofs.err" &
	pid=$!
	wait $pid
	check_eq record_no_tracefs_exit 5 $?
	check_eq record_no_tracefs_one_line 1 "$(wc -l < "$TMP/nofs.err")"
	grep -q '^haltstat: tracefs unavailable' "$TMP/nofs.err" && ok record_no_tracefs_message ||
		fail record_no_tracefs_message "$(cat "$TMP/nofs.err")"
	check_eq record_no_tracefs_no_file "" "$(ls "$TMP" | grep '^nofs.dat')"
	clean record_no_tracefs $pid
else
	skip record_mounts_tracefs "unshare -m not permitted"
	skip record_no_tracefs "unshare -m not permitted"
fi

# --- kvm events missing: an explicit kvm event that does not exist ----------
# (kvm is built into this kernel: a module that is not loaded cannot be
# simulated, so a kvm event name that no kernel has stands for it)
$HALTSTAT record --host -e kvm:kvm_no_such_event -d 300ms -o "$TMP/kvm.dat" 2>"$TMP/kvm.err" &
pid=$!
wait $pid
check_eq record_kvm_missing_exit 6 $?
grep -q '^haltstat: event kvm:kvm_no_such_event does not exist here$' "$TMP/kvm.err" &&
	ok record_kvm_missing_message || fail record_kvm_missing_message "$(cat "$TMP/kvm.err")"
check_eq record_kvm_missing_no_file "" "$(ls "$TMP" | grep '^kvm.dat')"
clean record_kvm_missing $pid

# --- two recordings at once: separate instances, both files valid ----------
$HALTSTAT record --guest -d 1 -o "$TMP/a.dat" 2>"$TMP/a.err" &
a=$!
$HALTSTAT record --guest -d 1 -o "$TMP/b.dat" 2>"$TMP/b.err" &
b=$!
sleep 0.5
check_eq record_two_instances 2 "$(left "$a\|$b")"
wait $a; ra=$?
wait $b; rb=$?
check_eq record_two_exit "0 0" "$ra $rb"
valid record_two_a "$TMP/a.dat"
valid record_two_b "$TMP/b.dat"
for x in a b; do
	n=$(awk '$1 == "power:cpu_idle" { print $2 }' "$TMP/$x.err")
	check_eq record_two_${x}_count_matches \
		"$(trace-cmd report "$TMP/$x.dat" 2>/dev/null | grep -c ' cpu_idle: ')" "$n"
done
clean record_two "$a\|$b"

# --- SIGINT twice without a command: the second ends it at once -------------
$HALTSTAT record --guest -o "$TMP/int2.dat" 2>"$TMP/int2.err" &
pid=$!
sleep 1
start=$(date +%s%N)
kill -INT $pid; kill -INT $pid
wait $pid
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $ms -lt 3000 ] && ok record_int2_quick || fail record_int2_quick "took $ms ms"
case $rc in
0) valid record_int2 "$TMP/int2.dat" ;;	# the first SIGINT had already saved it
*) check_eq record_int2_no_file "" "$(ls "$TMP" | grep '^int2.dat')" ;;
esac
clean record_int2 $pid

# --- SIGKILL: a stale instance, reaped by the next run ---------------------
$HALTSTAT record --guest -o "$TMP/k.dat" 2>/dev/null &
k=$!
sleep 1
kill -KILL $k; wait $k 2>/dev/null
check_eq record_kill_stale 1 "$(left $k)"
$HALTSTAT record --guest -d 200ms -o "$TMP/k2.dat" 2>/dev/null &
pid=$!
wait $pid
check_eq record_kill_next_exit 0 $?
clean record_kill_reaped "$k\|$pid"

# --- the traced command cannot start ----------------------------------------
printf 'not a program\n' > "$TMP/noexec"; chmod 644 "$TMP/noexec"
for c in /nonexistent/hs-cmd "$TMP/noexec" "$TMP"; do
	name=record_cmd_$(basename "$c" | tr -c 'a-z0-9\n' _)
	$HALTSTAT record --guest -o "$TMP/c.dat" -- "$c" 2>"$TMP/c.err" &
	pid=$!
	wait $pid
	check_eq ${name}_exit 9 $?
	check_eq ${name}_one_line 1 "$(wc -l < "$TMP/c.err")"
	grep -q "^haltstat: cannot start '$c'" "$TMP/c.err" && ok ${name}_message ||
		fail ${name}_message "$(cat "$TMP/c.err")"
	check_eq ${name}_no_file "" "$(ls "$TMP" | grep '^c.dat')"
	clean $name $pid
done
