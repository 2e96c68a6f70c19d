// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_vfork - a process that vforks children which mark a feature before
 * they exit, as posix_spawn's child runs code in its parent's memory before
 * its exec: with --events, every one of their calls must be counted.
 *
 *   wl_vfork TRUTH N
 *
 * Each of N children enters and leaves "vchild" (instance "child") around
 * 50 us of work, then _exits; the parent marks nothing and waits for each.
 *
 * Truth keys: children (that exited 0), cpu_total_ns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

/* One vforked child marking "vchild"; 1 if it exited 0. A function of its
 * own: nothing of the caller's frame is live across the vfork. */
static __attribute__((noinline)) int one_child(void)
{
	int status;
	pid_t pid = vfork();

	if (pid < 0)
		wl_die("vfork failed");
	if (!pid) {
		FSP_MARK_ENTER("vchild", "child", 0);
		wl_burn(50000);
		FSP_MARK_LEAVE("vchild", "child", 0);
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	uint64_t n, ok = 0;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_vfork TRUTH N");
	n = wl_arg_u64(argv[2], "N");
	for (uint64_t i = 0; i < n; i++)
		ok += one_child();
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "children", ok);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
