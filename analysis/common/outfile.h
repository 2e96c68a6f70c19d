/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output files written atomically: the content goes to a temporary file in
 * the destination's directory, which is flushed, fsync'ed and renamed over
 * the destination only when complete. A crash, a full disk or an error leaves
 * the previous file (if any) untouched and no torn file behind. A destination
 * that exists but is not a regular file (/dev/null, a FIFO) is written in
 * place: a rename would replace the device or pipe itself.
 *
 * Permissions: a new file is private (OUTFILE_DEFAULT_MODE, 0600, as perf's
 * perf.data: profiles hold strings read from the target), or the mode set
 * by outfile__set_new_mode; run as root under sudo, it belongs to the
 * invoking user (SUDO_UID, SUDO_GID). A replaced file keeps its owner (when
 * root) and mode. Both are set before anything is written.
 */
#ifndef FSP_OUTFILE_H
#define FSP_OUTFILE_H

#include <stdio.h>

struct outfile;

#define OUTFILE_DEFAULT_MODE 0600

/* The permissions of files created from now on (the low 9 bits of mode). */
void outfile__set_new_mode(unsigned int mode);

/* Could path be written now? Creates and removes a temporary file beside
 * it, as outfile__open would (nothing is left behind; a FIFO or device is
 * checked for write access, not opened). 0 or -errno (-EISDIR, -ENOENT,
 * -EACCES, ...). */
int outfile__check(const char *path);

/* path NULL or "-" writes to stdout (not atomic, nothing to rename). On
 * failure NULL and *err = -errno (-EISDIR for a directory). */
struct outfile *outfile__open(const char *path, int *err);
FILE *outfile__stream(struct outfile *f);
/* The name to use in messages: the path or "standard output". */
const char *outfile__name(const struct outfile *f);
/* Flushes, fsyncs and renames into place. 0 or -errno (the temporary file is
 * then removed by outfile__free). */
int outfile__commit(struct outfile *f);
/* Removes the temporary file unless committed; NULL-safe. */
void outfile__free(struct outfile *f);

#endif /* FSP_OUTFILE_H */
