# Shared helpers for tests/t-*.sh: print the lines tests/run.sh counts.
HALTSTAT=${HALTSTAT:-$HS_TOP/build/rel/haltstat}
TMP=$(mktemp -d /tmp/haltstat-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ok()   { echo "ok $1"; }
fail() { echo "not ok $1${2:+: $2}"; }
skip() { echo "skip $1${2:+: $2}"; }
# check NAME COMMAND...: passes when the command succeeds
check() { local n=$1; shift; if "$@" >"$TMP/check.out" 2>&1; then ok "$n"; else fail "$n" "$(head -c 300 "$TMP/check.out" | tr '\n' ' ')"; fi; }
# check_eq NAME EXPECTED ACTUAL
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected '$2', got '$3'"; fi; }

need_root()    { [ "$(id -u)" -eq 0 ]; }
need_tracefs() { need_root && { [ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; } && [ -d /sys/kernel/tracing/instances ]; }
# a /dev/kvm that makes VMs (a PVM guest has the node, but no VM can be made)
need_kvm()     { [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
		 "${HS_BUILD:-$HS_TOP/build/rel}/tests/tools/hs-workload" --check 2>/dev/null; }
have()         { command -v "$1" >/dev/null 2>&1; }
# need_record NAME: what haltstat record's tests compare against (root,
# tracefs, trace-cmd, power:cpu_idle), else NAME is skipped and the test ends
need_record() {
	local why=""
	if ! need_root; then why="needs root"
	elif ! need_tracefs; then why="needs tracefs"
	elif ! have trace-cmd; then why="needs trace-cmd"
	elif [ ! -d /sys/kernel/tracing/events/power/cpu_idle ]; then why="no power:cpu_idle event"
	fi
	[ -z "$why" ] || { skip "$1" "$why"; exit 0; }
}

# cmd_long_options CMD: the long options cmd/CMD.c hands getopt, its own rows
# and the shared ones of cmd/options.h it names (CMD_OPTION_*)
cmd_long_options() {
	local src=$HS_TOP/cmd/$1.c m
	sed -n 's/^[[:space:]]*{ "\([a-z-]*\)",.*/\1/p' "$src"
	for m in $(grep -o 'CMD_OPTION_[A-Z_]*' "$src" | sort -u); do
		sed -n "s/^#define $m[[:space:]]*{ \"\([a-z-]*\)\",.*/\1/p" "$HS_TOP/cmd/options.h"
	done
}
# man_page NAME: the page as installed (made from doc/NAME.1.in, or doc/NAME.1)
man_page() { if [ -e "$HS_BUILD/doc/$1.1" ]; then echo "$HS_BUILD/doc/$1.1"; else echo "$HS_TOP/doc/$1.1"; fi; }
# kernel_eras: the era names, one a line, as the binary lists them (lib/era.h)
kernel_eras() { "$HALTSTAT" help kernel-eras | cut -f1; }
