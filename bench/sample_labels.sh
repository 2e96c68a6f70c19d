#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/sample_labels.sh - what a label read at sample time ("label sample" of a
# probe map, bpf/samplelabel.bpf.h) costs the sampler (make bench; needs root):
# the BPF time per call of fsp-bpf's `sample` program (kernel.bpf_stats_enabled)
# while it profiles tests/workloads/wl_sampled with -p, the same two probe maps
# (its executable's and its library's global and a thread-local variable:
# three mapped marks open all the time under an fsp mark in the main thread,
# one in its worker, which takes a third of the samples) with their {global:S}
# instance read
#
#   probe    at the enter, as before (no "label sample")
#   sample   at each sample ("label sample": the stack copied, the variables
#            (three, or the worker's one) and their strings read, the labels
#            hashed and looked up)
#
# and, a function feature's instance read at sample time (function features
# on work(), record --stacks implied: the native record is in both), the
# three variables' frames appended to every sample of the process:
#
#   fcaller  function features with "instance caller" (nothing read)
#   fglobal  the same with "instance {global:S}" for each variable
#
# conditions interleaved, order alternated, BENCH_SL_REPS repetitions (default
# 9), medians and the ratio sample / probe. Output: bench/results/
# sample-labels-latest.txt and a dated copy, raw logs in bench/results/raw-sl/.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=$ROOT/.output
FSP=$ROOT/fsp-bpf
WL=$OUT/workloads/wl_sampled
RES=$ROOT/bench/results
RAW=$RES/raw-sl
REPS=${BENCH_SL_REPS:-9}
FREQ=999
PIN="taskset -c $(($(nproc) - 1))"

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "bench/sample_labels.sh: needs root (BPF, uprobes, perf events)" >&2
	exit 1
fi
[ -x "$FSP" ] && [ -x "$WL" ] || { echo "bench/sample_labels.sh: run make bench first" >&2; exit 1; }
mkdir -p "$RAW"
rm -f "$RAW"/*
LOG=$RES/bench-sample-labels-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$LOG" "$RES/sample-labels-latest.txt") 2>&1
TEE=$!

echo "fsp-bpf sample-time labels, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs," \
	"kernel $(uname -r), source $(git describe --always --dirty 2>/dev/null)"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# maps COND: the two maps, their instance read at the enter (probe) or at each
# sample; or (fcaller, fglobal) a map of function features
maps() {
	local label="" v
	if [ "$1" = fcaller ] || [ "$1" = fglobal ]; then
		printf 'map wlsf\n' >"$RAW/wlsf.map"
		for v in exe lib tls; do
			printf 'feature %s\n\tfunction wl_sampled:work\n' "$v" >>"$RAW/wlsf.map"
			[ "$1" = fglobal ] && printf '\tinstance {global:wl_%s_label}\n' "$v" >>"$RAW/wlsf.map"
		done
		echo "$RAW/wlsf.map"
		return
	fi
	[ "$1" = sample ] && label=$'\tlabel sample\n'
	printf 'map wlsx\nprovider wlsx\nfeature run\n\tenter run__start\n\tleave run__done\n' >"$RAW/wlsx.map"
	printf '\tinstance {global:wl_exe_label}\n%s' "$label" >>"$RAW/wlsx.map"
	printf 'feature tls\n\tenter tls__start\n\tleave tls__done\n' >>"$RAW/wlsx.map"
	printf '\tinstance {global:wl_tls_label}\n%s' "$label" >>"$RAW/wlsx.map"
	printf 'map wlsl\nprovider wlsl\nfeature run\n\tenter run__start\n\tleave run__done\n' >"$RAW/wlsl.map"
	printf '\tframe none\n\tinstance {global:wl_lib_label}\n%s' "$label" >>"$RAW/wlsl.map"
	echo "$RAW/wlsx.map,$RAW/wlsl.map"
}

# cost COND REP: BPF ns per call of `sample` while fsp-bpf profiles wl_sampled
cost() {
	local log=$RAW/$1_$2.log pid tool ns m
	m=$(maps "$1")
	$PIN "$WL" "$RAW/truth_$1_$2" 4000 "$RAW/ready_$1_$2" >"$log" 2>&1 &
	pid=$!
	for ((i = 0; i < 500; i++)); do [ -e "$RAW/ready_$1_$2" ] && break; sleep 0.01; done
	"$FSP" -F "$FREQ" --map "$m" -p "$pid" >"$log.tool" 2>&1 &
	tool=$!
	for ((i = 0; i < 1500; i++)); do grep -q 'profiling' "$log.tool" 2>/dev/null && break; sleep 0.01; done
	kill -USR2 "$pid"
	sleep 3
	ns=$(prog_ns "$tool" sample)
	wait "$pid"
	stop_tool "$tool"
	echo "$ns"
}

declare -A NS
OLD=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled=$OLD' EXIT
sysctl -q kernel.bpf_stats_enabled=1
echo "== BPF time per sample (kernel.bpf_stats_enabled, $REPS reps, $FREQ Hz, wl_sampled -p):" \
	"instance read at the enter | at each sample =="
for ((r = 0; r < REPS; r++)); do
	if ((r % 2)); then order=(sample probe fglobal fcaller); else order=(probe sample fcaller fglobal); fi
	for c in "${order[@]}"; do NS[$c,$r]=$(cost "$c" "$r"); done
	printf '  rep %d: at the enter %s ns, at each sample %s ns per sample;' "$r" \
		"${NS[probe,$r]}" "${NS[sample,$r]}"
	printf ' function features: call site %s ns, {global:S} %s ns\n' "${NS[fcaller,$r]}" \
		"${NS[fglobal,$r]}"
done
sysctl -q kernel.bpf_stats_enabled="$OLD"
trap - EXIT
for c in probe sample fcaller fglobal; do
	vals=""
	for ((r = 0; r < REPS; r++)); do vals+=" ${NS[$c,$r]:-}"; done
	# shellcheck disable=SC2086
	NS[$c]=$(median $(printf '%s\n' $vals | grep -v n/a))
done
RATIO=$(calc "${NS[sample]:-n/a} / ${NS[probe]:-n/a}")
FRATIO=$(calc "${NS[fglobal]:-n/a} / ${NS[fcaller]:-n/a}")
echo
printf '%-60s %12s\n' "BPF time per sample, instance read at the enter (ns)" "${NS[probe]:-n/a}"
printf '%-60s %12s\n' "BPF time per sample, labels read at each sample (ns)" "${NS[sample]:-n/a}"
printf '%-60s %12s\n' "ratio" "$RATIO"
printf '%-60s %12s\n' "BPF time per sample, function features, call site (ns)" "${NS[fcaller]:-n/a}"
printf '%-60s %12s\n' "BPF time per sample, function features, {global:S} (ns)" "${NS[fglobal]:-n/a}"
printf '%-60s %12s\n' "ratio" "$FRATIO"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-sample-labels: probe_ns=${NS[probe]:-n/a} sample_ns=${NS[sample]:-n/a} ratio=$RATIO" \
	"fcaller_ns=${NS[fcaller]:-n/a} fglobal_ns=${NS[fglobal]:-n/a} fratio=$FRATIO"
exec >&- 2>&-
wait "$TEE"
exit 0
