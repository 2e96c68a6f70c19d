// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_agent - targets for the agent's tests (record --listen,
 * tests/integration/test_agent.c). Each mode ends by writing READY.done and
 * waiting for SIGTERM, so that the session, still running, can be scraped
 * once more after the work, with nothing changing any more.
 *
 *   wl_agent READY many N MS   feature "site" with N instances "site-0" ...
 *                               (0.2 ms each in turn) and feature "fixed"
 *                               (instance "one", 0.5 ms a round), MS ms of CPU
 *   wl_agent READY hostile MS  features, instances and a comm that would end
 *                               a label's value or a line of an exposition
 *                               written raw (quotes, backslashes, line feeds,
 *                               braces, a forged sample, invalid UTF-8)
 *   wl_agent READY burst       waits; each SIGUSR1: 600 ms of CPU in "alpha"
 *                               (instance "a"), then 400 ms in "beta" ("b"),
 *                               then writes READY.N (N = 1, 2, ...)
 *
 * READY holds "pid N" once the process is running (its marks are ABI v2:
 * attached or not, they cost nothing here).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

/* The hostile labels (the test expects exactly these, invalid bytes as U+FFFD). */
#define H_FEATURE "q\"uote\\back}"
#define H_INST1 "new\nline\"} 1\nfsp_forged_total 99"
#define H_INST2 "bad\xff\xfeutf8"
#define H_FEATURE2 "brace}{,le=\"1\""
#define H_INST3 "x\\\"\\n"
#define H_COMM "ev\"il}\nx"

static volatile sig_atomic_t bursts, stop;

static void on_usr1(int sig)
{
	(void)sig;
	bursts++;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void mark(const char *feature, const char *instance, uint64_t ns)
{
	FSP_MARK_ENTER(feature, instance, 0);
	wl_burn(ns);
	FSP_MARK_LEAVE(feature, instance, 0);
}

static void many(uint64_t n, uint64_t ms)
{
	static char names[1000][16];
	uint64_t end = wl_thread_ns() + ms * WL_NS_PER_MS;

	if (n < 1 || n > 1000)
		wl_die("many: N from 1 to 1000");
	for (uint64_t i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "site-%llu", (unsigned long long)i);
	while (wl_thread_ns() < end) {
		for (uint64_t i = 0; i < n; i++)
			mark("site", names[i], 200 * US);
		mark("fixed", "one", 500 * US);
	}
}

static void hostile(uint64_t ms)
{
	uint64_t end = wl_thread_ns() + ms * WL_NS_PER_MS;

	if (prctl(PR_SET_NAME, H_COMM, 0, 0, 0))
		wl_die("prctl(PR_SET_NAME) failed");
	while (wl_thread_ns() < end) {
		mark(H_FEATURE, H_INST1, 1000 * US);
		mark(H_FEATURE, H_INST2, 1000 * US);
		mark(H_FEATURE2, H_INST3, 1000 * US);
	}
}

static void burst(const char *ready)
{
	char path[4096];
	int done = 0;

	while (!stop) {
		while (done < bursts) {
			mark("alpha", "a", 600 * WL_NS_PER_MS);
			mark("beta", "b", 400 * WL_NS_PER_MS);
			snprintf(path, sizeof(path), "%s.%d", ready, ++done);
			wl_write_ready(path);
		}
		usleep(10000);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	char path[4096];

	if (argc < 3)
		wl_die("usage: wl_agent READY many N MS | hostile MS | burst");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	wl_write_ready(argv[1]);
	if (!strcmp(argv[2], "many") && argc == 5)
		many(wl_arg_u64(argv[3], "N"), wl_arg_u64(argv[4], "MS"));
	else if (!strcmp(argv[2], "hostile") && argc == 4)
		hostile(wl_arg_u64(argv[3], "MS"));
	else if (!strcmp(argv[2], "burst") && argc == 3)
		burst(argv[1]);
	else
		wl_die("usage: wl_agent READY many N MS | hostile MS | burst");
	snprintf(path, sizeof(path), "%s.done", argv[1]);
	wl_write_ready(path);
	while (!stop)
		usleep(10000);
	return wl_integrity_errors() ? 3 : 0;
}
