// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The text report: header, features and their instances, the note, diagnostics. */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>

#include "report.h"
#include "report_util.h"

struct text_ctx {
	FILE *out;
	const struct profile *p;
	const struct attrib *a;
	double min_pct;
	uint64_t period; /* ns per sample */
	uint64_t total; /* the denominator: the attribution's samples */
};

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void text_header(struct text_ctx *c)
{
	const struct profile_meta *m = profile__meta(c->p);
	uint64_t samples = profile__total_samples(c->p);
	size_t nr_pids = profile__nr_pids(c->p), nr_threads = profile__nr_threads(c->p);

	fprintf(c->out, "fsp-bpf %s: feature profile of %s\n",
		m->tool_version ? m->tool_version : FSP_VERSION,
		m->target ? m->target : "an unnamed target");
	fprintf(c->out,
		"  %.2f s, %" PRIu64 " Hz (%.3f ms per sample), %" PRIu64
		" %s = %.1f ms on CPU, %zu %s, %zu %s\n",
		m->duration_s, m->frequency_hz, (double)c->period / 1e6, samples,
		plural(samples, "sample", "samples"), report_ms(samples, c->period), nr_pids,
		plural(nr_pids, "process", "processes"), nr_threads,
		plural(nr_threads, "thread", "threads"));
	if (c->total != samples)
		fprintf(c->out, "  selection: %" PRIu64 " of these %" PRIu64 " samples (%.1f ms)\n",
			c->total, samples, report_ms(c->total, c->period));
}

static bool text_shown(const struct text_ctx *c, uint64_t samples)
{
	return report_pct(samples, c->total) >= c->min_pct;
}

static void text_feature(struct text_ctx *c, const struct attrib_feature *f)
{
	uint64_t folded_samples = 0;
	size_t i, shown = 0;

	fprintf(c->out, "%s accounts for %.2f%% of running time (%.1f / %.1f ms, %" PRIu64 " %s)\n",
		f->name, report_pct(f->samples, c->total), report_ms(f->samples, c->period),
		report_ms(c->total, c->period), f->samples,
		plural(f->samples, "sample", "samples"));
	for (i = 0; i < f->nr_instances; i++) {
		const struct attrib_instance *in = &f->instances[i];

		if (!text_shown(c, in->samples)) {
			folded_samples += in->samples;
			continue;
		}
		fprintf(c->out, "%10.1f ms %6.2f%%  %s\n", report_ms(in->samples, c->period),
			report_pct(in->samples, c->total), in->name);
		shown++;
	}
	if (shown < f->nr_instances)
		fprintf(c->out, "      ... %zu %s%s below %.2f%% (%.1f ms)\n",
			f->nr_instances - shown, shown ? "more " : "",
			plural(f->nr_instances - shown, "instance", "instances"), c->min_pct,
			report_ms(folded_samples, c->period));
}

static void text_features(struct text_ctx *c)
{
	size_t i, n = attrib__nr_features(c->a), shown = 0;
	const struct attrib_feature *f;

	fputc('\n', c->out);
	if (!profile__total_samples(c->p)) {
		fputs("no samples were taken of the target (was it running on a CPU?)\n", c->out);
		return;
	}
	if (!c->total) {
		fputs("no samples were taken of the selected process or thread\n", c->out);
		return;
	}
	if (!n) {
		fprintf(c->out,
			"no feature was charged: none of the %" PRIu64 " %s had a live mark\n",
			c->total, plural(c->total, "sample", "samples"));
		return;
	}
	for (i = 0; i < n; i++) {
		f = attrib__feature(c->a, i);
		if (!text_shown(c, f->samples))
			continue;
		text_feature(c, f);
		shown++;
	}
	if (shown < n)
		fprintf(c->out, "... %zu %s%s below %.2f%% of running time\n", n - shown,
			shown ? "more " : "", plural(n - shown, "feature", "features"), c->min_pct);
	fprintf(c->out,
		"\nNote: each sample is charged to every feature with a live mark in its thread, "
		"so the shares above\nmay sum to more than 100%%, and samples in no feature "
		"(here %.2f%%) make them sum to less.\n",
		report_pct(attrib__uncharged_samples(c->a), c->total));
}

static void text_diagnostics(struct text_ctx *c)
{
	bool any = false;
	uint64_t v;
	int d;

	for (d = 0; d < DIAG__COUNT; d++)
		any |= profile__diag(c->p, d) != 0;
	if (!any) {
		fputs("\nDiagnostics: all counters are zero (no samples lost, no unknown stacks, "
		      "no unmatched leaves, no overflows, no stale marks, no errors)\n",
		      c->out);
		return;
	}
	fputs("\nDiagnostics:\n", c->out);
	for (d = 0; d < DIAG__COUNT; d++) {
		v = profile__diag(c->p, d);
		if (v)
			fprintf(c->out, "  %s: %" PRIu64 " (%s)\n", profile_diag__name(d), v,
				profile_diag__describe(d));
	}
}

int report__text(FILE *out, const struct profile *p, const struct attrib *a,
		 const struct report_opts *opts)
{
	struct attrib *own = NULL;
	locale_t c_loc, old_loc;
	struct text_ctx c = {};
	int err = 0;

	if (!out || !p)
		return -EINVAL;
	if (!a) {
		own = attrib__compute(p, NULL);
		if (!own)
			return -ENOMEM;
		a = own;
	}
	/* Stable output: '.' as the decimal point whatever LC_NUMERIC says. */
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c_loc) {
		err = -ENOMEM;
		goto cleanup;
	}
	old_loc = uselocale(c_loc);

	c.out = out;
	c.p = p;
	c.a = a;
	c.min_pct = opts && opts->min_pct > 0 ? opts->min_pct : 0;
	c.period = report_period_ns(profile__meta(p));
	c.total = attrib__total_samples(a);
	errno = 0;
	text_header(&c);
	text_features(&c);
	text_diagnostics(&c);

	uselocale(old_loc);
	freelocale(c_loc);
	if (fflush(out) || ferror(out))
		err = errno ? -errno : -EIO;
cleanup:
	attrib__free(own);
	return err;
}
