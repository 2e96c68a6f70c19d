/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function features' event view (--events): a uprobe at the entry and one at
 * the return of each of a function feature's functions. A thread's open
 * calls are kept in a small stack of its own (ff_stacks), never in its mark
 * stack: the samples are charged from native stacks as without --events.
 *
 * A call of a feature is its outer-most one: a call of its functions made
 * while the thread is in a call of the feature is part of it (not pushed);
 * under one of its antimark functions, a call of its functions is a new
 * call. An antimark function's time is taken off the call it runs in, as
 * antimark_left() does for marks. A call whose frame is unwound without its
 * return (longjmp, an exception: the uretprobe never fires) is dropped at
 * the next probe of its thread that runs below it, counted as a stale mark.
 */
#ifndef FSP_FUNCEV_BPF_H
#define FSP_FUNCEV_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "admit.bpf.h"
#include "markstack.bpf.h"
#include "eventview.bpf.h"

#define FF_MASK (FSP_FUNC_MAX_OPEN - 1)
#define FF_ANTI_BIT (1U << 31) /* ff_call.rule: an antimark function's call */
#define FF_NO_RULE 0x7fffffffU /* ff_prune(): no rule's calls at sp go */

/* i & FF_MASK, kept in the register the verifier checks. */
static __always_inline __u64 ff_idx(__u64 i)
{
	asm volatile("%0 &= 15" : "+r"(i));
	_Static_assert(FF_MASK == 15, "ff_idx() masks with 15");
	return i;
}

/* One open call of a function feature's function (or of an antimark one). */
struct ff_call {
	__u64 sp; /* the stack pointer at the entry: where its return address is */
	__u64 t_enter;
	__u64 anti_ns; /* time under the feature's antimark functions */
	__u32 slot; /* mark_stats slot, SLOT_NONE: not counted */
	__u32 rule; /* the rule's index, FF_ANTI_BIT for an antimark function */
};

struct ff_stack {
	__u32 n;
	__u32 pad;
	struct ff_call c[FSP_FUNC_MAX_OPEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ff_stack);
} ff_stacks SEC(".maps");

/* The links are per process (not loaded with -a: userspace/session/funcev.c);
 * with it, only processes profiled for other reasons would count. */
static __always_inline bool ff_admitted(void)
{
	return !probes_ended && (!system_wide || is_target());
}

/* Drops the calls whose frames are below sp, and those of rule `at` at sp
 * (gone: longjmp, exception). */
static __always_inline void ff_prune(struct ff_stack *fs, __u64 sp, __u32 at)
{
	__u32 i, n = fs->n;
	const struct ff_call *c;

	for (i = 0; i < FSP_FUNC_MAX_OPEN; i++) {
		if (!n || n > FSP_FUNC_MAX_OPEN)
			break;
		c = &fs->c[ff_idx(n - 1)];
		if (c->sp > sp || (c->sp == sp && (c->rule & ~FF_ANTI_BIT) != at))
			break;
		n--;
		stat_inc(FSP_STAT_STALE_MARKS);
	}
	fs->n = n;
}

/* The index of the top-most open call of rule (either kind), or -1. */
static __always_inline int ff_top(const struct ff_stack *fs, __u32 rule)
{
	__u32 i, n = fs->n;

	for (i = 0; i < FSP_FUNC_MAX_OPEN; i++) {
		if (i >= n)
			break;
		if ((fs->c[ff_idx(n - 1 - i)].rule & ~FF_ANTI_BIT) == rule)
			return (n - 1 - i) & FF_MASK;
	}
	return -1;
}

static __always_inline void ff_push(struct ff_stack *fs, __u64 sp, __u32 rule, __u32 slot)
{
	struct ff_call *c;
	__u32 n = fs->n;

	if (n >= FSP_FUNC_MAX_OPEN) {
		stat_inc(FSP_STAT_OVERFLOWS);
		return;
	}
	c = &fs->c[ff_idx(n)];
	c->sp = sp;
	c->anti_ns = 0;
	c->slot = slot;
	c->rule = rule;
	fs->n = n + 1;
	c->t_enter = bpf_ktime_get_ns(); /* the last thing: as count_enter's */
}

/* The return address a pending uretprobe put its trampoline in place of at
 * sp (a tail call: the function that jumped here was probed, and its
 * return instance, the kernel's, holds its caller's address), or ret. */
static __always_inline __u64 ff_real_ret(struct task_struct *task, __u64 sp, __u64 ret)
{
	struct return_instance *ri = BPF_CORE_READ(task, utask, return_instances);
	__u32 i;

	for (i = 0; i < 16 && ri; i++) {
		if (BPF_CORE_READ(ri, stack) == sp)
			return BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
	}
	return ret;
}

/* A function of rule (cookie) was entered at stack pointer sp. */
static __always_inline void ff_enter(struct pt_regs *ctx, __u64 cookie)
{
	__u64 sp = PT_REGS_SP(ctx), instance = 0, ret, tramp;
	__u32 rule = (__u32)cookie & ~FF_ANTI_BIT, id = SLOT_NONE;
	struct task_struct *task = bpf_get_current_task_btf();
	struct ff_stack *fs;
	struct tstack *st;
	int top;

	stat_inc(FSP_STAT_PROBE_HITS);
	fs = bpf_task_storage_get(&ff_stacks, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!fs) {
		stat_inc(FSP_STAT_NO_STORAGE);
		return;
	}
	if (bpf_probe_read_user(&ret, sizeof(ret), (const void *)sp))
		ret = 0;
	/* A call at the stack pointer of an open one of its rule replaces it
	 * (that one was left by a longjmp), unless it is that one's tail call:
	 * its return address is the uretprobe's trampoline already. (Another
	 * rule's call there: the same function's, in this very trap.) */
	tramp = BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
	if (!tramp || ret < tramp || ret >= tramp + 4096) {
		ff_prune(fs, sp, rule);
	} else {
		ff_prune(fs, sp, FF_NO_RULE);
		/* the call site: the caller of the function that jumped here */
		ret = ff_real_ret(task, sp, ret);
	}
	top = ff_top(fs, rule);
	if (cookie & FSP_FUNC_ANTI) {
		/* Outside the feature, or under an antimark already: nothing. */
		if (top >= 0 && !(fs->c[ff_idx(top)].rule & FF_ANTI_BIT))
			ff_push(fs, sp, rule | FF_ANTI_BIT, SLOT_NONE);
		return;
	}
	if (top >= 0 && !(fs->c[ff_idx(top)].rule & FF_ANTI_BIT))
		return; /* inside a call of the feature: part of it */
	if (!(cookie & FSP_FUNC_NO_INSTANCE))
		instance = ret;
	st = tstack_get(true); /* its cache of event view slots */
	if (st)
		id = count_enter(st, FSP_FUNC_ID | rule, instance & FSP_ID_ADDR_MASK);
	else
		stat_inc(FSP_STAT_NO_STORAGE);
	ff_push(fs, sp, rule, id);
}

/* The nearest open call of rule below index i that is not under an
 * antimark function of it takes ns off its duration. */
static __always_inline void ff_anti_left(struct ff_stack *fs, __u32 i, __u32 rule, __u64 ns)
{
	__u32 k;

	for (k = 0; k < FSP_FUNC_MAX_OPEN; k++) {
		struct ff_call *c;

		if (k >= i)
			break;
		c = &fs->c[ff_idx(i - 1 - k)];
		if ((c->rule & ~FF_ANTI_BIT) != rule)
			continue;
		if (!(c->rule & FF_ANTI_BIT))
			c->anti_ns += ns;
		break;
	}
}

/* A function of rule (cookie) returned; sp: the stack pointer after its
 * return. A return of a call not pushed (a nested one) finds nothing. */
static __always_inline void ff_leave(struct pt_regs *ctx, __u64 cookie)
{
	__u64 now = bpf_ktime_get_ns(), sp = PT_REGS_SP(ctx) - 8;
	__u32 rule = ((__u32)cookie & ~FF_ANTI_BIT) | (cookie & FSP_FUNC_ANTI ? FF_ANTI_BIT : 0);
	struct ff_stack *fs;
	struct ff_call c;
	__u32 i, n, at = FSP_FUNC_MAX_OPEN;

	fs = bpf_task_storage_get(&ff_stacks, bpf_get_current_task_btf(), NULL, 0);
	if (!fs)
		return;
	ff_prune(fs, sp, FF_NO_RULE);
	n = fs->n;
	/* The call entered at sp: several when a function is in several rules. */
	for (i = 0; i < FSP_FUNC_MAX_OPEN; i++) {
		const struct ff_call *t;

		if (i >= n)
			break;
		t = &fs->c[ff_idx(n - 1 - i)];
		if (t->sp != sp)
			break;
		if (t->rule == rule) {
			at = (n - 1 - i) & FF_MASK;
			break;
		}
	}
	if (at >= FSP_FUNC_MAX_OPEN || !n || n > FSP_FUNC_MAX_OPEN)
		return;
	c = fs->c[ff_idx(at)];
	fs->c[ff_idx(at)] = fs->c[ff_idx(n - 1)];
	fs->n = n - 1;
	if (rule & FF_ANTI_BIT)
		ff_anti_left(fs, at, rule & ~FF_ANTI_BIT, now - c.t_enter);
	else if (c.slot != SLOT_NONE)
		count_leave(c.slot, c.t_enter, c.anti_ns, now);
}

#endif /* FSP_FUNCEV_BPF_H */
