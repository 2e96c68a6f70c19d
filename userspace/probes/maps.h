/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe maps of a recording (--map NAME|FILE[,...], --map auto) and the
 * features enabled in each (--feature), ready for session_opts.maps. Also
 * the USDT providers a process carries, for --map auto and `fsp-bpf list`.
 */
#ifndef FSP_MAPS_H
#define FSP_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "session.h"

struct maps;

struct maps_opts {
	const char *list; /* --map: comma-separated names or files, "auto" */
	const char *features; /* --feature: NULL for every feature not "default off" */
	const pid_t *pids; /* --map auto: the maps whose provider these carry */
	int nr_pids;
	const char *exe; /* or the command's executable */
	bool system_wide; /* or every shipped map */
};

/* NULL with *err (the reason already printed) on error. */
struct maps *maps__new(const struct maps_opts *opts, int *err);
void maps__free(struct maps *m); /* NULL-safe */

const struct session_map *maps__session_maps(const struct maps *m);
size_t maps__nr(const struct maps *m);

/*
 * Calls cb once per distinct (file, provider) in the files pid maps (paths
 * as pid sees them; read through /proc/PID/root). pid 0: path is a file.
 * Returns 0, cb's first non-zero result, or -errno.
 */
typedef int (*maps_provider_cb)(void *ctx, const char *path, const char *provider);
int maps__for_each_provider(pid_t pid, const char *path, maps_provider_cb cb, void *ctx);

#endif /* FSP_MAPS_H */
