// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * native_views - the CPU time of the views of a profile with native stacks
 * (docs/benchmarks.md, "Views of native stacks"):
 *
 *   native_views [SAMPLES [DISTINCT]]
 *
 * builds, in memory, a profile of SAMPLES samples (1000000) in DISTINCT
 * distinct native samples (200000) of 8 threads: 1000 mark stacks over 10
 * features (every 7th nested in gc), 5000 locations in 3 modules (a kernel
 * one; a quarter with an inlined frame, every 13th without a symbol), 20000
 * native stacks of depth 10 to 39; then renders it as text, text with
 * --function, folded, pprof and HTML to /dev/null and prints the process CPU
 * time of each (not wall time: the machine may be shared).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "native.h"
#include "profile.h"
#include "report.h"
#include "report_html.h"

#define NR_LOCS 5000
#define NR_NSTACKS 20000

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void marks(struct profile *p)
{
	char feature[32], instance[32];
	struct profile_frame fr[2];
	int t, k;

	for (t = 0; t < 8; t++) {
		snprintf(feature, sizeof(feature), "worker%d", t);
		profile__add_thread(p, 100, 100 + t, feature);
	}
	for (k = 1; k <= 1000; k++) {
		snprintf(feature, sizeof(feature), "feature%d", k % 10);
		snprintf(instance, sizeof(instance), "file%d.c:%d", k % 37, k);
		fr[0] = (struct profile_frame){PROFILE_MARK, feature, instance, 0};
		fr[1] = (struct profile_frame){PROFILE_MARK, "gc", "major", 0};
		profile__add_stack(p, 100, k, fr, k % 7 ? 1 : 2);
	}
}

static void natives(struct profile *p)
{
	static const struct profile_module mods[] = {
		{PROFILE_MODULE_USER, "/usr/bin/app", "abcd"},
		{PROFILE_MODULE_USER, "/lib/x86_64-linux-gnu/libc.so.6", "ef01"},
		{PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL},
	};
	char inner[32], outer[32];
	struct profile_line lines[2];
	uint32_t locs[64];
	size_t i, k;

	for (i = 0; i < 3; i++)
		profile__add_module(p, &mods[i]);
	for (i = 0; i < NR_LOCS; i++) {
		struct profile_location loc = {
			.module = i % 10 ? (i % 3 ? 0 : 1) : 2,
			.address = 0x1000 + i * 16,
			.lines = lines,
			.nr_lines = i % 13 ? (i % 4 ? 1 : 2) : 0,
			.flags = PROFILE_LOC_DEBUGINFO,
		};

		snprintf(inner, sizeof(inner), "func_%zu", i % 3000);
		snprintf(outer, sizeof(outer), "outer_%zu", i % 2000);
		lines[0] = (struct profile_line){inner, "src/a.c", (uint32_t)i};
		lines[1] = (struct profile_line){outer, "src/b.c", (uint32_t)i + 1};
		profile__add_location(p, &loc);
	}
	for (i = 0; i < NR_NSTACKS; i++) {
		struct profile_native_stack st = {
			.locs = locs, .depth = 10 + next() % 30, .method = PROFILE_UNWIND_DWARF};

		for (k = 0; k < st.depth; k++)
			locs[k] = (uint32_t)(next() % NR_LOCS);
		profile__add_native_stack(p, &st);
	}
}

int main(int argc, char **argv)
{
	uint64_t samples = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint64_t distinct = argc > 2 ? strtoull(argv[2], NULL, 10) : 200000, per, i;
	struct profile_meta m = {.target = "native_views", .frequency_hz = 999, .duration_s = 500};
	struct report_opts o = {.min_pct = 0.5};
	struct profile *p = profile__new();
	FILE *null = fopen("/dev/null", "w");
	double t;

	if (!p || !null || !distinct || distinct > samples) {
		fprintf(stderr, "usage: native_views [SAMPLES [DISTINCT <= SAMPLES]]\n");
		return 2;
	}
	profile__set_meta(p, &m);
	marks(p);
	natives(p);
	per = samples / distinct;
	for (i = 0; i < distinct; i++) {
		uint32_t tid = 100 + (uint32_t)(next() % 8);
		uint64_t key = 1 + next() % 1000, n = per + (i < samples % distinct);

		profile__add_samples(p, 100, tid, key, n);
		profile__add_native_samples(p, 100, tid, key, next() % NR_NSTACKS, n);
	}
	printf("%" PRIu64 " samples, %zu native samples, %zu native stacks\n",
	       profile__total_samples(p), profile__nr_native_samples(p),
	       profile__nr_native_stacks(p));
	t = cpu_s();
	report__text(null, p, NULL, &o);
	printf("text            %.3f s\n", cpu_s() - t);
	o.function = "func_7";
	t = cpu_s();
	report__text(null, p, NULL, &o);
	printf("text --function %.3f s\n", cpu_s() - t);
	o.function = NULL;
	t = cpu_s();
	report__folded(null, p, &o);
	printf("folded          %.3f s\n", cpu_s() - t);
	t = cpu_s();
	report__pprof(null, p, &o);
	printf("pprof           %.3f s\n", cpu_s() - t);
	t = cpu_s();
	report__html(null, p, &o, NULL);
	printf("html            %.3f s\n", cpu_s() - t);
	profile__free(p);
	fclose(null);
	return 0;
}
