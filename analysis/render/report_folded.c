// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folded stacks ("frame;frame;frame COUNT" lines) for flame graph tools:
 * flamegraph.pl, inferno, speedscope. docs/output-formats.md describes them.
 *
 * Each charge of the attribution rule is a line: a sample charged to two
 * nested features counts on a line of each, so the lines sum to the charges
 * plus the uncharged samples, which is at least the samples taken.
 *
 * A line counts samples by default; report_opts.folded_value makes it count
 * off-CPU nanoseconds or wall-clock nanoseconds (on-CPU samples x period +
 * off-CPU) instead, charged by the same rule.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "hashmap.h"
#include "report.h"
#include "report_util.h"
#include "report_view.h"
#include "util.h"

/* What replaces an instance under --min-pct: its samples are summed per
 * feature (and process, thread) into this frame, so totals do not change. */
#define FOLDED_OTHER "(other instances)"

struct folded_line {
	char *stack; /* escaped frames joined by ';' */
	size_t leaf; /* offset of the instance frame, 0 when none (no feature) */
	uint64_t count;
};

/* A line before its text is made: the frames are interned strings (the
 * prefix one per thread), so equal lines have equal pointers. */
struct folded_raw {
	const char *prefix, *feature, *instance; /* feature NULL: no feature */
	uint64_t count;
};

struct folded_ctx {
	const struct profile *p;
	enum report_by by;
	enum report_value value; /* what a line counts */
	uint64_t period; /* ns per sample */
	bool skip_zero; /* leave out lines of value 0 */
	const char *feature; /* --feature, NULL for all */
	const struct report_features *feat; /* the features it names */
	struct report_charges charges;
	struct hashmap thread_map; /* (source << 32 | pid, tid) -> prefix index */
	char **prefixes; /* per thread: its process (and thread) frames and ';' */
	size_t nr_prefixes, cap_prefixes;
	struct folded_raw *raw;
	size_t nr_raw, cap_raw;
	struct folded_line *lines;
	size_t nr_lines, cap_lines;
};

/*
 * Writes s percent-encoded: '%', ';', ' ' and every byte that escape.h's
 * rule escapes in human-readable output (controls, DEL, invalid UTF-8, the
 * bytes of C1 controls, bidirectional controls and the other characters of
 * its set) become %XX (uppercase hex); the rest, valid UTF-8 included, is
 * kept. So no label can split a frame, end the stack early or break a
 * line, the output is valid UTF-8 that is safe to print, and the text of
 * frames fsp-bpf makes itself ("(no feature)", "demo (1234)"), whose spaces
 * stay raw, never equals an encoded label.
 */
static void folded_escape(FILE *out, const char *s)
{
	size_t n = strlen(s), i, j, len;
	uint32_t cp;

	for (i = 0; i < n; i += len) {
		if (escape__unit(s + i, n - i, &len, &cp) != ESCAPE_KEEP) {
			for (j = i; j < i + len; j++)
				fprintf(out, "%%%02X", (unsigned char)s[j]);
		} else if (s[i] == '%' || s[i] == ';' || s[i] == ' ') {
			fprintf(out, "%%%02X", (unsigned char)s[i]);
		} else {
			fwrite(s + i, 1, len, out);
		}
	}
}

/* The frames before the features of a sample of thread (source, pid, tid):
 * "" by feature, "PROC (PID);" by process, "PROC (PID);THREAD (TID);" by
 * thread. Kept per thread; NULL on allocation failure. */
static const char *folded_prefix(struct folded_ctx *c, uint32_t source, uint32_t pid, uint32_t tid,
				 const char *proc_comm, const char *comm)
{
	char srcname[300], *buf = NULL;
	size_t len = 0;
	uint64_t idx;
	FILE *f;

	if (hashmap__find(&c->thread_map, (uint64_t)source << 32 | pid, tid, &idx))
		return c->prefixes[idx];
	if (fsp_grow((void **)&c->prefixes, &c->cap_prefixes, c->nr_prefixes + 1,
		     sizeof(*c->prefixes)))
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	folded_escape(f, *proc_comm ? proc_comm : "[unknown]");
	fputs(" (", f);
	if (profile__nr_sources(c->p) > 1) {
		/* "HOST:PID": the host is a label, "source N" is ours */
		if (report_source_name(c->p, source, srcname, sizeof(srcname)))
			folded_escape(f, srcname);
		else
			fputs(srcname, f);
		fputc(':', f);
	}
	fprintf(f, "%u);", pid);
	if (c->by == REPORT_BY_THREAD) {
		folded_escape(f, *comm ? comm : "[unknown]");
		fprintf(f, " (%u);", tid);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	if (hashmap__find_or_insert(&c->thread_map, (uint64_t)source << 32 | pid, tid,
				    c->nr_prefixes, NULL) < 0) {
		free(buf);
		return NULL;
	}
	c->prefixes[c->nr_prefixes++] = buf;
	return buf;
}

/* Records a charge; lines are made of the distinct ones (folded_lines). */
static int folded_add(struct folded_ctx *c, const char *prefix, const char *feature,
		      const char *instance, uint64_t count)
{
	int err;

	err = fsp_grow((void **)&c->raw, &c->cap_raw, c->nr_raw + 1, sizeof(*c->raw));
	if (err)
		return err;
	c->raw[c->nr_raw++] = (struct folded_raw){prefix, feature, instance, count};
	return 0;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return (x > y) - (x < y);
}

static int folded_raw_cmp(const void *x, const void *y)
{
	const struct folded_raw *a = x, *b = y;
	int r = cmp_ptr(a->prefix, b->prefix);

	if (!r)
		r = cmp_ptr(a->feature, b->feature);
	return r ? r : cmp_ptr(a->instance, b->instance);
}

static int folded_line_add(struct folded_ctx *c, const char *prefix, const char *feature,
			   const char *instance, uint64_t count);

/* Sums equal charges (by pointer: cheap), then makes one line of each. */
static int folded_lines(struct folded_ctx *c)
{
	size_t i, j;
	int err = 0;

	if (c->nr_raw)
		qsort(c->raw, c->nr_raw, sizeof(*c->raw), folded_raw_cmp);
	for (i = 0; i < c->nr_raw; i = j) {
		uint64_t count = c->raw[i].count;

		for (j = i + 1; j < c->nr_raw && !folded_raw_cmp(&c->raw[i], &c->raw[j]); j++)
			count = report_sat_add(count, c->raw[j].count);
		err = folded_line_add(c, c->raw[i].prefix, c->raw[i].feature, c->raw[i].instance,
				      count);
		if (err)
			break;
	}
	return err;
}

/* Adds a line: prefix, then feature;instance (escaped) or "(no feature)"
 * when feature is NULL. */
static int folded_line_add(struct folded_ctx *c, const char *prefix, const char *feature,
			   const char *instance, uint64_t count)
{
	struct folded_line *l;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	err = fsp_grow((void **)&c->lines, &c->cap_lines, c->nr_lines + 1, sizeof(*c->lines));
	if (err)
		return err;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fputs(prefix, f);
	l = &c->lines[c->nr_lines];
	l->leaf = 0;
	if (!feature) {
		fputs(REPORT_NO_FEATURE, f);
	} else {
		folded_escape(f, feature);
		fputc(';', f);
		l->leaf = (size_t)ftell(f);
		/* The NULL instance's label is ours: written as is, as the
		 * text report and attrib.h name it. */
		if (!strcmp(instance, ATTRIB_NO_INSTANCE))
			fputs(ATTRIB_NO_INSTANCE, f);
		else
			folded_escape(f, instance);
	}
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	l->stack = buf;
	l->count = count;
	c->nr_lines++;
	return 0;
}

static int folded_cmp(const void *x, const void *y)
{
	const struct folded_line *a = x, *b = y;

	return strcmp(a->stack, b->stack);
}

/* Sorts the lines by stack and sums those with equal stacks. */
static void folded_merge(struct folded_ctx *c)
{
	size_t i, n = 0;

	if (!c->nr_lines)
		return;
	qsort(c->lines, c->nr_lines, sizeof(*c->lines), folded_cmp);
	for (i = 0; i < c->nr_lines; i++) {
		if (n && !strcmp(c->lines[n - 1].stack, c->lines[i].stack)) {
			c->lines[n - 1].count =
				report_sat_add(c->lines[n - 1].count, c->lines[i].count);
			free(c->lines[i].stack);
			continue;
		}
		c->lines[n++] = c->lines[i];
	}
	c->nr_lines = n;
}

/* What a line counts of `count` samples and off_ns off-CPU time. */
static uint64_t folded_value(const struct folded_ctx *c, uint64_t count, uint64_t off_ns)
{
	switch (c->value) {
	case REPORT_VALUE_OFFCPU:
		return off_ns;
	case REPORT_VALUE_WALL:
		return report_charged_ns(count, off_ns, c->period);
	case REPORT_VALUE_SAMPLES:
		break;
	}
	return count;
}

/* --min-pct: the instance frame of each line under min_pct of all samples
 * (of the whole value) becomes FOLDED_OTHER; equal stacks are then summed
 * again. */
static int folded_fold(struct folded_ctx *c, double min_pct)
{
	uint64_t total =
		folded_value(c, profile__total_samples(c->p), profile__total_offcpu_ns(c->p));
	bool changed = false;
	size_t i;
	char *s;

	for (i = 0; i < c->nr_lines; i++) {
		struct folded_line *l = &c->lines[i];

		if (!l->leaf || report_pct(l->count, total) >= min_pct)
			continue;
		s = realloc(l->stack, l->leaf + sizeof(FOLDED_OTHER));
		if (!s)
			return -ENOMEM;
		memcpy(s + l->leaf, FOLDED_OTHER, sizeof(FOLDED_OTHER));
		l->stack = s;
		changed = true;
	}
	if (changed)
		folded_merge(c);
	return 0;
}

static int folded_collect(struct folded_ctx *c)
{
	struct hashmap proc_comms = HASHMAP_INIT, comms = HASHMAP_INIT;
	const struct report_charge *ch;
	struct profile_thread t;
	struct profile_sample s;
	const char *prefix = "";
	size_t i, j, n;
	uint64_t v, value;
	int err;

	err = report_process_comms(c->p, &proc_comms);
	if (err)
		goto cleanup;
	for (i = 0; c->by != REPORT_BY_FEATURE && i < profile__nr_threads(c->p); i++) {
		err = profile__thread(c->p, i, &t);
		if (err)
			goto cleanup;
		err = hashmap__find_or_insert(&comms, (uint64_t)t.source << 32 | t.pid, t.tid,
					      (uint64_t)(uintptr_t)t.comm, NULL);
		if (err < 0)
			goto cleanup;
		err = 0;
	}
	for (i = 0; i < profile__nr_samples(c->p); i++) {
		err = profile__sample(c->p, i, &s);
		if (err)
			goto cleanup;
		value = folded_value(c, s.count, s.offcpu_ns);
		if (!value && c->skip_zero)
			continue;
		if (c->by != REPORT_BY_FEATURE) {
			const char *pc = "", *tc = "";
			uint64_t pkey = (uint64_t)s.source << 32 | s.pid;

			if (hashmap__find(&proc_comms, s.source, s.pid, &v))
				pc = (const char *)(uintptr_t)v;
			if (hashmap__find(&comms, pkey, s.tid, &v))
				tc = (const char *)(uintptr_t)v;
			prefix = folded_prefix(c, s.source, s.pid, s.tid, pc, tc);
			if (!prefix) {
				err = -ENOMEM;
				goto cleanup;
			}
		}
		ch = report_charges__of(&c->charges, s.stack, &n);
		if (!n && !c->feature) {
			err = folded_add(c, prefix, NULL, NULL, value);
			if (err)
				goto cleanup;
		}
		for (j = 0; j < n; j++) {
			if (!report_features__has(c->feat, ch[j].feature))
				continue;
			err = folded_add(c, prefix, ch[j].feature, ch[j].instance, value);
			if (err)
				goto cleanup;
		}
	}
cleanup:
	hashmap__fini(&proc_comms);
	hashmap__fini(&comms);
	return err;
}

static void folded_ctx_fini(struct folded_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nr_lines; i++)
		free(c->lines[i].stack);
	free(c->lines);
	free(c->raw);
	for (i = 0; i < c->nr_prefixes; i++)
		free(c->prefixes[i]);
	free(c->prefixes);
	hashmap__fini(&c->thread_map);
	report_charges__fini(&c->charges);
}

int report__folded(FILE *out, const struct profile *p, const struct report_opts *opts)
{
	struct folded_ctx c = {.thread_map = HASHMAP_INIT};
	double min_pct = opts && opts->min_pct > 0 ? opts->min_pct : 0;
	struct report_scope scope;
	size_t i;
	int err;

	if (!out || !p)
		return -EINVAL;
	if (opts && ((unsigned int)opts->by > REPORT_BY_PROCESS ||
		     (unsigned int)opts->folded_value > REPORT_VALUE_WALL))
		return -EINVAL;
	/* A process filter: the lines of the filtered profile (--min-pct of its total). */
	err = report_scope__init(&scope, p, opts);
	if (err)
		return err;
	c.p = scope.p;
	c.by = opts ? opts->by : REPORT_BY_FEATURE;
	c.value = opts ? opts->folded_value : REPORT_VALUE_SAMPLES;
	c.period = report_period_ns(profile__meta(c.p));
	/* Records of off-CPU time alone have no sample: no "STACK 0" lines.
	 * (A profile without off-CPU time keeps its lines as they always were.) */
	c.skip_zero = c.value != REPORT_VALUE_SAMPLES || profile__total_offcpu_ns(c.p);
	c.feature = scope.feature;
	c.feat = &scope.feat;
	err = report_charges__init(&c.charges, c.p);
	if (!err)
		err = folded_collect(&c);
	if (!err)
		err = folded_lines(&c);
	if (err)
		goto cleanup;
	folded_merge(&c);
	if (min_pct > 0) {
		err = folded_fold(&c, min_pct);
		if (err)
			goto cleanup;
	}
	if (c.feature && !c.nr_lines) {
		err = -ENOENT; /* nothing written: the caller says why */
		goto cleanup;
	}
	errno = 0;
	for (i = 0; i < c.nr_lines; i++)
		fprintf(out, "%s %" PRIu64 "\n", c.lines[i].stack, c.lines[i].count);
	err = flush_status(out);
cleanup:
	folded_ctx_fini(&c);
	report_scope__fini(&scope);
	return err;
}
