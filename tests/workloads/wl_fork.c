// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_fork - a process that forks a child running a feature, for fsp-bpf's
 * fork following.
 *
 *   wl_fork TRUTH MS [inside [EXIT_MIB]]
 *
 * The parent runs "parent_work" (1-3 ms phases, 50%) for 300 ms, forks, and
 * waits for the child (sleeping). The child sleeps 200 ms first: the budget
 * fsp-bpf has to notice the fork and arm the child's probes before it does
 * anything; then it runs "child_work" (2-4 ms phases, ~60%) and unmarked work
 * for MS ms of CPU, writes TRUTH.child and exits 0.
 *
 * With "inside" it forks inside a mark "bgsave" (instance "fork", as Redis's
 * BGSAVE command forks the child that writes the database), which the parent
 * leaves right after the fork and the child never leaves: the child's whole
 * life is under the parent's open mark. With EXIT_MIB, the child also writes
 * EXIT_MIB MiB of memory of its own right before it exits, still inside
 * "bgsave": the kernel frees it at the exit, after the child's memory is
 * gone (exit_mm), where fsp-bpf can no longer read its ABI v2 mark stack.
 *
 * TRUTH.child: cpu_total_ns (the child's CPU from fork), feature.child_work.
 * {ns,ambig_ns}, pid. TRUTH.parent: cpu_total_ns (the parent's own CPU),
 * feature.parent_work.{ns,ambig_ns}, child_pid, child_status, pid. The parent
 * exits 0 if the child exited 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

static void work(const char *feature, struct wl_acc *acc, uint64_t ms, uint64_t lo_us,
		 uint64_t hi_us, uint64_t seed)
{
	uint64_t start = wl_thread_ns(), rng = seed;

	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a, b, c, d;

		a = wl_thread_ns();
		FSP_MARK_ENTER(feature, "wl_fork", 0);
		b = wl_thread_ns();
		c = wl_burn(wl_rand_range(&rng, lo_us * US, hi_us * US));
		FSP_MARK_LEAVE(feature, "wl_fork", 0);
		d = wl_thread_ns();
		wl_acc_span(acc, a, b, c, d);
		wl_burn(wl_rand_range(&rng, 1000 * US, 3000 * US));
	}
}

/* EXIT_MIB MiB of memory, written: the kernel frees it at the exit. */
static void fill_memory(uint64_t mib)
{
	size_t size = (size_t)mib << 20;
	char *p;

	if (!mib)
		return;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		wl_die("mmap %llu MiB: %s", (unsigned long long)mib, strerror(errno));
	memset(p, 1, size);
}

int main(int argc, char **argv)
{
	struct wl_acc parent = {0, 0}, child = {0, 0};
	char path[PATH_MAX];
	int status = -1, inside;
	uint64_t ms, exit_mib = 0;
	pid_t pid;
	FILE *f;

	if (argc < 3 || argc > 5 || (argc >= 4 && strcmp(argv[3], "inside")))
		wl_die("usage: wl_fork TRUTH MS [inside [EXIT_MIB]]");
	inside = argc >= 4;
	ms = wl_arg_u64(argv[2], "MS");
	if (argc == 5)
		exit_mib = wl_arg_u64(argv[4], "EXIT_MIB");
	work("parent_work", &parent, 300, 1000, 3000, 0x9e3779b97f4a7c15ULL);
	fflush(NULL);
	if (inside)
		FSP_MARK_ENTER("bgsave", "fork", 0);
	pid = fork();
	if (pid < 0)
		wl_die("fork: %s", strerror(errno));
	if (pid > 0 && inside)
		FSP_MARK_LEAVE("bgsave", "fork", 0);
	if (pid == 0) {
		struct timespec nap = {0, 200 * 1000000L};

		while (nanosleep(&nap, &nap) && errno == EINTR)
			;
		work("child_work", &child, ms, 2000, 4000, 0xda942042e4dd58b5ULL);
		snprintf(path, sizeof(path), "%s.child", argv[1]);
		f = wl_out_open(path);
		wl_out_u64(f, "cpu_total_ns", wl_process_ns());
		wl_out_acc(f, "feature.child_work", &child);
		if (wl_out_close(f, path) || wl_integrity_errors())
			exit(3);
		fill_memory(exit_mib);
		exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	snprintf(path, sizeof(path), "%s.parent", argv[1]);
	f = wl_out_open(path);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "feature.parent_work", &parent);
	wl_out_u64(f, "child_pid", (uint64_t)pid);
	wl_out_u64(f, "child_status", (uint64_t)status);
	if (wl_out_close(f, path))
		return 3;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 && !wl_integrity_errors() ? 0 : 3;
}
