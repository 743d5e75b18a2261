#!/bin/sh
# The set-up of a fresh Debian 12, as root: installs the packages of
# debian-packages.txt (make included), then builds haltstat.
#   ./setup.sh            install, then build (make all)
#   ./setup.sh --no-build install only (what `make deps` runs)
set -e
cd "$(dirname "$0")"
build=yes
case "${1-}" in
"") ;;
--no-build) build=no ;;
*) echo "usage: ./setup.sh [--no-build]" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: run as root (it installs Debian packages with apt-get)" >&2
	exit 4
fi
pkgs=$(sed 's/#.*//' debian-packages.txt)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # one word a package
apt-get install -y -qq --no-install-recommends $pkgs
[ "$build" = no ] || make -j"$(nproc)" all
