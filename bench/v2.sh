#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/v2.sh - what probe ABI v2 marks cost (make bench; needs root), against
# the targets of the trap-free marks issue, every ratio from one run with the
# conditions interleaved (order rotated each repetition) and medians:
#
#   A. an enter+leave pair with fsp-bpf attached     bench/probe_cost (ABI v2) under
#      (target: <= 5 ns more than the loop)           none | fsp-bpf; ABI v1 for reference
#   B. the observer effect (targets: run time        wl_observer fine1us / fine100ns under
#      <= 1.03x, <= 1.10x unprofiled)                 none | fsp-bpf | fsp-bpf on the ABI v1
#                                                     build | bpftrace (the same bookkeeping,
#                                                     ABI v1 build) | perf record (sampling only)
#   C. the sampler's cost per sample                 BPF time of fsp-bpf's sample program
#      (target: <= 1.2x today's)                      (kernel.bpf_stats_enabled) on
#                                                     bench/tick_cost built with ABI v1 (the
#                                                     sampler as it was) and v2 (reading a
#                                                     stack from the process's memory); the
#                                                     interrupt time per tick (tick_cost gaps)
#                                                     under perf record, bpftrace, fsp-bpf
#
# Environment: BENCH_V2_REPS (A and C repetitions, default 9), BENCH_OBS_REPS (B
# repetitions, default 5), BENCH_ITER (probe_cost iterations, 2000000),
# BENCH_BASELINE_FSP (another fsp-bpf binary, e.g. one built from main before
# ABI v2, whose sampler is "today's" in C; default: this fsp-bpf on the ABI v1
# build), BENCH_BPF_STATS=0 to skip C's BPF statistics, BENCH_V2_PARTS (the
# parts to run, default ABC). Output:
# bench/results/v2-latest.txt and a dated copy, raw logs in bench/results/raw-v2/.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=$ROOT/.output
FSP=$ROOT/fsp-bpf
BIN=$OUT/bench
BIN1=$OUT/bench/v1
BIN32=$OUT/bench/frame32
WL=$OUT/workloads
WL1=$OUT/workloads-v1
RES=$ROOT/bench/results
RAW=$RES/raw-v2
REPS=${BENCH_V2_REPS:-9}
OREPS=${BENCH_OBS_REPS:-5}
ITER=${BENCH_ITER:-2000000}
BASE_FSP=${BENCH_BASELINE_FSP:-}
BPF_STATS=${BENCH_BPF_STATS:-1}
PARTS=${BENCH_V2_PARTS:-ABC}
FREQ=999
PIN="taskset -c $(($(nproc) - 1))"

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

part() { case $PARTS in *"$1"*) return 0 ;; esac; return 1; }

if [ "$(id -u)" != 0 ]; then
	echo "bench/v2.sh: needs root (BPF, uprobes, perf events)" >&2
	exit 1
fi
for f in "$FSP" "$BIN/probe_cost" "$BIN1/probe_cost" "$BIN32/probe_cost" "$BIN/tick_cost" "$BIN1/tick_cost" \
	"$WL/wl_observer" "$WL1/wl_observer"; do
	[ -x "$f" ] || { echo "bench/v2.sh: $f is missing; run make bench" >&2; exit 1; }
done
HAVE_BT=0
command -v bpftrace >/dev/null 2>&1 && HAVE_BT=1
HAVE_PERF=0
command -v perf >/dev/null 2>&1 && HAVE_PERF=1
mkdir -p "$RAW"
rm -f "$RAW"/*
LOG=$RES/bench-v2-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$LOG" "$RES/v2-latest.txt") 2>&1
TEE=$!

echo "fsp-bpf probe ABI v2 benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs," \
	"kernel $(uname -r), source $(git describe --always --dirty 2>/dev/null)"
echo "baseline sampler (\"today's\"): ${BASE_FSP:-this fsp-bpf on ABI v1 marks}"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# The bpftrace equivalent of fsp-bpf's bookkeeping on ABI v1 marks, for binary $1
# (as bench/run.sh's): a per-thread stack on the probes, a 999 Hz sampler.
bt_script() {
	cat <<EOF
usdt:$1:fsp:mark_enter { \$d = @depth[tid]; @frame[tid, \$d] = arg0; @depth[tid] = \$d + 1; }
usdt:$1:fsp:mark_leave { \$d = @depth[tid]; if (\$d > 0) { @depth[tid] = \$d - 1; delete(@frame[tid, \$d - 1]); } }
profile:hz:$FREQ /pid == cpid/ { \$d = @depth[tid]; @samples[tid, \$d > 0 ? @frame[tid, \$d - 1] : 0] = count(); }
END { clear(@frame); clear(@depth); clear(@samples); }
EOF
}

# ---- A. an enter+leave pair, attached ----------------------------------------------------

declare -A HIT
# pair_run BIN COND REP: probe_cost of BIN under COND (none|fsp); ns per hit
pair_run() {
	local b=$1 c=$2 r=$3 log=$RAW/pair_$(basename "$(dirname "$1")")_$2_$3.log pid tool=""
	local args=(-n "$ITER" -r 5)
	[ "$c" != none ] && args+=(-a)
	$PIN "$b/probe_cost" "${args[@]}" >"$log" 2>&1 &
	pid=$!
	if [ "$c" = fsp ]; then
		wait_exe "$pid" "$b/probe_cost" || { wait "$pid"; return; }
		"$FSP" -F "$FREQ" -p "$pid" >"$log.tool" 2>&1 &
		tool=$!
	fi
	wait "$pid"
	[ -n "$tool" ] && stop_tool "$tool"
	if [ "$(kv "$log" attached)" != "$([ "$c" = none ] && echo 0 || echo 1)" ]; then
		echo "  rep $r $c: no valid result (see $log)"
		return
	fi
	kv "$log" ns_per_hit
}

PAIR="" PAIR_MED=n/a V1_PAIR=n/a PAIR32="" PAIR32_MED=n/a CALLS_DIFF=
part A && echo "== A. An enter+leave pair with fsp-bpf attached (bench/probe_cost, $ITER" \
	"iterations x 2 marks, 5 timed runs per process, $REPS interleaved reps) =="
NA=$REPS
part A || NA=0
for ((r = 0; r < NA; r++)); do
	for c in $([ $((r % 2)) = 0 ] && echo none fsp || echo fsp none); do
		HIT[$c,$r]=$(pair_run "$BIN" "$c" "$r")
	done
	# The same under the header before call numbers (32-byte frames),
	# side by side: what the call number costs a pair.
	for c in $([ $((r % 2)) = 0 ] && echo fsp none || echo none fsp); do
		HIT[f32$c,$r]=$(pair_run "$BIN32" "$c" "$r")
	done
	if [ -n "${HIT[none,$r]}" ] && [ -n "${HIT[fsp,$r]}" ]; then
		PAIR+=" $(calc "2 * (${HIT[fsp,$r]} - ${HIT[none,$r]})")"
		printf '  rep %d: loop %7.3f ns per mark, with fsp-bpf %7.3f: %6.3f ns per pair\n' "$r" \
			"${HIT[none,$r]}" "${HIT[fsp,$r]}" "$(calc "2 * (${HIT[fsp,$r]} - ${HIT[none,$r]})")"
	fi
	if [ -n "${HIT[f32none,$r]}" ] && [ -n "${HIT[f32fsp,$r]}" ]; then
		p32=$(calc "2 * (${HIT[f32fsp,$r]} - ${HIT[f32none,$r]})")
		PAIR32+=" $p32"
		printf '         header before call numbers: loop %7.3f, with fsp-bpf %7.3f: %6.3f ns per pair\n' \
			"${HIT[f32none,$r]}" "${HIT[f32fsp,$r]}" "$p32"
		[ -n "${HIT[fsp,$r]}" ] &&
			CALLS_DIFF+=" $(calc "2 * (${HIT[fsp,$r]} - ${HIT[f32fsp,$r]})")"
	fi
done
if part A; then
	# shellcheck disable=SC2086
	PAIR_MED=$(median $PAIR)
	# shellcheck disable=SC2086
	PAIR32_MED=$(median $PAIR32)
	# shellcheck disable=SC2086
	echo "  call numbers (issue 30, target <= +1 ns per pair): $PAIR_MED ns per pair, against" \
		"$PAIR32_MED with the header before them; attached pair, this header minus the older," \
		"median of the reps: $(median $CALLS_DIFF) ns"
	# ABI v1 for reference: a trap per mark (fewer iterations: ~1 us each).
	V1_NONE=$(ITER=200000 pair_run "$BIN1" none v1) V1_FSP=$(ITER=200000 pair_run "$BIN1" fsp v1)
	V1_PAIR=$(calc "2 * ($V1_FSP - $V1_NONE)")
	echo "  ABI v1 for reference: $V1_PAIR ns per pair (a uprobe trap per mark)"
	echo
fi

# ---- B. the observer effect --------------------------------------------------------------

OBS_CONDS=(none fsp fsp_v1)
[ $HAVE_BT = 1 ] && OBS_CONDS+=(bpftrace)
[ $HAVE_PERF = 1 ] && OBS_CONDS+=(perf)
declare -A OBS
# obs_run MODE ITERS COND REP: the workload's CPU time (ns) under COND
obs_run() {
	local m=$1 it=$2 c=$3 r=$4 t=$RAW/obs_$1_$3_$4 wl=$WL/wl_observer
	case $c in
	none) $PIN "$wl" "$t" "$m" "$it" >/dev/null 2>&1 ;;
	fsp) $PIN "$FSP" -F "$FREQ" -o "$t.json" -- "$wl" "$t" "$m" "$it" >"$t.log" 2>&1 ;;
	fsp_v1) $PIN "$FSP" --no-events -F "$FREQ" -o "$t.json" -- "$WL1/wl_observer" "$t" "$m" \
		"$it" >"$t.log" 2>&1 ;;
	bpftrace)
		bt_script "$WL1/wl_observer" >"$t.bt"
		$PIN bpftrace -c "$WL1/wl_observer $t $m $it" "$t.bt" >"$t.log" 2>&1
		;;
	perf) $PIN perf record -q -e cpu-clock -F "$FREQ" -o "$t.perf" -- "$wl" "$t" "$m" "$it" \
		>"$t.log" 2>&1 ;;
	esac
	sed -n 's/^cpu_total_ns //p' "$t" 2>/dev/null
}

declare -A RATIO COARSE
part B && echo "== B. The observer effect: wl_observer run time (its process CPU) unprofiled |" \
	"fsp-bpf -F $FREQ | fsp-bpf on the ABI v1 build | bpftrace (ABI v1 build) | perf record;" \
	"$OREPS reps =="
for m in $(part B && echo fine1us fine100ns); do
	$PIN "$WL/wl_observer" "$RAW/obs_$m.cal" "$m" >/dev/null 2>&1
	it=$(sed -n 's/^iters //p' "$RAW/obs_$m.cal")
	n=${#OBS_CONDS[@]}
	for ((r = 0; r < OREPS; r++)); do
		for ((k = 0; k < n; k++)); do
			c=${OBS_CONDS[$(((r + k) % n))]}
			OBS[$m,$c,$r]=$(obs_run "$m" "$it" "$c" "$r")
		done
		line="  $m rep $r:"
		for c in "${OBS_CONDS[@]}"; do
			[ -n "${OBS[$m,$c,$r]}" ] && [ -n "${OBS[$m,none,$r]}" ] &&
				RATIO[$m,$c]+=" $(calc "${OBS[$m,$c,$r]} / ${OBS[$m,none,$r]}")"
			line+=" $c $(calc "${OBS[$m,$c,$r]:-0} / 1e9") s"
		done
		echo "$line"
	done
	for c in fsp fsp_v1; do
		vals=""
		for ((r = 0; r < OREPS; r++)); do
			vals+=" $(jq -r '[.features[] | select(.name == "coarse") | .pct][0] // empty' \
				"$RAW/obs_${m}_${c}_$r.json" 2>/dev/null)"
		done
		# shellcheck disable=SC2086
		COARSE[$m,$c]=$(median $vals)
	done
done
echo

# ---- C. the sampler's cost per sample ------------------------------------------------------

# sample_cost FSP BIN: BPF ns per call of `sample` of fsp-bpf FSP profiling BIN's tick_cost
sample_cost() {
	local f=$1 b=$2 log=$RAW/stats_$3.log pid tool ns
	$PIN "$b/tick_cost" -s 3 -a >"$log" 2>&1 &
	pid=$!
	wait_exe "$pid" "$b/tick_cost" || { wait "$pid"; return; }
	"$f" -F "$FREQ" -p "$pid" >"$log.tool" 2>&1 &
	tool=$!
	sleep 2.5
	ns=$(prog_ns "$tool" sample)
	wait "$pid"
	stop_tool "$tool"
	echo "$ns"
}
declare -A SNS
if [ "$BPF_STATS" = 1 ] && part C; then
	echo "== C1. BPF time per sample (kernel.bpf_stats_enabled, $REPS reps): today's sampler on" \
		"ABI v1 marks, this one on ABI v1 and on ABI v2 marks (a stack read from memory) =="
	OLD=$(sysctl -n kernel.bpf_stats_enabled)
	trap 'sysctl -q kernel.bpf_stats_enabled=$OLD' EXIT
	sysctl -q kernel.bpf_stats_enabled=1
	for ((r = 0; r < REPS; r++)); do
		SNS[today,$r]=$(sample_cost "${BASE_FSP:-$FSP}" "$BIN1" "today_$r")
		SNS[v1,$r]=$(sample_cost "$FSP" "$BIN1" "v1_$r")
		SNS[v2,$r]=$(sample_cost "$FSP" "$BIN" "v2_$r")
		printf '  rep %d: today %s ns, ABI v1 %s ns, ABI v2 %s ns per sample\n' "$r" \
			"${SNS[today,$r]}" "${SNS[v1,$r]}" "${SNS[v2,$r]}"
	done
	sysctl -q kernel.bpf_stats_enabled="$OLD"
	trap - EXIT
	echo
fi
for k in today v1 v2; do
	vals=""
	for ((r = 0; r < REPS; r++)); do vals+=" ${SNS[$k,$r]:-}"; done
	# shellcheck disable=SC2086
	SNS[$k]=$(median $(echo "$vals" | tr ' ' '\n' | grep -v n/a))
done

TICK_CONDS=(none fsp_v1 fsp_v2)
[ $HAVE_BT = 1 ] && TICK_CONDS+=(bpftrace)
[ $HAVE_PERF = 1 ] && TICK_CONDS+=(perf)
declare -A GAP
# tick_run COND REP: % of tick_cost's time in interrupt gaps under COND
tick_run() {
	local c=$1 r=$2 b=$BIN log=$RAW/tick_$1_$2.log pid tool
	[ "$c" = fsp_v1 ] && b=$BIN1
	case $c in
	none) $PIN "$b/tick_cost" >"$log" 2>&1 ;;
	bpftrace) # launched by the tool once its probes are attached
		$PIN bpftrace -c "$b/tick_cost" -e "profile:hz:$FREQ /pid == cpid/ { @[tid] = count(); }" \
			>"$log" 2>&1 ;;
	perf) $PIN perf record -q -e cpu-clock -F "$FREQ" -o "$log.perf" -- "$b/tick_cost" \
		>"$log" 2>&1 ;;
	*)
		$PIN "$b/tick_cost" -a >"$log" 2>&1 &
		pid=$!
		wait_exe "$pid" "$b/tick_cost" || { wait "$pid"; return; }
		"$FSP" -F "$FREQ" -p "$pid" >"$log.tool" 2>&1 &
		tool=$!
		wait "$pid"
		stop_tool "$tool" 2
		;;
	esac
	kv "$log" irq_lost_pct
}
part C && echo "== C2. Interrupt time per sampler tick (bench/tick_cost gaps, $REPS reps): none |" \
	"fsp-bpf on ABI v1 marks | on ABI v2 marks | bpftrace profile:hz:$FREQ (a count per tid) |" \
	"perf record =="
n=${#TICK_CONDS[@]}
NC=$REPS
part C || NC=0
for ((r = 0; r < NC; r++)); do
	line="  rep $r:"
	for ((k = 0; k < n; k++)); do
		c=${TICK_CONDS[$(((r + k) % n))]}
		GAP[$c,$r]=$(tick_run "$c" "$r")
	done
	for c in "${TICK_CONDS[@]}"; do
		line+=" $c ${GAP[$c,$r]:-n/a}%"
		[ "$c" != none ] && [ -n "${GAP[$c,$r]}" ] && [ -n "${GAP[none,$r]}" ] &&
			GAP[$c]+=" $(calc "(${GAP[$c,$r]} - ${GAP[none,$r]}) * 1e4 / $FREQ")"
	done
	echo "$line"
done
echo

# ---- summary ------------------------------------------------------------------------------

row() { printf '%-72s %24s %8s %s\n' "$@"; }
echo "== Summary (medians; targets from the trap-free marks issue) =="
row "measure" "value" "target" "verdict"
row "A. enter+leave pair, fsp-bpf attached, ABI v2, over the loop (ns)" "$PAIR_MED" "<= 5" \
	"$(verdict "$PAIR_MED" "<=" 5)"
row "   the same with ABI v1 marks, for reference (ns)" "$V1_PAIR" "" ""
for m in fine1us fine100ns; do
	lim=$([ $m = fine1us ] && echo 1.03 || echo 1.10)
	for c in "${OBS_CONDS[@]}"; do
		[ "$c" = none ] && continue
		# shellcheck disable=SC2086
		v=$(median ${RATIO[$m,$c]:-})
		if [ "$c" = fsp ]; then
			row "B. $m: run time under fsp-bpf (ABI v2) / unprofiled" "${v:-n/a}" "<= $lim" \
				"$(verdict "${v:-n/a}" "<=" "$lim")"
		else
			row "   $m: under $c / unprofiled" "${v:-n/a}" "" ""
		fi
	done
	row "   $m: coarse feature's share, ABI v2 / ABI v1 marks (truth ~50%)" \
		"${COARSE[$m,fsp]:-n/a} / ${COARSE[$m,fsp_v1]:-n/a}" "" ""
done
C_RATIO=$(calc "${SNS[v2]:-n/a} / ${SNS[today]:-n/a}")
row "C. BPF time per sample: today's / ABI v1 marks / ABI v2 marks (ns)" \
	"${SNS[today]:-n/a} / ${SNS[v1]:-n/a} / ${SNS[v2]:-n/a}" "" ""
row "   ABI v2 sample / today's" "$C_RATIO" "<= 1.2" "$(verdict "$C_RATIO" "<=" 1.2)"
for c in "${TICK_CONDS[@]}"; do
	[ "$c" = none ] && continue
	# shellcheck disable=SC2086
	row "   interrupt time per tick, $c (us)" "$(median ${GAP[$c]:-})" "" ""
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-v2: pair_ns=$PAIR_MED pair_v1_ns=$V1_PAIR sample_today_ns=${SNS[today]:-n/a}" \
	"sample_v1_ns=${SNS[v1]:-n/a} sample_v2_ns=${SNS[v2]:-n/a} sample_ratio=$C_RATIO"
exec >&- 2>&-
wait "$TEE"
exit 0
