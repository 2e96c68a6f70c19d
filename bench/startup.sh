#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/startup.sh - how soon fsp-bpf samples its target after it starts, and
# how long its end takes, beside perf record and bpftrace on the same targets
# (make bench; root). Runs interleaved (tools rotated each repetition),
# medians. Every time is CLOCK_MONOTONIC, taken by bench/tools/startwatch,
# which starts the tool, timestamps its stderr, sends it SIGINT HOLD seconds
# after its start and times its exit.
#
# Start: from the tool's start until its first sample of the target.
#   -p PID       fsp-bpf: its "profiling ..." line (sampler running, target
#                admitted: the next tick samples it); perf record -k
#                CLOCK_MONOTONIC: the first sample of the target in
#                perf.data; bpftrace: the nsecs of the first profile:hz
#                firing in the target.
#   -- CMD       every tool starts the command last, once it is set up, and
#                samples it from its first instruction: the command's own
#                CLOCK_MONOTONIC time at main() (bench/startup_target).
#                "none" is the command started without a tool (fork, exec).
# End: from SIGINT until the tool has exited (report written, detached).
#
# Targets: bench/startup_target (fsp marks, ABI v2; and its ABI v1 build,
# whose probes' programs fsp-bpf loads when it finds them), launched and -p;
# with a probe map (-p): python3.11 running a loop (--map python; bpftrace
# attaches usdt:python3.11:python:*), wl_throw (--map libstdcxx;
# usdt:libstdc++:libstdcxx:*), java WlJvm (--map jvm;
# usdt:libjvm.so:hotspot:*, 46 probes). perf record samples only.
#
# Goals (issue 27): start <= 0.5 s for -p and a launched command, <= 1 s with
# a probe map; the end well under a second.
#
# Environment: BENCH_STARTUP_REPS (default 5), BENCH_STARTUP_HOLD (seconds
# each tool runs before SIGINT, default 4), BENCH_BASELINE_FSP (another
# fsp-bpf, e.g. built from main before this change: its column "before"),
# BENCH_STARTUP_ROWS (default "pid pid_v1 cmd python libstdcxx jvm").
# Output: bench/results/startup-latest.txt and a dated copy; raw logs in
# bench/results/raw-startup/ (fsp-bpf runs with -v: its phases and times).
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=$ROOT/.output
FSP=$ROOT/fsp-bpf
SW=$OUT/bench/tools/startwatch
TGT=$OUT/bench/startup_target
TGT1=$OUT/bench/v1/startup_target
WL=$OUT/workloads
RES=$ROOT/bench/results
RAW=$RES/raw-startup
REPS=${BENCH_STARTUP_REPS:-5}
HOLD=${BENCH_STARTUP_HOLD:-4}
BASE_FSP=${BENCH_BASELINE_FSP:-}
ROWS=${BENCH_STARTUP_ROWS:-pid pid_v1 cmd python libstdcxx jvm}
FREQ=999
PYTHON=/usr/bin/python3.11
JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
LIBJVM=/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so
LIBSTDCXX=/usr/lib/x86_64-linux-gnu/libstdc++.so.6
# The baseline may predate the maps' search path next to the binary.
export FSP_MAP_PATH=$ROOT/maps

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "bench/startup.sh: needs root (BPF, uprobes, perf events)" >&2
	exit 1
fi
for f in "$FSP" "$SW" "$TGT" "$TGT1" "$WL/wl_throw"; do
	[ -x "$f" ] || { echo "bench/startup.sh: $f is missing; run make bench" >&2; exit 1; }
done
TOOLS=(fsp)
[ -n "$BASE_FSP" ] && TOOLS+=(before)
command -v perf >/dev/null 2>&1 && TOOLS+=(perf)
command -v bpftrace >/dev/null 2>&1 && TOOLS+=(bpftrace)
mkdir -p "$RAW"
rm -f "$RAW"/*
LOG=$RES/bench-startup-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$LOG" "$RES/startup-latest.txt") 2>&1
TEE=$!

echo "fsp-bpf start-up and tear-down, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs," \
	"kernel $(uname -r), source $(git describe --always --dirty 2>/dev/null)"
echo "tools: ${TOOLS[*]}${BASE_FSP:+ (before: $BASE_FSP)}; $REPS reps, SIGINT after $HOLD s"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# field KEY LINE: the value of KEY=VALUE in LINE
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
# sub A B: A - B, n/a if either is
sub() { calc "$1 - $2"; }

# The target of a row, started: sets TPID (and TFILE, its start file).
start_target() {
	local row=$1 r=$2
	TFILE=$RAW/target_${row}_$r.start
	case $row in
	pid) "$TGT" "$TFILE" 60 >/dev/null 2>&1 & TPID=$!; wait_exe "$TPID" "$TGT" ;;
	pid_v1) "$TGT1" "$TFILE" 60 >/dev/null 2>&1 & TPID=$!; wait_exe "$TPID" "$TGT1" ;;
	python)
		"$PYTHON" -c 'import time
t = time.time()
while time.time() - t < 60: sum(range(1000))' >/dev/null 2>&1 &
		TPID=$!
		wait_exe "$TPID" "$PYTHON"
		;;
	libstdcxx)
		"$WL/wl_throw" "$RAW/throw_$r.truth" 100000000 >/dev/null 2>&1 &
		TPID=$!
		wait_exe "$TPID" "$WL/wl_throw"
		;;
	jvm)
		"$JAVA" -Xms256m -Xmx256m -cp "$OUT/workloads/java" WlJvm "$RAW/jvm_$r.truth" 60 3 \
			>/dev/null 2>&1 &
		TPID=$!
		# Up: libjvm mapped and the workload running (its classes loaded).
		for ((i = 0; i < 300; i++)); do
			grep -q libjvm.so "/proc/$TPID/maps" 2>/dev/null && break
			sleep 0.02
		done
		sleep 1
		;;
	esac
}

stop_target() {
	if [ -n "${TPID:-}" ]; then
		kill -KILL "$TPID" 2>/dev/null
		wait "$TPID" 2>/dev/null
	fi
	TPID=
}

# The tool's command line for a row (-p TPID, or launching the target).
tool_cmd() {
	local tool=$1 row=$2 r=$3 log=$4 bin=$FSP map=""
	[ "$tool" = before ] && bin=$BASE_FSP
	case $row in python | libstdcxx | jvm) map=$row ;; esac
	case $tool in
	fsp | before)
		CMD=("$bin" -v -F "$FREQ" ${map:+--map "$map"})
		if [ "$row" = cmd ]; then CMD+=(-- "$TGT" "$TFILE" $((HOLD + 2)))
		else CMD+=(-p "$TPID"); fi
		;;
	perf)
		CMD=(perf record -q -k CLOCK_MONOTONIC -e cpu-clock -F "$FREQ" -o "$log.perf")
		if [ "$row" = cmd ]; then CMD+=(-- "$TGT" "$TFILE" $((HOLD + 2)))
		else CMD+=(-p "$TPID"); fi
		;;
	bpftrace)
		local probes=""
		case $row in
		python) probes="usdt:\"$PYTHON\":python:* { @probes = count(); }" ;;
		libstdcxx) probes="usdt:\"$LIBSTDCXX\":libstdcxx:* { @probes = count(); }" ;;
		jvm) probes="usdt:\"$LIBJVM\":hotspot:* { @probes = count(); }" ;;
		esac
		if [ "$row" = cmd ]; then
			CMD=(bpftrace -c "$TGT $TFILE $((HOLD + 2))"
				-e "profile:hz:$FREQ /pid == cpid/ { @[tid] = count(); }")
		else
			CMD=(bpftrace -p "$TPID" -e "$probes profile:hz:$FREQ /pid == $TPID/ {
				if (@first == 0) { printf(\"first=%lld\\n\", nsecs); @first = 1; }
				@[tid] = count(); }")
		fi
		;;
	none) CMD=("$TGT" "$TFILE" 0.2) ;;
	esac
}

# The start and end of one run: "START END" (seconds, n/a when unknown).
declare -A START END
run_one() {
	local tool=$1 row=$2 r=$3 log=$RAW/${2}_${1}_$3 line t0 ready tint texit s=n/a e=n/a
	if [ "$row" = cmd ]; then
		TFILE=$RAW/target_${row}_${tool}_$r.start
		rm -f "$TFILE"
	else
		start_target "$row" "$r"
	fi
	tool_cmd "$tool" "$row" "$r" "$log"
	if [ "$tool" = none ]; then
		line=$("$SW" -e "$log.err" -- "${CMD[@]}")
	else
		line=$("$SW" -r "profiling" -i "$HOLD" -e "$log.err" -o "$log.out" -- "${CMD[@]}")
	fi
	echo "$line" >"$log.times"
	t0=$(field t0 "$line") ready=$(field ready "$line") tint=$(field int "$line")
	texit=$(field exit "$line")
	if [ "$row" = cmd ]; then
		s=$(sub "$(sed -n 's/^start=\([^ ]*\).*/\1/p' "$TFILE" 2>/dev/null)" "$t0")
		# The command the tool launched, if it outlived the tool.
		TPID=$(sed -n 's/.* pid=//p' "$TFILE" 2>/dev/null)
	else
		case $tool in
		fsp | before) s=$(sub "$ready" "$t0") ;;
		perf)
			# The first sample's time ("  12345.678901:"), CLOCK_MONOTONIC.
			s=$(sub "$(perf script -i "$log.perf" -F time 2>/dev/null | head -n 1 |
				tr -d ' :')" "$t0")
			;;
		bpftrace) s=$(sub "$(calc "$(sed -n 's/^first=//p' "$log.out" | head -n 1) / 1e9")" "$t0") ;;
		esac
	fi
	[ "$tool" != none ] && e=$(sub "$texit" "$tint")
	stop_target
	START[$row,$tool,$r]=$s
	END[$row,$tool,$r]=$e
}

phase() { sed -n "s/^fsp-bpf: \([0-9.]*\) s: $1.*/\1/p" "$2" | head -n 1; }
phase_in() { sed -n "s/^fsp-bpf: [0-9.]* s: $1 in \([0-9.]*\) s.*/\1/p" "$2" | head -n 1; }

for row in $ROWS; do
	conds=("${TOOLS[@]}")
	[ "$row" = cmd ] && conds=(none "${TOOLS[@]}")
	case $row in
	python) [ -x "$PYTHON" ] || { echo "== $row: $PYTHON missing, skipped"; continue; } ;;
	jvm)
		if [ ! -x "$JAVA" ] || [ ! -f "$OUT/workloads/java/WlJvm.class" ]; then
			echo "== $row: no JDK or WlJvm.class, skipped"
			continue
		fi
		;;
	esac
	echo "== $row: start (s) / end (s), per rep =="
	n=${#conds[@]}
	for ((r = 0; r < REPS; r++)); do
		out="  rep $r:"
		for ((k = 0; k < n; k++)); do
			c=${conds[$(((r + k) % n))]}
			run_one "$c" "$row" "$r"
		done
		for c in "${conds[@]}"; do
			out+=" $c ${START[$row,$c,$r]}/${END[$row,$c,$r]}"
		done
		echo "$out"
	done
	# fsp-bpf's phases (its -v), medians: where its start goes.
	declare -A PH=()
	for ((r = 0; r < REPS; r++)); do
		f=$RAW/${row}_fsp_$r.err
		PH[maps]+=" $(phase 'created the BPF maps' "$f")"
		PH[sampler]+=" $(phase_in 'loaded the sampler' "$f")"
		PH[hooks]+=" $(phase_in 'loaded the hooks' "$f")"
		PH[v1]+=" $(phase_in 'loaded the ABI v1 probes' "$f")"
		PH[mapped]+=" $(phase_in 'loaded the probe maps' "$f")"
		PH[running]+=" $(phase 'started the sampler' "$f")"
		PH[ready]+=" $(phase '\(attached to\|started the command\)' "$f")"
		PH[detach]+=" $(phase_in 'detached [0-9]* probe links' "$f")"
	done
	for k in "${!PH[@]}"; do
		# shellcheck disable=SC2086
		PH[$k]=$(median ${PH[$k]})
		PH[$k]=${PH[$k]:--}
	done
	printf '  fsp-bpf -v, medians: maps created at %s s; parts loaded in: sampler %s s,' \
		"${PH[maps]}" "${PH[sampler]}"
	printf ' hooks %s s, ABI v1 probes %s s, probe maps %s s; sampler on at %s s;' \
		"${PH[hooks]}" "${PH[v1]}" "${PH[mapped]}" "${PH[running]}"
	printf ' profiling at %s s; links detached in %s s\n' "${PH[ready]}" "${PH[detach]}"
	unset PH
	echo
done

# ---- summary ------------------------------------------------------------------------------

goal() {
	case $1 in
	pid | pid_v1 | cmd) echo 0.5 ;;
	*) echo 1.0 ;;
	esac
}
declare -A MS ME
printf '== Summary: medians, start (s) | end (s) ==\n'
printf '%-10s' "target"
for c in none "${TOOLS[@]}"; do printf ' %17s' "$c"; done
printf ' %7s %s\n' "goal" "fsp-bpf start"
kvs=""
for row in $ROWS; do
	printf '%-10s' "$row"
	for c in none "${TOOLS[@]}"; do
		s="" e=""
		for ((r = 0; r < REPS; r++)); do
			s+=" ${START[$row,$c,$r]:-}"
			e+=" ${END[$row,$c,$r]:-}"
		done
		# shellcheck disable=SC2046
		MS[$row,$c]=$(median $(tr ' ' '\n' <<<"$s" | grep -v n/a))
		# shellcheck disable=SC2046
		ME[$row,$c]=$(median $(tr ' ' '\n' <<<"$e" | grep -v n/a))
		printf ' %17s' "${MS[$row,$c]:--} | ${ME[$row,$c]:--}"
		[ "$c" = fsp ] && kvs+=" ${row}_start=${MS[$row,$c]:-n/a} ${row}_end=${ME[$row,$c]:-n/a}"
		[ "$c" = before ] && kvs+=" ${row}_start_before=${MS[$row,$c]:-n/a}"
	done
	printf ' %7s %s\n' "<= $(goal "$row")" "$(verdict "${MS[$row,fsp]:-n/a}" "<=" "$(goal "$row")")"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: startup$kvs"
exec >&- 2>&-
wait "$TEE"
