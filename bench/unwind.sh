#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/unwind.sh - what fsp-bpf's unwinding hooks cost a C++ exception and a
# longjmp (make bench; root). bench/unwind (one throw+catch, or setjmp+longjmp,
# through one frame, inside one fsp mark) under, interleaved, order rotated
# each repetition, medians:
#
#   none    alone
#   fsp     fsp-bpf -F 1 -p PID (a 1 Hz sampler: the hooks' cost alone)
#   empty   an empty BPF program on a uprobe at the same place as fsp-bpf's
#           hook (empty_attach -f): the floor of any hook there
#   entry   the same at the function's first instruction (empty_attach -F),
#           where fsp-bpf hooked before it skipped a leading endbr64: an
#           instruction the kernel single-steps rather than emulates
#   base    BENCH_UNWIND_BASE=PATH: another fsp-bpf build (e.g. the previous
#           one), same options as fsp
#
# Target: fsp-bpf adds at most one probe hit to an exception or a longjmp:
# at most twice what the empty uprobe adds (the trap, plus a BPF program that
# costs less than it).
#
# Environment: BENCH_UNWIND_REPS (default 9), BENCH_UNWIND_EXC (iterations of
# a run, default 50000), BENCH_UNWIND_JMP (default 200000), BENCH_UNWIND_BASE.
# Prints a table and "bench: key=value" lines; appends to bench/results/unwind.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FSP=$ROOT/fsp-bpf
BIN=$ROOT/.output/bench
RES=$ROOT/bench/results
REPS=${BENCH_UNWIND_REPS:-9}
BASE=${BENCH_UNWIND_BASE:-}
PIN="taskset -c $(($(nproc) - 1))"
TMP=$(mktemp -d /tmp/fsp-bench-unwind.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
declare -A ITER=([exc]=${BENCH_UNWIND_EXC:-50000} [jmp]=${BENCH_UNWIND_JMP:-200000})
declare -A HOOK=([exc]=__cxa_begin_catch [jmp]=longjmp)
declare -A LIB=([exc]=libstdc++.so [jmp]=libc.so)

if [ "$(id -u)" != 0 ]; then
	echo "bench/unwind.sh: needs root (BPF, uprobes)" >&2
	exit 1
fi
EMPTY_ATTACH=$BIN/tools/empty_attach
EMPTY_OBJ=$BIN/tools/empty.bpf.o
for f in "$FSP" "$BIN/unwind" "$EMPTY_ATTACH" "$EMPTY_OBJ" ${BASE:+"$BASE"}; do
	[ -f "$f" ] || { echo "bench/unwind.sh: $f is missing; run make bench" >&2; exit 1; }
done
mkdir -p "$RES"

kv() { grep -o "\b$2=[^ ]*" "$1" 2>/dev/null | tail -n 1 | cut -d= -f2; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# calc EXPR [FORMAT]: arithmetic, "n/a" if an operand is missing
calc() {
	case "$1" in *[!0-9.eE+*/\ \(\)-]* | "") echo n/a; return ;; esac
	awk "BEGIN { printf \"${2:-%.1f}\", $1 }" 2>/dev/null || echo n/a
}
verdict() { awk -v v="$1" -v lim="$2" 'BEGIN { print (v != "n/a" && v != "" && v + 0 <= lim + 0) ? "PASS" : "FAIL" }'; }
# the file of the process that maps LIB (a path as the process sees it)
lib_of() { awk -v l="/$2" 'index($6, l) && $2 ~ /x/ { print $6; exit }' "/proc/$1/maps"; }

# run_under COND MODE LOG: one process of bench/unwind under COND
run_under() {
	local c=$1 m=$2 log=$3 pid tool="" lib i
	local a=(-n "${ITER[$m]}" -r 3)
	[ "$c" != none ] && a+=(-a)
	$PIN "$BIN/unwind" "${a[@]}" "$m" >"$log" 2>&1 &
	pid=$!
	for ((i = 0; i < 400; i++)); do
		lib=$(lib_of "$pid" "${LIB[$m]}" 2>/dev/null)
		[ -n "$lib" ] && break
		sleep 0.005
	done
	case $c in
	fsp) "$FSP" -F 1 -p "$pid" >"$log.tool" 2>&1 & tool=$! ;;
	base) "$BASE" -F 1 -p "$pid" >"$log.tool" 2>&1 & tool=$! ;;
	empty | entry)
		[ "$c" = empty ] && f=-f || f=-F
		"$EMPTY_ATTACH" -U "$f" "/proc/$pid/root$lib:${HOOK[$m]}" "$EMPTY_OBJ" \
			"$BIN/unwind" "$pid" >"$log.tool" 2>&1 &
		tool=$!
		;;
	esac
	wait "$pid"
	if [ -n "$tool" ]; then
		for ((i = 0; i < 200; i++)); do kill -0 "$tool" 2>/dev/null || break; sleep 0.05; done
		kill -INT "$tool" 2>/dev/null
		wait "$tool" 2>/dev/null
	fi
}

{
	echo "== C++ exceptions and longjmp under fsp-bpf's unwinding hooks ($(date -u +%FT%TZ)," \
		"$(git rev-parse --short HEAD 2>/dev/null), $REPS reps, kernel $(uname -r))"
	CONDS=(none fsp empty entry)
	[ -n "$BASE" ] && CONDS+=(base)
	NC=${#CONDS[@]}
	declare -A NS
	for m in exc jmp; do
		for ((r = 0; r < REPS; r++)); do
			for ((k = 0; k < NC; k++)); do
				c=${CONDS[$(((r + k) % NC))]}
				log=$TMP/$m.$c.$r
				run_under "$c" "$m" "$log"
				v=$(kv "$log" ns_per_op)
				if [ -z "$v" ] || { [ "$c" = none ] && [ "$(kv "$log" attached)" != 0 ]; } ||
					{ [ "$c" != none ] && [ "$(kv "$log" attached)" != 1 ]; }; then
					echo "  $m rep $r $c: no valid result: $(tail -n 2 "$log" "$log.tool" 2>/dev/null | tr '\n' ' ')"
					continue
				fi
				NS[$m.$c]+=" $v"
			done
		done
		declare -A MED
		for c in "${CONDS[@]}"; do
			# shellcheck disable=SC2086
			MED[$c]=$(median ${NS[$m.$c]:-})
			[ -z "${MED[$c]}" ] && MED[$c]=n/a
		done
		what="throw+catch (${HOOK[$m]})"
		[ "$m" = jmp ] && what="setjmp+longjmp (${HOOK[$m]})"
		echo "  $what, ${ITER[$m]} per run, 3 runs per process:"
		line="bench: unwind mode=$m"
		for c in "${CONDS[@]}"; do
			add=$(calc "${MED[$c]} - ${MED[none]}")
			ops=$(calc "1e9 / ${MED[$c]}" %.0f)
			printf '    %-6s %10s ns per op %12s ops/s  %10s ns added\n' "$c" "$(calc "${MED[$c]}")" \
				"$ops" "$add"
			line+=" ${c}_ns=${MED[$c]} ${c}_ops_per_s=$ops ${c}_added_ns=$add"
		done
		ratio=$(calc "(${MED[fsp]} - ${MED[none]}) / (${MED[empty]} - ${MED[none]})")
		printf '    fsp-bpf adds %s x what the empty uprobe adds (target <= 2: one probe hit) %s\n' \
			"$ratio" "$(verdict "$ratio" 2)"
		echo "$line fsp_over_empty=$ratio target=$(verdict "$ratio" 2)"
		unset MED
	done
} 2>&1 | tee -a "$RES/unwind.txt"
