// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Renderers of a profile diff: the text table and JSON (docs/diff-format.md). */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diff.h"
#include "escape.h"
#include "json_out.h"
#include "output.h"
#include "report.h"

#define DIFF_FORMAT_VERSION 1
/* The name column is as wide as the longest name, within these bounds. */
#define NAME_MIN_WIDTH 18
#define NAME_MAX_WIDTH 48

/* ---- text ---------------------------------------------------------------- */

struct text_ctx {
	FILE *out;
	const struct diff *d;
	double min_pct;
	int width; /* of the name column */
	bool scaled;
};

/* -0.0 (e.g. a zero deviation computed as 0 - 0 x K) prints as +0.0. */
static double no_neg_zero(double v)
{
	return v == 0 ? 0.0 : v;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "2023-11-14 22:13:20 UTC", or "an unknown time" when t is not set. */
static void format_time(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&secs, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "an unknown time");
}

static void text_side(struct text_ctx *c, const char *label, const struct diff_side *s)
{
	const struct profile_meta *m = s->meta;
	char when[64];

	format_time(m->start_time, when, sizeof(when));
	/* target and host are the profiles' text: escaped */
	fprintf(c->out, "  %s ", label);
	escape__fputs(m->target ? m->target : "an unnamed target", c->out);
	if (m->host) {
		fputs(" on ", c->out);
		escape__fputs(m->host, c->out);
	}
	fprintf(c->out, ", started %s, %" PRIu64 " %s = %.1f ms (%.3f ms per sample)\n", when,
		s->total_samples, s->total_samples == 1 ? "sample" : "samples", s->total_ms,
		(double)s->period_ns / 1e6);
}

static bool text_has_functions(const struct diff *d)
{
	for (size_t i = 0; i < diff__nr_features(d); i++)
		if (diff__feature(d, i)->nr_functions)
			return true;
	return false;
}

static void text_header(struct text_ctx *c)
{
	const struct diff_totals *t = diff__totals(c->d);

	fprintf(c->out, "fsp-bpf diff of feature profiles\n");
	text_side(c, "base:", diff__base(c->d));
	text_side(c, "new: ", diff__new(c->d));
	fprintf(c->out, "  total: %.1f ms -> %.1f ms, change %+.1f ms", t->base_ms, t->new_ms,
		no_neg_zero(t->delta_ms));
	if (!isnan(t->growth))
		fprintf(c->out, " (x%.2f)", t->growth);
	fprintf(c->out, "\n");
	if (c->scaled)
		fprintf(c->out,
			"  scale %g: predicted %.1f ms (%g x base), deviation %+.1f ms;"
			" rows sorted by |deviation| from linear growth\n",
			t->scale, t->predicted_ms, t->scale, no_neg_zero(t->deviation_ms));
	else
		fprintf(c->out, "  rows sorted by |change in time|\n");
	fprintf(c->out, "Shares are of each profile's samples; a sample can be charged to several "
			"features or to none, so shares need not sum to 100%%.\n");
	if (text_has_functions(c->d))
		fprintf(c->out, "Functions: a feature's samples whose native stack's leaf ran in "
				"the function (self time; record --stacks).\n");
}

/* A row is shown when its share in either profile or its change reaches min_pct. */
static bool text_shown(const struct text_ctx *c, const struct diff_row *r)
{
	return r->base_pct >= c->min_pct || r->new_pct >= c->min_pct ||
	       (r->delta_pp < 0 ? -r->delta_pp : r->delta_pp) >= c->min_pct;
}

static void text_columns(struct text_ctx *c)
{
	fprintf(c->out, "%-*s %10s %8s %10s %8s %10s %8s", c->width, "feature / instance",
		"base ms", "base %", "new ms", "new %", "+/- ms", "+/- pp");
	if (c->scaled)
		fprintf(c->out, " %10s %10s %8s", "predicted", "deviation", "growth");
	fprintf(c->out, "\n");
}

static void text_row(struct text_ctx *c, const struct diff_row *r, int indent)
{
	char growth[32];

	/* the name escaped, padded by its escaped width */
	fprintf(c->out, "%*s", indent, "");
	escape__fpad(r->name, (size_t)(c->width - indent), c->out);
	fprintf(c->out, " %10.1f %7.2f%% %10.1f %7.2f%% %+10.1f %+8.2f", r->base_ms, r->base_pct,
		r->new_ms, r->new_pct, no_neg_zero(r->delta_ms), no_neg_zero(r->delta_pp));
	if (c->scaled) {
		if (isnan(r->growth))
			snprintf(growth, sizeof(growth), "-");
		else
			snprintf(growth, sizeof(growth), "x%.2f", r->growth);
		fprintf(c->out, " %10.1f %+10.1f %8s", r->predicted_ms,
			no_neg_zero(r->deviation_ms), growth);
	}
	if (r->flags & DIFF_NEW)
		fprintf(c->out, "  NEW");
	if (r->flags & DIFF_GONE)
		fprintf(c->out, "  GONE");
	fprintf(c->out, "\n");
}

static void text_fold(struct text_ctx *c, size_t n, int indent)
{
	if (n)
		fprintf(c->out, "%*s... %zu more %s under %g%%\n", indent, "", n,
			plural(n, "row", "rows"), c->min_pct);
}

/* The name column: as wide as the longest shown name, escaped (indented
 * instances too). */
static int text_width(const struct text_ctx *c)
{
	const struct diff_feature *f;
	size_t i, j, w = NAME_MIN_WIDTH;

	for (i = 0; i < diff__nr_features(c->d); i++) {
		f = diff__feature(c->d, i);
		if (!text_shown(c, &f->row))
			continue;
		if (escape__width(f->row.name) > w)
			w = escape__width(f->row.name);
		for (j = 0; j < f->nr_instances; j++)
			if (text_shown(c, &f->instances[j]) &&
			    escape__width(f->instances[j].name) + 2 > w)
				w = escape__width(f->instances[j].name) + 2;
		for (j = 0; j < f->nr_functions; j++)
			if (text_shown(c, &f->functions[j]) &&
			    escape__width(f->functions[j].name) + 4 > w)
				w = escape__width(f->functions[j].name) + 4;
	}
	for (i = 0; i < diff__nr_functions(c->d); i++)
		if (text_shown(c, diff__function(c->d, i)) &&
		    escape__width(diff__function(c->d, i)->name) + 2 > w)
			w = escape__width(diff__function(c->d, i)->name) + 2;
	return (int)(w < NAME_MAX_WIDTH ? w : NAME_MAX_WIDTH);
}

/* The feature's functions (self time), under a subheading, when one is shown. */
static void text_functions(struct text_ctx *c, const struct diff_feature *f)
{
	size_t j, shown = 0;

	for (j = 0; j < f->nr_functions; j++)
		shown += text_shown(c, &f->functions[j]);
	if (!shown) /* all under --min-pct: no block (the feature's share says enough) */
		return;
	fprintf(c->out, "  functions (self):\n");
	for (j = 0; j < f->nr_functions; j++)
		if (text_shown(c, &f->functions[j]))
			text_row(c, &f->functions[j], 4);
	text_fold(c, f->nr_functions - shown, 4);
}

/* Every sample's functions (self time), after the features, when one is shown. */
static void text_all_functions(struct text_ctx *c)
{
	size_t i, shown = 0, n = diff__nr_functions(c->d);

	for (i = 0; i < n; i++)
		shown += text_shown(c, diff__function(c->d, i));
	if (!shown)
		return;
	fprintf(c->out, "\nall samples, functions (self):\n");
	for (i = 0; i < n; i++)
		if (text_shown(c, diff__function(c->d, i)))
			text_row(c, diff__function(c->d, i), 2);
	text_fold(c, n - shown, 2);
}

static void text_table(struct text_ctx *c)
{
	const struct diff_feature *f;
	size_t i, j, folded = 0, folded_inst;

	if (!diff__nr_features(c->d)) {
		fprintf(c->out, "\nNo feature was charged in either profile.\n");
		return;
	}
	c->width = text_width(c);
	fprintf(c->out, "\n");
	text_columns(c);
	for (i = 0; i < diff__nr_features(c->d); i++) {
		f = diff__feature(c->d, i);
		/* a hidden feature's instances are hidden too: their shares are smaller */
		if (!text_shown(c, &f->row)) {
			folded++;
			continue;
		}
		text_row(c, &f->row, 0);
		folded_inst = 0;
		for (j = 0; j < f->nr_instances; j++) {
			if (text_shown(c, &f->instances[j]))
				text_row(c, &f->instances[j], 2);
			else
				folded_inst++;
		}
		text_fold(c, folded_inst, 2);
		text_functions(c, f);
	}
	text_fold(c, folded, 0);
	text_all_functions(c);
}

int diff__text(FILE *out, const struct diff *d, const struct diff_report_opts *o)
{
	struct text_ctx c = {};
	struct c_locale loc;
	int err;

	if (!out || !d)
		return -EINVAL;
	err = c_locale__enter(&loc);
	if (err)
		return err;
	c.out = out;
	c.d = d;
	c.min_pct = o && o->min_pct > 0 ? o->min_pct : 0;
	c.scaled = diff__scaled(d);
	text_header(&c);
	text_table(&c);
	c_locale__leave(&loc);
	return flush_status(out);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Builds the document with json_out.h: the first failure sticks in w->err. */

static void dj_string(struct json_out *w, struct json_object *o, const char *key, const char *s)
{
	json_out__add(w, o, key, json_out__str(w, s));
}

static void dj_u64(struct json_out *w, struct json_object *o, const char *key, uint64_t v)
{
	json_out__add(w, o, key, json_out__u64(w, v));
}

static void dj_bool(struct json_out *w, struct json_object *o, const char *key, bool v)
{
	json_out__add(w, o, key, json_out__bool(w, v));
}

/* A real as the JSON profile writes reals (json_out__real), -0 as 0; null
 * when v is not finite. */
static void dj_double(struct json_out *w, struct json_object *o, const char *key, double v)
{
	json_out__add(w, o, key, json_out__real(w, no_neg_zero(v)));
}

static struct json_object *dj_side(struct json_out *w, const struct diff_side *s)
{
	struct json_object *o = json_out__object(w);
	const struct profile_meta *m = s->meta;

	dj_string(w, o, "target", m->target);
	dj_string(w, o, "command_line", m->command_line);
	dj_string(w, o, "host", m->host);
	dj_string(w, o, "kernel", m->kernel);
	dj_double(w, o, "start_time", m->start_time);
	dj_double(w, o, "end_time", m->end_time);
	dj_double(w, o, "duration_s", m->duration_s);
	dj_u64(w, o, "frequency_hz", m->frequency_hz);
	dj_u64(w, o, "period_ns", s->period_ns);
	dj_u64(w, o, "total_samples", s->total_samples);
	dj_u64(w, o, "uncharged_samples", s->uncharged_samples);
	dj_double(w, o, "total_ms", s->total_ms);
	return o;
}

static struct json_object *dj_totals(struct json_out *w, const struct diff_totals *t)
{
	struct json_object *o = json_out__object(w);

	dj_double(w, o, "base_ms", t->base_ms);
	dj_double(w, o, "new_ms", t->new_ms);
	dj_double(w, o, "delta_ms", t->delta_ms);
	dj_double(w, o, "predicted_ms", t->predicted_ms);
	dj_double(w, o, "deviation_ms", t->deviation_ms);
	dj_double(w, o, "growth", t->growth);
	return o;
}

static struct json_object *dj_row(struct json_out *w, const struct diff_row *r)
{
	struct json_object *o = json_out__object(w);

	dj_string(w, o, "name", r->name);
	dj_bool(w, o, "new", r->flags & DIFF_NEW);
	dj_bool(w, o, "gone", r->flags & DIFF_GONE);
	dj_u64(w, o, "base_samples", r->base_samples);
	dj_double(w, o, "base_ms", r->base_ms);
	dj_double(w, o, "base_pct", r->base_pct);
	dj_u64(w, o, "new_samples", r->new_samples);
	dj_double(w, o, "new_ms", r->new_ms);
	dj_double(w, o, "new_pct", r->new_pct);
	dj_double(w, o, "delta_ms", r->delta_ms);
	dj_double(w, o, "delta_pp", r->delta_pp);
	dj_double(w, o, "predicted_ms", r->predicted_ms);
	dj_double(w, o, "deviation_ms", r->deviation_ms);
	dj_double(w, o, "growth", r->growth);
	return o;
}

/* The pretty-printing flags of the diff document. */
#define DJ_FLAGS                                                                                   \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* v pretty-printed as a member of an array at depth 2 (json-c's layout: two
 * spaces a level), then freed. A string holds no raw newline (json-c
 * escapes it), so each newline starts a line of v. */
static void dj_element(struct json_out *w, struct json_object *v, bool first)
{
	const char *s;

	if (!v) {
		w->err = w->err ? w->err : -ENOMEM;
		return;
	}
	s = json_object_to_json_string_ext(v, DJ_FLAGS);
	if (!s && !w->err)
		w->err = -ENOMEM;
	json_out__puts(w, first ? "    " : ",\n    ");
	for (const char *nl; s && !w->err; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl) {
			json_out__puts(w, s);
			break;
		}
		json_out__raw(w, s, (size_t)(nl - s));
		json_out__puts(w, "\n    ");
	}
	json_object_put(v);
}

/* A feature with its instances and functions. */
static struct json_object *dj_feature(struct json_out *w, const struct diff_feature *f)
{
	struct json_object *fo = dj_row(w, &f->row), *insts;
	size_t j;

	insts = json_out__array(w, f->nr_instances);
	for (j = 0; j < f->nr_instances && !w->err; j++)
		json_out__append(w, insts, dj_row(w, &f->instances[j]));
	json_out__add(w, fo, "instances", insts);
	insts = json_out__array(w, f->nr_functions);
	for (j = 0; j < f->nr_functions && !w->err; j++)
		json_out__append(w, insts, dj_row(w, &f->functions[j]));
	json_out__add(w, fo, "functions", insts);
	return fo;
}

/*
 * The "features" and "functions" members, written a row at a time: a diff
 * of 10^6 features made as one json-c tree took gigabytes (issue 26). The
 * bytes are those json-c writes for the whole tree.
 */
static void dj_rows(struct json_out *w, const struct diff *d)
{
	size_t i;

	json_out__puts(w, ",\n  \"features\": [\n");
	for (i = 0; i < diff__nr_features(d) && !w->err; i++)
		dj_element(w, dj_feature(w, diff__feature(d, i)), !i);
	json_out__puts(w, i ? "\n  ],\n  \"functions\": [\n" : "  ],\n  \"functions\": [\n");
	for (i = 0; i < diff__nr_functions(d) && !w->err; i++)
		dj_element(w, dj_row(w, diff__function(d, i)), !i);
	json_out__puts(w, i ? "\n  ]\n}" : "  ]\n}");
}

int diff__json(FILE *out, const struct diff *d)
{
	struct json_object *root;
	struct json_out w;
	const char *head;
	size_t len;
	int err;

	if (!out || !d)
		return -EINVAL;
	err = json_out__begin(&w, out);
	if (err)
		return err;
	root = json_out__object(&w);
	dj_u64(&w, root, "version", DIFF_FORMAT_VERSION);
	dj_string(&w, root, "tool", "fsp-bpf");
	dj_string(&w, root, "tool_version", FSP_VERSION);
	dj_double(&w, root, "scale", diff__totals(d)->scale);
	dj_string(&w, root, "sorted_by", diff__scaled(d) ? "deviation_ms" : "delta_ms");
	json_out__add(&w, root, "base", dj_side(&w, diff__base(d)));
	json_out__add(&w, root, "new", dj_side(&w, diff__new(d)));
	json_out__add(&w, root, "totals", dj_totals(&w, diff__totals(d)));
	/* The head as json-c lays it out, without its closing "\n}". */
	head = root ? json_object_to_json_string_ext(root, DJ_FLAGS) : NULL;
	len = head ? strlen(head) : 0;
	if (!w.err && len < 2)
		w.err = -ENOMEM;
	if (!w.err)
		json_out__raw(&w, head, len - 2);
	json_object_put(root);
	dj_rows(&w, d);
	json_out__puts(&w, "\n");
	return json_out__end(&w);
}
