/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Admission: which processes' probes and samples count (the targets map;
 * system-wide, a process is admitted at its first enter, --comm permitting).
 */
#ifndef FSP_ADMIT_BPF_H
#define FSP_ADMIT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "config.bpf.h"
#include "maps.bpf.h"
#include "util.bpf.h"

/* The targets map's value for task's process (profiler.h). */
static __always_inline __u64 target_value(struct task_struct *task, bool in)
{
	return (task->group_leader->start_boottime / FSP_NS_PER_TICK) << 1 |
	       (in ? FSP_TARGET_IN : 0);
}

/* Is the targets entry v task's process's (not a former holder's of the PID)? */
static __always_inline bool entry_of(__u64 v, struct task_struct *task)
{
	return (v | FSP_TARGET_IN) == target_value(task, true);
}

/* Is task's process profiled? In the targets map, as itself, and not left
 * out (system-wide mode saw it and userspace excluded it, e.g. by --comm). */
static __always_inline bool is_target_task(struct task_struct *task)
{
	__u32 tgid = task->tgid;
	__u64 *v = bpf_map_lookup_elem(&targets, &tgid);

	return v && (*v & FSP_TARGET_IN) && entry_of(*v, task);
}

/* Is the current process profiled? */
static __always_inline bool is_target(void)
{
	return is_target_task(bpf_get_current_task_btf());
}

/* Is the current process's name (its main thread's comm) one of --comm's? */
static __always_inline bool comm_admitted(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	char comm[FSP_COMM_LEN] = {};
	__u32 i, j;

	if (!nr_comms)
		return true;
	bpf_probe_read_kernel_str(comm, sizeof(comm), task->group_leader->comm);
	for (i = 0; i < FSP_MAX_COMMS; i++) {
		bool same = true;

		if (i >= nr_comms)
			break;
		for (j = 0; j < FSP_COMM_LEN; j++) {
			if (comms[i][j] != comm[j]) {
				same = false;
				break;
			}
			if (!comm[j])
				break;
		}
		if (same)
			return true;
	}
	return false;
}

/*
 * Does a probe of the current process count? Not once the session ended
 * (probes_ended). Before, always with -p (links are per process).
 * System-wide, the links are per file: a process becomes a target at its
 * first enter, and userspace hears of it to name it and apply the filters.
 */
static __always_inline bool admit(bool enter)
{
	struct task_struct *task;
	__u64 in, *v;
	__u32 tgid;
	int flags = BPF_NOEXIST;

	if (probes_ended)
		return false;
	if (!system_wide)
		return true;
	task = bpf_get_current_task_btf();
	tgid = task->tgid;
	v = bpf_map_lookup_elem(&targets, &tgid);
	if (v && entry_of(*v, task))
		return *v & FSP_TARGET_IN;
	if (!enter)
		return false;
	/* Another process's entry (it had this PID): replaced. */
	if (v)
		flags = BPF_EXIST;
	if (!comm_admitted()) {
		in = target_value(task, false);
		bpf_map_update_elem(&targets, &tgid, &in, flags);
		return false;
	}
	in = target_value(task, true);
	if (!bpf_map_update_elem(&targets, &tgid, &in, flags)) {
		emit(FSP_EVENT_NEW_PROC, tgid, 0);
		return true;
	}
	/* Another thread admitted it first; else the map is full: not
	 * tracked at all rather than half (counted, userspace reports it). */
	v = bpf_map_lookup_elem(&targets, &tgid);
	if (v && entry_of(*v, task))
		return *v & FSP_TARGET_IN;
	stat_inc(FSP_STAT_UNTRACKED);
	return false;
}

#endif /* FSP_ADMIT_BPF_H */
