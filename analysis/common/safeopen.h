/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opening for reading a file whose name someone else chose: a profiled
 * process (the paths of its mappings, its labels' files, its source files),
 * a profile (the modules of native stacks), another user (a link in their
 * directory). fsp-bpf runs as root, so such a name may lead anywhere: to a
 * FIFO (an open() that blocks forever), a device (whose open() has side
 * effects: a watchdog starts, a tape rewinds), a root-only file.
 *
 * safeopen__read() opens the name with O_PATH (nothing is opened: no device
 * open, no FIFO wait), checks what it names (a regular file; when asked, that
 * exact file by device and inode; when asked, no symbolic link at the end),
 * and only then opens that same inode read-only through /proc/self/fd.
 * docs/architecture.md, "Files and paths fsp-bpf opens as root", gives the
 * rules this serves.
 */
#ifndef FSP_SAFEOPEN_H
#define FSP_SAFEOPEN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A file's identity as the kernel shows it in /proc/PID/maps. */
struct safeopen_id {
	dev_t dev;
	ino_t ino;
};

enum safeopen_flags {
	SAFEOPEN_NOFOLLOW = 1, /* the final component must not be a symbolic link */
};

/*
 * Opens path (relative to dirfd: AT_FDCWD, or a directory descriptor, also an
 * O_PATH one) read-only when it is a regular file, and, when want is not
 * NULL, that file. Returns the descriptor (O_RDONLY | O_CLOEXEC, blocking
 * reads) or -errno: -ENOENT, -EACCES, ... as open(); -ELOOP for a link with
 * SAFEOPEN_NOFOLLOW; -EISDIR for a directory; -EINVAL for any other file that
 * is not regular (FIFO, socket, device); -ESTALE when the name is another
 * file than want. st (may be NULL) gets the file's status.
 */
int safeopen__read(int dirfd, const char *path, unsigned int flags, const struct safeopen_id *want,
		   struct stat *st);

/*
 * Is the file of status st (open as fd) the file want? Same inode, and the
 * same device as st's or as the superblock of fd's mount: /proc/PID/maps
 * gives the superblock's device, which stat() does not on btrfs subvolumes.
 */
bool safeopen__is(int fd, const struct stat *st, const struct safeopen_id *want);

#endif /* FSP_SAFEOPEN_H */
