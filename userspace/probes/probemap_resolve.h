/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --map NAME|FILE[,...] and --map auto resolved into the probe maps of a
 * recording (found on the search path, or by the USDT providers the targets
 * carry), with the features enabled in each (--feature): a selection ready
 * for session_opts.probemaps. (The language's own lookups of a parsed map are
 * analysis/probemap/probemap_select.c.)
 */
#ifndef FSP_PROBEMAP_RESOLVE_H
#define FSP_PROBEMAP_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "session.h"

struct probemap_selection;

struct probemap_selection_opts {
	const char *list; /* --map: comma-separated names or files, "auto" */
	const char *features; /* --feature: NULL for every feature not "default off" */
	const pid_t *pids; /* --map auto: the maps whose provider these carry */
	int nr_pids;
	const char *exe; /* or the command's executable */
	bool system_wide; /* or every shipped map */
	bool exact_events; /* --events: auto prefers NAME to NAME-sampled */
};

/* NULL with *err (the reason already printed) on error. */
struct probemap_selection *probemap_selection__new(const struct probemap_selection_opts *opts,
						   int *err);
void probemap_selection__free(struct probemap_selection *sel); /* NULL-safe */

/* The maps with features of probes (a map of function features alone has
 * nothing to attach), as the session takes them. */
const struct session_probemap *probemap_selection__probemaps(const struct probemap_selection *sel);
size_t probemap_selection__nr(const struct probemap_selection *sel);
/* The function features of the maps (funcfeat.h): never NULL for a selection. */
struct funcfeat;
const struct funcfeat *probemap_selection__rules(const struct probemap_selection *sel);

#endif /* FSP_PROBEMAP_RESOLVE_H */
