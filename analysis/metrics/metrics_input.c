// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A snapshot's cumulative values per (process, feature, instance): the
 * attribution rule through the charges of each distinct mark stack
 * (model/charges.c: charges__of), the event view's records, each process's totals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "charges.h"
#include "metrics_int.h"
#include "report_view.h"
#include "util.h"

#define UNKNOWN_COMM "(unknown)"

struct input {
	struct metrics *m;
	const struct profile *p;
	const uint32_t *alive;
	size_t nr_alive;
	struct hashmap strs; /* the profile's string -> interned, made valid */
	struct hashmap insts; /* (profile's feature, instance) -> inst */
	struct hashmap owners; /* pid -> its owner (by_pid) or its name's */
	struct hashmap comms; /* (source, pid) -> the main thread's comm */
	struct hashmap first; /* pid -> its first thread's comm */
	struct metrics_rows *pid_rows, *comm_rows;
};

static const char *str(struct input *in, const char *s)
{
	uint64_t v;
	const char *t;

	if (hashmap__find(&in->strs, (uint64_t)(uintptr_t)s, 0, &v))
		return (const char *)(uintptr_t)v;
	t = metrics__intern(in->m, s);
	if (t && hashmap__find_or_insert(&in->strs, (uint64_t)(uintptr_t)s, 0,
					 (uint64_t)(uintptr_t)t, NULL) < 0)
		t = NULL;
	return t;
}

static int64_t inst(struct input *in, const char *feature, const char *instance)
{
	uint64_t v;
	int64_t i;
	const char *f, *n;

	if (hashmap__find(&in->insts, (uint64_t)(uintptr_t)feature, (uint64_t)(uintptr_t)instance,
			  &v))
		return (int64_t)v;
	f = str(in, feature);
	n = str(in, instance ? instance : ATTRIB_NO_INSTANCE);
	if (!f || !n)
		return -ENOMEM;
	i = metrics__inst(in->m, f, n);
	if (i >= 0 && hashmap__find_or_insert(&in->insts, (uint64_t)(uintptr_t)feature,
					      (uint64_t)(uintptr_t)instance, (uint64_t)i, NULL) < 0)
		return -ENOMEM;
	return i;
}

static bool is_alive(const struct input *in, uint32_t pid)
{
	size_t lo = 0, hi = in->nr_alive;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->alive[mid] == pid)
			return true;
		if (in->alive[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The owner pid's values go to: the process (by_pid) or its name. */
static int64_t owner(struct input *in, uint32_t pid)
{
	struct metrics *m = in->m;
	const char *comm = UNKNOWN_COMM;
	uint64_t v;
	int64_t o, n;
	bool alive;

	if (hashmap__find(&in->owners, pid, 0, &v))
		return (int64_t)v;
	if (hashmap__find(&in->comms, 0, pid, &v) || hashmap__find(&in->first, pid, 0, &v))
		comm = (const char *)(uintptr_t)v;
	comm = str(in, comm);
	if (!comm)
		return -ENOMEM;
	alive = is_alive(in, pid);
	n = metrics__owner(m, comm, METRICS_PID_NONE);
	o = m->o.by_pid && n >= 0 ? metrics__owner(m, comm, pid) : n;
	if (o < 0)
		return o;
	m->owners[n].alive |= alive;
	m->owners[o].alive |= alive;
	if (hashmap__find_or_insert(&in->owners, pid, 0, (uint64_t)o, NULL) < 0)
		return -ENOMEM;
	return o;
}

/* The row of (pid's owner, inst i) in the snapshot's values. */
static struct metrics_row *row(struct input *in, uint32_t pid, int64_t i)
{
	int64_t o = i < 0 ? i : owner(in, pid);

	if (o < 0)
		return NULL;
	return metrics_rows__get(in->m->o.by_pid ? in->pid_rows : in->comm_rows, (size_t)o,
				 (size_t)i);
}

static int add_samples(struct input *in)
{
	struct charges ch;
	struct profile_sample s;
	int64_t total = metrics__inst(in->m, NULL, NULL);
	int err = charges__init(&ch, in->p);

	for (size_t i = 0; !err && i < profile__nr_samples(in->p); i++) {
		const struct charge *c;
		struct metrics_row *r;
		size_t n;

		err = profile__sample(in->p, i, &s);
		if (err || (!s.count && !s.offcpu_ns))
			continue;
		r = row(in, s.pid, total);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		r->v.samples = fsp_sat_add(r->v.samples, s.count);
		r->v.offcpu_ns = fsp_sat_add(r->v.offcpu_ns, s.offcpu_ns);
		c = charges__of(&ch, s.stack, &n);
		for (size_t k = 0; k < n; k++) {
			r = row(in, s.pid, inst(in, c[k].feature, c[k].instance));
			if (!r) {
				err = -ENOMEM;
				break;
			}
			r->v.samples = fsp_sat_add(r->v.samples, s.count);
			r->v.offcpu_ns = fsp_sat_add(r->v.offcpu_ns, s.offcpu_ns);
		}
	}
	charges__fini(&ch);
	return err;
}

static int add_events(struct input *in)
{
	struct profile_event e;
	struct metrics_row *r;
	int err = 0;

	for (size_t i = 0; !err && i < profile__nr_events(in->p); i++) {
		err = profile__event(in->p, i, &e);
		if (err)
			break;
		r = row(in, e.pid, inst(in, e.feature, e.instance));
		if (!r || metrics_vals__buckets(&r->v))
			return -ENOMEM;
		r->v.events = true;
		r->v.point |= e.stats->point;
		r->v.calls = fsp_sat_add(r->v.calls, e.stats->enters);
		r->v.total_ns = fsp_sat_add(r->v.total_ns, e.stats->total_ns);
		for (unsigned int b = 0; b < PROFILE_HIST_BUCKETS; b++) {
			uint64_t *to = &r->v.bucket[metrics__bucket_of(b)];

			*to = fsp_sat_add(*to, e.stats->hist[b]);
		}
	}
	return err;
}

/* Each process's name: its main thread's comm, else its first thread's. */
static int index_comms(struct input *in)
{
	struct profile_thread t;
	int err = report_process_comms(in->p, &in->comms);

	for (size_t i = 0; !err && i < profile__nr_threads(in->p); i++) {
		err = profile__thread(in->p, i, &t);
		if (!err && *t.comm &&
		    hashmap__find_or_insert(&in->first, t.pid, 0, (uint64_t)(uintptr_t)t.comm,
					    NULL) < 0)
			err = -ENOMEM;
	}
	return err;
}

/* By pid: the names' values are the sums of their processes'. */
static int sum_by_name(struct input *in)
{
	for (size_t i = 0; i < in->pid_rows->n; i++) {
		const struct metrics_row *r = &in->pid_rows->rows[i];
		int64_t n = metrics__owner(in->m, in->m->owners[r->owner].comm, METRICS_PID_NONE);
		struct metrics_row *c;

		if (n < 0)
			return (int)n;
		c = metrics_rows__get(in->comm_rows, (size_t)n, r->inst);
		if (!c)
			return -ENOMEM;
		if (metrics_vals__add(&c->v, &r->v))
			return -ENOMEM;
	}
	return 0;
}

int metrics__input(struct metrics *m, const struct profile *p, const uint32_t *alive, size_t nr,
		   struct metrics_rows *pid_rows, struct metrics_rows *comm_rows)
{
	struct input in = {
		.m = m,
		.p = p,
		.alive = alive,
		.nr_alive = nr,
		.strs = HASHMAP_INIT,
		.insts = HASHMAP_INIT,
		.owners = HASHMAP_INIT,
		.comms = HASHMAP_INIT,
		.first = HASHMAP_INIT,
		.pid_rows = pid_rows,
		.comm_rows = comm_rows,
	};
	int err = index_comms(&in);

	if (!err)
		err = add_samples(&in);
	if (!err)
		err = add_events(&in);
	if (!err && m->o.by_pid)
		err = sum_by_name(&in);
	hashmap__fini(&in.strs);
	hashmap__fini(&in.insts);
	hashmap__fini(&in.owners);
	hashmap__fini(&in.comms);
	hashmap__fini(&in.first);
	return err;
}
