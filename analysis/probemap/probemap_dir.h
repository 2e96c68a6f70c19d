/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where probe map files (analysis/probemap/probemap.h, docs/probe-maps.md) are found.
 * A map named NAME is the file NAME.map in the first directory of the search
 * path that has one:
 *
 *	1. each directory of $FSP_MAP_PATH (colon-separated, empty entries skipped)
 *	2. <directory of the fsp-bpf executable>/maps         (a build tree)
 *	3. <directory of the fsp-bpf executable>/../share/fsp-bpf/maps
 *	4. FSP_MAP_DIR, fixed at build time (/usr/local/share/fsp-bpf/maps)
 */
#ifndef FSP_PROBEMAP_DIR_H
#define FSP_PROBEMAP_DIR_H

#include <stddef.h>

/* Set by the Makefile from PREFIX. */
#ifndef FSP_MAP_DIR
#define FSP_MAP_DIR "/usr/local/share/fsp-bpf/maps"
#endif

/*
 * The file of map `name` into path[size]. A name with a '/' or ending in
 * ".map" is a file name, used as it is (it must exist); any other is looked
 * up along the search path. Returns 0, -ENOENT (no such map or file),
 * -ENAMETOOLONG (path too small), -EINVAL (empty name).
 */
int probemap_dir__find(const char *name, char *path, size_t size);

/*
 * Calls cb(ctx, path) for every map along the search path, sorted by name;
 * a name found in several directories counts once, in the first. Stops at
 * the first nonzero return of cb and returns it; else 0 (or -ENOMEM).
 */
int probemap_dir__list(int (*cb)(void *ctx, const char *path), void *ctx);

/*
 * Calls cb(ctx, dir) for each directory of the search path, in order
 * (whether it exists or not), for messages and --help. Stops at the first
 * nonzero return of cb and returns it; else 0.
 */
int probemap_dir__for_each_dir(int (*cb)(void *ctx, const char *dir), void *ctx);

#endif /* FSP_PROBEMAP_DIR_H */
