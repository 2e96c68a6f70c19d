// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's writer (profile_io.h, docs/profile-format.md).
 *
 * The top-level object is framed member by member (json_out.h). The string
 * table is built first (every label of the stacks and events, once); the
 * stacks and sample rows, nearly all of a file, are formatted directly in the
 * row buffer (they hold only integers, null and fixed strings); every other
 * value and record is a json-c object serialized on its own line and freed.
 * Writing takes constant memory beyond the model, its attribution and the
 * string table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "hashmap.h"
#include "json_out.h"
#include "outfile.h"
#include "output.h"
#include "profile_format.h"
#include "profile_io.h"
#include "profile_write.h"
#include "strtab.h"
#include "util.h"

/* The metadata members of m into o (a source), or as top-level members (o NULL). */
static void pw_meta(struct json_out *w, struct json_object *o, const struct profile_meta *m)
{
	struct profile_meta c = *m;
	struct json_object *v;
	int f;

	for (f = 0; f < MF__COUNT && !w->err; f++) {
		if ((f == MF_EVENT_TRAP && !m->event_trap_ns) ||
		    (f == MF_FUNCTION_FEATURES && !m->function_features))
			continue;
		if (f <= MF_FUNCTION_FEATURES)
			v = json_out__str(w, *meta_field__str(&c, f));
		else if (f == MF_FREQUENCY)
			v = json_out__u64(w, m->frequency_hz);
		else if (f == MF_PERIOD)
			v = json_out__u64(w, profile_meta__period_ns(m));
		else if (f == MF_EVENT_TRAP)
			v = json_out__u64(w, m->event_trap_ns);
		else
			v = json_out__real(w, *meta_field__real(&c, f));
		if (o)
			json_out__add(w, o, top_field__name(f), v);
		else
			json_out__member(w, top_field__name(f), v);
	}
}

static struct json_object *pw_diag(struct json_out *w, const uint64_t *diag)
{
	struct json_object *o = json_out__object(w);
	int d;

	for (d = 0; d < DIAG__COUNT; d++)
		json_out__add(w, o, profile_diag__name(d), json_out__u64(w, diag[d]));
	return o;
}

static void pw_sources(struct json_out *w, const struct profile *p)
{
	struct profile_source src;
	struct json_object *o;
	size_t i;

	json_out__begin_array(w, "sources");
	for (i = 0; i < profile__nr_sources(p) && !w->err; i++) {
		if (profile__source(p, i, &src))
			continue;
		o = json_out__object(w);
		pw_meta(w, o, src.meta);
		json_out__add(w, o, "diagnostics", pw_diag(w, src.diag));
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}

static void pw_processes(struct json_out *w, const struct profile *p)
{
	struct profile_process pr;
	struct json_object *o;
	size_t i;

	/* pids: the v1 view, kept for v1 readers */
	json_out__puts(w, ",\n  \"pids\": [");
	for (i = 0; i < profile__nr_pids(p); i++) {
		if (i)
			json_out__puts(w, ",");
		json_out__value(w, json_out__u64(w, profile__pid(p, i)));
	}
	json_out__puts(w, "]");

	json_out__begin_array(w, "processes");
	for (i = 0; i < profile__nr_pids(p) && !w->err; i++) {
		if (profile__process(p, i, &pr))
			continue;
		o = json_out__object(w);
		json_out__add(w, o, "source", json_out__u64(w, pr.source));
		json_out__add(w, o, "pid", json_out__u64(w, pr.pid));
		/* optional: older files have none, older readers ignore it */
		if (pr.nspid)
			json_out__add(w, o, "nspid", json_out__u64(w, pr.nspid));
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}

/* Features with their instances: the feature's members on one line, then
 * one line per instance. */
static void pw_features(struct json_out *w, const struct attrib *a, uint64_t period)
{
	uint64_t total = attrib__total_samples(a);
	const struct attrib_feature *f;
	struct json_object *o;
	size_t i, j;

	json_out__begin_array(w, "features");
	for (i = 0; i < attrib__nr_features(a) && !w->err; i++) {
		f = attrib__feature(a, i);
		json_out__puts(w, i ? ",\n    {\"name\":" : "\n    {\"name\":");
		w->first_rec = false;
		json_out__value(w, json_out__str(w, f->name));
		json_out__puts(w, ",\"samples\":");
		json_out__value(w, json_out__u64(w, f->samples));
		json_out__puts(w, ",\"time_ms\":");
		json_out__value(w, json_out__real(w, report_ms(f->samples, period)));
		json_out__puts(w, ",\"pct\":");
		json_out__value(w, json_out__real(w, report_pct(f->samples, total)));
		if (f->other_samples) {
			json_out__puts(w, ",\"other_samples\":");
			json_out__value(w, json_out__u64(w, f->other_samples));
		}
		json_out__puts(w, ",\"instances\":[");
		for (j = 0; j < f->nr_instances && !w->err; j++) {
			const struct attrib_instance *in = &f->instances[j];

			o = json_out__object(w);
			json_out__add(w, o, "name", json_out__str(w, in->name));
			json_out__add(w, o, "samples", json_out__u64(w, in->samples));
			json_out__add(w, o, "time_ms",
				      json_out__real(w, report_ms(in->samples, period)));
			json_out__add(w, o, "pct",
				      json_out__real(w, report_pct(in->samples, total)));
			if (in->other_samples)
				json_out__add(w, o, "other_samples",
					      json_out__u64(w, in->other_samples));
			json_out__puts(w, j ? ",\n      " : "\n      ");
			json_out__value(w, o);
		}
		json_out__puts(w, f->nr_instances ? "\n    ]}" : "]}");
	}
	json_out__end_array(w);
}

static void pw_threads(struct json_out *w, const struct profile *p, uint64_t period)
{
	struct profile_thread t;
	struct json_object *o;
	size_t i;

	json_out__begin_array(w, "threads");
	for (i = 0; i < profile__nr_threads(p) && !w->err; i++) {
		if (profile__thread(p, i, &t))
			continue;
		o = json_out__object(w);
		json_out__add(w, o, "source", json_out__u64(w, t.source));
		json_out__add(w, o, "pid", json_out__u64(w, t.pid));
		json_out__add(w, o, "tid", json_out__u64(w, t.tid));
		json_out__add(w, o, "comm", json_out__str(w, t.comm));
		json_out__add(w, o, "samples", json_out__u64(w, t.samples));
		json_out__add(w, o, "time_ms", json_out__real(w, report_ms(t.samples, period)));
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}

static void pw_strings_fini(struct pw_strings *t)
{
	hashmap__fini(&t->by_addr);
	hashmap__fini(&t->by_text);
	strtab__free(t->text);
	free(t->list);
}

uint64_t pw__string(struct json_out *w, struct pw_strings *t, const char *s)
{
	const char *u = s;
	uint64_t idx = 0;
	size_t len;
	int r;

	if (hashmap__find(&t->by_addr, (uintptr_t)s, 0, &idx) || w->err)
		return idx;
	if (json_out__utf8(w, &u, &len))
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
static void pw_strings_build(struct json_out *w, struct pw_strings *t, const struct profile *p)
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
			pw__string(w, t, st.frames[j].feature);
			if (st.frames[j].instance)
				pw__string(w, t, st.frames[j].instance);
		}
	}
	for (i = 0; i < profile__nr_events(p) && !w->err; i++) {
		if (profile__event(p, i, &e))
			continue;
		pw__string(w, t, e.feature);
		if (e.instance)
			pw__string(w, t, e.instance);
	}
	pw__native_strings(w, t, p);
	pw__calls_strings(w, t, p);
}

static void pw_strings(struct json_out *w, const struct pw_strings *t)
{
	size_t i;

	json_out__begin_array(w, "strings");
	for (i = 0; i < t->nr && !w->err; i++)
		json_out__record(w, json_out__str(w, t->list[i]), "    ");
	json_out__end_array(w);
}

/* A frame: ["m", feature, instance] for a mark (["c", ...] for a mark of
 * another thread charged to this one), ["a", feature] for an antimark (with
 * its instance when it has one), then the payload when not 0. */
static void pw_frame(struct json_out *w, struct pw_strings *t, const struct profile_frame *fr)
{
	bool mark = fr->kind == PROFILE_MARK || fr->kind == PROFILE_CHARGED;

	if (fr->kind == PROFILE_MARK)
		json_out__row_lit(w, "[\"m\",");
	else if (fr->kind == PROFILE_CHARGED)
		json_out__row_lit(w, "[\"c\",");
	else
		json_out__row_lit(w, "[\"a\",");
	json_out__row_u64(w, pw__string(w, t, fr->feature));
	if (mark || fr->instance || fr->payload) {
		json_out__row_lit(w, ",");
		if (fr->instance)
			json_out__row_u64(w, pw__string(w, t, fr->instance));
		else
			json_out__row_lit(w, "null");
	}
	if (fr->payload) {
		json_out__row_lit(w, ",");
		json_out__row_u64(w, fr->payload);
	}
	json_out__row_lit(w, "]");
}

static void pw_stacks(struct json_out *w, const struct profile *p, struct pw_strings *t)
{
	struct profile_stack st;
	size_t i, j;

	json_out__begin_array(w, "stacks");
	for (i = 0; i < profile__nr_stacks(p) && !w->err; i++) {
		if (profile__stack(p, i, &st))
			continue;
		json_out__row_lit(w, "{\"id\":");
		json_out__row_u64(w, i);
		json_out__row_lit(w, ",\"source\":");
		json_out__row_u64(w, st.source);
		json_out__row_lit(w, ",\"pid\":");
		json_out__row_u64(w, st.pid);
		json_out__row_lit(w, ",\"key\":");
		json_out__row_hex(w, st.key);
		json_out__row_lit(w, ",\"frames\":[");
		for (j = 0; j < st.depth; j++) {
			if (j)
				json_out__row_lit(w, ",");
			pw_frame(w, t, &st.frames[j]);
		}
		json_out__row_lit(w, "]");
		if (st.flags & PROFILE_STACK_PAYLOADS_LOST)
			json_out__row_lit(w, ",\"payloads_kept\":false");
		json_out__row_lit(w, "}");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

/* A row's mark stack column: see profile_write.h. */
static void pw_stack_ref(struct json_out *w, size_t stack, uint64_t key)
{
	if (stack != PROFILE_NO_STACK)
		json_out__row_u64(w, stack);
	else if (!key)
		json_out__row_lit(w, "null");
	else
		json_out__row_hex(w, key);
}

void pw__sample_head(struct json_out *w, uint32_t source, uint32_t pid, uint32_t tid, size_t stack,
		     uint64_t key)
{
	json_out__row_lit(w, "[");
	json_out__row_u64(w, source);
	json_out__row_lit(w, ",");
	json_out__row_u64(w, pid);
	json_out__row_lit(w, ",");
	json_out__row_u64(w, tid);
	json_out__row_lit(w, ",");
	pw_stack_ref(w, stack, key);
}

/* Sample rows: [source, pid, tid, stack, count] and off-CPU time as a sixth
 * column in profiles that measured some. stack is the stack's id, null for
 * the empty stack, the key for a stack that was not stored. */
static void pw_samples(struct json_out *w, const struct profile *p)
{
	bool has_offcpu = profile__total_offcpu_ns(p) != 0;
	struct profile_sample s;
	size_t i;

	json_out__begin_array(w, "samples");
	for (i = 0; i < profile__nr_samples(p) && !w->err; i++) {
		if (profile__sample(p, i, &s))
			continue;
		pw__sample_head(w, s.source, s.pid, s.tid, s.stack, s.key);
		json_out__row_lit(w, ",");
		json_out__row_u64(w, s.count);
		if (has_offcpu) {
			json_out__row_lit(w, ",");
			json_out__row_u64(w, s.offcpu_ns);
		}
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

static void pw_events(struct json_out *w, const struct profile *p, struct pw_strings *t)
{
	const struct profile_event_stats *st;
	struct profile_event e;
	struct json_object *o, *h;
	size_t i, b, n;

	json_out__begin_array(w, "events");
	for (i = 0; i < profile__nr_events(p) && !w->err; i++) {
		if (profile__event(p, i, &e))
			continue;
		st = e.stats;
		o = json_out__object(w);
		json_out__add(w, o, "source", json_out__u64(w, e.source));
		json_out__add(w, o, "pid", json_out__u64(w, e.pid));
		json_out__add(w, o, "feature", json_out__u64(w, pw__string(w, t, e.feature)));
		json_out__add(w, o, "instance",
			      e.instance ? json_out__u64(w, pw__string(w, t, e.instance)) : NULL);
		json_out__add(w, o, "enters", json_out__u64(w, st->enters));
		json_out__add(w, o, "leaves", json_out__u64(w, st->leaves));
		json_out__add(w, o, "total_ns", json_out__u64(w, st->total_ns));
		json_out__add(w, o, "max_ns", json_out__u64(w, st->max_ns));
		/* the histogram without its trailing empty buckets */
		for (n = PROFILE_HIST_BUCKETS; n && !st->hist[n - 1]; n--)
			;
		h = json_out__array(w, n);
		for (b = 0; b < n && !w->err; b++)
			json_out__append(w, h, json_out__u64(w, st->hist[b]));
		json_out__add(w, o, "hist", h);
		if (st->point)
			json_out__add(w, o, "point", json_out__bool(w, true));
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}

/* The profile file of p, with its attribution a and ext's members, into w. */
static void pw_profile(struct json_out *w, const struct profile *p, const struct attrib *a,
		       const struct profile_json_ext *ext)
{
	const struct profile_meta *m = profile__meta(p);
	uint64_t period = profile_meta__period_ns(m), diag[DIAG__COUNT];
	struct profile_meta top = *m;
	struct pw_strings strs = {HASHMAP_INIT, HASHMAP_INIT, NULL, NULL, 0, 0};
	int d;

	/* the top level names its writer when the model does not */
	if (!top.tool_version)
		top.tool_version = FSP_VERSION;
	pw_strings_build(w, &strs, p);
	json_out__puts(w, "{");
	json_out__member(w, "version", json_out__u64(w, PROFILE_FORMAT_VERSION));
	json_out__member(w, "tool", json_out__str(w, "fsp-bpf"));
	pw_meta(w, NULL, &top);
	pw_sources(w, p);
	pw_processes(w, p);
	json_out__member(w, "total_samples", json_out__u64(w, profile__total_samples(p)));
	json_out__member(w, "total_ms",
			 json_out__real(w, report_ms(profile__total_samples(p), period)));
	json_out__member(w, "total_offcpu_ns", json_out__u64(w, profile__total_offcpu_ns(p)));
	json_out__member(w, "attributed_samples", json_out__u64(w, attrib__total_samples(a)));
	json_out__member(w, "uncharged_samples", json_out__u64(w, attrib__uncharged_samples(a)));
	pw_features(w, a, period);
	pw_threads(w, p, period);
	pw_strings(w, &strs);
	pw_stacks(w, p, &strs);
	pw_samples(w, p);
	pw_events(w, p, &strs);
	pw__native(w, p, &strs);
	pw__calls(w, p, &strs);
	if (ext && ext->members && !w->err) {
		int err = ext->members(ext->ctx, w);

		if (err && !w->err)
			w->err = err;
	}

	/* diagnostics: pretty, one counter per line */
	for (d = 0; d < DIAG__COUNT; d++)
		diag[d] = profile__diag(p, d);
	json_out__puts(w, ",\n  \"diagnostics\": {");
	for (d = 0; d < DIAG__COUNT; d++) {
		json_out__puts(w, d ? ",\n    \"" : "\n    \"");
		json_out__puts(w, profile_diag__name(d));
		json_out__puts(w, "\": ");
		json_out__value(w, json_out__u64(w, diag[d]));
	}
	json_out__puts(w, "\n  }\n}\n");
	pw_strings_fini(&strs);
}

int profile__write_json(FILE *out, const struct profile *p)
{
	return profile__write_json_ext(out, p, NULL);
}

int profile__write_json_ext(FILE *out, const struct profile *p, const struct profile_json_ext *ext)
{
	struct json_out w;
	struct attrib *a;
	int err;

	if (!out || !p)
		return -EINVAL;
	a = attrib__compute(p, NULL);
	if (!a)
		return -ENOMEM;
	err = json_out__begin(&w, out);
	if (!err) {
		pw_profile(&w, p, a, ext);
		err = json_out__end(&w);
	}
	attrib__free(a);
	return err;
}

static int save(const char *path, bool excl, const struct profile *p, char *err, size_t errlen)
{
	struct outfile *f;
	int ret;

	if (!path || !p) {
		fsp_set_err(err, errlen, "%s: %s", path ? path : "(null)", strerror(EINVAL));
		return -EINVAL;
	}
	/* atomically (outfile.h); "-" is stdout */
	f = excl ? outfile__open_new(path, &ret) : outfile__open(path, &ret);
	if (f) {
		ret = profile__write_json(outfile__stream(f), p);
		if (!ret)
			ret = outfile__commit(f);
		outfile__free(f);
	}
	if (ret)
		fsp_set_err(err, errlen, "%s: %s", strcmp(path, "-") ? path : "stdout",
			    outfile__strerror(ret));
	return ret;
}

int profile__save(const char *path, const struct profile *p, char *err, size_t errlen)
{
	return save(path, false, p, err, errlen);
}

int profile__save_new(const char *path, const struct profile *p, char *err, size_t errlen)
{
	return save(path, true, p, err, errlen);
}
