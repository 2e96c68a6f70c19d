/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading /proc: every process, a process's name, its start time and its
 * PID in its own PID namespace (containers). */
#ifndef FSP_PROCSCAN_H
#define FSP_PROCSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Calls cb for every process (tgid) in /proc. Returns 0, the first non-zero
 * cb result, or -errno. */
int procscan__for_each_pid(int (*cb)(void *ctx, pid_t pid), void *ctx);

/* /proc/PID/comm without the newline; 0 or -errno. */
int procscan__comm(pid_t pid, char *buf, size_t size);

/* The PID of pid in its innermost PID namespace (the last NSpid field):
 * pid itself when it lives in ours. 0 or -errno. */
int procscan__nspid(pid_t pid, pid_t *nspid);

/* When pid (a process or a thread) started: clock ticks since boot, the
 * starttime of /proc/PID/stat; with the PID, it names one process (a PID is
 * reused, never with the same start time). 0, -ESRCH or -errno. */
int procscan__start_time(pid_t pid, uint64_t *ticks);

/* Is name one of the comma-separated names of list? */
int procscan__in_list(const char *list, const char *name);

#endif /* FSP_PROCSCAN_H */
