// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind - what a C++ exception or a longjmp costs, with or without a tool
 * hooking __cxa_begin_catch or longjmp (fsp-bpf's unwinding hooks).
 *
 *   unwind [-n ITERATIONS] [-r REPS] [-a] exc|jmp
 *
 *   exc  each iteration throws a small exception from a noinline function and
 *        catches it one frame up (throw, unwind, __cxa_begin_catch, end)
 *   jmp  each iteration setjmp()s and longjmp()s back from a noinline function
 *
 * The timed loop runs inside one fsp mark (entered once, so fsp-bpf attaches
 * its probes and hooks, and its catch/longjmp programs find a live mark to
 * check) and REPS times after a warm-up run of a tenth of the iterations.
 * Each run's ns per operation is printed (the program's own steady clock);
 * the last line, for machines, is
 *   unwind: mode=M ns_per_op=X min_ns_per_op=Y ops_per_s=Z reps=R
 *           iterations=N attached=0|1
 * with the median and the minimum over the runs; ops_per_s is 1e9 / the median.
 *
 *   -a  wait (up to 30 s) until a uprobe is installed on the mode's hook
 *       (an int3 at the entry of __cxa_begin_catch, or of longjmp /
 *       __longjmp_chk, or just past a leading endbr64, where fsp-bpf puts it),
 *       then 0.2 s more; exit 3 if none ever is
 */
#include <algorithm>
#include <chrono>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <unistd.h>

#include "fsp.h"

#define MAX_REPS 101

struct bench_error : std::exception {
	const char *what() const noexcept override
	{
		return "bench";
	}
};

static volatile uint64_t sink;
static std::jmp_buf jb;

static __attribute__((noinline)) void thrower(uint64_t i)
{
	sink = i;
	throw bench_error();
}

static __attribute__((noinline)) void jumper(uint64_t i)
{
	sink = i;
	std::longjmp(jb, 1);
}

static __attribute__((noinline)) void loop_exc(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		try {
			thrower(i);
		} catch (const bench_error &) {
			sink = sink + 1;
		}
	}
}

static __attribute__((noinline)) void loop_jmp(uint64_t n)
{
	for (volatile uint64_t i = 0; i < n; i = i + 1) {
		if (!setjmp(jb))
			jumper(i);
		sink = sink + 1;
	}
}

/* Is a uprobe (int3) on function name's entry, or just past an endbr64? */
static bool hooked(const char *name)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	const unsigned char *code = (const unsigned char *)dlsym(RTLD_DEFAULT, name);

	if (!code)
		return false;
	if (code[0] == 0xcc)
		return true;
	return !memcmp(code, endbr64, sizeof(endbr64)) && code[sizeof(endbr64)] == 0xcc;
}

static bool attached(bool exc)
{
	return exc ? hooked("__cxa_begin_catch") : hooked("longjmp") || hooked("__longjmp_chk");
}

static double now_ns()
{
	return std::chrono::duration<double, std::nano>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

static void usage(const char *argv0)
{
	std::fprintf(stderr, "usage: %s [-n ITERATIONS] [-r REPS] [-a] exc|jmp\n", argv0);
	std::exit(2);
}

int main(int argc, char **argv)
{
	static double per_op[MAX_REPS];
	uint64_t n = 100000;
	int reps = 5, wait_attach = 0, opt;
	bool exc;
	double med;

	while ((opt = getopt(argc, argv, "n:r:a")) != -1) {
		switch (opt) {
		case 'n':
			n = std::strtoull(optarg, nullptr, 10);
			break;
		case 'r':
			reps = std::atoi(optarg);
			break;
		case 'a':
			wait_attach = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (n == 0 || reps < 1 || reps > MAX_REPS || optind != argc - 1 ||
	    (std::strcmp(argv[optind], "exc") && std::strcmp(argv[optind], "jmp")))
		usage(argv[0]);
	exc = !std::strcmp(argv[optind], "exc");

	if (wait_attach) {
		for (int i = 0; i < 3000 && !attached(exc); i++)
			usleep(10000);
		if (!attached(exc)) {
			std::fprintf(stderr, "unwind: no uprobe on the %s hook\n",
				     exc ? "__cxa_begin_catch" : "longjmp");
			return 3;
		}
		usleep(200000);
	}

	FSP_MARK_ENTER("unwind", "loop", 0);
	(exc ? loop_exc : loop_jmp)(n / 10); /* warm up */
	for (int r = 0; r < reps; r++) {
		double t0 = now_ns();

		(exc ? loop_exc : loop_jmp)(n);
		per_op[r] = (now_ns() - t0) / (double)n;
		std::printf("unwind: run %d: %.2f ns per %s\n", r, per_op[r],
			    exc ? "throw+catch" : "setjmp+longjmp");
	}
	FSP_MARK_LEAVE("unwind", "loop", 0);
	std::sort(per_op, per_op + reps);
	med = reps % 2 ? per_op[reps / 2] : (per_op[reps / 2 - 1] + per_op[reps / 2]) / 2;
	std::printf("unwind: mode=%s ns_per_op=%.3f min_ns_per_op=%.3f ops_per_s=%.0f reps=%d "
		    "iterations=%llu attached=%d\n",
		    exc ? "exc" : "jmp", med, per_op[0], 1e9 / med, reps, (unsigned long long)n,
		    attached(exc));
	return 0;
}
