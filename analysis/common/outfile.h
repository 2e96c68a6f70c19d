/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output files written atomically: the content goes to a temporary file in
 * the destination's directory, which is flushed, fsync'ed and renamed over
 * the destination only when complete. A crash, a full disk or an error leaves
 * the previous file (if any) untouched and no torn file behind. A destination
 * that exists but is not a regular file (/dev/null, a FIFO) is written in
 * place: a rename would replace the device or pipe itself.
 */
#ifndef FSP_OUTFILE_H
#define FSP_OUTFILE_H

#include <stdio.h>

struct outfile;

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
