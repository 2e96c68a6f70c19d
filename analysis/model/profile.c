// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The profile model: metadata, processes, threads, mark stacks, core samples. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "profile.h"
#include "calls.h"
#include "profile_int.h"
#include "strtab.h"
#include "util.h"

/* Process identity inside a profile: (source, pid). */
#define PKEY(src, pid) ((uint64_t)(src) << 32 | (pid))

struct profile_source_rec {
	struct profile_meta meta; /* strings owned (strdup) */
	uint64_t diag[DIAG__COUNT];
};

struct profile_process_rec {
	uint32_t source;
	uint32_t pid;
	uint32_t nspid; /* 0: unknown or the profiler's namespace */
};

struct profile_stack_rec {
	uint32_t source;
	uint32_t pid;
	uint64_t key;
	size_t first; /* index of the bottom frame in profile.frames */
	size_t depth;
	unsigned int flags; /* enum profile_stack_flags */
};

struct profile_sample_rec {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	uint64_t key;
	uint64_t count;
	size_t stack; /* PROFILE_NO_STACK: empty stack or not (yet) registered */
	size_t thread; /* index in profile.threads */
	uint64_t offcpu_ns;
};

struct profile_event_rec {
	uint32_t source;
	uint32_t pid;
	const char *feature; /* interned */
	const char *instance; /* interned, NULL: no instance */
	struct profile_event_stats st;
};

struct profile_thread_rec {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	const char *comm; /* interned, "" when unknown */
	uint64_t samples;
};

uint64_t profile_meta__period_ns(const struct profile_meta *m)
{
	if (!m)
		return 0;
	return m->period_ns ? m->period_ns : fsp_period_ns(m->frequency_hz);
}

struct profile *profile__new(void)
{
	struct profile *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->strs = strtab__new();
	if (!p->strs) {
		free(p);
		return NULL;
	}
	return p;
}

static void profile__free_meta(struct profile_meta *m)
{
	free((char *)m->target);
	free((char *)m->command_line);
	free((char *)m->host);
	free((char *)m->kernel);
	free((char *)m->tool_version);
	free((char *)m->marks);
	free((char *)m->function_features);
	memset(m, 0, sizeof(*m));
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	profile__free_meta(&p->meta);
	for (size_t i = 0; i < p->nr_sources; i++)
		profile__free_meta(&p->sources[i].meta);
	free(p->sources);
	free(p->pids);
	hashmap__fini(&p->pid_map);
	free(p->threads);
	hashmap__fini(&p->thread_map);
	free(p->stacks);
	hashmap__fini(&p->stack_map);
	free(p->frames);
	free(p->samples);
	hashmap__fini(&p->sample_map);
	free(p->events);
	hashmap__fini(&p->event_map);
	profile_native__free(p->native);
	calls__free(p->calls);
	strtab__free(p->strs);
	free(p);
}

static int dup_opt(const char *s, const char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

static int copy_meta(struct profile_meta *dst, const struct profile_meta *meta)
{
	struct profile_meta m = {};
	int err;

	m = *meta;
	m.target = m.command_line = m.host = m.kernel = m.tool_version = m.marks = NULL;
	m.function_features = NULL;
	err = dup_opt(meta->target, &m.target);
	if (err)
		goto cleanup;
	err = dup_opt(meta->command_line, &m.command_line);
	if (err)
		goto cleanup;
	err = dup_opt(meta->host, &m.host);
	if (err)
		goto cleanup;
	err = dup_opt(meta->kernel, &m.kernel);
	if (err)
		goto cleanup;
	err = dup_opt(meta->tool_version, &m.tool_version);
	if (err)
		goto cleanup;
	err = dup_opt(meta->marks, &m.marks);
	if (err)
		goto cleanup;
	err = dup_opt(meta->function_features, &m.function_features);
	if (err)
		goto cleanup;
	*dst = m;
	return 0;
cleanup:
	profile__free_meta(&m);
	return err;
}

int profile__set_meta(struct profile *p, const struct profile_meta *meta)
{
	struct profile_meta m;
	int err;

	if (!p || !meta)
		return -EINVAL;
	err = copy_meta(&m, meta);
	if (err)
		return err;
	profile__free_meta(&p->meta);
	p->meta = m;
	return 0;
}

int profile__add_source(struct profile *p, const struct profile_meta *meta, const uint64_t *diag)
{
	struct profile_source_rec *src;
	int err;

	if (!p || !meta)
		return -EINVAL;
	if (p->nr_sources >= UINT32_MAX || p->nr_sources >= INT32_MAX)
		return -E2BIG;
	err = fsp_grow((void **)&p->sources, &p->cap_sources, p->nr_sources + 1,
		       sizeof(*p->sources));
	if (err)
		return err;
	src = &p->sources[p->nr_sources];
	memset(src, 0, sizeof(*src));
	err = copy_meta(&src->meta, meta);
	if (err)
		return err;
	if (diag)
		memcpy(src->diag, diag, sizeof(src->diag));
	return (int)p->nr_sources++;
}

size_t profile__nr_sources(const struct profile *p)
{
	return p ? p->nr_sources : 0;
}

int profile__source(const struct profile *p, size_t i, struct profile_source *out)
{
	if (!p || !out || i >= p->nr_sources)
		return -EINVAL;
	out->meta = &p->sources[i].meta;
	out->diag = p->sources[i].diag;
	return 0;
}

int profile__use_source(struct profile *p, uint32_t i)
{
	if (!p || (i && i >= p->nr_sources))
		return -EINVAL;
	p->cur = i;
	return 0;
}

const struct profile_meta *profile__meta(const struct profile *p)
{
	return p ? &p->meta : NULL;
}

int profile__add_pid(struct profile *p, uint32_t pid)
{
	int err;

	if (!p)
		return -EINVAL;
	if (hashmap__find(&p->pid_map, PKEY(p->cur, pid), 0, NULL))
		return 0;
	err = fsp_grow((void **)&p->pids, &p->cap_pids, p->nr_pids + 1, sizeof(*p->pids));
	if (err)
		return err;
	err = hashmap__find_or_insert(&p->pid_map, PKEY(p->cur, pid), 0, p->nr_pids, NULL);
	if (err < 0)
		return err;
	p->pids[p->nr_pids].source = p->cur;
	p->pids[p->nr_pids].nspid = 0;
	p->pids[p->nr_pids++].pid = pid;
	return 0;
}

int profile__set_process_nspid(struct profile *p, uint32_t pid, uint32_t nspid)
{
	uint64_t idx;
	int err;

	if (!p)
		return -EINVAL;
	err = profile__add_pid(p, pid);
	if (err)
		return err;
	if (!hashmap__find(&p->pid_map, PKEY(p->cur, pid), 0, &idx))
		return -ENOENT; /* cannot happen: just added */
	p->pids[idx].nspid = nspid;
	return 0;
}

size_t profile__nr_pids(const struct profile *p)
{
	return p ? p->nr_pids : 0;
}

uint32_t profile__pid(const struct profile *p, size_t i)
{
	if (!p || i >= p->nr_pids)
		return 0;
	return p->pids[i].pid;
}

int profile__process(const struct profile *p, size_t i, struct profile_process *out)
{
	if (!p || !out || i >= p->nr_pids)
		return -EINVAL;
	out->source = p->pids[i].source;
	out->pid = p->pids[i].pid;
	out->nspid = p->pids[i].nspid;
	return 0;
}

/* The thread record of (pid, tid), created (with an empty comm) when new. */
static struct profile_thread_rec *profile__get_thread(struct profile *p, uint32_t pid, uint32_t tid,
						      int *err)
{
	struct profile_thread_rec *t;
	uint64_t idx;

	if (hashmap__find(&p->thread_map, PKEY(p->cur, pid), tid, &idx))
		return &p->threads[idx];
	*err = profile__add_pid(p, pid);
	if (*err)
		return NULL;
	*err = fsp_grow((void **)&p->threads, &p->cap_threads, p->nr_threads + 1,
			sizeof(*p->threads));
	if (*err)
		return NULL;
	*err = hashmap__find_or_insert(&p->thread_map, PKEY(p->cur, pid), tid, p->nr_threads, NULL);
	if (*err < 0)
		return NULL;
	*err = 0;
	t = &p->threads[p->nr_threads++];
	t->source = p->cur;
	t->pid = pid;
	t->tid = tid;
	t->comm = "";
	t->samples = 0;
	return t;
}

static int set_comm(struct profile *p, uint32_t pid, uint32_t tid, const char *comm, bool replace)
{
	struct profile_thread_rec *t;
	const char *s;
	int err = 0;

	if (!p)
		return -EINVAL;
	t = profile__get_thread(p, pid, tid, &err);
	if (!t)
		return err;
	if (comm && *comm && (replace || !*t->comm)) {
		s = strtab__intern(p->strs, comm);
		if (!s)
			return -ENOMEM;
		t->comm = s;
	}
	return 0;
}

int profile__add_thread(struct profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	return set_comm(p, pid, tid, comm, false);
}

int profile__rename_thread(struct profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	return set_comm(p, pid, tid, comm, true);
}

int profile__add_stack(struct profile *p, uint32_t pid, uint64_t key,
		       const struct profile_frame *frames, size_t depth)
{
	struct profile_stack_rec *st;
	struct profile_frame *dst;
	size_t i;
	int err;

	if (!p || !key || (depth && !frames))
		return -EINVAL;
	for (i = 0; i < depth; i++) {
		if (frames[i].kind != PROFILE_MARK && frames[i].kind != PROFILE_ANTIMARK &&
		    frames[i].kind != PROFILE_CHARGED)
			return -EINVAL;
		if (!frames[i].feature)
			return -EINVAL;
	}
	if (hashmap__find(&p->stack_map, PKEY(p->cur, pid), key, NULL))
		return -EEXIST;
	if (depth > SIZE_MAX - p->nr_frames)
		return -ENOMEM;
	err = fsp_grow((void **)&p->frames, &p->cap_frames, p->nr_frames + depth,
		       sizeof(*p->frames));
	if (err)
		return err;
	err = fsp_grow((void **)&p->stacks, &p->cap_stacks, p->nr_stacks + 1, sizeof(*p->stacks));
	if (err)
		return err;
	/* Intern into the spare room first: nothing is visible until the end.
	 * (frames is still NULL while only empty stacks were added.) */
	dst = depth ? p->frames + p->nr_frames : NULL;
	for (i = 0; i < depth; i++) {
		dst[i].kind = frames[i].kind;
		dst[i].payload = frames[i].payload;
		dst[i].feature = strtab__intern(p->strs, frames[i].feature);
		dst[i].instance = NULL;
		if (!dst[i].feature)
			return -ENOMEM;
		if (frames[i].instance) {
			dst[i].instance = strtab__intern(p->strs, frames[i].instance);
			if (!dst[i].instance)
				return -ENOMEM;
		}
	}
	err = hashmap__find_or_insert(&p->stack_map, PKEY(p->cur, pid), key, p->nr_stacks, NULL);
	if (err < 0)
		return err;
	st = &p->stacks[p->nr_stacks++];
	st->source = p->cur;
	st->pid = pid;
	st->key = key;
	st->first = p->nr_frames;
	st->depth = depth;
	st->flags = 0;
	p->nr_frames += depth;
	return 0;
}

int profile__find_stack(const struct profile *p, uint32_t pid, uint64_t key, size_t *i)
{
	uint64_t v;

	if (!p || !key || !hashmap__find(&p->stack_map, PKEY(p->cur, pid), key, &v))
		return -ENOENT;
	if (i)
		*i = v;
	return 0;
}

int profile__set_stack_flags(struct profile *p, size_t i, unsigned int flags)
{
	if (!p || i >= p->nr_stacks || (flags & ~PROFILE_STACK_PAYLOADS_LOST))
		return -EINVAL;
	p->stacks[i].flags = flags;
	return 0;
}

size_t profile__nr_stacks(const struct profile *p)
{
	return p ? p->nr_stacks : 0;
}

int profile__stack(const struct profile *p, size_t i, struct profile_stack *out)
{
	const struct profile_stack_rec *st;

	if (!p || !out || i >= p->nr_stacks)
		return -EINVAL;
	st = &p->stacks[i];
	out->source = st->source;
	out->pid = st->pid;
	out->key = st->key;
	out->depth = st->depth;
	out->frames = st->depth ? p->frames + st->first : NULL;
	out->flags = st->flags;
	return 0;
}

/* The record of (thread, key), created when new; *known tells whether key
 * names a registered stack (or is 0). */
static struct profile_sample_rec *profile__get_sample(struct profile *p, uint32_t pid, uint32_t tid,
						      uint64_t key, int *known, int *err)
{
	struct profile_sample_rec *s;
	struct profile_thread_rec *t;
	uint64_t stack = PROFILE_NO_STACK;
	uint64_t idx;

	*known = !key || hashmap__find(&p->stack_map, PKEY(p->cur, pid), key, &stack);
	t = profile__get_thread(p, pid, tid, err);
	if (!t)
		return NULL;
	*err = fsp_grow((void **)&p->samples, &p->cap_samples, p->nr_samples + 1,
			sizeof(*p->samples));
	if (*err)
		return NULL;
	*err = hashmap__find_or_insert(&p->sample_map, (uint64_t)(t - p->threads), key,
				       p->nr_samples, &idx);
	if (*err < 0)
		return NULL;
	if (!*err) {
		s = &p->samples[p->nr_samples++];
		memset(s, 0, sizeof(*s));
		s->thread = (size_t)(t - p->threads);
		s->source = p->cur;
		s->pid = pid;
		s->tid = tid;
		s->key = key;
		s->stack = stack;
	}
	*err = 0;
	s = &p->samples[idx];
	if (s->stack == PROFILE_NO_STACK)
		s->stack = stack;
	return s;
}

int profile__add_samples(struct profile *p, uint32_t pid, uint32_t tid, uint64_t key,
			 uint64_t count)
{
	struct profile_sample_rec *s;
	int known, err = 0;

	if (!p)
		return -EINVAL;
	if (!count) {
		known = !key || hashmap__find(&p->stack_map, PKEY(p->cur, pid), key, NULL);
		return known ? 0 : -ENOENT;
	}
	s = profile__get_sample(p, pid, tid, key, &known, &err);
	if (!s)
		return err;
	s->count = fsp_sat_add(s->count, count);
	p->threads[s->thread].samples = fsp_sat_add(p->threads[s->thread].samples, count);
	p->total = fsp_sat_add(p->total, count);
	return known ? 0 : -ENOENT;
}

int profile__move_samples(struct profile *p, size_t from, uint64_t key, uint64_t count)
{
	struct profile_sample_rec *s;
	uint32_t cur;
	int known, err = 0;

	if (!p || from >= p->nr_samples || count > p->samples[from].count)
		return -EINVAL;
	if (!count)
		return 0;
	cur = p->cur;
	p->cur = p->samples[from].source;
	s = profile__get_sample(p, p->samples[from].pid, p->samples[from].tid, key, &known, &err);
	p->cur = cur;
	if (!s)
		return err;
	s->count += count;
	p->samples[from].count -= count;
	return 0;
}

int profile__add_offcpu(struct profile *p, uint32_t pid, uint32_t tid, uint64_t key, uint64_t ns)
{
	struct profile_sample_rec *s;
	int known, err = 0;

	if (!p)
		return -EINVAL;
	if (!ns) {
		known = !key || hashmap__find(&p->stack_map, PKEY(p->cur, pid), key, NULL);
		return known ? 0 : -ENOENT;
	}
	s = profile__get_sample(p, pid, tid, key, &known, &err);
	if (!s)
		return err;
	s->offcpu_ns = fsp_sat_add(s->offcpu_ns, ns);
	p->total_offcpu = fsp_sat_add(p->total_offcpu, ns);
	return known ? 0 : -ENOENT;
}

uint64_t profile__total_offcpu_ns(const struct profile *p)
{
	return p ? p->total_offcpu : 0;
}

static uint64_t event_hash(const char *feature, const char *instance)
{
	return fsp_hash_pair(fsp_hash_str(feature), instance ? fsp_hash_str(instance) : 0);
}

/* Events of equal (source, pid) and hash are chained by a linear scan from
 * the first: collisions of the 64-bit hash are handled, just slowly. */
static struct profile_event_rec *profile__find_event(const struct profile *p, uint32_t pid,
						     const char *feature, const char *instance)
{
	uint64_t idx;

	if (!hashmap__find(&p->event_map, PKEY(p->cur, pid), event_hash(feature, instance), &idx))
		return NULL;
	for (size_t i = idx; i < p->nr_events; i++) {
		struct profile_event_rec *e = &p->events[i];

		if (e->source == p->cur && e->pid == pid && !strcmp(e->feature, feature) &&
		    ((!e->instance && !instance) ||
		     (e->instance && instance && !strcmp(e->instance, instance))))
			return e;
	}
	return NULL;
}

void profile_event_stats__add(struct profile_event_stats *dst,
			      const struct profile_event_stats *src)
{
	dst->enters = fsp_sat_add(dst->enters, src->enters);
	dst->leaves = fsp_sat_add(dst->leaves, src->leaves);
	dst->total_ns = fsp_sat_add(dst->total_ns, src->total_ns);
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (size_t i = 0; i < PROFILE_HIST_BUCKETS; i++)
		dst->hist[i] = fsp_sat_add(dst->hist[i], src->hist[i]);
	dst->point |= src->point;
}

int profile__add_events(struct profile *p, uint32_t pid, const char *feature, const char *instance,
			const struct profile_event_stats *st)
{
	struct profile_event_rec *e;
	int err;

	if (!p || !feature || !st)
		return -EINVAL;
	e = profile__find_event(p, pid, feature, instance);
	if (!e) {
		err = fsp_grow((void **)&p->events, &p->cap_events, p->nr_events + 1,
			       sizeof(*p->events));
		if (err)
			return err;
		e = &p->events[p->nr_events];
		memset(e, 0, sizeof(*e));
		e->source = p->cur;
		e->pid = pid;
		e->feature = strtab__intern(p->strs, feature);
		e->instance = instance ? strtab__intern(p->strs, instance) : NULL;
		if (!e->feature || (instance && !e->instance))
			return -ENOMEM;
		err = hashmap__find_or_insert(&p->event_map, PKEY(p->cur, pid),
					      event_hash(feature, instance), p->nr_events, NULL);
		if (err < 0)
			return err;
		p->nr_events++;
	}
	profile_event_stats__add(&e->st, st);
	return 0;
}

size_t profile__nr_events(const struct profile *p)
{
	return p ? p->nr_events : 0;
}

int profile__event(const struct profile *p, size_t i, struct profile_event *out)
{
	const struct profile_event_rec *e;

	if (!p || !out || i >= p->nr_events)
		return -EINVAL;
	e = &p->events[i];
	out->source = e->source;
	out->pid = e->pid;
	out->feature = e->feature;
	out->instance = e->instance;
	out->stats = &e->st;
	return 0;
}

void profile__set_diag(struct profile *p, enum profile_diag d, uint64_t value)
{
	if (!p || (unsigned int)d >= DIAG__COUNT)
		return;
	p->diag[d] = value;
}

uint64_t profile__diag(const struct profile *p, enum profile_diag d)
{
	if (!p || (unsigned int)d >= DIAG__COUNT)
		return 0;
	return p->diag[d];
}

uint64_t profile__total_samples(const struct profile *p)
{
	return p ? p->total : 0;
}

size_t profile__nr_samples(const struct profile *p)
{
	return p ? p->nr_samples : 0;
}

int profile__sample(const struct profile *p, size_t i, struct profile_sample *out)
{
	const struct profile_sample_rec *s;
	const struct profile_stack_rec *st;
	uint64_t stack;

	if (!p || !out || i >= p->nr_samples)
		return -EINVAL;
	s = &p->samples[i];
	stack = s->stack;
	/* A stack registered after its samples is matched now. */
	if (stack == PROFILE_NO_STACK && s->key &&
	    !hashmap__find(&p->stack_map, PKEY(s->source, s->pid), s->key, &stack))
		stack = PROFILE_NO_STACK;
	out->source = s->source;
	out->pid = s->pid;
	out->tid = s->tid;
	out->key = s->key;
	out->count = s->count;
	out->known = !s->key || stack != PROFILE_NO_STACK;
	out->offcpu_ns = s->offcpu_ns;
	out->stack = stack;
	out->frames = NULL;
	out->depth = 0;
	if (stack != PROFILE_NO_STACK) {
		st = &p->stacks[stack];
		out->depth = st->depth;
		out->frames = st->depth ? p->frames + st->first : NULL;
	}
	return 0;
}

size_t profile__nr_threads(const struct profile *p)
{
	return p ? p->nr_threads : 0;
}

int profile__thread(const struct profile *p, size_t i, struct profile_thread *out)
{
	const struct profile_thread_rec *t;

	if (!p || !out || i >= p->nr_threads)
		return -EINVAL;
	t = &p->threads[i];
	out->source = t->source;
	out->pid = t->pid;
	out->tid = t->tid;
	out->comm = t->comm;
	out->samples = t->samples;
	return 0;
}

/* ---- internal accessors (profile_int.h) ---------------------------------------- */

size_t profile__stack_of(const struct profile *p, uint32_t source, uint32_t pid, uint64_t key)
{
	uint64_t v;

	if (!key || !hashmap__find(&p->stack_map, PKEY(source, pid), key, &v))
		return PROFILE_NO_STACK;
	return v;
}
