/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * "charge threads PATTERN" (--map): while a mark of such a feature is open in
 * one thread (HotSpot's VM thread in a GC pause), the samples of the other
 * threads of its process whose name matches PATTERN (the GC workers doing
 * the work) are charged to it too.
 *
 * The open marks are published per process in the charges map: CHARGE_SLOTS
 * slots, each claimed by the thread that enters such a mark (compare and
 * swap on its tid) and written under a sequence count, so that the sampler
 * of another thread, which reads it without a lock, never uses a half-written
 * slot. A frame holding a slot says which (tframe.flags); the owner releases
 * the slot when no frame of its stack holds it any more, which it checks
 * after each of its mapped probes (a leave, or a frame dropped as stale),
 * at its exit and at its exec.
 *
 * The sampler appends the matching slots' marks, as frames of kind
 * FSP_FRAME_CHARGED, to the sampled thread's own live stack: the attribution
 * rule charges them like marks, and the reports say which share came from
 * other threads. Off-CPU time is not charged so: a worker blocked while the
 * mark is open is idle, not working for it.
 */
#ifndef FSP_CHARGE_BPF_H
#define FSP_CHARGE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "markstack.bpf.h"

#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))

/* Claims a free slot of process tgid for the top frame of st (just
 * entered by site ms with instance). */
static __noinline void charge_open(struct tstack *st, const struct fsp_map_site *ms, __u64 instance)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, d, i;
	struct charge_proc fresh = {}, *e;
	struct tframe *f;

	if (!st || !ms)
		return;
	d = st->depth;
	if (!d || d > FSP_MAX_DEPTH)
		return;
	f = &st->f[slot(d - 1)];
	if (f->feature != ms->feature || f->kind != FSP_FRAME_MARK)
		return; /* not pushed: beyond --max-depth */
	e = bpf_map_lookup_elem(&charges, &tgid);
	if (!e) {
		bpf_map_update_elem(&charges, &tgid, &fresh, BPF_NOEXIST);
		e = bpf_map_lookup_elem(&charges, &tgid);
		if (!e) {
			stat_inc(FSP_STAT_CHARGE_DROPS);
			return;
		}
	}
	for (i = 0; i < CHARGE_SLOTS; i++) {
		struct charge_slot *s = &e->s[i];

		if (READ_ONCE(s->tid) || __sync_val_compare_and_swap(&s->tid, 0, (__u64)tid))
			continue;
		__sync_fetch_and_add(&s->seq, 1);
		s->feature = ms->feature;
		s->instance = instance;
		s->len = ms->charge_len;
		s->prefix = ms->charge_prefix;
		__builtin_memcpy(s->pat, ms->charge_pat, FSP_CHARGE_PAT_LEN);
		__sync_fetch_and_add(&s->seq, 1);
		f->flags |= 1U << (TF_CHARGE_SHIFT + i);
		st->charging |= 1U << i;
		return;
	}
	stat_inc(FSP_STAT_CHARGE_DROPS);
}

/* Releases the slots of mask that thread tid of tgid holds. */
static __always_inline void charge_release(__u32 tgid, __u32 tid, __u32 mask)
{
	struct charge_proc *e = bpf_map_lookup_elem(&charges, &tgid);
	__u32 i;

	if (!e)
		return;
	for (i = 0; i < CHARGE_SLOTS; i++) {
		struct charge_slot *s = &e->s[i];

		if (!(mask & (1U << i)) || READ_ONCE(s->tid) != tid)
			continue;
		__sync_fetch_and_add(&s->seq, 1);
		s->feature = 0;
		s->instance = 0;
		__sync_fetch_and_add(&s->seq, 1);
		WRITE_ONCE(s->tid, 0);
	}
}

struct held_ctx {
	const struct tstack *st;
	__u32 mask;
};

static long held_cb(__u64 i, void *data)
{
	struct held_ctx *c = data;

	if (i >= c->st->depth)
		return 1;
	c->mask |= c->st->f[slot(i)].flags >> TF_CHARGE_SHIFT;
	return 0;
}

/* After a probe of the thread: releases the slots whose frames are gone (left,
 * or dropped as stale). Free for threads that hold none. */
static __always_inline void charge_sync(struct tstack *st)
{
	struct held_ctx c = {.st = st};
	__u64 id;

	if (!charge_enabled || !st || !st->charging)
		return;
	bpf_loop(FSP_MAX_DEPTH, held_cb, &c, 0);
	c.mask &= (1U << CHARGE_SLOTS) - 1;
	if (c.mask == st->charging)
		return;
	id = bpf_get_current_pid_tgid();
	charge_release(id >> 32, (__u32)id, st->charging & ~c.mask);
	st->charging &= c.mask;
}

/* A thread exits or execs: its slots go with its stack. */
static __always_inline void charge_exit(struct task_struct *task)
{
	struct tstack *st = bpf_task_storage_get(&tstacks, task, NULL, 0);

	if (st && st->charging) {
		charge_release(task->tgid, task->pid, st->charging);
		st->charging = 0;
	}
}

/* Does the thread name comm match slot s's pattern? */
static __always_inline bool charge_match(const char *comm, const char *pat, __u64 len, __u64 prefix)
{
	__u32 j;

	for (j = 0; j < FSP_CHARGE_PAT_LEN - 1; j++) {
		if (j >= len)
			break;
		if (comm[j] != pat[j])
			return false;
	}
	return prefix || len >= FSP_COMM_LEN || !comm[len & (FSP_COMM_LEN - 1)];
}

struct charged {
	__u64 feature;
	__u64 instance;
};

struct own_copy_ctx {
	const struct fsp_stack *own;
	struct fsp_stack *s;
};

/* bpf_loop callback: frame i of the thread's own stored stack into s. */
static long own_copy_cb(__u64 i, void *data)
{
	struct own_copy_ctx *c = data;

	c->s->frames[slot(i)] = c->own->frames[slot(i)];
	return 0;
}

/* Stores the stack: the frames of the thread's own live stack (stored under
 * own_hash, 0: none), then n charged ones. */
static __always_inline bool charge_store(__u32 tgid, __u64 own_hash, const struct charged *x,
					 __u32 n, const struct fsp_stack_key *key)
{
	struct fsp_stack_key okey = {.tgid = tgid, .hash = own_hash};
	struct own_copy_ctx c = {};
	__u32 i = 0, k;

	if (bpf_map_lookup_elem(&stacks, key))
		return true;
	c.s = scratch_get(SCRATCH_SAMPLE);
	if (!c.s)
		return false;
	if (own_hash) {
		/* The sampler stored it (ABI v1, v2 or merged) just before. */
		c.own = bpf_map_lookup_elem(&stacks, &okey);
		if (!c.own)
			return false;
		i = c.own->depth < FSP_MAX_DEPTH ? c.own->depth : FSP_MAX_DEPTH;
		bpf_loop(i, own_copy_cb, &c, 0);
	}
	for (k = 0; k < CHARGE_SLOTS; k++) {
		if (k >= n || i + k >= FSP_MAX_DEPTH)
			break;
		c.s->frames[slot(i + k)].feature = x[k].feature;
		c.s->frames[slot(i + k)].instance = x[k].instance;
		c.s->frames[slot(i + k)].payload = 0;
		c.s->frames[slot(i + k)].kind = FSP_FRAME_CHARGED;
	}
	c.s->depth = i + k;
	if (bpf_map_update_elem(&stacks, key, c.s, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stacks, key) != NULL;
	return true;
}

/*
 * The sampler: the stack hash to count a sample of thread tid of tgid under,
 * its own live stack (hash `hash`, stored, 0: none) with the marks other threads
 * charge it appended; `hash` when there are none.
 */
static __always_inline __u64 charge_sample(__u32 tgid, __u32 tid, __u64 hash)
{
	struct charge_proc *e = bpf_map_lookup_elem(&charges, &tgid);
	struct fsp_stack_key key = {.tgid = tgid};
	struct charged x[CHARGE_SLOTS];
	char comm[FSP_COMM_LEN] = {};
	__u32 i, n = 0;
	__u64 h = hash;

	if (!e)
		return hash;
	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < CHARGE_SLOTS; i++) {
		struct charge_slot *s = &e->s[i];
		__u64 pat[2], len, prefix, seq = READ_ONCE(s->seq), t;
		struct tframe tf = {};

		t = READ_ONCE(s->tid);
		if ((seq & 1) || !t || t == tid)
			continue;
		tf.feature = READ_ONCE(s->feature);
		tf.instance = READ_ONCE(s->instance);
		len = READ_ONCE(s->len);
		prefix = READ_ONCE(s->prefix);
		pat[0] = READ_ONCE(*(__u64 *)&s->pat[0]);
		pat[1] = READ_ONCE(*(__u64 *)&s->pat[8]);
		if (READ_ONCE(s->seq) != seq || !tf.feature)
			continue;
		if (!charge_match(comm, (const char *)pat, len, prefix))
			continue;
		tf.kind = FSP_FRAME_CHARGED;
		h = frame_hash(h, &tf);
		x[n & (CHARGE_SLOTS - 1)].feature = tf.feature;
		x[n & (CHARGE_SLOTS - 1)].instance = tf.instance;
		n++;
	}
	if (!n)
		return hash;
	key.hash = h;
	if (!charge_store(tgid, hash, x, n, &key))
		stat_inc(FSP_STAT_STACK_DROPS);
	return h;
}

#endif /* FSP_CHARGE_BPF_H */
