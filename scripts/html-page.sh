#!/usr/bin/env bash
# Builds the HTML report's page template (make's $(HTML_PAGE)): npm ci installs
# the libraries the page bundles, pinned by the committed lock file, into OUT
# (again only when package.json or the lock file changed); build.mjs bundles
# them with the page's script into PAGE.
#
# Without npm or node (NPM=false too), or when npm ci fails (no npm registry),
# PAGE is left empty and OUT/page.missing says why: fsp-bpf is then built
# without the page, this says so once, and --format html tells the user how
# to get it (userspace/cmd/options.c). make tries again once npm runs.
#
#   NPM=npm NODE=node html-page.sh SRC OUT PAGE
set -u
src=$1 out=$2 page=$3
npm=${NPM:-npm} node=${NODE:-node}
missing=$out/page.missing

none() {
	: > "$page"
	printf '%s\n' "$1" > "$missing"
	echo "fsp-bpf: building without the HTML report's page: $1." >&2
	echo "fsp-bpf: --format html will say so; for the page, install Node.js and npm" \
		"(sudo scripts/install-deps.sh html) and run make again" >&2
	exit 0
}

mkdir -p "$out"
"$npm" --version >/dev/null 2>&1 || none "no npm ('$npm' is not found or does not run)"
"$node" --version >/dev/null 2>&1 || none "no Node.js ('$node' is not found or does not run)"
stamp=$out/node_modules/.stamp
if [ ! -e "$stamp" ] || [ "$src/package.json" -nt "$stamp" ] ||
	[ "$src/package-lock.json" -nt "$stamp" ]; then
	cp "$src/package.json" "$src/package-lock.json" "$out/"
	if ! log=$(cd "$out" && "$npm" ci --ignore-scripts --no-audit --no-fund --loglevel=error 2>&1); then
		none "npm ci failed (is the npm registry reachable?): $(tail -n 1 <<< "$log")"
	fi
	touch "$stamp"
fi
# A failure here is a bug in the page's sources: the build stops.
"$node" "$src/build.mjs" "$src" "$out/node_modules" "$page" >/dev/null || exit 1
rm -f "$missing"
