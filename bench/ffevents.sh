#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/ffevents.sh - what --events costs a function feature's call (make
# bench; root). bench/ff_call calls a small function ff_bench_fn in a loop;
# three conditions, interleaved, order rotated each repetition, medians:
#
#   none     no profiler
#   samples  fsp-bpf --function-feature f=ff_call:ff_bench_fn (native stacks
#            sampled, nothing per call)
#   events   the same with --events (a uprobe at its entry and one at its
#            return: two traps per call)
#
# Environment: BENCH_FF_REPS (default 7), BENCH_FF_CALLS (calls per run of
# ff_call, default 200000; events runs use a tenth: each call traps twice).
# Prints a table and "bench: key=value" lines; appends to bench/results/ffevents.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_init ffevents .output/bench/ff_call
BIN=$BIN/ff_call
REPS=${BENCH_FF_REPS:-7}
CALLS=${BENCH_FF_CALLS:-200000}
RULE="f=ff_call:ff_bench_fn"

# one run of condition $1: prints its ns per call
run_one() {
	local log=$TMP/$1.log
	case $1 in
	none) $PIN "$BIN" -n "$CALLS" -r 3 >"$log" 2>&1 ;;
	samples) $PIN "$FSP" -F 999 -o "$TMP/p.json" --function-feature "$RULE" -- \
		"$BIN" -n "$CALLS" -r 3 >"$log" 2>&1 ;;
	events) $PIN "$FSP" -F 999 -o "$TMP/p.json" --events=fn:f --function-feature "$RULE" -- \
		"$BIN" -n $((CALLS / 10)) -r 3 >"$log" 2>&1 ;;
	esac
	grep -o 'ns_per_call=[0-9.]*' "$log" | tail -n 1 | cut -d= -f2
}

{
	echo "== function features' --events cost ($(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null), $REPS reps)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	declare -A V
	CONDS=(none samples events)
	for ((r = 0; r < REPS; r++)); do
		for ((k = 0; k < 3; k++)); do
			c=${CONDS[$(((r + k) % 3))]}
			V[$c]="${V[$c]:-} $(run_one "$c")"
		done
	done
	# shellcheck disable=SC2086
	NONE=$(median ${V[none]}) SAMP=$(median ${V[samples]}) EV=$(median ${V[events]})
	printf '  %-10s %12s\n' condition "ns per call"
	printf '  %-10s %12s\n' none "$NONE" samples "$SAMP" events "$EV"
	echo "  --events adds $(calc "$EV - $NONE") ns per call ($(calc "$EV / $NONE")x), samples alone $(calc "$SAMP - $NONE") ns"
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "bench: ff_none_ns=$NONE ff_samples_ns=$SAMP ff_events_ns=$EV ff_events_added_ns=$(calc "$EV - $NONE")"
} 2>&1 | tee -a "$RES/ffevents.txt"
