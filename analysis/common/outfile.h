/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output files written atomically: the content goes to a temporary file in
 * the destination's directory, which is flushed, fsync'ed and renamed over
 * the destination only when complete. A crash, a full disk or an error leaves
 * the previous file (if any) untouched and no torn file behind. A destination
 * that exists and is a FIFO or a character device (/dev/null, /dev/stdout)
 * is written in place: a rename would replace the device or pipe itself.
 *
 * fsp-bpf writes as root, often where other users can write (/tmp), so a
 * path is refused when another user could have chosen where the bytes go
 * (docs/architecture.md, "Files and paths fsp-bpf opens as root"): a
 * symbolic link another user owns in a directory others can write
 * (pathwalk.h), a block device or socket, a FIFO or device of another user,
 * a regular file of another user in a directory others can write; a FIFO no
 * process reads is an error, not a wait. outfile__strerror() says why.
 *
 * Permissions: a new file is private (OUTFILE_DEFAULT_MODE, 0600, as perf's
 * perf.data: profiles hold strings read from the target), or the mode set
 * by outfile__set_new_mode; run as root under sudo, it belongs to the
 * invoking user (SUDO_UID, SUDO_GID). A replaced file keeps its owner (when
 * root) and permission bits. Both are set on the descriptor before anything
 * is written.
 */
#ifndef FSP_OUTFILE_H
#define FSP_OUTFILE_H

#include <stdio.h>

struct outfile;

#define OUTFILE_DEFAULT_MODE 0600

/* The permissions of files created from now on (the low 9 bits of mode). */
void outfile__set_new_mode(unsigned int mode);

/* Could path be written now? The checks of outfile__open, then a temporary
 * file created and removed beside it (nothing is left behind; a FIFO or
 * device is checked for write access, not opened). 0 or -errno (-EISDIR,
 * -ENOENT, -EACCES, -EPERM, ...). */
int outfile__check(const char *path);

/* path NULL or "-" writes to stdout (not atomic, nothing to rename). On
 * failure NULL and *err = -errno (-EISDIR for a directory, -EPERM for a
 * path refused, -ENXIO for a FIFO nobody reads). */
struct outfile *outfile__open(const char *path, int *err);
/* The same, for a file that must not exist yet (-EEXIST): never replaces or
 * writes into anything, even at the rename (a fallback file in /tmp). */
struct outfile *outfile__open_new(const char *path, int *err);
/* The words for an error of outfile__open(_new), outfile__check or
 * profile__save: why the path was refused, else strerror. */
const char *outfile__strerror(int err);
FILE *outfile__stream(struct outfile *f);
/* The name to use in messages: the path or "standard output". */
const char *outfile__name(const struct outfile *f);
/* Flushes, fsyncs and renames into place. 0 or -errno (the temporary file is
 * then removed by outfile__free). */
int outfile__commit(struct outfile *f);
/* Removes the temporary file unless committed; NULL-safe. */
void outfile__free(struct outfile *f);

#endif /* FSP_OUTFILE_H */
