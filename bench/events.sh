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
#      a byte back and forth over pipes) unprofiled, under fsp-bpf -p and under
#      fsp-bpf --off-cpu -p; target: --off-cpu adds at most 2% to its run time
#
# Environment: BENCH_EV_REPS (default 9), BENCH_ITER (probe_cost iterations,
# default 200000), BENCH_PP_ITER (pingpong round trips, default 100000).
# Prints a table and "bench: key=value" lines; appends to bench/results/events.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FSP=$ROOT/fsp-bpf
BIN=$ROOT/.output/bench
RES=$ROOT/bench/results
REPS=${BENCH_EV_REPS:-9}
ITER=${BENCH_ITER:-200000}
PP_ITER=${BENCH_PP_ITER:-100000}
PIN="taskset -c $(($(nproc) - 1))"
TMP=$(mktemp -d /tmp/fsp-bench-events.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "bench/events.sh: needs root (BPF, uprobes, perf events)" >&2
	exit 1
fi
for f in "$FSP" "$BIN/probe_cost" "$BIN/pingpong"; do
	[ -x "$f" ] || { echo "bench/events.sh: $f is missing; run make bench" >&2; exit 1; }
done
mkdir -p "$RES"

kv() { grep -o "\b$2=[^ ]*" "$1" 2>/dev/null | tail -n 1 | cut -d= -f2; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
calc() { awk "BEGIN { printf \"%.4f\", $1 }"; }
verdict() { awk -v v="$1" -v lim="$2" 'BEGIN { print (v != "" && v + 0 <= lim + 0) ? "PASS" : "FAIL" }'; }

# run PROGRAM_ARGS... under condition $1 (none | fsp ARGS...): prints the log path
run_under() {
	local cond=$1 log=$2 tool="" pid
	shift 2
	$PIN "$@" >"$log" 2>&1 &
	pid=$!
	case $cond in
	noev) "$FSP" --no-events -F 999 -p "$pid" >"$log.tool" 2>&1 & tool=$! ;;
	ev) "$FSP" -F 999 -p "$pid" >"$log.tool" 2>&1 & tool=$! ;;
	offcpu) "$FSP" --off-cpu -F 999 -p "$pid" >"$log.tool" 2>&1 & tool=$! ;;
	esac
	wait "$pid"
	if [ -n "$tool" ]; then
		for ((i = 0; i < 200; i++)); do kill -0 "$tool" 2>/dev/null || break; sleep 0.05; done
		kill -INT "$tool" 2>/dev/null
		wait "$tool" 2>/dev/null
	fi
}

{
	echo "== event view and off-CPU cost ($(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null), $REPS reps)"
	declare -A HIT PP PC
	CONDS=(noev ev)
	for ((r = 0; r < REPS; r++)); do
		for ((k = 0; k < 2; k++)); do
			c=${CONDS[$(((r + k) % 2))]}
			run_under "$c" "$TMP/probe.$c.$r" "$BIN/probe_cost" -a -n "$ITER" -r 3
			v=$(kv "$TMP/probe.$c.$r" ns_per_hit)
			[ "$(kv "$TMP/probe.$c.$r" attached)" = 1 ] && [ -n "$v" ] && HIT[$c]+=" $v"
		done
	done
	PCONDS=(none ev offcpu)
	for ((r = 0; r < REPS; r++)); do
		for ((k = 0; k < 3; k++)); do
			c=${PCONDS[$(((r + k) % 3))]}
			a=()
			[ "$c" != none ] && a=(-a)
			run_under "$c" "$TMP/pp.$c.$r" "$BIN/pingpong" "${a[@]}" -r 3 "$PP_ITER"
			v=$(kv "$TMP/pp.$c.$r" ns_per_round_trip)
			[ -n "$v" ] && PP[$c]+=" $v"
			v=$(kv "$TMP/pp.$c.$r" cpu_ns_per_round_trip)
			[ -n "$v" ] && PC[$c]+=" $v"
		done
	done
	# shellcheck disable=SC2086
	H_NOEV=$(median ${HIT[noev]:-}) H_EV=$(median ${HIT[ev]:-})
	# shellcheck disable=SC2086
	P_NONE=$(median ${PP[none]:-}) P_EV=$(median ${PP[ev]:-}) P_OFF=$(median ${PP[offcpu]:-})
	# shellcheck disable=SC2086
	C_NONE=$(median ${PC[none]:-}) C_EV=$(median ${PC[ev]:-}) C_OFF=$(median ${PC[offcpu]:-})
	OFF_CPU_PCT=$(calc "100 * ($C_OFF / $C_EV - 1)")
	EV_PCT=$(calc "100 * ($H_EV / $H_NOEV - 1)")
	OFF_PCT=$(calc "100 * ($P_OFF / $P_EV - 1)")
	OFF_PCT_NONE=$(calc "100 * ($P_OFF - $P_EV) / $P_NONE")
	printf '  probe hit, core profiler (--no-events)   %10.1f ns\n' "$H_NOEV"
	printf '  probe hit, with the event view          %10.1f ns\n' "$H_EV"
	printf '  event view adds                         %10.2f %%   (target <= 10%%) %s\n' \
		"$EV_PCT" "$(verdict "$EV_PCT" 10)"
	printf '  pingpong round trip: none %.0f ns, fsp-bpf %.0f ns, fsp-bpf --off-cpu %.0f ns\n' \
		"$P_NONE" "$P_EV" "$P_OFF"
	printf '  --off-cpu adds                          %10.2f %%   (target <= 2%%) %s; %.2f%% of an unprofiled round trip\n' \
		"$OFF_PCT" "$(verdict "$OFF_PCT" 2)" "$OFF_PCT_NONE"
	printf '  pingpong CPU per round trip: none %.0f ns, fsp-bpf %.0f ns, --off-cpu %.0f ns: --off-cpu adds %.2f %%\n' \
		"$C_NONE" "$C_EV" "$C_OFF" "$OFF_CPU_PCT"
	echo "bench: events hit_noev_ns=$H_NOEV hit_ev_ns=$H_EV event_view_pct=$EV_PCT" \
		"event_view=$(verdict "$EV_PCT" 10) pingpong_none_ns=$P_NONE pingpong_fsp_ns=$P_EV" \
		"pingpong_offcpu_ns=$P_OFF offcpu_pct=$OFF_PCT offcpu=$(verdict "$OFF_PCT" 2)" \
		"offcpu_pct_of_unprofiled=$OFF_PCT_NONE pingpong_cpu_none_ns=$C_NONE" \
		"pingpong_cpu_fsp_ns=$C_EV pingpong_cpu_offcpu_ns=$C_OFF offcpu_cpu_pct=$OFF_CPU_PCT"
} 2>&1 | tee -a "$RES/events.txt"
