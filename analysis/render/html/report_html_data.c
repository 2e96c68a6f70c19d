// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The data of the HTML report of a profile (report_html.h; its layout is
 * docs/output-formats.md, "HTML"): the attribution rule applied once per
 * distinct stack (charges.h), summed per (thread, feature, instance)
 * into "charges" rows, so that the page can show any process or thread, or
 * all of them, by adding rows; the event records per (process, feature,
 * instance); the threads with their totals and uncharged parts; labels as
 * indexes into "strings".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_html_int.h"
#include "report_native.h"
#include "report_view.h"
#include "strtab.h"
#include "util.h"

static void hd__fini(struct hd *d)
{
	strtab__free(d->tab);
	hashmap__fini(&d->str_map);
	hashmap__fini(&d->proc_map);
	hashmap__fini(&d->thread_map);
	hashmap__fini(&d->charge_map);
	hashmap__fini(&d->event_map);
	free(d->strs);
	free(d->procs);
	free(d->threads);
	free(d->charges);
	free(d->events);
	charges__fini(&d->rc);
	native_view__fini(&d->nv);
	free(d->native_out);
	free(d->native_order);
	html_calls__fini(d);
}

/* The index of string s in "strings", added when new. -ENOMEM or >= 0. */
int hd_str(struct hd *d, const char *s, size_t *idx)
{
	const char *c = strtab__intern(d->tab, s ? s : "");
	uint64_t v;
	int r;

	if (!c)
		return -ENOMEM;
	r = hashmap__find_or_insert(&d->str_map, (uintptr_t)c, 0, d->nr_strs, &v);
	if (r < 0)
		return r;
	if (!r) {
		if (fsp_grow((void **)&d->strs, &d->cap_strs, d->nr_strs + 1, sizeof(*d->strs)))
			return -ENOMEM;
		d->strs[d->nr_strs++] = c;
	}
	*idx = v;
	return 0;
}

static int hd_processes(struct hd *d)
{
	size_t i, n = profile__nr_pids(d->p);
	int err;

	d->procs = calloc(n ? n : 1, sizeof(*d->procs));
	if (!d->procs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = profile__process(d->p, i, &d->procs[i]);
		if (!err)
			err = hashmap__find_or_insert(&d->proc_map, d->procs[i].source,
						      d->procs[i].pid, i, NULL);
		if (err < 0)
			return err;
	}
	d->nr_procs = n;
	return 0;
}

static int hd_threads(struct hd *d)
{
	size_t i, n = profile__nr_threads(d->p);
	struct profile_thread t;
	uint64_t proc;
	int err;

	d->threads = calloc(n ? n : 1, sizeof(*d->threads));
	if (!d->threads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = profile__thread(d->p, i, &t);
		if (err)
			return err;
		if (!hashmap__find(&d->proc_map, t.source, t.pid, &proc))
			return -EINVAL; /* the model records a thread's process */
		d->threads[i].process = proc;
		d->threads[i].tid = t.tid;
		d->threads[i].samples = t.samples;
		err = hd_str(d, t.comm, &d->threads[i].comm);
		if (!err)
			err = hashmap__find_or_insert(
				&d->thread_map, (uint64_t)t.source << 32 | t.pid, t.tid, i, NULL);
		if (err < 0)
			return err;
	}
	d->nr_threads = n;
	return 0;
}

/* The index + 1 of native stack `stack` in the data's native_stacks
 * (added when new), 0 for SIZE_MAX (none). */
size_t hd_native(struct hd *d, size_t stack)
{
	if (stack == SIZE_MAX)
		return 0;
	if (!d->native_out[stack]) {
		d->native_order[d->nr_native_out++] = stack;
		d->native_out[stack] = d->nr_native_out;
	}
	return d->native_out[stack];
}

/* Adds count samples and off_ns off-CPU time of a charge to its (thread,
 * feature, instance[, native stack]) row. */
static int hd_charge(struct hd *d, size_t thread, const struct charge *c, uint64_t count,
		     uint64_t off_ns, size_t stack)
{
	size_t feat, inst, native = hd_native(d, stack);
	uint64_t idx;
	int r;

	if (hd_str(d, c->feature, &feat) || hd_str(d, c->instance, &inst))
		return -ENOMEM;
	r = hashmap__find_or_insert(&d->charge_map, (uint64_t)native << 32 | thread,
				    (uint64_t)feat << 32 | inst, d->nr_charges, &idx);
	if (r < 0)
		return r;
	if (!r) {
		if (fsp_grow((void **)&d->charges, &d->cap_charges, d->nr_charges + 1,
			     sizeof(*d->charges)))
			return -ENOMEM;
		d->charges[d->nr_charges++] = (struct hd_charge){thread, feat, inst, 0, 0, native};
	}
	d->charges[idx].samples = fsp_sat_add(d->charges[idx].samples, count);
	d->charges[idx].offcpu_ns = fsp_sat_add(d->charges[idx].offcpu_ns, off_ns);
	return 0;
}

/* The native samples joined to core samples (report_native.h): rows of
 * their core sample's charges with their native stack. */
static int hd_native_samples(struct hd *d)
{
	const struct profile_native_sample *ns;
	const struct charge *c;
	size_t i, j, n;
	uint64_t thread;
	int err = 0;

	for (i = 0; i < d->nv.nr_joins && !err; i++) {
		ns = &d->nv.joins[i];
		if (!hashmap__find(&d->thread_map, (uint64_t)ns->source << 32 | ns->pid, ns->tid,
				   &thread))
			return -EINVAL;
		c = charges__of(&d->rc, ns->mark_stack, &n);
		for (j = 0; j < n && !err; j++) {
			if (report_features__has(&d->scope->feat, c[j].feature))
				err = hd_charge(d, thread, &c[j], ns->count, 0, ns->stack);
		}
	}
	return err;
}

/* Every sample row: its thread's totals and the charges of its stack. */
static int hd_samples(struct hd *d)
{
	const struct charge *c;
	struct profile_sample s;
	struct hd_thread *t;
	size_t i, j, n;
	uint64_t thread, count;
	int err;

	for (i = 0; i < profile__nr_samples(d->p); i++) {
		err = profile__sample(d->p, i, &s);
		if (err)
			return err;
		if (!hashmap__find(&d->thread_map, (uint64_t)s.source << 32 | s.pid, s.tid,
				   &thread))
			return -EINVAL;
		t = &d->threads[thread];
		t->offcpu_ns = fsp_sat_add(t->offcpu_ns, s.offcpu_ns);
		c = charges__of(&d->rc, s.stack, &n);
		/* with native stacks: the samples that have none (rows of
		 * their own; a sample's time is in one row of its charge) */
		count = d->has_native ? d->nv.rest[i] : s.count;
		for (j = 0; j < n && (count || s.offcpu_ns || !d->has_native); j++) {
			if (!report_features__has(&d->scope->feat, c[j].feature))
				continue;
			err = hd_charge(d, thread, &c[j], count, s.offcpu_ns, SIZE_MAX);
			if (err)
				return err;
		}
		if (!n) {
			t->uncharged = fsp_sat_add(t->uncharged, s.count);
			t->uncharged_offcpu_ns = fsp_sat_add(t->uncharged_offcpu_ns, s.offcpu_ns);
		}
	}
	return 0;
}

/* The event records, per (process, feature, instance); a NULL instance is
 * "(no instance)", as the attribution names it. */
static int hd_events(struct hd *d)
{
	struct profile_event ev;
	size_t i, feat, inst;
	uint64_t proc, idx;
	int r;

	for (i = 0; i < profile__nr_events(d->p); i++) {
		if (profile__event(d->p, i, &ev) ||
		    !report_features__has(&d->scope->feat, ev.feature))
			continue;
		if (!hashmap__find(&d->proc_map, ev.source, ev.pid, &proc))
			return -EINVAL;
		if (hd_str(d, ev.feature, &feat) ||
		    hd_str(d, ev.instance ? ev.instance : ATTRIB_NO_INSTANCE, &inst))
			return -ENOMEM;
		r = hashmap__find_or_insert(&d->event_map, proc, (uint64_t)feat << 32 | inst,
					    d->nr_events, &idx);
		if (r < 0)
			return r;
		if (!r) {
			if (fsp_grow((void **)&d->events, &d->cap_events, d->nr_events + 1,
				     sizeof(*d->events)))
				return -ENOMEM;
			d->events[d->nr_events++] = (struct hd_event){proc, feat, inst, {0}};
		}
		profile_event_stats__add(&d->events[idx].st, ev.stats);
	}
	return 0;
}

/* The labels of the functions of the native stacks written, as strings
 * (before "strings" is written: hd__init). */
static int hd_native_strings(struct hd *d)
{
	const uint32_t *fs;
	size_t i, k, n, idx;

	for (i = 0; i < d->nr_native_out; i++) {
		fs = native_view__stack(&d->nv, d->native_order[i], &n);
		for (k = 0; k < n; k++) {
			if (hd_str(d, d->nv.funcs[fs[k]].label, &idx))
				return -ENOMEM;
		}
	}
	return 0;
}

static int hd__init(struct hd *d, const struct report_scope *scope)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->scope = scope;
	d->p = scope->p;
	d->tab = strtab__new();
	if (!d->tab)
		return -ENOMEM;
	err = charges__init(&d->rc, d->p);
	d->has_native = native_view__any(d->p);
	if (!err && d->has_native) {
		err = native_view__init(&d->nv, d->p);
		d->native_out = calloc(d->nv.nr_stacks + 1, sizeof(*d->native_out));
		d->native_order = calloc(d->nv.nr_stacks + 1, sizeof(*d->native_order));
		if (!err && (!d->native_out || !d->native_order))
			err = -ENOMEM;
	}
	if (!err)
		err = hd_processes(d);
	if (!err)
		err = hd_threads(d);
	if (!err)
		err = hd_samples(d);
	if (!err && d->has_native)
		err = hd_native_samples(d);
	if (!err)
		err = html_calls__prepare(d); /* may add native stacks */
	if (!err && d->has_native)
		err = hd_native_strings(d);
	if (!err)
		err = hd_events(d);
	return err;
}

/* ---- writing ---- */

static void hd_meta(struct json_out *w, const struct profile *p)
{
	const struct profile_meta *m = profile__meta(p);
	struct json_object *o = json_out__object(w);

	json_out__add(w, o, "target", json_out__str(w, m->target));
	json_out__add(w, o, "command_line", json_out__str(w, m->command_line));
	json_out__add(w, o, "host", json_out__str(w, m->host));
	json_out__add(w, o, "kernel", json_out__str(w, m->kernel));
	json_out__add(w, o, "tool_version", json_out__str(w, m->tool_version));
	json_out__add(w, o, "start_time", json_out__real(w, m->start_time));
	json_out__add(w, o, "duration_s", json_out__real(w, m->duration_s));
	json_out__add(w, o, "frequency_hz", json_out__u64(w, m->frequency_hz));
	json_out__add(w, o, "period_ns", json_out__u64(w, profile_meta__period_ns(m)));
	json_out__add(w, o, "sources", json_out__u64(w, profile__nr_sources(p)));
	json_out__member(w, "meta", o);
}

/* What --comm/--pid and --feature kept (null members when not given). */
static void hd_filter(struct json_out *w, const struct report_scope *s,
		      const struct report_opts *opts)
{
	struct json_object *o = json_out__object(w), *f = NULL;

	json_out__add(w, o, "comm", json_out__str(w, opts ? opts->comm : NULL));
	json_out__add(w, o, "pid", json_out__str(w, opts ? opts->pid : NULL));
	json_out__add(w, o, "whole_processes",
		      json_out__u64(w, profile__nr_pids(s->whole ? s->whole : s->p)));
	json_out__add(w, o, "whole_samples",
		      json_out__u64(w, profile__total_samples(s->whole ? s->whole : s->p)));
	if (!s->feat.all) {
		f = json_out__array(w, s->feat.nr);
		for (size_t i = 0; i < s->feat.nr; i++)
			json_out__append(w, f, json_out__str(w, s->feat.names[i]));
	}
	json_out__add(w, o, "features", f);
	json_out__member(w, "filter", o);
}

static void hd_diagnostics(struct json_out *w, const struct profile *p)
{
	struct json_object *o;

	json_out__begin_array(w, "diagnostics");
	for (int i = 0; i < DIAG__COUNT; i++) {
		o = json_out__object(w);
		json_out__add(w, o, "name", json_out__str(w, profile_diag__name(i)));
		json_out__add(w, o, "value", json_out__u64(w, profile__diag(p, i)));
		json_out__add(w, o, "description", json_out__str(w, profile_diag__describe(i)));
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}

#define ROW_SEP(w) json_out__row_lit(w, ",")

static void hd_rows(struct json_out *w, const struct hd *d)
{
	size_t i;

	json_out__begin_array(w, "processes");
	for (i = 0; i < d->nr_procs; i++) {
		json_out__row_lit(w, "[");
		json_out__row_u64(w, d->procs[i].source);
		ROW_SEP(w);
		json_out__row_u64(w, d->procs[i].pid);
		ROW_SEP(w);
		json_out__row_u64(w, d->procs[i].nspid);
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
	json_out__begin_array(w, "threads");
	for (i = 0; i < d->nr_threads; i++) {
		const struct hd_thread *t = &d->threads[i];
		const uint64_t v[] = {t->process,
				      t->tid,
				      t->comm,
				      t->samples,
				      t->offcpu_ns,
				      t->uncharged,
				      t->uncharged_offcpu_ns};

		json_out__row_lit(w, "[");
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			if (k)
				ROW_SEP(w);
			json_out__row_u64(w, v[k]);
		}
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

static void hd_charges(struct json_out *w, const struct hd *d)
{
	json_out__begin_array(w, "charges");
	for (size_t i = 0; i < d->nr_charges && !w->err; i++) {
		const struct hd_charge *c = &d->charges[i];

		json_out__row_lit(w, "[");
		json_out__row_u64(w, c->thread);
		ROW_SEP(w);
		json_out__row_u64(w, c->feature);
		ROW_SEP(w);
		json_out__row_u64(w, c->instance);
		ROW_SEP(w);
		json_out__row_u64(w, c->samples);
		ROW_SEP(w);
		json_out__row_u64(w, c->offcpu_ns);
		if (c->native) {
			ROW_SEP(w);
			json_out__row_u64(w, c->native - 1);
		}
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

static void hd_events_write(struct json_out *w, const struct hd *d)
{
	json_out__begin_array(w, "events");
	for (size_t i = 0; i < d->nr_events && !w->err; i++) {
		const struct hd_event *e = &d->events[i];
		const uint64_t v[] = {e->process,   e->feature,	    e->instance, e->st.enters,
				      e->st.leaves, e->st.total_ns, e->st.max_ns};
		int last = PROFILE_HIST_BUCKETS;

		json_out__row_lit(w, "[");
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			json_out__row_u64(w, v[k]);
			ROW_SEP(w);
		}
		while (last > 0 && !e->st.hist[last - 1])
			last--;
		json_out__row_lit(w, "[");
		for (int k = 0; k < last; k++) {
			if (k)
				ROW_SEP(w);
			json_out__row_u64(w, e->st.hist[k]);
		}
		json_out__row_lit(w, "]]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

/* "native_stacks": each native stack of a row, its functions' labels as
 * string indexes, caller first (the frame the instance's code called
 * first), inlined functions as frames of their own. */
static void hd_native_stacks(struct json_out *w, struct hd *d)
{
	const uint32_t *fs;
	size_t i, k, n, idx;

	json_out__begin_array(w, "native_stacks");
	for (i = 0; i < d->nr_native_out && !w->err; i++) {
		fs = native_view__stack(&d->nv, d->native_order[i], &n);
		json_out__row_lit(w, "[");
		for (k = n; k-- > 0;) {
			hd_str(d, d->nv.funcs[fs[k]].label, &idx); /* interned: found */
			json_out__row_u64(w, idx);
			if (k)
				ROW_SEP(w);
		}
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

static void hd_strings(struct json_out *w, const struct hd *d)
{
	json_out__begin_array(w, "strings");
	for (size_t i = 0; i < d->nr_strs && !w->err; i++)
		json_out__record(w, json_out__str(w, d->strs[i]), "    ");
	json_out__end_array(w);
}

/* The "sources" of every instance label of the rows. */
static int hd_sources(struct json_out *w, const struct hd *d, const struct report_html_opts *h)
{
	const char **labels = calloc(d->nr_charges + d->nr_events + 1, sizeof(*labels));
	size_t i, n = 0;
	int err;

	if (!labels)
		return -ENOMEM;
	for (i = 0; i < d->nr_charges; i++)
		labels[n++] = d->strs[d->charges[i].instance];
	for (i = 0; i < d->nr_events; i++)
		labels[n++] = d->strs[d->events[i].instance];
	err = html_sources__write(w, labels, n, h);
	free(labels);
	return err;
}

static void hd_totals(struct json_out *w, const struct profile *p)
{
	struct json_object *o = json_out__object(w);

	json_out__add(w, o, "samples", json_out__u64(w, profile__total_samples(p)));
	json_out__add(w, o, "offcpu_ns", json_out__u64(w, profile__total_offcpu_ns(p)));
	json_out__add(w, o, "processes", json_out__u64(w, profile__nr_pids(p)));
	json_out__add(w, o, "threads", json_out__u64(w, profile__nr_threads(p)));
	json_out__member(w, "totals", o);
}

static const char *order_name(const struct report_opts *opts)
{
	static const char *const names[] = {"cost", "samples", "name"};
	unsigned int o = opts ? (unsigned int)opts->order : 0;

	return o < sizeof(names) / sizeof(names[0]) ? names[o] : names[0];
}

static int hd_write(struct json_out *w, struct hd *d, const struct report_opts *opts,
		    const struct report_html_opts *h)
{
	int err;

	html_data__head(w, "profile");
	hd_meta(w, d->p);
	hd_filter(w, d->scope, opts);
	json_out__member(w, "order", json_out__str(w, order_name(opts)));
	hd_totals(w, d->p);
	hd_diagnostics(w, d->p);
	hd_rows(w, d);
	hd_charges(w, d);
	hd_events_write(w, d);
	hd_native_stacks(w, d);
	html_calls__write(w, d);
	json_out__member(w, "call_selection", json_out__str(w, h ? h->call_selection : NULL));
	err = hd_sources(w, d, h);
	html_plugins__write(w, h);
	hd_strings(w, d);
	json_out__puts(w, "\n}\n");
	return err;
}

/* True when the features --feature names have nothing in the rows. */
static bool hd_nothing_selected(const struct hd *d)
{
	return !d->scope->feat.all && !d->nr_charges && !d->nr_events;
}

int report_html__data(FILE *out, const struct profile *p, const struct report_opts *opts,
		      const struct report_html_opts *h)
{
	struct report_scope scope;
	struct json_out w;
	struct hd d;
	int err, werr;

	if (!out || !p)
		return -EINVAL;
	err = report_scope__init(&scope, p, opts);
	if (err)
		return err;
	err = hd__init(&d, &scope);
	if (!err && hd_nothing_selected(&d))
		err = -ENOENT;
	if (!err) {
		err = json_out__begin(&w, out);
		if (!err) {
			json_out__puts(&w, "{");
			err = hd_write(&w, &d, opts, h);
			werr = json_out__end(&w);
			err = err ? err : werr;
		}
	}
	hd__fini(&d);
	report_scope__fini(&scope);
	return err;
}
