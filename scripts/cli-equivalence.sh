#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# cli-equivalence.sh OLD_BIN NEW_BIN
#
# Runs both fsp-bpf binaries on the same command lines and compares what each
# prints (stdout and stderr, byte for byte) and its exit status: every
# subcommand's --help and --usage, --version, the usage errors of the options
# (the cases of tests/unit/test_options.c and more: formats a subcommand does
# not take, plug-ins a format refuses or needs, --function, --interval), the
# checks made before profiling (not root, -o not writable, a page or pprof on
# a terminal, run in a pseudo-terminal with script(1)), and report, merge and
# diff of the fuzz corpus (bench/fuzz/corpus/*.json, and two profiles of
# bench/gen_profile: the plug-ins' features, native stacks) in every format. For a
# change of the command line that must not change what it prints (a move of
# code); an intended change shows as a difference to list. No case profiles
# anything: each record command line stops at a usage error or a check made
# before the BPF programs load.
#
# Both binaries run as $work/bin/fsp-bpf (copied there in turn), so that paths
# derived from the binary's own (argv[0], the maps next to it) are the same.
#
# Environment: KEEP=1 keeps the work folder (printed); VERBOSE=1 prints every
# command line.
#
# Prints the number of command lines compared, by kind, and each difference
# (the command line and the first differing lines); exits 1 when any differs.
set -u

old=${1:?usage: cli-equivalence.sh OLD_BIN NEW_BIN}
new=${2:?usage: cli-equivalence.sh OLD_BIN NEW_BIN}
old=$(realpath "$old")
new=$(realpath "$new")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/cli-eq.XXXXXX)
[ "${KEEP:-0}" = 1 ] && echo "work folder: $work" || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/in" "$work/old" "$work/new"
cp "$root"/bench/fuzz/corpus/*.json "$work/in/"
# Profiles the plug-ins read (the corpus has none of their features) and one
# with native stacks, from bench/gen_profile when it builds here.
if make -C "$root" -s .output/bench/gen_profile >/dev/null 2>&1; then
	"$root/.output/bench/gen_profile" -P -n 3000 -k 200 -t 2 -s 11 \
		-o "$work/in/gen-plugins.json" >/dev/null 2>&1
	"$root/.output/bench/gen_profile" -N -K 200 -n 3000 -k 100 -t 2 -s 3 \
		-o "$work/in/gen-native.json" >/dev/null 2>&1
else
	echo "note: bench/gen_profile does not build: the plug-ins' renderings are left out" >&2
fi
ln -s "$root/maps" "$work/bin/maps"
chmod 755 "$work" "$work/bin" "$work/in"

# ---- the command lines ------------------------------------------------------------
# One per line: fsp-bpf's arguments in shell words, run in $work (in/
# names the corpus). A prefix says how: "TTY " with stdout on a pseudo-
# terminal, "NOBODY " as an unprivileged user, "OUT " with a file to compare
# (out.*, written by the command) besides stdout and stderr.

cases=$work/cases
cd "$work" || exit 1
{
	# --help, --usage, --version of fsp-bpf and of each subcommand
	for sub in "" record report merge diff list; do
		for opt in --help --usage -? --version; do
			echo "$sub $opt"
		done
	done
	echo "--help -p 1"
	echo "report --help in/rich.json"

	# usage errors: the options (tests/unit/test_options.c and more)
	cat <<'EOF'
-v
-p 1 -a
-a -- ls
record -p 1 ls
--interval 1 -o - -p 1
--events --no-events -p 7
-p 0
-p 1,x
-p 4194305
-p ''
-p ,
-p 1,,2
-p 123456789012345678901
-F 0 -p 1
-F 100001 -p 1
-F 12x -p 1
-F +5 -p 1
-F '' -p 1
-d nan -p 1
-d 0 -p 1
-d inf -p 1
--max-depth 0 -p 1
--max-depth 65 -p 1
--max-stacks 15 -p 1
--max-stacks 1048577 -p 1
--max-events 15 -p 1
--interval 0.05 -p 1
--min-pct 101 -p 1
--min-pct -1 -p 1
--by cpu -p 1
--order x -p 1
--value x -p 1
--feature , -p 1
--comm ,, -p 1
--map '' -p 1
-o '' -p 1
--json '' -p 1
--source-dir '' -p 1
--function '' -p 1
--top-functions 0 -p 1
--top-functions 100001 -p 1
--stacks=both -p 1
--stacks --stack-size 511 -p 1
--stacks --stack-size 65536 -p 1
--stacks --stack-size 1004 -p 1
--stack-size 4096 -p 1
--stacks=kernel --stack-size 4096 -p 1
-p 1 --wait-probes=0
--wait-probes -- ls
--wait-probes=3 -a
--file-mode 8 -p 1
report --file-mode 1000 x
report --file-mode 00644 x
report --pid 0 x
report --binaries /nonexistent x
report --debug-dirs /nonexistent x
report --debug-dirs '' x
report
report a b
report --scale 2 x
report -p 1 x
merge a b
merge -o out
merge --format json -o out a
diff a
diff --scale 0 a b
diff --scale x a b
list x
list -p 1 --map python
list --plugins -p 1
list --format text
--bogus -p 1
report --bogus x
EOF

	# formats: a name no subcommand takes, one a subcommand does not take,
	# what a format needs or refuses (plug-ins, --function, --interval)
	cat <<'EOF'
--format xml -p 1
--format '' -p 1
--format TEXT -p 1
report --format xml x
diff --format xml a b
diff --format folded a b
diff --format pprof a b
diff --format dot a b
diff --format '' a b
--format dot -p 1
report --format dot x
report --format dot --plugin backtrack x
report --format dot --plugin tasks,boundary x
report --format dot --function f x
report --format dot --plugin tasks --function f x
--format folded --plugin tasks -p 1
--format pprof --plugin tasks -p 1
report --format folded --plugin boundary x
report --format pprof --plugin tasks x
--function planner --format folded -p 1
--function planner --format json -p 1
report --function f --format pprof x
report --function f --format html x
--format html --interval 1 -o x.html -p 1
--format html --interval 1 -p 1
--interval 1 --format html -a
report --plugin nosuch x
report --plugin , x
report --format json --plugin nosuch x
EOF

	# checks before profiling: not root, -o not writable, a page or binary
	# output on a terminal (record checks html before it profiles)
	cat <<'EOF'
NOBODY -p 1
NOBODY --format html -o x.html -p 1
NOBODY -- /bin/true
-o /nonexistent/dir/p.json -p 1
--format html -o /nonexistent/dir/p.html -p 1
TTY --format html -d 0.5 -- /bin/true
TTY --format html -o - -d 0.5 -- /bin/true
TTY report --format pprof in/rich.json
TTY report --format pprof -o - in/rich.json
TTY report --format html in/rich.json
TTY report --format html -o - in/rich.json
TTY report --format folded in/minimal.json
TTY report in/minimal.json
TTY diff --format html in/rich.json in/minimal.json
TTY diff --format json in/rich.json in/minimal.json
TTY diff in/rich.json in/minimal.json
EOF

	# report, merge and diff of the corpus in every format
	for f in in/*.json; do
		for fmt in text json folded pprof html; do
			echo "OUT report --format $fmt -o out.$fmt $f"
			echo "report --format $fmt $f"
		done
		echo "report --format dot --plugin tasks $f"
		echo "report --format dot --plugin boundary $f"
		echo "report --plugin tasks,boundary,backtrack $f"
		echo "report --format json --plugin tasks,boundary $f"
		echo "report --format html --plugin tasks $f"
		echo "report --by thread --order name --min-pct 0 $f"
		echo "report --by process --format folded --value wall $f"
		echo "report --feature nosuch $f"
		echo "report --function main $f"
		echo "report --top-functions 1 $f"
		echo "OUT merge -o out.json $f"
		echo "merge -o - $f $f"
		for fmt in text json html; do
			echo "diff --format $fmt $f $f"
			echo "diff --format $fmt --scale 2 --min-pct 0 in/rich.json $f"
			echo "OUT diff --format $fmt -o out.$fmt $f in/merged.json"
		done
	done
	echo "report in/nonexistent.json"
	echo "report $root/README.md"
	echo "merge -o - in/rich.json in/v1.json"
	echo "diff in/rich.json in/nonexistent.json"
} >"$cases"

# ---- running ----------------------------------------------------------------------------

# run_all BIN OUTDIR: every case, its stdout, stderr, status (and out.*).
run_all() {
	local n=0 line mode dst=$2
	cp "$1" "$work/bin/fsp-bpf"
	while IFS= read -r line; do
		n=$((n + 1))
		mode=
		case $line in
		"TTY "* | "NOBODY "* | "OUT "*)
			mode=${line%% *}
			line=${line#* }
			;;
		esac
		[ "${VERBOSE:-0}" = 1 ] && echo "  [$n] $mode fsp-bpf $line" >&2
		rm -f "$work"/out.*
		(
			cd "$work" || exit 99
			eval "set -- $line"
			case $mode in
			TTY)
				# script(1) gives the command a terminal; stderr apart
				script -qec "$(printf '%q ' env PATH="$work/bin:$PATH" fsp-bpf "$@") 2>$dst/$n.err" \
					/dev/null </dev/null >"$dst/$n.out"
				;;
			NOBODY)
				setpriv --reuid=65534 --regid=65534 --clear-groups \
					env PATH="$work/bin:$PATH" fsp-bpf "$@" </dev/null \
					>"$dst/$n.out" 2>"$dst/$n.err"
				;;
			*)
				PATH="$work/bin:$PATH" fsp-bpf "$@" </dev/null >"$dst/$n.out" 2>"$dst/$n.err"
				;;
			esac
			echo $? >"$dst/$n.rc"
		)
		if [ "$mode" = OUT ]; then
			for f in "$work"/out.*; do
				[ -e "$f" ] && mv "$f" "$dst/$n.file.${f##*.}"
			done
		fi
		# script(1) ends lines with \r\n: the same for both, compared as is
	done <"$cases"
	rm -f "$work/bin/fsp-bpf"
}

run_all "$old" "$work/old"
run_all "$new" "$work/new"

# ---- comparing ----------------------------------------------------------------------------

differ=0
total=0
declare -A kinds
n=0
while IFS= read -r line; do
	n=$((n + 1))
	total=$((total + 1))
	case $line in
	*--help* | *--usage* | *" -?"* | "-?"* | *--version*) kind=help ;;
	"TTY "* | "NOBODY "* | *nonexistent/dir*) kind=checks ;;
	*in/*) kind=renderings ;;
	*) kind=errors ;;
	esac
	kinds[$kind]=$((${kinds[$kind]:-0} + 1))
	bad=
	for ext in out err rc; do
		cmp -s "$work/old/$n.$ext" "$work/new/$n.$ext" || bad="$bad $ext"
	done
	for f in "$work"/old/"$n".file.* "$work"/new/"$n".file.*; do
		[ -e "$f" ] || continue
		g=${f/\/old\//\/new\/}
		[ "$g" = "$f" ] && g=${f/\/new\//\/old\/}
		cmp -s "$f" "$g" 2>/dev/null || bad="$bad ${f##*/}"
	done
	[ -z "$bad" ] && continue
	differ=$((differ + 1))
	echo "DIFFERS ($bad ): fsp-bpf $line"
	for ext in out err rc; do
		cmp -s "$work/old/$n.$ext" "$work/new/$n.$ext" ||
			diff <(head -c 4000 "$work/old/$n.$ext") <(head -c 4000 "$work/new/$n.$ext") |
			head -8 | sed 's/^/    /'
	done
done <"$cases"

printf 'compared %d command lines:' "$total"
for k in help errors checks renderings; do
	printf ' %s %d,' "$k" "${kinds[$k]:-0}"
done
printf ' differing %d\n' "$differ"
[ "$differ" = 0 ]
