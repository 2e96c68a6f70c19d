// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report's features (report_text.h): the lines of the features
 * and instances of a block with their event-view and off-CPU columns and
 * latency histograms, the report --by feature, the wall-clock view.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "output.h"
#include "report_text.h"

/* Width of the bars of a latency histogram (--feature). */
#define TEXT_BAR_WIDTH 40

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
struct text_item *text_sorted(const struct text_ctx *c, const struct attrib *a,
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

/*
 * Whether an entry is kept under --min-pct in a denominator of `total`
 * samples: when its samples, its event time or its off-CPU time is at least
 * min_pct of that (running time: total x period). Without running time
 * (no sample, or no period known), any event or off-CPU time keeps it.
 */
bool text_keep(const struct text_ctx *c, uint64_t total, uint64_t samples, uint64_t event_ns,
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

/* "; N calls, T/call, max M; off-CPU X ms" of a feature line. */
static void text_feature_extra(struct text_ctx *c, const struct text_block *b,
			       const struct attrib_feature *f)
{
	struct text_cells t;

	if (b->events && f->events && f->events->point) {
		fprintf(c->out, "; %" PRIu64 " %s", f->events->enters,
			plural(f->events->enters, "event", "events"));
	} else if (b->events && f->events) {
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
	if (b->events && point_hits(in->events)) {
		/* hits, no calls: as wide as the calls columns */
		fprintf(c->out, "%9" PRIu64 " %-33s", in->events->enters,
			plural(in->events->enters, "event", "events"));
	} else if (b->events) {
		text_cells(&t, in->events);
		fprintf(c->out, "%9s calls %7s/call  max %7s  ", t.calls, t.per_call, t.max);
	}
	if (c->offcpu)
		fprintf(c->out, "off-CPU %9.1f ms  ", ms_of_ns(in->offcpu_ns));
	escape__fputs(in->name, c->out);
	fputc('\n', c->out);
	if (c->feature && b->events && in->events)
		text_hist(c, b, in->events);
}

static int text_feature(struct text_ctx *c, const struct text_block *b,
			const struct attrib_feature *f)
{
	uint64_t folded_samples = 0, folded_calls = 0, folded_off = 0;
	struct text_item *items;
	size_t i, n, shown = 0;

	fputs(b->indent, c->out);
	escape__fputs(f->name, c->out);
	fprintf(c->out, " accounts for %.2f%% of %s (%.1f / %.1f ms, %" PRIu64 " %s)",
		report_pct(f->samples, b->total), b->of, report_ms(f->samples, c->period),
		report_ms(b->total, c->period), f->samples,
		plural(f->samples, "sample", "samples"));
	text_feature_extra(c, b, f);
	fputc('\n', c->out);
	if (f->other_samples)
		fprintf(c->out,
			"%s    of which %.1f ms (%.2f%% of %s, %" PRIu64
			" %s) on other threads of the process (charge threads)\n",
			b->indent, report_ms(f->other_samples, c->period),
			report_pct(f->other_samples, b->total), b->of, f->other_samples,
			plural(f->other_samples, "sample", "samples"));
	items = text_sorted(c, NULL, f, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct attrib_instance *in = items[i].ptr;

		if (!(b->events && point_hits(in->events)) &&
		    !text_keep(c, b->total, in->samples, event_ns(in->events), in->offcpu_ns)) {
			folded_samples += in->samples;
			folded_calls =
				fsp_sat_add(folded_calls, in->events ? in->events->enters : 0);
			folded_off = fsp_sat_add(folded_off, in->offcpu_ns);
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

/* Does a feature of a charge samples of other threads ("charge threads")? */
bool text_charges_others(const struct attrib *a)
{
	for (size_t i = 0; i < attrib__nr_features(a); i++)
		if (attrib__feature(a, i)->other_samples)
			return true;
	return false;
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

		if (report_features__has(c->feat, f->name))
			err = text_feature(c, b, f);
	}
	free(items);
	return err;
}

/* Whether a has a feature --feature names. */
bool text_has_selected(const struct text_ctx *c, const struct attrib *a)
{
	size_t i;

	for (i = 0; i < c->feat->nr; i++) {
		if (report_find_feature(a, c->feat->names[i]))
			return true;
	}
	return false;
}

/* The features of a block: all (folding those under --min-pct), or those
 * of --feature, which the caller made sure b->a has. */
int text_block(struct text_ctx *c, const struct text_block *b)
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

		if (!(b->events && point_hits(f->events)) &&
		    !text_keep(c, b->total, f->samples, b->events ? event_ns(f->events) : 0,
			       f->offcpu_ns)) {
			folded_calls = fsp_sat_add(folded_calls, f->events ? f->events->enters : 0);
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

/* A row of the wall-clock view: on CPU + off CPU = wall, share, name. */
static void text_wall_row(struct text_ctx *c, uint64_t samples, uint64_t offcpu_ns,
			  uint64_t wall_total, const char *indent, const char *name)
{
	uint64_t wall = report_charged_ns(samples, offcpu_ns, c->period);

	fprintf(c->out, "%10.1f ms + %10.1f ms = %10.1f ms %6.2f%%  %s",
		report_ms(samples, c->period), ms_of_ns(offcpu_ns), ms_of_ns(wall),
		report_pct(wall, wall_total), indent);
	escape__fputs(name, c->out);
	fputc('\n', c->out);
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
			folded_ns = fsp_sat_add(folded_ns, wall);
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
int text_wall(struct text_ctx *c)
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

		if (!report_features__has(c->feat, f->name))
			continue;
		text_wall_row(c, f->samples, f->offcpu_ns, wall_total, "", f->name);
		err = text_wall_rows(c, f, wall_total);
	}
	free(items);
	return err;
}

/* --by feature: the features of the whole attribution. */
int text_features(struct text_ctx *c)
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
