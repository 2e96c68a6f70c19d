/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp-bpf record: the targets of the command line put into a session: -p's
 * processes (checked: alive, user processes, with probes unless
 * --wait-probes), -a, or the launched command.
 */
#ifndef FSP_RECORD_TARGETS_H
#define FSP_RECORD_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

struct launch;
struct session;

/* Starts the targets in s, and says so ("profiling ..."); desc gets what
 * was profiled, in words (the profile's meta.target). 0 or -errno,
 * reported. */
int record_targets__add(struct session *s, struct launch *l, const struct fsp_options *o,
			char *desc, size_t size);

/* Every probe map must fit some target: a map whose provider no target
 * carries is a mistake (wrong PID, wrong map), not an empty profile. 0 or
 * -ENOENT, reported. */
int record_targets__check_probemaps(struct session *s, const struct fsp_options *o);

/* Does a target's program have ABI v1 marks (so that their programs load
 * at once rather than when its probes are attached)? Its libraries are not
 * looked at: a hint, from one file each. */
bool record_targets__v1_marks(const struct fsp_options *o, const struct launch *l);

#endif /* FSP_RECORD_TARGETS_H */
