// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report: header, features and their instances (or one section per
 * thread or process, each with its own features), the note, diagnostics.
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
	const struct profile *p;
	const struct attrib *a;
	double min_pct;
	enum report_order order;
	const char *feature; /* --feature, NULL for all */
	uint64_t period; /* ns per sample */
	uint64_t total; /* the denominator: the attribution's samples */
};

/* A list of features with its denominator: the whole report's, or one
 * thread's or process's in --by thread / process. */
struct text_block {
	const struct attrib *a;
	uint64_t total; /* samples of the block: what shares are of */
	const char *indent; /* prefix of each line */
	const char *of; /* what the shares are of: "running time", ... */
	const char *what; /* "thread" or "process" in a section, else NULL */
};

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
		items[i].key.cost_ns = report_cost_ns(items[i].key.samples, c->period);
		items[i].key.name = f ? in->name : g->name;
	}
	if (*n)
		qsort(items, *n, sizeof(*items), cmp_item);
	return items;
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

static bool text_shown(const struct text_ctx *c, uint64_t samples, uint64_t total)
{
	return report_pct(samples, total) >= c->min_pct;
}

static int text_feature(struct text_ctx *c, const struct text_block *b,
			const struct attrib_feature *f)
{
	uint64_t folded_samples = 0;
	struct text_item *items;
	size_t i, n, shown = 0;

	fprintf(c->out, "%s%s accounts for %.2f%% of %s (%.1f / %.1f ms, %" PRIu64 " %s)\n",
		b->indent, f->name, report_pct(f->samples, b->total), b->of,
		report_ms(f->samples, c->period), report_ms(b->total, c->period), f->samples,
		plural(f->samples, "sample", "samples"));
	items = text_sorted(c, NULL, f, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct attrib_instance *in = items[i].ptr;

		if (!text_shown(c, in->samples, b->total)) {
			folded_samples += in->samples;
			continue;
		}
		fprintf(c->out, "%s%10.1f ms %6.2f%%  %s\n", b->indent,
			report_ms(in->samples, c->period), report_pct(in->samples, b->total),
			in->name);
		shown++;
	}
	if (shown < n)
		fprintf(c->out, "%s      ... %zu %s%s below %.2f%% (%.1f ms)\n", b->indent,
			n - shown, shown ? "more " : "", plural(n - shown, "instance", "instances"),
			c->min_pct, report_ms(folded_samples, c->period));
	free(items);
	return 0;
}

/* "no feature NAME in this profile", and the features it has instead. */
static int text_missing(struct text_ctx *c)
{
	struct text_item *items;
	enum report_order saved = c->order;
	size_t i, n;

	fprintf(c->out, "no feature %s in this profile\n", c->feature);
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

/* The features of a block: all (folding those under --min-pct), or the one
 * of --feature, which the caller made sure b->a has. */
static int text_block(struct text_ctx *c, const struct text_block *b)
{
	size_t i, n, shown = 0;
	struct text_item *items;
	uint64_t uncharged;
	int err = 0;

	if (c->feature)
		return text_feature(c, b, report_find_feature(b->a, c->feature));
	if (!b->total) {
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

		if (!text_shown(c, f->samples, b->total))
			continue;
		err = text_feature(c, b, f);
		shown++;
	}
	if (!err && shown < n)
		fprintf(c->out, "%s... %zu %s%s below %.2f%% of %s\n", b->indent, n - shown,
			shown ? "more " : "", plural(n - shown, "feature", "features"), c->min_pct,
			b->of);
	/* In a section, the rest of its time; the note gives the whole's. */
	uncharged = attrib__uncharged_samples(b->a);
	if (!err && n && b->what && uncharged)
		fprintf(c->out, "%sno feature: %.2f%% of %s (%.1f / %.1f ms, %" PRIu64 " %s)\n",
			b->indent, report_pct(uncharged, b->total), b->of,
			report_ms(uncharged, c->period), report_ms(b->total, c->period), uncharged,
			plural(uncharged, "sample", "samples"));
	free(items);
	return err;
}

static void text_note(struct text_ctx *c)
{
	if (c->feature)
		return; /* one feature: its shares sum to nothing else */
	fprintf(c->out,
		"\nNote: each sample is charged to every feature with a live mark in its thread, "
		"so the shares above\nmay sum to more than 100%%, and samples in no feature "
		"(here %.2f%%) make them sum to less.\n",
		report_pct(attrib__uncharged_samples(c->a), c->total));
}

/* Explains an empty report; true when it had to. */
static bool text_empty(struct text_ctx *c)
{
	if (!profile__total_samples(c->p)) {
		fputs("no samples were taken of the target (was it running on a CPU?)\n", c->out);
		return true;
	}
	if (!c->total) {
		fputs("no samples were taken of the selected process or thread\n", c->out);
		return true;
	}
	if (!attrib__nr_features(c->a)) {
		fprintf(c->out,
			"no feature was charged: none of the %" PRIu64 " %s had a live mark\n",
			c->total, plural(c->total, "sample", "samples"));
		return true;
	}
	return false;
}

/* --by feature: the features of the whole attribution. */
static int text_features(struct text_ctx *c)
{
	struct text_block b = {
		.a = c->a,
		.total = c->total,
		.indent = "",
		.of = "running time",
	};
	int err;

	fputc('\n', c->out);
	if (text_empty(c))
		return c->feature ? -ENOENT : 0;
	if (c->feature && !report_find_feature(c->a, c->feature))
		return text_missing(c);
	err = text_block(c, &b);
	if (!err)
		text_note(c);
	return err;
}

/* Who a section of --by thread or process is about. */
struct text_who {
	bool thread;
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	const char *comm; /* "" when unknown */
	uint64_t samples;
	size_t nr_threads; /* of a process */
};

static void text_section_header(struct text_ctx *c, const struct text_who *w)
{
	uint64_t all = profile__total_samples(c->p);
	char pid[320];

	report_pid_name(c->p, w->source, w->pid, pid, sizeof(pid));
	fputc('\n', c->out);
	if (w->thread)
		fprintf(c->out, "thread %u%s%s%s of pid %s", w->tid, *w->comm ? " (" : "", w->comm,
			*w->comm ? ")" : "", pid);
	else
		fprintf(c->out, "process %s%s%s%s", pid, *w->comm ? " (" : "", w->comm,
			*w->comm ? ")" : "");
	fprintf(c->out, ": %.1f ms, %.2f%% of running time (%" PRIu64 " %s",
		report_ms(w->samples, c->period), report_pct(w->samples, all), w->samples,
		plural(w->samples, "sample", "samples"));
	if (!w->thread)
		fprintf(c->out, ", %zu %s", w->nr_threads,
			plural(w->nr_threads, "thread", "threads"));
	fputs(")\n", c->out);
}

/* One section: its header line and its features. Sets *skipped when
 * --feature was not charged in it (then nothing is written). */
static int text_section(struct text_ctx *c, const struct text_who *w, bool *skipped)
{
	struct attrib_opts sel = {.pid = w->pid, .source = w->source};
	struct text_block b = {.indent = "  "};
	struct attrib *a;
	int err;

	if (w->thread)
		sel.tid = w->tid;
	a = attrib__compute(c->p, &sel);
	if (!a)
		return -ENOMEM;
	b.a = a;
	b.total = attrib__total_samples(a);
	b.what = w->thread ? "thread" : "process";
	b.of = w->thread ? "the thread's time" : "the process's time";
	*skipped = c->feature && !report_find_feature(a, c->feature);
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
	uint64_t all = profile__total_samples(c->p), folded_samples = 0;
	size_t i, n = 0, folded = 0, without = 0;
	struct report_process *procs = NULL;
	struct report_thread *threads = NULL;
	const char *one = thread ? "thread" : "process";
	const char *many = thread ? "threads" : "processes";
	bool skipped = false;
	int err;

	if (!all || !c->total || !attrib__nr_features(c->a)) {
		fputc('\n', c->out);
		text_empty(c);
		return c->feature ? -ENOENT : 0;
	}
	if (c->feature && !report_find_feature(c->a, c->feature)) {
		fputc('\n', c->out);
		return text_missing(c);
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
			w.tid = threads[i].tid;
			w.comm = threads[i].comm;
			w.samples = threads[i].key.samples;
		} else {
			w.source = procs[i].source;
			w.pid = procs[i].pid;
			w.comm = procs[i].comm;
			w.samples = procs[i].key.samples;
			w.nr_threads = procs[i].nr_threads;
		}
		if (!text_shown(c, w.samples, all)) {
			folded++;
			folded_samples += w.samples;
			continue;
		}
		err = text_section(c, &w, &skipped);
		without += skipped;
	}
	/* "more" when some section was shown above the line. */
	if (!err && folded)
		fprintf(c->out, "\n... %zu %s%s below %.2f%% of running time (%.1f ms)\n", folded,
			folded + without < n ? "more " : "", plural(folded, one, many), c->min_pct,
			report_ms(folded_samples, c->period));
	if (!err && without)
		fprintf(c->out, "%s... %zu %s%s not charged to %s\n", folded ? "" : "\n", without,
			folded + without < n ? "more " : "", plural(without, one, many),
			c->feature);
	if (!err)
		text_note(c);
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
	struct attrib *own = NULL;
	locale_t c_loc, old_loc;
	struct text_ctx c = {};
	int err = 0, werr = 0;

	if (!out || !p)
		return -EINVAL;
	if (opts && ((unsigned int)opts->by > REPORT_BY_PROCESS ||
		     (unsigned int)opts->order > REPORT_ORDER_NAME))
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
	c.order = opts ? opts->order : REPORT_ORDER_COST;
	c.feature = opts ? opts->feature : NULL;
	c.period = report_period_ns(profile__meta(p));
	c.total = attrib__total_samples(a);
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
	attrib__free(own);
	return err;
}
