/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Small helpers every part uses: bounded stack and label indices, the 64-bit
 * mix, diagnostic counters, scratch buffers and ring-buffer events.
 */
#ifndef FSP_UTIL_BPF_H
#define FSP_UTIL_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "maps.bpf.h"

#define DEPTH_MASK (FSP_MAX_DEPTH - 1)
_Static_assert((FSP_MAX_DEPTH & DEPTH_MASK) == 0, "FSP_MAX_DEPTH must be a power of two");

#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))

/* Never written: 0, in .bss, which the verifier does not read (see
 * unknown_zero). */
__u32 opaque_zero;

/*
 * 0, but unknown to the verifier: the start of a bpf_loop callback's counter.
 * The verifier checks a callback again until its context repeats; a counter
 * that starts at a known 0 and is compared or used as an index makes each
 * value it takes a new context (up to 64 checks of the callback), one that
 * starts unknown repeats after the first. It costs loading time, not run
 * time: without it the sampler took 2.5 times the instructions to verify.
 */
static __always_inline __u32 unknown_zero(void)
{
	return READ_ONCE(opaque_zero);
}

/* Index into a stack array in a way the verifier sees bounded: the compiler
 * would drop a plain "& DEPTH_MASK" after its own range checks. */
static __always_inline __u64 slot(__u64 i)
{
	asm volatile("%0 &= 63" : "+r"(i));
	return i;
}
_Static_assert(DEPTH_MASK == 63, "slot() masks with 63");

static __always_inline __u64 slot_label(__u64 i)
{
	asm volatile("%0 &= 255" : "+r"(i));
	return i;
}
_Static_assert(FSP_LABEL_LEN == 256, "slot_label() masks with 255");

/* The name of task's process (its main thread's comm) into pcomm, for a
 * thread other than the main one (struct fsp_count.pcomm). */
static __always_inline void process_comm(struct task_struct *task, char *pcomm)
{
	if (task->pid != task->tgid)
		bpf_probe_read_kernel(pcomm, FSP_COMM_LEN, task->group_leader->comm);
}

static __always_inline void stat_inc(__u32 stat)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &stat);

	if (v)
		(*v)++;
}

static __always_inline void stat_add(__u32 stat, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &stat);

	if (v)
		*v += n;
}

static __always_inline void emit_addr(__u32 type, __u32 pid, __u32 ppid, __u64 addr)
{
	struct fsp_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(FSP_STAT_EVENTS_LOST);
		return;
	}
	e->type = type;
	e->pid = pid;
	e->ppid = ppid;
	e->pad = 0;
	e->addr = addr;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void emit(__u32 type, __u32 pid, __u32 ppid)
{
	emit_addr(type, pid, ppid, 0);
}

static __always_inline __u64 mix64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static __always_inline void *scratch_get(__u32 user)
{
	return bpf_map_lookup_elem(&scratch, &user);
}

#endif /* FSP_UTIL_BPF_H */
