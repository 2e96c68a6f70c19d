/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Native stacks (record --stacks): with each on-CPU sample of a target, one
 * struct fsp_native_rec through native_rb for userspace to unwind
 * (userspace/stacks/): the thread's user registers, the frame-pointer user
 * stack, optionally the kernel stack, and a copy of the top of the user stack
 * from sp, over which userspace runs the DWARF (.eh_frame) unwinder. Nothing
 * here changes the sample itself: the core sample is counted as without
 * --stacks, and a record that finds the ring full is only counted
 * (FSP_STAT_NATIVE_LOST).
 *
 * native_sample() is a global function: the verifier checks it once on its
 * own, so it adds nothing to the sampler's budget.
 */
#ifndef FSP_NATIVE_BPF_H
#define FSP_NATIVE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "util.bpf.h"

/* Configured by userspace before load (--stacks, --stack-size). */
const volatile bool native_user = false;
const volatile bool native_kernel = false;
/* Bytes reserved for the stack copy: a multiple of 8 within
 * [FSP_NATIVE_MIN_STACK, FSP_NATIVE_MAX_STACK]. */
const volatile __u32 native_stack_size = FSP_NATIVE_DEFAULT_STACK;
/* --events of function features: uretprobes may be pending (native_unhijack) */
const volatile bool native_uretprobes = false;
/* native_rb's size (a power of two pages); wakes userspace at a quarter. */
const volatile __u32 native_rb_size = 4096;

/* Sized by userspace (native_rb_size; a page when --stacks is off). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} native_rb SEC(".maps");

/* The sampler's live mark stack's stack pointers (livestack.bpf.h), per CPU:
 * written before native_sample() reads them, in the same program. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsp_mark_sps);
} mark_sps SEC(".maps");

#define NATIVE_PAGE 4096
#define NATIVE_MAX_TRIES (FSP_NATIVE_MAX_STACK / NATIVE_PAGE + 2)

/* pt_regs (x86-64) in DWARF register order: rax rdx rcx rbx rsi rdi rbp rsp
 * r8-r15, and rip as the return address column 16. */
static __always_inline void native_regs(__u64 *out, const struct pt_regs *r)
{
	out[0] = r->ax;
	out[1] = r->dx;
	out[2] = r->cx;
	out[3] = r->bx;
	out[4] = r->si;
	out[5] = r->di;
	out[6] = r->bp;
	out[7] = r->sp;
	out[8] = r->r8;
	out[9] = r->r9;
	out[10] = r->r10;
	out[11] = r->r11;
	out[12] = r->r12;
	out[13] = r->r13;
	out[14] = r->r14;
	out[15] = r->r15;
	out[16] = r->ip;
}

/*
 * Copies up to size bytes of the user stack from sp into dst. The whole
 * size at once in the common case; near the top of a stack the read runs
 * past the mapping's end and faults as a whole, so then the longest prefix
 * that ends at a page boundary is found, shrinking a page at a time.
 * Returns the bytes copied.
 */
static __always_inline __u32 native_copy(__u8 *dst, __u64 sp, __u32 size)
{
	__u32 first = NATIVE_PAGE - (sp & (NATIVE_PAGE - 1)), pages, len;

	if (!bpf_probe_read_user(dst, size, (void *)sp))
		return size;
	if (size <= first)
		return 0;
	pages = (size - first - 1) / NATIVE_PAGE;
	for (__u32 i = 0; i < NATIVE_MAX_TRIES && i <= pages; i++) {
		__u64 n = first + (pages - i) * NATIVE_PAGE;

		/* bounded where the verifier sees it (as slot() does) */
		asm volatile("%0 &= 0xffff" : "+r"(n));
		if (n > size || !n)
			return 0;
		len = n;
		if (!bpf_probe_read_user(dst, len, (void *)sp))
			return len;
	}
	return 0;
}

/* Is the task in execve()? Its user registers and stack are then the old
 * program's (whose mappings are being replaced) or the new one's before its
 * first instruction: nothing to unwind. */
/*
 * A pending uretprobe (--events of function features: func_leave) has put
 * the kernel's trampoline in place of its call's return address on the
 * stack: the copy gets the original back (the kernel's return instances say
 * where and what), so that the stack unwinds as it would without the probe.
 * The frame-pointer walk (bpf_get_stack) is mended by the kernel itself.
 */
static __always_inline void native_unhijack(struct task_struct *task, __u8 *stack, __u64 sp,
					    __u64 len, __u64 size)
{
	struct return_instance *ri = BPF_CORE_READ(task, utask, return_instances);
	__u32 i;

	for (i = 0; i < 16 && ri; i++) {
		__u64 slot = BPF_CORE_READ(ri, stack), off = slot - sp;

		if (slot >= sp && off + 8 <= len && off + 8 <= size &&
		    off <= FSP_NATIVE_MAX_STACK - 8) {
			asm volatile("%0 &= 0xffff" : "+r"(off));
			_Static_assert(FSP_NATIVE_MAX_STACK <= 0x10000, "masked with 0xffff");
			if (off + 8 <= size)
				bpf_probe_read_kernel(stack + off, 8, &ri->orig_ret_vaddr);
		}
		ri = BPF_CORE_READ(ri, next);
	}
}

/*
 * The same probes move the thread's registers where its code is not: a
 * sample taken in a breakpoint's trap is given the breakpoint's address
 * (the trap leaves it one byte further: the probed instruction, not run
 * yet, would seem to have run); one taken while a probed instruction is
 * single-stepped out of line
 * (the [uprobes] page's slot) is given the instruction's own address, and
 * one taken in the uretprobe trampoline (the function has returned, its
 * return not handled yet) is given the function's entry, with the stack
 * pointer at its return address, as if the call were about to end there:
 * the time of the trap stays the call's, as the program's own clock sees it.
 */
static __always_inline void native_unuprobe(struct task_struct *task, struct pt_regs *regs)
{
	struct uprobe_task *ut = BPF_CORE_READ(task, utask);
	struct return_instance *ri;
	__u64 ip = regs->ip, xol, tramp, slot;
	__u8 op = 0;

	if (!ut)
		return;
	/* In the breakpoint's trap, before the probed instruction ran: its
	 * uretprobe (set up first) saw the same stack pointer, or is not set
	 * up yet. After it ran (emulated: push %rbp), the address is one
	 * byte further too, but the stack pointer has moved. */
	ri = BPF_CORE_READ(ut, return_instances);
	if (!bpf_probe_read_user(&op, 1, (void *)(ip - 1)) && op == 0xcc &&
	    (!ri || BPF_CORE_READ(ri, func) != ip - 1 || BPF_CORE_READ(ri, stack) == regs->sp)) {
		regs->ip = ip - 1;
		return;
	}
	xol = BPF_CORE_READ(ut, xol_vaddr);
	if (BPF_CORE_READ(ut, state) != UTASK_RUNNING && xol && ip >= xol && ip < xol + 128) {
		regs->ip = BPF_CORE_READ(ut, vaddr) + (ip - xol);
		return;
	}
	tramp = BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
	if (!tramp || ip < tramp || ip >= tramp + 128)
		return;
	/* the trampoline runs at most 16 bytes below the return address's slot */
	slot = ri ? BPF_CORE_READ(ri, stack) : 0;
	if (slot && slot + 8 >= regs->sp && slot <= regs->sp + 16) {
		regs->ip = BPF_CORE_READ(ri, func);
		regs->sp = slot;
		return;
	}
	/* Handled (x86-64's uretprobe syscall): the original return address
	 * is back in that slot, where the trampoline's ret takes it: the
	 * thread is as good as back in the caller. */
	if (!bpf_probe_read_user(&slot, sizeof(slot), (void *)(regs->sp + 16)) && slot &&
	    (slot < tramp || slot >= tramp + 4096)) {
		regs->ip = slot;
		regs->sp += 24;
	}
}

static __always_inline bool native_in_exec(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->in_execve))
		return false;
	return BPF_CORE_READ_BITFIELD(task, in_execve);
}

/* The record of one sample of (tgid, tid) with mark stack key and call record
 * time call_time (record --calls, 0: none). Global (not inlined): verified
 * apart from the sampler. Always returns 0. */
__noinline int native_sample(struct bpf_perf_event_data *ctx, __u32 tgid, __u32 tid, __u64 key,
			     __u64 call_time)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fsp_native_rec *r;
	struct pt_regs regs;
	__u64 size = native_stack_size, avail;
	bool in_exec = native_user && native_in_exec(task), user = native_user && !in_exec;
	long n;

	if (native_user && (size < FSP_NATIVE_MIN_STACK || size > FSP_NATIVE_MAX_STACK))
		return 0;
	/* no room for a stack copy that is not taken (--stacks=kernel, exec) */
	if (!user)
		size = 0;
	r = bpf_ringbuf_reserve(&native_rb, sizeof(*r) + size, 0);
	if (!r) {
		stat_inc(FSP_STAT_NATIVE_LOST);
		return 0;
	}
	r->tgid = tgid;
	r->tid = tid;
	r->key = key;
	r->time_ns = call_time;
	r->flags = (user ? FSP_NATIVE_USER : 0) | (native_kernel ? FSP_NATIVE_KERNEL : 0) |
		   (in_exec ? FSP_NATIVE_EXEC : 0);
	r->user_len = 0;
	r->kernel_len = 0;
	r->stack_len = 0;
	/* An exec bumps it: userspace tells the image's records from those of
	 * the program it replaced (the mappings it reads are the new one's). */
	r->exec_id = task->self_exec_id;
	{
		__u32 zero = 0;
		const struct fsp_mark_sps *m = bpf_map_lookup_elem(&mark_sps, &zero);

		if (m && user)
			__builtin_memcpy(&r->marks, m, sizeof(r->marks));
		else
			r->marks.n = 0;
	}
	/* The user registers even when the sample interrupted the kernel. */
	if (bpf_probe_read_kernel(&regs, sizeof(regs), (void *)bpf_task_pt_regs(task)))
		__builtin_memset(&regs, 0, sizeof(regs));
	if (native_uretprobes && user)
		native_unuprobe(task, &regs);
	native_regs(r->regs, &regs);
	if (user) {
		n = bpf_get_stack(ctx, r->ustack, sizeof(r->ustack), BPF_F_USER_STACK);
		r->user_len = n > 0 ? n : 0;
		if (regs.sp) {
			r->stack_len = native_copy(r->stack, regs.sp, size);
			if (native_uretprobes)
				native_unhijack(task, r->stack, regs.sp, r->stack_len, size);
			if (!bpf_probe_read_user(r->redzone, sizeof(r->redzone),
						 (void *)(regs.sp - sizeof(r->redzone))))
				r->flags |= FSP_NATIVE_REDZONE;
		}
	}
	if (native_kernel) {
		n = bpf_get_stack(ctx, r->kstack, sizeof(r->kstack), 0);
		r->kernel_len = n > 0 ? n : 0;
	}
	/* Userspace also polls the ring every few milliseconds. */
	avail = bpf_ringbuf_query(&native_rb, BPF_RB_AVAIL_DATA);
	bpf_ringbuf_submit(r, avail > native_rb_size / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return 0;
}

#endif /* FSP_NATIVE_BPF_H */
