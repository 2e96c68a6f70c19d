#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/pg.sh - what profiling a PostgreSQL 15 server costs its throughput
# (make bench; root). One scratch cluster, pgbench's TPC-B script
# (pgbench -n -M extended -c C -j C -T T) under five conditions, interleaved
# (order rotated each round), the tables re-created (pgbench -i) before every
# run so that each run starts from the same state:
#
#   none   no profiler
#   fsp    fsp-bpf --map postgresql -a -F 999: every process carrying the
#          postgresql provider, every shipped feature that is not "default
#          off" (the query phases, lock and LWLock waits, checkpoints), with
#          the event view
#   sampled fsp-bpf --map postgresql-sampled --stacks -a -F 999: the query
#          phases as function features (issue 29): no probe attached, a
#          native stack copied and unwound (DWARF) per sample
#   libdw  (BENCH_PG_LIBDW=1) the same as sampled with FSP_CFI_CACHE=off:
#          every record unwound by libdw rather than by the cached CFI rules
#          (userspace/stacks/cfi_cache.c), the cache's before and after
#   perf   perf record -F 999 -g -e cpu-clock -a: stacks of every CPU.
#          System-wide rather than -p POSTMASTER (which perf would inherit to
#          the backends pgbench connects later): -a samples with one software
#          cpu-clock event per CPU, as fsp-bpf's sampler does, so the two
#          differ in what they do per sample (perf: walk and copy the stack,
#          write it out; fsp-bpf: look up a mark stack) and per probe hit
#          (fsp-bpf's uprobes), not in how they sample. -p with inheritance
#          would add per-task events that are switched in and out at every
#          context switch of every backend, and pgbench's load switches
#          several times per statement: a cost of that mode, not of
#          sampling. (-N: no copies of binaries into ~/.debug.)
#   floor  perf record -F 999 -e cpu-clock -a: the same sampling without
#          stacks, what taking 999 samples a second on every CPU costs by
#          itself on this machine (the timer interrupts, in a VM their exits
#          to the hypervisor, the caches they disturb): no profiler that
#          samples at that rate costs less.
#
# Reports the median tps of each condition and its ratio to no profiler, both
# as the ratio of the medians and as the median of the per-round ratios
# (paired: a round's runs are close in time). Beside them, what does not depend
# on the machine's other load: the profiler process's own CPU time (user and
# system, /proc/PID/stat) from the moment it is armed to the end of pgbench's
# run, per run and, for fsp-bpf, per sample of the session (from its summary
# line): the work the profiler's process takes from the CPUs pgbench and the
# server share; for sampled and libdw also the unwinding's own CPU per native
# record (-v's "native stacks: N records, ..., S s CPU"). (The BPF programs' time, in the sampled tasks' own context, is
# not in it: docs/benchmarks.md says how to read it.) And the CPU time per
# transaction of everything the run involves: the script runs in a cgroup of
# its own (v2, or v1's cpuacct) that holds the server, pgbench and the
# profiler, so their CPU time (the sampler's, charged to the tasks it
# interrupts, included) is counted and other jobs on the machine are not;
# its ratio (no profiler / condition) is the throughput a CPU-bound server
# keeps, the measure that holds when the machine is not quiet. Prints a
# table and a "bench: pg key=value" line; appends both to
# bench/results/pg.txt.
#
# Environment: BENCH_PG_ROUNDS (default 5), BENCH_PG_T (seconds per pgbench
# run, default 8), BENCH_PG_CLIENTS (default 2), BENCH_PG_SCALE (default 2),
# BENCH_PG_FSP_ARGS (extra fsp-bpf options, e.g. "--feature query,plan,execute"),
# BENCH_PG_LIBDW=1 (the libdw condition).
# The defaults take about 5 minutes: 5 conditions x 5 rounds x (8 s + ~3 s of
# pgbench -i and profiler start/stop).
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FSP=$ROOT/fsp-bpf
RES=${BENCH_PG_RESULTS:-$ROOT/bench/results}
ROUNDS=${BENCH_PG_ROUNDS:-5}
T=${BENCH_PG_T:-8}
CLIENTS=${BENCH_PG_CLIENTS:-2}
SCALE=${BENCH_PG_SCALE:-2}
FSP_ARGS=${BENCH_PG_FSP_ARGS:-}
LIBDW=${BENCH_PG_LIBDW:-}
PGBIN=/usr/lib/postgresql/15/bin
FREQ=999

if [ "$(id -u)" != 0 ]; then
	echo "bench/pg.sh: needs root (BPF, uprobes, perf events)" >&2
	exit 1
fi
if ! id postgres >/dev/null 2>&1 || [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/pgbench" ]; then
	echo "bench/pg.sh: PostgreSQL 15 is not installed (user postgres, $PGBIN): apt-get install postgresql-15" >&2
	exit 1
fi
[ -x "$FSP" ] || { echo "bench/pg.sh: $FSP is missing; run make" >&2; exit 1; }
PERF=$(command -v perf || true)
mkdir -p "$RES"

TMP=$(mktemp -d /tmp/fsp-bench-pg.XXXXXX)
chmod 755 "$TMP"
PGDIR=$TMP/pg
DATA=$PGDIR/data
mkdir -m 700 "$PGDIR" && chown postgres: "$PGDIR"
cd "$TMP" || exit 1 # a directory user postgres can enter
TOOL_PID=

as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
	[ -n "$TOOL_PID" ] && kill -INT "$TOOL_PID" 2>/dev/null && wait "$TOOL_PID" 2>/dev/null
	[ -f "$DATA/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$DATA" stop -m immediate >/dev/null 2>&1
	rm -rf "$TMP"
	if [ -n "$CG" ]; then
		echo $$ >"$CG_PARENT/cgroup.procs" 2>/dev/null
		rmdir "$CG" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The cgroup the script and all it starts run in (CG_USAGE: how to read its
# CPU time in microseconds); none when neither v2 nor v1's cpuacct is there.
CG=
CG_PARENT=
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_PARENT=/sys/fs/cgroup
	CG=$CG_PARENT/fsp-bench-pg.$$
	cg_usage() { awk '$1 == "usage_usec" { print $2 }' "$CG/cpu.stat"; }
elif [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
	CG_PARENT=/sys/fs/cgroup/cpuacct
	CG=$CG_PARENT/fsp-bench-pg.$$
	cg_usage() { echo $(($(cat "$CG/cpuacct.usage") / 1000)); }
fi
if [ -n "$CG" ] && ! { mkdir "$CG" && echo $$ >"$CG/cgroup.procs"; } 2>/dev/null; then
	rmdir "$CG" 2>/dev/null
	CG=
fi
[ -n "$CG" ] || echo "bench/pg.sh: no cgroup for the run (neither cgroup v2 nor v1's cpuacct): no CPU per transaction" >&2

is_perf() { [ "$1" = perf ] || [ "$1" = floor ]; }

# ticks PID: the process's user and system CPU time in clock ticks ("U S").
ticks() { awk '{ print $14, $15 }' "/proc/$1/stat" 2>/dev/null; }
HZ_TICKS=$(getconf CLK_TCK)

median() { printf '%s\n' "$@" | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
calc() { awk "BEGIN { printf \"%.4f\", $1 }"; }
minmax() { printf '%s\n' "$@" | grep . | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.1f..%.1f", lo, hi }'; }
f1() { if [ -n "$1" ]; then printf '%.1f' "$1"; else printf -- '-'; fi; }

# A port nobody listens on.
PORT=
for ((i = 0; i < 100; i++)); do
	p=$((20000 + RANDOM % 20000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		PORT=$p
		break
	fi
done
[ -n "$PORT" ] || { echo "bench/pg.sh: no free port" >&2; exit 1; }

# The cluster: as tests/integration/pg_cluster.c's, without pg_stat_statements.
# fsync/synchronous_commit off: commits do not wait for the disk, so that the
# throughput measures CPU, the resource the profilers take.
as_pg "$PGBIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync \
	--no-instructions >"$TMP/initdb.log" 2>&1 || { cat "$TMP/initdb.log" >&2; exit 1; }
cat >>"$DATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$PGDIR'
max_connections = 20
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
max_parallel_workers_per_gather = 0
jit = off
lc_messages = 'C'
EOF
as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$PGDIR/server.log" -w start >/dev/null ||
	{ cat "$PGDIR/server.log" >&2; exit 1; }
PGCONN=(-h "$PGDIR" -p "$PORT" -U postgres)

# run CONDITION ROUND: one pgbench run; prints its tps (empty on failure)
run() {
	local cond=$1 r=$2 log=$TMP/$1.$2 i
	as_pg "$PGBIN/pgbench" "${PGCONN[@]}" -i -q -s "$SCALE" postgres >"$log.init" 2>&1 || return
	as_pg "$PGBIN/psql" -X -q "${PGCONN[@]}" -d postgres -c CHECKPOINT >/dev/null 2>&1
	TOOL_PID=
	local t0='' t1=''
	case $cond in
	fsp | sampled | libdw)
		local map=postgresql cache=on
		[ "$cond" != fsp ] && map="postgresql-sampled --stacks -v"
		[ "$cond" = libdw ] && cache=off
		# shellcheck disable=SC2086
		FSP_CFI_CACHE=$cache "$FSP" --map $map -a -F "$FREQ" $FSP_ARGS -o "$log.json" \
			>"$log.tool" 2>&1 &
		TOOL_PID=$!
		for ((i = 0; i < 600; i++)); do
			grep -q 'fsp-bpf: profiling' "$log.tool" 2>/dev/null && break
			kill -0 "$TOOL_PID" 2>/dev/null || break
			sleep 0.1
		done
		if ! grep -q 'fsp-bpf: profiling' "$log.tool" 2>/dev/null; then
			kill -INT "$TOOL_PID" 2>/dev/null
			wait "$TOOL_PID" 2>/dev/null
			TOOL_PID=
			grep '^fsp-bpf: ' "$log.tool" | tail -n 1 >"$TMP/$cond.error"
			return
		fi
		t0=$(ticks "$TOOL_PID")
		;;
	perf | floor)
		local g=-g
		[ "$cond" = floor ] && g=
		# shellcheck disable=SC2086
		"$PERF" record -F "$FREQ" $g -e cpu-clock -a -N -o "$log.data" >"$log.tool" 2>&1 &
		TOOL_PID=$!
		# perf writes the file's header once its events are open.
		for ((i = 0; i < 100; i++)); do
			[ -s "$log.data" ] && break
			sleep 0.05
		done
		sleep 0.5
		t0=$(ticks "$TOOL_PID")
		;;
	esac
	local u0 u1
	[ -n "$CG" ] && u0=$(cg_usage)
	as_pg "$PGBIN/pgbench" "${PGCONN[@]}" -n -M extended -c "$CLIENTS" -j "$CLIENTS" -T "$T" \
		postgres >"$log" 2>&1
	if [ -n "$CG" ]; then
		u1=$(cg_usage)
		# the CPU microseconds per transaction of the cgroup
		local tx
		tx=$(grep -o 'number of transactions actually processed: [0-9]*' "$log" | grep -o '[0-9]*$')
		[ -n "$tx" ] && [ "$tx" -gt 0 ] && calc "($u1 - $u0) / $tx" >"$TMP/$cond.$r.txcpu"
	fi
	if [ -n "$TOOL_PID" ]; then
		t1=$(ticks "$TOOL_PID")
		# the profiler's CPU seconds during the run: user system
		[ -n "$t0" ] && [ -n "$t1" ] && echo "$t0 $t1" |
			awk -v hz="$HZ_TICKS" '{ printf "%.2f %.2f\n", ($3 - $1) / hz, ($4 - $2) / hz }' \
				>"$TMP/$cond.$r.cpu"
		kill -INT "$TOOL_PID" 2>/dev/null
		wait "$TOOL_PID" 2>/dev/null
		TOOL_PID=
		is_perf "$cond" || cp "$log.tool" "$TMP/$cond.last"
		# fsp-bpf's samples of the session, for the CPU per sample
		! is_perf "$cond" && [ -s "$TMP/$cond.$r.cpu" ] &&
			grep -m1 -oE '[0-9]+ samples' "$log.tool" | cut -d' ' -f1 >"$TMP/$cond.$r.samples"
		# the unwinding's CPU per native record (-v): "records seconds"
		! is_perf "$cond" && grep -m1 -E 'native stacks: [0-9]+ records, .* s CPU' "$log.tool" |
			sed -E 's/.*native stacks: ([0-9]+) records, .* ([0-9.]+) s CPU.*/\1 \2/' \
				>"$TMP/$cond.$r.unwind"
		rm -f "$log.data" "$log.json"
	fi
	grep -o 'tps = [0-9.]*' "$log" | head -n 1 | cut -d' ' -f3
}

# cpu_line COND: the medians of the profiler's own CPU during the runs (and
# per sample); sets CPU_S and CPU_US.
cpu_line() {
	local c=$1 f u=() y=() tot=() per=() n
	CPU_S=
	CPU_US=
	for f in "$TMP/$c".*.cpu; do
		[ -s "$f" ] || continue
		read -r a b <"$f"
		u+=("$a")
		y+=("$b")
		tot+=("$(calc "$a + $b")")
		n=$(cat "${f%.cpu}.samples" 2>/dev/null)
		[ -n "$n" ] && [ "$n" -gt 0 ] && per+=("$(calc "($a + $b) * 1e6 / $n")")
	done
	[ ${#tot[@]} -gt 0 ] || return 0
	CPU_S=$(median "${tot[@]}")
	CPU_US=$(median "${per[@]}")
	printf '  %-46s %s s CPU per %s s run (user %s, system %s; medians of %d)%s\n' \
		"  its own process" "$CPU_S" "$T" "$(median "${u[@]}")" "$(median "${y[@]}")" \
		${#tot[@]} "${CPU_US:+, $(printf '%.1f' "$CPU_US") us per sample}"
	UNW_US=
	per=()
	for f in "$TMP/$c".*.unwind; do
		[ -s "$f" ] || continue
		read -r a b <"$f"
		[ "$a" -gt 0 ] && per+=("$(calc "$b * 1e6 / $a")")
	done
	[ ${#per[@]} -gt 0 ] || return 0
	UNW_US=$(median "${per[@]}")
	printf '  %-46s %.1f us CPU per native record (median of %d)\n' "  its unwinding" \
		"$UNW_US" ${#per[@]}
}

# txcpu_line COND [NONE]: the median CPU microseconds per transaction of the
# run's cgroup and, given NONE's, the ratio NONE / COND (the throughput a
# CPU-bound server keeps); sets TXCPU and TXCPU_R.
txcpu_line() {
	local c=$1 none=${2:-} f vals=()
	TXCPU=
	TXCPU_R=
	for f in "$TMP/$c".*.txcpu; do
		[ -s "$f" ] && vals+=("$(cat "$f")")
	done
	[ ${#vals[@]} -gt 0 ] || return 0
	TXCPU=$(median "${vals[@]}")
	[ -n "$none" ] && TXCPU_R=$(calc "$none / $TXCPU")
	printf '  %-46s %s us CPU per transaction (%s)%s\n' "  server, pgbench and profiler" \
		"$(f1 "$TXCPU")" "$(minmax "${vals[@]}")" "${TXCPU_R:+, ratio $TXCPU_R}"
}

{
	echo "== PostgreSQL 15 throughput under profilers ($(date -u +%FT%TZ), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)," \
		"$ROUNDS rounds x $T s, pgbench TPC-B -M extended -c $CLIENTS -j $CLIENTS, scale $SCALE, $(nproc) CPUs," \
		"load $(cut -d' ' -f1-3 /proc/loadavg))"
	declare -A TPS LABEL
	CONDS=(none fsp sampled perf floor)
	[ -n "$LIBDW" ] && CONDS+=(libdw)
	LABEL=([none]="no profiler" [fsp]="fsp-bpf --map postgresql -a -F $FREQ"
		[sampled]="fsp-bpf --map postgresql-sampled --stacks -a" [perf]="perf record -F $FREQ -g -a"
		[floor]="perf record -F $FREQ -a (no stacks)"
		[libdw]="the same, FSP_CFI_CACHE=off (libdw)")
	[ -n "$PERF" ] || echo "  perf is not installed (linux-perf): no perf runs"
	# One run not counted: the first after the cluster's start is slower
	# (cold caches, the catalog read), and would be no profiler's in round 0.
	run none warm-up >/dev/null
	rm -f "$TMP"/none.warm-up.*
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < ${#CONDS[@]}; k++)); do
			c=${CONDS[$(((r + k) % ${#CONDS[@]}))]}
			is_perf "$c" && [ -z "$PERF" ] && continue
			[ -s "$TMP/$c.error" ] && continue
			v=$(run "$c" "$r")
			TPS[$c.$r]=$v
			[ -n "$v" ] && TPS[$c]+=" $v"
		done
	done
	# shellcheck disable=SC2086
	N=$(median ${TPS[none]:-})
	printf '  %-46s %10s tps  (%s)\n' "no profiler" "$(f1 "$N")" "$(minmax ${TPS[none]:-})"
	line="bench: pg tps_none=${N:-}"
	txcpu_line none
	TXN=$TXCPU
	line+=" txcpu_none=${TXN:-}"
	for c in fsp sampled perf floor ${LIBDW:+libdw}; do
		# shellcheck disable=SC2086
		M=$(median ${TPS[$c]:-})
		PR=()
		for ((r = 0; r < ROUNDS; r++)); do
			n=${TPS[none.$r]:-}
			[ -n "$n" ] && [ -n "${TPS[$c.$r]:-}" ] && PR+=("$(calc "${TPS[$c.$r]} / $n")")
		done
		R=$( [ -n "$M" ] && [ -n "$N" ] && calc "$M / $N")
		RPR=$(median "${PR[@]}")
		# shellcheck disable=SC2086
		printf '  %-46s %10s tps  (%s)  ratio %s, paired %s\n' "${LABEL[$c]}" \
			"$(f1 "$M")" "$(minmax ${TPS[$c]:-})" "${R:--}" "${RPR:--}"
		[ -s "$TMP/$c.error" ] && echo "  $c: fsp-bpf did not start: $(cat "$TMP/$c.error")"
		cpu_line "$c"
		txcpu_line "$c" "$TXN"
		line+=" txcpu_$c=${TXCPU:-} txcpu_ratio_$c=${TXCPU_R:-}"
		[ -f "$TMP/$c.last" ] && grep -m2 -E '^ +[0-9.]+ s, |^ +events:' "$TMP/$c.last" |
			sed "s/^ */  last $c session: /"
		line+=" tps_$c=${M:-} ratio_$c=${R:-} ratio_${c}_paired=${RPR:-} cpu_s_$c=${CPU_S:-}"
		is_perf "$c" || line+=" cpu_us_per_sample_$c=${CPU_US:-}"
		[ "$c" = sampled ] || [ "$c" = libdw ] && line+=" unwind_us_per_record_$c=${UNW_US:-}"
	done
	echo "$line rounds=$ROUNDS seconds=$T clients=$CLIENTS scale=$SCALE"
} 2>&1 | tee -a "$RES/pg.txt"
