/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The targets of fsp-bpf record (record_targets.c): the processes of -p,
 * checked before the BPF programs load (a wrong PID is refused at once, a
 * process that exits while fsp-bpf starts is said to have exited), the
 * launched command or -a, and adding them to the session.
 */
#ifndef FSP_RECORD_TARGETS_H
#define FSP_RECORD_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "options.h"

struct launch;
struct session;

/* A process of -p. */
struct pid_target {
	pid_t pid; /* its tgid */
	char comm[64];
};

/* The targets of the command line: the command (l, owned by the caller),
 * -a (o->session.system_wide), or the n processes t of -p. */
struct record_targets {
	struct launch *l;
	struct pid_target t[FSP_MAX_PIDS];
	int n;
	bool functions; /* the session has function features */
};

/* Checks -p's PIDs into tg->t, each process once (two threads of one
 * process, or a PID and its thread: one target). 0 or -errno, reported. */
int record_targets__check_pids(struct record_targets *tg, const struct fsp_options *o);

/* Adds tg's targets to s (starts the command); desc gets what is profiled,
 * in words ("pid 42 (app)"). 0 or -errno, reported (-ENOMSG: a probe map
 * does not fit, reported where found). */
int record_targets__add(const struct record_targets *tg, struct session *s,
			const struct fsp_options *o, char *desc, size_t size);

/* Every probe map must fit some target: a map whose provider no target
 * carries is a mistake (wrong PID, wrong map), not an empty profile. 0 or
 * -ENOENT, reported. */
int record_targets__check_probemaps(struct session *s, const struct fsp_options *o);

/* Does a target's program have ABI v1 marks (so that their programs load
 * at once rather than when its probes are attached)? Its libraries are not
 * looked at: a hint, from one file each (-p's after check_pids). */
bool record_targets__v1_marks(const struct record_targets *tg);

#endif /* FSP_RECORD_TARGETS_H */
