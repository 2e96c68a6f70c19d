// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * demo - a single-threaded program with three marked features, for fsp-bpf.
 *
 *   demo [MS]     run for about MS ms of CPU time (default 2000), then print the
 *                 per-feature CPU time the program measured itself
 *
 * The features, as three small "libraries" would mark them:
 *   output    formats tables with snprintf and writes them to /dev/null; the
 *             instance is the call site (FSP_HERE), two sites with different costs
 *   parse     parses numbers out of text
 *   contract  checks a pre- and a postcondition around a user function; the user
 *             function runs under an antimark, so its time is not the contract's
 *
 * The mix is deterministic: roughly output 45% (33% + 13%), parse 27%,
 * contract 19% (13% + 6%), and 8% user code under the contract's antimark,
 * which is charged to no feature. The ground truth is thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID) around each feature's work, as a share of the
 * process's CPU time, to compare with what `fsp-bpf -- demo` reports.
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fsp/fsp.h>

/* ---- ground truth -------------------------------------------------------------- */

static uint64_t cpu_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_ns(void)
{
	return cpu_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* CPU time per (feature, instance), as the features measure themselves. */
static struct truth {
	const char *feature, *instance;
	uint64_t ns;
} truth[8];

static void truth_add(const char *feature, const char *instance, uint64_t ns)
{
	struct truth *t;

	for (t = truth; t < truth + 8 && t->feature; t++)
		if (t->feature == feature && t->instance == instance)
			break;
	if (t == truth + 8)
		return;
	t->feature = feature;
	t->instance = instance;
	t->ns += ns;
}

/* CPU time of user code run under the contract's antimark (charged to no feature). */
static uint64_t antimarked_ns;

/* Has an earlier entry the same feature? (for printing each feature once) */
static int feature_seen(const struct truth *t)
{
	const struct truth *u;

	for (u = truth; u < t; u++)
		if (u->feature == t->feature)
			return 1;
	return 0;
}

/* ---- feature "output": format a table, write it out ----------------------------- */

static int out_fd = -1;

/* Callers pass their call site (FSP_HERE) as the instance, via out_table(). */
static void out_table_at(const char *site, const double *v, int rows)
{
	uint64_t t0 = thread_ns();
	char buf[4096];
	size_t len = 0;
	int i;

	FSP_MARK_ENTER("output", site, (uint64_t)rows);
	for (i = 0; i < rows; i++) {
		if (len > sizeof(buf) - 128) {
			if (write(out_fd, buf, len) < 0)
				break;
			len = 0;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%5d %14.6f %14.6e %10.3g|\n",
					i, v[i], v[i] * 1e-3, sqrt(v[i]));
	}
	if (len && write(out_fd, buf, len) < 0)
		perror("write");
	FSP_MARK_LEAVE("output", site, (uint64_t)rows);
	truth_add("output", site, thread_ns() - t0);
}

#define out_table(v, rows) out_table_at(FSP_HERE, v, rows)

/* ---- feature "parse": read numbers back from text ---------------------------------- */

static size_t parse_numbers(const char *text, double *out, size_t max)
{
	uint64_t t0 = thread_ns();
	const char *p = text;
	size_t n = 0;
	char *end;

	FSP_SCOPED_MARK("parse", "parse_numbers", (uint64_t)strlen(text));
	while (n < max) {
		double d = strtod(p, &end);

		if (end == p)
			break;
		out[n++] = d;
		p = end + (*end == ',');
	}
	truth_add("parse", "parse_numbers", thread_ns() - t0);
	return n;
}

/* ---- feature "contract": checks around a user function -------------------------- */

/* Precondition: every value is finite and in [0, 1e6]. Returns the values' spread. */
static double contract_pre(const double *v, size_t n)
{
	double spread = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]) || v[i] < 0 || v[i] > 1e6) {
			fprintf(stderr, "contract violated: v[%zu] = %g\n", i, v[i]);
			abort();
		}
		if (i)
			spread += fabs(log1p(v[i]) - log1p(v[i - 1]));
	}
	return spread;
}

/* Postcondition: still in range, and the spread did not grow. */
static void contract_post(const double *v, size_t n, double pre_spread)
{
	double spread = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]) || v[i] < 0 || v[i] > 1e6) {
			fprintf(stderr, "contract violated: result[%zu] = %g\n", i, v[i]);
			abort();
		}
		if (i)
			spread += fabs(log1p(v[i]) - log1p(v[i - 1]));
	}
	if (spread > pre_spread * 1.000001) {
		fprintf(stderr, "contract violated: spread %g -> %g\n", pre_spread, spread);
		abort();
	}
}

/*
 * Call fn(v, n) under its contract. The checks are the feature; fn is user code
 * and runs under an antimark, so a sample taken inside fn is not charged to
 * "contract".
 */
static void contract_call_at(const char *site, void (*fn)(double *, size_t), double *v, size_t n)
{
	uint64_t t0 = thread_ns(), t1, t2;
	double pre_spread;

	FSP_SCOPED_MARK("contract", site, (uint64_t)n);
	pre_spread = contract_pre(v, n);
	t1 = thread_ns();
	FSP_ANTIMARK_ENTER("contract");
	fn(v, n);
	FSP_ANTIMARK_LEAVE("contract");
	t2 = thread_ns();
	contract_post(v, n, pre_spread);
	truth_add("contract", site, (t1 - t0) + (thread_ns() - t2));
	antimarked_ns += t2 - t1;
}

#define contract_call(fn, v, n) contract_call_at(FSP_HERE, fn, v, n)

/* ---- the application ----------------------------------------------------------------- */

#define NVALS 16000

/* User code: smooth the values (each becomes a weighted mean with its neighbours). */
static void smooth(double *v, size_t n)
{
	double prev, cur;
	size_t i;
	int pass;

	for (pass = 0; pass < 20; pass++) {
		prev = v[0];
		for (i = 1; i + 1 < n; i++) {
			cur = v[i];
			v[i] = 0.25 * prev + 0.5 * cur + 0.25 * v[i + 1];
			prev = cur;
		}
	}
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	static double vals[NVALS], parsed[NVALS];
	static char text[NVALS * 24];
	uint64_t total, sum = 0;
	size_t len = 0, n, i;
	uint32_t x = 2463534242u;
	long rounds = 0;
	struct truth *t;

	if (ms <= 0 || argc > 2) {
		fprintf(stderr, "usage: %s [MS]\n", argv[0]);
		return 2;
	}
	out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd < 0) {
		perror("/dev/null");
		return 1;
	}

	/* Deterministic input text, made once (not a feature). */
	for (i = 0; i < NVALS; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%.6f,",
					(x % 1000000) / 7.0);
	}

	/* Rounds until the process has used MS ms of CPU time (start-up included). */
	do {
		n = parse_numbers(text, parsed, NVALS);
		memcpy(vals, parsed, n * sizeof(*vals));
		contract_call(smooth, vals, n);
		contract_call(smooth, vals + n / 2, n / 2);
		out_table(vals, 1900); /* the expensive output site */
		for (i = 0; i < 3; i++)
			out_table(vals + i * 250, 250); /* a cheaper one */
		rounds++;
	} while (cpu_ns(CLOCK_PROCESS_CPUTIME_ID) < (uint64_t)ms * 1000000u);
	total = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);

	/*
	 * One line: each feature's own CPU time, with its instances, as shares of
	 * the process's CPU time (the denominator fsp-bpf uses too).
	 */
	printf("demo ground truth: cpu %.0f ms, %ld rounds", total / 1e6, rounds);
	for (t = truth; t < truth + 8 && t->feature; t++) {
		const struct truth *u;
		uint64_t fns = 0;

		if (feature_seen(t))
			continue;
		for (u = t; u < truth + 8 && u->feature; u++)
			if (u->feature == t->feature)
				fns += u->ns;
		printf("; %s %.1f%% (%.0f ms", t->feature, 100.0 * fns / total, fns / 1e6);
		for (u = t; u < truth + 8 && u->feature; u++)
			if (u->feature == t->feature)
				printf(", %s %.1f%%", u->instance, 100.0 * u->ns / total);
		printf(")");
		sum += fns;
	}
	printf("; no feature %.1f%% (of which user code under the contract's antimark %.1f%%)\n",
	       100.0 * (total > sum ? total - sum : 0) / total, 100.0 * antimarked_ns / total);
	return 0;
}
