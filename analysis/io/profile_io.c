// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file (docs/profile-format.md), written and read with json-c.
 *
 * Writer: the top-level object is framed here, member by member. The string
 * table is built first (every label of the stacks and events, once); the
 * stacks and sample rows, nearly all of a file, are formatted directly (they
 * hold only integers, null and fixed strings); every other value and record
 * is a json-c object serialized on its own line and freed. Writing takes
 * constant memory beyond the model, its attribution and the string table.
 *
 * Reader: a json-c tree of a whole profile takes ten to twenty times the
 * file's size, so the reader never builds one. A small structural scanner
 * walks the top-level object and its arrays only to find where each record
 * (one string, stack, sample row, ...) begins and ends; every record and
 * scalar is parsed by a depth-limited json_tokener, fed from the file in
 * chunks. Memory is then the model plus one record. (json-c does all the
 * parsing of values: the scanner only splits the top level.)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib.h"
#include "hashmap.h"
#include "outfile.h"
#include "profile_io.h"
#include "report.h"
#include "report_util.h"
#include "strtab.h"
#include "util.h"

/* ---- shared helpers ----------------------------------------------------------------- */

/* The metadata fields, in the order they are written (top level and sources). */
enum meta_field {
	MF_TOOL_VERSION, /* the strings first */
	MF_TARGET,
	MF_COMMAND_LINE,
	MF_HOST,
	MF_KERNEL,
	MF_START_TIME,
	MF_END_TIME,
	MF_DURATION,
	MF_FREQUENCY,
	MF_PERIOD,
	MF__COUNT,
};

static const char *const meta_names[MF__COUNT] = {
	[MF_TARGET] = "target",
	[MF_COMMAND_LINE] = "command_line",
	[MF_HOST] = "host",
	[MF_KERNEL] = "kernel",
	[MF_TOOL_VERSION] = "tool_version",
	[MF_START_TIME] = "start_time",
	[MF_END_TIME] = "end_time",
	[MF_DURATION] = "duration_s",
	[MF_FREQUENCY] = "frequency_hz",
	[MF_PERIOD] = "period_ns",
};

/* The string fields of a profile_meta, MF_TOOL_VERSION..MF_KERNEL. */
static const char **meta_str(struct profile_meta *m, enum meta_field f)
{
	switch (f) {
	case MF_TARGET:
		return &m->target;
	case MF_COMMAND_LINE:
		return &m->command_line;
	case MF_HOST:
		return &m->host;
	case MF_TOOL_VERSION:
		return &m->tool_version;
	default:
		return &m->kernel;
	}
}

static double *meta_real(struct profile_meta *m, enum meta_field f)
{
	return f == MF_START_TIME ? &m->start_time
	       : f == MF_END_TIME ? &m->end_time
				  : &m->duration_s;
}

/* ---- writer --------------------------------------------------------------------------- */

#define JW_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define JW_ADD (JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT)

struct jw {
	FILE *out;
	int err; /* first error: -ENOMEM or the -errno of a write */
	bool first; /* no member written yet in the top-level object */
	bool first_rec; /* no record written yet in the current array */
	char *scratch; /* strings made valid UTF-8 */
	size_t cap_scratch;
	char *line; /* the stack or sample record being formatted */
	size_t nr_line, cap_line;
};

static void jw_raw(struct jw *w, const char *s, size_t len)
{
	if (w->err || !len)
		return;
	if (fwrite_unlocked(s, 1, len, w->out) != len)
		w->err = errno ? -errno : -EIO;
}

static void jw_puts(struct jw *w, const char *s)
{
	jw_raw(w, s, strlen(s));
}

/* Serializes v (NULL: null) compactly, then frees it. */
static void jw_value(struct jw *w, struct json_object *v)
{
	const char *s;
	size_t len;

	if (!w->err) {
		s = json_object_to_json_string_length(v, JW_FLAGS, &len);
		if (s)
			jw_raw(w, s, len);
		else
			w->err = -ENOMEM;
	}
	json_object_put(v);
}

static struct json_object *jw_nomem(struct jw *w)
{
	w->err = -ENOMEM;
	return NULL;
}

static struct json_object *jw_object(struct jw *w)
{
	struct json_object *o = json_object_new_object();

	return o ? o : jw_nomem(w);
}

static struct json_object *jw_u64(struct jw *w, uint64_t v)
{
	struct json_object *o = json_object_new_uint64(v);

	return o ? o : jw_nomem(w);
}

/* Length of the valid UTF-8 sequence at s (NUL-terminated), 0 when invalid:
 * overlong forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned int c = s[0], n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * JSON strings are UTF-8: labels read from a target that are not have each
 * invalid byte replaced by U+FFFD. *s becomes a valid copy in w->scratch
 * when it is not valid itself; *len is its length.
 */
static int jw_utf8(struct jw *w, const char **s, size_t *len)
{
	const unsigned char *u = (const unsigned char *)*s;
	size_t i, n, need;
	char *d;

	for (i = 0; u[i]; i += n) {
		n = utf8_seq(u + i);
		if (!n)
			break;
	}
	if (!u[i]) {
		*len = i;
		return 0;
	}
	need = 3 * strlen(*s) + 1; /* each byte becomes at most 3 */
	if (need > w->cap_scratch) {
		d = realloc(w->scratch, need);
		if (!d) {
			w->err = -ENOMEM;
			return -1;
		}
		w->scratch = d;
		w->cap_scratch = need;
	}
	for (d = w->scratch, i = 0; u[i]; i += n) {
		n = utf8_seq(u + i);
		if (n) {
			memcpy(d, u + i, n);
			d += n;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			d += 3;
			n = 1;
		}
	}
	*d = 0;
	*len = (size_t)(d - w->scratch);
	*s = w->scratch;
	return 0;
}

/* A string value (valid UTF-8 as jw_utf8 makes it); NULL gives null. */
static struct json_object *jw_str(struct jw *w, const char *s)
{
	struct json_object *o;
	size_t len;

	if (!s || jw_utf8(w, &s, &len))
		return NULL;
	if (len > INT_MAX)
		return jw_nomem(w);
	o = json_object_new_string_len(s, (int)len);
	return o ? o : jw_nomem(w);
}

/* The shortest decimal that reads back as d, always with a '.' or an
 * exponent so that it reads as a real; null when d is not finite. */
static struct json_object *jw_real(struct jw *w, double d)
{
	struct json_object *o;
	char buf[40];
	int prec;

	if (!isfinite(d))
		return NULL;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", d);
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	o = json_object_new_double_s(d, buf);
	return o ? o : jw_nomem(w);
}

/* Adds member k (a string literal) to o; v NULL adds null. Takes v. */
static void jw_add(struct jw *w, struct json_object *o, const char *k, struct json_object *v)
{
	if (!o || w->err) {
		json_object_put(v);
		return;
	}
	if (json_object_object_add_ex(o, k, v, JW_ADD)) {
		json_object_put(v);
		w->err = -ENOMEM;
	}
}

/* A top-level member on its own line. Takes v. */
static void jw_member(struct jw *w, const char *k, struct json_object *v)
{
	jw_puts(w, w->first ? "\n  \"" : ",\n  \"");
	w->first = false;
	jw_puts(w, k);
	jw_puts(w, "\": ");
	jw_value(w, v);
}

/* A top-level array of records, one per line. */
static void jw_begin_array(struct jw *w, const char *k)
{
	jw_puts(w, w->first ? "\n  \"" : ",\n  \"");
	w->first = false;
	jw_puts(w, k);
	jw_puts(w, "\": [");
	w->first_rec = true;
}

static void jw_record(struct jw *w, struct json_object *rec, const char *indent)
{
	jw_puts(w, w->first_rec ? "\n" : ",\n");
	w->first_rec = false;
	jw_puts(w, indent);
	jw_value(w, rec);
}

static void jw_end_array(struct jw *w)
{
	jw_puts(w, w->first_rec ? "]" : "\n  ]");
}

/* The metadata members of m into o (a source), or as top-level members (o NULL). */
static void jw_meta(struct jw *w, struct json_object *o, const struct profile_meta *m)
{
	struct profile_meta c = *m;
	struct json_object *v;
	int f;

	for (f = 0; f < MF__COUNT && !w->err; f++) {
		if (f <= MF_KERNEL)
			v = jw_str(w, *meta_str(&c, f));
		else if (f == MF_FREQUENCY)
			v = jw_u64(w, m->frequency_hz);
		else if (f == MF_PERIOD)
			v = jw_u64(w, report_period_ns(m));
		else
			v = jw_real(w, *meta_real(&c, f));
		if (o)
			jw_add(w, o, meta_names[f], v);
		else
			jw_member(w, meta_names[f], v);
	}
}

static struct json_object *jw_diag(struct jw *w, const uint64_t *diag)
{
	struct json_object *o = jw_object(w);
	int d;

	for (d = 0; d < DIAG__COUNT; d++)
		jw_add(w, o, profile_diag__name(d), jw_u64(w, diag[d]));
	return o;
}

static void jw_sources(struct jw *w, const struct profile *p)
{
	struct profile_source src;
	struct json_object *o;
	size_t i;

	jw_begin_array(w, "sources");
	for (i = 0; i < profile__nr_sources(p) && !w->err; i++) {
		if (profile__source(p, i, &src))
			continue;
		o = jw_object(w);
		jw_meta(w, o, src.meta);
		jw_add(w, o, "diagnostics", jw_diag(w, src.diag));
		jw_record(w, o, "    ");
	}
	jw_end_array(w);
}

static void jw_processes(struct jw *w, const struct profile *p)
{
	struct profile_process pr;
	struct json_object *o;
	size_t i;

	/* pids: the v1 view, kept for v1 readers */
	jw_puts(w, ",\n  \"pids\": [");
	for (i = 0; i < profile__nr_pids(p); i++) {
		if (i)
			jw_puts(w, ",");
		jw_value(w, jw_u64(w, profile__pid(p, i)));
	}
	jw_puts(w, "]");

	jw_begin_array(w, "processes");
	for (i = 0; i < profile__nr_pids(p) && !w->err; i++) {
		if (profile__process(p, i, &pr))
			continue;
		o = jw_object(w);
		jw_add(w, o, "source", jw_u64(w, pr.source));
		jw_add(w, o, "pid", jw_u64(w, pr.pid));
		/* optional: older files have none, older readers ignore it */
		if (pr.nspid)
			jw_add(w, o, "nspid", jw_u64(w, pr.nspid));
		jw_record(w, o, "    ");
	}
	jw_end_array(w);
}

/* Features with their instances: the feature's members on one line, then
 * one line per instance. */
static void jw_features(struct jw *w, const struct attrib *a, uint64_t period)
{
	uint64_t total = attrib__total_samples(a);
	const struct attrib_feature *f;
	struct json_object *o;
	size_t i, j;

	jw_begin_array(w, "features");
	for (i = 0; i < attrib__nr_features(a) && !w->err; i++) {
		f = attrib__feature(a, i);
		jw_puts(w, i ? ",\n    {\"name\":" : "\n    {\"name\":");
		w->first_rec = false;
		jw_value(w, jw_str(w, f->name));
		jw_puts(w, ",\"samples\":");
		jw_value(w, jw_u64(w, f->samples));
		jw_puts(w, ",\"time_ms\":");
		jw_value(w, jw_real(w, report_ms(f->samples, period)));
		jw_puts(w, ",\"pct\":");
		jw_value(w, jw_real(w, report_pct(f->samples, total)));
		jw_puts(w, ",\"instances\":[");
		for (j = 0; j < f->nr_instances && !w->err; j++) {
			const struct attrib_instance *in = &f->instances[j];

			o = jw_object(w);
			jw_add(w, o, "name", jw_str(w, in->name));
			jw_add(w, o, "samples", jw_u64(w, in->samples));
			jw_add(w, o, "time_ms", jw_real(w, report_ms(in->samples, period)));
			jw_add(w, o, "pct", jw_real(w, report_pct(in->samples, total)));
			jw_puts(w, j ? ",\n      " : "\n      ");
			jw_value(w, o);
		}
		jw_puts(w, f->nr_instances ? "\n    ]}" : "]}");
	}
	jw_end_array(w);
}

static void jw_threads(struct jw *w, const struct profile *p, uint64_t period)
{
	struct profile_thread t;
	struct json_object *o;
	size_t i;

	jw_begin_array(w, "threads");
	for (i = 0; i < profile__nr_threads(p) && !w->err; i++) {
		if (profile__thread(p, i, &t))
			continue;
		o = jw_object(w);
		jw_add(w, o, "source", jw_u64(w, t.source));
		jw_add(w, o, "pid", jw_u64(w, t.pid));
		jw_add(w, o, "tid", jw_u64(w, t.tid));
		jw_add(w, o, "comm", jw_str(w, t.comm));
		jw_add(w, o, "samples", jw_u64(w, t.samples));
		jw_add(w, o, "time_ms", jw_real(w, report_ms(t.samples, period)));
		jw_record(w, o, "    ");
	}
	jw_end_array(w);
}

/*
 * The string table ("strings"): every feature name and instance label of the
 * stacks and events, each once, in order of first use, as written (made valid
 * UTF-8 by jw_utf8). The model's strings are interned, so a label is looked up
 * by address; two addresses whose written texts are equal (two invalid
 * byte sequences both written as U+FFFD) share one entry, since the reader
 * rejects a table with duplicates.
 */
struct jw_strings {
	struct hashmap by_addr; /* (model string address, 0) -> index */
	struct hashmap by_text; /* (address in text, 0) -> index */
	struct strtab *text; /* the written texts */
	const char **list; /* index -> written text */
	size_t nr, cap;
};

static void jw_strings_fini(struct jw_strings *t)
{
	hashmap__fini(&t->by_addr);
	hashmap__fini(&t->by_text);
	strtab__free(t->text);
	free(t->list);
}

/* The index of s in the table, added when new; 0 with w->err set on failure. */
static uint64_t jw_string(struct jw *w, struct jw_strings *t, const char *s)
{
	const char *u = s;
	uint64_t idx = 0;
	size_t len;
	int r;

	if (hashmap__find(&t->by_addr, (uintptr_t)s, 0, &idx) || w->err)
		return idx;
	if (jw_utf8(w, &u, &len))
		return 0;
	u = strtab__intern_len(t->text, u, len, NULL);
	if (!u)
		goto nomem;
	r = hashmap__find_or_insert(&t->by_text, (uintptr_t)u, 0, t->nr, &idx);
	if (r < 0)
		goto nomem;
	if (!r) {
		if (fsp_grow((void **)&t->list, &t->cap, t->nr + 1, sizeof(*t->list)))
			goto nomem;
		t->list[t->nr++] = u;
	}
	if (hashmap__find_or_insert(&t->by_addr, (uintptr_t)s, 0, idx, NULL) < 0)
		goto nomem;
	return idx;
nomem:
	w->err = -ENOMEM;
	return 0;
}

/* Fills the table: the stacks' frames (feature, then instance), then the events. */
static void jw_strings_build(struct jw *w, struct jw_strings *t, const struct profile *p)
{
	struct profile_event e;
	struct profile_stack st;
	size_t i, j;

	t->text = strtab__new();
	if (!t->text) {
		w->err = -ENOMEM;
		return;
	}
	for (i = 0; i < profile__nr_stacks(p) && !w->err; i++) {
		if (profile__stack(p, i, &st))
			continue;
		for (j = 0; j < st.depth; j++) {
			jw_string(w, t, st.frames[j].feature);
			if (st.frames[j].instance)
				jw_string(w, t, st.frames[j].instance);
		}
	}
	for (i = 0; i < profile__nr_events(p) && !w->err; i++) {
		if (profile__event(p, i, &e))
			continue;
		jw_string(w, t, e.feature);
		if (e.instance)
			jw_string(w, t, e.instance);
	}
}

static void jw_strings(struct jw *w, const struct jw_strings *t)
{
	size_t i;

	jw_begin_array(w, "strings");
	for (i = 0; i < t->nr && !w->err; i++)
		jw_record(w, jw_str(w, t->list[i]), "    ");
	jw_end_array(w);
}

/*
 * The stacks and samples sections hold nearly all of a profile. Their records
 * hold only integers, null and fixed ASCII strings, so they are formatted here
 * into w->line, one record at a time, and written with one call each.
 */
static void jb_reserve(struct jw *w, size_t n)
{
	char *b;
	size_t cap;

	if (w->err || w->cap_line - w->nr_line >= n)
		return;
	cap = w->cap_line ? w->cap_line : 4096;
	while (cap - w->nr_line < n)
		cap *= 2;
	b = realloc(w->line, cap);
	if (!b) {
		w->err = -ENOMEM;
		return;
	}
	w->line = b;
	w->cap_line = cap;
}

/* Appends len bytes at s (at most 64: literals and numbers). */
static void jb_put(struct jw *w, const char *s, size_t len)
{
	jb_reserve(w, len);
	if (w->err)
		return;
	memcpy(w->line + w->nr_line, s, len);
	w->nr_line += len;
}

/* s: a string literal (sizeof gives its length) */
#define jb_lit(w, s) jb_put(w, "" s, sizeof(s) - 1)

static void jb_u64(struct jw *w, uint64_t v)
{
	char buf[24], *d = buf + sizeof(buf);

	do {
		*--d = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jb_put(w, d, (size_t)(buf + sizeof(buf) - d));
}

/* Stack keys are opaque 64-bit identities: written as "0x" hex strings, which
 * readers that hold numbers in doubles keep exact. */
static void jb_key(struct jw *w, uint64_t key)
{
	static const char hex[] = "0123456789abcdef";
	char buf[24], *d = buf + sizeof(buf);

	*--d = '"';
	do {
		*--d = hex[key & 15];
		key >>= 4;
	} while (key);
	*--d = 'x';
	*--d = '0';
	*--d = '"';
	jb_put(w, d, (size_t)(buf + sizeof(buf) - d));
}

/* Writes the record formatted in w->line, on its own line. */
static void jb_record(struct jw *w)
{
	jw_puts(w, w->first_rec ? "\n    " : ",\n    ");
	w->first_rec = false;
	jw_raw(w, w->line, w->nr_line);
	w->nr_line = 0;
}

/* A frame: ["m", feature, instance] for a mark, ["a", feature] for an
 * antimark (with its instance when it has one), then the payload when not 0. */
static void jb_frame(struct jw *w, struct jw_strings *t, const struct profile_frame *fr)
{
	bool mark = fr->kind == PROFILE_MARK;

	if (mark)
		jb_lit(w, "[\"m\",");
	else
		jb_lit(w, "[\"a\",");
	jb_u64(w, jw_string(w, t, fr->feature));
	if (mark || fr->instance || fr->payload) {
		jb_lit(w, ",");
		if (fr->instance)
			jb_u64(w, jw_string(w, t, fr->instance));
		else
			jb_lit(w, "null");
	}
	if (fr->payload) {
		jb_lit(w, ",");
		jb_u64(w, fr->payload);
	}
	jb_lit(w, "]");
}

static void jw_stacks(struct jw *w, const struct profile *p, struct jw_strings *t)
{
	struct profile_stack st;
	size_t i, j;

	jw_begin_array(w, "stacks");
	for (i = 0; i < profile__nr_stacks(p) && !w->err; i++) {
		if (profile__stack(p, i, &st))
			continue;
		jb_lit(w, "{\"id\":");
		jb_u64(w, i);
		jb_lit(w, ",\"source\":");
		jb_u64(w, st.source);
		jb_lit(w, ",\"pid\":");
		jb_u64(w, st.pid);
		jb_lit(w, ",\"key\":");
		jb_key(w, st.key);
		jb_lit(w, ",\"frames\":[");
		for (j = 0; j < st.depth; j++) {
			if (j)
				jb_lit(w, ",");
			jb_frame(w, t, &st.frames[j]);
		}
		jb_lit(w, "]}");
		jb_record(w);
	}
	jw_end_array(w);
}

/* Sample rows: [source, pid, tid, stack, count] and off-CPU time as a sixth
 * column in profiles that measured some. stack is the stack's id, null for
 * the empty stack, the key for a stack that was not stored. */
static void jw_samples(struct jw *w, const struct profile *p)
{
	bool has_offcpu = profile__total_offcpu_ns(p) != 0;
	struct profile_sample s;
	size_t i;

	jw_begin_array(w, "samples");
	for (i = 0; i < profile__nr_samples(p) && !w->err; i++) {
		if (profile__sample(p, i, &s))
			continue;
		jb_lit(w, "[");
		jb_u64(w, s.source);
		jb_lit(w, ",");
		jb_u64(w, s.pid);
		jb_lit(w, ",");
		jb_u64(w, s.tid);
		jb_lit(w, ",");
		if (s.stack != PROFILE_NO_STACK)
			jb_u64(w, s.stack);
		else if (!s.key)
			jb_lit(w, "null");
		else
			jb_key(w, s.key);
		jb_lit(w, ",");
		jb_u64(w, s.count);
		if (has_offcpu) {
			jb_lit(w, ",");
			jb_u64(w, s.offcpu_ns);
		}
		jb_lit(w, "]");
		jb_record(w);
	}
	jw_end_array(w);
}

static void jw_events(struct jw *w, const struct profile *p, struct jw_strings *t)
{
	const struct profile_event_stats *st;
	struct profile_event e;
	struct json_object *o, *h;
	size_t i, b, n;

	jw_begin_array(w, "events");
	for (i = 0; i < profile__nr_events(p) && !w->err; i++) {
		if (profile__event(p, i, &e))
			continue;
		st = e.stats;
		o = jw_object(w);
		jw_add(w, o, "source", jw_u64(w, e.source));
		jw_add(w, o, "pid", jw_u64(w, e.pid));
		jw_add(w, o, "feature", jw_u64(w, jw_string(w, t, e.feature)));
		jw_add(w, o, "instance",
		       e.instance ? jw_u64(w, jw_string(w, t, e.instance)) : NULL);
		jw_add(w, o, "enters", jw_u64(w, st->enters));
		jw_add(w, o, "leaves", jw_u64(w, st->leaves));
		jw_add(w, o, "total_ns", jw_u64(w, st->total_ns));
		jw_add(w, o, "max_ns", jw_u64(w, st->max_ns));
		/* the histogram without its trailing empty buckets */
		for (n = PROFILE_HIST_BUCKETS; n && !st->hist[n - 1]; n--)
			;
		h = json_object_new_array_ext((int)n);
		if (!h)
			w->err = -ENOMEM;
		for (b = 0; h && b < n && !w->err; b++) {
			struct json_object *v = jw_u64(w, st->hist[b]);

			if (v && json_object_array_add(h, v)) {
				json_object_put(v);
				w->err = -ENOMEM;
			}
		}
		jw_add(w, o, "hist", h);
		jw_record(w, o, "    ");
	}
	jw_end_array(w);
}

static int jw_profile(FILE *out, const struct profile *p, const struct attrib *a)
{
	const struct profile_meta *m = profile__meta(p);
	uint64_t period = report_period_ns(m), diag[DIAG__COUNT];
	struct profile_meta top = *m;
	struct jw w = {.out = out, .first = true};
	struct jw_strings strs = {HASHMAP_INIT, HASHMAP_INIT, NULL, NULL, 0, 0};
	int d;

	/* the top level names its writer when the model does not */
	if (!top.tool_version)
		top.tool_version = FSP_VERSION;
	jw_strings_build(&w, &strs, p);
	jw_puts(&w, "{");
	jw_member(&w, "version", jw_u64(&w, PROFILE_FORMAT_VERSION));
	jw_member(&w, "tool", jw_str(&w, "fsp-bpf"));
	jw_meta(&w, NULL, &top);
	jw_sources(&w, p);
	jw_processes(&w, p);
	jw_member(&w, "total_samples", jw_u64(&w, profile__total_samples(p)));
	jw_member(&w, "total_ms", jw_real(&w, report_ms(profile__total_samples(p), period)));
	jw_member(&w, "total_offcpu_ns", jw_u64(&w, profile__total_offcpu_ns(p)));
	jw_member(&w, "attributed_samples", jw_u64(&w, attrib__total_samples(a)));
	jw_member(&w, "uncharged_samples", jw_u64(&w, attrib__uncharged_samples(a)));
	jw_features(&w, a, period);
	jw_threads(&w, p, period);
	jw_strings(&w, &strs);
	jw_stacks(&w, p, &strs);
	jw_samples(&w, p);
	jw_events(&w, p, &strs);

	/* diagnostics: pretty, one counter per line */
	for (d = 0; d < DIAG__COUNT; d++)
		diag[d] = profile__diag(p, d);
	jw_puts(&w, ",\n  \"diagnostics\": {");
	for (d = 0; d < DIAG__COUNT; d++) {
		jw_puts(&w, d ? ",\n    \"" : "\n    \"");
		jw_puts(&w, profile_diag__name(d));
		jw_puts(&w, "\": ");
		jw_value(&w, jw_u64(&w, diag[d]));
	}
	jw_puts(&w, "\n  }\n}\n");
	jw_strings_fini(&strs);
	free(w.scratch);
	free(w.line);
	return w.err;
}

int report__json(FILE *out, const struct profile *p, const struct attrib *a)
{
	struct attrib *own = NULL;
	locale_t c_loc, old_loc;
	int err;

	if (!out || !p)
		return -EINVAL;
	if (!a) {
		own = attrib__compute(p, NULL);
		if (!own)
			return -ENOMEM;
		a = own;
	}
	/* Reals use '.', whatever the process's LC_NUMERIC. */
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c_loc) {
		err = -ENOMEM;
		goto cleanup;
	}
	old_loc = uselocale(c_loc);
	flockfile(out);
	errno = 0;
	err = jw_profile(out, p, a);
	funlockfile(out);
	uselocale(old_loc);
	freelocale(c_loc);
	if (err)
		goto cleanup;
	errno = 0;
	if (fflush(out) || ferror(out))
		err = errno ? -errno : -EIO;
cleanup:
	attrib__free(own);
	return err;
}

int profile__write_json(FILE *out, const struct profile *p)
{
	return report__json(out, p, NULL);
}

/* ---- atomic save ------------------------------------------------------------------------ */

/* The profile file, atomically (outfile.h); "-" is stdout. */
static int save(const char *path, const struct profile *p, const struct attrib *a)
{
	struct outfile *f;
	int err;

	f = outfile__open(path, &err);
	if (!f)
		return err;
	err = report__json(outfile__stream(f), p, a);
	if (!err)
		err = outfile__commit(f);
	outfile__free(f);
	return err;
}

int report__json_file(const char *path, const struct profile *p, const struct attrib *a)
{
	if (!path || !p)
		return -EINVAL;
	return save(path, p, a);
}

int profile__save(const char *path, const struct profile *p, char *err, size_t errlen)
{
	int ret;

	if (!path || !p) {
		fsp_set_err(err, errlen, "%s: %s", path ? path : "(null)", strerror(EINVAL));
		return -EINVAL;
	}
	ret = save(path, p, NULL);
	if (ret)
		fsp_set_err(err, errlen, "%s: %s", strcmp(path, "-") ? path : "stdout",
			    strerror(-ret));
	return ret;
}

/* ---- reader: input and structure ------------------------------------------------------- */

#define RD_CHUNK (256 * 1024) /* bytes read from a file at a time */
#define RD_WINDOW (1 << 20) /* bytes given to json-c at a time: its lengths are int */
#define NO_IDX SIZE_MAX

/*
 * json-c clamps integers beyond 64 bits to INT64_MIN / UINT64_MAX without an
 * error, so the bytes given to it are scanned for integer literals too long
 * for 64 bits. Strings are skipped; the state survives chunk boundaries.
 */
struct numscan {
	bool in_str, esc;
	bool in_num, neg, frac;
	unsigned int nd; /* digits of the integer part */
	char digits[24]; /* the first of them */
	uint64_t start; /* offset of the literal */
};

/* Where a value is, for messages: sect[i].sub[j].field. */
struct where {
	const char *sect;
	size_t i;
	const char *sub;
	size_t j;
};

/* A version 1 sample naming a stack, checked once "stacks" is read (version
 * 1 allowed samples before stacks; its keys are ids + 1, known up front). */
struct stack_ref {
	size_t entry; /* index in "samples" */
	uint64_t stack; /* id the entry names */
	uint64_t key;
	uint32_t source, pid;
};

/* The top-level fields the reader knows; bits of rd.seen. */
enum top_field {
	TF_VERSION = MF__COUNT,
	TF_TOOL,
	TF_SOURCES,
	TF_PIDS,
	TF_PROCESSES,
	TF_TOTAL_SAMPLES,
	TF_THREADS,
	TF_STRINGS,
	TF_STACKS,
	TF_SAMPLES,
	TF_EVENTS,
	TF_DIAGNOSTICS,
	TF__COUNT,
};

static const char *const top_names[TF__COUNT - MF__COUNT] = {
	"version", "tool",    "sources", "pids",    "processes", "total_samples",
	"threads", "strings", "stacks",	 "samples", "events",	 "diagnostics",
};

/* The string-table indexes of a version 2 frame (NO_IDX: none). */
struct frame_idx {
	size_t feature, instance;
};

/* A stack record as read; its frames are rd->frames (and rd->fidx), depth of them. */
struct stack_in {
	uint64_t id;
	uint32_t source, pid;
	uint64_t key;
	bool has_key;
	size_t depth;
};

/* What a sample names as its stack. */
enum sample_stack {
	SS_EMPTY, /* null (or the key 0): the empty stack */
	SS_ID, /* a stack id (version 2: the stack must be known) */
	SS_KEY, /* the key of a stack that was not stored */
	SS_V1_ID, /* a version 1 stack id: key id + 1, checked later if need be */
};

/* A sample record as read. */
struct sample_in {
	uint32_t source, pid, tid;
	enum sample_stack by;
	uint64_t stack; /* the id or the key */
	uint64_t count, offcpu;
};

struct rd {
	/* input: a memory buffer (fd < 0) or a file read in chunks */
	int fd;
	const char *data;
	size_t pos, len;
	uint64_t base; /* input offset of data[0] */
	char *chunk;
	bool eof;

	/* parsing */
	int depth; /* containers the scanner is inside */
	json_tokener *tok[PROFILE_IO_MAX_DEPTH + 1]; /* one per depth, made when needed */
	struct numscan ns;
	const char *name;
	char *err;
	size_t errlen;
	bool failed;

	/* the profile being built */
	struct profile *p;
	int version; /* as read; 0 until "version" is */
	uint32_t seen; /* bit per enum top_field / meta_field read */
	bool pids_added;
	bool stacks_done; /* "stacks" has been read */
	struct profile_meta meta; /* strings owned */
	uint64_t diag[DIAG__COUNT];
	uint32_t *pids; /* "pids", applied unless "processes" is present */
	size_t nr_pids, cap_pids;
	uint64_t total_samples; /* as declared */
	uint64_t sum_count, sum_offcpu;
	struct stack_ref *refs; /* version 1 sample -> stack checks waiting for "stacks" */
	size_t nr_refs, cap_refs;
	struct strtab *stab; /* the strings of "strings" */
	/* "strings" by index: stab's copy, replaced by the profile's own copy
	 * once a stack has used it, which the profile then interns by address */
	const char **strs;
	size_t nr_strs, cap_strs;
	struct profile_frame *frames; /* the stack being read */
	size_t cap_frames;
	struct frame_idx *fidx; /* its frames' string indexes */
	size_t cap_fidx;
};

static int rd_fail(struct rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first error (later ones are consequences). Returns -1. */
static int rd_fail(struct rd *rd, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (rd->failed)
		return -1;
	rd->failed = true;
	if (!rd->err || !rd->errlen)
		return -1;
	n = snprintf(rd->err, rd->errlen, "%s: ", rd->name);
	if (n < 0 || (size_t)n >= rd->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static unsigned long long rd_off(const struct rd *rd)
{
	return rd->base + rd->pos;
}

/* Makes data available at pos: 1, 0 at the end of the input, -1 on error. */
static int rd_fill(struct rd *rd)
{
	ssize_t n;

	if (rd->pos < rd->len)
		return 1;
	if (rd->fd < 0 || rd->eof)
		return 0;
	do {
		n = read(rd->fd, rd->chunk, RD_CHUNK);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return rd_fail(rd, "read error at byte %llu: %s", rd_off(rd), strerror(errno));
	rd->base += rd->len;
	rd->pos = 0;
	rd->len = (size_t)n;
	if (!n) {
		rd->eof = true;
		return 0;
	}
	if (rd->base + rd->len > PROFILE_IO_MAX_FILE)
		return rd_fail(rd, "file too large: more than %llu bytes (the limit)",
			       (unsigned long long)PROFILE_IO_MAX_FILE);
	return 1;
}

static int rd_truncated(struct rd *rd)
{
	return rd_fail(rd, "truncated: the file ends at byte %llu inside the profile", rd_off(rd));
}

/* Skips white space; *c is the next byte. 1, 0 at the end of the input, -1. */
static int rd_peek(struct rd *rd, int *c)
{
	int r;

	for (;;) {
		r = rd_fill(rd);
		if (r <= 0)
			return r;
		while (rd->pos < rd->len) {
			char ch = rd->data[rd->pos];

			if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') {
				*c = (unsigned char)ch;
				return 1;
			}
			rd->pos++;
		}
	}
}

static const char *char_name(int c, char *buf, size_t size)
{
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", (unsigned int)c);
	return buf;
}

static int rd_unexpected(struct rd *rd, int c, const char *expected)
{
	char buf[16];

	return rd_fail(rd, "invalid JSON at byte %llu: %s where %s was expected", rd_off(rd),
		       char_name(c, buf, sizeof(buf)), expected);
}

static void where_fmt(const struct where *w, const char *field, char *buf, size_t size)
{
	int n = 0;

	buf[0] = 0;
	if (w && w->sect) {
		n = snprintf(buf, size, "%s", w->sect);
		if (w->i != NO_IDX && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - n, "[%zu]", w->i);
		if (w->sub && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - n, ".%s", w->sub);
		if (w->j != NO_IDX && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - n, "[%zu]", w->j);
	}
	if (field && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, "%s%s", n ? "." : "", field);
}

/* ---- the integer-overflow scan -------------------------------------------------------- */

static void ns_reset(struct numscan *ns)
{
	memset(ns, 0, sizeof(*ns));
}

/* Ends the literal being scanned; -1 (message set) when it overflows. */
static int ns_end(struct rd *rd)
{
	struct numscan *ns = &rd->ns;
	static const char umax[] = "18446744073709551615", imin[] = "9223372036854775808";
	bool over;

	ns->in_num = false;
	if (ns->frac)
		return 0; /* a real: json-c reads it as a double */
	if (ns->neg)
		over = ns->nd > 19 || (ns->nd == 19 && memcmp(ns->digits, imin, 19) > 0);
	else
		over = ns->nd > 20 || (ns->nd == 20 && memcmp(ns->digits, umax, 20) > 0);
	if (!over)
		return 0;
	return rd_fail(rd, "the integer at byte %llu (%s%.20s...) does not fit in 64 bits",
		       (unsigned long long)ns->start, ns->neg ? "-" : "", ns->digits);
}

/* Scans n bytes at s, the first at input offset off. Tight loops over the
 * bytes of strings and between literals: this sees every byte of the file. */
static int ns_scan(struct rd *rd, const char *s, size_t n, uint64_t off)
{
	struct numscan *ns = &rd->ns;
	size_t i = 0;
	char c;

	while (i < n) {
		if (ns->in_str) {
			if (ns->esc) {
				ns->esc = false;
				i++;
				continue;
			}
			while (i < n && s[i] != '"' && s[i] != '\\' && (unsigned char)s[i] >= 0x20)
				i++;
			if (i == n)
				break;
			if ((unsigned char)s[i] < 0x20) /* json-c lets them through */
				return rd_fail(rd,
					       "invalid JSON at byte %llu: a control character "
					       "(0x%02x) in a string",
					       (unsigned long long)(off + i), (unsigned char)s[i]);
			if (s[i++] == '\\')
				ns->esc = true;
			else
				ns->in_str = false;
			continue;
		}
		c = s[i];
		if (ns->in_num) {
			if (c >= '0' && c <= '9') {
				if (!ns->frac && ns->nd < sizeof(ns->digits) - 1)
					ns->digits[ns->nd] = c;
				ns->nd += !ns->frac;
				i++;
				continue;
			}
			if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				ns->frac = true;
				i++;
				continue;
			}
			if (ns_end(rd))
				return -1;
		}
		if (c == '"') {
			ns->in_str = true;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			ns->in_num = true;
			ns->neg = c == '-';
			ns->frac = false;
			ns->nd = 0;
			ns->start = off + i;
			memset(ns->digits, 0, sizeof(ns->digits));
			if (c != '-')
				ns->digits[ns->nd++] = c;
		}
		i++;
	}
	return 0;
}

/* ---- the reader: values --------------------------------------------------------------- */

static json_tokener *rd_tok(struct rd *rd)
{
	json_tokener **t = &rd->tok[rd->depth];

	if (*t) {
		json_tokener_reset(*t);
		return *t;
	}
	/* the value may nest as deep as the scanner's room allows */
	*t = json_tokener_new_ex(PROFILE_IO_MAX_DEPTH - rd->depth + 1);
	if (*t)
		json_tokener_set_flags(*t, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
						   JSON_TOKENER_VALIDATE_UTF8);
	return *t;
}

/*
 * Parses the JSON value at the current position with json-c. *out is the
 * value (NULL for null); 0 or -1 (message set). what names it in messages.
 */
static int rd_value(struct rd *rd, const char *what, struct json_object **out)
{
	unsigned long long start = rd_off(rd);
	enum json_tokener_error jerr;
	struct json_object *o;
	json_tokener *tok;
	size_t n, used;
	uint64_t fed = 0;
	int r;

	*out = NULL;
	tok = rd_tok(rd);
	if (!tok)
		return rd_fail(rd, "out of memory");
	ns_reset(&rd->ns);
	for (;;) {
		r = rd_fill(rd);
		if (r < 0)
			return -1;
		if (!r)
			return rd_truncated(rd);
		n = rd->len - rd->pos;
		if (n > RD_WINDOW)
			n = RD_WINDOW;
		o = json_tokener_parse_ex(tok, rd->data + rd->pos, (int)n);
		jerr = json_tokener_get_error(tok);
		used = json_tokener_get_parse_end(tok);
		if (jerr == json_tokener_success && fed + used > PROFILE_IO_MAX_VALUE) {
			json_object_put(o);
			return rd_fail(rd, "%s at byte %llu is longer than %d bytes (the limit)",
				       what, start, PROFILE_IO_MAX_VALUE);
		}
		if (jerr == json_tokener_success) {
			if (ns_scan(rd, rd->data + rd->pos, used, rd_off(rd)) ||
			    (rd->ns.in_num && ns_end(rd))) {
				json_object_put(o);
				return -1;
			}
			rd->pos += used;
			*out = o;
			return 0;
		}
		if (jerr != json_tokener_continue) {
			rd->pos += used;
			if (jerr == json_tokener_error_depth)
				return rd_fail(rd, "nesting deeper than %d levels at byte %llu",
					       PROFILE_IO_MAX_DEPTH, rd_off(rd));
			return rd_fail(rd, "invalid JSON at byte %llu: %s", rd_off(rd),
				       json_tokener_error_desc(jerr));
		}
		if (ns_scan(rd, rd->data + rd->pos, n, rd_off(rd)))
			return -1;
		rd->pos += n;
		fed += n;
		if (fed > PROFILE_IO_MAX_VALUE)
			return rd_fail(rd, "%s at byte %llu is longer than %d bytes (the limit)",
				       what, start, PROFILE_IO_MAX_VALUE);
	}
}

/* Enters the object ('{') or array ('[') that must come next. */
static int rd_enter(struct rd *rd, char open, const struct where *w, const char *field)
{
	char path[160];
	int c, r;

	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (!r)
		return rd_truncated(rd);
	if (c != open) {
		where_fmt(w, field, path, sizeof(path));
		return rd_fail(rd, "%s: expected %s at byte %llu", path,
			       open == '{' ? "an object" : "an array", rd_off(rd));
	}
	if (rd->depth >= PROFILE_IO_MAX_DEPTH)
		return rd_fail(rd, "nesting deeper than %d levels at byte %llu",
			       PROFILE_IO_MAX_DEPTH, rd_off(rd));
	rd->pos++;
	rd->depth++;
	return 0;
}

/*
 * Steps to the next member or element of the container being read: 1 when
 * one follows, 0 when close ('}' or ']') ended the container, -1 on error.
 * *n counts the members seen.
 */
static int rd_next(struct rd *rd, char close, size_t *n)
{
	int c, r;

	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (!r)
		return rd_truncated(rd);
	if (c == close) {
		rd->pos++;
		rd->depth--;
		return 0;
	}
	if (*n) {
		if (c != ',')
			return rd_unexpected(rd, c, close == '}' ? "',' or '}'" : "',' or ']'");
		rd->pos++;
	}
	(*n)++;
	return 1;
}

/* The key of the next member and its ':'. Keys longer than the buffer, or
 * with a NUL, are returned as "" (no known field). */
static int rd_key(struct rd *rd, char *buf, size_t size)
{
	struct json_object *k;
	const char *s;
	size_t len;
	int c, r;

	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (!r)
		return rd_truncated(rd);
	if (c != '"')
		return rd_unexpected(rd, c, "a quoted member name");
	if (rd_value(rd, "a member name", &k))
		return -1;
	s = json_object_get_string(k);
	len = (size_t)json_object_get_string_len(k);
	buf[0] = 0;
	if (len < size && strlen(s) == len)
		memcpy(buf, s, len + 1);
	json_object_put(k);
	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (!r)
		return rd_truncated(rd);
	if (c != ':')
		return rd_unexpected(rd, c, "':'");
	rd->pos++;
	return 0;
}

/*
 * Skips any value (validating it). Arrays, and objects near the top, are
 * walked by the scanner, so that an unknown or derived field of any size
 * (the features' instance lists) takes no memory; objects deeper than
 * records, and scalars, are parsed by json-c in one call each (a call per
 * scalar would cost far more).
 */
static int rd_skip(struct rd *rd)
{
	struct json_object *v;
	char key[8];
	size_t n = 0;
	int c, r;

	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (!r)
		return rd_truncated(rd);
	if (c == '[' || (c == '{' && rd->depth < 3)) {
		if (rd_enter(rd, (char)c, NULL, NULL))
			return -1;
		while ((r = rd_next(rd, c == '{' ? '}' : ']', &n)) > 0) {
			if (c == '{' && rd_key(rd, key, sizeof(key)))
				return -1;
			if (rd_skip(rd))
				return -1;
		}
		return r;
	}
	if (rd_value(rd, "a value", &v))
		return -1;
	json_object_put(v);
	return 0;
}

/* ---- the reader: typed values -------------------------------------------------------------- */

static const char *jtype(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a real number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "an unknown type";
}

/* s for a message: at most 40 bytes, control characters, quotes and
 * backslashes escaped, so that the message stays one line. */
static const char *msg_str(const char *s, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; s[i] && i < 40 && n + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			n += snprintf(buf + n, size - n, "\\x%02x", c);
		else if (c == '"' || c == '\\')
			n += snprintf(buf + n, size - n, "\\%c", c);
		else
			buf[n++] = (char)c;
	}
	snprintf(buf + n, size - n, "%s", s[i] ? "..." : "");
	return buf;
}

static int jv_fail(struct rd *rd, const struct where *w, const char *field, const char *fmt,
		   const char *arg)
{
	char path[160], msg[256];

	where_fmt(w, field, path, sizeof(path));
	snprintf(msg, sizeof(msg), fmt, arg);
	return rd_fail(rd, "%s: %s", path, msg);
}

/* A non-negative integer of at most 64 bits. */
static int jv_u64(struct rd *rd, const struct where *w, const char *field, struct json_object *v,
		  uint64_t *out)
{
	char buf[176];

	if (json_object_is_type(v, json_type_int)) {
		/* json-c holds it as int64 when it fits, else as uint64 */
		if (json_object_get_int64(v) < 0)
			return jv_fail(rd, w, field, "%s is negative", json_object_get_string(v));
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_double))
		return jv_fail(rd, w, field, "%s is not an integer",
			       msg_str(json_object_get_string(v), buf, sizeof(buf)));
	return jv_fail(rd, w, field, "expected a non-negative integer, got %s", jtype(v));
}

static int jv_u32(struct rd *rd, const struct where *w, const char *field, struct json_object *v,
		  uint32_t *out)
{
	uint64_t u;

	if (jv_u64(rd, w, field, v, &u))
		return -1;
	if (u > UINT32_MAX)
		return jv_fail(rd, w, field, "%s is out of range (at most 4294967295)",
			       json_object_get_string(v));
	*out = (uint32_t)u;
	return 0;
}

/* A real; an integer is accepted, null reads as NaN (written for non-finite). */
static int jv_real(struct rd *rd, const struct where *w, const char *field, struct json_object *v,
		   double *out)
{
	if (!v) {
		*out = NAN;
		return 0;
	}
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
		*out = json_object_get_double(v);
		return 0;
	}
	return jv_fail(rd, w, field, "expected a number, got %s", jtype(v));
}

/* A string of at most PROFILE_IO_MAX_STRING bytes without NUL; null gives
 * NULL when nullable. *out points into v. */
static int jv_str(struct rd *rd, const struct where *w, const char *field, struct json_object *v,
		  bool nullable, const char **out)
{
	char len[32];
	size_t n;

	*out = NULL;
	if (!v && nullable)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return jv_fail(rd, w, field,
			       nullable ? "expected a string or null, got %s"
					: "expected a string, got %s",
			       jtype(v));
	*out = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (n > PROFILE_IO_MAX_STRING) {
		snprintf(len, sizeof(len), "%zu", n);
		return jv_fail(rd, w, field, "a string of %s bytes, longer than the limit of 65536",
			       len);
	}
	if (strlen(*out) != n)
		return jv_fail(rd, w, field, "%s", "the string contains a NUL character");
	return 0;
}

/* A key string: "0x" (or "0X") and 1 to 16 hex digits; 0 or -1. */
static int parse_key(const char *s, size_t n, uint64_t *out)
{
	uint64_t k = 0;
	size_t i;

	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (i = 2; i < n; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		k = k << 4 | d;
	}
	*out = k;
	return 0;
}

/* A stack key: a non-negative integer, or a key string (parse_key). */
static int jv_key(struct rd *rd, const struct where *w, const char *field, struct json_object *v,
		  uint64_t *out)
{
	char buf[176];
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return jv_u64(rd, w, field, v, out);
	s = json_object_get_string(v);
	if (!parse_key(s, (size_t)json_object_get_string_len(v), out))
		return 0;
	return jv_fail(rd, w, field, "\"%s\" is not a key (\"0x\" and 1 to 16 hex digits)",
		       msg_str(s, buf, sizeof(buf)));
}

/*
 * A string-table index (or null when nullable: *out NO_IDX). The table must
 * have been read: "strings" comes before the sections that use it.
 */
static int jv_stridx(struct rd *rd, const struct where *w, const char *field, struct json_object *v,
		     bool nullable, size_t *out)
{
	char path[160];
	uint64_t idx;

	*out = NO_IDX;
	if (!v && nullable)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return jv_fail(rd, w, field,
			       nullable ? "expected a string index (an integer) or null, got %s"
					: "expected a string index (an integer), got %s",
			       jtype(v));
	if (jv_u64(rd, w, field, v, &idx))
		return -1;
	if (idx >= rd->nr_strs) {
		where_fmt(w, field, path, sizeof(path));
		return rd_fail(rd,
			       "%s: string index %" PRIu64
			       " is out of range (the string table has %zu strings%s)",
			       path, idx, rd->nr_strs,
			       rd->seen & 1u << TF_STRINGS ? ""
							   : "; \"strings\" must come before it");
	}
	*out = (size_t)idx;
	return 0;
}

/* Member field of record o; NULL (and *present false) when absent. */
static struct json_object *jf(struct json_object *o, const char *field, bool *present)
{
	struct json_object *v = NULL;

	*present = json_object_object_get_ex(o, field, &v);
	return v;
}

static int jf_missing(struct rd *rd, const struct where *w, const char *field)
{
	char path[160];

	where_fmt(w, NULL, path, sizeof(path));
	return rd_fail(rd, "%s: missing \"%s\"", path, field);
}

/* Optional (dflt) or required u64 / u32 member. */
static int jf_u64(struct rd *rd, const struct where *w, struct json_object *o, const char *field,
		  bool required, uint64_t dflt, uint64_t *out)
{
	bool present;
	struct json_object *v = jf(o, field, &present);

	if (!present) {
		*out = dflt;
		return required ? jf_missing(rd, w, field) : 0;
	}
	return jv_u64(rd, w, field, v, out);
}

static int jf_u32(struct rd *rd, const struct where *w, struct json_object *o, const char *field,
		  bool required, uint32_t *out)
{
	bool present;
	struct json_object *v = jf(o, field, &present);

	if (!present) {
		*out = 0;
		return required ? jf_missing(rd, w, field) : 0;
	}
	return jv_u32(rd, w, field, v, out);
}

/* Optional string member (absent: NULL). */
static int jf_str(struct rd *rd, const struct where *w, struct json_object *o, const char *field,
		  bool nullable, const char **out)
{
	bool present;
	struct json_object *v = jf(o, field, &present);

	*out = NULL;
	return present ? jv_str(rd, w, field, v, nullable, out) : 0;
}

/* Optional string-table index member (absent: NO_IDX), see jv_stridx. */
static int jf_stridx(struct rd *rd, const struct where *w, struct json_object *o, const char *field,
		     bool nullable, size_t *out)
{
	bool present;
	struct json_object *v = jf(o, field, &present);

	*out = NO_IDX;
	return present ? jv_stridx(rd, w, field, v, nullable, out) : 0;
}

/* One metadata field into m; strings point into v unless copy. */
static int rd_meta_field(struct rd *rd, const struct where *w, enum meta_field f,
			 struct json_object *v, struct profile_meta *m, bool copy)
{
	const char *s, **dst;
	double d = 0;

	if (f <= MF_KERNEL) {
		if (jv_str(rd, w, meta_names[f], v, true, &s))
			return -1;
		dst = meta_str(m, f);
		if (copy) {
			free((char *)*dst);
			*dst = NULL;
			if (s) {
				*dst = strdup(s);
				if (!*dst)
					return rd_fail(rd, "out of memory");
			}
		} else {
			*dst = s;
		}
		return 0;
	}
	if (f == MF_FREQUENCY)
		return jv_u64(rd, w, meta_names[f], v, &m->frequency_hz);
	if (f == MF_PERIOD)
		return jv_u64(rd, w, meta_names[f], v, &m->period_ns);
	if (jv_real(rd, w, meta_names[f], v, &d))
		return -1;
	*meta_real(m, f) = d;
	return 0;
}

/* A diagnostics object into diag; unknown counters are ignored (a later
 * fsp-bpf may add some), missing ones are 0. */
static int rd_diag(struct rd *rd, const struct where *w, struct json_object *o, uint64_t *diag)
{
	char path[160];
	int d;

	if (!json_object_is_type(o, json_type_object)) {
		where_fmt(w, NULL, path, sizeof(path));
		return rd_fail(rd, "%s: expected an object, got %s", path, jtype(o));
	}
	for (d = 0; d < DIAG__COUNT; d++)
		if (jf_u64(rd, w, o, profile_diag__name(d), false, 0, &diag[d]))
			return -1;
	return 0;
}

/* ---- the reader: sections ------------------------------------------------------------------ */

/* One record of an array: a value of type want (an object or an array). */
static int rd_record(struct rd *rd, const struct where *w, enum json_type want,
		     struct json_object **o)
{
	char path[160];

	if (rd_value(rd, "a record", o))
		return -1;
	if (json_object_is_type(*o, want))
		return 0;
	where_fmt(w, NULL, path, sizeof(path));
	rd_fail(rd, "%s: expected %s, got %s", path,
		want == json_type_array ? "an array" : "an object", jtype(*o));
	json_object_put(*o);
	*o = NULL;
	return -1;
}

/* Records later add_* calls for source src (which must be known by now). */
static int rd_use_source(struct rd *rd, const struct where *w, uint32_t src)
{
	char path[160];

	if (!profile__use_source(rd->p, src))
		return 0;
	where_fmt(w, "source", path, sizeof(path));
	return rd_fail(rd, "%s: source %u is not in \"sources\" (%zu sources%s)", path, src,
		       profile__nr_sources(rd->p),
		       rd->seen & 1u << TF_SOURCES ? "" : " so far; they must come first");
}

static int rd_add_err(struct rd *rd, const struct where *w, int err)
{
	char path[160];

	where_fmt(w, NULL, path, sizeof(path));
	return rd_fail(rd, "%s: %s", path, strerror(-err));
}

/* Iterates the array that must come next, calling fn for each element. */
static int rd_array(struct rd *rd, const char *sect, int (*fn)(struct rd *rd, size_t i))
{
	struct where w = {sect, NO_IDX, NULL, NO_IDX};
	size_t n = 0;
	int r;

	if (rd_enter(rd, '[', &w, NULL))
		return -1;
	while ((r = rd_next(rd, ']', &n)) > 0)
		if (fn(rd, n - 1))
			return -1;
	return r;
}

static int rd_source(struct rd *rd, size_t i)
{
	struct where w = {"sources", i, NULL, NO_IDX};
	struct where wd = {"sources", i, "diagnostics", NO_IDX};
	uint64_t diag[DIAG__COUNT] = {};
	struct profile_meta m = {};
	struct json_object *o, *v;
	bool present;
	int f, err = -1;

	if (rd_record(rd, &w, json_type_object, &o))
		return -1;
	for (f = 0; f < MF__COUNT; f++) {
		v = jf(o, meta_names[f], &present);
		if (present && rd_meta_field(rd, &w, f, v, &m, false))
			goto cleanup;
	}
	v = jf(o, "diagnostics", &present);
	if (present && rd_diag(rd, &wd, v, diag))
		goto cleanup;
	err = profile__add_source(rd->p, &m, diag);
	if (err < 0) {
		rd_add_err(rd, &w, err);
		err = -1;
		goto cleanup;
	}
	err = 0;
cleanup:
	json_object_put(o);
	return err;
}

static int rd_pid(struct rd *rd, size_t i)
{
	struct where w = {"pids", i, NULL, NO_IDX};
	struct json_object *v;
	uint32_t pid;
	int err;

	if (rd_value(rd, "a pid", &v))
		return -1;
	err = jv_u32(rd, &w, NULL, v, &pid);
	json_object_put(v);
	if (err)
		return -1;
	if (fsp_grow((void **)&rd->pids, &rd->cap_pids, rd->nr_pids + 1, sizeof(*rd->pids)))
		return rd_fail(rd, "out of memory");
	rd->pids[rd->nr_pids++] = pid;
	return 0;
}

/* v1 files list their processes in "pids" only: they are source 0's, added
 * before the first record that would register a process itself. */
static int rd_add_pids(struct rd *rd)
{
	size_t i;
	int err;

	if (rd->pids_added || rd->seen & 1u << TF_PROCESSES)
		return 0;
	rd->pids_added = true;
	if (profile__use_source(rd->p, 0))
		return rd_fail(rd, "out of memory");
	for (i = 0; i < rd->nr_pids; i++) {
		err = profile__add_pid(rd->p, rd->pids[i]);
		if (err)
			return rd_fail(rd, "pids[%zu]: %s", i, strerror(-err));
	}
	return 0;
}

static int rd_process(struct rd *rd, size_t i)
{
	struct where w = {"processes", i, NULL, NO_IDX};
	struct json_object *o;
	uint32_t src, pid, nspid;
	int err = -1;

	if (rd_record(rd, &w, json_type_object, &o))
		return -1;
	if (jf_u32(rd, &w, o, "source", false, &src) || jf_u32(rd, &w, o, "pid", true, &pid) ||
	    jf_u32(rd, &w, o, "nspid", false, &nspid) || rd_use_source(rd, &w, src))
		goto cleanup;
	err = profile__add_pid(rd->p, pid);
	if (!err && nspid)
		err = profile__set_process_nspid(rd->p, pid, nspid);
	if (err) {
		rd_add_err(rd, &w, err);
		err = -1;
	}
cleanup:
	json_object_put(o);
	return err;
}

static int rd_thread(struct rd *rd, size_t i)
{
	struct where w = {"threads", i, NULL, NO_IDX};
	struct json_object *o;
	uint32_t src, pid, tid;
	const char *comm;
	int err = -1;

	if (rd_record(rd, &w, json_type_object, &o))
		return -1;
	if (jf_u32(rd, &w, o, "source", false, &src) || jf_u32(rd, &w, o, "pid", true, &pid) ||
	    jf_u32(rd, &w, o, "tid", true, &tid) || jf_str(rd, &w, o, "comm", true, &comm) ||
	    rd_use_source(rd, &w, src))
		goto cleanup;
	/* "samples" and "time_ms" are derived: recomputed from "samples" */
	err = profile__add_thread(rd->p, pid, tid, comm);
	if (err) {
		rd_add_err(rd, &w, err);
		err = -1;
	}
cleanup:
	json_object_put(o);
	return err;
}

/* Room for a stack of depth frames (and their string indexes). 0 or -ENOMEM. */
static int rd_frames_room(struct rd *rd, size_t depth)
{
	if (fsp_grow((void **)&rd->frames, &rd->cap_frames, depth ? depth : 1, sizeof(*rd->frames)))
		return -ENOMEM;
	return fsp_grow((void **)&rd->fidx, &rd->cap_fidx, depth ? depth : 1, sizeof(*rd->fidx));
}

/* ---- the reader: strings, stacks, samples, events ---------------------------------------------- */

/* Appends s (len bytes) to the string table, strings[i]. */
static int rd_add_string(struct rd *rd, size_t i, const char *s, size_t len)
{
	char buf[176];
	const char *copy;
	bool added;
	size_t j;

	copy = strtab__intern_len(rd->stab, s, len, &added);
	if (!copy)
		return rd_fail(rd, "out of memory");
	if (!added) {
		/* readers may compare indexes for equality: each string once */
		for (j = 0; j < rd->nr_strs && rd->strs[j] != copy; j++)
			;
		return rd_fail(rd, "strings[%zu]: \"%s\" is also strings[%zu] (each string once)",
			       i, msg_str(copy, buf, sizeof(buf)), j);
	}
	if (fsp_grow((void **)&rd->strs, &rd->cap_strs, rd->nr_strs + 1, sizeof(*rd->strs)))
		return rd_fail(rd, "out of memory");
	rd->strs[rd->nr_strs++] = copy;
	return 0;
}

static int rd_string(struct rd *rd, size_t i)
{
	struct where w = {"strings", i, NULL, NO_IDX};
	struct json_object *v;
	const char *s;
	int err;

	if (rd_value(rd, "a string", &v))
		return -1;
	err = jv_str(rd, &w, NULL, v, false, &s);
	if (!err)
		err = rd_add_string(rd, i, s, (size_t)json_object_get_string_len(v));
	json_object_put(v);
	return err;
}

/* Frame j of version 1 stack i: an object; the strings point into o. */
static int rd_frame_v1(struct rd *rd, size_t i, size_t j, struct json_object *o)
{
	char buf[176];
	struct where w = {"stacks", i, "frames", j};
	struct profile_frame *fr = &rd->frames[j];
	const char *kind;
	char path[160];

	memset(fr, 0, sizeof(*fr));
	rd->fidx[j] = (struct frame_idx){NO_IDX, NO_IDX};
	if (!json_object_is_type(o, json_type_object)) {
		where_fmt(&w, NULL, path, sizeof(path));
		return rd_fail(rd, "%s: expected an object (a version 1 frame), got %s", path,
			       jtype(o));
	}
	if (jf_str(rd, &w, o, "kind", false, &kind) ||
	    jf_str(rd, &w, o, "feature", false, &fr->feature) ||
	    jf_str(rd, &w, o, "instance", true, &fr->instance) ||
	    jf_u64(rd, &w, o, "payload", false, 0, &fr->payload))
		return -1;
	if (!kind)
		return jf_missing(rd, &w, "kind");
	if (!fr->feature)
		return jf_missing(rd, &w, "feature");
	if (!strcmp(kind, "mark"))
		fr->kind = PROFILE_MARK;
	else if (!strcmp(kind, "antimark"))
		fr->kind = PROFILE_ANTIMARK;
	else
		return jv_fail(rd, &w, "kind",
			       "unknown frame kind \"%s\" (expected \"mark\" or \"antimark\")",
			       msg_str(kind, buf, sizeof(buf)));
	return 0;
}

/* Frame j of version 2 stack i: [kind, feature, instance, payload], the
 * last two optional, elements after them ignored (later revisions). */
static int rd_frame_v2(struct rd *rd, size_t i, size_t j, struct json_object *a)
{
	char buf[176];
	struct where w = {"stacks", i, "frames", j};
	struct profile_frame *fr = &rd->frames[j];
	struct frame_idx *x = &rd->fidx[j];
	const char *kind;
	char path[160];
	size_t n;

	memset(fr, 0, sizeof(*fr));
	*x = (struct frame_idx){NO_IDX, NO_IDX};
	where_fmt(&w, NULL, path, sizeof(path));
	if (!json_object_is_type(a, json_type_array))
		return rd_fail(rd, "%s: expected an array (a version 2 frame), got %s", path,
			       jtype(a));
	n = json_object_array_length(a);
	if (n < 2)
		return rd_fail(rd,
			       "%s: %zu element%s, expected [kind, feature, instance, payload] "
			       "with at least kind and feature",
			       path, n, n == 1 ? "" : "s");
	if (jv_str(rd, &w, "kind", json_object_array_get_idx(a, 0), false, &kind) ||
	    jv_stridx(rd, &w, "feature", json_object_array_get_idx(a, 1), false, &x->feature) ||
	    (n > 2 &&
	     jv_stridx(rd, &w, "instance", json_object_array_get_idx(a, 2), true, &x->instance)) ||
	    (n > 3 && jv_u64(rd, &w, "payload", json_object_array_get_idx(a, 3), &fr->payload)))
		return -1;
	if (!strcmp(kind, "m"))
		fr->kind = PROFILE_MARK;
	else if (!strcmp(kind, "a"))
		fr->kind = PROFILE_ANTIMARK;
	else
		return jv_fail(rd, &w, "kind",
			       "unknown frame kind \"%s\" (expected \"m\" or \"a\")",
			       msg_str(kind, buf, sizeof(buf)));
	fr->feature = rd->strs[x->feature];
	fr->instance = x->instance == NO_IDX ? NULL : rd->strs[x->instance];
	return 0;
}

/*
 * Stack i with json-c: one value (a record, at most PROFILE_IO_MAX_VALUE
 * bytes), since one parse is much cheaper than one per frame and field.
 * *o is the record (to put by the caller); version 1 frames point into it.
 */
static int rd_stack_json(struct rd *rd, size_t i, struct stack_in *in, struct json_object **o)
{
	struct where w = {"stacks", i, NULL, NO_IDX};
	struct json_object *frames, *v;
	bool present;
	size_t j;

	memset(in, 0, sizeof(*in));
	if (rd_record(rd, &w, json_type_object, o))
		return -1;
	if (jf_u64(rd, &w, *o, "id", false, i, &in->id) ||
	    jf_u32(rd, &w, *o, "pid", true, &in->pid))
		return -1;
	/* version 1 has no sources and no keys (stack i gets key i + 1) */
	if (rd->version >= 2) {
		if (jf_u32(rd, &w, *o, "source", false, &in->source))
			return -1;
		v = jf(*o, "key", &in->has_key);
		if (in->has_key && jv_key(rd, &w, "key", v, &in->key))
			return -1;
	}
	frames = jf(*o, "frames", &present);
	if (!present)
		return jf_missing(rd, &w, "frames");
	if (!json_object_is_type(frames, json_type_array))
		return jv_fail(rd, &w, "frames", "expected an array, got %s", jtype(frames));
	in->depth = json_object_array_length(frames);
	if (in->depth > PROFILE_IO_MAX_FRAMES)
		return rd_fail(rd, "stacks[%zu].frames: %zu frames, more than the limit of %d", i,
			       in->depth, PROFILE_IO_MAX_FRAMES);
	if (rd_frames_room(rd, in->depth))
		return rd_fail(rd, "out of memory");
	for (j = 0; j < in->depth; j++) {
		v = json_object_array_get_idx(frames, j);
		if (rd->version >= 2 ? rd_frame_v2(rd, i, j, v) : rd_frame_v1(rd, i, j, v))
			return -1;
	}
	return 0;
}

/* Adds stack i as read (by either path). */
static int rd_add_stack(struct rd *rd, size_t i, const struct stack_in *in)
{
	struct where w = {"stacks", i, NULL, NO_IDX};
	uint64_t key = in->has_key ? in->key : (uint64_t)i + 1;
	struct profile_stack st;
	size_t j;
	int r;

	if (in->id != i)
		return rd_fail(
			rd, "stacks[%zu].id: %" PRIu64 ", but ids are the stacks' positions (%zu)",
			i, in->id, i);
	if (in->has_key && !in->key)
		return rd_fail(rd, "stacks[%zu].key: 0 is the empty stack's key", i);
	if (rd_add_pids(rd) || rd_use_source(rd, &w, in->source))
		return -1;
	r = profile__add_stack(rd->p, in->pid, key, rd->frames, in->depth);
	if (r == -EEXIST)
		return rd_fail(
			rd, "stacks[%zu]: a second stack of source %u, pid %u with key 0x%" PRIx64,
			i, in->source, in->pid, key);
	if (r)
		return rd_add_err(rd, &w, r);
	/* From now on the strings this stack used are given to the profile as
	 * its own copies, which it interns without hashing them. */
	if (rd->version >= 2 && !profile__stack(rd->p, profile__nr_stacks(rd->p) - 1, &st)) {
		for (j = 0; j < st.depth && j < in->depth; j++) {
			rd->strs[rd->fidx[j].feature] = st.frames[j].feature;
			if (rd->fidx[j].instance != NO_IDX && st.frames[j].instance)
				rd->strs[rd->fidx[j].instance] = st.frames[j].instance;
		}
	}
	return 0;
}

static int rd_stack(struct rd *rd, size_t i)
{
	struct json_object *o = NULL;
	struct stack_in in;
	int err;

	err = rd_stack_json(rd, i, &in, &o);
	if (!err)
		err = rd_add_stack(rd, i, &in);
	json_object_put(o);
	return err;
}

/* Checks that version 1 sample entry ref names a stack of its own (source,
 * pid, key). */
static int rd_check_ref(struct rd *rd, const struct stack_ref *ref)
{
	struct profile_stack st;
	size_t nr = profile__nr_stacks(rd->p);

	if (ref->stack >= nr)
		return rd_fail(rd, "samples[%zu].stack: unknown stack id %" PRIu64 " (%zu stacks)",
			       ref->entry, ref->stack, nr);
	if (profile__stack(rd->p, ref->stack, &st))
		return rd_fail(rd, "out of memory");
	if (st.source != ref->source || st.pid != ref->pid || st.key != ref->key)
		return rd_fail(rd,
			       "samples[%zu]: stack %" PRIu64
			       " is source %u, pid %u, key 0x%" PRIx64
			       ", not the sample's source %u, pid %u, key 0x%" PRIx64,
			       ref->entry, ref->stack, st.source, st.pid, st.key, ref->source,
			       ref->pid, ref->key);
	return 0;
}

/* The columns of a version 2 sample row, for messages. */
static const char *const sample_cols[] = {"source", "pid", "tid", "stack", "count", "offcpu_ns"};

/* Sample i of a version 2 file with json-c: a row, see sample_cols; columns
 * after them are ignored (later revisions). */
static int rd_sample_json(struct rd *rd, size_t i, struct sample_in *in)
{
	struct where w = {"samples", i, NULL, NO_IDX};
	struct json_object *a, *v;
	int err = -1;
	size_t n;

	memset(in, 0, sizeof(*in));
	if (rd_record(rd, &w, json_type_array, &a))
		return -1;
	n = json_object_array_length(a);
	if (n < 5) {
		rd_fail(rd,
			"samples[%zu]: %zu columns, expected 5 or 6 "
			"([source, pid, tid, stack, count] and optionally offcpu_ns)",
			i, n);
		goto cleanup;
	}
	if (jv_u32(rd, &w, sample_cols[0], json_object_array_get_idx(a, 0), &in->source) ||
	    jv_u32(rd, &w, sample_cols[1], json_object_array_get_idx(a, 1), &in->pid) ||
	    jv_u32(rd, &w, sample_cols[2], json_object_array_get_idx(a, 2), &in->tid))
		goto cleanup;
	v = json_object_array_get_idx(a, 3);
	if (!v) {
		in->by = SS_EMPTY;
	} else if (json_object_is_type(v, json_type_string)) {
		if (jv_key(rd, &w, sample_cols[3], v, &in->stack))
			goto cleanup;
		in->by = in->stack ? SS_KEY : SS_EMPTY;
	} else if (json_object_is_type(v, json_type_int)) {
		if (jv_u64(rd, &w, sample_cols[3], v, &in->stack))
			goto cleanup;
		in->by = SS_ID;
	} else {
		jv_fail(rd, &w, sample_cols[3], "expected a stack id, null or a key string, got %s",
			jtype(v));
		goto cleanup;
	}
	if (jv_u64(rd, &w, sample_cols[4], json_object_array_get_idx(a, 4), &in->count) ||
	    (n > 5 && jv_u64(rd, &w, sample_cols[5], json_object_array_get_idx(a, 5), &in->offcpu)))
		goto cleanup;
	err = 0;
cleanup:
	json_object_put(a);
	return err;
}

/* Sample i of a version 1 file: an object {pid, tid, stack, count}. */
static int rd_sample_v1(struct rd *rd, size_t i, struct sample_in *in)
{
	struct where w = {"samples", i, NULL, NO_IDX};
	struct json_object *o, *v;
	bool present;
	int err = -1;

	memset(in, 0, sizeof(*in));
	if (rd_record(rd, &w, json_type_object, &o))
		return -1;
	if (jf_u32(rd, &w, o, "pid", true, &in->pid) || jf_u32(rd, &w, o, "tid", true, &in->tid) ||
	    jf_u64(rd, &w, o, "count", true, 0, &in->count))
		goto cleanup;
	v = jf(o, "stack", &present);
	in->by = v ? SS_V1_ID : SS_EMPTY;
	if (v && jv_u64(rd, &w, "stack", v, &in->stack))
		goto cleanup;
	err = 0;
cleanup:
	json_object_put(o);
	return err;
}

/* Adds sample i as read. */
static int rd_add_sample(struct rd *rd, size_t i, const struct sample_in *in)
{
	struct where w = {"samples", i, NULL, NO_IDX};
	struct profile_stack st;
	struct stack_ref ref;
	uint64_t key = 0;
	size_t nr;
	int err;

	if (in->count > UINT64_MAX - rd->sum_count)
		return rd_fail(
			rd, "samples[%zu].count: the sample counts add up to more than 2^64-1", i);
	if (in->offcpu > UINT64_MAX - rd->sum_offcpu)
		return rd_fail(
			rd,
			"samples[%zu].offcpu_ns: the off-CPU times add up to more than 2^64-1 ns",
			i);
	rd->sum_count += in->count;
	rd->sum_offcpu += in->offcpu;
	if (rd_add_pids(rd) || rd_use_source(rd, &w, in->source))
		return -1;

	switch (in->by) {
	case SS_EMPTY:
		break;
	case SS_KEY:
		key = in->stack;
		break;
	case SS_ID:
		/* version 2: the stack's key; stacks come first */
		nr = profile__nr_stacks(rd->p);
		if (in->stack >= nr)
			return rd_fail(
				rd,
				"samples[%zu].stack: unknown stack id %" PRIu64 " (%zu stacks%s)",
				i, in->stack, nr,
				rd->stacks_done ? "" : " so far; \"stacks\" must come before it");
		if (profile__stack(rd->p, in->stack, &st))
			return rd_fail(rd, "out of memory");
		if (st.source != in->source || st.pid != in->pid)
			return rd_fail(rd,
				       "samples[%zu]: stack %" PRIu64
				       " is source %u, pid %u, not the sample's source %u, pid %u",
				       i, in->stack, st.source, st.pid, in->source, in->pid);
		key = st.key;
		break;
	case SS_V1_ID:
		/* version 1: stack i has key i + 1; checked once the stacks are known */
		key = in->stack + 1;
		ref = (struct stack_ref){i, in->stack, key, in->source, in->pid};
		if (rd->stacks_done) {
			if (rd_check_ref(rd, &ref))
				return -1;
		} else {
			if (fsp_grow((void **)&rd->refs, &rd->cap_refs, rd->nr_refs + 1,
				     sizeof(*rd->refs)))
				return rd_fail(rd, "out of memory");
			rd->refs[rd->nr_refs++] = ref;
		}
		break;
	}
	/* -ENOENT: a key of no stack (an unknown stack), kept as such */
	err = profile__add_samples(rd->p, in->pid, in->tid, key, in->count);
	if (!err || err == -ENOENT)
		err = profile__add_offcpu(rd->p, in->pid, in->tid, key, in->offcpu);
	if (err && err != -ENOENT)
		return rd_add_err(rd, &w, err);
	return 0;
}

static int rd_sample(struct rd *rd, size_t i)
{
	struct sample_in in;

	if (rd->version >= 2 ? rd_sample_json(rd, i, &in) : rd_sample_v1(rd, i, &in))
		return -1;
	return rd_add_sample(rd, i, &in);
}

static int rd_event(struct rd *rd, size_t i)
{
	struct where w = {"events", i, NULL, NO_IDX};
	struct where wh = {"events", i, "hist", NO_IDX};
	struct profile_event_stats st = {};
	struct json_object *o, *h;
	size_t feature, instance;
	uint32_t src, pid;
	size_t b, n;
	bool present;
	int err = -1;

	if (rd_record(rd, &w, json_type_object, &o))
		return -1;
	if (jf_u32(rd, &w, o, "source", false, &src) || jf_u32(rd, &w, o, "pid", true, &pid) ||
	    jf_stridx(rd, &w, o, "feature", false, &feature) ||
	    jf_stridx(rd, &w, o, "instance", true, &instance) ||
	    jf_u64(rd, &w, o, "enters", false, 0, &st.enters) ||
	    jf_u64(rd, &w, o, "leaves", false, 0, &st.leaves) ||
	    jf_u64(rd, &w, o, "total_ns", false, 0, &st.total_ns) ||
	    jf_u64(rd, &w, o, "max_ns", false, 0, &st.max_ns))
		goto cleanup;
	if (feature == NO_IDX) {
		jf_missing(rd, &w, "feature");
		goto cleanup;
	}
	h = jf(o, "hist", &present);
	if (present) {
		if (!json_object_is_type(h, json_type_array)) {
			jv_fail(rd, &w, "hist", "expected an array, got %s", jtype(h));
			goto cleanup;
		}
		n = json_object_array_length(h);
		if (n > PROFILE_HIST_BUCKETS) {
			rd_fail(rd, "events[%zu].hist: %zu buckets, more than the %d known", i, n,
				PROFILE_HIST_BUCKETS);
			goto cleanup;
		}
		for (b = 0; b < n; b++) {
			wh.j = b;
			if (jv_u64(rd, &wh, NULL, json_object_array_get_idx(h, b), &st.hist[b]))
				goto cleanup;
		}
	}
	if (rd_add_pids(rd) || rd_use_source(rd, &w, src))
		goto cleanup;
	err = profile__add_events(rd->p, pid, rd->strs[feature],
				  instance == NO_IDX ? NULL : rd->strs[instance], &st);
	if (err) {
		rd_add_err(rd, &w, err);
		err = -1;
	}
cleanup:
	json_object_put(o);
	return err;
}

/* The value of top-level member name. */
static int rd_member(struct rd *rd, const char *name)
{
	static const struct where top = {NULL, NO_IDX, NULL, NO_IDX};
	struct json_object *v = NULL;
	char buf[176];
	const char *s;
	int f, r = -1;

	for (f = 0; f < TF__COUNT; f++)
		if (!strcmp(name, f < MF__COUNT ? meta_names[f] : top_names[f - MF__COUNT]))
			break;
	if (f == TF__COUNT) /* derived (features, totals) or unknown: ignored */
		return rd_skip(rd);
	if (rd->seen & 1u << f)
		return rd_fail(rd, "\"%s\" is given twice", name);
	rd->seen |= 1u << f;
	/* the layout of these depends on the version */
	if ((f == TF_STRINGS || f == TF_STACKS || f == TF_SAMPLES || f == TF_EVENTS) &&
	    !rd->version)
		return rd_fail(rd, "\"%s\" comes before \"version\" (the version must come first)",
			       name);

	switch (f) {
	case TF_SOURCES:
		return rd_array(rd, "sources", rd_source);
	case TF_PIDS:
		return rd_array(rd, "pids", rd_pid);
	case TF_PROCESSES:
		return rd_array(rd, "processes", rd_process);
	case TF_THREADS:
		return rd_add_pids(rd) ? -1 : rd_array(rd, "threads", rd_thread);
	case TF_STRINGS:
		/* version 1 has none: an unknown field there */
		return rd->version < 2 ? rd_skip(rd) : rd_array(rd, "strings", rd_string);
	case TF_STACKS:
		if (rd_add_pids(rd) || rd_array(rd, "stacks", rd_stack))
			return -1;
		/* version 1 sample entries read before the stacks are checked now */
		rd->stacks_done = true;
		for (size_t i = 0; i < rd->nr_refs; i++)
			if (rd_check_ref(rd, &rd->refs[i]))
				return -1;
		free(rd->refs);
		rd->refs = NULL;
		rd->nr_refs = rd->cap_refs = 0;
		return 0;
	case TF_SAMPLES:
		return rd_array(rd, "samples", rd_sample);
	case TF_EVENTS:
		return rd->version < 2 ? rd_skip(rd) : rd_array(rd, "events", rd_event);
	default:
		break;
	}

	/* scalars and the diagnostics object: one json-c value */
	if (rd_value(rd, "a value", &v))
		return -1;
	switch (f) {
	case TF_VERSION:
		if (!json_object_is_type(v, json_type_int)) {
			rd_fail(rd, "%s\"version\" is %s, not an integer%s",
				rd->seen & 1u << TF_TOOL ? "" : "not an fsp-bpf profile (",
				jtype(v), rd->seen & 1u << TF_TOOL ? "" : ")");
			break;
		}
		/* int64: a uint64 beyond it reads as INT64_MAX, unsupported too */
		if (json_object_get_int64(v) < PROFILE_FORMAT_MIN_VERSION ||
		    json_object_get_int64(v) > PROFILE_FORMAT_VERSION) {
			rd_fail(rd,
				"unsupported format version %s (fsp-bpf reads versions %d to %d)",
				json_object_get_string(v), PROFILE_FORMAT_MIN_VERSION,
				PROFILE_FORMAT_VERSION);
			break;
		}
		rd->version = (int)json_object_get_int64(v);
		r = 0;
		break;
	case TF_TOOL:
		if (!json_object_is_type(v, json_type_string)) {
			rd_fail(rd, "not an fsp-bpf profile (\"tool\" is %s)", jtype(v));
			break;
		}
		s = json_object_get_string(v);
		if (strcmp(s, "fsp-bpf") || strlen(s) != (size_t)json_object_get_string_len(v)) {
			rd_fail(rd, "not an fsp-bpf profile (\"tool\" is \"%s\")",
				msg_str(s, buf, sizeof(buf)));
			break;
		}
		r = 0;
		break;
	case TF_TOTAL_SAMPLES:
		r = jv_u64(rd, &top, "total_samples", v, &rd->total_samples);
		break;
	case TF_DIAGNOSTICS: {
		struct where wd = {"diagnostics", NO_IDX, NULL, NO_IDX};

		r = rd_diag(rd, &wd, v, rd->diag);
		break;
	}
	default: /* metadata */
		r = rd_meta_field(rd, &top, f, v, &rd->meta, true);
		break;
	}
	json_object_put(v);
	return r;
}

/* The checks that need the whole file, then the metadata. */
static int rd_finish(struct rd *rd)
{
	int d, err;

	if (!(rd->seen & 1u << TF_TOOL))
		return rd_fail(rd, "not an fsp-bpf profile (no \"tool\": \"fsp-bpf\")");
	if (!(rd->seen & 1u << TF_VERSION))
		return rd_fail(rd, "no \"version\": not a profile file fsp-bpf can read");
	for (size_t i = 0; i < rd->nr_refs; i++)
		if (rd_check_ref(rd, &rd->refs[i]))
			return -1;
	if (rd_add_pids(rd))
		return -1;
	if (rd->seen & 1u << TF_TOTAL_SAMPLES && rd->total_samples != rd->sum_count)
		return rd_fail(rd,
			       "corrupt: total_samples is %" PRIu64
			       " but the samples add up to %" PRIu64,
			       rd->total_samples, rd->sum_count);
	err = profile__set_meta(rd->p, &rd->meta);
	if (err)
		return rd_fail(rd, "%s", strerror(-err));
	for (d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(rd->p, d, rd->diag[d]);
	return profile__use_source(rd->p, 0) ? rd_fail(rd, "out of memory") : 0;
}

/* The whole input: one object, then nothing but white space. */
static int rd_document(struct rd *rd)
{
	struct json_object *v;
	char name[32];
	size_t n = 0;
	int c, r;

	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (!r)
		return rd_fail(rd, "empty file");
	if (c != '{') {
		if (rd_value(rd, "the top-level value", &v))
			return -1;
		rd_fail(rd, "not an fsp-bpf profile (the top-level value is %s, not an object)",
			jtype(v));
		json_object_put(v);
		return -1;
	}
	rd->pos++;
	rd->depth = 1;
	while ((r = rd_next(rd, '}', &n)) > 0) {
		if (rd_key(rd, name, sizeof(name)) || rd_member(rd, name))
			return -1;
	}
	if (r < 0)
		return -1;
	r = rd_peek(rd, &c);
	if (r < 0)
		return -1;
	if (r)
		return rd_fail(rd, "unexpected data after the profile at byte %llu", rd_off(rd));
	return rd_finish(rd);
}

static struct profile *rd_run(struct rd *rd)
{
	struct profile *p = NULL;
	int i;

	rd->p = profile__new();
	rd->stab = strtab__new();
	if (!rd->p || !rd->stab)
		rd_fail(rd, "out of memory");
	else if (!rd_document(rd))
		p = rd->p;
	if (!p)
		profile__free(rd->p);
	for (i = 0; i <= PROFILE_IO_MAX_DEPTH; i++)
		if (rd->tok[i])
			json_tokener_free(rd->tok[i]);
	for (i = 0; i <= MF_KERNEL; i++)
		free((char *)*meta_str(&rd->meta, i));
	free(rd->pids);
	free(rd->refs);
	free(rd->frames);
	free(rd->fidx);
	free(rd->strs);
	strtab__free(rd->stab);
	return p;
}

struct profile *profile__parse_json(const char *buf, size_t len, const char *name, char *err,
				    size_t errlen)
{
	struct rd rd = {
		.fd = -1,
		.data = buf,
		.len = len,
		.eof = true,
		.name = name ? name : "(buffer)",
		.err = err,
		.errlen = errlen,
	};

	if (err && errlen)
		err[0] = 0;
	if (!buf && len) {
		rd_fail(&rd, "%s", strerror(EINVAL));
		return NULL;
	}
	if (len > PROFILE_IO_MAX_FILE) {
		rd_fail(&rd, "file too large: %zu bytes, more than %llu (the limit)", len,
			(unsigned long long)PROFILE_IO_MAX_FILE);
		return NULL;
	}
	return rd_run(&rd);
}

struct profile *profile__load(const char *path, char *err, size_t errlen)
{
	struct rd rd = {.err = err, .errlen = errlen};
	struct profile *p = NULL;
	struct stat st;

	if (err && errlen)
		err[0] = 0;
	if (!path) {
		fsp_set_err(err, errlen, "(null): %s", strerror(EINVAL));
		return NULL;
	}
	rd.name = strcmp(path, "-") ? path : "stdin";
	rd.fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (rd.fd < 0) {
		rd_fail(&rd, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(rd.fd, &st)) {
		rd_fail(&rd, "%s", strerror(errno));
		goto cleanup;
	}
	if (S_ISDIR(st.st_mode)) {
		rd_fail(&rd, "%s", strerror(EISDIR));
		goto cleanup;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > PROFILE_IO_MAX_FILE) {
		rd_fail(&rd, "file too large: %llu bytes, more than %llu (the limit)",
			(unsigned long long)st.st_size, (unsigned long long)PROFILE_IO_MAX_FILE);
		goto cleanup;
	}
	rd.chunk = malloc(RD_CHUNK);
	if (!rd.chunk) {
		rd_fail(&rd, "out of memory");
		goto cleanup;
	}
	rd.data = rd.chunk;
	p = rd_run(&rd);
cleanup:
	free(rd.chunk);
	if (rd.fd != STDIN_FILENO)
		close(rd.fd);
	return p;
}
