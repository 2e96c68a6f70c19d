#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/lib.sh - shell helpers of the benchmark scripts (sourced).
now() { echo "$EPOCHREALTIME"; }

# median of the arguments (numbers), empty if none
median() {
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { if (NR % 2) printf "%.3f\n", a[(NR + 1) / 2];
		      else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# "lo..hi" of the arguments
minmax() {
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f..%.3f", lo, hi }'
}
# calc EXPR: floating-point arithmetic, "n/a" if any operand is empty or n/a
calc() {
	case "$1" in *n/a*) echo n/a; return ;; esac
	awk "BEGIN { x = $1; printf \"%.3f\", x }" 2>/dev/null || echo n/a
}
# value of KEY=VALUE on the last line of FILE that has it
kv() { grep -o "\b$2=[^ ]*" "$1" 2>/dev/null | tail -n 1 | cut -d= -f2; }
# pass/fail VALUE OP LIMIT
verdict() {
	case "$1" in "" | n/a) echo "n/a"; return ;; esac
	if awk "BEGIN { exit !($1 $2 $3) }"; then echo PASS; else echo FAIL; fi
}
# prog_ns OWNER_PID NAME: ns per call of the BPF programs named NAME that pid holds
# (kernel.bpf_stats_enabled must be 1)
prog_ns() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u |
		while read -r id; do bpftool prog show id "$id" -j 2>/dev/null; done |
		jq -rs --arg n "$2" '[ .[] | select(.name == $n) ] |
			(map(.run_cnt // 0) | add // 0) as $c | (map(.run_time_ns // 0) | add // 0) as $t |
			if $c > 0 then $t / $c else "n/a" end'
}
# wait until /proc/PID/exe is FILE (the target has exec'd, tools may look at it)
wait_exe() {
	local i
	for ((i = 0; i < 1000; i++)); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.005
	done
	return 1
}
# let a tool end by itself (it does when its target exits), else TERM, else KILL
stop_tool() {
	local pid=$1 grace=${2:-15} i
	for ((i = 0; i < grace * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
}
# CPU time (ns) of all threads of PID so far
sched_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}
# bash `times` child line "0m0.120s 0m0.050s" -> seconds of user+sys
times_s() {
	sed -n 2p "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] } printf "%.6f\n", s }'
}

# bench_init NAME FILE...: the set-up of a benchmark script run from the tree's
# root: ROOT, FSP (./fsp-bpf), BIN (.output/bench), RES (bench/results, made),
# PIN (taskset on the last CPU) and TMP (a directory removed at exit); exits
# with a message unless run as root with fsp-bpf and every FILE present
bench_init() {
	local name=$1 f
	shift
	# shellcheck disable=SC2034 # the caller's
	ROOT=$PWD
	FSP=$ROOT/fsp-bpf
	# shellcheck disable=SC2034 # the caller's
	BIN=$ROOT/.output/bench
	RES=$ROOT/bench/results
	PIN="taskset -c $(($(nproc) - 1))"
	if [ "$(id -u)" != 0 ]; then
		echo "bench/$name.sh: needs root (BPF, uprobes, perf events)" >&2
		exit 1
	fi
	for f in "$FSP" "$@"; do
		[ -f "$f" ] || { echo "bench/$name.sh: $f is missing; run make bench" >&2; exit 1; }
	done
	mkdir -p "$RES"
	TMP=$(mktemp -d "/tmp/fsp-bench-$name.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$TMP'" EXIT
}
# under_fsp LOG FSP_ARGS -- PROGRAM ARGS...: PROGRAM (output to LOG) on the
# pinned CPU, under fsp-bpf FSP_ARGS -p once it has exec'd (FSP_ARGS empty:
# alone); waits for PROGRAM, then for fsp-bpf to end (stop_tool)
under_fsp() {
	local log=$1 args=() pid tool=""
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	$PIN "$@" >"$log" 2>&1 &
	pid=$!
	if [ ${#args[@]} -gt 0 ] && wait_exe "$pid" "$1"; then
		"$FSP" "${args[@]}" -p "$pid" >"$log.tool" 2>&1 &
		tool=$!
	fi
	wait "$pid"
	[ -n "$tool" ] && stop_tool "$tool" 10
}
