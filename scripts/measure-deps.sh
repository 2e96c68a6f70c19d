#!/usr/bin/env bash
# Measures what each set of scripts/install-deps.sh costs on a fresh Debian 12:
# packages, download and installed size, as apt-get reports them for
# `apt-get install --no-install-recommends` in a minimal chroot (debootstrap
# --variant=minbase, plus make, which the set-up commands need). Nothing is
# installed in the chroot. The numbers go into docs/install.md.
#
#   measure-deps.sh [CHROOT]   (root; default /var/tmp/fsp-deps-chroot, made
#                               with debootstrap when missing)
set -eu
cd "$(dirname "$0")/.."
root=${1:-/var/tmp/fsp-deps-chroot}
mirror=http://deb.debian.org/debian

if [ "$(id -u)" -ne 0 ]; then
	echo "measure-deps.sh: run as root (debootstrap, chroot)" >&2
	exit 1
fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
	command -v debootstrap >/dev/null || {
		echo "measure-deps.sh: needs debootstrap (apt-get install debootstrap)" >&2
		exit 1
	}
	debootstrap --variant=minbase --include=make bookworm "$root" "$mirror" >/dev/null
	cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
fi
chroot "$root" apt-get update -qq

# One set: "SET  N packages  D download  I installed", from apt-get's summary.
measure() {
	local name=$1 out n get after
	shift
	out=$(chroot "$root" env LC_ALL=C apt-get install --no-install-recommends --assume-no "$@" \
		2>/dev/null || true)
	n=$(sed -n 's/.* \([0-9]*\) newly installed.*/\1/p' <<< "$out")
	get=$(sed -n 's/^Need to get \([^ ]* [kMG]*B\).*/\1/p' <<< "$out")
	after=$(sed -n 's/^After this operation, \([^ ]* [kMG]*B\).*/\1/p' <<< "$out")
	printf '%-8s %5s packages  %10s download  %10s installed\n' "$name" "$n" "$get" "$after"
}

for set in build html test bench; do
	# shellcheck disable=SC2046
	measure "$set" $(scripts/install-deps.sh --list "$set")
done
