#!/bin/sh
# Installs the Debian packages listed in tools/debian-packages that are
# missing. As root it runs apt-get (one apt-get update first); otherwise it
# prints the exact command to run and fails, so the build never half-works.
#
#   tools/deps.sh [--bench] [--list]
#
# The packages after the "# [bench]" line of the list (the last section)
# only with --bench (make bench); --list prints the names and installs
# nothing (.ci/run installs with it).
set -eu
here=$(dirname "$0")
bench=0
list=0
for a in "$@"; do
	case $a in
	--bench) bench=1 ;;
	--list) list=1 ;;
	*) echo "usage: tools/deps.sh [--bench] [--list]" >&2; exit 2 ;;
	esac
done
if [ "$bench" -eq 1 ]; then
	pkgs=$(grep -v '^#' "$here/debian-packages" | grep -v '^$')
else
	pkgs=$(sed '/^# \[bench\]/,$d' "$here/debian-packages" | grep -v '^#' | grep -v '^$')
fi
if [ "$list" -eq 1 ]; then
	echo $pkgs
	exit 0
fi
missing=""
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "rfx: missing Debian packages:$missing" >&2
	echo "rfx: install them with: sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
echo "rfx: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update >&2
# shellcheck disable=SC2086
$cmd >&2
