// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf kernel side.
 *
 * Probe ABI v1: four USDT programs keep a mark stack per thread (task-local
 * storage, freed with the thread). Probe ABI v2: the marks keep their stack in
 * the process's own memory, one per thread and library, without trapping;
 * v2_announce registers where (the fsp:v2 probe of a library's constructor, or
 * userspace for a running process). A perf-event program on every CPU samples
 * the targeted processes: it takes the live part of the current thread's mark
 * stacks, merged, and counts (tgid, tid, stack hash), storing each new stack's
 * frames once; a stack is identified without its payloads, which go to
 * userspace with each sample (payload_rb). All attribution happens in
 * userspace (analysis/).
 *
 * Marks are frame-bound: each frame remembers the user stack pointer at its
 * enter. Once the thread's stack pointer is above it on the same stack (the
 * entering function returned or was unwound by longjmp/an exception without
 * its leave), the frame is dead: the sampler ignores it and the next probe
 * drops it (framelive.h: a signal handler's alternate stack is told apart;
 * coro.bpf.h: swapcontext coroutines park their frames).
 *
 * The event view (rodata events_enabled) counts every mark's enter and leave
 * and the duration between them, per (process, feature, instance), in a
 * per-CPU array: exact figures for features too short to sample. Nothing is
 * sent per event; userspace reads the sums at the end.
 *
 * Off-CPU time (program on_switch, loaded with --off-cpu only) charges the
 * time a target thread spends switched out to the mark stack it had when it
 * left the CPU, next to the samples in the counts map.
 *
 * One compilation unit, because the hot path depends on __always_inline and
 * every part shares the same maps. This file holds the programs (SEC), one per
 * probe, tracepoint or event, and reads as the table of contents; what they
 * call lives in headers with one concern each (each includes what it uses):
 *
 *   config.bpf.h     rodata: the configuration userspace sets before load
 *   maps.bpf.h       the internal structs and every map
 *   util.bpf.h       slot(), mix64(), diagnostic counters, scratch, emit()
 *   admit.bpf.h      admission: which processes count (targets, --comm)
 *   labels.bpf.h     label copies and their hashes (match by name)
 *   eventview.bpf.h  the event view: per-instance counts, durations, histogram
 *   markstack.bpf.h  the mark stack: liveness, enter/leave, fork copy, store
 *   usdt_arg.bpf.h   USDT argument decoding (read_reg, usdt_arg)
 *   mapped.bpf.h     mapped probes (--map): site, instance label, outer mark,
 *                    "when" conditions, point events
 *   charge.bpf.h     "charge threads": marks charged to other threads' samples
 *   offcpu.bpf.h     off-CPU records, accumulation, charge, switch_out/in()
 *   coro.bpf.h       coroutines: marks parked with the context they belong to
 *   native.bpf.h     native stacks with each sample (--stacks): registers,
 *                    frame-pointer stacks, a copy of the user stack
 *   v2stack.bpf.h    ABI v2: records, a thread's stacks in its memory, the merge
 *                    by stack pointer
 *   samplelabel.bpf.h "label sample": instances read when a sample is taken
 *   livestack.bpf.h  the live stack a sample or a switch-out charges: taken,
 *                    stored with its labels, its payloads sent
 */
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
#include "usdt_arg.bpf.h"
#include "mapped.bpf.h"
#include "charge.bpf.h"
#include "offcpu.bpf.h"
#include "coro.bpf.h"
#include "native.bpf.h"
#include "v2stack.bpf.h"
#include "samplelabel.bpf.h"
#include "livestack.bpf.h"
#include "funcev.bpf.h"

/* ---- USDT probes (fsp.h) --------------------------------------------------- */

/* The feature (argument 0) of a mark or antimark probe hit, with its spec;
 * false when the hit counts for nothing: the process is not admitted, the
 * arguments cannot be read (counted), or it is an ABI v2 mark's shadow site
 * of a feature --events=FEATURE,... leaves out. */
static __always_inline bool probe_feature(struct pt_regs *ctx, bool enter,
					  const struct fsp_usdt_spec **spec, __u64 *feature)
{
	*spec = usdt_spec(ctx);
	if (!admit(enter))
		return false;
	if (!*spec || usdt_arg(ctx, *spec, 0, feature)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return false;
	}
	return !site_shadow(ctx) || event_wanted(ctx, *feature);
}

SEC("uprobe")
int mark_enter(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec;
	__u64 feature, instance, payload;

	if (!probe_feature(ctx, true, &spec, &feature))
		return 0;
	if (usdt_arg(ctx, spec, 1, &instance) || usdt_arg(ctx, spec, 2, &payload)) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	return do_enter(ctx, FSP_FRAME_MARK, feature, instance, instance, payload, 0,
			site_shadow(ctx));
}

SEC("uprobe")
int mark_leave(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec;
	__u64 feature;

	if (!probe_feature(ctx, false, &spec, &feature))
		return 0;
	return do_leave(ctx, FSP_FRAME_MARK, feature, 0, false, site_shadow(ctx));
}

SEC("uprobe")
int antimark_enter(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec;
	__u64 feature;

	if (!probe_feature(ctx, true, &spec, &feature))
		return 0;
	return do_enter(ctx, FSP_FRAME_ANTIMARK, feature, 0, 0, 0, 0, site_shadow(ctx));
}

SEC("uprobe")
int antimark_leave(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec;
	__u64 feature;

	if (!probe_feature(ctx, false, &spec, &feature))
		return 0;
	return do_leave(ctx, FSP_FRAME_ANTIMARK, feature, 0, false, site_shadow(ctx));
}

/* --events: the cost of a probe hit, measured by userspace at the start on a
 * function of its own (session/eventsel.c): a trap and this empty program. */
SEC("uprobe")
int trap_cost(struct pt_regs *ctx)
{
	return 0;
}

/* ABI v2: a library's constructor announces its record (address, TLS offset). */
SEC("uprobe")
int v2_announce(struct pt_regs *ctx)
{
	const struct fsp_usdt_spec *spec = usdt_spec(ctx);
	__u64 record, tp_offset;
	__u16 frame_size;
	__u32 gen;

	if (!admit(true))
		return 0;
	if (!spec || usdt_arg(ctx, spec, 0, &record) || usdt_arg(ctx, spec, 1, &tp_offset) ||
	    bpf_probe_read_user(&gen, sizeof(gen), (void *)(record + FSP_V2_GEN_OFF)) ||
	    bpf_probe_read_user(&frame_size, sizeof(frame_size),
				(void *)(record + FSP_V2_FRAME_SIZE_OFF))) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	v2_register(bpf_get_current_pid_tgid() >> 32, record, tp_offset, gen, frame_size);
	return 0;
}

/* ---- mapped probes (--map) ------------------------------------------------ */

SEC("uprobe")
int map_enter(struct pt_regs *ctx)
{
	const struct fsp_map_site *ms = map_site(ctx);
	__u64 instance = 0, ev_instance, payload = 0, kind, sp_off;
	bool on;

	if (!admit(true))
		return 0;
	if (!ms) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	/* "when": an enter that fails a condition is muted (a frame that
	 * charges and counts nothing, closed by the feature's leave). */
	on = !ms->nr_conds || map_conds(ctx, ms);
	if (ms->flags & FSP_MAP_POINT)
		return on ? map_point(ctx, ms) : 0;
	if (ms->flags & FSP_MAP_OUTER)
		instance = outer_instance(ctx, ms->outer);
	else if (ms->nr_parts)
		instance = map_label(ctx, ms, ms->parts, ms->nr_parts, on);
	/* "label sample": the frame's instance is read at each sample; the
	 * enter's counts the call in the event view. */
	ev_instance = instance;
	if (on && (ms->flags & FSP_MAP_SAMPLE))
		instance = sampled_instance(ctx, ms);
	if (on && (ms->flags & FSP_MAP_PAYLOAD) &&
	    usdt_arg(ctx, &ms->spec, ms->payload_arg, &payload))
		stat_inc(FSP_STAT_ARG_ERRORS);
	kind = on ? ms->kind : KIND_MUTED;
	sp_off = (ms->flags & FSP_MAP_UNFRAMED) ? SP_UNFRAMED : ms->sp_off;
	do_enter(ctx, kind, ms->feature, instance, ev_instance, payload, sp_off, 0);
	if (charge_enabled) {
		struct tstack *st = tstack_get(false);

		if (on && (ms->flags & FSP_MAP_CHARGE))
			charge_open(st, ms, ev_instance);
		charge_sync(st);
	}
	return 0;
}

SEC("uprobe")
int map_leave(struct pt_regs *ctx)
{
	const struct fsp_map_site *ms = map_site(ctx);
	__u64 instance = 0;
	bool match;

	if (!admit(false))
		return 0;
	if (!ms) {
		stat_inc(FSP_STAT_ARG_ERRORS);
		return 0;
	}
	match = (ms->flags & FSP_MAP_MATCH_INSTANCE) && ms->nr_parts;
	if (match)
		instance = map_label(ctx, ms, ms->parts, ms->nr_parts, false);
	do_leave(ctx, ms->kind, ms->feature, instance, match, 0);
	if (charge_enabled)
		charge_sync(tstack_get(false));
	return 0;
}

/* ---- function features' calls (--events) ----------------------------------- */

SEC("uprobe")
int func_enter(struct pt_regs *ctx)
{
	if (ff_admitted())
		ff_enter(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

/* Attached as a uretprobe (BPF_F_UPROBE_MULTI_RETURN). */
SEC("uprobe")
int func_leave(struct pt_regs *ctx)
{
	if (ff_admitted())
		ff_leave(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

/* ---- the sampler ------------------------------------------------------------ */

/* The 8 bytes at off of the interrupted registers (the context allows only
 * whole words there; cs shares its word with padding). */
#define user_word(ctx, off)                                                                        \
	({                                                                                         \
		__u64 __w;                                                                         \
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(__w) : "r"(ctx), "i"(off));           \
		__w;                                                                               \
	})

/* record --calls: sends the sample's call record (live_stack_note_calls) under
 * the hash it is counted with. A sample without live frames sends none.
 * Returns the record's time (its native stack record's join key), 0: none. */
static __always_inline __u64 send_calls(__u64 hash)
{
	struct fsp_call_rec *r = scratch_get(SCRATCH_CALLS);
	__u64 size, flags = BPF_RB_NO_WAKEUP;

	if (!r || !hash)
		return 0;
	r->hash = hash;
	r->time_ns = bpf_ktime_get_ns();
	size = r->depth;
	asm volatile("%0 &= 127" : "+r"(size));
	if (size > FSP_MAX_DEPTH)
		return 0;
	size = FSP_CALL_REC_HEAD + size * sizeof(__u64);
	if (bpf_ringbuf_query(&calls_rb, BPF_RB_AVAIL_DATA) > FSP_CALLS_RB_SIZE / 2)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&calls_rb, r, size, flags)) {
		stat_inc(FSP_STAT_CALLS_LOST);
		return 0;
	}
	return r->time_ns;
}

/* One sample more in its counts entry (payload: its payloads were sent to
 * payload_rb). */
static __always_inline void count_sample(struct fsp_count *c, bool payload)
{
	__sync_fetch_and_add(&c->samples, 1);
	if (payload)
		__sync_fetch_and_add(&c->payload_samples, 1);
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fsp_count_key ckey = {.tgid = id >> 32, .tid = (__u32)id};
	struct fsp_count *c, fresh = {};
	struct task_struct *task;
	struct live_take lt;
	struct pt_regs *regs;
	bool payload;
	__u64 sp, call_time = 0;

	if (!ckey.tgid || !is_target())
		return 0;
	stat_inc(FSP_STAT_SAMPLES);

	/* The user stack pointer: the interrupted registers' if the sample
	 * landed in user mode (cs's privilege level 3), else the task's saved
	 * user registers'. */
	task = bpf_get_current_task_btf();
	if ((user_word(ctx, __builtin_offsetof(struct pt_regs, cs)) & 3) == 3) {
		sp = user_word(ctx, __builtin_offsetof(struct pt_regs, sp));
	} else {
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		sp = regs->sp;
	}
	live_stack_sample(&lt, sp);
	ckey.hash = lt.hash;
	payload = lt.payload;
	/* The truncated diagnostic counts every such sample here, before it
	 * reaches its counts entry (or is lost) whichever way below. */
	if (lt.truncated)
		stat_inc(FSP_STAT_TRUNCATED);
	if (charge_enabled)
		ckey.hash = charge_sample(ckey.tgid, ckey.tid, ckey.hash);
	if (calls_enabled)
		call_time = send_calls(ckey.hash);
	if (native_user || native_kernel)
		native_sample(ctx, ckey.tgid, ckey.tid, ckey.hash, call_time);

	c = bpf_map_lookup_elem(&counts, &ckey);
	if (c) {
		count_sample(c, payload);
		/* A thread is renamed by exec and by prctl/pthread_setname_np:
		 * keep its latest name (only this thread writes this entry). */
		bpf_get_current_comm(c->comm, sizeof(c->comm));
		process_comm(task, c->pcomm);
		/* It only orders the names: the tick count costs a load where
		 * bpf_ktime_get_ns() reads the clock. */
		c->seen = bpf_jiffies64();
		return 0;
	}
	fresh.samples = 1;
	fresh.payload_samples = payload;
	fresh.seen = bpf_jiffies64();
	bpf_get_current_comm(fresh.comm, sizeof(fresh.comm));
	process_comm(task, fresh.pcomm);
	/* The entry may have come meanwhile (the off-CPU hook writes it too):
	 * counted there. */
	if (bpf_map_update_elem(&counts, &ckey, &fresh, BPF_NOEXIST)) {
		c = bpf_map_lookup_elem(&counts, &ckey);
		if (c)
			count_sample(c, payload);
		else
			stat_inc(FSP_STAT_LOST_SAMPLES);
	}
	return 0;
}

/* ---- off-CPU time (--off-cpu) ----------------------------------------------- */

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct offcpu_rec *out = offcpu_thread(prev, prev_state);
	struct offcpu_rec *in = next->tgid ? rec_find(next->pid, next->tgid) : NULL;
	__u64 now = 0;

	/* Most switches of the machine concern no target (no clock read).
	 * This CPU's clock is read through a target task's run queue (prev
	 * and next are both on it): the idle task's se.cfs_rq need not be this
	 * CPU's, and another CPU's clock can be a whole idle period old. */
	if (out) {
		now = sched_now(prev);
		switch_out(prev, out, now);
	}
	if (in)
		switch_in(next, in, now ? now : sched_now(next));
	return 0;
}

/* A thread exits: a target thread's off-CPU record goes, its off-CPU time
 * not. System-wide, a process that was a target (or excluded) is reported
 * when its last thread exits, so that userspace retires its records. Loaded
 * with --off-cpu or -a. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p, bool group_dead)
{
	__u32 tgid = p->tgid;

	if (offcpu_enabled) {
		struct offcpu_rec *r = rec_find(p->pid, tgid);

		if (r)
			rec_retire(p, r, p->pid);
	}
	/* Deleted here, not by userspace when it hears of it: by then a new
	 * process may have the PID. */
	if (system_wide && group_dead && !bpf_map_delete_elem(&targets, &tgid))
		emit(FSP_EVENT_EXIT, tgid, 0);
	if (group_dead && !bpf_map_delete_elem(&v2_procs, &tgid))
		__sync_fetch_and_add(&v2_epoch, 1);
	return 0;
}

/* A target thread with ABI v2 marks exits: its live mark stack, for what it
 * runs after its memory is gone (livestack.bpf.h, exit_stack_take()). Attached
 * before on_exit, which forgets the process's ABI v2 records. Before Linux
 * 6.16 the tracepoint comes after exit_mm: nothing to read. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(keep_exit_stack, struct task_struct *p, bool group_dead)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	struct exit_stack *x;

	if (!task->mm || !is_target_task(task) || !bpf_map_lookup_elem(&v2_procs, &tgid))
		return 0;
	x = bpf_task_storage_get(&exit_stacks, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!x) {
		stat_inc(FSP_STAT_NO_STORAGE);
		return 0;
	}
	live_stack_exit(x, ((struct pt_regs *)bpf_task_pt_regs(task))->sp);
	return 0;
}

/* "charge threads": a thread that exits releases the marks it published. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(charge_on_exit, struct task_struct *p, bool group_dead)
{
	charge_exit(p);
	return 0;
}

/*
 * At the end of the session (after on_switch is detached): the threads still
 * switched out get their time so far, and every thread's accumulated time
 * goes to the counts map. Userspace runs this iterator once.
 */
SEC("iter/task")
int flush_offcpu(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct offcpu_rec *r;

	if (!task)
		return 0;
	r = rec_find(task->pid, task->tgid);
	if (!r)
		return 0;
	/* This CPU's clock, current within a tick (userspace yields the CPU
	 * right before, which updates it). Not counted as recovered: a thread
	 * may have run since on_switch was detached. */
	offcpu_close(task, r, sched_now(bpf_get_current_task_btf()));
	flush_acc(task, r);
	return 0;
}

/* ---- processes: fork and exec ----------------------------------------------- */

/* Linux 6.13: a signal to another task than the current one. */
extern int bpf_send_signal_task(struct task_struct *task, int sig, enum pid_type type,
				__u64 value) __ksym __weak;
#define SIGSTOP_NR 19

/*
 * -- CMD --events: a child that shares its parent's memory (vfork,
 * posix_spawn) runs its first instructions, marks included, before userspace
 * can attach its probes, and the kernel runs a process's probes for that
 * process's threads only: it starts stopped, and userspace continues it once
 * they are (the fork event says so). Only when the calls are counted
 * (--events): the wait is the attach, about half a second a child on a busy
 * machine. Not with -p (a target is never held on fsp-bpf's account).
 */
static __always_inline bool stop_vfork_child(struct task_struct *parent, struct task_struct *child)
{
	if (!hold_vfork || !sync_tgid || child->mm != parent->mm || !bpf_send_signal_task)
		return false;
	return !bpf_send_signal_task(child, SIGSTOP_NR, PIDTYPE_PID, 0);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct fsp_v2_proc *v2;
	struct tstack *pst, *cst;
	struct fsp_event *e;
	__u64 in;

	if (!follow_forks || ptgid == ctgid || !is_target_task(parent))
		return 0;
	in = target_value(child, true);
	if (bpf_map_update_elem(&targets, &ctgid, &in, BPF_ANY)) {
		stat_inc(FSP_STAT_UNTRACKED);
		return 0;
	}
	/* The child's memory is a copy: its ABI v2 records and stacks too. */
	v2 = bpf_map_lookup_elem(&v2_procs, &ptgid);
	if (v2 && !bpf_map_update_elem(&v2_procs, &ctgid, v2, BPF_ANY))
		__sync_fetch_and_add(&v2_epoch, 1);
	/* and its variables where they were (function features' instances) */
	if (sample_vars_on) {
		struct fsp_sample_vars *sv = bpf_map_lookup_elem(&sample_vars, &ptgid);

		if (sv)
			bpf_map_update_elem(&sample_vars, &ctgid, sv, BPF_ANY);
	}
	/* The child's thread is a copy of the forking thread, stack included:
	 * the features live at the fork are the parent's (with
	 * --inherit-marks, the child runs inside them too). */
	pst = bpf_task_storage_get(&tstacks, parent, NULL, 0);
	if (pst && pst->depth) {
		cst = bpf_task_storage_get(&tstacks, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (cst) {
			struct copy_ctx c = {.dst = cst, .src = pst};

			cst->overflow = pst->overflow;
			cst->overflow_sp = pst->overflow_sp;
			bpf_loop(FSP_MAX_DEPTH, copy_cb, &c, 0);
			cst->depth = pst->depth;
		}
	}
	if (v2)
		v2_fork(parent, child);
	/* Stopped only once userspace is sure to hear of it. */
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(FSP_STAT_EVENTS_LOST);
		return 0;
	}
	e->type = FSP_EVENT_FORK;
	e->pid = ctgid;
	e->ppid = ptgid;
	e->pad = 0;
	e->addr = stop_vfork_child(parent, child);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

#define SIGSTOP 19

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	__u64 *v = bpf_map_lookup_elem(&targets, &tgid);

	/* The old image's variables are not the new one's: none are read
	 * until userspace has found the new program's (samplevars.c). */
	if (sample_vars_on)
		bpf_map_delete_elem(&sample_vars, &tgid);
	if (!v || !(*v & FSP_TARGET_IN) || !entry_of(*v, p)) {
		/* System-wide: the new program may carry probes; userspace looks.
		 * An exclusion (--comm) was of the old program: it goes here, at
		 * the exec (userspace, later, could delete the new program's own
		 * admission); so does another process's entry. */
		if (v)
			bpf_map_delete_elem(&targets, &tgid);
		if (system_wide)
			emit_addr(FSP_EVENT_EXEC, tgid, 0, p->self_exec_id);
		return 0;
	}
	/* The old image's marks mean nothing in the new one. */
	if (charge_enabled)
		charge_exit(p);
	bpf_task_storage_delete(&tstacks, p);
	bpf_task_storage_delete(&ff_stacks, p);
	bpf_task_storage_delete(&v2_forks, p);
	if (!bpf_map_delete_elem(&v2_procs, &tgid))
		__sync_fetch_and_add(&v2_epoch, 1);
	forget_contexts(tgid);
	if (offcpu_enabled) {
		/* A thread other than the leader that execs takes the leader's
		 * id: its record under the old id goes (the leader's went with
		 * the leader's exit). */
		struct offcpu_rec *r = rec_find(old_pid, tgid);

		if (r && (__u32)old_pid != (__u32)p->pid)
			rec_retire(p, r, old_pid);
	}
	emit_addr(FSP_EVENT_EXEC, tgid, 0, p->self_exec_id);
	/* The launched command runs a new program (its own exec, a #! script's
	 * interpreter, the program a wrapper or a script execs): stopped before
	 * the program's first instruction, continued once its files are
	 * attached (loop.c), so that its first marks are seen. */
	if (sync_tgid && tgid == sync_tgid)
		bpf_send_signal_thread(SIGSTOP);
	return 0;
}

/* ---- non-local exits and ld.so --------------------------------------------- */

/*
 * Non-local exits. The sampler alone sees a dead frame as live again when the
 * thread later calls deeper than that frame, so the points where a thread
 * resumes higher up its stack prune right away.
 *
 * glibc's longjmp(env, val) (also _longjmp, siglongjmp, __longjmp_chk) resumes
 * at the stack pointer setjmp saved in env->__jmpbuf[6], mangled as
 * rol(sp ^ pointer_guard, 17) with the guard at %fs:0x30 (tcbhead_t).
 */
#define JB_RSP 6
#define TCB_POINTER_GUARD 0x30

SEC("uprobe")
int BPF_KPROBE(on_longjmp, void *env)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tstack *st = bpf_task_storage_get(&tstacks, task, NULL, 0);
	__u64 mangled, guard, sp, fsbase;
	__u32 tgid = task->tgid;

	if (probes_ended)
		return 0;
	if ((!st || (!st->depth && !st->overflow)) && !bpf_map_lookup_elem(&v2_procs, &tgid))
		return 0;
	fsbase = BPF_CORE_READ(task, thread.fsbase);
	if (bpf_probe_read_user(&mangled, sizeof(mangled), (__u64 *)env + JB_RSP) ||
	    bpf_probe_read_user(&guard, sizeof(guard), (void *)(fsbase + TCB_POINTER_GUARD)))
		return 0;
	sp = ((mangled >> 17) | (mangled << 47)) ^ guard;
	/* longjmp only goes up the stack; anything else is not a sane jmp_buf. */
	if (sp <= PT_REGS_SP(ctx))
		return 0;
	if (st && (st->depth || st->overflow))
		prune(st, sp);
	v2_unwind(task, sp);
	return 0;
}

/* A C++ handler starts: the catching function called __cxa_begin_catch, so
 * every frame below the caller's stack pointer was unwound by the throw. */
SEC("uprobe")
int BPF_KPROBE(on_catch)
{
	struct tstack *st;

	if (probes_ended)
		return 0;
	st = tstack_get(false);
	if (st && (st->depth || st->overflow))
		prune(st, PT_REGS_SP(ctx) + 8);
	v2_unwind(bpf_get_current_task_btf(), PT_REGS_SP(ctx) + 8);
	return 0;
}

/* Coroutines (coro.bpf.h): glibc's swapcontext(oucp, ucp) saves the running
 * context in oucp and resumes ucp; setcontext(ucp) resumes ucp. */
SEC("uprobe")
int BPF_KPROBE(on_swapcontext, void *oucp, void *ucp)
{
	if (!probes_ended)
		switch_context((__u64)oucp, (__u64)ucp, PT_REGS_SP(ctx));
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(on_setcontext, void *ucp)
{
	if (!probes_ended)
		switch_context(0, (__u64)ucp, PT_REGS_SP(ctx));
	return 0;
}

/* struct r_debug (link.h): r_version (int, padded), r_map, r_brk, r_state. */
#define R_STATE_OFF 24
enum { RT_CONSISTENT, RT_ADD, RT_DELETE };

/*
 * Did this call of _dl_debug_state finish adding objects to the link map?
 * ld.so calls it with r_state RT_ADD before mapping a dlopen()ed library and
 * RT_CONSISTENT once it is mapped (before any of its code runs); a dlclose
 * with RT_DELETE and RT_CONSISTENT once unmapped. The cookie places r_debug
 * relative to the hook (0: unknown). Unknown or unexpected sequences (a
 * dlmopen namespace, whose r_debug is not _r_debug) count as a dlopen.
 */
static __always_inline bool dlopen_done(struct pt_regs *ctx, __u32 tgid)
{
	__u64 delta = bpf_get_attach_cookie(ctx);
	__u32 state, *prev, was;

	if (!delta || bpf_probe_read_user(&state, sizeof(state),
					  (void *)(PT_REGS_IP(ctx) + delta + R_STATE_OFF)))
		return true;
	prev = bpf_map_lookup_elem(&dl_state, &tgid);
	was = prev ? *prev : RT_ADD;
	bpf_map_update_elem(&dl_state, &tgid, &state, BPF_ANY);
	if (state != RT_CONSISTENT)
		return state == was;
	return was != RT_DELETE;
}

/* ld.so calls _dl_debug_state() (the debugger's hook) around every change of
 * the link map: dlopen, dlclose, and once after the startup libraries. Only
 * a completed dlopen needs its new files attached (a library opened again
 * after a dlclose has its probes still attached: the kernel arms them when it
 * maps the file), so only that reports and, for a launched command, stops.
 * Hooked per target with -p, per ld.so file (every process) with -a. */
SEC("uprobe")
int BPF_KPROBE(on_dl_debug_state)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	__u64 *v = bpf_map_lookup_elem(&targets, &tgid);
	bool known = v && entry_of(*v, task);

	/* System-wide, any process but an excluded one: a library it loads
	 * may carry probes no process mapped before. */
	if ((known ? !(*v & FSP_TARGET_IN) : !system_wide) || !dlopen_done(ctx, tgid))
		return 0;
	emit(FSP_EVENT_DLOPEN, tgid, 0);
	if (sync_tgid && tgid == sync_tgid)
		bpf_send_signal_thread(SIGSTOP);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
