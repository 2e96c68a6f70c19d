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
#include "framelive.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "labels.bpf.h"
#include "eventview.bpf.h"

/* ---- liveness ------------------------------------------------------------ */

/*
 * The current thread's stack bounds for fsp_frame_dead() (framelive.h). The
 * alternate signal stack is the task's; a handler installed with
 * SS_AUTODISARM runs with the task's cleared, so the last ones a probe of the
 * thread saw (st) stand in for them.
 */
static __always_inline void cur_bounds(const struct tstack *st, struct fsp_stack_bounds *b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 alt_sp = task->sas_ss_sp, alt_size = task->sas_ss_size;

	/* Keeps the compiler from merging the task's and st's loads into one
	 * instruction on two kinds of pointer, which the verifier rejects. */
	barrier_var(alt_size);
	if (!alt_size && st) {
		alt_sp = st->alt_sp;
		alt_size = st->alt_size;
	}
	b->alt_sp = alt_sp;
	b->alt_size = alt_size;
	b->window = stack_window;
}

struct live_ctx {
	const struct tstack *st;
	__u64 sp;
	struct fsp_stack_bounds b;
	__u32 depth;
};

static long live_cb(__u64 n, void *data)
{
	struct live_ctx *c = data;
	__u32 d = c->depth;

	if (d == 0 || d > FSP_MAX_DEPTH || !fsp_frame_dead(c->st->f[slot(d - 1)].sp, c->sp, &c->b))
		return 1;
	c->depth = d - 1;
	return 0;
}

/* Number of frames still live when the thread's stack pointer is sp. Dead
 * frames are always on top: a frame is pushed only after pruning. A global
 * function: the verifier checks it once, not again at every call of every
 * probe (checked inline, it was most of what the verifier did). */
__noinline __u32 live_depth(const struct tstack *st, __u64 sp)
{
	struct live_ctx c = {.st = st, .sp = sp};

	if (!st)
		return 0;
	c.depth = st->depth;
	cur_bounds(st, &c.b);
	if (c.depth && c.depth <= FSP_MAX_DEPTH &&
	    fsp_frame_dead(st->f[slot(c.depth - 1)].sp, sp, &c.b))
		bpf_loop(c.depth, live_cb, &c, 0);
	return c.depth;
}

struct shadow_ctx {
	const struct tstack *st;
	__u32 from;
	__u32 n; /* shadow frames among those visited */
};

static long shadow_cb(__u64 i, void *data)
{
	struct shadow_ctx *c = data;
	__u32 k = c->from + (__u32)i;

	if (k >= FSP_MAX_DEPTH)
		return 1;
	c->n += (c->st->f[slot(k)].flags & TF_UNSAMPLED) != 0;
	return 0;
}

/* Remembers the thread's alternate stack (see cur_bounds). */
static __always_inline void note_alt_stack(struct tstack *st)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 size = task->sas_ss_size;

	if (size) {
		st->alt_sp = task->sas_ss_sp;
		st->alt_size = size;
	}
}

/* Drops the frames whose stack frame is gone; called on every probe. Shadow
 * frames are not counted (their ABI v2 stack counts its own stale marks),
 * nor are a child's inherited ones. */
static __always_inline void prune(struct tstack *st, __u64 sp)
{
	struct fsp_stack_bounds b;
	__u32 d;

	note_alt_stack(st);
	d = live_depth(st, sp);
	if (d != st->depth) {
		struct shadow_ctx c = {.st = st, .from = d};

		bpf_loop(st->depth - d, shadow_cb, &c, 0);
		stat_add(FSP_STAT_STALE_MARKS, st->depth - d - c.n);
		st->depth = d;
	}
	cur_bounds(st, &b);
	if (st->overflow && fsp_frame_dead(st->overflow_sp, sp, &b)) {
		stat_inc(FSP_STAT_STALE_MARKS);
		st->overflow = 0;
	}
}

/* ---- marks entered before the attach ------------------------------------- */

/* Was the current thread running before its process's marks were armed
 * (attached_ns)? Then it may have had marks open that no probe saw entered:
 * attached in mid-feature, or a thread that passed an enter site between the
 * kernel's raising of its semaphore and its writing of the breakpoint. */
static __always_inline bool thread_predates_attach(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 at = attached_ns;

	return at && task->start_time < at;
}

/*
 * Is a leave at sp made at or above every probe of the thread seen since
 * (st->top_sp; NULL: no stack yet), or on another stack (a coroutine's, a
 * signal handler's: farther than the window)? A mark entered unseen, before
 * the attach, was entered in a function that has been running since, so its
 * leave is. Read before note_top moves top_sp.
 */
static __always_inline bool above_seen(const struct tstack *st, __u64 sp)
{
	return !st || sp >= st->top_sp || st->top_sp - sp >= stack_window;
}

/*
 * Is a leave that matched no frame, made above_seen (above), that of a mark
 * entered unseen before the attach? Not an error of the target: not counted
 * as unmatched. Any other leave that matches nothing (a thread started after
 * the attach, a launched command, below a mark operation seen) is. Asked
 * only of leaves that matched nothing: it reads the task.
 */
static __always_inline bool entered_unseen(bool above)
{
	return above && thread_predates_attach();
}

/* Remembers the highest stack pointer of the thread's probes (above_seen). */
static __always_inline void note_top(struct tstack *st, __u64 sp)
{
	if (sp > st->top_sp)
		st->top_sp = sp;
}

/* ---- enter and leave ----------------------------------------------------- */

/* The hash of a stack whose top frame is (feature, instance, kind) and whose
 * frames below hash to prev (0: none): the stack's identity, not its payloads
 * (they go with each sample, see struct fsp_payload_rec). Never 0. */
static __always_inline __u64 hash_frame(__u64 prev, __u64 feature, __u64 instance, __u64 kind)
{
	__u64 h = mix64(prev + feature);

	h = mix64(h + instance);
	h = mix64(h + kind);
	return h ? h : 1;
}

/* The hash of frames [0..f] of a thread's stack: shadow frames are not part of
 * what is sampled, so they keep the hash of the frames below. */
static __always_inline __u64 frame_hash(__u64 prev, const struct tframe *f)
{
	if (f->flags & TF_UNSAMPLED)
		return prev;
	return hash_frame(prev, f->feature, f->instance, f->kind);
}

/* Sets the hash and payload flag of frame i of f from the frame below it. */
static __always_inline void frame_link(struct tframe *f, __u32 i)
{
	struct tframe *t = &f[slot(i)];
	__u64 prev_hash = 0;
	__u32 prev_payload = 0;

	if (i) {
		prev_hash = f[slot(i - 1)].hash;
		prev_payload = f[slot(i - 1)].flags & TF_HAS_PAYLOAD;
	}
	t->hash = frame_hash(prev_hash, t);
	if (t->flags & TF_UNSAMPLED)
		t->payload = 0; /* the ABI v2 stack's frame has it, or not sampled */
	t->flags = (t->flags & ~TF_HAS_PAYLOAD) | (t->payload || prev_payload ? TF_HAS_PAYLOAD : 0);
	t->flags &= ~TF_HAS_SAMPLED;
	if ((i && (f[slot(i - 1)].flags & TF_HAS_SAMPLED)) ||
	    (!(t->flags & TF_UNSAMPLED) && (t->instance & FSP_ID_SAMPLED) == FSP_ID_SAMPLED))
		t->flags |= TF_HAS_SAMPLED;
}

static __always_inline struct tstack *tstack_get(bool create)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return bpf_task_storage_get(&tstacks, task, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Pushes a frame. ev_instance is the instance the event view counts the
 * enter under: instance itself, but for a "label sample" frame, whose
 * instance is read at each sample (FSP_ID_SAMPLED), the label at the enter. */
static __always_inline int do_enter(struct pt_regs *ctx, __u64 kind, __u64 feature, __u64 instance,
				    __u64 ev_instance, __u64 payload, __u64 sp_off, __u32 shadow)
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
	note_top(st, sp);
	if (events_enabled && kind == FSP_FRAME_MARK)
		id = count_enter(st, feature, ev_instance);
	d = st->depth;
	if (d >= max_depth || d >= FSP_MAX_DEPTH || st->overflow) {
		if (!st->overflow)
			st->overflow_sp = fsp;
		st->overflow++;
		if (!shadow)
			stat_inc(FSP_STAT_OVERFLOWS);
		return 0;
	}
	f = &st->f[slot(d)];
	f->feature = feature;
	f->instance = instance;
	f->payload = payload;
	f->kind = kind == KIND_MUTED ? FSP_FRAME_ANTIMARK : kind;
	f->flags = (kind == KIND_MUTED ? TF_MUTED : 0) | (shadow ? TF_SHADOW : 0);
	f->sp = fsp;
	/* A shadow's call number is the ABI v2 frame's (what the samples
	 * see): looked up at its leave, for a call long enough to send. */
	f->call = shadow ? 0 : ++st->calls;
	f->fhash = label_hash_cached(st, feature);
	if (instance)
		label_hash_cached(st, instance);
	frame_link(st->f, d);
	if (events_enabled) {
		f->slot = id;
		f->anti_ns = 0;
		/* Last: the enter's own bookkeeping is not part of the duration. */
		f->t_enter = bpf_ktime_get_ns();
	}
	/* The sampler runs nested in probe programs: the frame is complete
	 * before it is published. */
	asm volatile("" ::: "memory");
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
	__u32 shadow; /* a shadow leave matches shadow frames, others the others */
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

/* An ABI v1 site of an ABI v2 file (--events): see TF_SHADOW. */
static __always_inline __u32 is_shadow(const struct tframe *f)
{
	return (f->flags & TF_SHADOW) != 0;
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
	if (kind_matches(f, c->kind) && is_shadow(f) == c->shadow &&
	    same_feature(f, c->feature, c->fhash) && (!c->match || f->instance == c->instance)) {
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
	frame_link(c->st->f, j);
	return 0;
}

static __always_inline int do_leave(struct pt_regs *ctx, __u64 kind, __u64 feature, __u64 instance,
				    bool match, __u32 shadow)
{
	/* First: the leave's own bookkeeping is not part of the duration. */
	__u64 now = events_enabled ? bpf_ktime_get_ns() : 0;
	struct leave_ctx c = {.kind = kind,
			      .feature = feature,
			      .instance = instance,
			      .match = match,
			      .shadow = shadow};
	__u64 sp = PT_REGS_SP(ctx);
	struct tstack *st;
	const struct tframe *top;
	bool above;
	__u32 d;

	stat_inc(FSP_STAT_PROBE_HITS);
	st = tstack_get(false);
	if (!st) {
		if (!shadow && !entered_unseen(true))
			stat_inc(FSP_STAT_UNMATCHED_LEAVES);
		return 0;
	}
	prune(st, sp);
	above = above_seen(st, sp);
	note_top(st, sp);
	if (st->overflow) {
		st->overflow--;
		return 0;
	}
	d = st->depth;
	if (d > FSP_MAX_DEPTH)
		return 0;
	/* Fast path: the top frame, same pointer. */
	top = &st->f[slot(d - 1)];
	if (d && top->feature == feature && kind_matches(top, kind) && is_shadow(top) == shadow &&
	    (!match || top->instance == instance)) {
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
		if (!shadow && !entered_unseen(above))
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
	/* Keep the frames above it: independent features may leave out of order.
	 * They are unpublished while they move down, so that a sample nested in
	 * this program never sees a frame twice or half-moved. */
	st->depth = c.found;
	asm volatile("" ::: "memory");
	bpf_loop(d - 1 - c.found, shift_cb, &c, 0);
	asm volatile("" ::: "memory");
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
	/* The parent's feature, not the child's (unless --inherit-marks). */
	if (!inherit_marks) {
		c->dst->f[slot(i)].flags |= TF_INHERITED;
		frame_link(c->dst->f, i);
	}
	return 0;
}

struct store_ctx {
	struct fsp_stack *s;
	const struct tstack *st;
	__u32 n;
};

/* bpf_loop callback: copies frame i of the live stack, unless a shadow, into
 * the stored one (its payload is sent per sample: send_payloads()). */
static long store_cb(__u64 i, void *data)
{
	struct store_ctx *c = data;
	const struct tframe *f;
	struct fsp_frame *o;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (f->flags & TF_UNSAMPLED)
		return 0;
	o = &c->s->frames[slot(c->n)];
	o->feature = f->feature;
	o->instance = f->instance;
	o->payload = 0;
	o->kind = f->kind;
	c->n++;
	return 0;
}

/* Stores the frames of a live stack (but its shadow frames) the first time it
 * is sampled (or seen switched out); user is the caller's scratch buffer. */
static __always_inline bool store_stack(const struct tstack *st, __u32 depth,
					const struct fsp_stack_key *key, __u32 user)
{
	struct store_ctx c = {.st = st, .n = unknown_zero()};
	struct fsp_stack *s;

	if (bpf_map_lookup_elem(&stacks, key))
		return true;
	s = scratch_get(user);
	if (!s)
		return false;
	c.s = s;
	/* A callback, not an unrolled loop: the sampler's other branches
	 * (payloads, charges) times 64 copies exceeded the verifier's budget. */
	bpf_loop(depth < FSP_MAX_DEPTH ? depth : FSP_MAX_DEPTH, store_cb, &c, 0);
	s->depth = c.n;
	if (bpf_map_update_elem(&stacks, key, s, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stacks, key) != NULL;
	return true;
}

#endif /* FSP_MARKSTACK_BPF_H */
