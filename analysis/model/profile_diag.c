// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The diagnostic counters' names (as in the profile file) and descriptions
 * (as in the reports' footers). */
#include "profile.h"

static const struct {
	const char *name;
	const char *desc;
} profile_diags[DIAG__COUNT] = {
	[DIAG_LOST_SAMPLES] = {"lost_samples", "samples the kernel side could not record"},
	[DIAG_UNKNOWN_STACKS] =
		{"unknown_stacks",
		 "samples whose mark stack could not be stored (charged to no feature)"},
	[DIAG_UNMATCHED_LEAVES] = {"unmatched_leaves",
				   "leaves that matched no enter (not those of marks entered "
				   "before the attach)"},
	[DIAG_OVERFLOWS] = {"overflows", "enters beyond the maximum mark stack depth"},
	[DIAG_STALE_MARKS] = {"stale_marks",
			      "marks dropped because their frame was unwound without a leave"},
	[DIAG_TRUNCATED] = {"truncated", "samples taken while a mark stack had overflowed"},
	[DIAG_LABEL_ERRORS] = {"label_errors", "labels that could not be read from the target"},
	[DIAG_ARG_ERRORS] = {"arg_errors", "probe arguments that could not be read"},
	[DIAG_EVENTS_LOST] = {"events_lost", "fork/exec/dlopen notifications lost"},
	[DIAG_ATTACH_ERRORS] = {"attach_errors",
				"probe sites or processes fsp-bpf failed to attach to"},
	[DIAG_EVENT_DROPS] = {"event_drops",
			      "enters not counted, nor then their leaves, because the event map "
			      "was full; raise --max-events"},
	[DIAG_OFFCPU_RECOVERED] =
		{"offcpu_recovered",
		 "off-CPU intervals whose end (or start) the kernel's sched_switch "
		 "tracepoint did not report, recovered from the thread's CPU clock"},
	[DIAG_OFFCPU_LOST] = {"offcpu_lost", "off-CPU intervals not recorded: the counts map was "
					     "full or their thread had no off-CPU record"},
	[DIAG_CHARGE_DROPS] = {"charge_drops",
			       "marks of \"charge threads\" features that charged only their own "
			       "thread: more were open in one process than the kernel side holds"},
	[DIAG_UNTRACKED] = {"untracked",
			    "probe hits of processes not profiled because more processes with "
			    "probes ran at once than fsp-bpf tracks"},
	[DIAG_FOLDED_PROCESSES] = {"folded_processes",
				   "processes that exited after the first 1000 of a system-wide "
				   "session: their records are added to an earlier process of the "
				   "same name"},
	[DIAG_NATIVE_LOST] = {"native_lost",
			      "samples without a native stack because its ring buffer was full "
			      "(fsp-bpf did not keep up; a smaller --stack-size helps)"},
	[DIAG_NATIVE_EXITED] = {"native_exited",
				"samples without a native stack because their process had exited "
				"before fsp-bpf read its mappings"},
	[DIAG_NATIVE_FAILED] = {"native_failed",
				"samples without a native stack because not even their leaf frame "
				"could be found"},
	[DIAG_UNREADABLE_STACKS] = {"unreadable_stacks",
				    "samples whose mark stack in the process's memory (probe ABI "
				    "v2) could not be read (charged without it)"},
	[DIAG_SKIPPED_MARKS] = {"skipped_marks",
				"marks a signal handler made while the code it interrupted was "
				"in the middle of a mark (probe ABI v2), not recorded"},
	[DIAG_NATIVE_REPLACED] = {"native_replaced",
				  "samples without a native stack because they were taken in "
				  "execve(), or the program they ran had been replaced by an "
				  "exec before fsp-bpf read its mappings"},
	[DIAG_SAMPLE_LABEL_ERRORS] = {"sample_label_errors",
				      "samples whose instance read at sample time (\"label "
				      "sample\") could not be read: a NULL or unreadable pointer "
				      "(charged to the instance \"?\")"},
};

const char *profile_diag__name(enum profile_diag d)
{
	if ((unsigned int)d >= DIAG__COUNT)
		return "unknown";
	return profile_diags[d].name;
}

const char *profile_diag__describe(enum profile_diag d)
{
	if ((unsigned int)d >= DIAG__COUNT)
		return "unknown diagnostic";
	return profile_diags[d].desc;
}
