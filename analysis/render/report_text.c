// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report: header, features and their instances (or one section per
 * thread or process, each with its own features), the note, the wall-clock
 * view, diagnostics. When the profile has them, feature and instance lines
 * carry the event view (calls, time per call, max) and off-CPU time, and
 * --feature shows each instance's latency histogram (docs/output-formats.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_util.h"
#include "report_view.h"

struct text_ctx {
	FILE *out;
	const struct profile *p; /* with a process filter, the filtered profile */
	const struct profile *whole; /* the profile before the filter, NULL without */
	const struct report_opts *opts;
	const struct attrib *a;
	double min_pct;
	enum report_order order;
	const char *feature; /* --feature, NULL for all */
	struct report_features feat; /* the features it names */
	size_t nr_selected; /* of them, those charged (in a) */
	uint64_t period; /* ns per sample */
	uint64_t total; /* the denominator: the attribution's samples */
	bool events; /* the profile has event records: calls columns */
	bool offcpu; /* the profile has off-CPU time: its column, the wall-clock view */
};

/* A list of features with its denominator: the whole report's, or one
 * thread's or process's in --by thread / process. */
struct text_block {
	const struct attrib *a;
	uint64_t total; /* samples of the block: what shares are of */
	const char *indent; /* prefix of each line */
	const char *of; /* what the shares are of: "running time", ... */
	const char *what; /* "thread" or "process" in a section, else NULL */
	bool events; /* calls columns (not in thread sections: events are per process) */
};

/* Width of the bars of a latency histogram (--feature). */
#define TEXT_BAR_WIDTH 40

/* An entry to sort in the report's order; qsort passes no context, so each
 * entry carries the order. */
struct text_item {
	struct report_key key;
	const void *ptr;
	enum report_order order;
};

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static double ms_of_ns(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* A duration with 3 significant digits in the largest unit of ns, us, ms, s
 * that keeps it at least 1: "52.3 ns", "659 us", "1.20 ms". */
static void text_dur(char *buf, size_t size, double ns)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && ns >= 999.5) {
		ns /= 1000;
		u++;
	}
	if (ns < 9.995)
		snprintf(buf, size, "%.2f %s", ns, units[u]);
	else if (ns < 99.95)
		snprintf(buf, size, "%.1f %s", ns, units[u]);
	else
		snprintf(buf, size, "%.0f %s", ns, units[u]);
}

/* A histogram bucket bound: exact below 1 us, else as text_dur. */
static void text_bound(char *buf, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else
		text_dur(buf, size, (double)ns);
}

/* The event-view cells of an instance line: calls, time per call, max
 * ("-" when unknown: no events, or no call returned). */
struct text_cells {
	char calls[24];
	char per_call[24];
	char max[24];
};

static void text_cells(struct text_cells *t, const struct profile_event_stats *st)
{
	strcpy(t->calls, "-");
	strcpy(t->per_call, "-");
	strcpy(t->max, "-");
	if (!st)
		return;
	snprintf(t->calls, sizeof(t->calls), "%" PRIu64, st->enters);
	if (!st->leaves)
		return;
	text_dur(t->per_call, sizeof(t->per_call), (double)st->total_ns / (double)st->leaves);
	text_dur(t->max, sizeof(t->max), (double)st->max_ns);
}

static int cmp_item(const void *x, const void *y)
{
	const struct text_item *a = x, *b = y;

	return report_key__cmp(a->order, &a->key, &b->key);
}

/* The features of a (or its instances of f when f is not NULL) in the
 * report's order. NULL on allocation failure. */
static struct text_item *text_sorted(const struct text_ctx *c, const struct attrib *a,
				     const struct attrib_feature *f, size_t *n)
{
	struct text_item *items;
	size_t i;

	*n = f ? f->nr_instances : attrib__nr_features(a);
	items = calloc(*n ? *n : 1, sizeof(*items));
	if (!items)
		return NULL;
	for (i = 0; i < *n; i++) {
		const struct attrib_feature *g = f ? NULL : attrib__feature(a, i);
		const struct attrib_instance *in = f ? &f->instances[i] : NULL;

		items[i].order = c->order;
		items[i].ptr = f ? (const void *)in : (const void *)g;
		items[i].key.samples = f ? in->samples : g->samples;
		items[i].key.cost_ns = report_charged_ns(
			items[i].key.samples, f ? in->offcpu_ns : g->offcpu_ns, c->period);
		items[i].key.name = f ? in->name : g->name;
	}
	if (*n)
		qsort(items, *n, sizeof(*items), cmp_item);
	return items;
}

/* "events: N calls counted by the probes, M returned" over the profile. */
static void text_header_events(struct text_ctx *c)
{
	uint64_t enters = 0, leaves = 0;
	struct profile_event ev;
	size_t i;

	for (i = 0; i < profile__nr_events(c->p); i++) {
		if (profile__event(c->p, i, &ev))
			continue;
		enters = report_sat_add(enters, ev.stats->enters);
		leaves = report_sat_add(leaves, ev.stats->leaves);
	}
	fprintf(c->out, "  events: %" PRIu64 " %s counted by the probes, %" PRIu64 " returned\n",
		enters, plural(enters, "call", "calls"), leaves);
}

/* "filter: comm X and pid Y: N of M processes, S of T samples (P%); shares
 * are of their time": what the process filter kept, of the whole profile. */
static void text_filter(struct text_ctx *c)
{
	const struct report_opts *o = c->opts;
	size_t kept = profile__nr_pids(c->p), all = profile__nr_pids(c->whole);
	uint64_t ks = profile__total_samples(c->p), ws = profile__total_samples(c->whole);

	fputs("  filter:", c->out);
	if (o->comm)
		fprintf(c->out, " comm %s", o->comm);
	if (o->pid)
		fprintf(c->out, "%s pid %s", o->comm ? " and" : "", o->pid);
	fprintf(c->out, ": %zu of %zu %s, %" PRIu64 " of %" PRIu64 " %s (%.2f%%)", kept, all,
		plural(all, "process", "processes"), ks, ws, plural(ws, "sample", "samples"),
		report_pct(ks, ws));
	if (kept)
		fprintf(c->out, "; shares are of %s time", kept == 1 ? "its" : "their");
	fputc('\n', c->out);
}

static void text_header(struct text_ctx *c)
{
	const struct profile_meta *m = profile__meta(c->p);
	uint64_t samples = profile__total_samples(c->p);
	size_t nr_pids = profile__nr_pids(c->p), nr_threads = profile__nr_threads(c->p);

	fprintf(c->out, "fsp-bpf %s: feature profile of %s\n",
		m->tool_version ? m->tool_version : FSP_VERSION,
		m->target ? m->target : "an unnamed target");
	if (c->whole)
		text_filter(c);
	fprintf(c->out,
		"  %.2f s, %" PRIu64 " Hz (%.3f ms per sample), %" PRIu64
		" %s = %.1f ms on CPU, %zu %s, %zu %s\n",
		m->duration_s, m->frequency_hz, (double)c->period / 1e6, samples,
		plural(samples, "sample", "samples"), report_ms(samples, c->period), nr_pids,
		plural(nr_pids, "process", "processes"), nr_threads,
		plural(nr_threads, "thread", "threads"));
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

/*
 * Whether an entry is kept under --min-pct in a denominator of `total`
 * samples: when its samples, its event time or its off-CPU time is at least
 * min_pct of that (running time: total x period). Without running time
 * (no sample, or no period known), any event or off-CPU time keeps it.
 */
static bool text_keep(const struct text_ctx *c, uint64_t total, uint64_t samples, uint64_t event_ns,
		      uint64_t offcpu_ns)
{
	uint64_t running;

	if (report_pct(samples, total) >= c->min_pct)
		return true;
	running = report_cost_ns(total, c->period);
	if (!running)
		return event_ns || offcpu_ns;
	return report_pct(event_ns, running) >= c->min_pct ||
	       report_pct(offcpu_ns, running) >= c->min_pct;
}

static uint64_t event_ns(const struct profile_event_stats *st)
{
	return st ? st->total_ns : 0;
}

/* "; N calls, T/call, max M; off-CPU X ms" of a feature line. */
static void text_feature_extra(struct text_ctx *c, const struct text_block *b,
			       const struct attrib_feature *f)
{
	struct text_cells t;

	if (b->events && f->events) {
		text_cells(&t, f->events);
		fprintf(c->out, "; %s %s", t.calls, plural(f->events->enters, "call", "calls"));
		if (f->events->leaves)
			fprintf(c->out, ", %s/call, max %s", t.per_call, t.max);
		else
			fputs(", none returned", c->out);
	}
	if (c->offcpu)
		fprintf(c->out, "; off-CPU %.1f ms", ms_of_ns(f->offcpu_ns));
}

/* The log2 latency histogram of an instance's returned calls: non-empty
 * buckets, bars scaled to the largest. */
static void text_hist(struct text_ctx *c, const struct text_block *b,
		      const struct profile_event_stats *st)
{
	char bar[TEXT_BAR_WIDTH + 1], lo[24], hi[24], range[64];
	uint64_t max = 0;
	unsigned int i;
	size_t len;

	for (i = 0; i < PROFILE_HIST_BUCKETS; i++)
		max = st->hist[i] > max ? st->hist[i] : max;
	if (!max)
		return;
	for (i = 0; i < PROFILE_HIST_BUCKETS; i++) {
		if (!st->hist[i])
			continue;
		text_bound(lo, sizeof(lo), i ? 1ULL << i : 0);
		if (i + 1 < PROFILE_HIST_BUCKETS)
			text_bound(hi, sizeof(hi), 1ULL << (i + 1));
		else
			strcpy(hi, "inf");
		snprintf(range, sizeof(range), "[%s, %s)", lo, hi);
		len = (size_t)((double)st->hist[i] * TEXT_BAR_WIDTH / (double)max + 0.5);
		len = len ? (len > TEXT_BAR_WIDTH ? TEXT_BAR_WIDTH : len) : 1;
		memset(bar, '#', len);
		bar[len] = 0;
		fprintf(c->out, "%s        %-18s %9" PRIu64 "  %s\n", b->indent, range, st->hist[i],
			bar);
	}
}

/* One instance line: time, share, [calls columns,] [off-CPU,] name. */
static void text_instance(struct text_ctx *c, const struct text_block *b,
			  const struct attrib_instance *in)
{
	struct text_cells t;

	fprintf(c->out, "%s%10.1f ms %6.2f%%  ", b->indent, report_ms(in->samples, c->period),
		report_pct(in->samples, b->total));
	if (b->events) {
		text_cells(&t, in->events);
		fprintf(c->out, "%9s calls %7s/call  max %7s  ", t.calls, t.per_call, t.max);
	}
	if (c->offcpu)
		fprintf(c->out, "off-CPU %9.1f ms  ", ms_of_ns(in->offcpu_ns));
	fprintf(c->out, "%s\n", in->name);
	if (c->feature && b->events && in->events)
		text_hist(c, b, in->events);
}

static int text_feature(struct text_ctx *c, const struct text_block *b,
			const struct attrib_feature *f)
{
	uint64_t folded_samples = 0, folded_calls = 0, folded_off = 0;
	struct text_item *items;
	size_t i, n, shown = 0;

	fprintf(c->out, "%s%s accounts for %.2f%% of %s (%.1f / %.1f ms, %" PRIu64 " %s)",
		b->indent, f->name, report_pct(f->samples, b->total), b->of,
		report_ms(f->samples, c->period), report_ms(b->total, c->period), f->samples,
		plural(f->samples, "sample", "samples"));
	text_feature_extra(c, b, f);
	fputc('\n', c->out);
	items = text_sorted(c, NULL, f, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct attrib_instance *in = items[i].ptr;

		if (!text_keep(c, b->total, in->samples, event_ns(in->events), in->offcpu_ns)) {
			folded_samples += in->samples;
			folded_calls =
				report_sat_add(folded_calls, in->events ? in->events->enters : 0);
			folded_off = report_sat_add(folded_off, in->offcpu_ns);
			continue;
		}
		text_instance(c, b, in);
		shown++;
	}
	if (shown < n) {
		fprintf(c->out, "%s      ... %zu %s%s below %.2f%% (%.1f ms", b->indent, n - shown,
			shown ? "more " : "", plural(n - shown, "instance", "instances"),
			c->min_pct, report_ms(folded_samples, c->period));
		if (b->events)
			fprintf(c->out, ", %" PRIu64 " %s", folded_calls,
				plural(folded_calls, "call", "calls"));
		if (c->offcpu)
			fprintf(c->out, ", off-CPU %.1f ms", ms_of_ns(folded_off));
		fputs(")\n", c->out);
	}
	free(items);
	return 0;
}

/* The features of --feature that b->a has (the caller made sure it has one),
 * in the report's order, none folded. */
static int text_selected(struct text_ctx *c, const struct text_block *b)
{
	struct text_item *items;
	size_t i, n;
	int err = 0;

	items = text_sorted(c, b->a, NULL, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct attrib_feature *f = items[i].ptr;

		if (report_features__has(&c->feat, f->name))
			err = text_feature(c, b, f);
	}
	free(items);
	return err;
}

/* Whether a has a feature --feature names. */
static bool text_has_selected(const struct text_ctx *c, const struct attrib *a)
{
	size_t i;

	for (i = 0; i < c->feat.nr; i++) {
		if (report_find_feature(a, c->feat.names[i]))
			return true;
	}
	return false;
}

/* The names of --feature that were (found) or were not charged, joined by
 * " or ". */
static void text_names(struct text_ctx *c, bool found)
{
	size_t i, n = 0;

	for (i = 0; i < c->feat.nr; i++) {
		if ((report_find_feature(c->a, c->feat.names[i]) != NULL) != found)
			continue;
		fprintf(c->out, "%s%s", n++ ? " or " : "", c->feat.names[i]);
	}
}

/* "no feature NAME [or NAME...] in this profile", and the features it has
 * instead. */
static int text_missing(struct text_ctx *c)
{
	struct text_item *items;
	enum report_order saved = c->order;
	size_t i, n;

	if (c->feat.nr) {
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
		for (i = 0; i < n; i++)
			fprintf(c->out, "%s%s", i ? ", " : "", items[i].key.name);
		fputc('\n', c->out);
	}
	free(items);
	return -ENOENT;
}

/* The features of a block: all (folding those under --min-pct), or those
 * of --feature, which the caller made sure b->a has. */
static int text_block(struct text_ctx *c, const struct text_block *b)
{
	size_t i, n, shown = 0;
	struct text_item *items;
	uint64_t uncharged, folded_calls = 0;
	int err = 0;

	if (c->feature)
		return text_selected(c, b);
	if (!b->total && !attrib__nr_features(b->a)) {
		fprintf(c->out, "%sno samples were taken of this %s\n", b->indent, b->what);
		return 0;
	}
	items = text_sorted(c, b->a, NULL, &n);
	if (!items)
		return -ENOMEM;
	if (!n)
		fprintf(c->out,
			"%sno feature was charged: none of the %" PRIu64 " %s had a live mark\n",
			b->indent, b->total, plural(b->total, "sample", "samples"));
	for (i = 0; i < n && !err; i++) {
		const struct attrib_feature *f = items[i].ptr;

		if (!text_keep(c, b->total, f->samples, b->events ? event_ns(f->events) : 0,
			       f->offcpu_ns)) {
			folded_calls =
				report_sat_add(folded_calls, f->events ? f->events->enters : 0);
			continue;
		}
		err = text_feature(c, b, f);
		shown++;
	}
	if (!err && shown < n) {
		fprintf(c->out, "%s... %zu %s%s below %.2f%% of %s", b->indent, n - shown,
			shown ? "more " : "", plural(n - shown, "feature", "features"), c->min_pct,
			b->of);
		if (b->events)
			fprintf(c->out, " (%" PRIu64 " %s)", folded_calls,
				plural(folded_calls, "call", "calls"));
		fputc('\n', c->out);
	}
	/* In a section, the rest of its time; the note gives the whole's. */
	uncharged = attrib__uncharged_samples(b->a);
	if (!err && n && b->what && (uncharged || attrib__uncharged_offcpu_ns(b->a))) {
		fprintf(c->out, "%sno feature: %.2f%% of %s (%.1f / %.1f ms, %" PRIu64 " %s)",
			b->indent, report_pct(uncharged, b->total), b->of,
			report_ms(uncharged, c->period), report_ms(b->total, c->period), uncharged,
			plural(uncharged, "sample", "samples"));
		if (c->offcpu)
			fprintf(c->out, "; off-CPU %.1f ms",
				ms_of_ns(attrib__uncharged_offcpu_ns(b->a)));
		fputc('\n', c->out);
	}
	free(items);
	return err;
}

/* The note under the features; `events` when calls columns were shown
 * (not by thread: the probes count per process). */
static void text_note(struct text_ctx *c, bool events)
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
}

/* Explains an empty report (no feature to list); true when it had to. A
 * feature with events or off-CPU time but no sample is listed. */
static bool text_empty(struct text_ctx *c)
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

/* A row of the wall-clock view: on CPU + off CPU = wall, share, name. */
static void text_wall_row(struct text_ctx *c, uint64_t samples, uint64_t offcpu_ns,
			  uint64_t wall_total, const char *indent, const char *name)
{
	uint64_t wall = report_charged_ns(samples, offcpu_ns, c->period);

	fprintf(c->out, "%10.1f ms + %10.1f ms = %10.1f ms %6.2f%%  %s%s\n",
		report_ms(samples, c->period), ms_of_ns(offcpu_ns), ms_of_ns(wall),
		report_pct(wall, wall_total), indent, name);
}

/* Rows of the wall-clock view: the features (f NULL, then the time charged
 * to none) or f's instances (indented), those under --min-pct of wall_total
 * folded, those with no time at all left out. */
static int text_wall_rows(struct text_ctx *c, const struct attrib_feature *f, uint64_t wall_total)
{
	const char *indent = f ? "  " : "";
	uint64_t folded_ns = 0, wall;
	struct text_item *items;
	size_t i, n, shown = 0, folded = 0;

	items = text_sorted(c, c->a, f, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct attrib_instance *in = f ? items[i].ptr : NULL;
		const struct attrib_feature *g = f ? NULL : items[i].ptr;

		wall = items[i].key.cost_ns;
		if (!wall)
			continue; /* only events: no time on or off CPU to show */
		if (report_pct(wall, wall_total) < c->min_pct) {
			folded++;
			folded_ns = report_sat_add(folded_ns, wall);
			continue;
		}
		text_wall_row(c, f ? in->samples : g->samples, f ? in->offcpu_ns : g->offcpu_ns,
			      wall_total, indent, items[i].key.name);
		shown++;
	}
	if (folded)
		fprintf(c->out, "%s... %zu %s%s below %.2f%% of wall-clock time (%.1f ms)\n",
			indent, folded, shown ? "more " : "",
			f ? plural(folded, "instance", "instances")
			  : plural(folded, "feature", "features"),
			c->min_pct, ms_of_ns(folded_ns));
	if (!f && (attrib__uncharged_samples(c->a) || attrib__uncharged_offcpu_ns(c->a)))
		text_wall_row(c, attrib__uncharged_samples(c->a), attrib__uncharged_offcpu_ns(c->a),
			      wall_total, "", REPORT_NO_FEATURE);
	free(items);
	return 0;
}

/*
 * The wall-clock view (off-CPU time recorded): per feature (with --feature,
 * each of its features and, indented, its instances) on-CPU + off-CPU time
 * = wall-clock time and its share of the selection's (all its samples x
 * period + all its off-CPU time), in the report's order (cost is wall-clock
 * time), those under --min-pct of it folded, those with no time at all left
 * out.
 */
static int text_wall(struct text_ctx *c)
{
	uint64_t off_total = attrib__total_offcpu_ns(c->a);
	uint64_t wall_total = report_charged_ns(c->total, off_total, c->period);
	struct text_item *items;
	size_t i, n;
	int err = 0;

	if (!c->offcpu || !wall_total || (c->feature && !c->nr_selected))
		return 0;
	fprintf(c->out,
		"\nWall-clock view: on CPU + off CPU = wall-clock time, shares of %.1f ms (%.1f ms "
		"on CPU + %.1f ms off CPU)\n",
		ms_of_ns(wall_total), report_ms(c->total, c->period), ms_of_ns(off_total));
	if (!c->feature)
		return text_wall_rows(c, NULL, wall_total);
	items = text_sorted(c, c->a, NULL, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct attrib_feature *f = items[i].ptr;

		if (!report_features__has(&c->feat, f->name))
			continue;
		text_wall_row(c, f->samples, f->offcpu_ns, wall_total, "", f->name);
		err = text_wall_rows(c, f, wall_total);
	}
	free(items);
	return err;
}

/* "no feature NAME in this profile" for the names of a --feature list that
 * charged nothing, when others did (they are shown). */
static void text_unknown(struct text_ctx *c)
{
	if (!c->feature || c->nr_selected == c->feat.nr)
		return;
	fputs("no feature ", c->out);
	text_names(c, false);
	fputs(" in this profile\n", c->out);
}

/* --by feature: the features of the whole attribution. */
static int text_features(struct text_ctx *c)
{
	struct text_block b = {
		.a = c->a,
		.total = c->total,
		.indent = "",
		.of = "running time",
		.events = c->events,
	};
	int err;

	fputc('\n', c->out);
	if (text_empty(c))
		return c->feature ? -ENOENT : 0;
	if (c->feature && !c->nr_selected)
		return text_missing(c);
	text_unknown(c);
	err = text_block(c, &b);
	if (!err) {
		text_note(c, b.events);
		err = text_wall(c);
	}
	return err;
}

/* Who a section of --by thread or process is about. */
struct text_who {
	bool thread;
	uint32_t source;
	uint32_t pid;
	uint32_t nspid; /* 0: unknown or the profiler's namespace */
	uint32_t tid;
	const char *comm; /* "" when unknown */
	uint64_t samples;
	uint64_t offcpu_ns;
	size_t nr_threads; /* of a process */
};

static void text_section_header(struct text_ctx *c, const struct text_who *w)
{
	uint64_t all = profile__total_samples(c->p);
	bool in_ns = w->nspid && w->nspid != w->pid;
	char pid[320], ns[48] = "";

	report_pid_name(c->p, w->source, w->pid, pid, sizeof(pid));
	/* a process in another PID namespace (a container) has a PID there too */
	if (in_ns)
		snprintf(ns, sizeof(ns), "pid %u in its namespace", w->nspid);
	fputc('\n', c->out);
	if (w->thread)
		fprintf(c->out, "thread %u%s%s%s of pid %s%s%s%s", w->tid, *w->comm ? " (" : "",
			w->comm, *w->comm ? ")" : "", pid, in_ns ? " (" : "", ns, in_ns ? ")" : "");
	else
		fprintf(c->out, "process %s%s%s%s%s%s", pid, *w->comm || in_ns ? " (" : "", w->comm,
			*w->comm && in_ns ? ", " : "", ns, *w->comm || in_ns ? ")" : "");
	fprintf(c->out, ": %.1f ms, %.2f%% of running time (%" PRIu64 " %s",
		report_ms(w->samples, c->period), report_pct(w->samples, all), w->samples,
		plural(w->samples, "sample", "samples"));
	if (!w->thread)
		fprintf(c->out, ", %zu %s", w->nr_threads,
			plural(w->nr_threads, "thread", "threads"));
	fputc(')', c->out);
	if (c->offcpu)
		fprintf(c->out, "; off-CPU %.1f ms", ms_of_ns(w->offcpu_ns));
	fputc('\n', c->out);
}

/* The largest event time of a's features: what keeps a process's section
 * whose samples and off-CPU time alone fall under --min-pct. */
static uint64_t text_max_event_ns(const struct attrib *a)
{
	uint64_t max = 0, ns;
	size_t i;

	for (i = 0; i < attrib__nr_features(a); i++) {
		ns = event_ns(attrib__feature(a, i)->events);
		max = ns > max ? ns : max;
	}
	return max;
}

/* One section: its header line and its features. Sets *folded when it is
 * under --min-pct of running time (`all` samples), *skipped when --feature
 * was not charged in it (then nothing is written). */
static int text_section(struct text_ctx *c, const struct text_who *w, uint64_t all, bool *folded,
			bool *skipped)
{
	struct attrib_opts sel = {.pid = w->pid, .source = w->source};
	struct text_block b = {.indent = "  "};
	struct attrib *a;
	bool keep;
	int err;

	*folded = *skipped = false;
	keep = text_keep(c, all, w->samples, 0, w->offcpu_ns);
	/* Events are per process: only they can still keep it. */
	if (!keep && (w->thread || !c->events)) {
		*folded = true;
		return 0;
	}
	if (w->thread)
		sel.tid = w->tid;
	a = attrib__compute(c->p, &sel);
	if (!a)
		return -ENOMEM;
	if (!keep && !text_keep(c, all, w->samples, text_max_event_ns(a), w->offcpu_ns)) {
		*folded = true;
		attrib__free(a);
		return 0;
	}
	b.a = a;
	b.total = attrib__total_samples(a);
	b.what = w->thread ? "thread" : "process";
	b.of = w->thread ? "the thread's time" : "the process's time";
	b.events = c->events && !w->thread;
	*skipped = c->feature && !text_has_selected(c, a);
	err = 0;
	if (!*skipped) {
		text_section_header(c, w);
		err = text_block(c, &b);
	}
	attrib__free(a);
	return err;
}

/* --by thread or --by process: one section each, in the report's order,
 * those under --min-pct of running time folded into one line. */
static int text_sections(struct text_ctx *c, bool thread)
{
	uint64_t all = profile__total_samples(c->p), folded_samples = 0, folded_off = 0;
	size_t i, n = 0, folded = 0, without = 0;
	struct report_process *procs = NULL;
	struct report_thread *threads = NULL;
	const char *one = thread ? "thread" : "process";
	const char *many = thread ? "threads" : "processes";
	bool skipped = false, under = false;
	int err;

	if (!attrib__nr_features(c->a)) {
		fputc('\n', c->out);
		text_empty(c);
		return c->feature ? -ENOENT : 0;
	}
	if (c->feature && !c->nr_selected) {
		fputc('\n', c->out);
		return text_missing(c);
	}
	if (c->feature && c->nr_selected < c->feat.nr) {
		fputc('\n', c->out);
		text_unknown(c);
	}
	err = thread ? report_threads(c->p, c->order, &threads, &n)
		     : report_processes(c->p, c->order, &procs, &n);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		struct text_who w = {.thread = thread};

		if (thread) {
			w.source = threads[i].source;
			w.pid = threads[i].pid;
			w.nspid = threads[i].nspid;
			w.tid = threads[i].tid;
			w.comm = threads[i].comm;
			w.samples = threads[i].key.samples;
			w.offcpu_ns = threads[i].offcpu_ns;
		} else {
			w.source = procs[i].source;
			w.pid = procs[i].pid;
			w.nspid = procs[i].nspid;
			w.comm = procs[i].comm;
			w.samples = procs[i].key.samples;
			w.offcpu_ns = procs[i].offcpu_ns;
			w.nr_threads = procs[i].nr_threads;
		}
		err = text_section(c, &w, all, &under, &skipped);
		if (under) {
			folded++;
			folded_samples += w.samples;
			folded_off = report_sat_add(folded_off, w.offcpu_ns);
		}
		without += skipped;
	}
	/* "more" when some section was shown above the line. */
	if (!err && folded) {
		fprintf(c->out, "\n... %zu %s%s below %.2f%% of running time (%.1f ms", folded,
			folded + without < n ? "more " : "", plural(folded, one, many), c->min_pct,
			report_ms(folded_samples, c->period));
		if (c->offcpu)
			fprintf(c->out, ", off-CPU %.1f ms", ms_of_ns(folded_off));
		fputs(")\n", c->out);
	}
	if (!err && without) {
		fprintf(c->out, "%s... %zu %s%s not charged to ", folded ? "" : "\n", without,
			folded + without < n ? "more " : "", plural(without, one, many));
		text_names(c, true);
		fputc('\n', c->out);
	}
	if (!err) {
		text_note(c, c->events && !thread);
		err = text_wall(c);
	}
	free(threads);
	free(procs);
	return err;
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
	struct profile *filtered = NULL;
	struct attrib *own = NULL;
	locale_t c_loc, old_loc;
	struct text_ctx c = {};
	size_t i;
	int err = 0, werr = 0;

	if (!out || !p)
		return -EINVAL;
	if (opts && ((unsigned int)opts->by > REPORT_BY_PROCESS ||
		     (unsigned int)opts->order > REPORT_ORDER_NAME))
		return -EINVAL;
	/* A process filter: the report of the filtered profile, attributed here. */
	err = report__filter(p, opts, &filtered);
	if (err)
		return err;
	if (filtered) {
		c.whole = p;
		p = filtered;
		a = NULL;
	}
	if (!a) {
		own = attrib__compute(p, NULL);
		if (!own) {
			err = -ENOMEM;
			goto cleanup;
		}
		a = own;
	}
	c.feature = opts ? opts->feature : NULL;
	err = report_features__init(&c.feat, p, c.feature);
	if (err)
		goto cleanup;
	for (i = 0; i < attrib__nr_features(a); i++)
		c.nr_selected +=
			c.feature && report_features__has(&c.feat, attrib__feature(a, i)->name);
	/* Stable output: '.' as the decimal point whatever LC_NUMERIC says. */
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c_loc) {
		err = -ENOMEM;
		goto cleanup;
	}
	old_loc = uselocale(c_loc);

	c.out = out;
	c.p = p;
	c.opts = opts;
	c.a = a;
	c.min_pct = opts && opts->min_pct > 0 ? opts->min_pct : 0;
	c.order = opts ? opts->order : REPORT_ORDER_COST;
	c.period = report_period_ns(profile__meta(p));
	c.total = attrib__total_samples(a);
	c.events = profile__nr_events(p) > 0;
	c.offcpu = profile__total_offcpu_ns(p) > 0;
	errno = 0;
	text_header(&c);
	if (!opts || opts->by == REPORT_BY_FEATURE)
		err = text_features(&c);
	else
		err = text_sections(&c, opts->by == REPORT_BY_THREAD);
	/* The diagnostics close every report, even one naming a missing feature. */
	if (!err || err == -ENOENT)
		text_diagnostics(&c);

	uselocale(old_loc);
	freelocale(c_loc);
	if (fflush(out) || ferror(out))
		werr = errno ? -errno : -EIO;
	if (werr && (!err || err == -ENOENT))
		err = werr;
cleanup:
	report_features__fini(&c.feat);
	attrib__free(own);
	profile__free(filtered);
	return err;
}
