/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live mark stack of a thread, as the sampler and the scheduler hook
 * (--off-cpu) charge it: its ABI v1 stack alone, one ABI v2 stack alone, or
 * their merge (v2stack.bpf.h); stored in the stacks map the first time it is
 * seen, with its labels (ABI v2 frames never trapped to copy them); its
 * payloads sent with each sample (payload_rb); for a thread whose memory is
 * gone at its exit, the stack it had when it started to exit. live_stack_sample(),
 * live_stack_switch() and live_stack_exit() are the entry points, global
 * functions the verifier checks once each.
 */
#ifndef FSP_LIVESTACK_BPF_H
#define FSP_LIVESTACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "markstack.bpf.h"
#include "labels.bpf.h"
#include "v2stack.bpf.h"
#include "native.bpf.h"
#include "samplelabel.bpf.h"

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
	bool sampled; /* a live frame's instance is read at sample time (samplelabel.bpf.h) */
	/* Its frames with those instances read (scratch), stored instead of
	 * the source's; NULL when there were none. */
	struct fsp_stack *resolved;
};

/* What v2_merge() made. */
struct merge_out {
	__u64 hash;
	__u64 payloads; /* non-zero: a frame has a payload */
	__u32 depth;
	__u32 truncated;
};

/*
 * Merges the stacks read into buf and the live ABI v1 frames (st's [0, d1))
 * into out. A global function: the verifier checks it once, not on each of
 * its caller's paths that reach it.
 */
__noinline int v2_merge(struct merge_buf *buf, const struct tstack *st, __u32 d1,
			struct fsp_stack *out, struct merge_out *res)
{
	struct v1_copy_ctx cc = {.st = st, .n = unknown_zero()};
	struct merge_ctx mc = {.buf = buf, .out = out};

	if (!buf || !out || !res)
		return -1;
	buf->depth[V1_SOURCE] = 0;
	buf->head[V1_SOURCE] = 0;
	if (st && d1) {
		cc.dst = &buf->src[V1_SOURCE];
		bpf_loop(d1, v1_copy_cb, &cc, 0);
		buf->depth[V1_SOURCE] = cc.n;
	}
	bpf_loop(FSP_MAX_DEPTH + 1, merge_cb, &mc, 0);
	out->depth = mc.n;
	res->hash = mc.hash;
	res->payloads = mc.payloads;
	res->depth = mc.n;
	res->truncated = mc.truncated;
	return 0;
}

/* The stacks of every source, merged into scratch[user]. */
static __always_inline void v2_merge_all(struct v2_read_ctx *rc, const struct tstack *st, __u32 d1,
					 __u32 user, struct live_stack *ls)
{
	struct fsp_stack *out = scratch_get(user);
	struct merge_out mo;

	if (!out || v2_merge(rc->buf, st, d1, out, &mo))
		return;
	ls->merged = out;
	ls->src = SRC_MERGED;
	ls->depth = mo.depth;
	ls->hash = mo.hash;
	ls->payload = mo.payloads != 0;
	ls->truncated |= mo.truncated != 0;
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
	if (st->v2.forked)
		rc.fk = bpf_task_storage_get(&v2_forks, task, NULL, 0);
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
	ls->sampled = false;
	ls->resolved = NULL;
	if (st && (st->depth || st->overflow)) {
		d = live_depth(st, sp);
		ls->truncated = st->overflow && d == st->depth;
		if (d && d <= FSP_MAX_DEPTH) {
			ls->hash = st->f[slot(d - 1)].hash; /* shadows excluded */
			ls->payload = st->f[slot(d - 1)].flags & TF_HAS_PAYLOAD;
			ls->sampled = st->f[slot(d - 1)].flags & TF_HAS_SAMPLED;
		}
	}
	ls->depth = d;
	/* An exiting thread whose memory is gone (exit_mm) has no ABI v2 stacks
	 * left to read: on a kernel that ran sched_process_exit after exit_mm
	 * (before Linux 6.16), no exit record was taken either (see
	 * exit_stack_take()), and such a sample counts as unreadable. */
	if (!task->mm) {
		if (st && st->v2.nr)
			stat_inc(FSP_STAT_V2_UNREADABLE);
		ls->st = st;
		return;
	}
	st = v2_thread(task, st);
	ls->st = st;
	if (st)
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
	const struct fsp_stack *s = ls->resolved ? ls->resolved : ls->merged;

	if (ls->src == SRC_V1 && !ls->resolved)
		return ls->st && store_stack(ls->st, ls->depth, key, user);
	if (bpf_map_lookup_elem(&stacks, key))
		return true;
	if (ls->src != SRC_MERGED && !ls->resolved)
		s = v2_frames_out(ls, user);
	if (!s)
		return false;
	if (bpf_map_update_elem(&stacks, key, s, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stacks, key) != NULL;
	if (ls->src != SRC_V1)
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

/* ---- per-frame values: payloads, stack pointers, call numbers -------------------------- */

/* Which value of a frame live_stack_values() reads. */
enum frame_value {
	VAL_PAYLOAD,
	VAL_SP,
	VAL_CALL, /* record --calls */
};

struct values_ctx {
	const struct live_stack *ls;
	__u64 *out; /* FSP_MAX_DEPTH values */
	__u32 n;
	enum frame_value which;
};

/* bpf_loop callback: the payload (stack pointer, call number) of the live
 * stack's frame i, in the order of its stored frames (the ABI v1 stack's
 * shadow frames are not stored). */
static long values_cb(__u64 i, void *data)
{
	struct values_ctx *c = data;
	const struct live_stack *ls = c->ls;
	__u64 v;

	if (i >= FSP_MAX_DEPTH || c->n >= FSP_MAX_DEPTH)
		return 1;
	if (ls->src == SRC_V1) {
		const struct tframe *f;

		if (!ls->st)
			return 1;
		f = &ls->st->f[slot(i)];
		if (f->flags & TF_UNSAMPLED)
			return 0;
		v = c->which == VAL_SP ? f->sp : c->which == VAL_CALL ? f->call : f->payload;
	} else if (!ls->buf) {
		return 1;
	} else if (ls->src == SRC_MERGED) {
		v = c->which == VAL_SP	   ? ls->buf->sp[slot(i)]
		    : c->which == VAL_CALL ? ls->buf->call[slot(i)]
					   : ls->buf->payload[slot(i)];
	} else {
		const struct v2_frame *f =
			&ls->buf->src[ls->src & (FSP_V2_MAX_DSOS - 1)].f[slot(i)];

		v = c->which == VAL_SP	   ? f->sp_kind & ~7ULL
		    : c->which == VAL_CALL ? f->call
					   : f->payload;
	}
	c->out[slot(c->n)] = v;
	c->n++;
	return 0;
}

/* The live stack's frames' values `which` into out; how many. */
static __always_inline __u32 live_stack_values(const struct live_stack *ls, __u64 *out,
					       enum frame_value which)
{
	struct values_ctx c = {.ls = ls, .out = out, .n = unknown_zero(), .which = which};

	if (ls->depth > FSP_MAX_DEPTH || (ls->src == SRC_V1 && !ls->st) ||
	    (ls->src != SRC_V1 && !ls->buf))
		return 0;
	bpf_loop(ls->depth, values_cb, &c, 0);
	return c.n;
}

/* With native user stacks: the live stack's stack pointers into mark_sps
 * (none when it has no live frame), for native_sample(). */
static __always_inline void live_stack_sps(const struct live_stack *ls)
{
	__u32 zero = 0;
	struct fsp_mark_sps *out = bpf_map_lookup_elem(&mark_sps, &zero);

	if (!out)
		return;
	out->n = ls->hash ? live_stack_values(ls, out->sp, VAL_SP) : 0;
}

/* ---- payloads ------------------------------------------------------------------------ */

_Static_assert(sizeof(union scratch) >= 24 + 127 * 8,
	       "live_stack_send_payloads() may write 127 payloads to its scratch buffer");

/*
 * Writes the payloads of the live stack (whose hash is hash) into r: the
 * record's size in bytes, or 0 when it cannot.
 */
static __always_inline __u64 live_stack_payloads(const struct live_stack *ls,
						 struct fsp_payload_rec *r, __u32 tgid, __u32 tid,
						 __u64 hash)
{
	__u64 size;

	if (!r || ls->depth > FSP_MAX_DEPTH || (ls->src == SRC_V1 && !ls->st) ||
	    (ls->src != SRC_V1 && !ls->buf))
		return 0;
	r->tgid = tgid;
	r->tid = tid;
	r->hash = hash;
	r->depth = live_stack_values(ls, r->payload, VAL_PAYLOAD);
	size = r->depth;
	/* Bounded for the verifier (depth <= 64, and the scratch buffer is
	 * larger than any record). */
	asm volatile("%0 &= 127" : "+r"(size));
	return 24 + size * sizeof(__u64); /* offsetof(struct fsp_payload_rec, payload) */
}

/* Sends a payload record of size bytes to userspace. Wakes it only when the
 * ring is half full: it also reads it every second. Returns false when the
 * ring is full (the record is lost). */
static __always_inline bool payloads_send(const struct fsp_payload_rec *r, __u64 size)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(&payload_rb, BPF_RB_AVAIL_DATA) > FSP_PAYLOAD_RB_SIZE / 2)
		flags = BPF_RB_FORCE_WAKEUP;
	return !bpf_ringbuf_output(&payload_rb, (void *)r, size, flags);
}

/* Sends the payloads of the live stack (whose hash is hash) to userspace;
 * false when they were lost. */
static __always_inline bool live_stack_send_payloads(const struct live_stack *ls, __u32 tgid,
						     __u32 tid, __u64 hash)
{
	struct fsp_payload_rec *r = scratch_get(SCRATCH_PAYLOAD);
	__u64 size = live_stack_payloads(ls, r, tgid, tid, hash);

	return r && size && payloads_send(r, size);
}

/* ---- call numbers (record --calls) ------------------------------------------------------ */

/* Writes the live stack's call numbers to the call record of the sampler
 * (SCRATCH_CALLS), which it sends once it knows the hash counted, or of the
 * scheduler hook (SCRATCH_CALLS_SWITCH, --off-cpu: offcpu_calls_out). */
static __always_inline void live_stack_note_calls(const struct live_stack *ls, __u32 tgid,
						  __u32 tid, __u32 user)
{
	struct fsp_call_rec *r = scratch_get(user);

	if (!r)
		return;
	r->tgid = tgid;
	r->tid = tid;
	r->depth = live_stack_values(ls, r->call, VAL_CALL);
}

/* "label sample": the live stack's frames with their sampled instances read
 * now (ls->resolved), and its hash with them. Only ABI v1 frames (mapped
 * probes') have such instances: in the v1 stack alone or in the merge. */
static __always_inline void sample_labels_take(struct live_stack *ls, __u32 user)
{
	struct fsp_stack *s = NULL;

	if (ls->src == SRC_MERGED)
		s = ls->merged;
	else if (ls->src == SRC_V1)
		s = sample_labels_copy(ls->st, ls->depth, user);
	if (!s)
		return;
	ls->hash = sample_labels_resolve(s, ls->hash, user);
	ls->resolved = s;
}

/* Function features' variables (sample_vars_append()): the live stack's
 * frames (ls->resolved, or copied from its source, none when it has no live
 * frame) with one frame per variable of the process, read now. */
static __always_inline void sample_vars_take(struct live_stack *ls, struct task_struct *task,
					     __u32 user)
{
	struct fsp_stack *s = ls->resolved;
	__u32 tgid = task->tgid;
	__u64 h;

	if (!bpf_map_lookup_elem(&sample_vars, &tgid))
		return;
	if (!s && ls->src == SRC_MERGED)
		s = ls->merged;
	else if (!s && ls->src == SRC_V1 && ls->st)
		s = sample_labels_copy(ls->st, ls->depth, user);
	else if (!s && ls->src != SRC_V1)
		s = v2_frames_out(ls, user);
	else if (!s) { /* no live frame */
		s = scratch_get(user);
		if (s)
			s->depth = 0;
	}
	if (!s)
		return;
	h = sample_vars_append(s, ls->hash, tgid, task->thread.fsbase);
	if (h == ls->hash)
		return;
	ls->hash = sample_labels_resolve(s, h, user);
	ls->resolved = s;
}

/* ---- taking the live stack: one function for the sampler and the scheduler hook ---------- */

/* What live_stack_take() found. */
struct live_take {
	__u64 hash; /* the live stack's hash; 0: no live frame */
	__u32 truncated; /* a stack had overflowed, or they exceed max_depth */
	__u32 payload; /* a live frame has a payload: they were sent (SCRATCH_SAMPLE) */
};

/* ---- a thread's exit ------------------------------------------------------------------ */

/*
 * A thread that exits goes on running kernel code after its memory is
 * released (exit_mm: the rest of do_exit; for a process's last thread, the
 * teardown of its address space, which can take milliseconds for a large
 * one): its ABI v2 stacks cannot be read then. Those samples (and off-CPU
 * time) are charged to the live stack the thread had when it exited, taken
 * by live_stack_exit() at sched_process_exit (which runs before exit_mm since
 * Linux 6.16): the kernel's work of ending a thread is the work of the code
 * that ended it, as a system call's is. Returns false when the thread has no
 * such record (ABI v1 stacks alone, or an older kernel).
 */
static __always_inline bool exit_stack_take(struct task_struct *task, struct live_take *out,
					    __u32 user)
{
	struct exit_stack *x = bpf_task_storage_get(&exit_stacks, task, NULL, 0);
	__u64 size;

	if (!x)
		return false;
	out->hash = x->hash;
	out->truncated = x->truncated;
	out->payload = 0;
	if (x->hash && x->dropped)
		stat_inc(FSP_STAT_STACK_DROPS);
	if (user != SCRATCH_SAMPLE)
		return true;
	if (x->hash && x->payload) {
		out->payload = 1;
		size = x->rec.depth;
		if (size > FSP_MAX_DEPTH)
			size = FSP_MAX_DEPTH;
		/* Bounded where the verifier sees it, not recomputed before. */
		asm volatile("" : "+r"(size));
		payloads_send(&x->rec, 24 + size * sizeof(__u64));
	}
	/* The sampler's call record and native stack pointers are this
	 * sample's, not the last one's on this CPU. */
	if (calls_enabled) {
		struct fsp_call_rec *r = scratch_get(SCRATCH_CALLS);

		if (r)
			*r = x->calls;
	}
	if (native_user) {
		__u32 zero = 0;
		struct fsp_mark_sps *sps = bpf_map_lookup_elem(&mark_sps, &zero);

		if (sps)
			sps->n = 0; /* no user stack left to unwind */
	}
	return true;
}

/*
 * The current thread's live mark stack when its user stack pointer is sp, in
 * *out: stored in the stacks map unless its hash is `known` (the caller's
 * record of the last one it stored), and, for the sampler (user
 * SCRATCH_SAMPLE), its payloads sent. Counts a stack that could not be
 * stored. Returns 0, or -1 when out is NULL. user is a constant: each of
 * the global functions below is checked with the paths of its own caller.
 */
static __always_inline int live_stack_take(struct live_take *out, __u64 sp, __u32 user, __u64 known)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fsp_stack_key skey = {.tgid = task->tgid};
	struct live_stack ls;

	if (!out)
		return -1;
	if (!task->mm && exit_stack_take(task, out, user))
		return 0;
	live_stack_get(task, sp, user, &ls);
	if (user == SCRATCH_SAMPLE && native_user)
		live_stack_sps(&ls);
	if (sample_labels && ls.sampled && ls.hash)
		sample_labels_take(&ls, user);
	if (sample_vars_on && user == SCRATCH_SAMPLE)
		sample_vars_take(&ls, task, user);
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
	if (calls_enabled && user == SCRATCH_SAMPLE)
		live_stack_note_calls(&ls, task->tgid, task->pid, SCRATCH_CALLS);
	if (calls_enabled && user == SCRATCH_SWITCH)
		live_stack_note_calls(&ls, task->tgid, task->pid, SCRATCH_CALLS_SWITCH);
	return 0;
}

/* The sampler's and the scheduler hook's: global functions, each checked once
 * on its own, not inline in its caller, whose other branches (charges,
 * payloads, the event view) times the stacks' reading loops exceeded the
 * verifier's budget; and the sampler's without the scheduler hook's paths,
 * which doubled its work (when both were one function taking user). */
__noinline int live_stack_sample(struct live_take *out, __u64 sp)
{
	return live_stack_take(out, sp, SCRATCH_SAMPLE, 0);
}

__noinline int live_stack_switch(struct live_take *out, __u64 sp, __u64 known)
{
	return live_stack_take(out, sp, SCRATCH_SWITCH, known);
}

/*
 * The current thread exits (sched_process_exit, its memory still there): its
 * live stack at sp, stored, and its payloads kept in x, for the samples it
 * takes after exit_mm. Uses the scheduler hook's buffers: both run with
 * preemption off, so neither interrupts the other.
 */
__noinline int live_stack_exit(struct exit_stack *x, __u64 sp)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fsp_stack_key skey = {.tgid = task->tgid};
	struct live_stack ls;

	if (!x)
		return -1;
	live_stack_get(task, sp, SCRATCH_SWITCH, &ls);
	x->hash = ls.hash;
	x->truncated = ls.truncated;
	x->payload = 0;
	x->dropped = 0;
	if (!ls.hash)
		return 0;
	skey.hash = ls.hash;
	x->dropped = !live_stack_store(&ls, &skey, SCRATCH_SWITCH);
	if (ls.payload)
		x->payload = live_stack_payloads(&ls, &x->rec, task->tgid, task->pid, ls.hash) != 0;
	if (calls_enabled) {
		x->calls.tgid = task->tgid;
		x->calls.tid = task->pid;
		x->calls.depth = live_stack_values(&ls, x->calls.call, VAL_CALL);
	}
	return 0;
}

#endif /* FSP_LIVESTACK_BPF_H */
