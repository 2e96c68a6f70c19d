/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What record needs from the kernel, by capability rather than by user id,
 * so that a service given only these runs it as root does (README,
 * "Capabilities"):
 *
 *   CAP_BPF              load the BPF programs, create their maps
 *   CAP_PERFMON          the per-CPU cpu-clock sampler, tracing programs
 *                        (uprobes, tracepoints), reading other tasks' memory
 *                        from BPF
 *   CAP_SYS_PTRACE       another user's process: its /proc/PID/maps, mem
 *                        (labels) and root (its files)
 *   CAP_DAC_READ_SEARCH  a target's files the fsp-bpf user may not read
 *   CAP_SYSLOG           kernel symbols of --stacks=kernel|all (while
 *                        kernel.perf_event_paranoid > 1)
 *
 * CAP_SYS_ADMIN stands in for CAP_BPF and CAP_PERFMON, as in the kernel.
 */
#ifndef FSP_CAPS_H
#define FSP_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Is cap (CAP_* of linux/capability.h) in the effective set? */
bool caps__have(int cap);

/* The capabilities every record session needs and this process lacks, as
 * "CAP_BPF, CAP_PERFMON" in buf ("" when none is missing). Returns buf. */
const char *caps__missing(char *buf, size_t size);

/* 0 if this process has what record needs, else -EPERM with a message
 * naming what is missing and what to do (cmdline: how it was run). */
int caps__require(const char *cmdline);

/* 0 if the mappings of process pid are ours to read, else -EACCES with a
 * message: another user's process, or one that is not dumpable, needs
 * CAP_SYS_PTRACE. (Other errors are not this check's: 0.) */
int caps__check_readable(pid_t pid);

/* Clears the ambient capabilities, which a command would otherwise keep
 * across its exec: a launched command runs without fsp-bpf's. */
void caps__drop_ambient(void);

#endif /* FSP_CAPS_H */
