#!/bin/bash
# make check-fresh (and the first step of .ci/run): the README's quick start,
# line by line as it is written there, as root in a fresh Debian 12 chroot
# (debootstrap --variant=minbase bookworm, plus git) under build/fresh/, on a
# git clone of the committed HEAD. Exit status 0 only when every line succeeded
# and the tests printed "N passed, 0 failed".
# The base system's packages are kept in build/fresh/*.tgz (debootstrap
# --make-tarball): a second run downloads only what ./setup.sh installs.
# The chroot's mounts (itself, /proc /sys /dev /dev/pts /dev/shm, tracefs)
# are made in a private mount namespace: they are gone when it ends, whatever
# the exit, and other processes never see them; they are also unmounted
# explicitly, and nothing is deleted through a mount (rm --one-file-system).
# FRESH_MIRROR=URL overrides the mirror (default: the host's bookworm source).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/tests/fresh/run.sh
work=$top/build/fresh
root=$work/root
suite=bookworm
include=git,ca-certificates
tarball=$work/$suite-minbase-${include//,/-}.tgz

die() { echo "check-fresh: $*" >&2; exit 1; }
since() { echo "$((SECONDS - $1)) s"; }

# mounts (their mount points) at or under $1 in this namespace, deepest first
mounts_under() {
	awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# --- inside the private mount namespace: mount, run the chroot, unmount ---
if [ "${1-}" = --inside ]; then
	# the processes running in the chroot: all started by this script
	in_chroot() {
		local p
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
		done
	}
	cleanup() {
		local m i left
		# after a signal: SIGTERM first, so that a test or a recording still
		# running removes its tracefs instance, then SIGKILL after 10 s
		left=$(in_chroot)
		if [ -n "$left" ]; then
			kill -TERM $left 2>/dev/null
			for i in $(seq 100); do
				sleep 0.1
				left=$(in_chroot)
				[ -n "$left" ] || break
			done
			[ -z "$left" ] || kill -KILL $left 2>/dev/null
			sleep 0.2
		fi
		for m in $(mounts_under "$root"); do
			umount "$m" 2>/dev/null || umount -l "$m" || echo "check-fresh: cannot unmount $m" >&2
		done
	}
	trap cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# the chroot's / a mount point, as on a real machine (unshare -m changes
	# the propagation of / and fails with EINVAL on a plain directory)
	mount --bind "$root" "$root" || exit 1
	for d in /proc /sys /dev /dev/pts /dev/shm; do
		mount --bind "$d" "$root$d" || exit 1
	done
	if mountpoint -q /sys/kernel/tracing; then
		mount --bind /sys/kernel/tracing "$root/sys/kernel/tracing" || exit 1
	fi
	# a clean environment: nothing of the caller's but the terminal type
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM="${TERM:-dumb}" /usr/sbin/chroot "$root" /bin/bash /root/fresh.sh &
	wait $!
	exit
fi

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
start=$SECONDS
cd "$top" || exit 1
head=$(git rev-parse --short HEAD) || die "not a git checkout: $top"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	echo "check-fresh: uncommitted changes are not tested: the chroot gets HEAD $head"

# the quick start: the first sh block after "## Quick start" in README.md
quickstart=$(awk '/^## Quick start/ { q = 1; next } q && /^```sh$/ { b = 1; next }
	b && /^```$/ { exit } b' README.md)
[ -n "$quickstart" ] || die "no \`\`\`sh block under '## Quick start' in README.md"

# the mirror the host's apt uses for Debian $suite (deb822 or one-line style)
host_mirror() {
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v s="$suite" 'BEGIN { RS = "" }
		{ t = u = x = ""; n = split($0, l, "\n")
		  for (i = 1; i <= n; i++) { if (l[i] ~ /^Types:/) t = l[i]; if (l[i] ~ /^URIs:/) u = l[i]
		                             if (l[i] ~ /^Suites:/) x = l[i] }
		  if (t ~ /[ \t]deb([ \t]|$)/ && (x " ") ~ ("[ \t]" s "[ \t]")) { split(u, w, /[ \t]+/); print w[2]; exit } }'
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed 's/\[[^]]*\]//' |
		awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
}
mirror=${FRESH_MIRROR:-$(host_mirror | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null; then
	echo "check-fresh: installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
		die "cannot install debootstrap"
fi
mkdir -p "$work" || exit 1
# debootstrap mounts /proc in its target: there too, nothing can outlive it
private="unshare --mount --propagation private --"

# a chroot left by an earlier failed run: never delete through a mount
if [ -e "$root" ]; then
	[ -z "$(mounts_under "$root")" ] || die "something is mounted under $root: $(mounts_under "$root" | tr '\n' ' ')"
	rm -rf --one-file-system "$root" || die "cannot remove the old $root"
fi

t=$SECONDS
if [ ! -s "$tarball" ]; then
	echo "check-fresh: downloading the $suite minbase packages from $mirror into ${tarball#"$top"/}"
	rm -rf --one-file-system "$work/tarball.d"
	$private debootstrap --variant=minbase --include="$include" --make-tarball="$tarball.part" \
		"$suite" "$work/tarball.d" "$mirror" >"$work/debootstrap.log" 2>&1 &&
		mv "$tarball.part" "$tarball" ||
		{ tail -5 "$work/debootstrap.log" >&2; die "debootstrap --make-tarball failed (log: $work/debootstrap.log)"; }
	rm -rf --one-file-system "$work/tarball.d"
	echo "check-fresh: downloaded in $(since "$t")"
	t=$SECONDS
fi
echo "check-fresh: a fresh $suite (minbase, $include) from ${tarball#"$top"/} in ${root#"$top"/}"
$private debootstrap --variant=minbase --include="$include" --unpack-tarball="$tarball" \
	"$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -5 "$work/debootstrap.log" >&2; die "debootstrap --unpack-tarball failed (log: $work/debootstrap.log)"; }
echo "check-fresh: base system installed in $(since "$t")"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null

# what runs in the chroot: a clone of HEAD, then each quick-start line
git bundle create "$root/root/haltstat.bundle" HEAD >/dev/null 2>&1 || die "git bundle failed"
printf '%s\n' "$quickstart" > "$root/root/quickstart.txt"
cat > "$root/root/fresh.sh" <<'DRIVER'
set -o pipefail
say() { printf 'fresh-chroot# %s\n' "$*"; }
cd /root || exit 1
say "git clone haltstat.bundle haltstat && cd haltstat"
git -c advice.detachedHead=false clone -q haltstat.bundle haltstat && cd haltstat || exit 1
: > /root/fresh.log
while IFS= read -r line <&3; do
	case $line in '' | '#'*) continue ;; esac
	if [[ $line == *"haltstat record"* ]] && ! grep -qw tracefs /proc/filesystems; then
		echo "fresh-chroot: skip (this kernel has no tracefs): $line"
		continue
	fi
	say "$line"
	t=$SECONDS
	bash -ec "$line" < /dev/null 2>&1 | tee -a /root/fresh.log
	rc=$?
	echo "fresh-chroot: status $rc after $((SECONDS - t)) s"
	[ "$rc" -eq 0 ] || exit 1
done 3< /root/quickstart.txt
grep -Eq '^[0-9]+ passed, 0 failed' /root/fresh.log ||
	{ echo "fresh-chroot: no 'N passed, 0 failed' line: the quick start ran no tests"; exit 1; }
DRIVER

echo "check-fresh: running the README's quick start in the chroot (HEAD $head)"
t=$SECONDS
unshare --mount --propagation private -- bash "$self" --inside &
inner=$!
trap 'kill -TERM "$inner" 2>/dev/null' HUP INT TERM
rc=0
wait "$inner" || rc=$?
while kill -0 "$inner" 2>/dev/null; do wait "$inner" || rc=$?; done
trap - HUP INT TERM
echo "check-fresh: the chroot ran for $(since "$t"), status $rc"

[ -z "$(mounts_under "$root")" ] || die "mounts left under $root: $(mounts_under "$root" | tr '\n' ' ')"
if [ "$rc" -eq 0 ]; then
	rm -rf --one-file-system "$root"
	echo "check-fresh: passed in $(since "$start")"
else
	echo "check-fresh: FAILED (status $rc) after $(since "$start"); the chroot is kept in ${root#"$top"/}" >&2
fi
exit "$rc"
