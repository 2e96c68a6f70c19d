#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/files.sh - cost of the profile-file subcommands (make bench; no root
# needed). Generates profiles of BENCH_FILE_SAMPLES samples (default 1,000,000)
# over BENCH_FILE_STACKS distinct mark stacks (default 100,000) and 64 threads
# with bench/gen_profile, then measures wall time and peak RSS (GNU time) of:
#
#   fsp-bpf report --format text|json|folded|pprof  on one such file
#   fsp-bpf merge                                   of 1, 2, 5 and 10 of them
#
#   fsp-bpf report --plugin NAME                     on a profile of the plug-ins'
#                                                    features (gen_profile -P), against
#                                                    the same report without plug-ins
#
#   fsp-bpf diff --format html|json                  of two profiles of
#                                                    BENCH_DIFF_FEATURES features each
#                                                    (default 1,000,000; gen_profile -f)
#
#   fsp-bpf report --format text|folded              on a profile with native stacks
#                                                    (record --stacks; gen_profile -N:
#                                                    BENCH_NATIVE_STACKS distinct native
#                                                    stacks, default 100,000), and the
#                                                    load / attribute / write split
#
# Targets (docs/benchmarks.md): report under 1 s and 200 MB; merge linear in
# the number of files (time per file of 10 within 1.5x of that of 2); a
# plug-in adds under 0.5 s of CPU time and 100 MB of peak RSS to report
# (medians of BENCH_PLUGIN_REPS interleaved runs, default 7: the machine may
# be busy, so CPU time, user + system, is what is compared); a report of the
# native-stack profile under 2 s (wall and CPU); a diff of 10^6 features
# under 4 GB and 60 s of CPU (it took 9.3 GB and 88 s, issue 26).
# Prints a table and "bench: key=value" lines; appends to bench/results/files.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FSP=$ROOT/fsp-bpf
GEN=$ROOT/.output/bench/gen_profile
N=${BENCH_FILE_SAMPLES:-1000000}
K=${BENCH_FILE_STACKS:-100000}
RES=$ROOT/bench/results
TMP=$(mktemp -d /tmp/fsp-bench-files.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

for f in "$FSP" "$GEN" /usr/bin/time; do
	if [ ! -x "$f" ]; then
		echo "bench/files.sh: $f is missing; run make bench" >&2
		exit 1
	fi
done
mkdir -p "$RES"

# cpu CMD...: sets C (user + system seconds) and M (peak RSS in MB).
cpu() {
	local log=$TMP/time.log
	if ! /usr/bin/time -f '%U %S %M' -o "$log" "$@" >/dev/null 2>"$TMP/err.log"; then
		echo "bench/files.sh: failed: $*" >&2
		cat "$TMP/err.log" >&2
		C=nan M=nan
		return 1
	fi
	read -r u s k <"$log"
	C=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	M=$(awk -v k="$k" 'BEGIN { printf "%.1f", k / 1024 }')
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure OUT_PREFIX CMD...: sets T (seconds) and M (peak RSS in MB).
measure() {
	local log=$TMP/time.log
	if ! /usr/bin/time -f '%e %M' -o "$log" "$@" >/dev/null 2>"$TMP/err.log"; then
		echo "bench/files.sh: failed: $*" >&2
		cat "$TMP/err.log" >&2
		T=nan M=nan
		return 1
	fi
	read -r T M <"$log"
	M=$(awk -v k="$M" 'BEGIN { printf "%.1f", k / 1024 }')
}

verdict() { awk -v v="$1" -v lim="$2" 'BEGIN { print (v != "nan" && v + 0 <= lim + 0) ? "PASS" : "FAIL" }'; }

{
	echo "== profile files: $N samples over $K stacks per file ($(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null))"
	for i in $(seq 1 10); do
		"$GEN" -n "$N" -k "$K" -t 64 -s "$i" -o "$TMP/p$i.json" || exit 1
	done
	printf '  file size: %s MB\n' "$(du -m "$TMP/p1.json" | cut -f1)"
	measure "$FSP" report --format json -o "$TMP/load.json" "$TMP/p1.json"
	printf '%-34s %8s %10s %s\n' "operation" "wall s" "peak MB" "verdict (< 1 s, < 200 MB)"
	KV=""
	for fmt in text json folded pprof; do
		measure "$FSP" report --format "$fmt" -o "$TMP/out.$fmt" "$TMP/p1.json"
		v=PASS
		[ "$(verdict "$T" 1)" = PASS ] && [ "$(verdict "$M" 200)" = PASS ] || v=FAIL
		printf '%-34s %8s %10s %s\n' "report --format $fmt" "$T" "$M" "$v"
		KV="$KV report_${fmt}_s=$T report_${fmt}_mb=$M report_${fmt}=$v"
	done
	declare -A MT
	for n in 1 2 5 10; do
		files=()
		for i in $(seq 1 "$n"); do files+=("$TMP/p$i.json"); done
		measure "$FSP" merge -o "$TMP/merged.json" "${files[@]}"
		MT[$n]=$T
		printf '%-34s %8s %10s %s\n' "merge of $n" "$T" "$M" \
			"$(awk -v t="$T" -v n="$n" 'BEGIN { printf "%.3f s per file", t / n }')"
		KV="$KV merge${n}_s=$T merge${n}_mb=$M"
	done
	LIN=$(awk -v a="${MT[2]}" -v b="${MT[10]}" 'BEGIN { printf "%.2f", (b / 10) / (a / 2) }')
	printf '  merge time per file, 10 vs 2 files: %sx (linear: ~1; target <= 1.5) %s\n' \
		"$LIN" "$(verdict "$LIN" 1.5)"
	echo "bench: files samples=$N stacks=$K$KV merge_linearity=$LIN merge_linear=$(verdict "$LIN" 1.5)"

	# The plug-ins: each one's report against the plain report of the same
	# file, interleaved, medians of CPU time and peak RSS.
	REPS=${BENCH_PLUGIN_REPS:-7}
	"$GEN" -P -n "$N" -k "$K" -t 64 -s 1 -o "$TMP/plug.json" || exit 1
	names=(none boundary tasks backtrack)
	declare -A PC PM
	for name in "${names[@]}"; do PC[$name]=""; PM[$name]=""; done
	for r in $(seq 1 "$REPS"); do
		for name in "${names[@]}"; do
			args=()
			[ "$name" = none ] || args=(--plugin "$name")
			cpu "$FSP" report "${args[@]}" -o "$TMP/plug.out" "$TMP/plug.json"
			PC[$name]="${PC[$name]} $C"
			PM[$name]="${PM[$name]} $M"
		done
	done
	printf '%-34s %8s %10s %s\n' "report of $N samples, $K stacks" "CPU s" "peak MB" \
		"verdict (adds < 0.5 s, < 100 MB)"
	KV=""
	c0=$(echo "${PC[none]}" | median)
	m0=$(echo "${PM[none]}" | median)
	printf '%-34s %8s %10s\n' "no plug-in" "$c0" "$m0"
	for name in "${names[@]:1}"; do
		c=$(echo "${PC[$name]}" | median)
		m=$(echo "${PM[$name]}" | median)
		dc=$(awk -v a="$c" -v b="$c0" 'BEGIN { printf "%.2f", a - b }')
		dm=$(awk -v a="$m" -v b="$m0" 'BEGIN { printf "%.1f", a - b }')
		v=PASS
		[ "$(verdict "$dc" 0.5)" = PASS ] && [ "$(verdict "$dm" 100)" = PASS ] || v=FAIL
		printf '%-34s %8s %10s %s\n' "--plugin $name" "$c" "$m" "+$dc s, +$dm MB $v"
		KV="$KV plugin_${name}_s=$dc plugin_${name}_mb=$dm plugin_${name}=$v"
	done
	echo "bench: plugins samples=$N stacks=$K reps=$REPS$KV"

	# Native stacks (record --stacks): report of a profile of N samples
	# with native stacks, wall and CPU time, and the load/attribute split.
	NK=${BENCH_NATIVE_STACKS:-100000}
	"$GEN" -N -K "$NK" -n "$N" -k "$K" -t 64 -s 1 -o "$TMP/native.json" || exit 1
	printf '  native-stack file: %s MB\n' "$(du -m "$TMP/native.json" | cut -f1)"
	printf '%-34s %8s %8s %10s %s\n' "report, $NK native stacks" "wall s" "CPU s" "peak MB" \
		"verdict (< 2 s)"
	KV=""
	for fmt in text folded; do
		measure "$FSP" report --format "$fmt" -o "$TMP/native.$fmt" "$TMP/native.json"
		cpu "$FSP" report --format "$fmt" -o "$TMP/native.$fmt" "$TMP/native.json"
		v=PASS
		[ "$(verdict "$T" 2)" = PASS ] && [ "$(verdict "$C" 2)" = PASS ] || v=FAIL
		printf '%-34s %8s %8s %10s %s\n' "report --format $fmt" "$T" "$C" "$M" "$v"
		KV="$KV native_${fmt}_s=$T native_${fmt}_cpu_s=$C native_${fmt}_mb=$M native_${fmt}=$v"
	done
	"$GEN" -l "$TMP/native.json" | sed 's/^/  /'
	echo "bench: native samples=$N stacks=$K native_stacks=$NK$KV"

	# A diff of two profiles of a feature per stack: rows, not samples.
	NF=${BENCH_DIFF_FEATURES:-1000000}
	"$GEN" -f -n $((NF * 3)) -k "$NF" -t 1 -s 1 -o "$TMP/wide1.json" || exit 1
	"$GEN" -f -n $((NF * 3)) -k "$NF" -t 1 -s 2 -o "$TMP/wide2.json" || exit 1
	printf '%-34s %8s %8s %10s %s\n' "diff of $NF features" "wall s" "CPU s" "peak MB" \
		"verdict (< 60 s CPU, < 4096 MB)"
	KV=""
	for fmt in json html; do
		measure "$FSP" diff --format "$fmt" -o "$TMP/wide.$fmt" "$TMP/wide1.json" "$TMP/wide2.json"
		cpu "$FSP" diff --format "$fmt" -o "$TMP/wide.$fmt" "$TMP/wide1.json" "$TMP/wide2.json"
		v=PASS
		[ "$(verdict "$C" 60)" = PASS ] && [ "$(verdict "$M" 4096)" = PASS ] || v=FAIL
		printf '%-34s %8s %8s %10s %s\n' "diff --format $fmt" "$T" "$C" "$M" "$v"
		KV="$KV diff_${fmt}_s=$T diff_${fmt}_cpu_s=$C diff_${fmt}_mb=$M diff_${fmt}=$v"
	done
	echo "bench: diff features=$NF$KV"
} 2>&1 | tee -a "$RES/files.txt"
