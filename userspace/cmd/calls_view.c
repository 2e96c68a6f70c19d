// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The slow-call view (issue 30): a profile's calls split by a selector
 * (analysis/model/callsel.c) into the selected calls' samples and the other
 * calls' of the same feature, each rendered as a whole report, then what the
 * selected calls do more: the diff of the two (analysis/model/diff.c) scaled
 * by their sample counts, so its rows are differences of shares, largest
 * first.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "calls_view.h"
#include "diff.h"
#include "formats.h"
#include "log.h"
#include "outfile.h"
#include "render.h"
#include "report.h"

static void describe(FILE *out, const struct callsel *sel, const struct callsel_info *in)
{
	fprintf(out,
		"Calls of %s%s%s selected: %llu of %llu (%llu samples; the other calls: %llu "
		"samples), durations %.3f to %.3f ms, %.3f ms in all",
		sel->feature, sel->has_instance ? ":" : "", sel->has_instance ? sel->instance : "",
		(unsigned long long)in->selected, (unsigned long long)in->calls,
		(unsigned long long)in->selected_samples, (unsigned long long)in->other_samples,
		in->min_ns / 1e6, in->max_ns / 1e6, in->sum_ns / 1e6);
	if (sel->op == CALLSEL_PCT)
		fprintf(out, " (p%g: %.3f ms and longer)", sel->pct, in->threshold_ns / 1e6);
	if (in->selected_offcpu_ns || in->other_offcpu_ns)
		fprintf(out, "; off CPU %.3f ms (the other calls: %.3f ms)",
			in->selected_offcpu_ns / 1e6, in->other_offcpu_ns / 1e6);
	if (in->exact == in->selected_kept)
		fprintf(out, ".\nDurations are exact (--events: measured by each call's leave).\n");
	else
		fprintf(out,
			".\nDurations: %llu of the selected exact (--events), the others estimated "
			"from each call's first and last sample plus one period (calls shorter "
			"than a "
			"few periods count about one period).\n",
			(unsigned long long)in->exact);
	if (in->dropped_calls)
		fprintf(out,
			"Bounded (--calls-keep): %llu calls of the profile were dropped; per "
			"instance its slowest calls are kept and a uniform sample of the others, "
			"each standing for several (%llu of the selected): calls and samples "
			"count them so.\n",
			(unsigned long long)in->dropped_calls, (unsigned long long)in->sampled);
}

/* The text view into out. */
static int text_view(FILE *out, const struct profile *s, const struct profile *o,
		     const struct callsel *sel, const struct callsel_info *in,
		     const struct fsp_view *v)
{
	struct diff_opts dopts = {.scale = 1};
	struct diff_report_opts ro = {.min_pct = v->ropts.min_pct};
	struct render_plugins rp = {0};
	struct diff *d;
	int err;

	describe(out, sel, in);
	fprintf(out, "\n=== The selected calls\n\n");
	err = v->format->render(out, s, v, &rp);
	fprintf(out, "\n=== The other calls of %s\n\n", sel->feature);
	if (!err)
		err = in->other_samples ? v->format->render(out, o, v, &rp) : 0;
	if (!in->other_samples)
		fprintf(out, "(none)\n");
	if (err || !in->selected_samples || !in->other_samples)
		return err;
	/* Scaled by the sample counts: a row's deviation is the difference of
	 * its shares, in the selected calls' time. */
	dopts.scale = (double)profile__total_samples(s) / (double)profile__total_samples(o);
	d = diff__compute(o, s, &dopts);
	if (!d)
		return -errno;
	fprintf(out,
		"\n=== What the selected calls do more than the others (BASE: the other calls, "
		"NEW: the selected, scaled to their samples; largest differences first)\n\n");
	err = diff__text(out, d, &ro);
	diff__free(d);
	return err;
}

/* ns as a selector's duration: the largest unit that divides it. */
static int dur_text(char *buf, size_t n, uint64_t ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}};
	size_t u = 0;

	while (ns && ns % units[u].ns)
		u++;
	return snprintf(buf, n, "%llu%s", (unsigned long long)(ns / units[u].ns),
			ns ? units[u].unit : "ns");
}

/* sel as a selector again (report --calls's grammar), into buf. */
static void selector_text(const struct callsel *sel, char *buf, size_t n)
{
	static const char *const ops[] = {
		[CALLSEL_GE] = ">=", [CALLSEL_GT] = ">", [CALLSEL_LE] = "<=", [CALLSEL_LT] = "<"};
	size_t k = (size_t)snprintf(buf, n, "%s%s%s", sel->feature, sel->has_instance ? ":" : "",
				    sel->has_instance ? sel->instance : "");

	if (sel->op == CALLSEL_PCT) {
		if (k < n)
			snprintf(buf + k, n - k, " p%g", sel->pct);
		return;
	}
	if (k < n)
		k += (size_t)snprintf(buf + k, n - k, "%s", ops[sel->op]);
	if (k < n)
		k += (size_t)dur_text(buf + k, n - k, sel->ns);
	if (sel->op2 && k < n)
		k += (size_t)snprintf(buf + k, n - k, "%s", ops[sel->op2]);
	if (sel->op2 && k < n)
		dur_text(buf + k, n - k, sel->ns2);
}

/* The HTML page of the whole profile p, opened at the selection sel (its
 * Calls tab can select others). */
static int html_view(const struct profile *p, const struct callsel *sel, const struct fsp_view *v,
		     const char *path)
{
	char text[2 * CALLSEL_NAME_LEN + 64];
	struct fsp_view hv = *v;

	selector_text(sel, text, sizeof(text));
	hv.call_selection = text;
	return render__profile(p, &hv, path);
}

int calls_view__render(const struct profile *p, const struct callsel *sel, const struct fsp_view *v,
		       const char *path)
{
	struct profile *s = NULL, *o = NULL;
	struct callsel_info in;
	struct outfile *f = NULL;
	int err = callsel__split(p, sel, &s, &o, &in);

	if (err == -ENODATA)
		log__err("--calls: this profile has no calls: record it with --calls");
	else if (err == -ENOENT)
		log__err("--calls: no call of %s%s%s in this profile (the text report lists the "
			 "features)",
			 sel->feature, sel->has_instance ? ":" : "",
			 sel->has_instance ? sel->instance : "");
	else if (err)
		log__err("--calls: %s", strerror(-err));
	if (err)
		return err;
	if (strcmp(v->format->name, "text")) {
		/* The other formats: the selected calls' samples alone. */
		log__info("--calls: %s%s, of %llu of %llu calls of %s (%llu samples)",
			  v->format->title,
			  strcmp(v->format->name, "html")
				  ? ""
				  : " of the whole profile opened at the selection",
			  (unsigned long long)in.selected, (unsigned long long)in.calls,
			  sel->feature, (unsigned long long)in.selected_samples);
		err = strcmp(v->format->name, "html") ? render__profile(s, v, path)
						      : html_view(p, sel, v, path);
		goto cleanup;
	}
	f = outfile__open(path, &err);
	if (!f) {
		log__err("cannot write %s: %s", path, outfile__strerror(err));
		goto cleanup;
	}
	err = text_view(outfile__stream(f), s, o, sel, &in, v);
	if (!err)
		err = outfile__commit(f);
	if (err)
		log__err("cannot write the calls view: %s", strerror(-err));
cleanup:
	outfile__free(f);
	profile__free(s);
	profile__free(o);
	return err;
}
