#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/stacks.sh - what native stacks (record --stacks) cost, side by side
# with perf (make bench; root). A busy two-CPU target: two bench/cpu_work
# processes (built without frame pointers, as Debian's binaries) with a fixed
# amount of work each, profiled with -p at 999 Hz by, interleaved (order
# rotated each repetition), medians:
#
#   none        nothing
#   fsp         fsp-bpf -F 999 --no-events -p P1,P2
#   fsp-stacks  the same with --stacks (8 KiB of stack per sample, unwound
#               and symbolized by fsp-bpf itself)
#   perf-g      perf record -F 999 -g -p P1,P2 (frame pointers in the kernel)
#   perf-dwarf  perf record -F 999 --call-graph dwarf -p P1,P2 (8 KiB per
#               sample into perf.data); its unwinding happens in perf report,
#               timed apart
#
# Per condition: the target's slowdown (cpu_work's median unit time against
# none's), the tool's own CPU time (user + sys of the tool alone: the targets
# are not its children) as a share of one core over the work's wall time.
# Then the kernel side's cost per sample: kernel.bpf_stats_enabled for a few
# seconds under fsp and fsp-stacks, run_time_ns / run_cnt of the sampler.
#
# Environment: BENCH_STACKS_REPS (default 5), BENCH_STACKS_UNITS (cpu_work
# units per process, default 200: ~3 s), BENCH_BPF_STATS=0 skips the kernel
# cost. Prints "bench: key=value" lines; output in bench/results/stacks-*.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FSP=$ROOT/fsp-bpf
WORK=$ROOT/.output/bench/cpu_work
RES=$ROOT/bench/results
RAW=$RES/raw-stacks
REPS=${BENCH_STACKS_REPS:-5}
UNITS=${BENCH_STACKS_UNITS:-200}
BPF_STATS=${BENCH_BPF_STATS:-1}
FREQ=999
DELAY=3 # seconds the workers wait before working: the tools attach meanwhile
CONDS=(none fsp fsp-stacks perf-g perf-dwarf)

if [ "$(id -u)" != 0 ]; then
	echo "bench/stacks.sh: needs root" >&2
	exit 1
fi
for f in "$FSP" "$WORK"; do
	[ -x "$f" ] || { echo "bench/stacks.sh: $f is missing; run make bench" >&2; exit 1; }
done
HAVE_PERF=0
perf record -q -o /dev/null -- true >/dev/null 2>&1 && HAVE_PERF=1
mkdir -p "$RAW"
rm -f "$RAW"/*
STAMP=$(date +%Y%m%d-%H%M%S)
exec > >(tee "$RES/stacks-$STAMP.txt" "$RES/stacks-latest.txt") 2>&1

median() {
	[ $# -gt 0 ] || { echo n/a; return; }
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { if (NR % 2) printf "%.4f\n", a[(NR + 1) / 2];
		      else printf "%.4f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
kv() { grep -o "\b$2=[^ ]*" "$1" 2>/dev/null | tail -n 1 | cut -d= -f2; }
# the children line of bash's `times` ("0m0.120s 0m0.050s") -> seconds
times_s() {
	sed -n 2p "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] } printf "%.4f\n", s }'
}

# tool COND TAG P1,P2: runs the condition's tool in the background (a
# subshell that records the tool's CPU time in $RAW/TAG.times); $! is its pid
tool() {
	local cond=$1 tag=$2 pids=$3
	case $cond in
	fsp) ( "$FSP" -F $FREQ --no-events -v -p "$pids" -o "$RAW/$tag.json" >/dev/null 2>"$RAW/$tag.err"
		times >"$RAW/$tag.times" ) & ;;
	fsp-stacks) ( "$FSP" -F $FREQ --no-events --stacks -v -p "$pids" -o "$RAW/$tag.json" \
		>/dev/null 2>"$RAW/$tag.err"
		times >"$RAW/$tag.times" ) & ;;
	perf-g) ( perf record -q -F $FREQ -g -p "$pids" -o "$RAW/$tag.data" >/dev/null 2>"$RAW/$tag.err"
		times >"$RAW/$tag.times" ) & ;;
	perf-dwarf) ( perf record -q -F $FREQ --call-graph dwarf -p "$pids" -o "$RAW/$tag.data" \
		>/dev/null 2>"$RAW/$tag.err"
		times >"$RAW/$tag.times" ) & ;;
	*) return 1 ;;
	esac
}

# CPU time (ns) of all threads of PID so far
sched_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# steady SUBSHELL W1 W2: the tool's CPU share of one core while the workers
# work (from DELAY s after their start until they exit): its start-up
# (loading BPF) and its end (symbolizing, writing) are left out
steady() {
	local tool c0 c1 t0 t1 i
	sleep $DELAY
	tool=$(pgrep -P "$1" | head -n 1)
	[ -n "$tool" ] || return 0
	c0=$(sched_ns "$tool")
	t0=$EPOCHREALTIME
	c1=$c0 t1=$t0
	while kill -0 "$2" 2>/dev/null || kill -0 "$3" 2>/dev/null; do
		i=$(sched_ns "$tool")
		[ "$i" -gt 0 ] || break
		c1=$i t1=$EPOCHREALTIME
		sleep 0.1
	done
	awk "BEGIN { if ($t1 > $t0) printf \"steady_pct=%.3f\\n\", 100 * ($c1 - $c0) / 1e9 / ($t1 - $t0) }"
}

# run COND REP: two workers, the tool; results into $RAW/COND-REP.*
run() {
	local cond=$1 rep=$2 tag="$1-$2" w1 w2 t=
	"$WORK" -u "$UNITS" -s $DELAY >"$RAW/$tag.w1" 2>&1 &
	w1=$!
	"$WORK" -u "$UNITS" -s $DELAY >"$RAW/$tag.w2" 2>&1 &
	w2=$!
	if [ "$cond" != none ]; then
		tool "$cond" "$tag" "$w1,$w2"
		t=$!
		steady "$t" "$w1" "$w2" >"$RAW/$tag.steady"
	fi
	wait $w1 $w2
	if [ -n "$t" ]; then
		# the tools end with their targets; perf within a second
		for ((i = 0; i < 600; i++)); do kill -0 "$t" 2>/dev/null || break; sleep 0.05; done
		kill -INT "$t" 2>/dev/null
		wait "$t" 2>/dev/null
	fi
	if [ "$cond" = perf-dwarf ]; then
		( perf report -i "$RAW/$tag.data" --stdio >/dev/null 2>&1; times >"$RAW/$tag.report.times" )
	fi
	rm -f "$RAW/$tag.data"
}

echo "fsp-bpf native stacks against perf, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs," \
	"kernel $(uname -r); $(perf --version 2>/dev/null || echo 'no perf')"
echo "source: $(git describe --always --dirty 2>/dev/null || echo 'not a git tree')"
echo "target: 2 x cpu_work -u $UNITS (no frame pointers), $FREQ Hz, $REPS repetitions," \
	"load at start $(cut -d' ' -f1-3 /proc/loadavg)"
[ $HAVE_PERF = 1 ] || echo "perf does not work here: perf conditions skipped"
echo

for ((r = 0; r < REPS; r++)); do
	for ((k = 0; k < ${#CONDS[@]}; k++)); do
		c=${CONDS[$(((k + r) % ${#CONDS[@]}))]}
		[[ $c == perf-* && $HAVE_PERF = 0 ]] && continue
		run "$c" "$r"
	done
done

# ---- results ----------------------------------------------------------------------

declare -A UNIT CPU PCT STEADY
for c in "${CONDS[@]}"; do
	units=() cpus=() pcts=() steadies=()
	for ((r = 0; r < REPS; r++)); do
		for w in w1 w2; do
			u=$(kv "$RAW/$c-$r.$w" unit_ns)
			[ -n "$u" ] && units+=("$u")
		done
		v=$(kv "$RAW/$c-$r.steady" steady_pct)
		[ -n "$v" ] && steadies+=("$v")
		if [ -f "$RAW/$c-$r.times" ]; then
			s=$(times_s "$RAW/$c-$r.times")
			wall=$(kv "$RAW/$c-$r.w1" seconds)
			cpus+=("$s")
			[ -n "$wall" ] && pcts+=("$(awk "BEGIN { printf \"%.3f\", 100 * $s / $wall }")")
		fi
	done
	UNIT[$c]=$(median "${units[@]}")
	CPU[$c]=$(median "${cpus[@]}")
	PCT[$c]=$(median "${pcts[@]}")
	STEADY[$c]=$(median "${steadies[@]}")
done
report=()
for ((r = 0; r < REPS; r++)); do
	[ -f "$RAW/perf-dwarf-$r.report.times" ] && report+=("$(times_s "$RAW/perf-dwarf-$r.report.times")")
done

echo "tool CPU: whole run (start-up and end included), and its share of one core over the"
echo "work's wall time; steady: its share of one core while the workers work"
printf '%-11s %14s %9s %13s %12s %9s\n' condition "unit (median)" slowdown "tool CPU (s)" "% of a core" steady
for c in "${CONDS[@]}"; do
	[ "${UNIT[$c]}" = n/a ] && continue
	slow=$(awk "BEGIN { printf \"%.4f\", ${UNIT[$c]} / ${UNIT[none]} }")
	printf '%-11s %11.2f ms %9s %13s %12s %9s\n' "$c" "$(awk "BEGIN { print ${UNIT[$c]} / 1e6 }")" \
		"$slow" "${CPU[$c]}" "${PCT[$c]}" "${STEADY[$c]}"
	echo "bench: stacks.$c.slowdown=$slow stacks.$c.tool_cpu_s=${CPU[$c]}" \
		"stacks.$c.core_pct=${PCT[$c]} stacks.$c.steady_core_pct=${STEADY[$c]}"
done
if [ ${#report[@]} -gt 0 ]; then
	echo "perf report of the perf-dwarf data (where perf unwinds): $(median "${report[@]}") s CPU (median)"
	echo "bench: stacks.perf-dwarf.report_cpu_s=$(median "${report[@]}")"
fi
# fsp-bpf's own account of its unwinding (-v)
for ((r = 0; r < REPS; r++)); do
	grep -h "native stacks:" "$RAW/fsp-stacks-$r.err" 2>/dev/null | sed 's/^/  rep '$r': /'
done
echo

# ---- kernel cost per sample ---------------------------------------------------------

# prog_stats PID: "run_time_ns run_cnt" of fsp-bpf PID's sampler, the one
# program of type perf_event (7) among its descriptors (fdinfo has the
# statistics while kernel.bpf_stats_enabled is on)
prog_stats() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk '/^prog_type:/ { t = $2 } /^run_time_ns:/ { ns = $2 } /^run_cnt:/ { c = $2 }
			END { if (t == 7 && c != "") { print ns, c; exit 0 } exit 1 }' "$f" 2>/dev/null &&
			return 0
	done
	return 1
}

if [ "$BPF_STATS" = 1 ]; then
	old=$(sysctl -n kernel.bpf_stats_enabled)
	for c in fsp fsp-stacks; do
		"$WORK" -u $((UNITS * 2)) -s 2 >/dev/null 2>&1 &
		w1=$!
		"$WORK" -u $((UNITS * 2)) -s 2 >/dev/null 2>&1 &
		w2=$!
		args=(-F $FREQ --no-events -p "$w1,$w2")
		[ $c = fsp-stacks ] && args+=(--stacks)
		"$FSP" "${args[@]}" >/dev/null 2>&1 &
		f=$!
		sleep 3
		sysctl -q -w kernel.bpf_stats_enabled=1
		sleep 4
		read -r ns cnt < <(prog_stats $f)
		sysctl -q -w kernel.bpf_stats_enabled="$old"
		kill $w1 $w2 2>/dev/null
		wait $w1 $w2 2>/dev/null
		kill -INT $f 2>/dev/null
		wait $f 2>/dev/null
		if [ -n "${cnt:-}" ] && [ "$cnt" -gt 0 ]; then
			per=$(awk "BEGIN { printf \"%.0f\", $ns / $cnt }")
			echo "sampler ($c): $per ns per call over $cnt calls"
			echo "bench: stacks.$c.sample_ns=$per"
		else
			echo "sampler ($c): no statistics (bpftool prog show --json)"
		fi
	done
fi
