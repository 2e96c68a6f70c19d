/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Is a mark's frame still live? A pure function of the frame's stack pointer
 * (at its enter), the thread's current stack pointer and the thread's stack
 * bounds, shared by the probes and the sampler (bpf/markstack.bpf.h), by any
 * reader of mark stacks kept elsewhere (a trap-free ABI's stacks in the
 * thread's memory need the same rule) and by the unit tests.
 *
 * The includer provides __u64 and bool (vmlinux.h; <linux/types.h> and
 * <stdbool.h> in userspace).
 *
 * The rule. A thread runs on its own stack or, in a signal handler installed
 * with SA_ONSTACK, on its alternate signal stack (sigaltstack), which can be
 * anywhere, also right above its own stack. Stack pointers are compared only
 * within one stack:
 *
 *   - frame and thread on the same stack: the frame is dead when its stack
 *     pointer is below the current one (its function returned or was unwound)
 *     by less than `window` (farther apart: another stack, e.g. a coroutine's,
 *     left alone);
 *   - thread on the alternate stack, frame not: live (the handler interrupted
 *     it; the handler's own frames are compared among themselves);
 *   - frame on the alternate stack, thread not: dead (the handler returned,
 *     or left by siglongjmp).
 */
#ifndef FSP_FRAMELIVE_H
#define FSP_FRAMELIVE_H

struct fsp_stack_bounds {
	/* The alternate signal stack as the kernel keeps it (task's sas_ss_sp
	 * and sas_ss_size); size 0: none. */
	__u64 alt_sp;
	__u64 alt_size;
	/* Frames below the current stack pointer by this much or more are on
	 * another stack. */
	__u64 window;
};

/* Is sp on the alternate signal stack? The kernel's on_sig_stack(): the
 * stack grows down from alt_sp + alt_size, so its top is part of it. */
static inline bool fsp_on_alt_stack(__u64 sp, const struct fsp_stack_bounds *b)
{
	return b->alt_size && sp > b->alt_sp && sp - b->alt_sp <= b->alt_size;
}

/* Is the frame entered at stack pointer frame_sp dead when the thread's stack
 * pointer is sp? */
static inline bool fsp_frame_dead(__u64 frame_sp, __u64 sp, const struct fsp_stack_bounds *b)
{
	bool frame_alt = fsp_on_alt_stack(frame_sp, b);

	if (frame_alt != fsp_on_alt_stack(sp, b))
		return frame_alt;
	return frame_sp < sp && sp - frame_sp < b->window;
}

#endif /* FSP_FRAMELIVE_H */
