#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/pg.sh - what profiling a PostgreSQL 15 server costs its throughput
# (make bench; root). One scratch cluster, pgbench's TPC-B script
# (pgbench -n -M extended -c C -j C -T T) under four conditions, interleaved
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
#
# Reports the median tps of each condition and its ratio to no profiler, both
# as the ratio of the medians and as the median of the per-round ratios
# (paired: a round's runs are close in time). Beside them, what does not depend
# on the machine's other load: the profiler process's own CPU time (user and
# system, /proc/PID/stat) from the moment it is armed to the end of pgbench's
# run, per run and, for fsp-bpf, per sample of the session (from its summary
# line): the work the profiler's process takes from the CPUs pgbench and the
# server share. (The BPF programs' time, in the sampled tasks' own context, is
# not in it: docs/benchmarks.md says how to read it.) Prints a table and a
# "bench: pg key=value" line; appends both to bench/results/pg.txt.
#
# Environment: BENCH_PG_ROUNDS (default 5), BENCH_PG_T (seconds per pgbench
# run, default 8), BENCH_PG_CLIENTS (default 2), BENCH_PG_SCALE (default 2),
# BENCH_PG_FSP_ARGS (extra fsp-bpf options, e.g. "--feature query,plan,execute").
# The defaults take about 4 minutes: 4 conditions x 5 rounds x (8 s + ~3 s of
# pgbench -i and profiler start/stop).
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FSP=$ROOT/fsp-bpf
RES=$ROOT/bench/results
ROUNDS=${BENCH_PG_ROUNDS:-5}
T=${BENCH_PG_T:-8}
CLIENTS=${BENCH_PG_CLIENTS:-2}
SCALE=${BENCH_PG_SCALE:-2}
FSP_ARGS=${BENCH_PG_FSP_ARGS:-}
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
}
trap cleanup EXIT
trap 'exit 130' INT TERM

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
	fsp | sampled)
		local map=postgresql
		[ "$cond" = sampled ] && map="postgresql-sampled --stacks"
		# shellcheck disable=SC2086
		"$FSP" --map $map -a -F "$FREQ" $FSP_ARGS -o "$log.json" >"$log.tool" 2>&1 &
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
	perf)
		"$PERF" record -F "$FREQ" -g -e cpu-clock -a -N -o "$log.data" >"$log.tool" 2>&1 &
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
	as_pg "$PGBIN/pgbench" "${PGCONN[@]}" -n -M extended -c "$CLIENTS" -j "$CLIENTS" -T "$T" \
		postgres >"$log" 2>&1
	if [ -n "$TOOL_PID" ]; then
		t1=$(ticks "$TOOL_PID")
		# the profiler's CPU seconds during the run: user system
		[ -n "$t0" ] && [ -n "$t1" ] && echo "$t0 $t1" |
			awk -v hz="$HZ_TICKS" '{ printf "%.2f %.2f\n", ($3 - $1) / hz, ($4 - $2) / hz }' \
				>"$TMP/$cond.$r.cpu"
		kill -INT "$TOOL_PID" 2>/dev/null
		wait "$TOOL_PID" 2>/dev/null
		TOOL_PID=
		[ "$cond" != perf ] && cp "$log.tool" "$TMP/$cond.last"
		# fsp-bpf's samples of the session, for the CPU per sample
		[ "$cond" != perf ] && [ -s "$TMP/$cond.$r.cpu" ] &&
			grep -m1 -oE '[0-9]+ samples' "$log.tool" | cut -d' ' -f1 >"$TMP/$cond.$r.samples"
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
}

{
	echo "== PostgreSQL 15 throughput under profilers ($(date -u +%FT%TZ), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)," \
		"$ROUNDS rounds x $T s, pgbench TPC-B -M extended -c $CLIENTS -j $CLIENTS, scale $SCALE, $(nproc) CPUs," \
		"load $(cut -d' ' -f1-3 /proc/loadavg))"
	declare -A TPS LABEL
	CONDS=(none fsp sampled perf)
	LABEL=([none]="no profiler" [fsp]="fsp-bpf --map postgresql -a -F $FREQ"
		[sampled]="fsp-bpf --map postgresql-sampled --stacks -a" [perf]="perf record -F $FREQ -g -a")
	[ -n "$PERF" ] || echo "  perf is not installed (linux-perf): no perf runs"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < ${#CONDS[@]}; k++)); do
			c=${CONDS[$(((r + k) % ${#CONDS[@]}))]}
			[ "$c" = perf ] && [ -z "$PERF" ] && continue
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
	for c in fsp sampled perf; do
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
		[ -f "$TMP/$c.last" ] && grep -m2 -E '^ +[0-9.]+ s, |^ +events:' "$TMP/$c.last" |
			sed "s/^ */  last $c session: /"
		line+=" tps_$c=${M:-} ratio_$c=${R:-} ratio_${c}_paired=${RPR:-} cpu_s_$c=${CPU_S:-}"
		[ "$c" != perf ] && line+=" cpu_us_per_sample_$c=${CPU_US:-}"
	done
	echo "$line rounds=$ROUNDS seconds=$T clients=$CLIENTS scale=$SCALE"
} 2>&1 | tee -a "$RES/pg.txt"
