#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/agent.sh - what the agent (record --listen, docs/fleet.md) costs
# (make bench; root). Ratios from one run, conditions interleaved:
#
#   A. a scrape of ~10,000 series: 5 processes of 5 names (wl_agent many
#      1000) give 5 x 1002 label sets x 2 counters; the time of each scrape
#      (curl, 0.3 s apart: each takes a snapshot of its own) and fsp-bpf's
#      memory before the first scrape and after them (goals: < 50 ms, < 10 MB
#      more); the same by PID (--metrics-by pid, 5 processes of one name)
#   B. -a --listen with a scrape every second beside a CPU-bound marked
#      workload (bench/cpu_work) against -a without --listen: the workload's
#      time (goal: <= 1.01x) and fsp-bpf's own CPU, BENCH_AGENT_REPS (7)
#      repetitions in alternating order
#   C. memory of the agent after AGENT_CHURN_S (600) seconds of process churn
#      with a scrape every second: bench/soak.sh, whose agent columns say
#      whether it stays flat after the warm-up (AGENT_CHURN_S=0: skipped)
#
# It profiles system-wide (-a): it holds the integration tests' lock, as
# bench/soak.sh does. Output: bench/results/agent-latest.txt.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=$ROOT/.output
FSP=$ROOT/fsp-bpf
RES=$ROOT/bench/results
REPS=${BENCH_AGENT_REPS:-7}
CHURN=${AGENT_CHURN_S:-600}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "bench/agent.sh: needs root" >&2
	exit 1
fi
exec 9>>"${FSP_ITEST_LOCK:-/run/lock/fsp-integration.lock}"
flock -n 9 || { echo "agent bench: waiting for the integration lock"; flock 9; }
mkdir -p "$RES"
work=$(mktemp -d /tmp/fsp-agent-bench.XXXXXX)
pids=()
trap 'kill ${pids[@]:-} 2>/dev/null; rm -rf "$work"' EXIT
log=$RES/agent-latest.txt
exec > >(tee "$log") 2>&1

# The agent's port, from fsp-bpf's stderr.
agent_port() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "fsp-bpf: profiling" "$1" 2>/dev/null && break
		sleep 0.1
	done
	grep -o 'serving http://127.0.0.1:[0-9]*' "$1" | head -1 | sed 's/.*://'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }
gauge() { curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { print $2 }'; }

echo "agent bench: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- A. a scrape of ~10,000 series ----------------------------------------------------
# One run: $1 = name or pid. Sets first, times, rss0, rss1, rss_max, series, bytes, labelsets.
run_a() {
	local list= i t r fsp
	for i in 1 2 3 4 5; do
		local exe=$work/wl_series$i
		[ "$1" = pid ] && exe=$work/wl_series
		cp "$OUT/workloads/wl_agent" "$exe" 2>/dev/null
		"$exe" "$work/ready.$i" many 1000 6000 >/dev/null &
		pids+=($!)
		list=$list${list:+,}$!
	done
	for i in 1 2 3 4 5; do
		while [ ! -f "$work/ready.$i" ]; do sleep 0.05; done
	done
	"$FSP" --listen 127.0.0.1:0 --metrics-by "$1" --metrics-max-instances 1000 -p "$list" \
		>/dev/null 2>"$work/a.err" &
	fsp=$!
	pids+=($fsp)
	port=$(agent_port "$work/a.err")
	for i in 1 2 3 4 5; do
		while [ ! -f "$work/ready.$i.done" ]; do sleep 0.2; done
	done
	rss0=$(rss_kb "$fsp")
	times=()
	rss_max=$rss0
	for ((i = 0; i < 22; i++)); do
		t=$(curl -s -o "$work/m.txt" -w '%{time_total}' "http://127.0.0.1:$port/metrics")
		((i)) && times+=("$(calc "$t * 1000")") || first=$(calc "$t * 1000")
		r=$(rss_kb "$fsp")
		((r > rss_max)) && rss_max=$r
		sleep 0.3
	done
	rss1=$(rss_kb "$fsp")
	series=$(grep -vc '^#' "$work/m.txt")
	bytes=$(wc -c <"$work/m.txt")
	labelsets=$(awk '$1 == "fsp_metrics_series" { print $2 }' "$work/m.txt")
	kill -INT "$fsp"
	wait "$fsp" 2>/dev/null
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
	rm -f "$work"/ready.*
}
for by in name pid; do
	run_a $by
	ms=$(median "${times[@]}")
	extra=$(calc "($rss1 - $rss0) / 1024")
	peak=$(calc "($rss_max - $rss0) / 1024")
	[ $by = name ] && { SCRAPE_MS=$ms EXTRA_MB=$extra PEAK_MB=$peak SERIES=$series; }
	[ $by = pid ] && { SCRAPE_PID_MS=$ms EXTRA_PID_MB=$extra; }
	echo
	echo "A. by $by: a scrape of $series series ($labelsets label sets, $bytes bytes):"
	echo "   first scrape ${first} ms; then median ${ms} ms ($(minmax "${times[@]}") ms) over ${#times[@]}:" \
		"goal < 50 ms: $(verdict "$ms" "<" 50)"
	echo "   fsp-bpf RSS ${rss0} kB before the first scrape, ${rss1} kB after, peak ${rss_max} kB:" \
		"+${extra} MB (peak +${peak} MB), goal < 10 MB: $(verdict "$peak" "<" 10)"
done

# ---- B. the agent's cost to a CPU-bound workload ---------------------------------------
cp "$OUT/bench/cpu_work" "$work/cpu_work"
# one run: $1 = listen or plain; prints "seconds unit_ns fsp_cpu_s work_s"
run_b() {
	local args=() port scraper=
	[ "$1" = listen ] && args=(--listen 127.0.0.1:0)
	"$FSP" -a --comm cpu_work "${args[@]}" >/dev/null 2>"$work/b.err" &
	local f=$!
	for ((i = 0; i < 300; i++)); do
		grep -q "fsp-bpf: profiling" "$work/b.err" 2>/dev/null && break
		sleep 0.1
	done
	if [ "$1" = listen ]; then
		port=$(agent_port "$work/b.err")
		(while kill -0 "$f" 2>/dev/null; do
			curl -s -o /dev/null "http://127.0.0.1:$port/metrics"
			sleep 1
		done) &
		scraper=$!
	fi
	local c0 c1
	c0=$(cpu_s "$f")
	"$work/cpu_work" -a -u 400 >"$work/b.out"
	c1=$(cpu_s "$f")
	kill -INT "$f"
	wait "$f" 2>/dev/null
	[ -n "$scraper" ] && wait "$scraper" 2>/dev/null
	local s u
	s=$(kv "$work/b.out" seconds)
	u=$(kv "$work/b.out" unit_ns)
	echo "$s $u $(calc "$c1 - $c0")"
}
declare -A S U C
for ((r = 0; r < REPS; r++)); do
	if ((r % 2)); then order="listen plain"; else order="plain listen"; fi
	for m in $order; do
		read -r s u c <<<"$(run_b "$m")"
		S[$m]="${S[$m]:-} $s"
		U[$m]="${U[$m]:-} $u"
		C[$m]="${C[$m]:-} $(calc "100 * $c / $s")"
	done
done
# shellcheck disable=SC2086
{
	SP=$(median ${S[plain]})
	SL=$(median ${S[listen]})
	UP=$(median ${U[plain]})
	UL=$(median ${U[listen]})
	CP=$(median ${C[plain]})
	CL=$(median ${C[listen]})
	RATIO=$(calc "$SL / $SP")
	URATIO=$(calc "$UL / $UP")
}
echo
echo "B. cpu_work (400 units) beside -a, $REPS repetitions (medians):"
echo "   -a:                        ${SP} s, unit ${UP} ns, fsp-bpf CPU ${CP} % of the work's time"
echo "   -a --listen, 1 s scrapes:  ${SL} s, unit ${UL} ns, fsp-bpf CPU ${CL} % of the work's time"
echo "   slowdown ${RATIO}x (units ${URATIO}x), goal <= 1.01x: $(verdict "$RATIO" "<=" 1.01)"

# ---- C. memory after churn and scrapes --------------------------------------------------
echo
if [ "$CHURN" -gt 0 ]; then
	echo "C. ${CHURN} s of churn with a scrape every second (bench/soak.sh):"
	flock -u 9
	SOAK_S=$CHURN bench/soak.sh | grep -E '^(agent|soak|rss|  t_s|\s+[0-9])' | sed 's/^/   /'
	exec 9>>"${FSP_ITEST_LOCK:-/run/lock/fsp-integration.lock}"
else
	echo "C. skipped (AGENT_CHURN_S=0)"
fi
echo
echo "bench: agent_series=$SERIES agent_scrape_ms=$SCRAPE_MS agent_scrape_extra_mb=$EXTRA_MB" \
	"agent_scrape_peak_mb=$PEAK_MB agent_scrape_pid_ms=$SCRAPE_PID_MS" \
	"agent_scrape_pid_extra_mb=$EXTRA_PID_MB agent_slowdown=$RATIO agent_unit_slowdown=$URATIO" \
	"agent_fsp_cpu_pct_plain=$CP agent_fsp_cpu_pct_listen=$CL"
