#!/usr/bin/env bash
# The build as a new user meets it (root): `sudo make demo` in a fresh copy of
# the source tree (its tracked files) owned by an unprivileged user, without
# npm (NPM=false), into its own .output.
#
#   demo_without_npm  make demo succeeds: the build says once that it leaves
#                     the HTML page out and why, the demo is profiled; then
#                     --format html (report, diff) is one error saying how to
#                     get the page, exit 64, and the other formats work
#   user_make_after   everything the build made belongs to the invoking user
#                     (SUDO_UID), and a plain make as that user after a change
#                     rebuilds, without the message again; a tree root made
#                     earlier (before this fix) is handed back the same way
# sudo is simulated as sudo sets it up: root, SUDO_UID and SUDO_GID of the user
# (nobody, 65534).
. "$(dirname "$0")/lib.sh"

USER_ID=65534
MSG="building without the HTML report's page"

need_root()
{
	[ "$(id -u)" -eq 0 ] || t_skip "sudo make demo needs root"
	getent passwd $USER_ID > /dev/null || t_fail "no user $USER_ID (nobody)"
}

# One copy for both tests (built once): removed when the script ends.
SHARED=$(mktemp -d /tmp/fsp-packaging-build.XXXXXX)
chmod 755 "$SHARED"
[ -n "${T_KEEP:-}" ] || trap 'rm -rf "$SHARED"' EXIT
SRC=$SHARED/src

# The copy of the tracked files in $SRC, owned by the user, after sudo make
# demo NPM=false (its output in $SHARED/demo.log).
built_tree()
{
	[ -f "$SHARED/demo.log" ] && return
	mkdir -p "$SRC"
	(cd "$FSP_SRC" && git ls-files -z | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"
	done | tar --null -cf - -T -) | tar -xf - -C "$SRC" || t_fail "copying the tree failed"
	chown -R $USER_ID:$USER_ID "$SRC"
	sudo_demo "$SHARED/demo.log"
}

as_user()
{
	setpriv --reuid=$USER_ID --regid=$USER_ID --init-groups env HOME=/nonexistent "$@"
}

# sudo make demo NPM=false, its output in LOG.
sudo_demo()
{
	SUDO_UID=$USER_ID SUDO_GID=$USER_ID make -C "$SRC" --no-print-directory demo NPM=false -j2 \
		> "$1" 2>&1 || t_fail "sudo make demo NPM=false failed: $(tail -5 "$1")"
}

root_owned()
{
	find "$SRC/.output" "$SRC/fsp-bpf" ! -user $USER_ID | head -5
}

test_demo_without_npm()
{
	local n out rc
	need_root
	built_tree
	cp "$SHARED/demo.log" "$T_TMP/demo.log"
	n=$(grep -c "$MSG" "$T_TMP/demo.log")
	[ "$n" -eq 1 ] || t_fail "the build says '$MSG' $n times, want once"
	grep -q "$MSG: no npm ('false' is not found or does not run)" "$T_TMP/demo.log" ||
		t_fail "the message does not say why: $(grep "$MSG" "$T_TMP/demo.log")"
	grep -q '^output accounts for' "$T_TMP/demo.log" || t_fail "the demo was not profiled"

	"$SRC/fsp-bpf" -o "$T_TMP/p.json" -- "$SRC/.output/examples/demo" 300 > /dev/null 2>&1 ||
		t_fail "recording with the npm-less build failed"
	for args in "report --format html -o $T_TMP/p.html $T_TMP/p.json" \
		"diff --format html $T_TMP/p.json $T_TMP/p.json" \
		"--format html -o $T_TMP/q.html -- /bin/true"; do
		out=$("$SRC/fsp-bpf" $args 2>&1)
		rc=$?
		[ $rc -eq 64 ] || t_fail "fsp-bpf $args: exit $rc, want 64"
		[ "$(grep -c '^fsp-bpf' <<< "$out")" -eq 1 ] || t_fail "fsp-bpf $args: not one error line: $out"
		grep -q "built without the HTML page.*install Node.js and npm" <<< "$out" ||
			t_fail "fsp-bpf $args does not say how to get the page: $out"
	done
	[ ! -e "$T_TMP/p.html" ] && [ ! -e "$T_TMP/q.html" ] || t_fail "an HTML file was written"
	for fmt in text json folded pprof; do
		"$SRC/fsp-bpf" report --format $fmt -o "$T_TMP/p.$fmt" "$T_TMP/p.json" ||
			t_fail "report --format $fmt fails in the npm-less build"
		[ -s "$T_TMP/p.$fmt" ] || t_fail "report --format $fmt wrote nothing"
	done
}

test_user_make_after()
{
	local left
	need_root
	built_tree
	left=$(root_owned)
	[ -z "$left" ] || t_fail "after sudo make demo, not the user's: $left"
	touch "$SRC/userspace/cmd/main.c"
	as_user make -C "$SRC" --no-print-directory NPM=false > "$T_TMP/make.log" 2>&1 ||
		t_fail "make as the user after sudo make demo failed: $(tail -3 "$T_TMP/make.log")"
	grep -q 'LINK *fsp-bpf' "$T_TMP/make.log" || t_fail "make did not relink fsp-bpf: $(cat "$T_TMP/make.log")"
	grep -q "$MSG" "$T_TMP/make.log" && t_fail "the second build says '$MSG' again"

	# A tree an earlier root build left root's: the next sudo make demo hands it back.
	chown -R 0:0 "$SRC/.output" "$SRC/fsp-bpf"
	touch "$SRC/userspace/cmd/main.c"
	sudo_demo "$T_TMP/demo2.log"
	left=$(root_owned)
	[ -z "$left" ] || t_fail "a root-owned tree was not handed back: $left"
}

t_run test_demo_without_npm test_user_make_after
t_end
