// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --calls: the samples' call numbers (struct fsp_call_rec, from the
 * calls_rb ring buffer), kept as they come, within a bound, and joined to
 * their calls against the collected profile's stacks (analysis/model/calls.c:
 * the attribution rule picks each feature's charged frame).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "hashmap.h"
#include "log.h"
#include "util.h"
#include "session_int.h"

/* Call records kept: about 8 MiB at the usual depths; beyond, counted. */
#define MAX_CALL_RECS (1u << 17)

/* An exact duration (--events): call `call` of thread tid lasted ns. */
struct exact_rec {
	uint32_t pid, tid;
	uint64_t call, ns;
};

/* The end of an off-CPU interval (--off-cpu): its key and length. */
struct offend_rec {
	uint32_t pid, tid;
	uint64_t key, ns;
};

struct callrecs {
	struct fsp_call_rec *recs;
	size_t nr, cap;
	struct fsp_call_rec *offs; /* off-CPU intervals' starts, depth without kind */
	size_t nr_offs, cap_offs;
	struct offend_rec *offends;
	size_t nr_offends, cap_offends;
	struct exact_rec *exact;
	size_t nr_exact, cap_exact;
	uint64_t dropped;
};

struct callrecs *callrecs__new(void)
{
	return calloc(1, sizeof(struct callrecs));
}

void callrecs__free(struct callrecs *c)
{
	if (!c)
		return;
	free(c->recs);
	free(c->exact);
	free(c->offs);
	free(c->offends);
	free(c);
}

/* A leave's exact duration (hash 0, FSP_CALL_EXACT_DEPTH). */
static void add_exact(struct callrecs *c, const struct fsp_call_rec *r)
{
	if (r->depth != FSP_CALL_EXACT_DEPTH)
		return;
	if (c->nr_exact == c->cap_exact) {
		size_t cap = c->cap_exact ? c->cap_exact * 2 : 256;
		struct exact_rec *n;

		if (cap > MAX_CALL_RECS || !(n = realloc(c->exact, cap * sizeof(*n)))) {
			c->dropped++;
			return;
		}
		c->exact = n;
		c->cap_exact = cap;
	}
	c->exact[c->nr_exact++] = (struct exact_rec){
		.pid = r->tgid, .tid = r->tid, .call = r->call[0], .ns = r->call[1]};
}

/* An off-CPU interval's start (FSP_CALL_OFFCPU_OUT: its key after the call
 * numbers) or end (FSP_CALL_OFFCPU_END). */
static void add_offcpu(struct callrecs *c, const struct fsp_call_rec *r, size_t size)
{
	uint64_t n = r->depth & 0xffffffff;

	if (FSP_CALL_KIND(r->depth) == FSP_CALL_KIND(FSP_CALL_OFFCPU_END)) {
		if (size < FSP_CALL_REC_HEAD + sizeof(__u64) || c->nr_offends >= MAX_CALL_RECS ||
		    fsp_grow((void **)&c->offends, &c->cap_offends, c->nr_offends + 1,
			     sizeof(*c->offends))) {
			c->dropped++;
			return;
		}
		c->offends[c->nr_offends++] = (struct offend_rec){
			.pid = r->tgid, .tid = r->tid, .key = r->time_ns, .ns = r->call[0]};
		return;
	}
	if (n >= FSP_MAX_DEPTH || size < FSP_CALL_REC_HEAD + (n + 1) * sizeof(__u64))
		return;
	if (c->nr_offs >= MAX_CALL_RECS ||
	    fsp_grow((void **)&c->offs, &c->cap_offs, c->nr_offs + 1, sizeof(*c->offs))) {
		c->dropped++;
		return;
	}
	memcpy(&c->offs[c->nr_offs], r, FSP_CALL_REC_HEAD + (n + 1) * sizeof(__u64));
	c->offs[c->nr_offs++].depth = n;
}

void callrecs__add(struct callrecs *c, const void *data, size_t size)
{
	const struct fsp_call_rec *r = data;

	if (c && size >= FSP_CALL_REC_HEAD && FSP_CALL_KIND(r->depth)) {
		add_offcpu(c, r, size);
		return;
	}
	if (!c || size < FSP_CALL_REC_HEAD || r->depth > FSP_MAX_DEPTH ||
	    size < FSP_CALL_REC_HEAD + r->depth * sizeof(__u64))
		return;
	if (!r->hash) {
		add_exact(c, r);
		return;
	}
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct fsp_call_rec *n;

		if (cap > MAX_CALL_RECS || !(n = realloc(c->recs, cap * sizeof(*n)))) {
			c->dropped++;
			return;
		}
		c->recs = n;
		c->cap = cap;
	}
	memcpy(&c->recs[c->nr], r, FSP_CALL_REC_HEAD + r->depth * sizeof(__u64));
	c->nr++;
}

uint64_t callrecs__dropped(const struct callrecs *c)
{
	return c ? c->dropped : 0;
}

int callrecs__join(const struct callrecs *c, const struct profile *p, struct calls *out,
		   uint64_t *unjoined)
{
	*unjoined = 0;
	for (size_t i = 0; c && i < c->nr; i++) {
		const struct fsp_call_rec *r = &c->recs[i];
		struct profile_stack st;
		size_t id;
		int err;

		/* A stack not collected (its map was full), or of another depth
		 * (charged frames of other threads come after the thread's own:
		 * they have no call numbers). */
		if (profile__find_stack(p, r->tgid, r->hash, &id) || profile__stack(p, id, &st) ||
		    st.depth < r->depth) {
			(*unjoined)++;
			continue;
		}
		err = calls__add(out, r->tgid, r->tid, id, st.frames, (const uint64_t *)r->call,
				 r->depth, r->time_ns, 1);
		if (err)
			return err;
	}
	/* The exact durations of the calls that samples fell in; the others
	 * have nothing to show. */
	for (size_t i = 0; c && i < c->nr_exact; i++)
		calls__set_exact(out, c->exact[i].pid, c->exact[i].tid, c->exact[i].call,
				 c->exact[i].ns);
	return 0;
}

/* The call record of (pid, tid) taken at time_ns: recs' index by the pair. */
static int index_recs(const struct callrecs *c, struct hashmap *at)
{
	for (size_t i = 0; c && i < c->nr; i++) {
		const struct fsp_call_rec *r = &c->recs[i];

		if (hashmap__find_or_insert(at, (uint64_t)r->tgid << 32 | r->tid, r->time_ns, i,
					    NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

int callrecs__join_native(const struct callrecs *c, const struct profile *p, struct calls *out,
			  const struct stacks *st, uint64_t *unjoined)
{
	struct hashmap at = HASHMAP_INIT;
	struct stacks_timed t;
	int err = index_recs(c, &at);

	*unjoined = stacks__timed_dropped(st);
	for (size_t i = 0; !err && i < stacks__nr_timed(st); i++) {
		const struct fsp_call_rec *r;
		struct profile_stack ps;
		uint64_t k;
		size_t id;

		/* The sampler sends a sample's call and native records with one
		 * time; a call record lost or dropped leaves its native stack
		 * without a call. */
		if (stacks__timed(st, i, &t) ||
		    hashmap__find(&at, (uint64_t)t.pid << 32 | t.tid, t.time_ns, &k) != 1) {
			(*unjoined)++;
			continue;
		}
		r = &c->recs[k];
		if (profile__find_stack(p, r->tgid, r->hash, &id) || profile__stack(p, id, &ps) ||
		    ps.depth < r->depth) {
			(*unjoined)++;
			continue;
		}
		err = calls__add_native(out, r->tgid, r->tid, id, ps.frames,
					(const uint64_t *)r->call, r->depth, t.native, 1);
	}
	hashmap__fini(&at);
	return err;
}

int callrecs__join_offcpu(const struct callrecs *c, const struct profile *p, struct calls *out,
			  uint64_t *unjoined)
{
	struct hashmap at = HASHMAP_INIT;
	int err = 0;

	*unjoined = 0;
	for (size_t i = 0; c && i < c->nr_offs && !err; i++) {
		const struct fsp_call_rec *r = &c->offs[i];

		if (hashmap__find_or_insert(&at, (uint64_t)r->tgid << 32 | r->tid,
					    r->call[r->depth], i, NULL) < 0)
			err = -ENOMEM;
	}
	for (size_t i = 0; c && !err && i < c->nr_offends; i++) {
		const struct offend_rec *e = &c->offends[i];
		const struct fsp_call_rec *r;
		struct profile_stack ps;
		uint64_t k;
		size_t id;

		/* An interval whose switch-out was not seen (recovered from the
		 * thread's CPU clock) has no start record: no call. */
		if (hashmap__find(&at, (uint64_t)e->pid << 32 | e->tid, e->key, &k) != 1) {
			*unjoined += e->ns;
			continue;
		}
		r = &c->offs[k];
		if (profile__find_stack(p, r->tgid, r->hash, &id) || profile__stack(p, id, &ps) ||
		    ps.depth < r->depth) {
			*unjoined += e->ns;
			continue;
		}
		err = calls__add_offcpu(out, r->tgid, r->tid, id, ps.frames,
					(const uint64_t *)r->call, r->depth, r->time_ns, e->ns);
	}
	hashmap__fini(&at);
	return err;
}

/* record --calls: the samples joined to their calls, given to p (whose
 * stacks are collected). Records lost on the way are counted as dropped. */
int callrecs__collect(struct session *s, struct profile *p)
{
	struct calls *c = calls__new(0);
	uint64_t unjoined = 0;
	int err;

	if (!c)
		return -ENOMEM;
	err = callrecs__join(s->callrecs, p, c, &unjoined);
	if (!err && s->opts.offcpu) {
		uint64_t off_unjoined = 0;

		err = callrecs__join_offcpu(s->callrecs, p, c, &off_unjoined);
		if (!err && off_unjoined)
			log__verbose("--calls: %.3f ms of off-CPU time without its switch-out "
				     "record (charged to no call)",
				     off_unjoined / 1e6);
	}
	if (err) {
		calls__free(c);
		return err;
	}
	calls__set_lost(c,
			calls__dropped(c) + unjoined + callrecs__dropped(s->callrecs) +
				collect__stat(s, FSP_STAT_CALLS_LOST),
			calls__unknown(c));
	profile__set_calls(p, c);
	return 0;
}

/* record --calls --stacks: the native stacks of p's calls' samples. */
int callrecs__collect_native(struct session *s, struct profile *p)
{
	struct calls *c = (struct calls *)profile__calls(p);
	uint64_t unjoined = 0;
	int err;

	if (!c)
		return 0;
	err = callrecs__join_native(s->callrecs, p, c, s->stacks, &unjoined);
	if (!err && unjoined)
		log__verbose("--calls: %llu native stacks without their call record",
			     (unsigned long long)unjoined);
	return err;
}
