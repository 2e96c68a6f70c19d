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
#include "output.h"
#include "report.h"
#include "report_native.h"
#include "report_view.h"
#include "strtab.h"
#include "util.h"

/* What replaces an instance under --min-pct: its samples are summed per
 * feature (and process, thread) into this frame, so totals do not change. */
#define FOLDED_OTHER "(other instances)"

/* A line: its head (process and thread frames, feature, instance) and its
 * native frames (";outer;...;leaf" or ""), both shared with other lines. */
struct folded_line {
	const char *head; /* interned in folded_ctx.heads */
	const char *tail; /* folded_ctx.tails[stack] or "" */
	uint64_t count;
};

/* A line before its text is made: the frames are interned strings (the
 * prefix one per thread), so equal lines have equal pointers. */
struct folded_raw {
	const char *prefix, *feature, *instance; /* feature NULL: no feature */
	size_t native; /* native stack above the instance, SIZE_MAX: none */
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
	struct charges charges;
	struct native_view native; /* when the profile has native stacks */
	bool has_native;
	char **escaped; /* per native function: ";label", escaped (made once) */
	char **tails; /* per native stack: its line's native frames, made when needed */
	struct strtab *heads; /* the lines' heads */
	struct hashmap thread_map; /* (source << 32 | pid, tid) -> prefix index */
	/* per thread: its process (and thread) frames and ';', interned in
	 * prefix_tab: the threads of a process share their --by process prefix */
	const char **prefixes;
	size_t nr_prefixes, cap_prefixes;
	struct strtab *prefix_tab;
	double min_pct;
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
	c->prefixes[c->nr_prefixes] = strtab__intern(c->prefix_tab, buf);
	free(buf);
	return c->prefixes[c->nr_prefixes++];
}

/* Records a charge; lines are made of the distinct ones (folded_lines). */
static int folded_add(struct folded_ctx *c, const char *prefix, const char *feature,
		      const char *instance, size_t native, uint64_t count)
{
	int err;

	err = fsp_grow((void **)&c->raw, &c->cap_raw, c->nr_raw + 1, sizeof(*c->raw));
	if (err)
		return err;
	c->raw[c->nr_raw++] = (struct folded_raw){prefix, feature, instance, native, count};
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
	if (!r)
		r = cmp_ptr(a->instance, b->instance);
	return r ? r : fsp_cmp_u64(a->native, b->native);
}

/* The instance of raws under --min-pct: written as is, not escaped. */
static const char folded_other[] = FOLDED_OTHER;

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

/*
 * --min-pct: the charges of an instance (of a prefix and feature) that sum
 * to under min_pct of all samples (of the whole value: all off-CPU time,
 * all wall-clock time) get the instance folded_other; equal lines are then
 * summed. Pointers name strings one to one (labels and prefixes are
 * interned), so this decides on the lines before they are made: with
 * native stacks an instance has many.
 */
static bool folded_fold(struct folded_ctx *c)
{
	uint64_t total =
		folded_value(c, profile__total_samples(c->p), profile__total_offcpu_ns(c->p));
	bool changed = false;
	uint64_t sum;
	size_t i, j, k;

	for (i = 0; i < c->nr_raw; i = j) {
		const struct folded_raw *r = &c->raw[i];

		sum = r->count;
		for (j = i + 1;
		     j < c->nr_raw && c->raw[j].prefix == r->prefix &&
		     c->raw[j].feature == r->feature && c->raw[j].instance == r->instance;
		     j++)
			sum = fsp_sat_add(sum, c->raw[j].count);
		if (!r->feature || r->instance == folded_other ||
		    report_pct(sum, total) >= c->min_pct)
			continue;
		for (k = i; k < j; k++)
			c->raw[k].instance = folded_other;
		changed = true;
	}
	return changed;
}

/* The head of raw r's line: prefix, then feature;instance (escaped) or
 * "(no feature)"; interned, so equal heads are equal pointers. */
static const char *folded_head(struct folded_ctx *c, const struct folded_raw *r)
{
	const char *head;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs(r->prefix, f);
	if (!r->feature) {
		fputs(REPORT_NO_FEATURE, f);
	} else {
		folded_escape(f, r->feature);
		fputc(';', f);
		/* the NULL instance's label and (other instances) are ours:
		 * written as is, as the text report and attrib.h name them */
		if (r->instance == folded_other || !strcmp(r->instance, ATTRIB_NO_INSTANCE))
			fputs(r->instance, f);
		else
			folded_escape(f, r->instance);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	head = strtab__intern(c->heads, buf);
	free(buf);
	return head;
}

/* The native frames of stack `stack`, outermost first: ";outer;...;leaf",
 * made once per stack. NULL out of memory. */
static const char *folded_tail(struct folded_ctx *c, size_t stack)
{
	const uint32_t *fs;
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f;

	if (stack == SIZE_MAX)
		return "";
	if (c->tails[stack])
		return c->tails[stack];
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fs = native_view__stack(&c->native, stack, &n);
	while (n-- > 0)
		fputs(c->escaped[fs[n]], f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return c->tails[stack] = buf;
}

/* Sums equal charges (by pointer: cheap), folds --min-pct's, then makes
 * one line of each: its head and its native frames. */
static int folded_lines(struct folded_ctx *c)
{
	const char *head = NULL;
	size_t i, j;
	uint64_t count;
	int err;

	if (c->nr_raw)
		qsort(c->raw, c->nr_raw, sizeof(*c->raw), folded_raw_cmp);
	if (c->min_pct > 0 && folded_fold(c))
		qsort(c->raw, c->nr_raw, sizeof(*c->raw), folded_raw_cmp);
	for (i = 0; i < c->nr_raw; i = j) {
		const struct folded_raw *r = &c->raw[i];
		struct folded_line *l;

		count = r->count;
		for (j = i + 1; j < c->nr_raw && !folded_raw_cmp(r, &c->raw[j]); j++)
			count = fsp_sat_add(count, c->raw[j].count);
		/* raws are sorted: a run of one (prefix, feature, instance) shares its head */
		if (!i || r->prefix != r[-1].prefix || r->feature != r[-1].feature ||
		    r->instance != r[-1].instance)
			head = folded_head(c, r);
		err = fsp_grow((void **)&c->lines, &c->cap_lines, c->nr_lines + 1,
			       sizeof(*c->lines));
		if (err)
			return err;
		l = &c->lines[c->nr_lines];
		l->head = head;
		l->tail = folded_tail(c, r->native);
		if (!l->head || !l->tail)
			return -ENOMEM;
		l->count = count;
		c->nr_lines++;
	}
	return 0;
}

/* The escaped labels of the native functions: ";label" each. */
static int folded_escaped(struct folded_ctx *c)
{
	size_t i, len;
	FILE *f;

	c->escaped = calloc(c->native.nr_funcs + 1, sizeof(*c->escaped));
	c->tails = calloc(c->native.nr_stacks + 1, sizeof(*c->tails));
	if (!c->escaped || !c->tails)
		return -ENOMEM;
	for (i = 0; i < c->native.nr_funcs; i++) {
		f = open_memstream(&c->escaped[i], &len);
		if (!f)
			return -ENOMEM;
		fputc(';', f);
		folded_escape(f, c->native.funcs[i].label);
		if (fclose(f))
			return -ENOMEM;
	}
	return 0;
}

/* Compares the lines head + tail of a and b in byte order (as strcmp of
 * their texts would). */
static int folded_cmp(const void *x, const void *y)
{
	const struct folded_line *a = x, *b = y;
	const char *p = a->head, *q = b->head;
	bool pt = false, qt = false;

	if (a->head == b->head)
		return strcmp(a->tail, b->tail);
	for (;; p++, q++) {
		if (!*p && !pt) {
			p = a->tail;
			pt = true;
		}
		if (!*q && !qt) {
			q = b->tail;
			qt = true;
		}
		if (*p != *q || !*p)
			return (unsigned char)*p - (unsigned char)*q;
	}
}

/* Sorts the lines by their text and sums those with equal texts (the
 * threads of a process, --by process; stacks of equal functions). */
static void folded_merge(struct folded_ctx *c)
{
	size_t i, n = 0;

	if (!c->nr_lines)
		return;
	qsort(c->lines, c->nr_lines, sizeof(*c->lines), folded_cmp);
	for (i = 0; i < c->nr_lines; i++) {
		if (n && !folded_cmp(&c->lines[n - 1], &c->lines[i])) {
			c->lines[n - 1].count =
				fsp_sat_add(c->lines[n - 1].count, c->lines[i].count);
			continue;
		}
		c->lines[n++] = c->lines[i];
	}
	c->nr_lines = n;
}

/* The maps of process and thread names --by process and thread use. */
struct folded_names {
	struct hashmap proc_comms; /* (source, pid) -> main thread's comm */
	struct hashmap comms; /* (source << 32 | pid, tid) -> comm */
};

static int folded_names_init(struct folded_ctx *c, struct folded_names *nm)
{
	struct profile_thread t;
	size_t i;
	int err;

	err = report_process_comms(c->p, &nm->proc_comms);
	for (i = 0; !err && c->by != REPORT_BY_FEATURE && i < profile__nr_threads(c->p); i++) {
		err = profile__thread(c->p, i, &t);
		if (!err)
			err = hashmap__find_or_insert(&nm->comms, (uint64_t)t.source << 32 | t.pid,
						      t.tid, (uint64_t)(uintptr_t)t.comm, NULL);
		err = err < 0 ? err : 0;
	}
	return err;
}

/* The prefix of thread (source, pid, tid)'s lines; NULL out of memory. */
static const char *folded_thread(struct folded_ctx *c, const struct folded_names *nm,
				 uint32_t source, uint32_t pid, uint32_t tid)
{
	const char *pc = "", *tc = "";
	uint64_t v;

	if (c->by == REPORT_BY_FEATURE)
		return "";
	if (hashmap__find(&nm->proc_comms, source, pid, &v))
		pc = (const char *)(uintptr_t)v;
	if (hashmap__find(&nm->comms, (uint64_t)source << 32 | pid, tid, &v))
		tc = (const char *)(uintptr_t)v;
	return folded_prefix(c, source, pid, tid, pc, tc);
}

/* The charges of mark stack `stack` (--feature's), each a line of `value`
 * with native stack `native` (SIZE_MAX: none) above its instance;
 * uncharged ones "(no feature)" (not with --feature). */
static int folded_charges(struct folded_ctx *c, const char *prefix, size_t stack, size_t native,
			  uint64_t value)
{
	const struct charge *ch = charges__of(&c->charges, stack, &stack);
	size_t j;
	int err = 0;

	if (!stack && !c->feature)
		err = folded_add(c, prefix, NULL, NULL, native, value);
	for (j = 0; j < stack && !err; j++) {
		if (report_features__has(c->feat, ch[j].feature))
			err = folded_add(c, prefix, ch[j].feature, ch[j].instance, native, value);
	}
	return err;
}

/* The native samples joined to core samples (report_native.h): each
 * charged as its core sample, its frames above. */
static int folded_native_samples(struct folded_ctx *c, const struct folded_names *nm)
{
	const struct profile_native_sample *ns;
	const char *prefix;
	size_t i;
	int err = 0;

	if (c->value == REPORT_VALUE_OFFCPU)
		return 0; /* on-CPU samples: no off-CPU time */
	for (i = 0; i < c->native.nr_joins && !err; i++) {
		ns = &c->native.joins[i];
		prefix = folded_thread(c, nm, ns->source, ns->pid, ns->tid);
		if (!prefix)
			return -ENOMEM;
		err = folded_charges(c, prefix, ns->mark_stack, ns->stack,
				     folded_value(c, ns->count, 0));
	}
	return err;
}

static int folded_collect(struct folded_ctx *c)
{
	struct folded_names nm = {HASHMAP_INIT, HASHMAP_INIT};
	struct profile_sample s;
	const char *prefix;
	uint64_t value, count;
	size_t i;
	int err;

	err = folded_names_init(c, &nm);
	for (i = 0; i < profile__nr_samples(c->p) && !err; i++) {
		err = profile__sample(c->p, i, &s);
		if (err)
			break;
		/* with native stacks, the samples that have none */
		count = c->has_native ? c->native.rest[i] : s.count;
		value = folded_value(c, count, s.offcpu_ns);
		if (!value && (c->skip_zero || count != s.count))
			continue;
		prefix = folded_thread(c, &nm, s.source, s.pid, s.tid);
		if (!prefix) {
			err = -ENOMEM;
			break;
		}
		err = folded_charges(c, prefix, s.stack, SIZE_MAX, value);
	}
	if (!err && c->has_native)
		err = folded_native_samples(c, &nm);
	hashmap__fini(&nm.proc_comms);
	hashmap__fini(&nm.comms);
	return err;
}

static void folded_ctx_fini(struct folded_ctx *c)
{
	size_t i;

	free(c->lines);
	strtab__free(c->heads);
	for (i = 0; c->tails && i < c->native.nr_stacks; i++)
		free(c->tails[i]);
	free(c->tails);
	free(c->raw);
	free(c->prefixes);
	strtab__free(c->prefix_tab);
	hashmap__fini(&c->thread_map);
	charges__fini(&c->charges);
	for (i = 0; c->escaped && i < c->native.nr_funcs; i++)
		free(c->escaped[i]);
	free(c->escaped);
	native_view__fini(&c->native);
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
	c.min_pct = min_pct;
	c.prefix_tab = strtab__new();
	c.heads = strtab__new();
	if (!c.prefix_tab || !c.heads) {
		err = -ENOMEM;
		goto cleanup;
	}
	c.by = opts ? opts->by : REPORT_BY_FEATURE;
	c.value = opts ? opts->folded_value : REPORT_VALUE_SAMPLES;
	c.period = profile_meta__period_ns(profile__meta(c.p));
	/* Records of off-CPU time alone have no sample: no "STACK 0" lines.
	 * (A profile without off-CPU time keeps its lines as they always were.) */
	c.skip_zero = c.value != REPORT_VALUE_SAMPLES || profile__total_offcpu_ns(c.p);
	c.feature = scope.feature;
	c.feat = &scope.feat;
	err = charges__init(&c.charges, c.p);
	c.has_native = native_view__any(c.p);
	if (!err && c.has_native)
		err = native_view__init(&c.native, c.p);
	if (!err && c.has_native)
		err = folded_escaped(&c);
	if (!err)
		err = folded_collect(&c);
	if (!err)
		err = folded_lines(&c);
	if (err)
		goto cleanup;
	folded_merge(&c);
	if (c.feature && !c.nr_lines) {
		err = -ENOENT; /* nothing written: the caller says why */
		goto cleanup;
	}
	errno = 0;
	for (i = 0; i < c.nr_lines; i++) {
		fputs(c.lines[i].head, out);
		fputs(c.lines[i].tail, out);
		fprintf(out, " %" PRIu64 "\n", c.lines[i].count);
	}
	err = flush_status(out);
cleanup:
	folded_ctx_fini(&c);
	report_scope__fini(&scope);
	return err;
}
