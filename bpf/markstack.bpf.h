/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The mark stack of a thread (task storage): which frames are still live
 * (frame-bound marks), the enter and leave of a mark or antimark, the copy a
 * forked child inherits, and the storing of a live stack's frames.
 */
#ifndef FSP_MARKSTACK_BPF_H
#define FSP_MARKSTACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "labels.bpf.h"
#include "eventview.bpf.h"

/* ---- liveness ------------------------------------------------------------ */

static __always_inline bool is_stale(__u64 frame_sp, __u64 sp)
{
	return frame_sp < sp && sp - frame_sp < stack_window;
}

struct live_ctx {
	const struct tstack *st;
	__u64 sp;
	__u32 depth;
};

static long live_cb(__u64 n, void *data)
{
	struct live_ctx *c = data;
	__u32 d = c->depth;

	if (d == 0 || d > FSP_MAX_DEPTH || !is_stale(c->st->f[slot(d - 1)].sp, c->sp))
		return 1;
	c->depth = d - 1;
	return 0;
}

/* Number of frames still live when the thread's stack pointer is sp. Dead
 * frames are always on top: a frame is pushed only after pruning. */
static __always_inline __u32 live_depth(const struct tstack *st, __u64 sp)
{
	struct live_ctx c = {.st = st, .sp = sp, .depth = st->depth};

	if (c.depth && c.depth <= FSP_MAX_DEPTH && is_stale(st->f[slot(c.depth - 1)].sp, sp))
		bpf_loop(c.depth, live_cb, &c, 0);
	return c.depth;
}

/* Drops the frames whose stack frame is gone; called on every probe. */
static __always_inline void prune(struct tstack *st, __u64 sp)
{
	__u32 d = live_depth(st, sp);

	if (d != st->depth) {
		stat_add(FSP_STAT_STALE_MARKS, st->depth - d);
		st->depth = d;
	}
	if (st->overflow && is_stale(st->overflow_sp, sp)) {
		stat_inc(FSP_STAT_STALE_MARKS);
		st->overflow = 0;
	}
}

/* ---- enter and leave ----------------------------------------------------- */

static __always_inline __u64 frame_hash(__u64 prev, const struct tframe *f)
{
	__u64 h = mix64(prev + f->feature);

	h = mix64(h + f->instance);
	h = mix64(h + f->payload);
	h = mix64(h + f->kind);
	return h ? h : 1;
}

static __always_inline struct tstack *tstack_get(bool create)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return bpf_task_storage_get(&tstacks, task, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline int do_enter(struct pt_regs *ctx, __u64 kind, __u64 feature, __u64 instance,
				    __u64 payload, __u64 sp_off)
{
	__u64 sp = PT_REGS_SP(ctx);
	/* the stack pointer the frame is bound to (never below any sp: unbound) */
	__u64 fsp = sp_off == SP_UNFRAMED ? SP_UNFRAMED : sp + sp_off;
	struct tstack *st;
	struct tframe *f;
	__u32 d, id = SLOT_NONE;

	stat_inc(FSP_STAT_PROBE_HITS);
	st = tstack_get(true);
	if (!st) {
		stat_inc(FSP_STAT_NO_STORAGE);
		return 0;
	}
	prune(st, sp);
	if (events_enabled && kind == FSP_FRAME_MARK)
		id = count_enter(st, feature, instance);
	d = st->depth;
	if (d >= max_depth || d >= FSP_MAX_DEPTH || st->overflow) {
		if (!st->overflow)
			st->overflow_sp = fsp;
		st->overflow++;
		stat_inc(FSP_STAT_OVERFLOWS);
		return 0;
	}
	f = &st->f[slot(d)];
	f->feature = feature;
	f->instance = instance;
	f->payload = payload;
	f->kind = kind == KIND_MUTED ? FSP_FRAME_ANTIMARK : kind;
	f->flags = kind == KIND_MUTED ? TF_MUTED : 0;
	f->sp = fsp;
	f->fhash = label_hash_cached(st, feature);
	if (instance)
		label_hash_cached(st, instance);
	f->hash = frame_hash(d ? st->f[slot(d - 1)].hash : 0, f);
	if (events_enabled) {
		f->slot = id;
		f->anti_ns = 0;
		/* Last: the enter's own bookkeeping is not part of the duration. */
		f->t_enter = bpf_ktime_get_ns();
	}
	st->depth = d + 1;
	return 0;
}

struct leave_ctx {
	struct tstack *st;
	__u64 kind;
	__u64 feature;
	__u64 fhash;
	__u64 instance; /* match: the instance the frame must have */
	__u32 depth;
	__u32 found; /* index of the matching frame, or depth when none */
	__u32 match; /* also match the instance (mapped "match instance") */
};

static __always_inline bool same_feature(const struct tframe *f, __u64 feature, __u64 fhash)
{
	return f->feature == feature || f->fhash == fhash;
}

/* Does a leave of this kind close frame f? A muted enter's frame (an
 * antimark) is closed by its feature's mark leave. */
static __always_inline bool kind_matches(const struct tframe *f, __u64 kind)
{
	return f->kind == kind || (kind == FSP_FRAME_MARK && (f->flags & TF_MUTED));
}

/* bpf_loop callback: visits frames top-down, stops at the first frame of the
 * same kind whose feature is the same pointer or the same name (and, when
 * matching instances, whose instance is the leave's). */
static long find_cb(__u64 n, void *data)
{
	struct leave_ctx *c = data;
	__u32 i = c->depth - 1 - (__u32)n;
	struct tframe *f;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (kind_matches(f, c->kind) && same_feature(f, c->feature, c->fhash) &&
	    (!c->match || f->instance == c->instance)) {
		c->found = i;
		return 1;
	}
	return 0;
}

/* bpf_loop callback: moves frame found+1+n down by one and rehashes it. */
static long shift_cb(__u64 n, void *data)
{
	struct leave_ctx *c = data;
	__u32 j = c->found + (__u32)n;
	struct tframe *dst;

	if (j + 1 >= FSP_MAX_DEPTH)
		return 1;
	dst = &c->st->f[slot(j)];
	*dst = c->st->f[slot(j + 1)];
	dst->hash = frame_hash(j ? c->st->f[slot(j - 1)].hash : 0, dst);
	return 0;
}

static __always_inline int do_leave(struct pt_regs *ctx, __u64 kind, __u64 feature, __u64 instance,
				    bool match)
{
	/* First: the leave's own bookkeeping is not part of the duration. */
	__u64 now = events_enabled ? bpf_ktime_get_ns() : 0;
	struct leave_ctx c = {
		.kind = kind, .feature = feature, .instance = instance, .match = match};
	struct tstack *st;
	__u32 d;

	stat_inc(FSP_STAT_PROBE_HITS);
	st = tstack_get(false);
	if (!st) {
		stat_inc(FSP_STAT_UNMATCHED_LEAVES);
		return 0;
	}
	prune(st, PT_REGS_SP(ctx));
	if (st->overflow) {
		st->overflow--;
		return 0;
	}
	d = st->depth;
	if (d > FSP_MAX_DEPTH)
		return 0;
	/* Fast path: the top frame, same pointer. */
	if (d && st->f[slot(d - 1)].feature == feature && kind_matches(&st->f[slot(d - 1)], kind) &&
	    (!match || st->f[slot(d - 1)].instance == instance)) {
		if (events_enabled)
			frame_left(st, d - 1, now);
		st->depth = d - 1;
		return 0;
	}
	c.st = st;
	c.depth = d;
	c.found = d;
	c.fhash = label_hash_cached(st, feature);
	bpf_loop(d, find_cb, &c, 0);
	if (c.found >= d) {
		stat_inc(FSP_STAT_UNMATCHED_LEAVES);
		return 0;
	}
	if (events_enabled)
		frame_left(st, c.found, now);
	if (match) {
		/* A leave matched by instance closes what was entered after its
		 * frame too: a callee cannot outlive its caller, so frames above
		 * missed their leave (an error path, a generator's yield). */
		stat_add(FSP_STAT_STALE_MARKS, d - 1 - c.found);
		st->depth = c.found;
		return 0;
	}
	/* Keep the frames above it: independent features may leave out of order. */
	bpf_loop(d - 1 - c.found, shift_cb, &c, 0);
	st->depth = d - 1;
	return 0;
}

/* ---- copy and store ------------------------------------------------------ */

/* on_fork's copy of the forking thread's frames to the child (bpf_loop). */
struct copy_ctx {
	struct tstack *dst;
	const struct tstack *src;
};

static long copy_cb(__u64 i, void *data)
{
	struct copy_ctx *c = data;

	if (i >= c->src->depth)
		return 1;
	c->dst->f[slot(i)] = c->src->f[slot(i)];
	/* Its enter was counted for the parent: the child's leave is not. */
	c->dst->f[slot(i)].slot = SLOT_NONE;
	return 0;
}

/* Stores the frames of a live stack the first time it is sampled (or seen
 * switched out); user is the caller's scratch buffer. */
static __always_inline bool store_stack(const struct tstack *st, __u32 depth,
					const struct fsp_stack_key *key, __u32 user)
{
	struct fsp_stack *s;
	__u32 i;

	if (bpf_map_lookup_elem(&stacks, key))
		return true;
	s = scratch_get(user);
	if (!s)
		return false;
	s->depth = depth;
	for (i = 0; i < FSP_MAX_DEPTH; i++) {
		if (i >= depth)
			break;
		s->frames[i].feature = st->f[i].feature;
		s->frames[i].instance = st->f[i].instance;
		s->frames[i].payload = st->f[i].payload;
		s->frames[i].kind = st->f[i].kind;
	}
	if (bpf_map_update_elem(&stacks, key, s, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stacks, key) != NULL;
	return true;
}

#endif /* FSP_MARKSTACK_BPF_H */
