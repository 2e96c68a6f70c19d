#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/run.sh - fsp-bpf benchmarks (make bench; needs root). docs/benchmarks.md
# explains the method and the targets. Every comparison is made side by side in
# this one run: conditions interleaved (order rotated each repetition), medians.
#
#   1. marks with nobody attached        bench/fsp_off
#   2. cost per probe hit                bench/probe_cost under
#        none | empty BPF program (bench/tools/empty_attach) | fsp-bpf | bpftrace
#        (fsp-bpf --no-events: the core profiler; the event view: bench/events.sh)
#   3. sampling cost to the target       bench/cpu_work run time alone | with an empty
#                                        999 Hz sampler (empty_attach HZ) | with
#                                        fsp-bpf -F 999; bench/tick_cost: CPU time the
#                                        ticks take (gaps in a clock-reading loop),
#                                        same conditions;
#      and fsp-bpf's own CPU             from /proc/PID/task/*/schedstat and rusage
#   4. BPF run time per program call     kernel.bpf_stats_enabled for a few seconds
#
# Prints a table, PASS/FAIL against each target and "bench: key=value" lines for
# machines; writes the whole output to bench/results/latest.txt and a dated copy,
# raw logs to bench/results/raw/. Always exits 0 unless it cannot run at all.
#
# Environment: BENCH_REPS (probe-cost repetitions, default 15), BENCH_ITER (loop
# iterations per timed run, default 200000), BENCH_RUNS (timed runs per process,
# default 3), BENCH_CPU_REPS (cpu_work repetitions, default 11), BENCH_CPU_ITER
# (cpu_work iterations per unit, default 5000000), BENCH_TICK_REPS (tick_cost
# repetitions, default 7), BENCH_BPF_STATS=0 to skip
# part 4 (it switches kernel.bpf_stats_enabled on for a few seconds).
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=$ROOT/.output
FSP=$ROOT/fsp-bpf
BIN=$OUT/bench
# The uprobe costs below are those of probe ABI v1 marks (a trap each): the
# programs built with -DFSP_ABI_V1. bench/v2.sh measures the default ABI v2.
BIN1=$OUT/bench/v1
EMPTY_ATTACH=$BIN/tools/empty_attach
EMPTY_OBJ=$BIN/tools/empty.bpf.o
RES=$ROOT/bench/results
RAW=$RES/raw
REPS=${BENCH_REPS:-15}
ITER=${BENCH_ITER:-200000}
RUNS=${BENCH_RUNS:-3}
CPU_REPS=${BENCH_CPU_REPS:-11}
TICK_REPS=${BENCH_TICK_REPS:-7}
CPU_ITER=${BENCH_CPU_ITER:-5000000}
BPF_STATS=${BENCH_BPF_STATS:-1}
FREQ=999
NCPU=$(nproc)
PIN_CPU=$((NCPU - 1))
PIN="taskset -c $PIN_CPU"

if [ "$(id -u)" != 0 ]; then
	echo "bench/run.sh: needs root (BPF, uprobes, perf events)" >&2
	exit 1
fi
for f in "$FSP" "$BIN/fsp_off" "$BIN1/fsp_off" "$BIN1/probe_cost" "$BIN1/cpu_work" "$BIN1/tick_cost" "$EMPTY_ATTACH" \
	"$EMPTY_OBJ"; do
	if [ ! -x "$f" ] && [ ! -f "$f" ]; then
		echo "bench/run.sh: $f is missing; run make bench" >&2
		exit 1
	fi
done
HAVE_BPFTRACE=0
command -v bpftrace >/dev/null 2>&1 && HAVE_BPFTRACE=1

mkdir -p "$RAW"
rm -f "$RAW"/*
STAMP=$(date +%Y%m%d-%H%M%S)
LOG=$RES/bench-$STAMP.txt
exec > >(tee "$LOG" "$RES/latest.txt") 2>&1
TEE=$!

# ---- helpers --------------------------------------------------------------------

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

cat_bt() { # the bpftrace equivalent of fsp-bpf's bookkeeping, for binary $1
	cat <<EOF
// Per-thread mark stack (depth + frames) on usdt enter/leave, and a
// $FREQ Hz sampler counting (tid, top of stack), as fsp-bpf does.
usdt:$1:fsp:mark_enter
{
	\$d = @depth[tid];
	@frame[tid, \$d] = arg1;
	@depth[tid] = \$d + 1;
}
usdt:$1:fsp:mark_leave
{
	\$d = @depth[tid];
	if (\$d > 0) {
		@depth[tid] = \$d - 1;
		delete(@frame[tid, \$d - 1]);
	}
}
profile:hz:$FREQ
/pid == \$1/
{
	\$d = @depth[tid];
	if (\$d > 0) {
		@samples[tid, @frame[tid, \$d - 1]] = count();
	} else {
		@samples[tid, 0] = count();
	}
	@nsamples = count();
}
END
{
	clear(@frame);
	clear(@depth);
	clear(@samples);
}
EOF
}
BT=$RAW/probe_cost.bt
cat_bt "$BIN1/probe_cost" >"$BT"

# ---- the machine ------------------------------------------------------------------

echo "fsp-bpf benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $NCPU CPUs," \
	"$(lscpu | sed -n 's/^Hypervisor vendor: */hypervisor /p' | head -n 1)," \
	"kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "tools: $($FSP --version 2>/dev/null | head -n 1), $(bpftrace --version 2>/dev/null || echo 'no bpftrace')," \
	"gcc $(gcc -dumpversion)"
echo "source: $(git describe --always --dirty 2>/dev/null || echo 'not a git tree'), fsp-bpf built" \
	"$(date -u -r "$FSP" '+%Y-%m-%d %H:%M:%S UTC')"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); targets pinned to CPU $PIN_CPU"
echo

# ---- 1. marks with nobody attached -------------------------------------------------

echo "== 1. A mark enter+leave with nobody attached (bench/fsp_off; probe ABI v2, then v1) =="
$PIN "$BIN/fsp_off" >"$RAW/fsp_off.log" 2>&1
cat "$RAW/fsp_off.log"
$PIN "$BIN1/fsp_off" >"$RAW/fsp_off_v1.log" 2>&1
sed 's/^fsp_off:/fsp_off (ABI v1):/' "$RAW/fsp_off_v1.log"
OFF_BASE=$(kv "$RAW/fsp_off.log" base_ns)
OFF_MARKED=$(kv "$RAW/fsp_off.log" marked_ns)
OFF_OVER=$(kv "$RAW/fsp_off.log" overhead_ns)
OFF_SOVER=$(kv "$RAW/fsp_off.log" store_overhead_ns)
echo

# ---- 2. cost per probe hit ----------------------------------------------------------

CONDS=(none empty fsp)
[ $HAVE_BPFTRACE = 1 ] && CONDS+=(bpftrace)
NC=${#CONDS[@]}
declare -A HIT HITMIN PH # lists per condition; PH[cond,rep] one value
for c in "${CONDS[@]}"; do
	HIT[$c]=""
	HITMIN[$c]=""
done
SAMP_FSP="" SAMP_BT="" EXPECT_FSP="" EXPECT_BT=""

# probe_run COND REP: one process, one condition
probe_run() {
	local c=$1 r=$2 log=$RAW/probe_$1_$2.log tlog=$RAW/probe_$1_$2.tool.log pid tool="" att
	local args=(-n "$ITER" -r "$RUNS")
	[ "$c" != none ] && args+=(-a)
	$PIN "$BIN1/probe_cost" "${args[@]}" >"$log" 2>&1 &
	pid=$!
	if [ "$c" != none ] && ! wait_exe "$pid" "$BIN1/probe_cost"; then
		echo "  rep $r $c: target did not start" >&2
		wait "$pid"
		return
	fi
	case $c in
	empty)
		"$EMPTY_ATTACH" "$EMPTY_OBJ" "$BIN1/probe_cost" "$pid" >"$tlog" 2>&1 &
		tool=$!
		;;
	fsp)
		"$FSP" --no-events -F "$FREQ" -p "$pid" --json "$RAW/probe_fsp_$r.json" >"$tlog" 2>&1 &
		tool=$!
		;;
	bpftrace)
		bpftrace -p "$pid" "$BT" "$pid" >"$tlog" 2>&1 &
		tool=$!
		;;
	esac
	wait "$pid"
	[ -n "$tool" ] && stop_tool "$tool"
	att=$(kv "$log" attached)
	if [ -z "$(kv "$log" ns_per_hit)" ] || { [ "$c" = none ] && [ "$att" != 0 ]; } ||
		{ [ "$c" != none ] && [ "$att" != 1 ]; }; then
		echo "  rep $r $c: no valid result (see $log, $tlog)"
		return
	fi
	PH[$c,$r]=$(kv "$log" ns_per_hit)
	HIT[$c]+=" ${PH[$c,$r]}"
	HITMIN[$c]+=" $(kv "$log" min_ns_per_hit)"
	case $c in
	fsp)
		SAMP_FSP+=" $(sed -n 's/.*"total_samples": *\([0-9]*\).*/\1/p' "$RAW/probe_fsp_$r.json" | head -n 1)"
		EXPECT_FSP+=" $(calc "$(kv "$log" cpu_seconds) * $FREQ")"
		;;
	bpftrace)
		SAMP_BT+=" $(sed -n 's/^@nsamples: *\([0-9]*\).*/\1/p' "$tlog" | head -n 1)"
		EXPECT_BT+=" $(calc "$(kv "$log" cpu_seconds) * $FREQ")"
		;;
	esac
	printf '  rep %d %-8s %10.2f ns/hit\n' "$r" "$c" "${PH[$c,$r]}"
}

echo "== 2. Cost per probe hit (bench/probe_cost: $ITER iterations x 2 hits, $RUNS timed runs" \
	"per process, $REPS interleaved reps) =="
PAIR_EMPTY="" PAIR_BT=""
for ((r = 0; r < REPS; r++)); do
	for ((k = 0; k < NC; k++)); do
		probe_run "${CONDS[$(((r + k) % NC))]}" "$r"
	done
	# the same ratio within this repetition (conditions minutes apart cancel drift)
	if [ -n "${PH[none,$r]:-}" ] && [ -n "${PH[fsp,$r]:-}" ]; then
		[ -n "${PH[empty,$r]:-}" ] &&
			PAIR_EMPTY+=" $(calc "(${PH[fsp,$r]} - ${PH[none,$r]}) / (${PH[empty,$r]} - ${PH[none,$r]})")"
		[ -n "${PH[bpftrace,$r]:-}" ] &&
			PAIR_BT+=" $(calc "(${PH[fsp,$r]} - ${PH[none,$r]}) / (${PH[bpftrace,$r]} - ${PH[none,$r]})")"
	fi
done
declare -A MED MIN COST
for c in none empty fsp bpftrace; do
	# shellcheck disable=SC2086
	MED[$c]=$(median ${HIT[$c]:-})
	# shellcheck disable=SC2086
	MIN[$c]=$(median ${HITMIN[$c]:-})
	[ -z "${MED[$c]}" ] && MED[$c]=n/a && MIN[$c]=n/a
done
for c in none empty fsp bpftrace; do
	COST[$c]=$(calc "${MED[$c]} - ${MED[none]}")
done
R_EMPTY=$(calc "${COST[fsp]} / ${COST[empty]}")
R_BT=$(calc "${COST[fsp]} / ${COST[bpftrace]}")
R_EMPTY_MIN=$(calc "(${MIN[fsp]} - ${MIN[none]}) / (${MIN[empty]} - ${MIN[none]})")
# shellcheck disable=SC2086
R_EMPTY_PAIR=$(median $PAIR_EMPTY)
# shellcheck disable=SC2086
R_BT_PAIR=$(median $PAIR_BT)
# shellcheck disable=SC2086
SF=$(median $SAMP_FSP) EF=$(median $EXPECT_FSP)
# shellcheck disable=SC2086
SB=$(median $SAMP_BT) EB=$(median $EXPECT_BT)
echo

# ---- 3. sampling cost ------------------------------------------------------------------

CW_CONDS=(none empty fsp)
NCW=${#CW_CONDS[@]}
declare -A WALL CPUT UNIT CW # lists per condition; CW[cond,rep] "wall cpu unit_ns"
FSP_STEADY="" FSP_TOTAL="" FSP_LIFE="" CW_SAMPLES="" CW_EXPECT=""

# cpu_run COND REP
cpu_run() {
	local c=$1 r=$2 log=$RAW/cpu_$1_$2.log tlog=$RAW/cpu_$1_$2.tool.log pid sub fpid tool
	local s0 s1 t0 t1 l0 l1 i
	case $c in
	none)
		$PIN "$BIN1/cpu_work" -n "$CPU_ITER" >"$log" 2>&1
		;;
	empty)
		$PIN "$BIN1/cpu_work" -n "$CPU_ITER" -a >"$log" 2>&1 &
		pid=$!
		wait_exe "$pid" "$BIN1/cpu_work" || { wait "$pid"; return; }
		"$EMPTY_ATTACH" "$EMPTY_OBJ" "$BIN1/cpu_work" "$pid" "$FREQ" >"$tlog" 2>&1 &
		tool=$!
		wait "$pid"
		stop_tool "$tool"
		;;
	fsp)
		$PIN "$BIN1/cpu_work" -n "$CPU_ITER" -a >"$log" 2>&1 &
		pid=$!
		wait_exe "$pid" "$BIN1/cpu_work" || { wait "$pid"; return; }
		rm -f "$RAW/fsp.pid"
		l0=$(now)
		(
			"$FSP" -F "$FREQ" -p "$pid" --json "$RAW/cpu_fsp_$r.json" >"$tlog" 2>&1 &
			echo $! >"$RAW/fsp.pid"
			wait $!
			times >"$RAW/cpu_fsp_$r.times"
		) &
		sub=$!
		# from when the target starts (attached) to when it ends: the session proper
		for ((i = 0; i < 3000; i++)); do
			[ -s "$RAW/fsp.pid" ] && grep -q working "$log" && break
			sleep 0.005
		done
		fpid=$(cat "$RAW/fsp.pid" 2>/dev/null)
		s0=$(sched_ns "$fpid") t0=$(now)
		wait "$pid"
		s1=$(sched_ns "$fpid") t1=$(now)
		stop_tool "$fpid"
		wait "$sub"
		l1=$(now)
		FSP_STEADY+=" $(calc "($s1 - $s0) / 1e9 / ($t1 - $t0) * 100")"
		FSP_TOTAL+=" $(times_s "$RAW/cpu_fsp_$r.times")"
		FSP_LIFE+=" $(calc "$l1 - $l0")"
		CW_SAMPLES+=" $(sed -n 's/.*"total_samples": *\([0-9]*\).*/\1/p' "$RAW/cpu_fsp_$r.json" | head -n 1)"
		CW_EXPECT+=" $(calc "$(kv "$log" cpu_seconds) * $FREQ")"
		;;
	esac
	if [ -z "$(kv "$log" seconds)" ] || { [ "$c" != none ] && [ "$(kv "$log" attached)" != 1 ]; }; then
		echo "  rep $r $c: no valid result (see $log)"
		return
	fi
	CW[$c,$r]="$(kv "$log" seconds) $(kv "$log" cpu_seconds) $(kv "$log" unit_ns)"
	WALL[$c]+=" $(kv "$log" seconds)"
	CPUT[$c]+=" $(kv "$log" cpu_seconds)"
	UNIT[$c]+=" $(kv "$log" unit_ns)"
	printf '  rep %d %-7s %8.4f s wall %8.4f s CPU %8.3f ms median unit\n' "$r" "$c" \
		"$(kv "$log" seconds)" "$(kv "$log" cpu_seconds)" "$(calc "$(kv "$log" unit_ns) / 1e6")"
}

echo "== 3a. Sampling cost: bench/cpu_work (100 units x $CPU_ITER iterations, 200 probe hits)" \
	"alone, with an empty $FREQ Hz sampler, with fsp-bpf -F $FREQ; $CPU_REPS interleaved reps =="
PW_FSP="" PC_FSP="" PU_FSP="" PW_EMPTY="" PC_EMPTY="" PU_EMPTY=""
for ((r = 0; r < CPU_REPS; r++)); do
	for ((k = 0; k < NCW; k++)); do
		cpu_run "${CW_CONDS[$(((r + k) % NCW))]}" "$r"
	done
	if [ -n "${CW[none,$r]:-}" ]; then
		read -r wn cn un <<<"${CW[none,$r]}"
		if [ -n "${CW[fsp,$r]:-}" ]; then
			read -r w c u <<<"${CW[fsp,$r]}"
			PW_FSP+=" $(calc "($w / $wn - 1) * 100")"
			PC_FSP+=" $(calc "($c / $cn - 1) * 100")"
			PU_FSP+=" $(calc "($u / $un - 1) * 100")"
		fi
		if [ -n "${CW[empty,$r]:-}" ]; then
			read -r w c u <<<"${CW[empty,$r]}"
			PW_EMPTY+=" $(calc "($w / $wn - 1) * 100")"
			PC_EMPTY+=" $(calc "($c / $cn - 1) * 100")"
			PU_EMPTY+=" $(calc "($u / $un - 1) * 100")"
		fi
	fi
done
declare -A WMED CMED UMED
for c in "${CW_CONDS[@]}"; do
	# shellcheck disable=SC2086
	WMED[$c]=$(median ${WALL[$c]:-})
	# shellcheck disable=SC2086
	CMED[$c]=$(median ${CPUT[$c]:-})
	# shellcheck disable=SC2086
	UMED[$c]=$(median ${UNIT[$c]:-})
	[ -z "${WMED[$c]}" ] && WMED[$c]=n/a && CMED[$c]=n/a && UMED[$c]=n/a
done
W_OVER=$(calc "(${WMED[fsp]} / ${WMED[none]} - 1) * 100")
C_OVER=$(calc "(${CMED[fsp]} / ${CMED[none]} - 1) * 100")
W_OVER_E=$(calc "(${WMED[empty]} / ${WMED[none]} - 1) * 100")
C_OVER_E=$(calc "(${CMED[empty]} / ${CMED[none]} - 1) * 100")
# shellcheck disable=SC2086
PW_F=$(median $PW_FSP) PC_F=$(median $PC_FSP) PU_F=$(median $PU_FSP)
# shellcheck disable=SC2086
PW_E=$(median $PW_EMPTY) PC_E=$(median $PC_EMPTY) PU_E=$(median $PU_EMPTY)

# shellcheck disable=SC2086
F_STEADY=$(median $FSP_STEADY)
# shellcheck disable=SC2086
F_TOTAL=$(median $FSP_TOTAL)
# shellcheck disable=SC2086
F_LIFE=$(median $FSP_LIFE)
F_TOTAL_PCT=$(calc "$F_TOTAL / $F_LIFE * 100")
# CPU that does not grow with the session (start-up, attach, report), and the
# session length from which the whole-life average is under 1% of a core
F_FIXED=$(calc "$F_TOTAL - $F_STEADY / 100 * $F_LIFE")
F_BREAKEVEN=$(calc "$F_FIXED / (0.01 - $F_STEADY / 100)")
# shellcheck disable=SC2086
CWS=$(median $CW_SAMPLES) CWE=$(median $CW_EXPECT)
echo

# ---- 3b. the ticks' direct cost ---------------------------------------------------------------

declare -A TK # TK[cond,rep] = irq_lost_pct
TK_FSP="" TK_EMPTY="" TK_NONE="" TK_BARE=""
TK_CONDS=(none bare empty fsp)
# tick_run COND REP
tick_run() {
	local c=$1 r=$2 log=$RAW/tick_$1_$2.log tlog=$RAW/tick_$1_$2.tool.log pid tool
	if [ "$c" = none ]; then
		$PIN "$BIN1/tick_cost" >"$log" 2>&1
	else
		$PIN "$BIN1/tick_cost" -a >"$log" 2>&1 &
		pid=$!
		wait_exe "$pid" "$BIN1/tick_cost" || { wait "$pid"; return; }
		if [ "$c" = empty ]; then
			"$EMPTY_ATTACH" "$EMPTY_OBJ" "$BIN1/tick_cost" "$pid" "$FREQ" >"$tlog" 2>&1 &
		elif [ "$c" = bare ]; then
			"$EMPTY_ATTACH" -b "$EMPTY_OBJ" "$BIN1/tick_cost" "$pid" "$FREQ" >"$tlog" 2>&1 &
		else
			"$FSP" -F "$FREQ" -p "$pid" >"$tlog" 2>&1 &
		fi
		tool=$!
		wait "$pid"
		stop_tool "$tool"
	fi
	if [ -z "$(kv "$log" irq_lost_pct)" ] || { [ "$c" != none ] && [ "$(kv "$log" attached)" != 1 ]; }; then
		echo "  rep $r $c: no valid result (see $log)"
		return
	fi
	TK[$c,$r]=$(kv "$log" irq_lost_pct)
	printf '  rep %d %-5s %7s %% of the time in interrupt gaps, %7s gaps/s, median %6s ns\n' \
		"$r" "$c" "${TK[$c,$r]}" "$(kv "$log" irq_gaps_per_s)" "$(kv "$log" irq_gap_median_ns)"
}

echo "== 3b. Sampler ticks' direct cost: bench/tick_cost (2 s clock-reading loop; CPU time in" \
	"gaps of 1..200 us) alone, with a bare $FREQ Hz cpu-clock event (no BPF program), with an" \
	"empty $FREQ Hz sampler, with fsp-bpf; $TICK_REPS reps =="
for ((r = 0; r < TICK_REPS; r++)); do
	for ((k = 0; k < 4; k++)); do
		tick_run "${TK_CONDS[$(((r + k) % 4))]}" "$r"
	done
	if [ -n "${TK[none,$r]:-}" ]; then
		TK_NONE+=" ${TK[none,$r]}"
		[ -n "${TK[fsp,$r]:-}" ] && TK_FSP+=" $(calc "${TK[fsp,$r]} - ${TK[none,$r]}")"
		[ -n "${TK[empty,$r]:-}" ] && TK_EMPTY+=" $(calc "${TK[empty,$r]} - ${TK[none,$r]}")"
		[ -n "${TK[bare,$r]:-}" ] && TK_BARE+=" $(calc "${TK[bare,$r]} - ${TK[none,$r]}")"
	fi
done
# shellcheck disable=SC2086
T_NONE=$(median $TK_NONE) T_FSP=$(median $TK_FSP) T_EMPTY=$(median $TK_EMPTY)
# shellcheck disable=SC2086
T_BARE=$(median $TK_BARE)
[ -z "$T_BARE" ] && T_BARE=n/a
[ -z "$T_FSP" ] && T_FSP=n/a
[ -z "$T_EMPTY" ] && T_EMPTY=n/a
# one tick's cost in us: the extra share of the time over FREQ ticks a second
TICK_US=$(calc "$T_EMPTY * 1e4 / $FREQ")
TICK_US_FSP=$(calc "$T_FSP * 1e4 / $FREQ")
echo

# ---- 4. BPF run time per call (kernel.bpf_stats_enabled) ------------------------------------

declare -A NSCALL
# prog_stats OWNER_PID NAME_REGEX -> "calls ns_per_call" summed over the programs
# that process holds (prog_id in its fds' fdinfo) whose name matches
prog_stats() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u |
		while read -r id; do bpftool prog show id "$id" -j 2>/dev/null; done | jq -rs --arg re "$2" '
		[ .[] | select((.name // "") | test($re)) | { c: (.run_cnt // 0), t: (.run_time_ns // 0) } ]
		| (map(.c) | add // 0) as $c | (map(.t) | add // 0) as $t
		| "\($c) \(if $c > 0 then $t / $c else 0 end)"'
}
# stats_run COND: probe_cost under COND with bpf stats on, reads them mid-run
stats_run() {
	local c=$1 log=$RAW/stats_$1.log tlog=$RAW/stats_$1.tool.log pid tool i
	$PIN "$BIN1/probe_cost" -n "$ITER" -r 5 -a >"$log" 2>&1 &
	pid=$!
	wait_exe "$pid" "$BIN1/probe_cost" || { wait "$pid"; return; }
	case $c in
	empty) "$EMPTY_ATTACH" "$EMPTY_OBJ" "$BIN1/probe_cost" "$pid" "$FREQ" >"$tlog" 2>&1 & ;;
	fsp) "$FSP" --no-events -F "$FREQ" -p "$pid" >"$tlog" 2>&1 & ;;
	bpftrace) bpftrace -p "$pid" "$BT" "$pid" >"$tlog" 2>&1 & ;;
	esac
	tool=$!
	for ((i = 0; i < 3000; i++)); do
		grep -q "run 3:" "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	case $c in
	empty)
		NSCALL[empty_hit]=$(prog_stats "$tool" '^empty$')
		NSCALL[empty_sample]=$(prog_stats "$tool" '^empty_sample$')
		;;
	fsp)
		NSCALL[fsp_enter]=$(prog_stats "$tool" '^mark_enter$')
		NSCALL[fsp_leave]=$(prog_stats "$tool" '^mark_leave$')
		NSCALL[fsp_sample]=$(prog_stats "$tool" '^sample$')
		;;
	bpftrace)
		NSCALL[bt_hit]=$(prog_stats "$tool" '^mark_(enter|leave)$')
		;;
	esac
	wait "$pid"
	stop_tool "$tool"
}
ns_of() {
	if [ -n "${NSCALL[$1]:-}" ] && [ "${NSCALL[$1]%% *}" != 0 ]; then
		echo "${NSCALL[$1]#* }" | awk '{ printf "%.1f", $1 }'
	else
		echo n/a
	fi
}

STATS_KEYS=(empty_hit empty_sample fsp_enter fsp_leave fsp_sample bt_hit)
if [ "$BPF_STATS" = 1 ]; then
	echo "== 4. BPF program run time per call (kernel.bpf_stats_enabled=1 for this part only) =="
	OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
	trap 'sysctl -q kernel.bpf_stats_enabled=$OLD_STATS' EXIT
	sysctl -q kernel.bpf_stats_enabled=1
	stats_run empty
	stats_run fsp
	[ $HAVE_BPFTRACE = 1 ] && stats_run bpftrace
	sysctl -q kernel.bpf_stats_enabled="$OLD_STATS"
	trap - EXIT
	for k in "${STATS_KEYS[@]}"; do
		n=${NSCALL[$k]:-0}
		printf '  %-12s calls %-10s %8s ns/call\n' "$k" "${n%% *}" "$(ns_of "$k")"
	done
	echo
fi
BPF_FSP_HIT=$(calc "($(ns_of fsp_enter) + $(ns_of fsp_leave)) / 2")
BPF_FSP_NET=$(calc "$BPF_FSP_HIT - $(ns_of empty_hit)")
HITS_PER_S=$(calc "1e9 / ${MED[fsp]}")
BPF_SHARE=$(calc "$HITS_PER_S * $BPF_FSP_HIT / 1e9 * 100")
LOST_PRED=$(calc "$BPF_SHARE / 100 * $EF")
LOST_OBS=$(calc "$EF - $SF")

# ---- summary -----------------------------------------------------------------------------------

V1=$(verdict "$OFF_OVER" "<=" 2)
V1S=$(verdict "$OFF_SOVER" "<=" 2)
V2=$(verdict "$R_EMPTY" "<=" 1.15)
V2P=$(verdict "$R_EMPTY_PAIR" "<=" 1.15)
V2B=$(verdict "$R_BT" "<" 1)
V3=$(verdict "$W_OVER" "<=" 1)
V3C=$(verdict "$C_OVER" "<=" 1)
V3U=$(verdict "$PU_F" "<=" 1)
V3T=$(verdict "$T_FSP" "<=" 1)
V3P=$(verdict "$PW_F" "<=" 1)
V4=$(verdict "$F_STEADY" "<=" 1)
V4T=$(verdict "$F_TOTAL_PCT" "<=" 1)

row() { printf '%-66s %28s %8s %s\n' "$@"; }
echo "== Summary (targets from the issue; medians over interleaved repetitions) =="
row "measure" "value" "target" "verdict"
row "1. mark enter+leave, nobody attached: xorshift body (ns)" "$OFF_OVER" "<= 2" "$V1"
row "   same, store-only body (ns)" "$OFF_SOVER" "<= 2" "$V1S"
row "2. probe_cost loop alone (ns per probe site passed)" "${MED[none]}" "" ""
row "   time per probe hit, empty BPF program (ns)" "${MED[empty]}" "" ""
row "   time per probe hit, fsp-bpf (ns)" "${MED[fsp]}" "" ""
row "   time per probe hit, bpftrace equivalent (ns)" "${MED[bpftrace]}" "" ""
row "   cost per hit over the loop: empty / fsp-bpf / bpftrace (ns)" \
	"${COST[empty]} / ${COST[fsp]} / ${COST[bpftrace]}" "" ""
row "   fsp-bpf / empty BPF program (ratio of medians)" "$R_EMPTY" "<= 1.15" "$V2"
row "   fsp-bpf / empty BPF program (median of per-rep ratios)" "$R_EMPTY_PAIR" "<= 1.15" "$V2P"
row "   fsp-bpf / empty BPF program (from per-process minima)" "$R_EMPTY_MIN" "" ""
row "   fsp-bpf / bpftrace (ratio of medians; per-rep)" "$R_BT; ${R_BT_PAIR:-n/a}" "< 1" "$V2B"
row "3. cpu_work run time: alone / empty $FREQ Hz sampler / fsp-bpf (s)" \
	"${WMED[none]} / ${WMED[empty]} / ${WMED[fsp]}" "" ""
row "   sampling overhead, fsp-bpf: run time, ratio of medians (%)" "$W_OVER" "<= 1" "$V3"
row "   same, median of per-rep paired differences (%)" "$PW_F" "<= 1" "$V3P"
row "   same, median unit time, paired (%)" "$PU_F" "<= 1" "$V3U"
row "   same, CPU time of the target: medians; paired (%)" "$C_OVER; ${PC_F:-n/a}" "<= 1" "$V3C"
row "   median unit time: alone / empty / fsp-bpf (ms)" \
	"$(calc "${UMED[none]} / 1e6") / $(calc "${UMED[empty]} / 1e6") / $(calc "${UMED[fsp]} / 1e6")" "" ""
row "   empty $FREQ Hz sampler: run time; paired; unit; CPU paired (%)" \
	"$W_OVER_E; ${PW_E:-n/a}; ${PU_E:-n/a}; ${PC_E:-n/a}" "" ""
row "   interrupt time of a lone target, tick_cost (% of its time)" "${T_NONE:-n/a}" "" ""
row "   sampling overhead, fsp-bpf: added interrupt time (%)" "$T_FSP" "<= 1" "$V3T"
row "   same, empty $FREQ Hz sampler (%)" "$T_EMPTY" "" ""
row "   same, bare $FREQ Hz cpu-clock event, no BPF: the timer alone, floor for any sampler (%)" "$T_BARE" "" ""
row "   one sampler tick: empty program / fsp-bpf (us)" "$TICK_US / $TICK_US_FSP" "" ""
row "   fsp-bpf CPU during the session (% of one core)" "$F_STEADY" "<= 1" "$V4"
row "   fsp-bpf CPU over its whole life (% of one core)" "$F_TOTAL_PCT" "(<= 1)" "$V4T"
row "   (user+sys s / lifetime s; of which fixed start-up+report s)" "$F_TOTAL / $F_LIFE; $F_FIXED" "" ""
row "   whole-life CPU <= 1% for sessions longer than (s)" "$F_BREAKEVEN" "" ""
row "4. BPF time per hit: empty / fsp-bpf / bpftrace (ns, bpf_stats)" \
	"$(ns_of empty_hit) / $BPF_FSP_HIT / $(ns_of bt_hit)" "" ""
row "   fsp-bpf BPF time per hit beyond the empty program's (ns)" "$BPF_FSP_NET" "" ""
row "   BPF time per sample: empty / fsp-bpf (ns)" "$(ns_of empty_sample) / $(ns_of fsp_sample)" "" ""
row "   probe_cost under fsp-bpf: hits/s; share of time in its BPF (%)" "$HITS_PER_S; $BPF_SHARE" "" ""
row "   samples of probe_cost, fsp-bpf: got / expected (CPU s x $FREQ)" "$SF / $EF" "" ""
row "   samples lost if ticks in BPF were skipped / actually missing" "$LOST_PRED / $LOST_OBS" "" ""
row "   samples of probe_cost, bpftrace: got / expected" "${SB:-n/a} / ${EB:-n/a}" "" ""
row "   samples of cpu_work, fsp-bpf: got / expected" "$CWS / $CWE" "" ""
echo
echo "spread over repetitions (min..max):"
for c in "${CONDS[@]}"; do
	# shellcheck disable=SC2086
	printf '  probe_cost %-8s %s ns/hit\n' "$c" "$(minmax ${HIT[$c]})"
done
for c in "${CW_CONDS[@]}"; do
	# shellcheck disable=SC2086
	printf '  cpu_work   %-8s %s s wall, %s s CPU\n' "$c" "$(minmax ${WALL[$c]:-})" "$(minmax ${CPUT[$c]:-})"
done
# shellcheck disable=SC2086
printf '  cpu_work   fsp-bpf vs alone, paired: %s %% run time, %s %% unit, %s %% CPU\n' \
	"$(minmax $PW_FSP)" "$(minmax $PU_FSP)" "$(minmax $PC_FSP)"
# shellcheck disable=SC2086
printf '  tick_cost  interrupt time alone %s %%; added: fsp-bpf %s %%, empty sampler %s %%\n' \
	"$(minmax $TK_NONE)" "$(minmax $TK_FSP)" "$(minmax $TK_EMPTY)"
# shellcheck disable=SC2086
printf '  fsp-bpf CPU during session %s %%\n' "$(minmax $FSP_STEADY)"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "bench: off_base_ns=$OFF_BASE off_marked_ns=$OFF_MARKED off_overhead_ns=$OFF_OVER" \
	"off_store_overhead_ns=$OFF_SOVER"
echo "bench: hit_none_ns=${MED[none]} hit_empty_ns=${MED[empty]} hit_fsp_ns=${MED[fsp]}" \
	"hit_bpftrace_ns=${MED[bpftrace]} cost_empty_ns=${COST[empty]} cost_fsp_ns=${COST[fsp]}" \
	"cost_bpftrace_ns=${COST[bpftrace]} ratio_fsp_empty=$R_EMPTY ratio_fsp_empty_paired=${R_EMPTY_PAIR:-n/a}" \
	"ratio_fsp_bpftrace=$R_BT ratio_fsp_bpftrace_paired=${R_BT_PAIR:-n/a}"
echo "bench: work_none_s=${WMED[none]} work_empty_s=${WMED[empty]} work_fsp_s=${WMED[fsp]}" \
	"sampling_overhead_pct=$W_OVER sampling_overhead_paired_pct=${PW_F:-n/a}" \
	"sampling_overhead_unit_paired_pct=${PU_F:-n/a} sampling_overhead_cpu_pct=$C_OVER" \
	"empty_sampler_overhead_pct=$W_OVER_E empty_sampler_overhead_unit_paired_pct=${PU_E:-n/a}" \
	"empty_sampler_overhead_cpu_pct=$C_OVER_E" \
	"tick_gap_none_pct=${T_NONE:-n/a} tick_gap_fsp_pct=$T_FSP tick_gap_empty_pct=$T_EMPTY tick_gap_bare_pct=$T_BARE" \
	"tick_us_empty=$TICK_US tick_us_fsp=$TICK_US_FSP" \
	"fsp_cpu_session_pct=$F_STEADY fsp_cpu_total_pct=$F_TOTAL_PCT fsp_cpu_fixed_s=$F_FIXED"
echo "bench: bpf_ns_per_hit_fsp=$BPF_FSP_HIT bpf_ns_per_hit_empty=$(ns_of empty_hit)" \
	"bpf_ns_per_hit_bpftrace=$(ns_of bt_hit) bpf_ns_per_sample_fsp=$(ns_of fsp_sample)" \
	"bpf_ns_per_sample_empty=$(ns_of empty_sample) bpf_time_share_pct=$BPF_SHARE"
echo "bench: samples_fsp=$SF expected_fsp=$EF samples_bpftrace=${SB:-n/a} expected_bpftrace=${EB:-n/a}" \
	"samples_cpu_work=$CWS expected_cpu_work=$CWE"
echo "bench: verdicts off=$V1 off_store=$V1S probe_ratio=$V2 probe_ratio_paired=$V2P" \
	"fsp_vs_bpftrace=$V2B sampling=$V3 sampling_paired=$V3P sampling_unit=$V3U sampling_cpu=$V3C" \
	"sampling_ticks=$V3T" \
	"fsp_cpu=$V4"
exec >&- 2>&-
wait "$TEE"
exit 0
