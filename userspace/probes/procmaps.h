/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A process's mappings, from /proc/PID/maps: which files it maps executable
 * (to find their probes) and where a mapped file's bytes are (to read a
 * label its memory does not give), and the mapped files themselves, opened
 * as the mapped objects, never by a name the process could have swapped.
 */
#ifndef FSP_PROCMAPS_H
#define FSP_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* One file-backed line of /proc/PID/maps. */
struct mapping {
	unsigned long long start;
	unsigned long long end;
	unsigned long long offset; /* in the file */
	dev_t dev;
	ino_t ino;
	bool exec;
	char *path; /* as the process sees it; a deleted file's ends in " (deleted)" */
};

/*
 * Parses text in the format of /proc/PID/maps: the file-backed lines (a path
 * starting with '/'), in order; anonymous and special ([heap], [vdso])
 * mappings are left out. 0 or -errno (-EIO: a read error).
 */
int procmaps__parse(FILE *f, struct mapping **out, size_t *nr);

/* The file-backed mappings of pid. 0 or -errno (-ESRCH: the process is gone). */
int procmaps__read(pid_t pid, struct mapping **out, size_t *nr);
void procmaps__free(struct mapping *m, size_t nr); /* NULL-safe */

/* The text of /proc/PID/maps, read at once (malloc'ed, *len bytes), to
 * parse it more than once as one reading. 0 or -errno (-ESRCH: the process
 * is gone or a zombie). */
int procmaps__read_text(pid_t pid, char **text, size_t *len);

/* Does any of the mappings map file (dev, ino) executable? */
bool procmaps__has_exec(const struct mapping *m, size_t nr, dev_t dev, ino_t ino);

/*
 * Calls cb once per distinct file (device and inode) mapped executable, with
 * its first executable mapping, in the order of the mappings. Returns 0 or
 * the first non-zero cb result.
 */
typedef int (*procmaps_file_cb)(void *ctx, const struct mapping *m);
int procmaps__for_each_file(const struct mapping *m, size_t nr, procmaps_file_cb cb, void *ctx);

/* procmaps__read, then procmaps__for_each_file. -ESRCH if the process is gone. */
int procmaps__for_each_mapped_file(pid_t pid, procmaps_file_cb cb, void *ctx);

/*
 * The file of mapping m of process pid, opened read-only (safeopen.h: a
 * regular file, never blocking): the mapped object itself through
 * /proc/PID/map_files (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), whatever
 * its name became;
 * where that is not allowed, or for a process that is gone (pid 0), the
 * file at its name (through /proc/PID/root while the process lives) if it is
 * still the mapped file (device and inode), not a link, not " (deleted)".
 * m must be a current mapping of a live pid. The descriptor or -errno.
 */
int procmaps__open(pid_t pid, const struct mapping *m);

/*
 * procmaps__for_each_mapped_file with each file opened (procmaps__open; one
 * that cannot be is skipped): cb gets the path to read it by (the
 * descriptor's, /proc/self/fd/N) and the path the process shows.
 */
typedef int (*procmaps_open_cb)(void *ctx, const char *kpath, const char *path);
int procmaps__for_each_open_file(pid_t pid, procmaps_open_cb cb, void *ctx);

/* Reads a NUL-terminated string at addr of process pid (0: gone) from the
 * mapped file of the mapping of m that holds addr (procmaps__open). Returns
 * its length or -errno (-ENOENT: no mapping holds addr, -EIO: past the end
 * of the file, -ERANGE: longer than size, or procmaps__open's error). */
int procmaps__read_string(pid_t pid, const struct mapping *m, size_t nr, unsigned long long addr,
			  char *buf, size_t size);

#endif /* FSP_PROCMAPS_H */
