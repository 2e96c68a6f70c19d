// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A window of a recording: the difference of two snapshots (window.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "native.h"
#include "util.h"
#include "window.h"

#define TKEY(pid, tid) ((uint64_t)(pid) << 32 | (tid))
#define UNSET UINT32_MAX

/* What the window takes from end, and how end's records are found in start. */
struct win {
	const struct profile *start, *end;
	struct profile *w;
	struct hashmap start_samples; /* (pid, tid), key -> index in start */
	struct hashmap start_events; /* pid, hash(feature, instance) -> first index in start */
	struct hashmap start_native; /* (pid, tid), hash(key, content) -> index in start */
	struct hashmap active; /* (pid, tid) and (pid, UNSET): in the window */
	uint64_t *count, *offcpu; /* per end sample: the window's part */
	uint32_t *modules, *locs; /* end's module and location -> w's, UNSET: not yet */
	size_t *stacks; /* end's native stack -> w's + 1, 0: not yet */
	uint32_t *buf; /* a copied native stack's locations */
};

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t event_hash(const char *feature, const char *instance)
{
	return fsp_hash_pair(fsp_hash_str(feature), instance ? fsp_hash_str(instance) : 0);
}

static int mark_active(struct win *c, uint32_t pid, uint32_t tid)
{
	int err = hashmap__find_or_insert(&c->active, TKEY(pid, tid), 0, 1, NULL);

	if (err >= 0)
		err = hashmap__find_or_insert(&c->active, TKEY(pid, 0), UNSET, 1, NULL);
	return err < 0 ? err : 0;
}

static bool is_active(const struct win *c, uint32_t pid, uint64_t tid)
{
	return hashmap__find(&c->active, TKEY(pid, tid == UNSET ? 0 : tid),
			     tid == UNSET ? UNSET : 0, NULL);
}

/* A native stack's content, the same in both snapshots: its locations by
 * module path and address, its kind of unwinding. */
static uint64_t native_content(const struct profile *p, size_t i)
{
	struct profile_native_stack s;
	struct profile_location loc;
	struct profile_module mod;
	uint64_t h;

	if (profile__native_stack(p, i, &s))
		return 0;
	h = fsp_hash_pair(s.nr_kernel, (uint64_t)s.method << 32 | s.flags);
	for (size_t j = 0; j < s.depth; j++) {
		uint64_t m = 0;

		if (profile__location(p, s.locs[j], &loc))
			return 0;
		if (loc.module != PROFILE_NO_MODULE && !profile__module(p, loc.module, &mod))
			m = fsp_hash_str(mod.path);
		h = fsp_hash_pair(h, fsp_hash_pair(m, loc.address));
	}
	return h;
}

/* ---- start's records, found by end's ----------------------------------------- */

static int index_start(struct win *c)
{
	const struct profile *s = c->start;
	struct profile_native_sample ns;
	struct profile_sample smp;
	struct profile_event ev;
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_samples(s); i++) {
		err = profile__sample(s, i, &smp);
		if (!err)
			err = hashmap__find_or_insert(&c->start_samples, TKEY(smp.pid, smp.tid),
						      smp.key, i, NULL);
	}
	for (size_t i = 0; err >= 0 && i < profile__nr_events(s); i++) {
		err = profile__event(s, i, &ev);
		if (!err)
			err = hashmap__find_or_insert(&c->start_events, ev.pid,
						      event_hash(ev.feature, ev.instance), i, NULL);
	}
	for (size_t i = 0; err >= 0 && i < profile__nr_native_samples(s); i++) {
		err = profile__native_sample(s, i, &ns);
		if (!err)
			err = hashmap__find_or_insert(
				&c->start_native, TKEY(ns.pid, ns.tid),
				fsp_hash_pair(ns.key, native_content(s, ns.stack)), i, NULL);
	}
	return err < 0 ? err : 0;
}

static const struct profile_event_stats *start_event(const struct win *c,
						     const struct profile_event *e)
{
	struct profile_event s;
	uint64_t idx;

	if (!hashmap__find(&c->start_events, e->pid, event_hash(e->feature, e->instance), &idx))
		return NULL;
	/* A collision of the hash: equal records come later, as in profile.c. */
	for (size_t i = idx; i < profile__nr_events(c->start); i++) {
		if (profile__event(c->start, i, &s) || s.pid != e->pid ||
		    strcmp(s.feature, e->feature))
			continue;
		if ((!s.instance && !e->instance) ||
		    (s.instance && e->instance && !strcmp(s.instance, e->instance)))
			return s.stats;
	}
	return NULL;
}

/* The window's part of event record e (all zero: not in the window). */
static void event_delta(const struct win *c, const struct profile_event *e,
			struct profile_event_stats *d)
{
	const struct profile_event_stats *s = start_event(c, e), *n = e->stats;

	memset(d, 0, sizeof(*d));
	d->enters = sub(n->enters, s ? s->enters : 0);
	d->leaves = sub(n->leaves, s ? s->leaves : 0);
	d->total_ns = sub(n->total_ns, s ? s->total_ns : 0);
	for (size_t b = 0; b < PROFILE_HIST_BUCKETS; b++)
		d->hist[b] = sub(n->hist[b], s ? s->hist[b] : 0);
	d->max_ns = d->leaves ? n->max_ns : 0;
	d->point = n->point;
}

/* ---- the core samples and events --------------------------------------------- */

/* Each end sample's part in the window; marks the threads that have one. */
static int sample_deltas(struct win *c)
{
	struct profile_sample e, s;
	uint64_t idx;
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_samples(c->end); i++) {
		err = profile__sample(c->end, i, &e);
		if (err)
			break;
		c->count[i] = e.count;
		c->offcpu[i] = e.offcpu_ns;
		if (hashmap__find(&c->start_samples, TKEY(e.pid, e.tid), e.key, &idx) &&
		    !profile__sample(c->start, idx, &s)) {
			c->count[i] = sub(e.count, s.count);
			c->offcpu[i] = sub(e.offcpu_ns, s.offcpu_ns);
		}
		if (c->count[i] || c->offcpu[i])
			err = mark_active(c, e.pid, e.tid);
	}
	return err;
}

typedef int (*event_fn)(struct win *c, const struct profile_event *e,
			const struct profile_event_stats *d);

/* fn on each end event record with a part in the window (d: that part). */
static int each_event_delta(struct win *c, event_fn fn)
{
	struct profile_event_stats d;
	struct profile_event e;
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_events(c->end); i++) {
		err = profile__event(c->end, i, &e);
		if (err)
			break;
		event_delta(c, &e, &d);
		if (d.enters || d.leaves)
			err = fn(c, &e, &d);
	}
	return err;
}

static int mark_event_process(struct win *c, const struct profile_event *e,
			      const struct profile_event_stats *d)
{
	int err = hashmap__find_or_insert(&c->active, TKEY(e->pid, 0), UNSET, 1, NULL);

	(void)d;
	return err < 0 ? err : 0;
}

static int event_active(struct win *c)
{
	return each_event_delta(c, mark_event_process);
}

/* Processes and threads with something in the window, in end's order. */
static int add_owners(struct win *c)
{
	struct profile_process proc;
	struct profile_thread th;
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_pids(c->end); i++) {
		err = profile__process(c->end, i, &proc);
		if (err || !is_active(c, proc.pid, UNSET))
			continue;
		err = profile__add_pid(c->w, proc.pid);
		if (!err && proc.nspid)
			err = profile__set_process_nspid(c->w, proc.pid, proc.nspid);
	}
	for (size_t i = 0; !err && i < profile__nr_threads(c->end); i++) {
		err = profile__thread(c->end, i, &th);
		if (!err && is_active(c, th.pid, th.tid))
			err = profile__add_thread(c->w, th.pid, th.tid, th.comm);
	}
	return err;
}

static int add_samples(struct win *c)
{
	struct profile_stack st;
	struct profile_sample e;
	int err = 0;

	/* The stacks first: a sample is matched to its stack when added. */
	for (size_t i = 0; !err && i < profile__nr_samples(c->end); i++) {
		err = profile__sample(c->end, i, &e);
		if (err || (!c->count[i] && !c->offcpu[i]) || e.stack == PROFILE_NO_STACK ||
		    !profile__find_stack(c->w, e.pid, e.key, NULL))
			continue;
		err = profile__stack(c->end, e.stack, &st);
		if (!err)
			err = profile__add_stack(c->w, st.pid, st.key, st.frames, st.depth);
		if (!err && st.flags)
			err = profile__set_stack_flags(c->w, profile__nr_stacks(c->w) - 1,
						       st.flags);
	}
	for (size_t i = 0; !err && i < profile__nr_samples(c->end); i++) {
		err = profile__sample(c->end, i, &e);
		if (err || (!c->count[i] && !c->offcpu[i]))
			continue;
		/* -ENOENT: a stack the recorder could not store, counted all the same. */
		if (c->count[i] || !c->offcpu[i])
			err = profile__add_samples(c->w, e.pid, e.tid, e.key, c->count[i]);
		if ((!err || err == -ENOENT) && c->offcpu[i])
			err = profile__add_offcpu(c->w, e.pid, e.tid, e.key, c->offcpu[i]);
		if (err == -ENOENT)
			err = 0;
	}
	return err;
}

static int add_event(struct win *c, const struct profile_event *e,
		     const struct profile_event_stats *d)
{
	return profile__add_events(c->w, e->pid, e->feature, e->instance, d);
}

static int add_events(struct win *c)
{
	return each_event_delta(c, add_event);
}

/* ---- native stacks ----------------------------------------------------------- */

/* end's location i in w (copied with its module the first time). */
static int64_t copy_location(struct win *c, uint32_t i)
{
	struct profile_location loc;
	struct profile_module mod;
	int ret;

	if (c->locs[i] != UNSET)
		return c->locs[i];
	ret = profile__location(c->end, i, &loc);
	if (!ret && loc.module != PROFILE_NO_MODULE && c->modules[loc.module] == UNSET) {
		ret = profile__module(c->end, loc.module, &mod);
		if (!ret)
			ret = profile__add_module(c->w, &mod);
		if (ret >= 0)
			c->modules[loc.module] = (uint32_t)ret;
	}
	if (ret >= 0 && loc.module != PROFILE_NO_MODULE)
		loc.module = c->modules[loc.module];
	if (ret >= 0)
		ret = profile__add_location(c->w, &loc);
	if (ret >= 0)
		c->locs[i] = (uint32_t)ret;
	return ret;
}

/* end's native stack i in w (copied the first time): its index or -errno. */
static int64_t copy_native_stack(struct win *c, size_t i)
{
	struct profile_native_stack s;
	int64_t ret;

	if (c->stacks[i])
		return (int64_t)c->stacks[i] - 1;
	ret = profile__native_stack(c->end, i, &s);
	for (size_t j = 0; !ret && j < s.depth; j++) {
		int64_t loc = copy_location(c, s.locs[j]);

		if (loc < 0)
			return loc;
		c->buf[j] = (uint32_t)loc;
	}
	s.locs = c->buf;
	if (!ret)
		ret = profile__add_native_stack(c->w, &s);
	if (ret >= 0)
		c->stacks[i] = (size_t)ret + 1;
	return ret;
}

static int native_alloc(struct win *c)
{
	const struct profile *e = c->end;
	struct profile_native_stack s;
	size_t depth = 1;

	for (size_t i = 0; i < profile__nr_native_stacks(e); i++)
		if (!profile__native_stack(e, i, &s) && s.depth > depth)
			depth = s.depth;
	c->modules = malloc((profile__nr_modules(e) + 1) * sizeof(*c->modules));
	c->locs = malloc((profile__nr_locations(e) + 1) * sizeof(*c->locs));
	c->stacks = calloc(profile__nr_native_stacks(e) + 1, sizeof(*c->stacks));
	c->buf = calloc(depth, sizeof(*c->buf));
	if (!c->modules || !c->locs || !c->stacks || !c->buf)
		return -ENOMEM;
	memset(c->modules, 0xff, (profile__nr_modules(e) + 1) * sizeof(*c->modules));
	memset(c->locs, 0xff, (profile__nr_locations(e) + 1) * sizeof(*c->locs));
	return 0;
}

static int add_native(struct win *c)
{
	struct profile_native_sample e, s;
	int64_t stack;
	uint64_t idx, n;
	int err;

	if (!profile__nr_native_samples(c->end))
		return 0;
	err = native_alloc(c);
	for (size_t i = 0; !err && i < profile__nr_native_samples(c->end); i++) {
		err = profile__native_sample(c->end, i, &e);
		if (err)
			break;
		n = e.count;
		if (hashmap__find(&c->start_native, TKEY(e.pid, e.tid),
				  fsp_hash_pair(e.key, native_content(c->end, e.stack)), &idx) &&
		    !profile__native_sample(c->start, idx, &s))
			n = sub(e.count, s.count);
		if (!n)
			continue;
		stack = copy_native_stack(c, e.stack);
		err = stack < 0 ? (int)stack
				: profile__add_native_samples(c->w, e.pid, e.tid, e.key,
							      (size_t)stack, n);
	}
	return err;
}

/* ---- the window ---------------------------------------------------------------- */

static int set_meta(struct win *c)
{
	struct profile_meta m = *profile__meta(c->end);

	m.start_time = profile__meta(c->start)->end_time;
	m.duration_s = m.end_time > m.start_time ? m.end_time - m.start_time : 0;
	for (int d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(c->w, d,
				  sub(profile__diag(c->end, d), profile__diag(c->start, d)));
	return profile__set_meta(c->w, &m);
}

static void win_fini(struct win *c)
{
	hashmap__fini(&c->start_samples);
	hashmap__fini(&c->start_events);
	hashmap__fini(&c->start_native);
	hashmap__fini(&c->active);
	free(c->count);
	free(c->offcpu);
	free(c->modules);
	free(c->locs);
	free(c->stacks);
	free(c->buf);
}

struct profile *profile__window(const struct profile *start, const struct profile *end, int *err)
{
	size_t n = profile__nr_samples(end) + 1;
	struct win c = {
		.start = start,
		.end = end,
		.start_samples = HASHMAP_INIT,
		.start_events = HASHMAP_INIT,
		.start_native = HASHMAP_INIT,
		.active = HASHMAP_INIT,
	};

	*err = -EINVAL;
	if (!start || !end || profile__nr_sources(start) || profile__nr_sources(end))
		return NULL;
	c.w = profile__new();
	c.count = calloc(n, sizeof(*c.count));
	c.offcpu = calloc(n, sizeof(*c.offcpu));
	*err = c.w && c.count && c.offcpu ? 0 : -ENOMEM;
	if (!*err)
		*err = index_start(&c);
	if (!*err)
		*err = sample_deltas(&c);
	if (!*err)
		*err = event_active(&c);
	if (!*err)
		*err = add_owners(&c);
	if (!*err)
		*err = add_samples(&c);
	if (!*err)
		*err = add_events(&c);
	if (!*err)
		*err = add_native(&c);
	if (!*err)
		*err = set_meta(&c);
	win_fini(&c);
	if (*err) {
		profile__free(c.w);
		return NULL;
	}
	return c.w;
}
