// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_longlabel - marks whose instance labels are longer than a label may be
 * (255 bytes), for the mark a cut label must carry.
 *
 *   wl_longlabel TRUTH MS
 *
 * Runs cycles of feature "long" with three instances in turn, 1 ms each,
 * for MS ms of CPU time: 300 'a's (cut), exactly 255 'b's (whole), and 254
 * 'c's followed by "é" and more (the cut falls inside the "é").
 *
 * Truth keys: cycles, cpu_total_ns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"

static char a300[301], b255[256], c_split[300];

int main(int argc, char **argv)
{
	const char *labels[3] = {a300, b255, c_split};
	uint64_t ms, start, cycles = 0;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_longlabel TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	memset(a300, 'a', 300);
	memset(b255, 'b', 255);
	memset(c_split, 'c', 254);
	memcpy(c_split + 254, "\xc3\xa9 and more", 11);
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		const char *l = labels[cycles % 3];

		FSP_MARK_ENTER("long", l, 0);
		wl_burn(WL_NS_PER_MS);
		FSP_MARK_LEAVE("long", l, 0);
		cycles++;
	}
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
