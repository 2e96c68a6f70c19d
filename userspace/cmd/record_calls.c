// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --calls: which call of each feature every sample fell in
 * (analysis/model/calls.c), summarised after the report: per feature, the
 * calls its samples fell in and the slowest of them, with their durations:
 * exact where the leave measured them (--events), else estimated from each
 * call's first and last sample (marked ~).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "calls_view.h"
#include "record_calls.h"

#define SLOWEST 5 /* calls listed per feature */

struct by_feature {
	const char *feature;
	/* each kept call counted as the calls it stands for (the bound) */
	double calls, samples;
	const struct call_rec *slow[SLOWEST]; /* slowest first */
};

/* Keeps r among f's slowest (by duration). */
static void note_slow(struct by_feature *f, const struct call_rec *r, uint64_t period)
{
	uint64_t d = call_rec__duration_ns(r, period);
	int k = SLOWEST - 1;

	if (f->slow[k] && call_rec__duration_ns(f->slow[k], period) >= d)
		return;
	while (k > 0 && (!f->slow[k - 1] || call_rec__duration_ns(f->slow[k - 1], period) < d)) {
		f->slow[k] = f->slow[k - 1];
		k--;
	}
	f->slow[k] = r;
}

static struct by_feature *feature_of(struct by_feature **fs, size_t *nr, const char *name)
{
	struct by_feature *n;

	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*fs)[i].feature, name))
			return &(*fs)[i];
	n = realloc(*fs, (*nr + 1) * sizeof(*n));
	if (!n)
		return NULL;
	*fs = n;
	n[*nr] = (struct by_feature){.feature = name};
	return &n[(*nr)++];
}

static void print_feature(const struct by_feature *f, uint64_t period, FILE *out)
{
	fprintf(out, "  %s: %llu calls sampled (%llu samples); the longest:\n", f->feature,
		(unsigned long long)(f->calls + 0.5), (unsigned long long)(f->samples + 0.5));
	for (int k = 0; k < SLOWEST && f->slow[k]; k++) {
		const struct call_rec *r = f->slow[k];

		fprintf(out, "    %s%.3f ms  %s  thread %u call %llu  (%llu samples)\n",
			r->exact_ns ? "" : "~", call_rec__duration_ns(r, period) / 1e6, r->instance,
			r->tid, (unsigned long long)r->id, (unsigned long long)r->samples);
	}
}

int record_calls__report(const struct session *s, const struct profile *p, const char *selector,
			 const struct fsp_view *v, FILE *out)
{
	uint64_t period = profile_meta__period_ns(profile__meta(p));
	const struct calls *c = profile__calls(p);
	struct by_feature *fs = NULL;
	size_t nr = 0;
	int err = 0;

	(void)s;
	if (!c)
		return 0;
	if (selector) {
		struct callsel sel;

		err = callsel__parse(selector, &sel, NULL, 0);
		fputc('\n', out);
		fflush(out);
		return err ? err : calls_view__render(p, &sel, v, NULL);
	}

	for (size_t i = 0; !err && i < calls__nr(c); i++) {
		const struct call_rec *r = calls__get(c, i);
		struct by_feature *f = feature_of(&fs, &nr, r->feature);

		if (!f) {
			err = -ENOMEM;
			break;
		}
		f->calls += r->weight >= 1 ? r->weight : 1;
		f->samples += (double)r->samples * (r->weight >= 1 ? r->weight : 1);
		note_slow(f, r, period);
	}
	if (!err) {
		fprintf(out,
			"\nCalls (--calls): %zu of %zu durations exact (--events), the others "
			"(~) estimated from each call's first and last sample, plus one period "
			"(%.3f ms)\n",
			calls__nr_exact(c), calls__nr(c), period / 1e6);
		for (size_t i = 0; i < nr; i++)
			print_feature(&fs[i], period, out);
		if (!nr)
			fprintf(out, "  no sample fell in a call\n");
		if (calls__unknown(c))
			fprintf(out,
				"  %llu charged samples have no call number: calls are unknown for "
				"binaries built with an fsp.h before call numbers (and for ABI v1 "
				"marks of other threads)\n",
				(unsigned long long)calls__unknown(c));
		if (calls__dropped_calls(c))
			fprintf(out,
				"  bounded (--calls-keep): %llu ended calls dropped; per instance "
				"its slowest calls and a uniform sample of the others are kept\n",
				(unsigned long long)calls__dropped_calls(c));
		if (calls__dropped(c))
			fprintf(out,
				"  dropped: %llu samples whose call records were lost or whose "
				"calls the bound dropped\n",
				(unsigned long long)calls__dropped(c));
	}
	free(fs);
	return err;
}
