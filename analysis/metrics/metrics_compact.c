// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Compaction of the metrics' tables (metrics_int.h): keys that expired stay
 * in their tables (the hash maps have no deletion) until the tables have
 * grown to twice what the last compaction kept; then they are rebuilt, with
 * a new string table, from what is still used: live series, and the keys
 * of the last snapshot's values. So the memory an agent takes follows the
 * keys alive within the expiry time, not every key it ever saw.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_int.h"
#include "strtab.h"
#include "util.h"

#define COMPACT_SLACK 4096
#define DROP SIZE_MAX

/* The new tables, built beside the old ones and swapped in when complete. */
struct compact {
	struct strtab *strs;
	size_t *owner_to, *inst_to, *feat_to; /* old index -> new, DROP */
	struct metrics_owner *owners;
	struct metrics_feat *feats;
	struct metrics_inst *insts;
	size_t nr_owners, nr_feats, nr_insts;
	struct hashmap owner_map, feat_map, inst_map;
	struct metrics_rows series, prev_pid, prev_comm;
};

static void compact_fini(struct compact *c)
{
	strtab__free(c->strs);
	free(c->owner_to);
	free(c->inst_to);
	free(c->feat_to);
	free(c->owners);
	free(c->feats);
	free(c->insts);
	hashmap__fini(&c->owner_map);
	hashmap__fini(&c->feat_map);
	hashmap__fini(&c->inst_map);
	metrics_rows__fini(&c->series);
	metrics_rows__fini(&c->prev_pid);
	metrics_rows__fini(&c->prev_comm);
}

static void mark_rows(const struct metrics_rows *r, size_t *owner_to, size_t *inst_to, bool live)
{
	for (size_t i = 0; i < r->n; i++) {
		if (live && r->rows[i].gone)
			continue;
		owner_to[r->rows[i].owner] = 0;
		inst_to[r->rows[i].inst] = 0;
	}
}

/* Which keys stay: those not expired, and those rows still use. */
static void mark(const struct metrics *m, struct compact *c)
{
	for (size_t i = 0; i < m->nr_owners; i++)
		c->owner_to[i] = m->owners[i].gone ? DROP : 0;
	for (size_t i = 0; i < m->nr_insts; i++)
		c->inst_to[i] = m->insts[i].gone ? DROP : 0;
	mark_rows(&m->series, c->owner_to, c->inst_to, true);
	mark_rows(&m->prev_pid, c->owner_to, c->inst_to, false);
	mark_rows(&m->prev_comm, c->owner_to, c->inst_to, false);
	for (size_t i = 0; i < m->nr_feats; i++)
		c->feat_to[i] = m->feats[i].gone ? DROP : 0;
	for (size_t i = 0; i < m->nr_insts; i++)
		if (c->inst_to[i] != DROP && m->insts[i].feat != METRICS_NO_FEAT)
			c->feat_to[m->insts[i].feat] = 0;
}

static const char *copy_str(struct compact *c, const char *s)
{
	return s ? strtab__intern(c->strs, s) : NULL;
}

static int copy_keys(const struct metrics *m, struct compact *c)
{
	for (size_t i = 0; i < m->nr_feats; i++) {
		struct metrics_feat f = m->feats[i];

		if (c->feat_to[i] == DROP)
			continue;
		f.feature = copy_str(c, f.feature);
		c->feat_to[i] = c->nr_feats;
		c->feats[c->nr_feats] = f;
		if (!f.feature || hashmap__find_or_insert(&c->feat_map, (uintptr_t)f.feature, 0,
							  c->nr_feats++, NULL) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < m->nr_insts; i++) {
		struct metrics_inst n = m->insts[i];

		if (c->inst_to[i] == DROP)
			continue;
		n.feature = copy_str(c, n.feature);
		n.instance = copy_str(c, n.instance);
		if (n.feat != METRICS_NO_FEAT)
			n.feat = c->feat_to[n.feat];
		c->inst_to[i] = c->nr_insts;
		c->insts[c->nr_insts] = n;
		if ((m->insts[i].feature && (!n.feature || !n.instance)) ||
		    hashmap__find_or_insert(&c->inst_map, (uintptr_t)n.feature,
					    (uintptr_t)n.instance, c->nr_insts++, NULL) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < m->nr_owners; i++) {
		struct metrics_owner o = m->owners[i];

		if (c->owner_to[i] == DROP)
			continue;
		o.comm = copy_str(c, o.comm);
		c->owner_to[i] = c->nr_owners;
		c->owners[c->nr_owners] = o;
		if (!o.comm || hashmap__find_or_insert(&c->owner_map, (uintptr_t)o.comm, o.pid,
						       c->nr_owners++, NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int copy_rows(const struct metrics_rows *from, struct metrics_rows *to,
		     const struct compact *c, bool live)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct metrics_row *r = &from->rows[i];
		struct metrics_row *n;

		if (live && r->gone)
			continue;
		n = metrics_rows__get(to, c->owner_to[r->owner], c->inst_to[r->inst]);
		if (!n)
			return -ENOMEM;
		n->v = r->v;
		n->v.bucket = NULL;
		if (r->v.bucket) {
			if (metrics_vals__buckets(&n->v))
				return -ENOMEM;
			memcpy(n->v.bucket, r->v.bucket, METRICS_BUCKETS * sizeof(*n->v.bucket));
		}
		n->active = r->active;
	}
	return 0;
}

static void swap_in(struct metrics *m, struct compact *c)
{
	metrics__tables_fini(m);
	strtab__free(m->strs);
	m->strs = c->strs;
	m->other = strtab__intern(m->strs, METRICS_OTHER); /* kept: no allocation */
	m->owners = c->owners;
	m->nr_owners = m->cap_owners = c->nr_owners;
	m->feats = c->feats;
	m->nr_feats = m->cap_feats = c->nr_feats;
	m->insts = c->insts;
	m->nr_insts = m->cap_insts = c->nr_insts;
	m->owner_map = c->owner_map;
	m->feat_map = c->feat_map;
	m->inst_map = c->inst_map;
	m->series = c->series;
	m->prev_pid = c->prev_pid;
	m->prev_comm = c->prev_comm;
	m->live_at_compaction = c->nr_owners + c->nr_feats + c->nr_insts + c->series.n;
	free(c->owner_to);
	free(c->inst_to);
	free(c->feat_to);
}

int metrics__compact(struct metrics *m)
{
	size_t total = m->nr_owners + m->nr_feats + m->nr_insts + m->series.n;
	struct compact c = {
		.owner_map = HASHMAP_INIT,
		.feat_map = HASHMAP_INIT,
		.inst_map = HASHMAP_INIT,
		.series = {.map = HASHMAP_INIT},
		.prev_pid = {.map = HASHMAP_INIT},
		.prev_comm = {.map = HASHMAP_INIT},
	};
	int err;

	if (total <= 2 * m->live_at_compaction + COMPACT_SLACK)
		return 0;
	c.strs = strtab__new();
	c.owner_to = calloc(m->nr_owners + 1, sizeof(*c.owner_to));
	c.inst_to = calloc(m->nr_insts + 1, sizeof(*c.inst_to));
	c.feat_to = calloc(m->nr_feats + 1, sizeof(*c.feat_to));
	c.owners = calloc(m->nr_owners + 1, sizeof(*c.owners));
	c.feats = calloc(m->nr_feats + 1, sizeof(*c.feats));
	c.insts = calloc(m->nr_insts + 1, sizeof(*c.insts));
	err = c.strs && c.owner_to && c.inst_to && c.feat_to && c.owners && c.feats && c.insts &&
			      strtab__intern(c.strs, METRICS_OTHER)
		      ? 0
		      : -ENOMEM;
	if (!err) {
		mark(m, &c);
		err = copy_keys(m, &c);
	}
	if (!err)
		err = copy_rows(&m->series, &c.series, &c, true);
	if (!err)
		err = copy_rows(&m->prev_pid, &c.prev_pid, &c, false);
	if (!err)
		err = copy_rows(&m->prev_comm, &c.prev_comm, &c, false);
	if (err) {
		compact_fini(&c);
		return err;
	}
	swap_in(m, &c);
	return 0;
}

void metrics__tables_fini(struct metrics *m)
{
	free(m->owners);
	free(m->feats);
	free(m->insts);
	hashmap__fini(&m->owner_map);
	hashmap__fini(&m->feat_map);
	hashmap__fini(&m->inst_map);
	metrics_rows__fini(&m->series);
	metrics_rows__fini(&m->prev_pid);
	metrics_rows__fini(&m->prev_comm);
}
