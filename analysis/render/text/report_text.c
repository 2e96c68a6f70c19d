// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report: header, features and their instances (or one section per
 * thread or process, each with its own features), the note, the wall-clock
 * view, diagnostics. When the profile has them, feature and instance lines
 * carry the event view (calls, time per call, max) and off-CPU time, and
 * --feature shows each instance's latency histogram (docs/output-formats.md).
 *
 * This file: the entry point, the header, the notes and messages about what
 * is (not) shown, the diagnostics; report_text.h names the others.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "output.h"
#include "report_text.h"

/* "events: N calls counted by the probes, M returned[, P point events]"
 * over the profile. */
static void text_header_events(struct text_ctx *c)
{
	uint64_t enters = 0, leaves = 0, points = 0;
	struct profile_event ev;
	size_t i;

	for (i = 0; i < profile__nr_events(c->p); i++) {
		if (profile__event(c->p, i, &ev))
			continue;
		if (ev.stats->point) {
			points = fsp_sat_add(points, ev.stats->enters);
			continue;
		}
		enters = fsp_sat_add(enters, ev.stats->enters);
		leaves = fsp_sat_add(leaves, ev.stats->leaves);
	}
	fprintf(c->out, "  events: %" PRIu64 " %s counted by the probes, %" PRIu64 " returned",
		enters, plural(enters, "call", "calls"), leaves);
	if (points)
		fprintf(c->out, ", %" PRIu64 " point %s", points,
			plural(points, "event", "events"));
	fputc('\n', c->out);
}

/* "filter: comm X and pid Y: N of M processes, S of T samples (P%); shares
 * are of their time": what the process filter kept, of the whole profile. */
static void text_filter(struct text_ctx *c)
{
	const struct report_opts *o = c->opts;
	size_t kept = profile__nr_pids(c->p), all = profile__nr_pids(c->whole);
	uint64_t ks = profile__total_samples(c->p), ws = profile__total_samples(c->whole);

	fputs("  filter:", c->out);
	if (o->comm) {
		fputs(" comm ", c->out);
		escape__fputs(o->comm, c->out);
	}
	if (o->pid) {
		fprintf(c->out, "%s pid ", o->comm ? " and" : "");
		escape__fputs(o->pid, c->out);
	}
	fprintf(c->out, ": %zu of %zu %s, %" PRIu64 " of %" PRIu64 " %s (%.2f%%)", kept, all,
		plural(all, "process", "processes"), ks, ws, plural(ws, "sample", "samples"),
		report_pct(ks, ws));
	if (kept)
		fprintf(c->out, "; shares are of %s time", kept == 1 ? "its" : "their");
	fputc('\n', c->out);
}

/* The marks the session read and what they cost the program, in words. */
static void text_marks(struct text_ctx *c, const char *marks)
{
	static const struct {
		const char *token;
		const char *words;
	} kinds[] = {
		{"v2", "probe ABI v2 (stacks in the process's memory, no traps)"},
		{"v1", "probe ABI v1 (a uprobe trap per mark)"},
		{"v2-events", "ABI v2 marks also trapped for exact counts (--events)"},
		{"mapped", "probe maps (a uprobe trap per probe)"},
	};
	const char *sep = "";

	fputs("  marks: ", c->out);
	for (const char *s = marks; *s;) {
		size_t len = strcspn(s, ",");
		size_t k = 0;

		while (k < sizeof(kinds) / sizeof(kinds[0]) &&
		       (strlen(kinds[k].token) != len || strncmp(kinds[k].token, s, len)))
			k++;
		if (k < sizeof(kinds) / sizeof(kinds[0]))
			fprintf(c->out, "%s%s", sep, kinds[k].words);
		else
			fprintf(c->out, "%s%.*s", sep, (int)len, s);
		sep = "; ";
		s += len + (s[len] == ',');
	}
	fputc('\n', c->out);
}

static void text_header(struct text_ctx *c)
{
	const struct profile_meta *m = profile__meta(c->p);
	uint64_t samples = profile__total_samples(c->p);
	size_t nr_pids = profile__nr_pids(c->p), nr_threads = profile__nr_threads(c->p);

	/* Both come from the profile: a file is anyone's text. */
	fputs("fsp-bpf ", c->out);
	escape__fputs(m->tool_version ? m->tool_version : FSP_VERSION, c->out);
	fputs(": feature profile of ", c->out);
	escape__fputs(m->target ? m->target : "an unnamed target", c->out);
	fputc('\n', c->out);
	if (c->whole)
		text_filter(c);
	fprintf(c->out,
		"  %.2f s, %" PRIu64 " Hz (%.3f ms per sample), %" PRIu64
		" %s = %.1f ms on CPU, %zu %s, %zu %s\n",
		m->duration_s, m->frequency_hz, (double)c->period / 1e6, samples,
		plural(samples, "sample", "samples"), report_ms(samples, c->period), nr_pids,
		plural(nr_pids, "process", "processes"), nr_threads,
		plural(nr_threads, "thread", "threads"));
	if (m->marks && *m->marks)
		text_marks(c, m->marks);
	if (c->offcpu)
		fprintf(c->out,
			"  off CPU: %.1f ms (blocked, sleeping or waiting for a CPU); %.1f ms on + "
			"off CPU\n",
			ms_of_ns(profile__total_offcpu_ns(c->p)),
			ms_of_ns(report_charged_ns(samples, profile__total_offcpu_ns(c->p),
						   c->period)));
	if (c->events)
		text_header_events(c);
	if (c->total != samples) {
		fprintf(c->out, "  selection: %" PRIu64 " of these %" PRIu64 " samples (%.1f ms)",
			c->total, samples, report_ms(c->total, c->period));
		if (c->offcpu)
			fprintf(c->out, ", %.1f ms off CPU",
				ms_of_ns(attrib__total_offcpu_ns(c->a)));
		fputc('\n', c->out);
	}
}

/* The names of --feature that were (found) or were not charged, joined by
 * " or ". */
void text_names(struct text_ctx *c, bool found)
{
	size_t i, n = 0;

	for (i = 0; i < c->feat->nr; i++) {
		if ((report_find_feature(c->a, c->feat->names[i]) != NULL) != found)
			continue;
		fputs(n++ ? " or " : "", c->out);
		escape__fputs(c->feat->names[i], c->out);
	}
}

/* "no feature NAME [or NAME...] in this profile", and the features it has
 * instead. */
int text_missing(struct text_ctx *c)
{
	struct text_item *items;
	enum report_order saved = c->order;
	size_t i, n;

	if (c->feat->nr) {
		fputs("no feature ", c->out);
		text_names(c, false);
		fputs(" in this profile\n", c->out);
	} else {
		fputs("no feature name was given\n", c->out); /* "--feature ," */
	}
	c->order = REPORT_ORDER_NAME;
	items = text_sorted(c, c->a, NULL, &n);
	c->order = saved;
	if (!items)
		return -ENOMEM;
	if (n) {
		fputs("its features are: ", c->out);
		for (i = 0; i < n; i++) {
			fputs(i ? ", " : "", c->out);
			escape__fputs(items[i].key.name, c->out);
		}
		fputc('\n', c->out);
	}
	free(items);
	return -ENOENT;
}

/* The note under the features; `events` when calls columns were shown
 * (not by thread: the probes count per process). */
void text_note(struct text_ctx *c, bool events)
{
	/* One feature (--feature): its shares sum to nothing else. */
	bool sums = !c->feature || c->nr_selected > 1;

	if (sums)
		fprintf(c->out,
			"\nNote: each sample is charged to every feature with a live mark in its "
			"thread, so the shares above\nmay sum to more than 100%%, and samples in "
			"no feature (here %.2f%%) make them sum to less.\n",
			report_pct(attrib__uncharged_samples(c->a), c->total));
	if (!sums && (c->events || c->offcpu))
		fputc('\n', c->out);
	if (events)
		fputs("Calls are counted by the probes, not sampled: time per call and max are "
		      "of the calls that\nreturned, from enter to leave less the feature's "
		      "antimarks, time off CPU and in nested\nfeatures included.\n",
		      c->out);
	else if (c->events)
		fputs("Calls are counted per process, not per thread: --by feature or --by "
		      "process shows them.\n",
		      c->out);
	if (c->offcpu)
		fputs("Off-CPU time is charged by the same rule as samples, but is not in the "
		      "shares above:\nthe wall-clock view adds it.\n",
		      c->out);
	if (text_charges_others(c->a))
		fputs("Features whose probe map says \"charge threads\" are also charged the "
		      "samples of other threads\nof their process while one of their marks is "
		      "open (\"on other threads\" above).\n",
		      c->out);
}

/* Explains an empty report (no feature to list); true when it had to. A
 * feature with events or off-CPU time but no sample is listed. */
bool text_empty(struct text_ctx *c)
{
	if (attrib__nr_features(c->a))
		return false;
	if (c->whole && !profile__nr_pids(c->p) && !profile__nr_events(c->p))
		fputs("no process of this profile matches the filter\n", c->out);
	else if (c->whole && !profile__total_samples(c->p))
		fputs("no samples were taken of the filtered processes\n", c->out);
	else if (!profile__total_samples(c->p))
		fputs("no samples were taken of the target (was it running on a CPU?)\n", c->out);
	else if (!c->total)
		fputs("no samples were taken of the selected process or thread\n", c->out);
	else
		fprintf(c->out,
			"no feature was charged: none of the %" PRIu64 " %s had a live mark\n",
			c->total, plural(c->total, "sample", "samples"));
	return true;
}

/* "no feature NAME in this profile" for the names of a --feature list that
 * charged nothing, when others did (they are shown). */
void text_unknown(struct text_ctx *c)
{
	if (!c->feature || c->nr_selected == c->feat->nr)
		return;
	fputs("no feature ", c->out);
	text_names(c, false);
	fputs(" in this profile\n", c->out);
}

/* The traps of counted marks inflate what they measure past this share of a
 * feature's time. */
#define TRAPS_NOTE_SHARE 0.10

/*
 * What the probes' traps cost the features whose calls they counted (record
 * --events measured a hit's cost): about one trap per call falls inside the
 * mark (the return from the enter's, the way into the leave's), so a
 * feature's time, share and time per call grow by calls x cost. Said for
 * the features where that is TRAPS_NOTE_SHARE of their sampled time.
 */
static void text_traps(struct text_ctx *c)
{
	uint64_t trap = profile__meta(c->p)->event_trap_ns;
	bool said = false;

	for (size_t i = 0; trap && i < attrib__nr_features(c->a); i++) {
		const struct attrib_feature *f = attrib__feature(c->a, i);
		double inside, time;

		if (!f->events || f->events->point || !f->samples)
			continue;
		inside = (double)f->events->enters * trap;
		time = (double)f->samples * c->period;
		if (inside < TRAPS_NOTE_SHARE * time)
			continue;
		if (!said)
			fprintf(c->out,
				"\nThe probes that counted the calls trap into the kernel, about "
				"%.2f us a hit here, twice a call:\n",
				trap / 1e3);
		said = true;
		fputs("  ", c->out);
		escape__fputs(f->name, c->out);
		fprintf(c->out,
			": %" PRIu64 " calls, about %.1f ms of traps inside its %.1f ms (%.0f%%): "
			"its time, share and time per call are inflated\n",
			f->events->enters, inside / 1e6, time / 1e6, 100 * inside / time);
	}
	if (said)
		fputs("  ABI v2 marks cost nanoseconds without --events (--events=FEATURE traps "
		      "those features' marks alone).\n",
		      c->out);
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

/* The state of the report of profile (scope) attributed by a. */
static void text_ctx_init(struct text_ctx *c, FILE *out, const struct report_scope *scope,
			  const struct attrib *a, const struct report_opts *opts)
{
	size_t i;

	c->out = out;
	c->p = scope->p;
	c->whole = scope->whole;
	c->opts = opts;
	c->a = a;
	c->feature = scope->feature;
	c->feat = &scope->feat;
	for (i = 0; i < attrib__nr_features(a); i++)
		c->nr_selected +=
			c->feature && report_features__has(c->feat, attrib__feature(a, i)->name);
	c->min_pct = opts && opts->min_pct > 0 ? opts->min_pct : 0;
	c->order = opts ? opts->order : REPORT_ORDER_COST;
	c->period = profile_meta__period_ns(profile__meta(c->p));
	c->total = attrib__total_samples(a);
	c->events = profile__nr_events(c->p) > 0;
	c->offcpu = profile__total_offcpu_ns(c->p) > 0;
}

int report__text(FILE *out, const struct profile *p, const struct attrib *a,
		 const struct report_opts *opts)
{
	struct report_scope scope;
	struct attrib *own = NULL;
	struct text_ctx c = {};
	struct c_locale loc;
	int err = 0, werr = 0;

	if (!out || !p)
		return -EINVAL;
	if (opts && ((unsigned int)opts->by > REPORT_BY_PROCESS ||
		     (unsigned int)opts->order > REPORT_ORDER_NAME))
		return -EINVAL;
	/* A process filter: the report of the filtered profile, attributed here. */
	err = report_scope__init(&scope, p, opts);
	if (err)
		return err;
	if (scope.whole || !a) {
		own = attrib__compute(scope.p, NULL);
		if (!own) {
			err = -ENOMEM;
			goto cleanup;
		}
		a = own;
	}
	/* Stable output: '.' as the decimal point whatever LC_NUMERIC says. */
	err = c_locale__enter(&loc);
	if (err)
		goto cleanup;
	text_ctx_init(&c, out, &scope, a, opts);
	errno = 0;
	text_header(&c);
	if (!opts || opts->by == REPORT_BY_FEATURE)
		err = text_features(&c);
	else
		err = text_sections(&c, opts->by == REPORT_BY_THREAD);
	if (!err)
		err = text_native(&c);
	if (!err)
		text_traps(&c);
	/* The diagnostics close every report, even one naming a missing feature. */
	if (!err || err == -ENOENT || err == -ESRCH)
		text_diagnostics(&c);

	c_locale__leave(&loc);
	werr = flush_status(out);
	if (werr && (!err || err == -ENOENT || err == -ESRCH))
		err = werr;
cleanup:
	attrib__free(own);
	report_scope__fini(&scope);
	return err;
}
