#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/calls.sh - what the slow-call view costs (make bench; root), issue 30.
# Conditions interleaved, order rotated each repetition, medians:
#
#   1. --events cost per call: bench/probe_cost (ABI v2 marks, each enter and
#      leave trapping) under fsp-bpf --events (today's) and fsp-bpf --events
#      --calls (each shadow enter also looks up its ABI v2 frame's call number;
#      a leave of two periods or more sends its duration): ns per pair
#   2. the sampler with --calls: bench/probe_cost's samples cost nothing to
#      measure here; the per-sample record is in the ring buffer (see
#      docs/benchmarks.md); not timed
#   3. report time for 1,000,000 samples with a call selection:
#      .output/bench/calls_views (no root): the split, the text view, the
#      profile file with its calls written and read
#
# The pair cost of ABI v2 marks with and without call numbers (no traps) is
# bench/v2.sh part A's. Environment: BENCH_CALLS_REPS (default 9), BENCH_ITER
# (probe_cost iterations, default 200000). Appends to bench/results/calls.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_init calls .output/bench/probe_cost .output/bench/calls_views
REPS=${BENCH_CALLS_REPS:-9}
ITER=${BENCH_ITER:-200000}

# probe_cost under fsp-bpf ARGS...: ns per hit, or nothing
hit_under() {
	local log=$1
	shift
	under_fsp "$log" -F 999 "$@" -- "$BIN/probe_cost" -a -n "$ITER" -r 3
	[ "$(kv "$log" attached)" = 1 ] && kv "$log" ns_per_hit
}

{
	echo "== slow-call view cost ($(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null), $REPS reps)"
	declare -A HIT
	PAIRED=""
	CONDS=(events calls)
	for ((r = 0; r < REPS; r++)); do
		declare -A ONE=()
		for ((k = 0; k < 2; k++)); do
			c=${CONDS[$(((r + k) % 2))]}
			if [ "$c" = events ]; then
				v=$(hit_under "$TMP/hit.$c.$r" --events)
			else
				v=$(hit_under "$TMP/hit.$c.$r" --events --calls)
			fi
			[ -n "$v" ] && HIT[$c]+=" $v" && ONE[$c]=$v
		done
		[ -n "${ONE[events]:-}" ] && [ -n "${ONE[calls]:-}" ] &&
			PAIRED+=" $(calc "2 * (${ONE[calls]} - ${ONE[events]})")"
	done
	# shellcheck disable=SC2086
	H_EV=$(median ${HIT[events]:-}) H_CALLS=$(median ${HIT[calls]:-}) D=$(median $PAIRED)
	printf '  --events, a pair (enter + leave, both trapping)          %10.1f ns\n' \
		"$(calc "2 * $H_EV")"
	printf '  --events --calls, a pair                                 %10.1f ns\n' \
		"$(calc "2 * $H_CALLS")"
	printf '  --calls adds per pair (paired median)                    %10.1f ns\n' "$D"
	V=$("$BIN/calls_views")
	echo "  $V"
	echo "bench: calls events_pair_ns=$(calc "2 * $H_EV") calls_pair_ns=$(calc "2 * $H_CALLS")" \
		"calls_adds_ns=$D ${V#bench: }"
} | tee -a "$RES/calls.txt"
