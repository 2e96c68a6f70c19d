#!/usr/bin/env bash
# Runs a build step as the user who ran sudo. `sudo make demo` and `sudo make
# test` need root for the packages and for profiling, not for building: run
# by sudo as root (SUDO_UID and SUDO_GID set, not 0), CMD runs as that user
# (HOME, USER and LOGNAME theirs), so .output/ and ./fsp-bpf stay theirs and a
# plain make works afterwards. Before that, and with --handback alone, what
# root owns in the build tree (an earlier sudo make, files the root tests
# wrote) is handed back to them. Otherwise CMD runs as it is.
#
#   as-user.sh CMD [ARGS...]
#   as-user.sh --handback
set -eu
cd "$(dirname "$0")/.."
uid=${SUDO_UID:-} gid=${SUDO_GID:-}
if [ "$(id -u)" -ne 0 ] || [ -z "$uid" ] || [ "$uid" = 0 ] || [ -z "$gid" ]; then
	[ "${1:-}" = --handback ] && exit 0
	exec "$@"
fi
for f in .output fsp-bpf; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		chown -R -h --from=0 "$uid:$gid" "$f"
	fi
done
[ "${1:-}" = --handback ] && exit 0
entry=$(getent passwd "$uid" || true)
home=$(cut -d: -f6 <<< "$entry")
name=$(cut -d: -f1 <<< "$entry")
if [ -z "$entry" ]; then
	echo "fsp-bpf: SUDO_UID $uid is no user (getent passwd); building as root" >&2
	exec "$@"
fi
exec env HOME="$home" USER="$name" LOGNAME="$name" \
	setpriv --reuid="$uid" --regid="$gid" --init-groups -- "$@"
