/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared by the benchmark programs that wait for a tool to attach (-a). */
#ifndef BENCH_ATTACHED_H
#define BENCH_ATTACHED_H

#include "fsp.h"

/*
 * Is the tool attached? ABI v1: FSP_ENABLED() tests fsp:mark_enter only, and a
 * tool links each probe name separately, so check the leave's semaphore too.
 * ABI v2: one semaphore per file says a profiler reads the marks' stacks (or,
 * for a tool that attaches the v1 probes, that they trap).
 */
static inline int bench_attached(void)
{
#if FSP_ABI_VERSION >= 2
	return FSP_ENABLED() != 0;
#else
	return FSP_ENABLED() && *(volatile unsigned short *)&fsp_mark_leave_semaphore != 0;
#endif
}

#endif /* BENCH_ATTACHED_H */
