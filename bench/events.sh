#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/events.sh - cost of the event view and of --off-cpu (make bench; root).
# Conditions interleaved, order rotated each repetition, medians:
#
#   1. per probe hit: bench/probe_cost under fsp-bpf --no-events (the core
#      profiler) and fsp-bpf (with the event view); target: the event view adds
#      at most 10% to the cost of a hit
#   2. a context-switch-heavy workload: bench/pingpong (two threads, one CPU,
#      a byte back and forth over pipes) unprofiled, under fsp-bpf -p, under
#      fsp-bpf -p plus an empty sched_switch program (empty_attach -s -U: the
#      floor of any BPF off-CPU profiler) and under fsp-bpf --off-cpu -p;
#      target: --off-cpu adds at most 2% to its run time. Then pingpong -i
#      (every switch inside a mark) under fsp-bpf --off-cpu -p and fsp-bpf
#      --calls --off-cpu -p: --calls' cost per context switch (its call
#      records at each switch-out and switch-in), the paired difference of
#      the CPU per round trip, halved (two switches a round trip)
#
# Environment: BENCH_EV_REPS (default 15), BENCH_ITER (probe_cost iterations,
# default 200000), BENCH_PP_ITER (pingpong round trips, default 100000).
# Prints a table and "bench: key=value" lines; appends to bench/results/events.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
EMPTY_OBJ=.output/bench/tools/empty.bpf.o
bench_init events .output/bench/probe_cost .output/bench/pingpong \
	.output/bench/tools/empty_attach "$EMPTY_OBJ"
EMPTY_ATTACH=$BIN/tools/empty_attach
REPS=${BENCH_EV_REPS:-15}
ITER=${BENCH_ITER:-200000}
PP_ITER=${BENCH_PP_ITER:-100000}

# run PROGRAM_ARGS... under condition $1 (none, noev, ev, evsw, offcpu,
# offcpu_in, calls_in), its output to $2
run_under() {
	local cond=$1 log=$2 floor pid tool
	shift 2
	case $cond in
	none) under_fsp "$log" -- "$@" ;;
	noev) under_fsp "$log" --no-events -F 999 -- "$@" ;;
	ev) under_fsp "$log" -F 999 -- "$@" ;;
	offcpu) under_fsp "$log" --off-cpu -F 999 -- "$@" ;;
	offcpu_in) under_fsp "$log" --off-cpu -F 999 -- "$@" ;;
	calls_in) under_fsp "$log" --calls --off-cpu -F 999 -- "$@" ;;
	evsw)
		# fsp-bpf and an empty sched_switch program beside it
		$PIN "$@" >"$log" 2>&1 &
		pid=$!
		wait_exe "$pid" "$1"
		"$FSP" -F 999 -p "$pid" >"$log.tool" 2>&1 &
		tool=$!
		"$EMPTY_ATTACH" -s -U "$EMPTY_OBJ" "$1" "$pid" >"$log.floor" 2>&1 &
		floor=$!
		wait "$pid"
		kill -INT "$floor" 2>/dev/null
		wait "$floor" 2>/dev/null
		stop_tool "$tool" 10
		;;
	esac
}

{
	echo "== event view and off-CPU cost ($(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null), $REPS reps)"
	declare -A HIT PP PC PCR HITR
	PAIR_EV="" PAIR_OFF="" PAIR_SW=""
	CONDS=(noev ev)
	for ((r = 0; r < REPS; r++)); do
		for ((k = 0; k < 2; k++)); do
			c=${CONDS[$(((r + k) % 2))]}
			run_under "$c" "$TMP/probe.$c.$r" "$BIN/probe_cost" -a -n "$ITER" -r 3
			v=$(kv "$TMP/probe.$c.$r" ns_per_hit)
			[ "$(kv "$TMP/probe.$c.$r" attached)" = 1 ] && [ -n "$v" ] && HIT[$c]+=" $v" &&
				HITR[$c.$r]=$v
		done
		if [ -n "${HITR[ev.$r]:-}" ] && [ -n "${HITR[noev.$r]:-}" ]; then
			PAIR_EV+=" $(calc "100 * (${HITR[ev.$r]} / ${HITR[noev.$r]} - 1)")"
		fi
	done
	PCONDS=(none ev evsw offcpu offcpu_in calls_in)
	PAIR_CALLS=""
	for ((r = 0; r < REPS; r++)); do
		for ((k = 0; k < 6; k++)); do
			c=${PCONDS[$(((r + k) % 6))]}
			a=()
			[ "$c" != none ] && a=(-a)
			# *_in: every switch inside a mark (pingpong -i)
			[ "${c%_in}" != "$c" ] && a+=(-i)
			run_under "$c" "$TMP/pp.$c.$r" "$BIN/pingpong" "${a[@]}" -r 3 "$PP_ITER"
			v=$(kv "$TMP/pp.$c.$r" ns_per_round_trip)
			[ -n "$v" ] && PP[$c]+=" $v"
			v=$(kv "$TMP/pp.$c.$r" cpu_ns_per_round_trip)
			[ -n "$v" ] && PC[$c]+=" $v" && PCR[$c.$r]=$v
		done
		if [ -n "${PCR[offcpu.$r]:-}" ] && [ -n "${PCR[ev.$r]:-}" ]; then
			PAIR_OFF+=" $(calc "100 * (${PCR[offcpu.$r]} / ${PCR[ev.$r]} - 1)")"
		fi
		# two context switches a round trip (both threads on one CPU)
		if [ -n "${PCR[calls_in.$r]:-}" ] && [ -n "${PCR[offcpu_in.$r]:-}" ]; then
			PAIR_CALLS+=" $(calc "(${PCR[calls_in.$r]} - ${PCR[offcpu_in.$r]}) / 2")"
		fi
		if [ -n "${PCR[evsw.$r]:-}" ] && [ -n "${PCR[ev.$r]:-}" ]; then
			PAIR_SW+=" $(calc "100 * (${PCR[evsw.$r]} / ${PCR[ev.$r]} - 1)")"
		fi
	done
	# shellcheck disable=SC2086
	H_NOEV=$(median ${HIT[noev]:-}) H_EV=$(median ${HIT[ev]:-})
	# shellcheck disable=SC2086
	P_NONE=$(median ${PP[none]:-}) P_EV=$(median ${PP[ev]:-}) P_OFF=$(median ${PP[offcpu]:-})
	# shellcheck disable=SC2086
	C_NONE=$(median ${PC[none]:-}) C_EV=$(median ${PC[ev]:-}) C_SW=$(median ${PC[evsw]:-})
	# shellcheck disable=SC2086
	C_OFF=$(median ${PC[offcpu]:-}) C_OFF_IN=$(median ${PC[offcpu_in]:-})
	# shellcheck disable=SC2086
	C_CALLS=$(median ${PC[calls_in]:-})
	# shellcheck disable=SC2086
	EV_PAIRED=$(median $PAIR_EV) OFF_PAIRED=$(median $PAIR_OFF) SW_PAIRED=$(median $PAIR_SW)
	# shellcheck disable=SC2086
	CALLS_SWITCH=$(median $PAIR_CALLS)
	EV_PCT=$(calc "100 * ($H_EV / $H_NOEV - 1)")
	OFF_PCT=$(calc "100 * ($C_OFF / $C_EV - 1)")
	SW_PCT=$(calc "100 * ($C_SW / $C_EV - 1)")
	OFF_WALL_PCT=$(calc "100 * ($P_OFF / $P_EV - 1)")
	printf '  probe hit, core profiler (--no-events)   %10.1f ns\n' "$H_NOEV"
	printf '  probe hit, with the event view          %10.1f ns\n' "$H_EV"
	printf '  event view adds                         %10.2f %%   (target <= 10%%) %s; paired %.2f %%\n' \
		"$EV_PCT" "$(verdict "$EV_PCT" "<=" 10)" "$EV_PAIRED"
	printf '  pingpong CPU per round trip: none %.0f ns, fsp-bpf %.0f ns, + empty sched_switch program %.0f ns, fsp-bpf --off-cpu %.0f ns\n' \
		"$C_NONE" "$C_EV" "$C_SW" "$C_OFF"
	printf '  --off-cpu adds                          %10.2f %%   (target <= 2%%) %s; paired %.2f %%; wall clock %.2f %%\n' \
		"$OFF_PCT" "$(verdict "$OFF_PCT" "<=" 2)" "$OFF_PAIRED" "$OFF_WALL_PCT"
	printf '  every switch inside a mark (pingpong -i): --off-cpu %.0f ns, --calls --off-cpu %.0f ns per round trip; --calls adds %.1f ns per context switch (paired median)\n' \
		"$C_OFF_IN" "$C_CALLS" "$CALLS_SWITCH"
	printf '  an empty sched_switch program adds      %10.2f %%   (the floor of any BPF off-CPU profiler); paired %.2f %%\n' \
		"$SW_PCT" "$SW_PAIRED"
	echo "bench: events hit_noev_ns=$H_NOEV hit_ev_ns=$H_EV event_view_pct=$EV_PCT" \
		"event_view_paired_pct=$EV_PAIRED event_view=$(verdict "$EV_PCT" "<=" 10)" \
		"pingpong_cpu_none_ns=$C_NONE pingpong_cpu_fsp_ns=$C_EV pingpong_cpu_switch_floor_ns=$C_SW" \
		"pingpong_cpu_offcpu_ns=$C_OFF offcpu_pct=$OFF_PCT offcpu_paired_pct=$OFF_PAIRED" \
		"offcpu=$(verdict "$OFF_PCT" "<=" 2) switch_floor_pct=$SW_PCT switch_floor_paired_pct=$SW_PAIRED" \
		"pingpong_none_ns=$P_NONE pingpong_fsp_ns=$P_EV pingpong_offcpu_ns=$P_OFF offcpu_wall_pct=$OFF_WALL_PCT" \
		"pingpong_in_cpu_offcpu_ns=$C_OFF_IN pingpong_in_cpu_calls_offcpu_ns=$C_CALLS" \
		"calls_per_switch_ns=$CALLS_SWITCH"
} 2>&1 | tee -a "$RES/events.txt"
