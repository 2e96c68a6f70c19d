// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gen_profile: synthetic profile files for the profile-file benchmarks
 * (bench/files.sh), built through the analysis API and saved with
 * profile__save; and the load / attribute / write driver that times them.
 *
 *   gen_profile [-n SAMPLES] [-k STACKS] [-t THREADS] [-s SEED] -o FILE
 *	One process with THREADS threads; STACKS distinct mark stacks of depth
 *	1..8 over 50 features with up to 64 instances each; sample counts that
 *	add up to exactly SAMPLES, every stack sampled at least once when
 *	SAMPLES allows (a quarter of them on a second thread too), plus each
 *	thread's empty-stack samples. The same options give the same file.
 *
 *   gen_profile -P ...
 *	The same, with the stacks of the three built-in plug-ins' features
 *	(docs/plugins.md) instead: a task ancestry ("task", payload the task
 *	id, over a tree of 10,000 tasks), then a check at a boundary
 *	("contract", "cN->cM:check") and attempts of ordered choices
 *	("choice", payload branch << 48 | offset), for bench/files.sh's
 *	plug-in runs.
 *
 *   gen_profile -N ...
 *	The same, with native stacks (record --stacks): 12 modules (the
 *	kernel among them), 4,000 functions, 30,000 locations (a fifth with
 *	an inlined function, a tenth not symbolized), NSTACKS (-K, default
 *	100,000) distinct native stacks of 4 to 48 frames (a tenth with 1-6
 *	kernel frames on top, a tenth by frame pointers, one in twenty
 *	truncated), leaves skewed towards a few hot functions; each sample
 *	entry's count spread over 1 to 4 native stacks, 2% of its samples
 *	left without one (failed unwinds), for bench/files.sh's native run.
 *
 *   gen_profile -f ...
 *	The same, with a feature per stack ("feature N", instance "call", one
 *	frame): STACKS features, for bench/files.sh's diff of 10^6 features.
 *
 *   gen_profile -l FILE [-o OUT]
 *	Loads FILE, attributes it and writes it to OUT (default /dev/null),
 *	printing the time of each step and the peak RSS.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "attrib.h"
#include "native.h"
#include "profile.h"
#include "profile_io.h"

#define NR_FEATURES 50
#define MAX_INSTANCES 64
#define MAX_DEPTH 8
#define PID 4242

static const char *const feature_names[10] = {
	"Output",
	"Contracts",
	"Generic sequences",
	"Keyword arguments",
	"Regex",
	"Parser backtracking",
	"SQL planning",
	"GC",
	"Dynamic dispatch",
	"Marshalling",
};

static uint64_t rng_state;

/* splitmix64: deterministic for a seed, good enough for synthetic data */
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t n)
{
	return n ? rng() % n : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

struct labels {
	char feature[NR_FEATURES][48];
	int nr_instances[NR_FEATURES];
	char instance[NR_FEATURES][MAX_INSTANCES][48];
};

static void make_labels(struct labels *l)
{
	int f, i;

	for (f = 0; f < NR_FEATURES; f++) {
		snprintf(l->feature[f], sizeof(l->feature[f]), "%s%s%d", feature_names[f % 10],
			 f < 10 ? "" : " #", f / 10);
		if (f < 10)
			l->feature[f][strlen(feature_names[f])] = 0;
		l->nr_instances[f] = 1 + (int)rng_below(MAX_INSTANCES);
		for (i = 0; i < l->nr_instances[f]; i++)
			snprintf(l->instance[f][i], sizeof(l->instance[f][i]), "src/mod%02d.c:%d",
				 f, 100 + i * 7);
	}
}

/* ---- -P: the plug-ins' features ---- */

#define NR_TASKS 10000
#define NR_COMPONENTS 20
#define NR_CHECKS 5
#define NR_CHOICES 30

struct plugin_labels {
	char task_kind[8][16];
	char boundary[NR_COMPONENTS][NR_COMPONENTS][NR_CHECKS][48];
	char choice[NR_CHOICES][24];
};

static bool plugin_mode;
/* -f: a feature of its own per stack */
static bool wide_mode;
static struct plugin_labels *plabels;

static void make_plugin_labels(struct plugin_labels *l)
{
	static const char *const checks[NR_CHECKS] = {"finite", "sorted", "range", "nonnull",
						      "dims"};

	for (int k = 0; k < 8; k++)
		snprintf(l->task_kind[k], sizeof(l->task_kind[k]), "kind%d", k);
	for (int a = 0; a < NR_COMPONENTS; a++)
		for (int b = 0; b < NR_COMPONENTS; b++)
			for (int c = 0; c < NR_CHECKS; c++)
				snprintf(l->boundary[a][b][c], sizeof(l->boundary[a][b][c]),
					 "comp%d->comp%d:%s", a, b, checks[c]);
	for (int c = 0; c < NR_CHOICES; c++)
		snprintf(l->choice[c], sizeof(l->choice[c]), "rule%d", c);
}

/* A stack of the plug-ins' features into frames (room for MAX_DEPTH):
 * task i's ancestry (parent of i: i / 10, so at most 4 deep), then a check
 * half the time, then up to MAX_DEPTH - depth attempts of choices. */
static size_t plugin_stack(struct profile_frame *frames)
{
	uint64_t chain[8], t = rng_below(NR_TASKS);
	size_t n = 0, depth = 0, choices;

	for (; n < 4; t /= 10) {
		chain[n++] = t;
		if (!t)
			break;
	}
	while (n--)
		frames[depth++] = (struct profile_frame){
			PROFILE_MARK, "task", plabels->task_kind[chain[n] % 8], chain[n] + 1};
	if (rng_below(2)) {
		int a = (int)rng_below(NR_COMPONENTS), b = (int)rng_below(NR_COMPONENTS);

		frames[depth++] = (struct profile_frame){
			PROFILE_MARK, "contract", plabels->boundary[a][b][rng_below(NR_CHECKS)], 0};
	}
	choices = rng_below(MAX_DEPTH - depth + 1);
	while (choices--)
		frames[depth++] = (struct profile_frame){PROFILE_MARK, "choice",
							 plabels->choice[rng_below(NR_CHOICES)],
							 rng_below(4) << 48 | rng_below(1000000)};
	return depth;
}

/* ---- -N: native stacks ---- */

#define NR_MODULES 12
#define NR_FUNCS 4000
#define NR_LOCS 30000
#define MAX_NDEPTH 48

static bool native_mode;
static uint64_t nr_native_stacks = 100000;

static const char *const module_paths[NR_MODULES] = {
	"/usr/bin/app",
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
	"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
	"/usr/lib/x86_64-linux-gnu/libssl.so.3",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
	"/usr/lib/x86_64-linux-gnu/libpq.so.5.15",
	"/usr/lib/x86_64-linux-gnu/libxml2.so.2.9.14",
	"/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0",
	"[kernel.kallsyms]",
};

/* A number in [0, n) skewed towards 0: a few hot, a long tail. */
static uint64_t rng_skewed(uint64_t n)
{
	return n ? rng_below(1 + rng_below(1 + rng_below(n))) : 0;
}

static int add_native_code(struct profile *p)
{
	char fn[64], inl[64], file[64], bid[41];
	struct profile_line lines[2];
	struct profile_location loc;
	struct profile_module m;
	int f;

	for (int i = 0; i < NR_MODULES; i++) {
		m.kind = i == NR_MODULES - 1 ? PROFILE_MODULE_KERNEL : PROFILE_MODULE_USER;
		m.path = module_paths[i];
		snprintf(bid, sizeof(bid), "%016" PRIx64 "%016" PRIx64 "%08x", rng(), rng(),
			 (unsigned int)i);
		m.build_id = m.kind == PROFILE_MODULE_USER ? bid : NULL;
		if (profile__add_module(p, &m) != i)
			return -1;
	}
	for (int i = 0; i < NR_LOCS; i++) {
		/* function f lives in module f % NR_MODULES; kernel ones last */
		f = (int)(i < NR_LOCS - 2000 ? rng_below(NR_FUNCS)
					     : rng_below(NR_FUNCS / 12) * 12 + 11);
		snprintf(fn, sizeof(fn), "%s_fn_%04d", f % 12 == 11 ? "k" : "u", f);
		snprintf(inl, sizeof(inl), "inline_helper_%03d", (int)rng_below(500));
		snprintf(file, sizeof(file), "/build/src/mod%02d/file%03d.c", f % 12, f % 300);
		loc = (struct profile_location){.module = (uint32_t)(f % NR_MODULES),
						.address = 0x1000 + (uint64_t)i * 0x40,
						.lines = lines,
						.nr_lines = 1};
		lines[0] = (struct profile_line){fn, file, 10 + (uint32_t)rng_below(2000)};
		if (rng_below(5) == 0) {
			lines[1] = lines[0];
			lines[0] = (struct profile_line){inl, file, 5 + (uint32_t)rng_below(100)};
			loc.nr_lines = 2;
		}
		loc.flags = PROFILE_LOC_DEBUGINFO;
		if (rng_below(10) == 0) {
			loc.nr_lines = 0;
			loc.flags = 0;
		}
		if (profile__add_location(p, &loc) != i)
			return -1;
	}
	return 0;
}

/* nr_native_stacks distinct native stacks; locations 0..NR_LOCS-2001 are
 * user code, the last 2000 kernel code. */
static int add_native_stacks(struct profile *p)
{
	uint32_t locs[MAX_NDEPTH];
	struct profile_native_stack s = {.locs = locs};
	uint64_t user = NR_LOCS - 2000;
	int r;

	for (uint64_t i = 0; i < nr_native_stacks; i++) {
		do {
			s.depth = 4 + (size_t)rng_below(MAX_NDEPTH - 3);
			s.nr_kernel =
				rng_below(10)
					? 0
					: 1 + (size_t)rng_below(s.depth < 7 ? s.depth - 1 : 6);
			for (size_t d = 0; d < s.depth; d++) {
				if (d < s.nr_kernel)
					locs[d] = (uint32_t)(user + rng_below(2000));
				else if (d == s.nr_kernel)
					locs[d] = (uint32_t)rng_skewed(user);
				else
					locs[d] = (uint32_t)rng_below(user);
			}
			s.method = rng_below(10) ? PROFILE_UNWIND_DWARF : PROFILE_UNWIND_FP;
			s.flags = rng_below(20) ? 0 : PROFILE_NATIVE_TRUNCATED;
			r = profile__add_native_stack(p, &s);
		} while (r >= 0 && (uint64_t)r != i); /* a repeat: draw again */
		if (r < 0)
			return -1;
	}
	return 0;
}

/* count samples of (tid, key) over 1 to 4 native stacks, 2% without one. */
static int add_native_samples(struct profile *p, uint32_t tid, uint64_t key, uint64_t count)
{
	uint64_t left = count - count / 50, k = 1 + rng_below(4), c;

	for (; left && k; k--) {
		c = k == 1 ? left : 1 + rng_below(left);
		if (profile__add_native_samples(p, PID, tid, key,
						(size_t)rng_below(nr_native_stacks), c))
			return -1;
		left -= c;
	}
	return 0;
}

struct entry {
	uint32_t tid;
	uint64_t key;
	uint64_t count;
};

static int generate(uint64_t samples, uint64_t stacks, uint32_t threads, uint64_t seed,
		    const char *out)
{
	struct profile_meta meta = {
		.target = "gen_profile (synthetic)",
		.command_line = "gen_profile",
		.host = "bench",
		.kernel = "synthetic",
		.tool_version = FSP_VERSION,
		.frequency_hz = 1000,
		.period_ns = 1000000,
		.start_time = 1700000000.0,
	};
	struct profile_frame frames[MAX_DEPTH];
	char wide_name[32];
	struct labels *l = calloc(1, sizeof(*l));
	struct entry *e = NULL;
	struct profile *p = profile__new();
	uint64_t i, nr, rem, total = 0, *w = NULL, wsum = 0;
	char err[512], comm[16];
	double t0 = now(), t1;
	int ret = 1, r;

	rng_state = seed;
	if (!l || !p || (plugin_mode && !(plabels = calloc(1, sizeof(*plabels)))))
		goto nomem;
	make_labels(l);
	if (plugin_mode)
		make_plugin_labels(plabels);
	meta.end_time = meta.start_time + (double)samples / 1000.0 / threads;
	meta.duration_s = meta.end_time - meta.start_time;
	if (profile__set_meta(p, &meta) || profile__add_pid(p, PID))
		goto nomem;
	for (i = 0; i < threads; i++) {
		snprintf(comm, sizeof(comm), "worker-%u", (unsigned int)(i % 1000000));
		if (profile__add_thread(p, PID, PID + (uint32_t)i, comm))
			goto nomem;
	}

	/* the stacks: random frames, the top one's payload makes each distinct */
	for (i = 0; i < stacks; i++) {
		size_t depth = 1 + (size_t)rng_below(MAX_DEPTH), d;
		uint64_t key;

		if (plugin_mode) {
			depth = plugin_stack(frames);
			goto add;
		}
		if (wide_mode) {
			snprintf(wide_name, sizeof(wide_name), "feature %" PRIu64, i);
			frames[0] = (struct profile_frame){
				.kind = PROFILE_MARK, .feature = wide_name, .instance = "call"};
			depth = 1;
			goto add;
		}
		for (d = 0; d < depth; d++) {
			int f = (int)rng_below(NR_FEATURES);

			frames[d].feature = l->feature[f];
			if (d && rng_below(10) == 0) { /* an antimark of a feature below */
				frames[d].kind = PROFILE_ANTIMARK;
				frames[d].feature = frames[rng_below(d)].feature;
				frames[d].instance = NULL;
				frames[d].payload = 0;
			} else {
				frames[d].kind = PROFILE_MARK;
				frames[d].instance = l->instance[f][rng_below(l->nr_instances[f])];
				frames[d].payload = 0;
			}
		}
		frames[depth - 1].payload = i;
	add:
		do
			key = rng();
		while (!key || (r = profile__add_stack(p, PID, key, frames, depth)) == -EEXIST);
		if (r)
			goto nomem;
	}

	/* the sample entries: each stack once, a quarter twice, each thread's empty stack */
	nr = stacks + stacks / 4 + threads;
	if (nr > samples)
		nr = samples;
	e = calloc(nr ? nr : 1, sizeof(*e));
	w = calloc(nr ? nr : 1, sizeof(*w));
	if (!e || !w)
		goto nomem;
	for (i = 0; i < nr; i++) {
		struct profile_stack st;
		uint64_t s = i < stacks ? i : rng_below(stacks);

		e[i].tid = PID + (uint32_t)rng_below(threads);
		if (i >= stacks + stacks / 4 || !stacks) {
			e[i].tid = PID + (uint32_t)((i - stacks - stacks / 4) % threads);
			e[i].key = 0;
		} else if (!profile__stack(p, s, &st)) {
			e[i].key = st.key;
		}
		/* skewed weights: a few hot stacks, a long tail */
		w[i] = 1 + rng_below(1000) * rng_below(1000) * rng_below(1000) / 1000000;
		wsum += w[i];
	}
	/* every entry 1, the rest in proportion to the weights, rounding to the first */
	rem = samples - nr;
	for (i = 0; i < nr; i++) {
		e[i].count = 1 + (uint64_t)((double)rem * (double)w[i] / (double)wsum);
		total += e[i].count;
	}
	if (nr)
		e[0].count += samples - total;
	for (i = 0; i < nr; i++) {
		r = profile__add_samples(p, PID, e[i].tid, e[i].key, e[i].count);
		if (r)
			goto nomem;
	}
	if (native_mode && nr_native_stacks && (add_native_code(p) || add_native_stacks(p)))
		goto nomem;
	for (i = 0; native_mode && nr_native_stacks && i < nr; i++)
		if (add_native_samples(p, e[i].tid, e[i].key, e[i].count))
			goto nomem;
	t1 = now();
	if (profile__save(out, p, err, sizeof(err))) {
		fprintf(stderr, "gen_profile: %s\n", err);
		goto cleanup;
	}
	fprintf(stderr,
		"gen_profile: %s: %" PRIu64 " samples, %zu stacks, %zu sample entries, %u threads, "
		"%zu native stacks, %zu native sample entries; "
		"built in %.3f s, saved in %.3f s, peak RSS %ld MB\n",
		out, profile__total_samples(p), profile__nr_stacks(p), profile__nr_samples(p),
		threads, profile__nr_native_stacks(p), profile__nr_native_samples(p), t1 - t0,
		now() - t1, peak_rss_kb() / 1024);
	ret = 0;
	goto cleanup;
nomem:
	fprintf(stderr, "gen_profile: out of memory\n");
cleanup:
	free(w);
	free(e);
	free(l);
	free(plabels);
	profile__free(p);
	return ret;
}

static int load(const char *in, const char *out)
{
	struct profile *p = NULL;
	struct attrib *a = NULL;
	double t0 = now(), t1, t2, t3;
	char err[512];
	int ret = 1;

	p = profile__load(in, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "gen_profile: %s\n", err);
		return 1;
	}
	t1 = now();
	a = attrib__compute(p, NULL);
	if (!a) {
		fprintf(stderr, "gen_profile: out of memory\n");
		goto cleanup;
	}
	t2 = now();
	if (profile__save(out, p, err, sizeof(err))) {
		fprintf(stderr, "gen_profile: %s\n", err);
		goto cleanup;
	}
	t3 = now();
	printf("%s: %" PRIu64 " samples, %zu stacks, %zu sample entries, %zu threads, "
	       "%zu features, %zu native stacks, %zu native sample entries\n"
	       "load %.3f s, attribute %.3f s, write %.3f s, total %.3f s, peak RSS %ld MB\n",
	       in, profile__total_samples(p), profile__nr_stacks(p), profile__nr_samples(p),
	       profile__nr_threads(p), attrib__nr_features(a), profile__nr_native_stacks(p),
	       profile__nr_native_samples(p), t1 - t0, t2 - t1, t3 - t2, t3 - t0,
	       peak_rss_kb() / 1024);
	ret = 0;
cleanup:
	attrib__free(a);
	profile__free(p);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gen_profile [-P | -f] [-N [-K NSTACKS]] [-n SAMPLES] [-k STACKS] [-t "
		   "THREADS] "
		   "[-s SEED] -o FILE\n"
		   "       gen_profile -l FILE [-o OUT]\n");
}

static int number(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *out > max) {
		fprintf(stderr, "gen_profile: bad number '%s'\n", s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t samples = 1000000, stacks = 100000, threads = 64, seed = 1;
	const char *out = NULL, *in = NULL;
	int c;

	while ((c = getopt(argc, argv, "PfNK:n:k:t:s:o:l:h")) != -1) {
		switch (c) {
		case 'P':
			plugin_mode = true;
			break;
		case 'f':
			wide_mode = true;
			break;
		case 'N':
			native_mode = true;
			break;
		case 'K':
			if (number(optarg, UINT32_MAX, &nr_native_stacks))
				return 2;
			break;
		case 'n':
			if (number(optarg, UINT64_MAX, &samples))
				return 2;
			break;
		case 'k':
			if (number(optarg, UINT32_MAX, &stacks))
				return 2;
			break;
		case 't':
			if (number(optarg, 1000000, &threads) || !threads) {
				fprintf(stderr, "gen_profile: -t needs 1 to 1000000 threads\n");
				return 2;
			}
			break;
		case 's':
			if (number(optarg, UINT64_MAX, &seed))
				return 2;
			break;
		case 'o':
			out = optarg;
			break;
		case 'l':
			in = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (!in && !out)) {
		usage(stderr);
		return 2;
	}
	if (in)
		return load(in, out ? out : "/dev/null");
	return generate(samples, stacks, (uint32_t)threads, seed, out);
}
