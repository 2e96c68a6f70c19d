/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `fsp-bpf -- CMD ARGS...`: the command is forked and held before exec until
 * the profiler is attached, so it is profiled from its first instruction. */
#ifndef FSP_LAUNCH_H
#define FSP_LAUNCH_H

#include <sys/types.h>

struct launch;

/* Resolves argv[0] through PATH and forks a child that waits before exec.
 * On failure returns NULL with *err set (-ENOENT: no such command). */
struct launch *launch__new(char *const argv[], int *err);
void launch__free(struct launch *l); /* NULL-safe; kills a child never started */

pid_t launch__pid(const struct launch *l);
const char *launch__path(const struct launch *l); /* resolved executable */

/* Lets the child exec. Returns 0, or -errno of a failed exec. */
int launch__start(struct launch *l);

#endif /* FSP_LAUNCH_H */
