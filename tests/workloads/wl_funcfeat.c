// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_funcfeat - calls of known libc and own-library functions, for function
 * features (tests/integration/test_funcfeat.c). Built twice from this file at
 * -O2: wl_funcfeat with frame pointers, wl_funcfeat_nofp without.
 *
 *   wl_funcfeat TRUTH MS
 *
 * Rounds until MS ms of CPU time; each round
 *   fmt_site_a   snprintf()s doubles, inside the marked feature "phase"
 *                (a function feature nested in a marked one)
 *   fmt_site_b   the same, half as long, outside any mark
 *   sort_site    qsort()s 32-byte records with a comparator, cmp_slow,
 *                that spins (the sort feature's antimark) under the mark
 *                "m:inner" (instance "spin"): a marked feature nested in a
 *                function feature, and of the name of a function feature
 *                the test declares (qsort, cmp_slow its antimark), whose
 *                mark then charges only if it is placed above the antimark
 *   lib_site     wl_native_lib_spin() of libwl_native.so
 * Each call's CPU time is measured around it (CLOCK_THREAD_CPUTIME_ID), so the
 * truth is what each took; the comparator's, called thousands of times a
 * sort, is its calls times its cost per call, measured in a batch of calls
 * after each sort (the ambiguous time is 4 standard errors of the batches'
 * mean either way: the tests count half of it each side of the truth).
 *
 * Truth keys (KEY.ns, KEY.ambig_ns): fmt (both snprintf loops), fmt_a, fmt_b,
 * sort (qsort less its comparator), sortall (qsort), cmp (the comparator),
 * lib, phase (wl_acc); cpu_total_ns; the call sites as instances:
 * site.fmt_a, site.fmt_b, site.sort, site.lib ("FUNC (wl_funcfeat.c:LINE)");
 * rounds: the rounds run, each calling qsort and wl_native_lib_spin once
 * (the exact calls of --events).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"

uint64_t wl_native_lib_spin(uint64_t n, uint64_t x);

#define REC_SIZE 32 /* glibc's msort sorts records of up to 32 bytes in place */
#define NR_RECS 256

struct rec {
	uint64_t key;
	char pad[REC_SIZE - sizeof(uint64_t)];
};

static uint64_t cmp_spin = 1000, cmp_calls;
static int calibrating; /* cmp_calibrate: the mark says so (instance "calibration") */
static unsigned int line_fmt_a, line_fmt_b, line_sort, line_lib;

static uint64_t spin(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* The comparator: an expensive fixed spin (~1 us) under the mark "m:inner"
 * (instance "spin"). A clock read per call (a system call for the thread's
 * CPU time) would cost more than the sort's own work: its calls are
 * counted, and its cost per call measured apart (cmp_calibrate). */
__attribute__((noinline, noclone)) static int cmp_slow(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	uint64_t s;

#ifdef FSP_ABI_V1
	/* an ABI v1 mark traps: most of the call's time, and too variable for
	 * the cost measured apart */
	s = spin(cmp_spin, x->key);
#else
	if (calibrating) {
		FSP_MARK_ENTER("m:inner", "calibration", 0);
		s = spin(cmp_spin, x->key);
		FSP_MARK_LEAVE("m:inner", "calibration", 0);
	} else {
		FSP_MARK_ENTER("m:inner", "spin", 0);
		s = spin(cmp_spin, x->key);
		FSP_MARK_LEAVE("m:inner", "spin", 0);
	}
#endif
	cmp_calls++;
	return (x->key > y->key) - (x->key < y->key) + (int)(s & 0);
}

#define CAL_CALLS 512 /* comparator calls timed apart after each sort */

/* The comparator's cost per call, measured in a batch of CAL_CALLS calls
 * after each sort rather than once before the run: a drift of the CPU's
 * speed over the run (another guest on the host, the profiler's load)
 * then weighs on both alike. The mean per-call cost of the batches, and
 * their spread for the ambiguity of the comparator's total. */
struct cmp_cal {
	uint64_t calls, ns, batches;
	double sum, sum_sq; /* of each batch's ns per call */
};

static void cmp_calibrate(struct cmp_cal *cal)
{
	struct rec r[2] = {{.key = 1}, {.key = 2}};
	uint64_t calls = cmp_calls, t0, t;
	double per_call;

	calibrating = 1;
	t0 = wl_thread_ns();
	for (int i = 0; i < CAL_CALLS; i++)
		cmp_slow(&r[i & 1], &r[!(i & 1)]);
	t = wl_thread_ns() - t0;
	calibrating = 0;
	cmp_calls = calls;
	per_call = (double)t / CAL_CALLS;
	cal->calls += CAL_CALLS;
	cal->ns += t;
	cal->batches++;
	cal->sum += per_call;
	cal->sum_sq += per_call * per_call;
}

/* The comparator's time in the sorts: its calls there times the mean cost
 * per call; *ambig: 4 standard errors of that mean either way (8 in all),
 * times the calls. The tests place the truth in the middle of its ambiguous
 * time: 4 in all were +-2 standard errors, and 1 comparison in 36 had sort's
 * own share (~0.3%, what is left of qsort's ~60% after the comparator) off
 * by 0.89 pp, at 0.88 of its tolerance. */
static uint64_t cmp_time(const struct cmp_cal *cal, uint64_t *ambig)
{
	double n = (double)cal->batches, mean, var;

	if (!cal->batches) {
		*ambig = 0;
		return 0;
	}
	mean = cal->sum / n;
	var = n > 1 ? (cal->sum_sq - n * mean * mean) / (n - 1) : 0;
	*ambig = (uint64_t)(2 * 4 * sqrt(var > 0 ? var : 0) / sqrt(n) * (double)cmp_calls);
	return (uint64_t)((double)cmp_calls * (double)cal->ns / (double)cal->calls);
}

/* n snprintf calls; returns a checksum (no tail call: the caller's frame
 * stays). Not static, not cloned: the symbols keep their names. */
uint64_t fmt_site_a(uint64_t n, double v);
uint64_t fmt_site_b(uint64_t n, double v);
uint64_t sort_site(struct rec *r, uint64_t *seed);
uint64_t lib_site(uint64_t n, uint64_t x);

__attribute__((noinline, noclone)) uint64_t fmt_site_a(uint64_t n, double v)
{
	char buf[256];
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		/* the call and __LINE__ on one line */
		/* clang-format off */
		sum += snprintf(buf, sizeof(buf), "%.17g %.9e %lu", v + i, v * i, i), line_fmt_a = __LINE__;
		/* clang-format on */
		sum += buf[3];
	}
	return sum;
}

__attribute__((noinline, noclone)) uint64_t fmt_site_b(uint64_t n, double v)
{
	char buf[256];
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		/* clang-format off */
		sum += snprintf(buf, sizeof(buf), "%.17g %.9e %lu", v - i, v / (i + 1), i), line_fmt_b = __LINE__;
		/* clang-format on */
		sum += buf[5];
	}
	return sum;
}

__attribute__((noinline, noclone)) uint64_t sort_site(struct rec *r, uint64_t *seed)
{
	for (int i = 0; i < NR_RECS; i++)
		r[i].key = wl_rand_range(seed, 0, 1u << 30);
	qsort(r, NR_RECS, sizeof(*r), cmp_slow), line_sort = __LINE__;
	return r[0].key;
}

__attribute__((noinline, noclone)) uint64_t lib_site(uint64_t n, uint64_t x)
{
	x = wl_native_lib_spin(n, x) + 1, line_lib = __LINE__;
	return x * 3;
}

/* Calls of snprintf per ms of CPU time here (by fmt_site_b: its time is
 * added to *fmt_b). */
static uint64_t calibrate_fmt(uint64_t *fmt_b)
{
	uint64_t n = 64, t0, t;

	for (;;) {
		t0 = wl_thread_ns();
		fmt_site_b(n, 1.5);
		t = wl_thread_ns() - t0;
		*fmt_b += t;
		if (t > 10 * WL_NS_PER_MS)
			return n * WL_NS_PER_MS / t + 1;
		n *= 2;
	}
}

/* KEY.ns and KEY.ambig_ns. */
static void out_ns(FILE *f, const char *key, uint64_t ns, uint64_t ambig)
{
	char k[64];

	snprintf(k, sizeof(k), "%s.ns", key);
	wl_out_u64(f, k, ns);
	snprintf(k, sizeof(k), "%s.ambig_ns", key);
	wl_out_u64(f, k, ambig);
}

static void out_site(FILE *f, const char *key, const char *fn, unsigned int line)
{
	char v[128];

	snprintf(v, sizeof(v), "%s (wl_funcfeat.c:%u)", fn, line);
	wl_out_str(f, key, v);
}

int main(int argc, char **argv)
{
	uint64_t budget, per_ms, fmt_a = 0, fmt_b = 0, sort_all = 0, lib = 0, x = 7, a, b, c, d;
	uint64_t seed = 42, t0, cmp_ns, cmp_ambig, rounds = 0;
	struct cmp_cal cal = {0};
	struct wl_acc phase = {0};
	struct rec *recs = calloc(NR_RECS, sizeof(*recs));
	FILE *f;

	if (argc != 3 || !recs)
		wl_die("usage: wl_funcfeat TRUTH MS");
	budget = wl_arg_u64(argv[2], "MS") * WL_NS_PER_MS;
	per_ms = calibrate_fmt(&fmt_b);
	while (wl_thread_ns() < budget) {
		a = wl_thread_ns();
		FSP_MARK_ENTER("phase", "fmt_a", 0);
		b = wl_thread_ns();
		x += fmt_site_a(per_ms, (double)x);
		c = wl_thread_ns();
		FSP_MARK_LEAVE("phase", "fmt_a", 0);
		d = wl_thread_ns();
		wl_acc_span(&phase, a, b, c, d);
		fmt_a += c - b;

		t0 = wl_thread_ns();
		x += fmt_site_b(per_ms / 2, (double)x);
		fmt_b += wl_thread_ns() - t0;

		t0 = wl_thread_ns();
		x += sort_site(recs, &seed);
		sort_all += wl_thread_ns() - t0;
		cmp_calibrate(&cal);

		t0 = wl_thread_ns();
		x += lib_site(1 << 20, x);
		lib += wl_thread_ns() - t0;
		rounds++;
	}
	cmp_ns = cmp_time(&cal, &cmp_ambig);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "phase", &phase);
	out_ns(f, "fmt", fmt_a + fmt_b, 0);
	out_ns(f, "fmt_a", fmt_a, 0);
	out_ns(f, "fmt_b", fmt_b, 0);
	out_ns(f, "sort", sort_all > cmp_ns ? sort_all - cmp_ns : 0, cmp_ambig);
	out_ns(f, "sortall", sort_all, 0);
	out_ns(f, "cmp", cmp_ns, cmp_ambig);
	out_ns(f, "lib", lib, 0);
	out_site(f, "site.fmt_a", "fmt_site_a", line_fmt_a);
	out_site(f, "site.fmt_b", "fmt_site_b", line_fmt_b);
	out_site(f, "site.sort", "sort_site", line_sort);
	out_site(f, "site.lib", "lib_site", line_lib);
	wl_out_u64(f, "rounds", rounds);
	wl_out_u64(f, "checksum", x);
	free(recs);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
