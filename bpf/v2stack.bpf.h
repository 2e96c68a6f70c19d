/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ABI v2 mark stacks (usdt/fsp.h): the records of a process, a thread's stack
 * in each read from its memory, and the live mark stack a sample or a
 * switch-out charges: the live frames of every such stack and of the thread's
 * ABI v1 stack (task storage), merged by stack pointer.
 *
 * Why merging by stack pointer is exact: every stack holds frames in the order
 * they were pushed, and a frame's stack pointer is that of the function that
 * entered it. An outer function's frame has a higher stack pointer than an
 * inner one's, whatever library the function is in; the frames of one
 * function all come from one library (one stack), where their order is kept.
 * The merge takes, at each step, the head frame with the highest stack
 * pointer among the stacks (ties: the lower stack index first), so it also
 * keeps each stack's own order when a signal handler or a coroutine broke the
 * monotony within that stack.
 *
 * The sampler's cost: a thread's task storage (struct tstack, looked up for
 * its ABI v1 stack anyway) caches its process's records and where its stacks
 * are, so that a sample reads each stack with one bounded read and no map
 * lookup; the merge runs only when two stacks have live frames.
 */
#ifndef FSP_V2STACK_BPF_H
#define FSP_V2STACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "markstack.bpf.h"
#include "labels.bpf.h"

/* Frames read with a stack's header; deeper stacks take a second read. */
#define V2_FIRST_FRAMES 4
#define V2_FIRST_READ (FSP_V2_HEADER + V2_FIRST_FRAMES * sizeof(struct v2_frame))
/* The ABI v1 stack's place among the merged sources. */
#define V1_SOURCE FSP_V2_MAX_DSOS
/* live_stack.src: where a live stack's frames are. */
#define SRC_V1 0x100 /* the ABI v1 stack, [0, depth) */
#define SRC_MERGED 0x101 /* the merged frames */

/* ---- registration ---------------------------------------------------------- */

/* Registers process tgid's record at `record` (TLS pointer at tp_offset from
 * the thread pointer, gen as read from the record); an update if known. */
static __always_inline void v2_register(__u32 tgid, __u64 record, __s64 tp_offset, __u32 gen)
{
	struct fsp_v2_proc fresh = {}, *p;
	__u32 i, n;

	p = bpf_map_lookup_elem(&v2_procs, &tgid);
	if (!p) {
		bpf_map_update_elem(&v2_procs, &tgid, &fresh, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&v2_procs, &tgid);
		if (!p) {
			stat_inc(FSP_STAT_V2_DSO_DROPS);
			return;
		}
	}
	n = p->nr;
	for (i = 0; i < FSP_V2_MAX_DSOS; i++) {
		if (i >= n)
			break;
		if (p->dso[i].record == record) {
			p->dso[i].tp_offset = tp_offset;
			p->dso[i].gen = gen;
			__sync_fetch_and_add(&v2_epoch, 1);
			return;
		}
	}
	if (n >= FSP_V2_MAX_DSOS) {
		stat_inc(FSP_STAT_V2_DSO_DROPS);
		return;
	}
	p->dso[n].record = record;
	p->dso[n].tp_offset = tp_offset;
	p->dso[n].gen = gen;
	/* The entry is complete before a sampler may read it (x86 keeps the
	 * order of stores; the compiler must too). */
	asm volatile("" ::: "memory");
	p->nr = n + 1;
	__sync_fetch_and_add(&v2_epoch, 1);
}

/* The thread's copy of its process's records, refreshed if v2_procs moved. */
static __always_inline struct v2_cache *v2_cache_get(struct tstack *st, __u32 tgid)
{
	__u64 epoch = v2_epoch;
	const struct fsp_v2_proc *p;

	if (st->v2.epoch == epoch)
		return &st->v2;
	p = bpf_map_lookup_elem(&v2_procs, &tgid);
	st->v2.nr = 0;
	if (p) {
		st->v2.nr = p->nr < FSP_V2_MAX_DSOS ? p->nr : FSP_V2_MAX_DSOS;
		for (int i = 0; i < FSP_V2_MAX_DSOS; i++) {
			st->v2.dso[i] = p->dso[i];
			st->v2.stack[i] = 0;
		}
	}
	st->v2.epoch = epoch;
	return &st->v2;
}

/*
 * The thread's task storage with its ABI v2 cache. Threads of processes with
 * ABI v2 records get one at their first sample (as at their first ABI v1
 * mark); for the others, NULL when they have no ABI v1 stack either.
 */
static __always_inline struct tstack *v2_thread(struct task_struct *task, struct tstack *st)
{
	__u32 tgid = task->tgid;
	const struct fsp_v2_proc *p;

	if (st)
		return st;
	p = bpf_map_lookup_elem(&v2_procs, &tgid);
	if (!p || !p->nr)
		return NULL;
	return bpf_task_storage_get(&tstacks, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* ---- reading a thread's stacks ------------------------------------------------ */

struct v2_live_ctx {
	const struct v2_stack *st;
	__u64 sp;
	const struct fsp_stack_bounds *b;
	__u32 depth;
};

static long v2_live_cb(__u64 n, void *data)
{
	struct v2_live_ctx *c = data;
	__u32 d = c->depth;

	if (d == 0 || d > FSP_V2_DEPTH ||
	    !fsp_frame_dead(c->st->f[slot(d - 1)].sp_kind & ~7ULL, c->sp, c->b))
		return 1;
	c->depth = d - 1;
	return 0;
}

/*
 * Live frames of a stack read into st, given its published depth d: the dead
 * ones are on top (each push prunes first). The same rule as live_depth()
 * (framelive.h), with the thread's stack bounds b. A global function: the
 * verifier checks it once, not again for every stack its callers read.
 */
__noinline __u32 v2_live_depth(const struct v2_stack *st, __u32 d, __u64 sp,
			       const struct fsp_stack_bounds *b)
{
	struct v2_live_ctx c = {.st = st, .sp = sp, .b = b, .depth = d};

	if (!st || !b)
		return 0;
	if (d && d <= FSP_V2_DEPTH && fsp_frame_dead(st->f[slot(d - 1)].sp_kind & ~7ULL, sp, b))
		bpf_loop(d, v2_live_cb, &c, 0);
	return c.depth;
}

/* Reads the stack at ptr into dst; its published depth, or -1 if unreadable. */
static __always_inline int v2_read_stack(struct v2_stack *dst, __u64 ptr)
{
	__u64 d, size;

	if (bpf_probe_read_user(dst, V2_FIRST_READ, (void *)ptr))
		return -1;
	d = dst->depth;
	if (dst->magic != FSP_V2_STACK_MAGIC || d > FSP_V2_DEPTH)
		return -1;
	if (d <= V2_FIRST_FRAMES)
		return d;
	size = (d - V2_FIRST_FRAMES) * sizeof(struct v2_frame);
	if (size > sizeof(dst->f) - V2_FIRST_FRAMES * sizeof(struct v2_frame))
		return -1;
	if (bpf_probe_read_user(&dst->f[V2_FIRST_FRAMES], size, (void *)(ptr + V2_FIRST_READ)))
		return -1;
	return d;
}

/* The stack's non-zero counters, for userspace's diagnostics. */
static __always_inline void v2_note_counters(const struct v2_stack *st, __u64 tgid, __u64 ptr)
{
	struct fsp_v2_key key = {.tgid = tgid, .addr = ptr};
	struct fsp_v2_counters c = {
		.stale = st->stale,
		.overflows = st->overflows,
		.unmatched = st->unmatched,
		.skipped = st->skipped,
	};

	if (c.stale | c.overflows | c.unmatched | c.skipped)
		bpf_map_update_elem(&v2_counts, &key, &c, BPF_ANY);
}

/* ---- unwinding ------------------------------------------------------------------- */

struct v2_unwind_ctx {
	struct v2_stack *buf;
	struct v2_unwinds *uw;
	const struct v2_cache *cache;
	__u64 fsbase;
	__u64 sp;
	struct fsp_stack_bounds b;
	bool recorded;
};

/* bpf_loop callback: records the frames of the thread's stack of registered
 * DSO i that died at the unwinding (those on top whose stack pointer is below
 * the one the thread resumes at). */
static long v2_unwind_cb(__u64 i, void *data)
{
	struct v2_unwind_ctx *c = data;
	struct v2_stack *st = c->buf;
	const struct fsp_v2_dso *dso;
	struct v2_unwind *u;
	__u64 ptr = 0;
	__u32 live, n;
	int d;

	if (i >= FSP_V2_MAX_DSOS)
		return 1;
	dso = &c->cache->dso[i];
	if (bpf_probe_read_user(&ptr, sizeof(ptr), (void *)(c->fsbase + dso->tp_offset)) || !ptr)
		return 0;
	d = v2_read_stack(st, ptr);
	if (d < 0 || st->gen != dso->gen)
		return 0;
	live = v2_live_depth(st, d, c->sp, &c->b);
	if (live >= (__u32)d)
		return 0; /* nothing died: an earlier record stays */
	u = &c->uw->u[i];
	n = (__u32)d - live;
	u->stack = ptr;
	u->stale = st->stale;
	u->gen = st->gen;
	u->from = live;
	u->n = n < UNWIND_FRAMES ? n : UNWIND_FRAMES;
	for (int k = 0; k < UNWIND_FRAMES; k++) {
		if (k >= u->n)
			break;
		u->f[k] = st->f[slot(live + k)];
	}
	c->recorded = true;
	return 0;
}

/*
 * The current thread resumes at stack pointer sp (a longjmp, a C++ catch):
 * records, for each of its ABI v2 stacks, the frames of the functions that
 * were unwound, so that the sampler ignores them until the header drops them
 * (rewriting the stack from BPF is not possible under kernel lockdown).
 */
static __always_inline void v2_unwind(struct task_struct *task, __u64 sp)
{
	struct tstack *st = v2_thread(task, bpf_task_storage_get(&tstacks, task, NULL, 0));
	struct v2_unwind_ctx c = {.sp = sp};
	__u32 key = MERGE_PROBE, nr;
	struct merge_buf *b;

	if (!st)
		return;
	c.cache = v2_cache_get(st, task->tgid);
	nr = c.cache->nr;
	if (!nr)
		return;
	b = bpf_map_lookup_elem(&merge_bufs, &key);
	c.uw = bpf_task_storage_get(&v2_unwinds, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!b || !c.uw)
		return;
	c.buf = &b->src[0];
	c.fsbase = task->thread.fsbase;
	cur_bounds(st, &c.b);
	bpf_loop(nr < FSP_V2_MAX_DSOS ? nr : FSP_V2_MAX_DSOS, v2_unwind_cb, &c, 0);
	if (c.recorded)
		st->v2.unwinds = 1;
}

static __always_inline bool same_v2_frame(const struct v2_frame *a, const struct v2_frame *b)
{
	return a->feature == b->feature && a->instance == b->instance && a->payload == b->payload &&
	       a->sp_kind == b->sp_kind;
}

struct drop_ctx {
	const struct v2_unwind *u;
	struct v2_stack *st;
	__u32 live;
	__u32 k; /* where the next live frame goes */
};

/* bpf_loop callback: frame u->from + j, kept (moved to k) unless recorded dead. */
static long drop_cb(__u64 j, void *data)
{
	struct drop_ctx *c = data;
	__u32 at = c->u->from + (__u32)j, r = (__u32)j;

	if (at >= c->live || at >= FSP_V2_DEPTH)
		return 1;
	if (r < c->u->n && r < UNWIND_FRAMES &&
	    same_v2_frame(&c->st->f[slot(at)], &c->u->f[r & (UNWIND_FRAMES - 1)]))
		return 0;
	c->st->f[slot(c->k)] = c->st->f[slot(at)];
	c->k++;
	return 0;
}

/*
 * Removes from st's live frames [0, live) those an unwinding left dead (u,
 * while valid): returns the live frames left, moved down over the dead ones.
 */
static __always_inline __u32 v2_drop_unwound(struct v2_unwind *u, struct v2_stack *st, __u64 ptr,
					     __u32 gen, __u32 live)
{
	struct drop_ctx c = {.u = u, .st = st, .live = live, .k = u->from};

	if (u->stack != ptr)
		return live;
	if (u->gen != gen || u->stale != st->stale) {
		u->stack = 0; /* the header has pruned since: obsolete */
		return live;
	}
	if (u->from >= live)
		return live;
	bpf_loop(live - u->from, drop_cb, &c, 0);
	return c.k;
}

/* ---- reading them all ------------------------------------------------------------- */

struct v2_read_ctx {
	struct merge_buf *buf;
	struct v2_cache *cache;
	struct v2_unwinds *uw; /* the thread's unwinding records, if any */
	__u64 fsbase; /* the thread pointer */
	__u64 sp; /* the thread's user stack pointer */
	struct fsp_stack_bounds b; /* its stack bounds (framelive.h) */
	__u64 tgid;
	__u32 tid;
	__u32 sources; /* stacks with live frames */
	__u32 last; /* the last of them */
	bool truncated;
	bool unreadable;
};

/* Where the thread's stack of DSO i is: the cached address if its header
 * says it is this thread's (the page may be another's after the thread's
 * exit), else the TLS pointer's value. Its published depth (0: none). */
static __always_inline int v2_find_stack(struct v2_read_ctx *c, __u32 i, struct v2_stack *dst,
					 __u64 *ptr)
{
	const struct fsp_v2_dso *dso = &c->cache->dso[i & (FSP_V2_MAX_DSOS - 1)];
	int d;

	*ptr = c->cache->stack[i & (FSP_V2_MAX_DSOS - 1)];
	if (*ptr) {
		d = v2_read_stack(dst, *ptr);
		if (d >= 0 && dst->tid == c->tid)
			return d;
	}
	if (bpf_probe_read_user(ptr, sizeof(*ptr), (void *)(c->fsbase + dso->tp_offset)))
		return -1;
	c->cache->stack[i & (FSP_V2_MAX_DSOS - 1)] = *ptr;
	/* No stack: the thread made no mark in this DSO. A stack whose tid is
	 * another's was inherited across fork: the pointer says it is ours. */
	return *ptr ? v2_read_stack(dst, *ptr) : 0;
}

/* Reads the thread's stack of registered DSO i into buf->src[i]. */
static __always_inline void v2_read_one(struct v2_read_ctx *c, __u32 i)
{
	const struct fsp_v2_dso *dso;
	struct v2_stack *dst;
	__u64 ptr = 0;
	__u32 live;
	int d;

	if (i >= FSP_V2_MAX_DSOS)
		return;
	dso = &c->cache->dso[i];
	dst = &c->buf->src[i];
	c->buf->depth[i] = 0;
	c->buf->head[i] = 0;
	d = v2_find_stack(c, i, dst, &ptr);
	if (d < 0) {
		c->unreadable = true;
		return;
	}
	if (!d || dst->gen != dso->gen)
		return; /* empty, or left over from an earlier session */
	v2_note_counters(dst, c->tgid, ptr);
	live = v2_live_depth(dst, d, c->sp, &c->b);
	if (dst->overflow && live == (__u32)d)
		c->truncated = true;
	if (c->uw)
		live = v2_drop_unwound(&c->uw->u[i], dst, ptr, dso->gen, live);
	c->buf->depth[i] = live;
	if (live) {
		c->sources++;
		c->last = i;
	}
}

/* bpf_loop callback: the stacks of the DSOs after the first. */
static long v2_read_cb(__u64 i, void *data)
{
	v2_read_one(data, (__u32)i + 1);
	return 0;
}

/* ---- the ABI v1 stack as a source ------------------------------------------------- */

struct v1_copy_ctx {
	const struct tstack *st;
	struct v2_stack *dst;
	__u32 n;
};

/* bpf_loop callback: frame i of the v1 stack, unless a shadow, into dst. */
static long v1_copy_cb(__u64 i, void *data)
{
	struct v1_copy_ctx *c = data;
	const struct tframe *f;
	struct v2_frame *o;

	if (i >= FSP_MAX_DEPTH || c->n >= FSP_V2_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (f->flags & TF_SHADOW)
		return 0;
	o = &c->dst->f[slot(c->n)];
	o->feature = f->feature;
	o->instance = f->instance;
	o->payload = f->payload;
	o->sp_kind = (f->sp & ~7ULL) | (f->kind == FSP_FRAME_ANTIMARK);
	c->n++;
	return 0;
}

/* ---- one source, or the merge ------------------------------------------------------------ */

static __always_inline __u64 v2_kind(const struct v2_frame *f)
{
	return f->sp_kind & 1 ? FSP_FRAME_ANTIMARK : FSP_FRAME_MARK;
}

struct frames_ctx {
	const struct v2_stack *src;
	struct fsp_stack *out; /* NULL: hash only */
	__u64 hash;
	__u64 payloads; /* non-zero: a frame has a payload */
};

/* bpf_loop callback: frame i of one source, hashed (and copied to out). */
static long frames_cb(__u64 i, void *data)
{
	struct frames_ctx *c = data;
	const struct v2_frame *f;

	if (i >= FSP_V2_DEPTH)
		return 1;
	f = &c->src->f[slot(i)];
	c->hash = hash_frame(c->hash, f->feature, f->instance, v2_kind(f));
	c->payloads |= f->payload;
	if (c->out) {
		c->out->frames[slot(i)].feature = f->feature;
		c->out->frames[slot(i)].instance = f->instance;
		c->out->frames[slot(i)].payload = 0; /* sent per sample */
		c->out->frames[slot(i)].kind = v2_kind(f);
	}
	return 0;
}

/* The hash of one source's frames [0, d): shallow stacks without a loop.
 * *payloads: non-zero when one of them has a payload. */
static __always_inline __u64 v2_hash(const struct v2_stack *src, __u32 d, __u64 *payloads)
{
	struct frames_ctx c = {.src = src};
	__u64 h = 0, p = 0;

	if (d > V2_FIRST_FRAMES) {
		bpf_loop(d, frames_cb, &c, 0);
		*payloads = c.payloads;
		return c.hash;
	}
	for (int i = 0; i < V2_FIRST_FRAMES; i++) {
		const struct v2_frame *f = &src->f[i];

		if (i >= (int)d)
			break;
		h = hash_frame(h, f->feature, f->instance, v2_kind(f));
		p |= f->payload;
	}
	*payloads = p;
	return h;
}

struct merge_ctx {
	struct merge_buf *buf;
	struct fsp_stack *out;
	__u64 hash;
	__u64 payloads; /* non-zero: a frame has a payload */
	__u32 n;
	bool truncated;
};

/* bpf_loop callback: output frame i, the head with the highest stack pointer. */
static long merge_cb(__u64 i, void *data)
{
	struct merge_ctx *c = data;
	struct merge_buf *b = c->buf;
	const struct v2_frame *f;
	struct fsp_frame *o;
	__u32 s, best = MERGE_SOURCES, h;
	__u64 best_sp = 0, fsp;

	for (s = 0; s < MERGE_SOURCES; s++) {
		h = b->head[s];
		if (h >= b->depth[s] || h >= FSP_V2_DEPTH)
			continue;
		fsp = b->src[s].f[h].sp_kind & ~7ULL;
		if (best == MERGE_SOURCES || fsp > best_sp) {
			best = s;
			best_sp = fsp;
		}
	}
	if (best >= MERGE_SOURCES)
		return 1;
	if (i >= max_depth || i >= FSP_MAX_DEPTH) {
		c->truncated = true;
		return 1;
	}
	h = b->head[best];
	if (h >= FSP_V2_DEPTH)
		return 1;
	f = &b->src[best].f[h];
	o = &c->out->frames[slot(i)];
	o->feature = f->feature;
	o->instance = f->instance;
	o->payload = 0; /* sent per sample, from b->payload */
	o->kind = v2_kind(f);
	b->payload[slot(i)] = f->payload;
	c->payloads |= f->payload;
	c->hash = hash_frame(c->hash, o->feature, o->instance, o->kind);
	b->head[best] = h + 1;
	c->n = i + 1;
	return 0;
}

/* ---- the live stack of a thread ---------------------------------------------------- */

struct live_stack {
	struct tstack *st; /* its ABI v1 stack and v2 cache, or NULL */
	struct merge_buf *buf; /* the v2 stacks read */
	struct fsp_stack *merged; /* the merged frames (src SRC_MERGED) */
	__u64 hash; /* 0: no live frame */
	__u32 depth;
	__u32 src; /* SRC_V1, SRC_MERGED or the one v2 stack with live frames */
	bool truncated; /* a stack had overflowed, or they exceed max_depth */
	bool payload; /* a live frame has a payload (live_stack_send_payloads) */
};

/* The stacks of every source, merged into scratch[user]. */
static __always_inline void v2_merge_all(struct v2_read_ctx *rc, const struct tstack *st, __u32 d1,
					 __u32 user, struct live_stack *ls)
{
	struct v1_copy_ctx cc = {.st = st};
	struct merge_ctx mc = {.buf = rc->buf, .out = scratch_get(user)};

	if (!mc.out)
		return;
	rc->buf->depth[V1_SOURCE] = 0;
	rc->buf->head[V1_SOURCE] = 0;
	if (st && d1) {
		cc.dst = &rc->buf->src[V1_SOURCE];
		bpf_loop(d1, v1_copy_cb, &cc, 0);
		rc->buf->depth[V1_SOURCE] = cc.n;
	}
	bpf_loop(FSP_MAX_DEPTH + 1, merge_cb, &mc, 0);
	mc.out->depth = mc.n;
	ls->merged = mc.out;
	ls->src = SRC_MERGED;
	ls->depth = mc.n;
	ls->hash = mc.hash;
	ls->payload = mc.payloads != 0;
	ls->truncated |= mc.truncated;
}

/*
 * Reads the thread's ABI v2 stacks (the process's records in st's cache) and
 * makes ls the live stack of them and of the live ABI v1 frames (st's [0,
 * d1)): the v1 stack alone or one v2 stack alone as it is, else the merge.
 */
static __always_inline void v2_live(struct task_struct *task, __u64 sp, __u32 user,
				    struct tstack *st, __u32 d1, struct live_stack *ls)
{
	__u32 key = user == SCRATCH_SWITCH ? MERGE_SWITCH : MERGE_SAMPLE;
	struct v2_read_ctx rc = {.sp = sp, .tgid = task->tgid, .tid = task->pid};
	__u64 payloads = 0;
	__u32 nr, d;

	rc.cache = v2_cache_get(st, task->tgid);
	nr = rc.cache->nr;
	if (!nr)
		return;
	rc.buf = bpf_map_lookup_elem(&merge_bufs, &key);
	if (!rc.buf)
		return;
	rc.fsbase = task->thread.fsbase; /* a trusted pointer: a plain load */
	cur_bounds(st, &rc.b);
	if (st->v2.unwinds)
		rc.uw = bpf_task_storage_get(&v2_unwinds, task, NULL, 0);
	v2_read_one(&rc, 0);
	if (nr > 1)
		bpf_loop((nr < FSP_V2_MAX_DSOS ? nr : FSP_V2_MAX_DSOS) - 1, v2_read_cb, &rc, 0);
	if (rc.unreadable)
		stat_inc(FSP_STAT_V2_UNREADABLE);
	ls->buf = rc.buf;
	ls->truncated |= rc.truncated;
	if (!rc.sources)
		return; /* the v1 stack alone */
	if (rc.sources == 1 && !ls->hash && rc.last < FSP_V2_MAX_DSOS) {
		d = rc.buf->depth[rc.last];
		if (d > max_depth) {
			d = max_depth;
			ls->truncated = true;
		}
		ls->src = rc.last;
		ls->depth = d;
		ls->hash = v2_hash(&rc.buf->src[rc.last], d, &payloads);
		ls->payload = payloads != 0;
		return;
	}
	v2_merge_all(&rc, st, d1, user, ls);
}

/*
 * The live mark stack of task (the current task: its memory is readable) whose
 * user stack pointer is sp: its hash (0: no live frame) and whether it is
 * truncated. The sampler and the scheduler hook (--off-cpu) both charge this.
 * A process without ABI v2 records takes the ABI v1 stack's own hash.
 */
static __always_inline void live_stack_get(struct task_struct *task, __u64 sp, __u32 user,
					   struct live_stack *ls)
{
	struct tstack *st = bpf_task_storage_get(&tstacks, task, NULL, 0);
	__u32 d = 0;

	ls->merged = NULL;
	ls->buf = NULL;
	ls->hash = 0;
	ls->src = SRC_V1;
	ls->truncated = false;
	ls->payload = false;
	if (st && (st->depth || st->overflow)) {
		d = live_depth(st, sp);
		ls->truncated = st->overflow && d == st->depth;
		if (d && d <= FSP_MAX_DEPTH) {
			ls->hash = st->f[slot(d - 1)].hash; /* shadows excluded */
			ls->payload = st->f[slot(d - 1)].flags & TF_HAS_PAYLOAD;
		}
	}
	ls->depth = d;
	/* An exiting thread whose memory is gone (exit_mm) has no stacks left
	 * to read: not an error. */
	st = task->mm ? v2_thread(task, st) : st;
	ls->st = st;
	if (st && task->mm)
		v2_live(task, sp, user, st, d, ls);
}

/* Copies one v2 source's frames [0, depth) into scratch[user]. */
static __always_inline struct fsp_stack *v2_frames_out(const struct live_stack *ls, __u32 user)
{
	struct frames_ctx c = {.out = scratch_get(user)};

	if (!c.out || !ls->buf || ls->src >= FSP_V2_MAX_DSOS)
		return NULL;
	c.src = &ls->buf->src[ls->src];
	bpf_loop(ls->depth < FSP_V2_DEPTH ? ls->depth : FSP_V2_DEPTH, frames_cb, &c, 0);
	c.out->depth = ls->depth;
	return c.out;
}

struct labels_ctx {
	const struct fsp_stack *s;
	__u32 tgid;
	__u32 user;
};

/* bpf_loop callback: the labels of frame i, copied if new. */
static long labels_cb(__u64 i, void *data)
{
	struct labels_ctx *c = data;
	const struct fsp_frame *f;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->s->frames[slot(i)];
	if (f->feature)
		label_hash(c->tgid, f->feature, c->user);
	if (f->instance)
		label_hash(c->tgid, f->instance, c->user);
	return 0;
}

/*
 * Copies the labels of a newly stored stack's frames into the labels map, as
 * ABI v1's enter does (the labels of its ABI v1 frames are there already):
 * ABI v2 marks never trap, and a label built at run time (a formatted
 * instance) is gone from the target's memory by the end of the session.
 * Once per distinct stack. A global function: checked once on its own.
 */
__noinline int v2_copy_labels(const struct fsp_stack *s, __u32 tgid, __u32 user)
{
	struct labels_ctx c = {.s = s, .tgid = tgid};

	if (!s)
		return -1;
	c.user = user == SCRATCH_SWITCH ? SCRATCH_LABEL_SWITCH : SCRATCH_LABEL_SAMPLE;
	bpf_loop(s->depth < FSP_MAX_DEPTH ? s->depth : FSP_MAX_DEPTH, labels_cb, &c, 0);
	return 0;
}

/* Stores the frames of a live stack (not yet stored) in the stacks map. */
static __always_inline bool live_stack_put(const struct live_stack *ls,
					   const struct fsp_stack_key *key, __u32 user)
{
	const struct fsp_stack *s = ls->merged;

	if (ls->src == SRC_V1)
		return ls->st && store_stack(ls->st, ls->depth, key, user);
	if (bpf_map_lookup_elem(&stacks, key))
		return true;
	if (ls->src != SRC_MERGED)
		s = v2_frames_out(ls, user);
	if (!s)
		return false;
	if (bpf_map_update_elem(&stacks, key, s, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stacks, key) != NULL;
	v2_copy_labels(s, key->tgid, user);
	return true;
}

/* Stores a live stack's frames the first time its hash is seen. The thread
 * remembers the last two it stored: a session never drops a stored stack,
 * and a thread mostly samples the same few stacks, so most samples skip the
 * map lookup. */
static __always_inline bool live_stack_store(const struct live_stack *ls,
					     const struct fsp_stack_key *key, __u32 user)
{
	struct tstack *st = ls->st;

	if (st && (st->stored[0] == key->hash || st->stored[1] == key->hash))
		return true;
	if (!live_stack_put(ls, key, user))
		return false;
	if (st) {
		st->stored[1] = st->stored[0];
		st->stored[0] = key->hash;
	}
	return true;
}

/* ---- payloads ------------------------------------------------------------------------ */

_Static_assert(sizeof(union scratch) >= 24 + 127 * 8,
	       "live_stack_send_payloads() may write 127 payloads to its scratch buffer");

struct payload_ctx {
	const struct live_stack *ls;
	struct fsp_payload_rec *r;
	__u32 n;
};

/* bpf_loop callback: the payload of the live stack's frame i, in the order
 * of its stored frames (the ABI v1 stack's shadow frames are not stored). */
static long payload_cb(__u64 i, void *data)
{
	struct payload_ctx *c = data;
	const struct live_stack *ls = c->ls;
	__u64 v;

	if (i >= FSP_MAX_DEPTH || c->n >= FSP_MAX_DEPTH)
		return 1;
	if (ls->src == SRC_V1) {
		const struct tframe *f;

		if (!ls->st)
			return 1;
		f = &ls->st->f[slot(i)];
		if (f->flags & TF_SHADOW)
			return 0;
		v = f->payload;
	} else if (!ls->buf) {
		return 1;
	} else if (ls->src == SRC_MERGED) {
		v = ls->buf->payload[slot(i)];
	} else {
		v = ls->buf->src[ls->src & (FSP_V2_MAX_DSOS - 1)].f[slot(i)].payload;
	}
	c->r->payload[slot(c->n)] = v;
	c->n++;
	return 0;
}

/*
 * Sends the payloads of the live stack (whose hash is hash) to userspace.
 * Wakes it only when the ring is half full: it also reads it every second.
 * Returns false when the ring is full (the record is lost).
 */
static __always_inline bool live_stack_send_payloads(const struct live_stack *ls, __u32 tgid,
						     __u32 tid, __u64 hash)
{
	struct payload_ctx c = {.ls = ls, .r = scratch_get(SCRATCH_PAYLOAD)};
	__u64 size, flags = BPF_RB_NO_WAKEUP;

	if (!c.r || ls->depth > FSP_MAX_DEPTH || (ls->src == SRC_V1 && !ls->st) ||
	    (ls->src != SRC_V1 && !ls->buf))
		return false;
	c.r->tgid = tgid;
	c.r->tid = tid;
	c.r->hash = hash;
	bpf_loop(ls->depth, payload_cb, &c, 0);
	c.r->depth = c.n;
	size = c.n;
	/* Bounded for the verifier (depth <= 64, and the scratch buffer is
	 * larger than any record). */
	asm volatile("%0 &= 127" : "+r"(size));
	size = 24 + size * sizeof(__u64); /* offsetof(struct fsp_payload_rec, payload) */
	if (bpf_ringbuf_query(&payload_rb, BPF_RB_AVAIL_DATA) > FSP_PAYLOAD_RB_SIZE / 2)
		flags = BPF_RB_FORCE_WAKEUP;
	return !bpf_ringbuf_output(&payload_rb, c.r, size, flags);
}

/* ---- taking the live stack: one function for the sampler and the scheduler hook ---------- */

/* What live_stack_take() found. */
struct live_take {
	__u64 hash; /* the live stack's hash; 0: no live frame */
	__u32 truncated; /* a stack had overflowed, or they exceed max_depth */
	__u32 payload; /* a live frame has a payload: they were sent (SCRATCH_SAMPLE) */
};

/*
 * The current thread's live mark stack when its user stack pointer is sp, in
 * *out: stored in the stacks map unless its hash is `known` (the caller's
 * record of the last one it stored), and, for the sampler (user
 * SCRATCH_SAMPLE), its payloads sent. Counts a stack that could not be
 * stored. Returns 0, or -1 when out is NULL.
 *
 * A global function: the verifier checks it once on its own instead of inline
 * in each caller, whose other branches (charges, payloads, the event view)
 * times the stacks' reading loops exceeded its budget.
 */
__noinline int live_stack_take(struct live_take *out, __u64 sp, __u32 user, __u64 known)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fsp_stack_key skey = {.tgid = task->tgid};
	struct live_stack ls;

	if (!out)
		return -1;
	user = user == SCRATCH_SWITCH ? SCRATCH_SWITCH : SCRATCH_SAMPLE;
	live_stack_get(task, sp, user, &ls);
	out->hash = ls.hash;
	out->truncated = ls.truncated;
	out->payload = 0;
	if (!ls.hash)
		return 0;
	skey.hash = ls.hash;
	if (ls.hash != known && !live_stack_store(&ls, &skey, user))
		stat_inc(FSP_STAT_STACK_DROPS);
	if (ls.payload && user == SCRATCH_SAMPLE) {
		out->payload = 1;
		live_stack_send_payloads(&ls, task->tgid, task->pid, ls.hash);
	}
	return 0;
}

#endif /* FSP_V2STACK_BPF_H */
