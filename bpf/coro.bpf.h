/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Coroutines that switch stacks with glibc's ucontext functions. A mark
 * belongs to the context (the stack) that entered it: when a thread switches
 * to another context, its marks are suspended with the context it leaves, not
 * charged while others run and not dropped, and they come back when that
 * context is resumed, on whichever thread. The context's identity is the
 * address of the ucontext_t it was saved in (swapcontext's oucp), which is
 * the one it is resumed from (swapcontext's or setcontext's ucp).
 */
#ifndef FSP_CORO_BPF_H
#define FSP_CORO_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "admit.bpf.h"
#include "markstack.bpf.h"

/* The stack pointer saved in a ucontext_t (x86-64 glibc): after uc_flags,
 * uc_link and uc_stack (8 + 8 + 24 bytes), uc_mcontext.gregs[REG_RSP = 15]. */
#define UC_RSP_OFF (40 + 15 * 8)

struct frames_copy {
	struct tframe *dst;
	const struct tframe *src;
	__u32 n;
};

static long frames_copy_cb(__u64 i, void *data)
{
	struct frames_copy *c = data;

	if (i >= c->n)
		return 1;
	c->dst[slot(i)] = c->src[slot(i)];
	return 0;
}

static __always_inline void frames_copy(struct tframe *dst, const struct tframe *src, __u32 n)
{
	struct frames_copy c = {.dst = dst, .src = src, .n = n};

	bpf_loop(FSP_MAX_DEPTH, frames_copy_cb, &c, 0);
}

/* Moves the thread's frames to the parked map under ctx (the thread is left
 * with none). A context left without marks takes no entry, and drops one an
 * earlier switch may have left under the same address. */
static __always_inline void park(struct tstack *st, __u64 tgid, __u64 ctx)
{
	struct park_key key = {.tgid = tgid, .ctx = ctx};
	struct parked *p;

	if (!st->depth && !st->overflow) {
		bpf_map_delete_elem(&parked, &key);
		return;
	}
	p = scratch_get(SCRATCH_PROBE);
	if (!p)
		return;
	p->depth = st->depth;
	p->overflow = st->overflow;
	p->overflow_sp = st->overflow_sp;
	frames_copy(p->f, st->f, st->depth);
	if (bpf_map_update_elem(&parked, &key, p, BPF_ANY))
		/* Full: the marks of this context are lost, as if unwound. */
		stat_add(FSP_STAT_STALE_MARKS, st->depth + st->overflow);
	st->depth = 0;
	st->overflow = 0;
}

/* The frames parked under ctx become the thread's, which must have none. */
static __always_inline void unpark(struct tstack *st, struct parked *p, struct park_key *key)
{
	__u32 d = p->depth;

	if (d > FSP_MAX_DEPTH)
		d = FSP_MAX_DEPTH;
	frames_copy(st->f, p->f, d);
	st->depth = d;
	st->overflow = p->overflow;
	st->overflow_sp = p->overflow_sp;
	bpf_map_delete_elem(&parked, key);
}

/* The thread drops every frame it has: the context it runs is abandoned. */
static __always_inline void drop_all(struct tstack *st)
{
	if (st->depth || st->overflow)
		stat_add(FSP_STAT_STALE_MARKS, st->depth + st->overflow);
	st->depth = 0;
	st->overflow = 0;
}

/*
 * The thread switches to context ucp: from a context saved in oucp
 * (swapcontext) or from one it abandons (setcontext, oucp 0). sp is the
 * thread's stack pointer at the call.
 */
static __always_inline void switch_context(__u64 oucp, __u64 ucp, __u64 sp)
{
	__u64 tgid = bpf_get_current_pid_tgid() >> 32, target_sp;
	struct park_key key = {.tgid = tgid, .ctx = ucp};
	struct tstack *st = tstack_get(false);
	struct parked *p;

	if (!st && !is_target())
		return;
	if (st) {
		prune(st, sp);
		if (oucp)
			park(st, tgid, oucp);
	}
	p = bpf_map_lookup_elem(&parked, &key);
	if (p) {
		if (!st)
			st = tstack_get(true);
		if (!st) {
			stat_inc(FSP_STAT_NO_STORAGE);
			return;
		}
		drop_all(st);
		unpark(st, p, &key);
		return;
	}
	/* A context never saved with marks: a fresh one (makecontext), or one
	 * saved by getcontext, used like setjmp, on this stack further up. */
	if (oucp || !st || (!st->depth && !st->overflow))
		return;
	if (bpf_probe_read_user(&target_sp, sizeof(target_sp), (void *)(ucp + UC_RSP_OFF)))
		return;
	if (target_sp > sp)
		prune(st, target_sp);
}

static long forget_cb(struct bpf_map *map, struct park_key *key, struct parked *p, __u64 *tgid)
{
	if (key->tgid == *tgid)
		bpf_map_delete_elem(map, key);
	return 0;
}

/* A process exec'd: the contexts of its old image are gone. */
static __always_inline void forget_contexts(__u64 tgid)
{
	bpf_for_each_map_elem(&parked, forget_cb, &tgid, 0);
}

#endif /* FSP_CORO_BPF_H */
