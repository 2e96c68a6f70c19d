/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Labels read when a sample is taken ("label sample" of a probe map): a
 * frame whose instance is FSP_ID_SAMPLED | the address of a `char *`
 * variable of the process stands for the string that variable points to at
 * each sample (PostgreSQL's debug_query_string, the statement being run).
 * The sampler copies the live stack's frames, reads each such variable and
 * its string (two bounded reads, never faulting), interns the string as a
 * label (labels map, tgid 0, as a mapped probe's template: equal texts are
 * one instance) and puts its id in the frame. The stack is then counted and
 * stored under a hash of its frames and the ids read, so the counts map
 * holds one entry per (thread, stack, value) and the stacks map the frames
 * with the value of each: bounded by the same maps, and a stored stack means
 * what it says. A variable that cannot be read (NULL, unmapped or not
 * resident) makes the instance "?" and is counted (FSP_STAT_SAMPLE_LABEL_
 * ERRORS): never a value it might have had.
 */
#ifndef FSP_SAMPLELABEL_BPF_H
#define FSP_SAMPLELABEL_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "labels.bpf.h"
#include "markstack.bpf.h"

/* The label id of the string the `char *` at addr points to now, interned. */
static __noinline __u64 sample_label_read(__u64 addr, struct label_buf *b)
{
	__u64 ptr = 0;
	long n = 0;

	if (!b)
		return 0;
	if (!bpf_probe_read_user(&ptr, sizeof(ptr), (const void *)addr) && ptr)
		n = bpf_probe_read_user_str(b->l.str, FSP_LABEL_LEN, (const void *)ptr);
	if (n <= 0) {
		stat_inc(FSP_STAT_SAMPLE_LABEL_ERRORS);
		b->l.str[0] = '?';
		n = 2;
	}
	return label_intern(b, n - 1, true);
}

struct resolve_ctx {
	struct fsp_stack *s;
	struct label_buf *b;
	__u64 hash;
	__u64 addr; /* the last variable read, and its label id: */
	__u64 id; /* nested frames of one variable read it once */
};

/* bpf_loop callback: frame i's instance, if read at sample time. */
static long resolve_cb(__u64 i, void *data)
{
	struct resolve_ctx *c = data;
	struct fsp_frame *f;
	__u64 addr;

	if (i >= FSP_MAX_DEPTH)
		return 1;
	f = &c->s->frames[slot(i)];
	if ((f->instance & FSP_ID_SAMPLED) != FSP_ID_SAMPLED)
		return 0;
	addr = f->instance & FSP_ID_ADDR_MASK;
	if (addr != c->addr) {
		c->id = sample_label_read(addr, c->b);
		c->addr = addr;
	}
	f->instance = c->id;
	c->hash = mix64(c->hash + i + c->id);
	return 0;
}

/*
 * Replaces the sampled instances of stack s (in scratch) by the labels read
 * now; returns the hash of the stack so resolved, from hash, that of the
 * stack with its placeholders (never 0). user: the caller's context. A
 * global function: checked once.
 */
__noinline __u64 sample_labels_resolve(struct fsp_stack *s, __u64 hash, __u32 user)
{
	__u32 key = user == SCRATCH_SWITCH ? SCRATCH_LABEL_SWITCH : SCRATCH_LABEL_SAMPLE;
	struct resolve_ctx c = {.s = s, .hash = hash};
	__u64 h;

	if (!s)
		return hash;
	c.b = bpf_map_lookup_elem(&scratch, &key);
	if (!c.b)
		return hash;
	bpf_loop(s->depth < FSP_MAX_DEPTH ? s->depth : FSP_MAX_DEPTH, resolve_cb, &c, 0);
	h = mix64(c.hash ^ 0x5a4d504c45ULL);
	return h ? h : 1;
}

/* The live ABI v1 frames [0, depth) of st, but shadows, copied into
 * scratch[user] to be resolved (store_stack()'s copy). */
static __always_inline struct fsp_stack *sample_labels_copy(const struct tstack *st, __u32 depth,
							    __u32 user)
{
	struct store_ctx c = {.st = st, .n = unknown_zero()};
	struct fsp_stack *s = scratch_get(user);

	if (!s || !st)
		return NULL;
	c.s = s;
	bpf_loop(depth < FSP_MAX_DEPTH ? depth : FSP_MAX_DEPTH, store_cb, &c, 0);
	s->depth = c.n;
	return s;
}

/*
 * Function features' variables ("instance {global:S}" of a function
 * feature): appends to stack s (in scratch, hash its hash, 0 when it has no
 * frame) a mark frame per variable of process tgid (sample_vars), of its
 * hidden feature, the instance FSP_ID_SAMPLED | the variable's address (a
 * thread-local one's in the thread whose thread pointer is fsbase), for
 * sample_labels_resolve() to read. Returns the hash with them; hash
 * unchanged when the process has none or the stack is full. A global
 * function: checked once.
 */
__noinline __u64 sample_vars_append(struct fsp_stack *s, __u64 hash, __u32 tgid, __u64 fsbase)
{
	struct fsp_sample_vars *v = bpf_map_lookup_elem(&sample_vars, &tgid);
	struct fsp_frame *f;
	__u64 d, nr, addr;
	__u32 i;

	if (!s || !v)
		return hash;
	nr = v->nr;
	d = s->depth;
	for (i = 0; i < FSP_MAX_SAMPLE_VARS; i++) {
		if (i >= nr || d >= FSP_MAX_DEPTH)
			break;
		addr = v->v[i].tls ? fsbase + v->v[i].addr : v->v[i].addr;
		f = &s->frames[d & (FSP_MAX_DEPTH - 1)];
		f->feature = v->v[i].feature;
		f->instance = FSP_ID_SAMPLED | (addr & FSP_ID_ADDR_MASK);
		f->payload = 0;
		f->kind = FSP_FRAME_MARK;
		hash = mix64(hash ^ v->v[i].feature);
		d++;
	}
	s->depth = d;
	return hash;
}

#endif /* FSP_SAMPLELABEL_BPF_H */
