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

/* Is tgid profiled? In the targets map with a non-zero value (0: a process
 * system-wide mode saw and userspace excluded, e.g. by --comm). */
static __always_inline bool is_target(__u32 tgid)
{
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);

	return v && *v;
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
 * Does a probe of the current process count? Always with -p (links are per
 * process). System-wide, the links are per file: a process becomes a target
 * at its first enter, and userspace hears of it to name it and apply the
 * filters.
 */
static __always_inline bool admit(bool enter)
{
	__u32 tgid, one = 1, zero = 0, *v;

	if (!system_wide)
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	v = bpf_map_lookup_elem(&targets, &tgid);
	if (v)
		return *v;
	if (!enter)
		return false;
	if (!comm_admitted()) {
		bpf_map_update_elem(&targets, &tgid, &zero, BPF_NOEXIST);
		return false;
	}
	if (!bpf_map_update_elem(&targets, &tgid, &one, BPF_NOEXIST)) {
		emit(FSP_EVENT_NEW_PROC, tgid, 0);
		return true;
	}
	/* Another thread admitted it first; else the map is full: not
	 * tracked at all rather than half (counted, userspace reports it). */
	v = bpf_map_lookup_elem(&targets, &tgid);
	if (v)
		return *v;
	stat_inc(FSP_STAT_UNTRACKED);
	return false;
}

#endif /* FSP_ADMIT_BPF_H */
