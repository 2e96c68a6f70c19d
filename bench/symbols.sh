#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/symbols.sh - the symbolizer's cost per address (make bench; no root
# needed): bench/tools/sym_bench on BENCH_SYM_N (default 20,000) addresses of the
# .text of binaries with and without debug information: fsp-bpf itself and a
# C++ example (-O2 -g, inlined frames), libc (its debug file when libc6-dbg is
# installed), PostgreSQL and python3.11 (.dynsym only, as Debian ships them).
# Prints the lines; appends them to bench/results/symbols.txt.
set -u

cd "$(dirname "$0")/.." || exit 1
BENCH=.output/bench/tools/sym_bench
N=${BENCH_SYM_N:-20000}
RES=bench/results
if [ ! -x "$BENCH" ]; then
	echo "bench/symbols.sh: $BENCH is missing; run make bench" >&2
	exit 1
fi
mkdir -p "$RES"
{
	echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null)"
	for f in ./fsp-bpf .output/examples/demo_cxx /lib/x86_64-linux-gnu/libc.so.6 \
		/usr/lib/postgresql/15/bin/postgres /usr/bin/python3.11; do
		[ -r "$f" ] && "$BENCH" "$f" "$N"
	done
} | tee -a "$RES/symbols.txt"
