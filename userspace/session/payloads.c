// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The payloads of sampled stacks (payloads.h): the records the sampler sends
 * through the payload_rb ring buffer, counted per (thread, stack, payloads).
 *
 * Bounded by thinning: a payload vector is kept when the top `shift` bits of
 * its hash (of the stack and the payloads, not the thread) are 0. When more
 * than `max` distinct records are kept, shift grows by one and the records
 * that no longer qualify go (about half). The kept vectors are then a uniform
 * sample of all the distinct vectors the session saw, at rate 2^-shift, each
 * with its exact count, however long the session; the samples of the others
 * are counted with their stack as "payloads not kept" (collect.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "util.h"
#include "payloads.h"

struct payload_group {
	uint64_t a, hash; /* (tgid << 32 | tid), the stack's hash */
	uint64_t kept;
};

struct payloads {
	size_t max;
	unsigned int shift;
	struct payload_rec *recs;
	size_t nr, cap;
	uint64_t *pool; /* the records' payloads, back to back */
	size_t nr_pool, cap_pool;
	struct hashmap map; /* (a, phash) -> index in recs */
	struct payload_group *groups;
	size_t nr_groups, cap_groups;
	struct hashmap gmap; /* (a, hash) -> index in groups */
};

static uint64_t vector_hash(uint64_t hash, const __u64 *payload, size_t depth)
{
	uint64_t h = fsp_hash_u64(hash);

	for (size_t i = 0; i < depth; i++)
		h = fsp_hash_pair(h, payload[i]);
	return h;
}

static bool qualifies(const struct payloads *pl, uint64_t phash)
{
	return !pl->shift || !(phash >> (64 - pl->shift));
}

struct payloads *payloads__new(size_t max)
{
	struct payloads *pl = calloc(1, sizeof(*pl));

	if (pl)
		pl->max = max ? max : 1;
	return pl;
}

void payloads__free(struct payloads *pl)
{
	if (!pl)
		return;
	free(pl->recs);
	free(pl->pool);
	free(pl->groups);
	hashmap__fini(&pl->map);
	hashmap__fini(&pl->gmap);
	free(pl);
}

static struct payload_group *group_of(struct payloads *pl, uint64_t a, uint64_t hash)
{
	uint64_t i;
	int r;

	/* Room first: the map must never hold an index not backed. */
	if (fsp_grow((void **)&pl->groups, &pl->cap_groups, pl->nr_groups + 1, sizeof(*pl->groups)))
		return NULL;
	r = hashmap__find_or_insert(&pl->gmap, a, hash, pl->nr_groups, &i);
	if (r < 0)
		return NULL;
	if (!r)
		pl->groups[pl->nr_groups++] = (struct payload_group){a, hash, 0};
	return &pl->groups[i];
}

/* Keeps only the records that qualify at the current shift and that keep()
 * does not refuse (NULL: all); rebuilds the maps and the groups' sums. */
static int rebuild(struct payloads *pl, bool (*keep)(uint32_t tgid, void *ctx), void *ctx)
{
	size_t n = 0, pool = 0;

	hashmap__fini(&pl->map);
	hashmap__fini(&pl->gmap);
	pl->nr_groups = 0;
	for (size_t i = 0; i < pl->nr; i++) {
		struct payload_rec r = pl->recs[i];
		struct payload_group *g;

		if (!qualifies(pl, r.phash) || (keep && !keep((uint32_t)(r.a >> 32), ctx)))
			continue;
		memmove(pl->pool + pool, pl->pool + r.off, r.depth * sizeof(*pl->pool));
		r.off = pool;
		pool += r.depth;
		pl->recs[n] = r;
		g = group_of(pl, r.a, r.hash);
		if (!g || hashmap__find_or_insert(&pl->map, r.a, r.phash, n, NULL) < 0)
			return -ENOMEM;
		g->kept += r.count;
		n++;
	}
	pl->nr = n;
	pl->nr_pool = pool;
	return 0;
}

struct pid_list {
	const pid_t *pids;
	size_t nr;
};

static bool not_listed(uint32_t tgid, void *ctx)
{
	const struct pid_list *l = ctx;

	for (size_t i = 0; i < l->nr; i++)
		if ((uint32_t)l->pids[i] == tgid)
			return false;
	return true;
}

int payloads__drop(struct payloads *pl, const pid_t *pids, size_t nr)
{
	struct pid_list l = {pids, nr};

	return pl && nr ? rebuild(pl, not_listed, &l) : 0;
}

int payloads__add(struct payloads *pl, const struct fsp_payload_rec *rec, size_t size)
{
	uint64_t a, phash, i;
	struct payload_group *g;
	size_t depth;
	int r;

	if (size < offsetof(struct fsp_payload_rec, payload))
		return 0;
	depth = rec->depth;
	if (!depth || depth > FSP_MAX_DEPTH ||
	    size < offsetof(struct fsp_payload_rec, payload) + depth * sizeof(__u64))
		return 0;
	a = (uint64_t)rec->tgid << 32 | rec->tid;
	phash = vector_hash(rec->hash, rec->payload, depth);
	if (!qualifies(pl, phash))
		return 0;
	g = group_of(pl, a, rec->hash);
	if (!g)
		return -ENOMEM;
	if (hashmap__find(&pl->map, a, phash, &i)) {
		pl->recs[i].count++;
		g->kept++;
		return 0;
	}
	if (fsp_grow((void **)&pl->recs, &pl->cap, pl->nr + 1, sizeof(*pl->recs)) ||
	    fsp_grow((void **)&pl->pool, &pl->cap_pool, pl->nr_pool + depth, sizeof(*pl->pool)))
		return -ENOMEM;
	r = hashmap__find_or_insert(&pl->map, a, phash, pl->nr, NULL);
	if (r < 0)
		return r;
	memcpy(pl->pool + pl->nr_pool, rec->payload, depth * sizeof(*pl->pool));
	pl->recs[pl->nr++] = (struct payload_rec){.a = a,
						  .hash = rec->hash,
						  .phash = phash,
						  .count = 1,
						  .depth = depth,
						  .off = pl->nr_pool};
	pl->nr_pool += depth;
	g->kept++;
	while (pl->nr > pl->max && pl->shift < 63) {
		pl->shift++;
		r = rebuild(pl, NULL, NULL);
		if (r)
			return r;
	}
	return 0;
}

size_t payloads__nr(const struct payloads *pl)
{
	return pl ? pl->nr : 0;
}

const struct payload_rec *payloads__rec(const struct payloads *pl, size_t i)
{
	return pl && i < pl->nr ? &pl->recs[i] : NULL;
}

const uint64_t *payloads__values(const struct payloads *pl, const struct payload_rec *r)
{
	return pl->pool + r->off;
}

uint64_t payloads__kept(const struct payloads *pl, uint32_t tgid, uint32_t tid, uint64_t hash)
{
	uint64_t i;

	if (!pl || !hashmap__find(&pl->gmap, (uint64_t)tgid << 32 | tid, hash, &i))
		return 0;
	return pl->groups[i].kept;
}

unsigned int payloads__shift(const struct payloads *pl)
{
	return pl ? pl->shift : 0;
}
