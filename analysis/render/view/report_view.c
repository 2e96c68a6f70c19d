// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Views of a profile shared by the renderers (report_view.h): the words of
 * the view options, the order of entries, threads and processes with their
 * charged time, the names of sources and processes. The charges of stacks
 * are model/charges.c's, --feature in report_features.c, the process
 * filter in report_filter.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "report_view.h"
#include "util.h"

/* The words of the view options, by their values. */
static const char *const by_words[] = {
	[REPORT_BY_FEATURE] = "feature",
	[REPORT_BY_THREAD] = "thread",
	[REPORT_BY_PROCESS] = "process",
};
static const char *const order_words[] = {
	[REPORT_ORDER_COST] = "cost",
	[REPORT_ORDER_SAMPLES] = "samples",
	[REPORT_ORDER_NAME] = "name",
};
static const char *const value_words[] = {
	[REPORT_VALUE_SAMPLES] = "samples",
	[REPORT_VALUE_OFFCPU] = "offcpu",
	[REPORT_VALUE_WALL] = "wall",
};

/* The index of s in words[0..n), or -EINVAL. */
static int parse_word(const char *s, const char *const *words, int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, words[i]))
			return i;
	return -EINVAL;
}

#define WORDS(w) (w), (int)(sizeof(w) / sizeof((w)[0]))

int report_by__parse(const char *s, enum report_by *out)
{
	int i = parse_word(s, WORDS(by_words));

	return i < 0 || !out ? -EINVAL : (*out = i, 0);
}

int report_order__parse(const char *s, enum report_order *out)
{
	int i = parse_word(s, WORDS(order_words));

	return i < 0 || !out ? -EINVAL : (*out = i, 0);
}

int report_value__parse(const char *s, enum report_value *out)
{
	int i = parse_word(s, WORDS(value_words));

	return i < 0 || !out ? -EINVAL : (*out = i, 0);
}

uint64_t report_cost_ns(uint64_t samples, uint64_t period_ns)
{
	if (period_ns && samples > UINT64_MAX / period_ns)
		return UINT64_MAX;
	return samples * period_ns;
}

uint64_t report_charged_ns(uint64_t samples, uint64_t offcpu_ns, uint64_t period_ns)
{
	return fsp_sat_add(report_cost_ns(samples, period_ns), offcpu_ns);
}

int report_key__cmp(enum report_order o, const struct report_key *a, const struct report_key *b)
{
	int c = 0;

	switch (o) {
	case REPORT_ORDER_COST:
		/* Cost is its own key (it includes off-CPU time); samples only
		 * break its ties, and order alone when no period is known. */
		c = fsp_cmp_u64(b->cost_ns, a->cost_ns);
		if (!c)
			c = fsp_cmp_u64(b->samples, a->samples);
		break;
	case REPORT_ORDER_SAMPLES:
		c = fsp_cmp_u64(b->samples, a->samples);
		break;
	case REPORT_ORDER_NAME:
		break;
	}
	return c ? c : strcmp(a->name, b->name);
}

/* qsort passes no context to its comparison: each element carries the order
 * (no global state, so renderers may run on several threads at once). */
struct sort_thread {
	struct report_thread t;
	enum report_order o;
};

static int cmp_ids(uint32_t sa, uint32_t pa, uint32_t ta, uint32_t sb, uint32_t pb, uint32_t tb)
{
	int c = fsp_cmp_u64(sa, sb);

	if (!c)
		c = fsp_cmp_u64(pa, pb);
	return c ? c : fsp_cmp_u64(ta, tb);
}

static int cmp_thread(const void *x, const void *y)
{
	const struct sort_thread *a = x, *b = y;
	int c = report_key__cmp(a->o, &a->t.key, &b->t.key);

	return c ? c : cmp_ids(a->t.source, a->t.pid, a->t.tid, b->t.source, b->t.pid, b->t.tid);
}

struct sort_process {
	struct report_process pr;
	enum report_order o;
};

static int cmp_process(const void *x, const void *y)
{
	const struct sort_process *a = x, *b = y;
	int c = report_key__cmp(a->o, &a->pr.key, &b->pr.key);

	return c ? c : cmp_ids(a->pr.source, a->pr.pid, 0, b->pr.source, b->pr.pid, 0);
}

/* The off-CPU time of each thread of p, in profile__thread order, into
 * off[nr_threads] (zeroed first). 0 or -errno. */
static int thread_offcpu(const struct profile *p, uint64_t *off)
{
	size_t i, n = profile__nr_threads(p);
	struct hashmap index = HASHMAP_INIT;
	struct profile_thread pt;
	struct profile_sample s;
	uint64_t idx;
	int err = 0;

	memset(off, 0, n * sizeof(*off));
	if (!profile__total_offcpu_ns(p))
		return 0;
	for (i = 0; i < n; i++) {
		err = profile__thread(p, i, &pt);
		if (err)
			goto cleanup;
		err = hashmap__find_or_insert(&index, (uint64_t)pt.source << 32 | pt.pid, pt.tid, i,
					      NULL);
		if (err < 0)
			goto cleanup;
		err = 0;
	}
	for (i = 0; i < profile__nr_samples(p); i++) {
		err = profile__sample(p, i, &s);
		if (err)
			goto cleanup;
		/* every sample's thread is registered */
		if (s.offcpu_ns &&
		    hashmap__find(&index, (uint64_t)s.source << 32 | s.pid, s.tid, &idx))
			off[idx] = fsp_sat_add(off[idx], s.offcpu_ns);
	}
cleanup:
	hashmap__fini(&index);
	return err;
}

int report_process_nspids(const struct profile *p, struct hashmap *map)
{
	struct profile_process pp;
	size_t i;
	int err;

	for (i = 0; i < profile__nr_pids(p); i++) {
		err = profile__process(p, i, &pp);
		if (err)
			return err;
		if (!pp.nspid)
			continue;
		err = hashmap__find_or_insert(map, pp.source, pp.pid, pp.nspid, NULL);
		if (err < 0)
			return err;
	}
	return 0;
}

int report_process_comms(const struct profile *p, struct hashmap *map)
{
	struct profile_thread t;
	size_t i;
	int err;

	for (i = 0; i < profile__nr_threads(p); i++) {
		err = profile__thread(p, i, &t);
		if (err)
			return err;
		if (t.tid != t.pid || !*t.comm)
			continue;
		err = hashmap__find_or_insert(map, t.source, t.pid, (uint64_t)(uintptr_t)t.comm,
					      NULL);
		if (err < 0)
			return err;
	}
	return 0;
}

int report_threads(const struct profile *p, enum report_order o, struct report_thread **out,
		   size_t *nr)
{
	size_t i, n = profile__nr_threads(p);
	uint64_t period = profile_meta__period_ns(profile__meta(p));
	struct hashmap nspids = HASHMAP_INIT;
	struct sort_thread *s = NULL;
	struct report_thread *t = NULL;
	struct profile_thread pt;
	uint64_t *off = NULL, ns;
	int err = 0;

	*out = NULL;
	*nr = 0;
	if (!n)
		return 0;
	s = calloc(n, sizeof(*s));
	t = calloc(n, sizeof(*t));
	off = calloc(n, sizeof(*off));
	if (!s || !t || !off) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = thread_offcpu(p, off);
	if (!err)
		err = report_process_nspids(p, &nspids);
	if (err)
		goto cleanup;
	for (i = 0; i < n; i++) {
		err = profile__thread(p, i, &pt);
		if (err)
			goto cleanup;
		s[i].o = o;
		s[i].t.source = pt.source;
		s[i].t.pid = pt.pid;
		if (hashmap__find(&nspids, pt.source, pt.pid, &ns))
			s[i].t.nspid = (uint32_t)ns;
		s[i].t.tid = pt.tid;
		s[i].t.comm = pt.comm;
		s[i].t.offcpu_ns = off[i];
		s[i].t.key.samples = pt.samples;
		s[i].t.key.cost_ns = report_charged_ns(pt.samples, off[i], period);
		s[i].t.key.name = pt.comm;
	}
	qsort(s, n, sizeof(*s), cmp_thread);
	for (i = 0; i < n; i++)
		t[i] = s[i].t;
	*out = t;
	*nr = n;
	t = NULL;
cleanup:
	hashmap__fini(&nspids);
	free(s);
	free(t);
	free(off);
	return err;
}

/* Registers the processes of p in s and index ((source, pid) -> index in
 * s), then those known only by their event records; *n of them. 0 or
 * -errno. */
static int processes_register(const struct profile *p, enum report_order o, struct sort_process *s,
			      struct hashmap *index, size_t *n)
{
	struct profile_process pp;
	struct profile_event ev;
	size_t i;
	int err;

	*n = 0;
	for (i = 0; i < profile__nr_pids(p); i++) {
		err = profile__process(p, i, &pp);
		if (err)
			return err;
		err = hashmap__find_or_insert(index, pp.source, pp.pid, i, NULL);
		if (err < 0)
			return err;
		s[i].o = o;
		s[i].pr.source = pp.source;
		s[i].pr.pid = pp.pid;
		s[i].pr.nspid = pp.nspid;
		s[i].pr.comm = "";
	}
	*n = i;
	for (i = 0; i < profile__nr_events(p); i++) {
		err = profile__event(p, i, &ev);
		if (err)
			return err;
		err = hashmap__find_or_insert(index, ev.source, ev.pid, *n, NULL);
		if (err < 0)
			return err;
		if (!err) {
			s[*n].o = o;
			s[*n].pr.source = ev.source;
			s[*n].pr.pid = ev.pid;
			s[*n].pr.comm = "";
			(*n)++;
		}
	}
	return 0;
}

/* Adds each thread of p (its samples, off-CPU time off[]) to its process
 * in s, whose comm is its main thread's. 0 or -errno. */
static int processes_add_threads(const struct profile *p, struct sort_process *s,
				 const struct hashmap *index, const uint64_t *off)
{
	struct report_process *r;
	struct profile_thread pt;
	uint64_t idx;
	size_t i;
	int err;

	for (i = 0; i < profile__nr_threads(p); i++) {
		err = profile__thread(p, i, &pt);
		if (err)
			return err;
		if (!hashmap__find(index, pt.source, pt.pid, &idx))
			continue; /* every thread's process is registered */
		r = &s[idx].pr;
		r->key.samples += pt.samples;
		r->offcpu_ns = fsp_sat_add(r->offcpu_ns, off[i]);
		r->nr_threads++;
		if (pt.tid == pt.pid)
			r->comm = pt.comm;
	}
	return 0;
}

int report_processes(const struct profile *p, enum report_order o, struct report_process **out,
		     size_t *nr)
{
	size_t i, n = profile__nr_pids(p), nt = profile__nr_threads(p);
	size_t ne = profile__nr_events(p);
	struct hashmap index = HASHMAP_INIT;
	uint64_t period = profile_meta__period_ns(profile__meta(p));
	struct report_process *pr = NULL;
	struct sort_process *s = NULL;
	uint64_t *off = NULL;
	int err = 0;

	*out = NULL;
	*nr = 0;
	if (!n && !ne)
		return 0;
	/* room for processes known only by their events */
	s = calloc(n + ne, sizeof(*s));
	pr = calloc(n + ne, sizeof(*pr));
	off = calloc(nt ? nt : 1, sizeof(*off));
	if (!s || !pr || !off) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = thread_offcpu(p, off);
	if (!err)
		err = processes_register(p, o, s, &index, &n);
	if (!err)
		err = processes_add_threads(p, s, &index, off);
	if (err)
		goto cleanup;
	for (i = 0; i < n; i++) {
		s[i].pr.key.cost_ns =
			report_charged_ns(s[i].pr.key.samples, s[i].pr.offcpu_ns, period);
		s[i].pr.key.name = s[i].pr.comm;
	}
	qsort(s, n, sizeof(*s), cmp_process);
	for (i = 0; i < n; i++)
		pr[i] = s[i].pr;
	*out = pr;
	*nr = n;
	pr = NULL;
cleanup:
	hashmap__fini(&index);
	free(s);
	free(pr);
	free(off);
	return err;
}

bool report_source_name(const struct profile *p, uint32_t source, char *buf, size_t size)
{
	struct profile_source src, other;
	size_t i, n = profile__nr_sources(p);
	const char *host;
	bool shared = false;

	if (profile__source(p, source, &src) || !src.meta->host || !*src.meta->host) {
		snprintf(buf, size, "source %u", source);
		return false;
	}
	host = src.meta->host;
	for (i = 0; i < n && !shared; i++)
		shared = i != source && !profile__source(p, i, &other) && other.meta->host &&
			 !strcmp(other.meta->host, host);
	if (shared)
		snprintf(buf, size, "%s#%u", host, source);
	else
		snprintf(buf, size, "%s", host);
	return true;
}

void report_pid_name(const struct profile *p, uint32_t source, uint32_t pid, char *buf, size_t size)
{
	char src[256];

	if (profile__nr_sources(p) <= 1) {
		snprintf(buf, size, "%u", pid);
		return;
	}
	report_source_name(p, source, src, sizeof(src));
	snprintf(buf, size, "%s:%u", src, pid);
}
