#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# render-equivalence.sh OLD_BIN NEW_BIN [PROFILE...]
#
# Renders every profile with both fsp-bpf binaries in every report option
# combination (report --format text|json|folded|pprof|html|dot, --by,
# --order, --min-pct, --feature, --comm, --pid, --value, --function,
# --top-functions, --plugin; merge; diff --format text|json|html; the
# messages of bad inputs) and compares the bytes: stdout (pprof gunzipped),
# stderr and the exit status. For a change that must not change any output
# (a move of code); an intended change shows as a difference to list.
#
# The profiles: the arguments, else the fuzz corpus (bench/fuzz/corpus/*.json)
# plus, when they can be built here, the synthetic profiles of
# bench/gen_profile (plain, -P plug-in features, -N native stacks) and the
# unit tests' fixture profiles (tests/unit/fixture_profiles.c).
#
# Environment: KEEP=1 keeps the work folder (printed); PLUGIN_SO=path adds a
# plug-in shared object (default: .output/examples/libpayloads.so if built);
# VERBOSE=1 prints every command.
#
# Prints the number of renderings compared and each difference (the command
# and the first differing lines); exits 1 when any differs.
set -u

old=${1:?usage: render-equivalence.sh OLD_BIN NEW_BIN [PROFILE...]}
new=${2:?usage: render-equivalence.sh OLD_BIN NEW_BIN [PROFILE...]}
shift 2
old=$(realpath "$old")
new=$(realpath "$new")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/render-eq.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/a" "$work/b" "$work/bin" "$work/diffs"

# ---- the profiles --------------------------------------------------------------

profiles=()
if [ $# -gt 0 ]; then
	for f in "$@"; do
		cp "$f" "$work/in/" && profiles+=("in/$(basename "$f")")
	done
else
	for f in "$root"/bench/fuzz/corpus/*.json; do
		cp "$f" "$work/in/" && profiles+=("in/$(basename "$f")")
	done
	if make -C "$root" -s .output/bench/gen_profile >/dev/null 2>&1; then
		gen="$root/.output/bench/gen_profile"
		"$gen" -n 20000 -k 300 -t 3 -s 7 -o "$work/in/gen.json" >/dev/null 2>&1 &&
			profiles+=(in/gen.json)
		"$gen" -P -n 20000 -k 400 -t 2 -s 11 -o "$work/in/gen-plugins.json" >/dev/null 2>&1 &&
			profiles+=(in/gen-plugins.json)
		"$gen" -N -K 500 -n 5000 -k 100 -t 2 -s 3 -o "$work/in/gen-native.json" \
			>/dev/null 2>&1 && profiles+=(in/gen-native.json)
	else
		echo "note: bench/gen_profile not built: its profiles are left out" >&2
	fi
	if make -C "$root" -s .output/tests/unit/fixture_profiles >/dev/null 2>&1; then
		mkdir -p "$work/in/fixtures"
		if "$root/.output/tests/unit/fixture_profiles" "$work/in/fixtures" >/dev/null; then
			for f in "$work"/in/fixtures/*.json; do
				profiles+=("in/fixtures/$(basename "$f")")
			done
		fi
	else
		echo "note: tests/unit/fixture_profiles not built: its profiles are left out" >&2
	fi
fi
plugin_so=${PLUGIN_SO:-$root/.output/examples/libpayloads.so}
[ -f "$plugin_so" ] && cp "$plugin_so" "$work/in/libplugin.so" || plugin_so=

# ---- running and comparing -------------------------------------------------------

count=0
differ=0
cd "$work" || exit 1

# The bytes to compare of one run's stdout: gzip data (pprof) gunzipped.
normalize() {
	if [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; then
		gunzip -c < "$1" > "$1.raw" 2>/dev/null && mv "$1.raw" "$1"
	fi
}

# run NAME ARGS...: both binaries with ARGS in this folder; compare.
run() {
	local name=$1 side bin
	shift
	count=$((count + 1))
	for side in a b; do
		bin=$old
		[ $side = b ] && bin=$new
		# one path for both: merge records its command line, argv[0] too
		ln -sfn "$bin" bin/fsp-bpf
		[ "${VERBOSE:-0}" = 1 ] && echo "$side: fsp-bpf $*" >&2
		bin/fsp-bpf "$@" > "$side/out" 2> "$side/err"
		echo "exit $?" >> "$side/err"
		normalize "$side/out"
	done
	if ! cmp -s a/out b/out || ! cmp -s a/err b/err; then
		differ=$((differ + 1))
		{
			echo "DIFFERS: fsp-bpf $*"
			diff <(cat a/out a/err | head -c 4000000) \
				<(cat b/out b/err | head -c 4000000) | head -20
		} | tee -a diffs/all >&2
	fi
}

# One field of a profile as the old binary reads it (its JSON output).
meta() { # FILE PYTHON-EXPR over d
	"$old" report --format json "$1" 2>/dev/null |
		python3 -c "import json,sys
try:
    d=json.load(sys.stdin)
except Exception:
    sys.exit(0)
$2" 2>/dev/null
}

for prof in "${profiles[@]}"; do
	feats=$(meta "$prof" 'print("\n".join(f["name"] for f in d.get("features",[])[:3]))')
	feat1=$(printf '%s\n' "$feats" | sed -n 1p)
	feat2=$(printf '%s\n' "$feats" | sed -n 2p)
	comm=$(meta "$prof" 'print(next((t["comm"] for t in d.get("threads",[]) if t.get("comm")),""))')
	pid=$(meta "$prof" 'print(next((t["pid"] for t in d.get("threads",[])),""))')
	native=$(meta "$prof" 'print(1 if d.get("native_samples") else "")')
	func=
	[ -n "$native" ] &&
		func=$("$old" report --min-pct 0 "$prof" 2>/dev/null |
			sed -n 's/^ *[0-9][0-9]* *[0-9.]*% *[0-9][0-9]* *[0-9.]*%  \([^ ]*\).*/\1/p' | head -1)

	# formats, with and without the options every renderer takes
	for fmt in text json folded pprof html; do
		run "$prof" report --format "$fmt" "$prof"
		run "$prof" report --format "$fmt" --min-pct 0 "$prof"
		[ -n "$feat1" ] && run "$prof" report --format "$fmt" --feature "$feat1" "$prof"
		[ -n "$feat2" ] &&
			run "$prof" report --format "$fmt" --feature "$feat1,$feat2,nonesuch" "$prof"
		run "$prof" report --format "$fmt" --feature nonesuch "$prof"
		[ -n "$comm" ] && run "$prof" report --format "$fmt" --comm "$comm" "$prof"
		run "$prof" report --format "$fmt" --comm nonesuch "$prof"
		[ -n "$pid" ] && run "$prof" report --format "$fmt" --pid "$pid" "$prof"
		run "$prof" report --format "$fmt" --pid 99999 "$prof"
		run "$prof" report --format "$fmt" --order name "$prof"
	done
	# text and folded: sections, orders, thresholds
	for by in feature thread process; do
		for order in cost samples name; do
			for pct in 0 0.5 5 50; do
				run "$prof" report --by "$by" --order "$order" --min-pct "$pct" "$prof"
			done
			run "$prof" report --format folded --by "$by" --order "$order" "$prof"
		done
		[ -n "$feat1" ] && run "$prof" report --by "$by" --feature "$feat1" --min-pct 0 "$prof"
		[ -n "$comm" ] && run "$prof" report --by "$by" --comm "$comm" "$prof"
	done
	for value in samples offcpu wall; do
		for pct in 0 1 20; do
			run "$prof" report --format folded --value "$value" --min-pct "$pct" "$prof"
		done
		[ -n "$feat1" ] && run "$prof" report --format folded --value "$value" --feature "$feat1" "$prof"
	done
	# native stacks: hottest functions, a function's callers and callees
	run "$prof" report --top-functions 3 --min-pct 0 "$prof"
	run "$prof" report --function nonesuch "$prof"
	[ -n "$func" ] && run "$prof" report --function "$func" --min-pct 0 "$prof"
	[ -n "$func" ] && run "$prof" report --function "$func" --by thread "$prof"
	# plug-ins: sections, JSON records, graphs
	for pl in tasks boundary backtrack; do
		run "$prof" report --plugin "$pl" "$prof"
		run "$prof" report --plugin "$pl" --format json "$prof"
		run "$prof" report --plugin "$pl" --min-pct 0 "$prof"
		[ -n "$feat1" ] && run "$prof" report --plugin "$pl=$feat1" --min-pct 0 "$prof"
		[ -n "$feat1" ] && run "$prof" report --plugin "$pl=$feat1" --format json "$prof"
	done
	run "$prof" report --plugin boundary --format dot "$prof"
	run "$prof" report --plugin tasks --format dot "$prof"
	[ -n "$feat1" ] && run "$prof" report --plugin "tasks=$feat1" --format dot --min-pct 0 "$prof"
	[ -n "$feat1" ] && run "$prof" report --plugin "boundary=$feat1,tasks=$feat1" "$prof"
	[ -n "$feat1" ] && [ -n "$comm" ] &&
		run "$prof" report --plugin "tasks=$feat1" --comm "$comm" "$prof"
	if [ -n "$plugin_so" ] && [ -n "$feat1" ]; then
		run "$prof" report --plugin "./in/libplugin.so=$feat1" "$prof"
		run "$prof" report --plugin "./in/libplugin.so=$feat1" --format json "$prof"
	fi
	# merge: with itself, and the result rendered
	run "$prof" merge -o - "$prof" "$prof"
	if "$new" merge -o "in/merged-self.json" "$prof" "$prof" 2>/dev/null; then
		run merged report --by process --min-pct 0 in/merged-self.json
		run merged report --format folded --by process in/merged-self.json
		run merged report --format pprof in/merged-self.json
		run merged report --format html in/merged-self.json
	fi
done

# diffs: each profile against itself and the next one, in every format
n=${#profiles[@]}
for ((i = 0; i < n; i++)); do
	base=${profiles[$i]}
	next=${profiles[$(((i + 1) % n))]}
	for fmt in text json html; do
		run diff diff --format "$fmt" "$base" "$next"
		run diff diff --format "$fmt" "$base" "$base"
	done
	run diff diff --min-pct 0 "$base" "$next"
	run diff diff --scale 2 "$base" "$next"
	run diff diff --scale 3 --format json "$next" "$base"
	run merge merge -o - "$base" "$next"
done

# bad inputs: their messages and exit statuses
printf '{"version": 2, "tool": "fsp-bpf", "strings": [' > in/truncated.json
printf 'not json at all' > in/garbage.json
printf '{"version": 99, "tool": "fsp-bpf"}' > in/future.json
: > in/empty.json
good=${profiles[0]}
for bad in in/truncated.json in/garbage.json in/future.json in/empty.json in/missing.json in; do
	run errors report "$bad"
	run errors report --format pprof "$bad"
	run errors diff "$good" "$bad"
	run errors merge -o - "$good" "$bad"
done
run errors report --format bogus "$good"
run errors report --by bogus "$good"
run errors report --order bogus "$good"
run errors report --value bogus --format folded "$good"
run errors report --min-pct -1 "$good"
run errors report --min-pct abc "$good"
run errors report --pid abc "$good"
run errors report --pid 0 "$good"
run errors report --pid 99999999 "$good"
run errors report --comm , "$good"
run errors report --top-functions abc "$good"
run errors report --plugin nonesuch "$good"
run errors report --plugin tasks= "$good"
run errors report --plugin ./in/garbage.json "$good"
run errors report --format dot "$good"
run errors report --format dot --plugin backtrack "$good"
run errors report --format dot --plugin tasks,boundary "$good"
run errors report "$good" "$good"
run errors report
run errors diff --format folded "$good" "$good"
run errors diff --scale -1 "$good" "$good"
run errors diff --scale 0 "$good" "$good"
run errors diff "$good"
run errors merge "$good" "$good"

echo "renderings compared: $count, identical: $((count - differ)), different: $differ"
[ "${KEEP:-0}" = 1 ] && echo "work folder: $work"
[ $differ -eq 0 ]
