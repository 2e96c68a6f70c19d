// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --calls: the samples' call numbers (struct fsp_call_rec, from the
 * calls_rb ring buffer), joined to their calls as they come, within a bound
 * (analysis/model/calls.c: the attribution rule picks each feature's charged
 * frame; calls__bound keeps the slowest calls of each instance and a uniform
 * sample of the others).
 *
 * The records are kept until FLUSH_RECS of them have come (or the session
 * takes a snapshot, or an exited process's maps are taken), then joined
 * against the stacks read from the stacks map so far (a profile of stacks
 * only, `stacks`), and the calls that have ended are bounded: memory does
 * not grow with the session's length. A call has ended when the last record
 * of its thread no longer holds its call number (call numbers are never
 * reused by a thread). At a snapshot the calls are copied into the profile
 * with its own stack ids.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "hashmap.h"
#include "log.h"
#include "util.h"
#include "session_int.h"

/* Records joined at a time: with their call numbers, at most 8.5 MiB. */
#define FLUSH_RECS (1u << 14)
/* --stacks: sample records kept for the native join (the sampler's timed
 * native stacks are as many at most). */
#define NATIVE_RECS (1u << 17)

/* Call records packed one after another (head and depth call numbers). */
struct recbuf {
	__u64 *w;
	size_t nw, capw;
	size_t *at; /* each record's first word */
	size_t n, cap;
};

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

/* A thread's last record: the call numbers of the marks it was in. */
struct last_ids {
	uint64_t time_ns;
	size_t depth, cap;
	uint64_t *ids;
};

struct callrecs {
	struct recbuf recs; /* samples' records since the last join */
	struct recbuf offs; /* off-CPU intervals' starts, depth without kind, then key */
	struct offend_rec *offends;
	size_t nr_offends, cap_offends;
	struct exact_rec *exact;
	size_t nr_exact, cap_exact;
	struct recbuf natives; /* --stacks: the first NATIVE_RECS samples' records */
	bool keep_natives;
	struct profile *stacks; /* the stacks `calls` refers to */
	struct calls *calls; /* joined so far, bounded */
	struct hashmap last; /* (pid << 32 | tid) -> lasts[] */
	struct last_ids *lasts;
	size_t nr_lasts, cap_lasts;
	struct calls_bound bound;
	uint64_t dropped; /* records lost (memory) or not joined (no stack) */
	uint64_t off_unjoined_ns;
	uint64_t exact_received; /* exact durations the leaves sent (--events) */
};

static int recbuf__push(struct recbuf *b, const void *rec, size_t words)
{
	if (fsp_grow((void **)&b->w, &b->capw, b->nw + words, sizeof(*b->w)) ||
	    fsp_grow((void **)&b->at, &b->cap, b->n + 1, sizeof(*b->at)))
		return -ENOMEM;
	memcpy(b->w + b->nw, rec, words * sizeof(*b->w));
	b->at[b->n++] = b->nw;
	b->nw += words;
	return 0;
}

static const struct fsp_call_rec *recbuf__get(const struct recbuf *b, size_t i)
{
	return (const struct fsp_call_rec *)(b->w + b->at[i]);
}

static void recbuf__fini(struct recbuf *b)
{
	free(b->w);
	free(b->at);
}

struct callrecs *callrecs__new(const struct calls_bound *bound, bool natives)
{
	struct callrecs *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->stacks = profile__new();
	c->calls = calls__new(0);
	if (!c->stacks || !c->calls) {
		callrecs__free(c);
		return NULL;
	}
	c->last = (struct hashmap)HASHMAP_INIT;
	c->bound = *bound;
	c->keep_natives = natives;
	return c;
}

void callrecs__free(struct callrecs *c)
{
	if (!c)
		return;
	recbuf__fini(&c->recs);
	recbuf__fini(&c->offs);
	recbuf__fini(&c->natives);
	free(c->exact);
	free(c->offends);
	for (size_t i = 0; i < c->nr_lasts; i++)
		free(c->lasts[i].ids);
	free(c->lasts);
	hashmap__fini(&c->last);
	calls__free(c->calls);
	profile__free(c->stacks);
	free(c);
}

/* A leave's exact duration (hash 0, FSP_CALL_EXACT_DEPTH). */
static void add_exact(struct callrecs *c, const struct fsp_call_rec *r)
{
	if (r->depth != FSP_CALL_EXACT_DEPTH)
		return;
	c->exact_received++;
	if (fsp_grow((void **)&c->exact, &c->cap_exact, c->nr_exact + 1, sizeof(*c->exact))) {
		c->dropped++;
		return;
	}
	c->exact[c->nr_exact++] = (struct exact_rec){
		.pid = r->tgid, .tid = r->tid, .call = r->call[0], .ns = r->call[1]};
}

/* An off-CPU interval's start (FSP_CALL_OFFCPU_OUT: its key after the call
 * numbers) or end (FSP_CALL_OFFCPU_END). */
static void add_offcpu(struct callrecs *c, const struct fsp_call_rec *r, size_t size)
{
	uint64_t n = r->depth & 0xffffffff;
	__u64 w[4 + FSP_MAX_DEPTH + 1];

	if (FSP_CALL_KIND(r->depth) == FSP_CALL_KIND(FSP_CALL_OFFCPU_END)) {
		if (size < FSP_CALL_REC_HEAD + sizeof(__u64) ||
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
	memcpy(w, r, FSP_CALL_REC_HEAD + (n + 1) * sizeof(__u64));
	w[3] = n;
	if (recbuf__push(&c->offs, w, 4 + n + 1))
		c->dropped++;
}

int callrecs__add(struct callrecs *c, const void *data, size_t size)
{
	const struct fsp_call_rec *r = data;
	size_t words;

	if (!c || size < FSP_CALL_REC_HEAD)
		return 0;
	if (FSP_CALL_KIND(r->depth)) {
		add_offcpu(c, r, size);
	} else if (r->depth > FSP_MAX_DEPTH ||
		   size < FSP_CALL_REC_HEAD + r->depth * sizeof(__u64)) {
		return 0;
	} else if (!r->hash) {
		add_exact(c, r);
	} else {
		words = FSP_CALL_REC_HEAD / sizeof(__u64) + r->depth;
		if (recbuf__push(&c->recs, r, words))
			c->dropped++;
		if (c->keep_natives && c->natives.n < NATIVE_RECS &&
		    recbuf__push(&c->natives, r, words))
			c->keep_natives = false;
	}
	return c->recs.n >= FLUSH_RECS || c->offs.n >= FLUSH_RECS || c->nr_offends >= FLUSH_RECS ||
	       c->nr_exact >= FLUSH_RECS;
}

uint64_t callrecs__dropped(const struct callrecs *c)
{
	return c ? c->dropped : 0;
}

/* Thread (pid, tid)'s last record is now r (ids[0, depth) at time_ns), if
 * it is later than the one it had. */
static int note_last(struct callrecs *c, const struct fsp_call_rec *r, size_t depth)
{
	uint64_t at;
	struct last_ids *l;
	int ret = hashmap__find_or_insert(&c->last, r->tgid, r->tid, c->nr_lasts, &at);

	if (ret < 0)
		return ret;
	if (!ret) {
		if (fsp_grow((void **)&c->lasts, &c->cap_lasts, c->nr_lasts + 1, sizeof(*c->lasts)))
			return -ENOMEM;
		c->lasts[c->nr_lasts++] = (struct last_ids){0};
	}
	l = &c->lasts[at];
	if (r->time_ns < l->time_ns)
		return 0;
	if (fsp_grow((void **)&l->ids, &l->cap, depth ? depth : 1, sizeof(*l->ids)))
		return -ENOMEM;
	memcpy(l->ids, r->call, depth * sizeof(*l->ids));
	l->depth = depth;
	l->time_ns = r->time_ns;
	return 0;
}

/* calls__bound's question: is call r still open (its number in its
 * thread's last record)? */
static bool is_open(void *ctx, const struct call_rec *r)
{
	const struct callrecs *c = ctx;
	const struct last_ids *l;
	uint64_t at;

	if (hashmap__find(&c->last, r->pid, r->tid, &at) != 1 || at >= c->nr_lasts)
		return false;
	l = &c->lasts[at];
	for (size_t k = 0; k < l->depth; k++)
		if (l->ids[k] == r->id)
			return true;
	return false;
}

/* The stack id in c->stacks of record r (read from the stacks map at the
 * last join); -ENOENT when it has none or of another depth (charged frames
 * of other threads come after the thread's own: they have no call numbers). */
static int stack_of_rec(const struct profile *p, const struct fsp_call_rec *r, size_t depth,
			size_t *id, struct profile_stack *st)
{
	if (profile__find_stack(p, r->tgid, r->hash, id) || profile__stack(p, *id, st) ||
	    st->depth < depth)
		return -ENOENT;
	return 0;
}

/* The samples' records since the last join, to their calls. */
static int join_samples(struct callrecs *c)
{
	int err = 0;

	for (size_t i = 0; i < c->recs.n && !err; i++) {
		const struct fsp_call_rec *r = recbuf__get(&c->recs, i);
		struct profile_stack st;
		size_t id;

		err = note_last(c, r, r->depth);
		if (err)
			break;
		if (stack_of_rec(c->stacks, r, r->depth, &id, &st)) {
			c->dropped++;
			continue;
		}
		err = calls__add(c->calls, r->tgid, r->tid, id, st.frames,
				 (const uint64_t *)r->call, r->depth, r->time_ns, 1);
	}
	c->recs.n = c->recs.nw = 0;
	return err;
}

/* Keeps of the off-CPU starts not yet paired (used[i] false) the last of
 * each thread: a thread's interval ends before its next starts, so an older
 * one will never be paired. */
static int keep_pending(struct callrecs *c, const bool *used)
{
	struct hashmap newest = HASHMAP_INIT;
	struct recbuf keep = {0};
	int err = 0;

	for (size_t i = c->offs.n; i-- > 0 && !err;) {
		const struct fsp_call_rec *r = recbuf__get(&c->offs, i);
		int ret;

		if (used[i])
			continue;
		ret = hashmap__find_or_insert(&newest, r->tgid, r->tid, i, NULL);
		if (ret < 0)
			err = ret;
		else if (!ret)
			err = recbuf__push(&keep, r, 4 + r->depth + 1);
	}
	hashmap__fini(&newest);
	recbuf__fini(&c->offs);
	c->offs = keep;
	return err;
}

/* The off-CPU intervals that ended since the last join, to the calls open
 * at their switch-out (paired by thread and key). */
static int join_offcpu(struct callrecs *c)
{
	struct hashmap at = HASHMAP_INIT;
	bool *used = calloc(c->offs.n ? c->offs.n : 1, sizeof(*used));
	int err = used ? 0 : -ENOMEM;

	for (size_t i = 0; i < c->offs.n && !err; i++) {
		const struct fsp_call_rec *r = recbuf__get(&c->offs, i);

		err = note_last(c, r, r->depth);
		if (!err && hashmap__find_or_insert(&at, (uint64_t)r->tgid << 32 | r->tid,
						    r->call[r->depth], i, NULL) < 0)
			err = -ENOMEM;
	}
	for (size_t i = 0; !err && i < c->nr_offends; i++) {
		const struct offend_rec *e = &c->offends[i];
		const struct fsp_call_rec *r;
		struct profile_stack ps;
		uint64_t k;
		size_t id;

		/* An interval whose switch-out was not seen (recovered from the
		 * thread's CPU clock) has no start record: no call. */
		if (hashmap__find(&at, (uint64_t)e->pid << 32 | e->tid, e->key, &k) != 1) {
			c->off_unjoined_ns += e->ns;
			continue;
		}
		used[k] = true;
		r = recbuf__get(&c->offs, k);
		if (stack_of_rec(c->stacks, r, r->depth, &id, &ps)) {
			c->off_unjoined_ns += e->ns;
			continue;
		}
		err = calls__add_offcpu(c->calls, r->tgid, r->tid, id, ps.frames,
					(const uint64_t *)r->call, r->depth, r->time_ns, e->ns);
	}
	c->nr_offends = 0;
	if (!err)
		err = keep_pending(c, used);
	hashmap__fini(&at);
	free(used);
	return err;
}

/* Joins what came since the last join and bounds the calls. */
int callrecs__flush(struct session *s)
{
	struct callrecs *c = s->callrecs;
	int err;

	if (!c || (!c->recs.n && !c->nr_offends && !c->nr_exact))
		return 0;
	/* the stacks map so far: every record's stack is in it, the sampler
	 * stores a stack before it sends a record of it */
	err = collect__stacks(s, c->stacks);
	if (!err)
		err = join_samples(c);
	if (!err)
		err = join_offcpu(c);
	/* The exact durations of the calls that samples fell in; the others
	 * have nothing to show. */
	for (size_t i = 0; !err && i < c->nr_exact; i++)
		calls__set_exact(c->calls, c->exact[i].pid, c->exact[i].tid, c->exact[i].call,
				 c->exact[i].ns);
	c->nr_exact = 0;
	if (!err)
		err = calls__bound(c->calls, &c->bound, is_open, c);
	return err;
}

/* The record of (pid, tid) taken at time_ns: natives' index by the pair. */
static int index_recs(const struct recbuf *b, struct hashmap *at)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct fsp_call_rec *r = recbuf__get(b, i);

		if (hashmap__find_or_insert(at, (uint64_t)r->tgid << 32 | r->tid, r->time_ns, i,
					    NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* record --calls --stacks: each native stack of st (after stacks__fill) to
 * the calls its sample was joined to, by the time the sampler gave both of
 * its records; *unjoined: native stacks without their call record. */
static int join_native(const struct callrecs *c, const struct profile *p, struct calls *out,
		       const struct stacks *st, uint64_t *unjoined)
{
	struct hashmap at = HASHMAP_INIT;
	struct stacks_timed t;
	int err = index_recs(&c->natives, &at);

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
		r = recbuf__get(&c->natives, k);
		if (stack_of_rec(p, r, r->depth, &id, &ps)) {
			(*unjoined)++;
			continue;
		}
		err = calls__add_native(out, r->tgid, r->tid, id, ps.frames,
					(const uint64_t *)r->call, r->depth, t.native, 1);
	}
	hashmap__fini(&at);
	return err;
}

/* calls__copy's map: a stack of c->stacks to p's id of the same key. */
struct remap {
	const struct profile *from, *to;
};

static int remap_stack(void *ctx, size_t stack, size_t *out)
{
	const struct remap *m = ctx;
	struct profile_stack st;

	if (profile__stack(m->from, stack, &st))
		return -ENOENT;
	return profile__find_stack(m->to, st.pid, st.key, out) ? -ENOENT : 0;
}

/* record --calls: the calls so far given to p (whose stacks are collected),
 * with p's stack ids. Records lost on the way are counted as dropped. */
int callrecs__collect(struct session *s, struct profile *p)
{
	struct callrecs *rc = s->callrecs;
	struct remap m = {rc ? rc->stacks : NULL, p};
	struct calls *c;
	int err = callrecs__flush(s);

	if (err)
		return err;
	c = calls__copy(rc->calls, remap_stack, &m);
	if (!c)
		return -ENOMEM;
	if (rc->exact_received)
		log__verbose("--calls: %llu exact durations sent by the leaves, %zu calls kept "
			     "with one",
			     (unsigned long long)rc->exact_received, calls__nr_exact(c));
	if (rc->off_unjoined_ns)
		log__verbose("--calls: %.3f ms of off-CPU time without its switch-out "
			     "record (charged to no call)",
			     rc->off_unjoined_ns / 1e6);
	calls__set_lost(c, calls__dropped(c) + rc->dropped + collect__stat(s, FSP_STAT_CALLS_LOST),
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

	if (!c || !s->callrecs)
		return 0;
	err = join_native(s->callrecs, p, c, s->stacks, &unjoined);
	if (!err && unjoined)
		log__verbose("--calls: %llu native stacks without their call record",
			     (unsigned long long)unjoined);
	return err;
}
