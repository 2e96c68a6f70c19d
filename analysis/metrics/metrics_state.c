// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exported counters (metrics.h): each update's differences from the
 * previous snapshot, routed to a series through the bound (a label of its
 * own while there is room, else "other"), then the expiry of inactive keys
 * and, now and then, a compaction that drops what expired.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_int.h"
#include "strtab.h"
#include "utf8.h"
#include "util.h"

/* ---- tables ----------------------------------------------------------------- */

void metrics_rows__fini(struct metrics_rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->rows[i].v.bucket);
	free(r->rows);
	hashmap__fini(&r->map);
	memset(r, 0, sizeof(*r));
}

struct metrics_row *metrics_rows__find(const struct metrics_rows *r, size_t owner, size_t inst)
{
	uint64_t i;

	return hashmap__find(&r->map, owner, inst, &i) ? &r->rows[i] : NULL;
}

struct metrics_row *metrics_rows__get(struct metrics_rows *r, size_t owner, size_t inst)
{
	uint64_t i;
	int ret;

	if (fsp_grow((void **)&r->rows, &r->cap, r->n + 1, sizeof(*r->rows)))
		return NULL;
	ret = hashmap__find_or_insert(&r->map, owner, inst, r->n, &i);
	if (ret < 0)
		return NULL;
	if (!ret) {
		memset(&r->rows[r->n], 0, sizeof(r->rows[0]));
		r->rows[r->n].owner = owner;
		r->rows[r->n].inst = inst;
		r->n++;
	}
	return &r->rows[i];
}

const char *metrics__intern(struct metrics *m, const char *s)
{
	size_t len = strlen(s);
	const char *t;
	char *fixed;

	if (utf8__valid_len(s, len) == len)
		return strtab__intern(m->strs, s);
	fixed = malloc(UTF8_REPAIR_SIZE(len));
	if (!fixed)
		return NULL;
	utf8__repair(fixed, s, len);
	t = strtab__intern(m->strs, fixed);
	free(fixed);
	return t;
}

int64_t metrics__owner(struct metrics *m, const char *comm, uint32_t pid)
{
	uint64_t i;
	int ret;

	if (fsp_grow((void **)&m->owners, &m->cap_owners, m->nr_owners + 1, sizeof(*m->owners)))
		return -ENOMEM;
	ret = hashmap__find_or_insert(&m->owner_map, (uint64_t)(uintptr_t)comm, pid, m->nr_owners,
				      &i);
	if (ret < 0)
		return ret;
	if (!ret)
		m->owners[m->nr_owners++] = (struct metrics_owner){.comm = comm, .pid = pid};
	return (int64_t)i;
}

static int64_t feat(struct metrics *m, const char *feature)
{
	uint64_t i;
	int ret;

	if (fsp_grow((void **)&m->feats, &m->cap_feats, m->nr_feats + 1, sizeof(*m->feats)))
		return -ENOMEM;
	ret = hashmap__find_or_insert(&m->feat_map, (uint64_t)(uintptr_t)feature, 0, m->nr_feats,
				      &i);
	if (ret < 0)
		return ret;
	if (!ret)
		m->feats[m->nr_feats++] = (struct metrics_feat){.feature = feature};
	return (int64_t)i;
}

int64_t metrics__inst(struct metrics *m, const char *feature, const char *instance)
{
	int64_t f = feature ? feat(m, feature) : 0;
	uint64_t i;
	int ret;

	if (f < 0)
		return f;
	if (fsp_grow((void **)&m->insts, &m->cap_insts, m->nr_insts + 1, sizeof(*m->insts)))
		return -ENOMEM;
	ret = hashmap__find_or_insert(&m->inst_map, (uint64_t)(uintptr_t)feature,
				      (uint64_t)(uintptr_t)instance, m->nr_insts, &i);
	if (ret < 0)
		return ret;
	if (!ret)
		m->insts[m->nr_insts++] = (struct metrics_inst){
			.feature = feature,
			.instance = instance,
			.feat = feature ? (size_t)f : METRICS_NO_FEAT,
		};
	return (int64_t)i;
}

unsigned int metrics__bucket_of(unsigned int b)
{
	/* Bucket b holds [2^b, 2^(b+1)) ns: under le 2^(10 + 2j) when b <= 9 + 2j. */
	unsigned int j = b <= METRICS_LE0_LOG2 - 1 ? 0 : (b - (METRICS_LE0_LOG2 - 1) + 1) / 2;

	return j < METRICS_BUCKETS ? j : METRICS_BUCKETS - 1;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int metrics_vals__buckets(struct metrics_vals *v)
{
	if (!v->bucket)
		v->bucket = calloc(METRICS_BUCKETS, sizeof(*v->bucket));
	return v->bucket ? 0 : -ENOMEM;
}

void metrics_vals__clear(struct metrics_vals *v)
{
	free(v->bucket);
	memset(v, 0, sizeof(*v));
}

int metrics_vals__add(struct metrics_vals *d, const struct metrics_vals *s)
{
	if (s->bucket && metrics_vals__buckets(d))
		return -ENOMEM;
	d->samples = sat_add(d->samples, s->samples);
	d->offcpu_ns = sat_add(d->offcpu_ns, s->offcpu_ns);
	d->calls = sat_add(d->calls, s->calls);
	d->total_ns = sat_add(d->total_ns, s->total_ns);
	for (int b = 0; s->bucket && b < METRICS_BUCKETS; b++)
		d->bucket[b] = sat_add(d->bucket[b], s->bucket[b]);
	d->events |= s->events;
	d->point |= s->point;
	return 0;
}

/* d = a - b, each field at least 0 (d is new: its buckets are made when a
 * has some). 1 when anything grew, 0 when nothing did, -ENOMEM. */
static int vals_sub(struct metrics_vals *d, const struct metrics_vals *a,
		    const struct metrics_vals *b)
{
	const uint64_t *bb = b ? b->bucket : NULL;
	bool any;

	memset(d, 0, sizeof(*d));
	if (a->bucket && metrics_vals__buckets(d))
		return -ENOMEM;
	d->samples = sub(a->samples, b ? b->samples : 0);
	d->offcpu_ns = sub(a->offcpu_ns, b ? b->offcpu_ns : 0);
	d->calls = sub(a->calls, b ? b->calls : 0);
	d->total_ns = sub(a->total_ns, b ? b->total_ns : 0);
	any = d->samples || d->offcpu_ns || d->calls || d->total_ns;
	for (int k = 0; a->bucket && k < METRICS_BUCKETS; k++) {
		d->bucket[k] = sub(a->bucket[k], bb ? bb[k] : 0);
		any |= d->bucket[k] != 0;
	}
	d->events = a->events;
	d->point = a->point;
	return any;
}

/* ---- the bound: which label a key's values go to ------------------------------ */

/* A key that expired and comes back starts again, without its label. */
static void revive(bool *gone, bool *admitted)
{
	if (*gone) {
		*gone = false;
		*admitted = false;
	}
}

static int64_t export_owner(struct metrics *m, size_t o)
{
	struct metrics_owner *w = &m->owners[o];

	revive(&w->gone, &w->admitted);
	if (!w->admitted && m->nr_admitted_owners < m->o.max_processes) {
		w->admitted = true;
		m->nr_admitted_owners++;
	}
	if (w->admitted)
		return (int64_t)o;
	return metrics__owner(m, m->other, m->o.by_pid ? METRICS_PID_OTHER : METRICS_PID_NONE);
}

static bool export_feat(struct metrics *m, size_t f)
{
	struct metrics_feat *e = &m->feats[f];

	revive(&e->gone, &e->admitted);
	if (!e->admitted && m->nr_admitted_feats < m->o.max_features) {
		e->admitted = true;
		e->nr_admitted = 0;
		m->nr_admitted_feats++;
	}
	e->active = m->now;
	return e->admitted;
}

/* The fold instance "other" of a feature (or of "other" features). */
static int64_t fold_inst(struct metrics *m, const char *feature)
{
	int64_t i = metrics__inst(m, feature, m->other);

	if (i >= 0) {
		m->insts[i].fold = true;
		m->insts[i].gone = false;
		m->insts[i].admitted = true;
		m->feats[m->insts[i].feat].gone = false;
		m->feats[m->insts[i].feat].active = m->now;
	}
	return i;
}

static int64_t export_inst(struct metrics *m, size_t i)
{
	struct metrics_inst *n = &m->insts[i];
	struct metrics_feat *f;

	if (!n->feature || n->fold)
		return (int64_t)i;
	if (!export_feat(m, n->feat))
		return fold_inst(m, m->other);
	n = &m->insts[i];
	f = &m->feats[n->feat];
	revive(&n->gone, &n->admitted);
	if (!n->admitted && f->nr_admitted < m->o.max_instances) {
		n->admitted = true;
		f->nr_admitted++;
	}
	return n->admitted ? (int64_t)i : fold_inst(m, n->feature);
}

/* The series the values of (owner o, inst i) go to; marks them all active. */
static struct metrics_row *route(struct metrics *m, size_t o, size_t i)
{
	int64_t eo = export_owner(m, o), ei = eo < 0 ? eo : export_inst(m, i);
	struct metrics_row *r;

	if (ei < 0)
		return NULL;
	r = metrics_rows__get(&m->series, (size_t)eo, (size_t)ei);
	if (!r)
		return NULL;
	if (r->gone) {
		metrics_vals__clear(&r->v);
		r->gone = false;
	}
	m->nr_folded += (size_t)eo != o || (size_t)ei != i;
	r->active = m->now;
	m->owners[o].active = m->owners[eo].active = m->now;
	m->insts[i].active = m->insts[ei].active = m->now;
	return r;
}

/* ---- an update ------------------------------------------------------------------ */

/* One key's difference and the series it goes to. */
struct move {
	size_t owner, inst;
	struct metrics_vals d;
	bool active;
	size_t to; /* series row + 1, 0: none */
};

struct moves {
	struct move *v;
	size_t n, cap;
};

static struct move *move_add(struct moves *mv, size_t owner, size_t inst)
{
	struct move *x;

	if (fsp_grow((void **)&mv->v, &mv->cap, mv->n + 1, sizeof(*mv->v)))
		return NULL;
	x = &mv->v[mv->n++];
	memset(x, 0, sizeof(*x));
	x->owner = owner;
	x->inst = inst;
	return x;
}

/* By name: each name's difference is exact, whatever moved between its
 * processes (retirement folds an exited process into one of the same name). */
static int diff_by_name(struct metrics *m, const struct metrics_rows *cur, struct moves *mv)
{
	for (size_t k = 0; k < cur->n; k++) {
		const struct metrics_row *r = &cur->rows[k];
		const struct metrics_row *p = metrics_rows__find(&m->prev_comm, r->owner, r->inst);
		struct move *x = move_add(mv, r->owner, r->inst);
		int grew = x ? vals_sub(&x->d, &r->v, p ? &p->v : NULL) : -ENOMEM;

		if (grew < 0)
			return grew;
		x->active = grew || m->owners[r->owner].alive;
	}
	return 0;
}

/* By pid: each process's own difference, unless it was seen exited before
 * (it then grows only by another's fold); what a name gained beyond its
 * processes' differences (a process that exited and was folded before any
 * update saw it) goes to the label (name, pid "other"). */
static int diff_by_pid(struct metrics *m, const struct metrics_rows *cur,
		       const struct metrics_rows *names, struct moves *mv)
{
	struct metrics_rows sums = {.map = HASHMAP_INIT};
	int err = 0;

	for (size_t k = 0; k < cur->n && !err; k++) {
		const struct metrics_row *r = &cur->rows[k];
		const struct metrics_row *p = metrics_rows__find(&m->prev_pid, r->owner, r->inst);
		struct metrics_owner *o = &m->owners[r->owner];
		int64_t n = metrics__owner(m, o->comm, METRICS_PID_NONE);
		struct metrics_row *s = n < 0 ? NULL : metrics_rows__get(&sums, (size_t)n, r->inst);
		struct move *x = s ? move_add(mv, r->owner, r->inst) : NULL;
		int grew;

		if (!x) {
			err = -ENOMEM;
			break;
		}
		o = &m->owners[r->owner];
		grew = !o->was_dead || o->alive ? vals_sub(&x->d, &r->v, p ? &p->v : NULL) : 0;
		if (grew < 0 || metrics_vals__add(&s->v, &x->d)) {
			err = -ENOMEM;
			break;
		}
		x->active = grew || o->alive;
	}
	for (size_t k = 0; k < names->n && !err; k++) {
		const struct metrics_row *r = &names->rows[k];
		const struct metrics_row *p = metrics_rows__find(&m->prev_comm, r->owner, r->inst);
		const struct metrics_row *s = metrics_rows__find(&sums, r->owner, r->inst);
		int64_t o = metrics__owner(m, m->owners[r->owner].comm, METRICS_PID_OTHER);
		struct metrics_vals whole;
		struct move *x = o < 0 ? NULL : move_add(mv, (size_t)o, r->inst);
		int grew;

		if (!x || vals_sub(&whole, &r->v, p ? &p->v : NULL) < 0) {
			err = -ENOMEM;
			break;
		}
		grew = vals_sub(&x->d, &whole, s ? &s->v : NULL);
		metrics_vals__clear(&whole);
		if (grew < 0) {
			err = grew;
			break;
		}
		x->active = grew;
	}
	metrics_rows__fini(&sums);
	return err;
}

/* The series of every active key are found (and made) before any counter
 * moves, so that running out of memory changes no counter. */
static int plan(struct metrics *m, struct moves *mv)
{
	m->nr_folded = 0;
	for (size_t k = 0; k < mv->n; k++) {
		struct metrics_row *r;

		if (!mv->v[k].active)
			continue;
		r = route(m, mv->v[k].owner, mv->v[k].inst);
		if (!r || (mv->v[k].d.bucket && metrics_vals__buckets(&r->v)))
			return -ENOMEM;
		mv->v[k].to = (size_t)(r - m->series.rows) + 1;
	}
	return 0;
}

/* Cannot fail: plan made the series' buckets. */
static void apply(struct metrics *m, const struct moves *mv)
{
	for (size_t k = 0; k < mv->n; k++)
		if (mv->v[k].to)
			metrics_vals__add(&m->series.rows[mv->v[k].to - 1].v, &mv->v[k].d);
}

static void moves_free(struct moves *mv)
{
	for (size_t k = 0; k < mv->n; k++)
		free(mv->v[k].d.bucket);
	free(mv->v);
}

/* ---- expiry and compaction ------------------------------------------------------- */

static bool expired(const struct metrics *m, double active)
{
	return m->now - active > m->o.expire_s;
}

static void expire(struct metrics *m)
{
	m->nr_live = 0;
	for (size_t i = 0; i < m->series.n; i++) {
		struct metrics_row *r = &m->series.rows[i];

		if (!r->gone && expired(m, r->active)) {
			r->gone = true;
			metrics_vals__clear(&r->v);
		}
		m->nr_live += !r->gone;
	}
	for (size_t i = 0; i < m->nr_owners; i++) {
		struct metrics_owner *o = &m->owners[i];

		if (o->gone || o->alive || !expired(m, o->active))
			continue;
		o->gone = true;
		m->nr_admitted_owners -= o->admitted;
		o->admitted = false;
	}
	for (size_t i = 0; i < m->nr_insts; i++) {
		struct metrics_inst *n = &m->insts[i];

		if (n->gone || !expired(m, n->active))
			continue;
		n->gone = true;
		if (n->admitted && !n->fold && n->feat != METRICS_NO_FEAT)
			m->feats[n->feat].nr_admitted--;
		n->admitted = false;
	}
	for (size_t i = 0; i < m->nr_feats; i++) {
		struct metrics_feat *f = &m->feats[i];

		if (f->gone || !expired(m, f->active))
			continue;
		f->gone = true;
		m->nr_admitted_feats -= f->admitted;
		f->admitted = false;
	}
}

static void remember_deaths(struct metrics *m, const struct metrics_rows *cur)
{
	for (size_t k = 0; k < cur->n; k++)
		m->owners[cur->rows[k].owner].was_dead = !m->owners[cur->rows[k].owner].alive;
}

int metrics__update(struct metrics *m, const struct profile *p, double now_s, const uint32_t *alive,
		    size_t nr_alive)
{
	struct metrics_rows cur_pid = {.map = HASHMAP_INIT}, cur_comm = {.map = HASHMAP_INIT};
	struct moves mv = {0};
	int err;

	if (!m || !p || profile__nr_sources(p))
		return -EINVAL;
	m->now = now_s > m->now ? now_s : m->now;
	for (size_t i = 0; i < m->nr_owners; i++)
		m->owners[i].alive = false;
	err = metrics__input(m, p, alive, nr_alive, &cur_pid, &cur_comm);
	if (!err)
		err = m->o.by_pid ? diff_by_pid(m, &cur_pid, &cur_comm, &mv)
				  : diff_by_name(m, &cur_comm, &mv);
	if (!err)
		err = plan(m, &mv);
	if (!err) {
		apply(m, &mv);
		if (m->o.by_pid)
			remember_deaths(m, &cur_pid);
		metrics_rows__fini(&m->prev_pid);
		metrics_rows__fini(&m->prev_comm);
		m->prev_pid = cur_pid;
		m->prev_comm = cur_comm;
		memset(&cur_pid, 0, sizeof(cur_pid));
		memset(&cur_comm, 0, sizeof(cur_comm));
		for (int d = 0; d < DIAG__COUNT; d++)
			if (profile__diag(p, d) > m->diag[d])
				m->diag[d] = profile__diag(p, d);
		m->period_ns = profile__meta(p)->period_ns;
		m->updated = true;
		expire(m);
		err = metrics__compact(m);
	}
	moves_free(&mv);
	metrics_rows__fini(&cur_pid);
	metrics_rows__fini(&cur_comm);
	return err;
}

size_t metrics__nr_series(const struct metrics *m)
{
	return m ? m->nr_live : 0;
}

size_t metrics__nr_folded(const struct metrics *m)
{
	return m ? m->nr_folded : 0;
}

struct metrics *metrics__new(const struct metrics_opts *opts)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (opts)
		m->o = *opts;
	if (!m->o.max_instances)
		m->o.max_instances = METRICS_DEFAULT_MAX_INSTANCES;
	if (!m->o.max_features)
		m->o.max_features = METRICS_DEFAULT_MAX_FEATURES;
	if (!m->o.max_processes)
		m->o.max_processes = METRICS_DEFAULT_MAX_PROCESSES;
	if (!(m->o.expire_s > 0))
		m->o.expire_s = METRICS_DEFAULT_EXPIRE_S;
	m->strs = strtab__new();
	m->other = m->strs ? strtab__intern(m->strs, METRICS_OTHER) : NULL;
	if (!m->other) {
		metrics__free(m);
		return NULL;
	}
	return m;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	metrics__tables_fini(m);
	strtab__free(m->strs);
	free(m);
}
