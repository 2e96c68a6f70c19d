/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ABI v2 mark stacks (usdt/fsp_abi_v2.h): the records of a process, a thread's stack
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
#define V2_FIRST_READ_OLD (FSP_V2_HEADER + V2_FIRST_FRAMES * FSP_V2_FRAME_OLD)
/* The ABI v1 stack's place among the merged sources. */
#define V1_SOURCE FSP_V2_MAX_DSOS
/* live_stack.src: where a live stack's frames are. */
#define SRC_V1 0x100 /* the ABI v1 stack, [0, depth) */
#define SRC_MERGED 0x101 /* the merged frames */

/* ---- registration ---------------------------------------------------------- */

struct in_exe_ctx {
	bool exe;
};

static long in_exe_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct in_exe_ctx *c = data;

	c->exe = vma->vm_file && vma->vm_file == task->mm->exe_file;
	return 0;
}

/* Is addr in the current process's executable (not a library)? */
static __always_inline bool v2_in_exe(__u64 addr)
{
	struct in_exe_ctx c = {};

	bpf_find_vma(bpf_get_current_task_btf(), addr, in_exe_cb, &c, 0);
	return c.exe;
}

/* Registers process tgid's record at `record` (TLS pointer at tp_offset from
 * the thread pointer, gen as read from the record); an update if known. */
static __always_inline void v2_register(__u32 tgid, __u64 record, __s64 tp_offset, __u32 gen,
					__u32 frame_size)
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
			p->dso[i].frame_size = frame_size;
			__sync_fetch_and_add(&v2_epoch, 1);
			return;
		}
	}
	/* Beyond what is read: userspace says so (and counts it) when it
	 * finds the record. The executable's own record takes the last
	 * library's place (its constructor runs after theirs). */
	if (n >= FSP_V2_MAX_DSOS) {
		if (!v2_in_exe(record))
			return;
		n = FSP_V2_MAX_DSOS - 1;
		p->nr = n; /* unpublished while it changes */
		asm volatile("" ::: "memory");
	}
	p->dso[n].record = record;
	p->dso[n].tp_offset = tp_offset;
	p->dso[n].gen = gen;
	p->dso[n].frame_size = frame_size;
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

struct widen_ctx {
	struct v2_stack *st;
	__u32 d;
};

/* bpf_loop callback: frame d - 1 - i of a stack read with 32-byte frames
 * (a header before call numbers), moved to its place, with no call number.
 * From the top down: a frame's 40-byte place never overlaps a lower frame's
 * 32-byte one. */
static long widen_cb(__u64 i, void *data)
{
	struct widen_ctx *c = data;
	__u64 k = slot((__u64)c->d - 1 - i);
	const __u64 *src;
	struct v2_frame *dst;

	if (i >= c->d)
		return 1;
	src = (const __u64 *)((char *)c->st->f + k * FSP_V2_FRAME_OLD);
	dst = &c->st->f[k];
	dst->sp_kind = src[3];
	dst->payload = src[2];
	dst->instance = src[1];
	dst->feature = src[0];
	dst->call = 0;
	return 0;
}

/* Reads a stack of 32-byte frames at ptr into dst (see v2_read_stack). */
static __noinline int v2_read_old(struct v2_stack *dst, __u64 ptr)
{
	struct widen_ctx c = {.st = dst};
	__u64 d, size;

	if (!dst || bpf_probe_read_user(dst, V2_FIRST_READ_OLD, (void *)ptr))
		return -1;
	d = dst->depth;
	if (dst->magic != FSP_V2_STACK_MAGIC || d > FSP_V2_DEPTH)
		return -1;
	if (d > V2_FIRST_FRAMES) {
		size = (d - V2_FIRST_FRAMES) * FSP_V2_FRAME_OLD;
		if (size > (FSP_V2_DEPTH - V2_FIRST_FRAMES) * FSP_V2_FRAME_OLD)
			return -1;
		if (bpf_probe_read_user((char *)dst + V2_FIRST_READ_OLD, size,
					(void *)(ptr + V2_FIRST_READ_OLD)))
			return -1;
	}
	c.d = d;
	bpf_loop(d, widen_cb, &c, 0);
	return d;
}

/* Reads the stack at ptr, of frame_size-byte frames, into dst; its published
 * depth, or -1 if unreadable. */
static __always_inline int v2_read_stack(struct v2_stack *dst, __u64 ptr, __u32 frame_size)
{
	__u64 d, size;

	if (frame_size == FSP_V2_FRAME_OLD)
		return v2_read_old(dst, ptr);
	if (frame_size != FSP_V2_FRAME)
		return -1;
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
		/* Its early leaves (made above every mark seen: fsp.h) are of
		 * marks entered before the attach only in a thread that ran
		 * then; in any other they match nothing. */
		.unmatched =
			st->unmatched + (st->early && !thread_predates_attach() ? st->early : 0),
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
	d = v2_read_stack(st, ptr, dso->frame_size);
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

struct v2_fork_ctx {
	const struct fsp_v2_proc *p;
	struct v2_unwinds *fk;
	struct v2_stack *buf;
	__u64 fsbase;
	bool recorded;
};

/* bpf_loop callback: the forking thread's frames of DSO i, for the child. */
static long v2_fork_cb(__u64 i, void *data)
{
	struct v2_fork_ctx *c = data;
	const struct fsp_v2_dso *dso;
	struct v2_unwind *u;
	__u64 ptr = 0;
	int d;

	if (i >= FSP_V2_MAX_DSOS || i >= c->p->nr)
		return 1;
	dso = &c->p->dso[i];
	if (bpf_probe_read_user(&ptr, sizeof(ptr), (void *)(c->fsbase + dso->tp_offset)) || !ptr)
		return 0;
	d = v2_read_stack(c->buf, ptr, dso->frame_size);
	if (d <= 0 || c->buf->gen != dso->gen)
		return 0;
	u = &c->fk->u[i];
	u->stack = ptr;
	u->stale = c->buf->stale;
	u->gen = c->buf->gen;
	u->from = 0;
	u->n = d < UNWIND_FRAMES ? d : UNWIND_FRAMES;
	for (int k = 0; k < UNWIND_FRAMES; k++) {
		if (k >= u->n)
			break;
		u->f[k] = c->buf->f[k];
	}
	c->recorded = true;
	return 0;
}

/*
 * The current thread forks child: its ABI v2 frames are the parent's, not
 * the child's (the child's memory is a copy of them). Recorded for the
 * sampler to leave out of the child's stacks (the first UNWIND_FRAMES of
 * each), unless --inherit-marks.
 */
static __always_inline void v2_fork(struct task_struct *parent, struct task_struct *child)
{
	struct v2_fork_ctx c = {.fsbase = parent->thread.fsbase};
	__u32 key = MERGE_PROBE, tgid = parent->tgid;
	struct merge_buf *b;
	struct tstack *cst;

	if (inherit_marks)
		return;
	c.p = bpf_map_lookup_elem(&v2_procs, &tgid);
	b = bpf_map_lookup_elem(&merge_bufs, &key);
	if (!c.p || !c.p->nr || !b)
		return;
	c.buf = &b->src[0];
	c.fk = bpf_task_storage_get(&v2_forks, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c.fk)
		return;
	bpf_loop(FSP_V2_MAX_DSOS, v2_fork_cb, &c, 0);
	if (!c.recorded)
		return;
	cst = bpf_task_storage_get(&tstacks, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (cst)
		cst->v2.forked = 1;
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
 * while valid), or a forked child's parent's frames still at their place
 * (fork: valid while the stacks are of the same session): returns the live
 * frames left, moved down over the dropped ones.
 */
static __always_inline __u32 v2_drop_unwound(struct v2_unwind *u, struct v2_stack *st, __u64 ptr,
					     __u32 gen, __u32 live, bool fork)
{
	struct drop_ctx c = {.u = u, .st = st, .live = live, .k = u->from};

	if (u->stack != ptr)
		return live;
	if (u->gen != gen || (!fork && u->stale != st->stale)) {
		u->stack = 0; /* the header has pruned since: obsolete */
		return live;
	}
	if (u->from >= live)
		return live;
	bpf_loop(live - u->from, drop_cb, &c, 0);
	return c.k;
}

/* ---- the call number of a shadow's ABI v2 frame (record --calls --events) -------- */

struct left_call_ctx {
	const struct v2_cache *cache;
	__u64 fsbase;
	__u64 feature;
	__u64 sp;
	__u64 best_dist;
	__u64 call;
};

/*
 * bpf_loop callback: the frame just above the published depth of the
 * thread's stack of DSO i is the one its leave popped (a pop only lowers the
 * depth; one that moved frames down, out of order, overwrote it: no number).
 * If it is a mark of the feature, the one entered nearest to sp wins.
 */
static long left_call_cb(__u64 i, void *data)
{
	struct left_call_ctx *c = data;
	const struct fsp_v2_dso *dso;
	struct v2_frame f;
	__u64 ptr = 0, fsp, dist;
	__u32 d = 0;

	if (i >= FSP_V2_MAX_DSOS)
		return 1;
	dso = &c->cache->dso[i];
	if (dso->frame_size != FSP_V2_FRAME ||
	    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)(c->fsbase + dso->tp_offset)) || !ptr ||
	    bpf_probe_read_user(&d, sizeof(d), (void *)(ptr + 8)) || d >= FSP_V2_DEPTH ||
	    bpf_probe_read_user(&f, sizeof(f),
				(void *)(ptr + FSP_V2_HEADER + d * sizeof(struct v2_frame))))
		return 0;
	if (f.feature != c->feature || (f.sp_kind & 1) || !f.call)
		return 0;
	fsp = f.sp_kind & ~7ULL;
	dist = fsp > c->sp ? fsp - c->sp : c->sp - fsp;
	if (dist < c->best_dist) {
		c->best_dist = dist;
		c->call = f.call;
	}
	return 0;
}

__noinline __u64 v2_left_call(__u64 feature, __u64 sp)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tstack *st = bpf_task_storage_get(&tstacks, task, NULL, 0);
	struct left_call_ctx c = {.feature = feature, .sp = sp, .best_dist = ~0ULL};
	__u32 nr;

	if (!st)
		return 0;
	c.cache = v2_cache_get(st, task->tgid);
	nr = c.cache->nr;
	if (!nr)
		return 0;
	c.fsbase = task->thread.fsbase;
	bpf_loop(nr < FSP_V2_MAX_DSOS ? nr : FSP_V2_MAX_DSOS, left_call_cb, &c, 0);
	return c.call;
}

/* ---- reading them all ------------------------------------------------------------- */

struct v2_read_ctx {
	struct merge_buf *buf;
	struct v2_cache *cache;
	struct v2_unwinds *uw; /* the thread's unwinding records, if any */
	struct v2_unwinds *fk; /* a forked child's parent's frames, if any */
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
		d = v2_read_stack(dst, *ptr, dso->frame_size);
		if (d >= 0 && dst->tid == c->tid)
			return d;
	}
	if (bpf_probe_read_user(ptr, sizeof(*ptr), (void *)(c->fsbase + dso->tp_offset)))
		return -1;
	c->cache->stack[i & (FSP_V2_MAX_DSOS - 1)] = *ptr;
	/* No stack: the thread made no mark in this DSO. A stack whose tid is
	 * another's was inherited across fork: the pointer says it is ours. */
	return *ptr ? v2_read_stack(dst, *ptr, dso->frame_size) : 0;
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
		live = v2_drop_unwound(&c->uw->u[i], dst, ptr, dso->gen, live, false);
	if (c->fk)
		live = v2_drop_unwound(&c->fk->u[i], dst, ptr, dso->gen, live, true);
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

/* bpf_loop callback: frame i of the v1 stack, unless unsampled, into dst. */
static long v1_copy_cb(__u64 i, void *data)
{
	struct v1_copy_ctx *c = data;
	const struct tframe *f;
	struct v2_frame *o;

	if (i >= FSP_MAX_DEPTH || c->n >= FSP_V2_DEPTH)
		return 1;
	f = &c->st->f[slot(i)];
	if (f->flags & TF_UNSAMPLED)
		return 0;
	o = &c->dst->f[slot(c->n)];
	o->feature = f->feature;
	o->instance = f->instance;
	o->payload = f->payload;
	o->sp_kind = (f->sp & ~7ULL) | (f->kind == FSP_FRAME_ANTIMARK);
	o->call = f->call;
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

/*
 * bpf_loop callback: output frame i, the head with the highest stack pointer.
 * The pick is kept in the map's memory, not in a register: there the
 * verifier does not follow its value, so the loop over the sources is one
 * path instead of one per source picked so far.
 */
static long merge_cb(__u64 i, void *data)
{
	struct merge_ctx *c = data;
	struct merge_buf *b = c->buf;
	const struct v2_frame *f;
	struct fsp_frame *o;
	__u32 s, best, h;
	__u64 best_sp = 0, fsp;

	WRITE_ONCE(b->best, MERGE_SOURCES);
	for (s = 0; s < MERGE_SOURCES; s++) {
		h = b->head[s];
		if (h >= b->depth[s] || h >= FSP_V2_DEPTH)
			continue;
		fsp = b->src[s].f[h].sp_kind & ~7ULL;
		if (READ_ONCE(b->best) == MERGE_SOURCES || fsp > best_sp) {
			WRITE_ONCE(b->best, s);
			best_sp = fsp;
		}
	}
	best = READ_ONCE(b->best);
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
	b->sp[slot(i)] = best_sp;
	b->call[slot(i)] = f->call;
	c->payloads |= f->payload;
	c->hash = hash_frame(c->hash, o->feature, o->instance, o->kind);
	b->head[best] = h + 1;
	c->n = i + 1;
	return 0;
}

#endif /* FSP_V2STACK_BPF_H */
