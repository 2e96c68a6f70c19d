/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU time (--off-cpu): a target thread's off-CPU record, found and
 * claimed by thread id, the time accumulated per stack in it, and its charge
 * to the counts map; switch_out() takes the stack a thread leaves the CPU with,
 * switch_in() ends the interval, and offcpu_recover() rebuilds an interval one
 * of whose ends sched_switch did not report from the thread's CPU clock.
 */
#ifndef FSP_OFFCPU_BPF_H
#define FSP_OFFCPU_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"
#include "admit.bpf.h"
#include "markstack.bpf.h"
#include "livestack.bpf.h"

/* Set by userspace before it detaches on_switch at the end of the session:
 * from then on a pending interval may have ended unseen. */
bool offcpu_detaching = false;

#define TASK_DEAD 0x80 /* prev_state of a thread's final switch-out */
#define PF_KTHREAD 0x00200000 /* task_struct.flags: a kernel thread */

/*
 * The clock of off-CPU intervals: the run queue clock (rq->clock, sched_clock
 * based, ns) of the CPU that task t is on. In sched_switch, __schedule() has
 * just updated it, so it is "now" for the cost of three loads, where
 * bpf_ktime_get_ns() costs ~50 ns on a VM. Both ends of an interval read it in
 * sched_switch, possibly on two CPUs: their clocks agree (x86 with a stable
 * TSC: sched_clock() plus one offset; else within a tick). Reached through
 * the task's CFS run queue (the per-CPU `runqueues` is not a ksym without
 * CONFIG_KALLSYMS_ALL); without CONFIG_FAIR_GROUP_SCHED, ktime throughout.
 */
static __always_inline __u64 sched_now(struct task_struct *t)
{
	if (bpf_core_field_exists(t->se.cfs_rq))
		return t->se.cfs_rq->rq->clock;
	return bpf_ktime_get_ns();
}

/*
 * The CPU time of thread t (ns): the scheduler's se.sum_exec_runtime, what
 * CLOCK_THREAD_CPUTIME_ID reads. In sched_switch it is exact for both threads:
 * __schedule() has charged prev up to now (update_curr() at its dequeue or in
 * put_prev_task()), and next has not run since it was charged at its
 * switch-out. It advances by rq->clock_task, which is rq->clock less the time
 * of interrupts (CONFIG_IRQ_TIME_ACCOUNTING) and of the hypervisor's steal
 * (CONFIG_PARAVIRT_TIME_ACCOUNTING).
 */
static __always_inline __u64 cpu_clock(struct task_struct *t)
{
	return t->se.sum_exec_runtime;
}

/*
 * sched_switch did not report one end of the thread's interval: the kernel
 * counts the switch (rq->nr_switches) but the tracepoint does not run for
 * it; on some kernels the switch-outs of some threads are never reported,
 * and the next target thread on that CPU runs without a switch-in. At `now`
 * (CPU time `cpu`), the thread was off the CPU for the time since its latest
 * event seen (at_ts, at_cpu) less the CPU time it ran since: the interval
 * becomes the pending one, ending at `now`, for offcpu_end() to charge. The
 * result is exact but for the interrupt and steal time of the run between
 * (cpu_clock()), which it counts as off-CPU time, as CLOCK_THREAD_CPUTIME_ID
 * does.
 */
static __always_inline void offcpu_recover(struct offcpu_rec *r, __u64 now, __u64 cpu)
{
	__u64 elapsed = now > r->at_ts ? now - r->at_ts : 0;
	__u64 ran = cpu > r->at_cpu ? cpu - r->at_cpu : 0;

	r->off_ts = now - (elapsed > ran ? elapsed - ran : 0);
}

/* The off-CPU record of thread tid of process tgid, if it has one. */
static __always_inline struct offcpu_rec *rec_find(__u32 tid, __u32 tgid)
{
	__u64 owner = (__u64)tgid << 32 | tid;
	__u32 i = tid & offcpu_mask;
	struct offcpu_rec *r = bpf_map_lookup_elem(&offcpu_recs, &i);

	if (!r)
		return NULL;
	if (r->owner == owner)
		return r;
	if (!r->spill)
		return NULL;
	r = bpf_map_lookup_elem(&offcpu_spill, &tid);
	return r && r->owner == owner ? r : NULL;
}

/* Adds ns of off-CPU time of thread `task` with stack `hash` to counts. */
static __noinline void charge_offcpu(struct task_struct *task, __u64 hash, __u64 ns)
{
	__u64 now = bpf_jiffies64(); /* as the sampler's seen */
	struct fsp_count_key key = {.tgid = task->tgid, .tid = task->pid, .hash = hash};
	struct fsp_count *c = bpf_map_lookup_elem(&counts, &key), fresh = {};

	if (c) {
		__sync_fetch_and_add(&c->offcpu_ns, ns);
		/* The sampler keeps a running thread's latest name; this one may
		 * seldom run (comm is renamed by exec and prctl). */
		bpf_probe_read_kernel(c->comm, sizeof(c->comm), task->comm);
		process_comm(task, c->pcomm);
		c->seen = now;
		return;
	}
	fresh.offcpu_ns = ns;
	fresh.seen = now;
	bpf_probe_read_kernel(fresh.comm, sizeof(fresh.comm), task->comm);
	process_comm(task, fresh.pcomm);
	if (bpf_map_update_elem(&counts, &key, &fresh, BPF_NOEXIST)) {
		c = bpf_map_lookup_elem(&counts, &key);
		if (c)
			__sync_fetch_and_add(&c->offcpu_ns, ns);
		else
			stat_inc(FSP_STAT_OFFCPU_DROPS);
	}
}

/* Moves all of the thread's accumulated off-CPU time to the counts map. */
static __always_inline void flush_acc(struct task_struct *task, struct offcpu_rec *r)
{
	for (int i = 0; i < OFFCPU_ACC; i++) {
		if (!r->acc[i].ns)
			continue;
		charge_offcpu(task, r->acc[i].hash, r->acc[i].ns);
		r->acc[i].ns = 0;
	}
}

/* The record's accumulator entry for stack hash h: the one holding h, else a
 * free one, else (all four hold other stacks) the one after the last used,
 * emptied into the counts map first. Associative, not direct-mapped: a thread
 * that blocks in turn inside and outside a mark (hash 0) would otherwise
 * evict one with the other on every switch when their hashes share a slot. */
static __always_inline struct acc_entry *acc_entry(struct task_struct *task, struct offcpu_rec *r,
						   __u64 h)
{
	struct acc_entry *e = NULL;
	int i;

	for (i = 0; i < OFFCPU_ACC; i++) {
		if (r->acc[i].hash == h && r->acc[i].ns)
			return &r->acc[i];
		if (!e && !r->acc[i].ns)
			e = &r->acc[i];
	}
	if (e)
		return e;
	e = &r->acc[r->acc_next++ & (OFFCPU_ACC - 1)];
	charge_offcpu(task, e->hash, e->ns);
	e->ns = 0;
	return e;
}

/* record --calls: thread task leaves the CPU with live stack hash (its call
 * numbers noted by live_stack_switch) at off_ts: the interval's start. */
static __always_inline void offcpu_calls_out(__u64 hash, __u64 off_ts)
{
	struct fsp_call_rec *r = scratch_get(SCRATCH_CALLS_SWITCH);
	__u64 n;

	if (!calls_enabled || !r || !hash)
		return;
	n = r->depth;
	asm volatile("%0 &= 127" : "+r"(n));
	if (n >= FSP_MAX_DEPTH)
		return;
	r->hash = hash;
	r->time_ns = bpf_ktime_get_ns();
	r->call[n] = off_ts;
	r->depth = n | FSP_CALL_OFFCPU_OUT;
	if (bpf_ringbuf_output(&calls_rb, r, FSP_CALL_REC_HEAD + (n + 1) * sizeof(__u64),
			       BPF_RB_NO_WAKEUP))
		stat_inc(FSP_STAT_CALLS_LOST);
}

/* record --calls: the interval of task that started at r->off_ts lasted ns. */
static __always_inline void offcpu_calls_end(struct task_struct *task, struct offcpu_rec *r,
					     __u64 ns)
{
	/* struct fsp_call_rec's head and call[0] */
	struct {
		__u32 tgid, tid;
		__u64 hash, time_ns, depth, ns;
	} e;

	if (!calls_enabled || !r->off_hash)
		return;
	e.tgid = task->tgid;
	e.tid = task->pid;
	e.hash = r->off_hash;
	e.time_ns = r->off_ts;
	e.depth = FSP_CALL_OFFCPU_END;
	e.ns = ns;
	if (bpf_ringbuf_output(&calls_rb, &e, sizeof(e), BPF_RB_NO_WAKEUP))
		stat_inc(FSP_STAT_CALLS_LOST);
}

/*
 * The thread runs again (or the session ends) at `now`: the time since its
 * switch-out is off-CPU time of the stack it had then. It accumulates in the
 * thread's record, saving a counts lookup on most switches.
 */
static __always_inline void offcpu_end(struct task_struct *task, struct offcpu_rec *r, __u64 now)
{
	__u64 ns = now > r->off_ts ? now - r->off_ts : 0;
	struct acc_entry *e = acc_entry(task, r, r->off_hash);

	offcpu_calls_end(task, r, ns);
	r->off_ts = 0;
	e->hash = r->off_hash;
	e->ns += ns; /* an entry holding 0 ns is free */
}

/* A record for target thread t: its array slot if free, else an entry of
 * offcpu_spill (and the slot says so). NULL when both are full. */
static __noinline struct offcpu_rec *rec_claim(struct task_struct *t)
{
	__u32 tid = t->pid, i = tid & offcpu_mask;
	struct offcpu_rec fresh = {.owner = (__u64)t->tgid << 32 | tid}, *r;

	r = bpf_map_lookup_elem(&offcpu_recs, &i);
	if (!r)
		return NULL;
	if (__sync_val_compare_and_swap(&r->owner, 0, fresh.owner) == 0) {
		r->off_ts = 0;
		r->off_stored = 0;
		r->acc_next = 0;
		for (int k = 0; k < OFFCPU_ACC; k++)
			r->acc[k].ns = 0;
		return r;
	}
	r->spill = 1;
	bpf_map_update_elem(&offcpu_spill, &tid, &fresh, BPF_NOEXIST);
	r = bpf_map_lookup_elem(&offcpu_spill, &tid);
	if (!r || r->owner != fresh.owner)
		return NULL;
	return r;
}

/* The thread's record is no longer needed (it exits or execs). */
static __always_inline void rec_release(struct offcpu_rec *r, __u32 tid)
{
	__u32 i = tid & offcpu_mask;
	struct offcpu_rec *slot = bpf_map_lookup_elem(&offcpu_recs, &i);

	if (slot == r)
		WRITE_ONCE(r->owner, 0);
	else
		bpf_map_delete_elem(&offcpu_spill, &tid);
}

/* The record of prev if it is a target thread whose switch-out counts. */
static __always_inline struct offcpu_rec *offcpu_thread(struct task_struct *prev,
							unsigned int prev_state)
{
	__u32 tgid = prev->tgid;
	struct offcpu_rec *r;

	/* The idle task and kernel threads are no targets; a dying thread
	 * never comes back. */
	if (!tgid || (prev_state & TASK_DEAD) || (prev->flags & PF_KTHREAD))
		return NULL;
	r = rec_find(prev->pid, tgid);
	if (r || !is_target_task(prev))
		return r;
	r = rec_claim(prev);
	if (!r)
		stat_inc(FSP_STAT_OFFCPU_NOREC);
	return r;
}

/* The hash of thread t's live mark stack (0: empty), stored in the stacks
 * map the first time the record sees it. */
static __always_inline __u64 live_hash(struct task_struct *t, struct offcpu_rec *r)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	struct live_take lt;

	/* t is still the current task: its memory (ABI v2 stacks) is readable. */
	live_stack_switch(&lt, regs->sp, r->off_stored);
	if (lt.hash)
		r->off_stored = lt.hash;
	return lt.hash;
}

/*
 * A target thread leaves the CPU, for whatever reason: it blocks or sleeps
 * (prev_state != 0), or it is preempted while runnable. Until it runs again,
 * its time is off-CPU time of the live mark stack it has now (stored in the
 * stacks map the first time it is seen). An interval still pending means that
 * its switch-in was not reported: that interval is recovered first.
 */
static __always_inline void switch_out(struct task_struct *prev, struct offcpu_rec *r, __u64 now)
{
	__u64 cpu = cpu_clock(prev);

	if (r->off_ts) {
		offcpu_recover(r, now, cpu);
		offcpu_end(prev, r, now);
		stat_inc(FSP_STAT_OFFCPU_RECOVERED);
	}
	r->off_hash = live_hash(prev, r);
	r->off_ts = now;
	offcpu_calls_out(r->off_hash, now);
	r->at_ts = now;
	r->at_cpu = cpu;
}

/*
 * A target thread runs again: its interval ends. None pending means that its
 * switch-out was not reported: the interval since its latest switch-in is
 * recovered, charged to the stack it has now, the one it left with (it has
 * not run since).
 */
static __always_inline void switch_in(struct task_struct *next, struct offcpu_rec *r, __u64 now)
{
	__u64 cpu = cpu_clock(next);

	if (!r->off_ts) {
		r->off_hash = live_hash(next, r);
		offcpu_recover(r, now, cpu);
		stat_inc(FSP_STAT_OFFCPU_RECOVERED);
	}
	offcpu_end(next, r, now);
	r->at_ts = now;
	r->at_cpu = cpu;
}

/*
 * Closes the pending interval of thread t, if any, when it exits or execs
 * (it is running: its switch-in was not seen) or at the end of the session
 * (on_switch is detached: it may have run since). A thread on a CPU is
 * measured with that CPU's clock, which the scheduler updated with its CPU
 * time (at the CPU's latest tick or switch); a thread off the CPU up to `now`
 * less the CPU time it ran since its switch-out (none unless a switch-in
 * went unseen).
 */
static __always_inline void offcpu_close(struct task_struct *t, struct offcpu_rec *r, __u64 now)
{
	if (!r->off_ts)
		return;
	if (t->on_cpu)
		now = sched_now(t);
	offcpu_recover(r, now, cpu_clock(t));
	offcpu_end(t, r, now);
}

/*
 * Thread t, running, exits or execs: its record (held under thread id tid)
 * goes, its off-CPU time to the counts map. An interval still pending lost its
 * switch-in (unless on_switch is being detached) and is recovered.
 */
static __always_inline void rec_retire(struct task_struct *t, struct offcpu_rec *r, __u32 tid)
{
	if (r->off_ts && !offcpu_detaching)
		stat_inc(FSP_STAT_OFFCPU_RECOVERED);
	offcpu_close(t, r, sched_now(t));
	flush_acc(t, r);
	rec_release(r, tid);
}

#endif /* FSP_OFFCPU_BPF_H */
