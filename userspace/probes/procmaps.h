/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A process's mappings, from /proc/PID/maps: which files it maps executable
 * (to find their probes) and where a mapped file's bytes are (to read a
 * label of a process that is gone).
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

/*
 * Calls cb once per distinct file (device and inode) mapped executable, in
 * the order of the mappings. Returns 0 or the first non-zero cb result.
 */
typedef int (*procmaps_file_cb)(void *ctx, const char *path, dev_t dev, ino_t ino);
int procmaps__for_each_file(const struct mapping *m, size_t nr, procmaps_file_cb cb, void *ctx);

/* procmaps__read, then procmaps__for_each_file. -ESRCH if the process is gone. */
int procmaps__for_each_mapped_file(pid_t pid, procmaps_file_cb cb, void *ctx);

/*
 * Appends to the mappings *cur (read now) those of old (read earlier) that
 * are gone since, e.g. of a library dlclose()d, so that its labels can still
 * be read from its file; takes old (frees it, and what it does not move).
 * Current mappings come first: they win where both hold an address. 0 or
 * -ENOMEM (old is freed and *cur unchanged).
 */
int procmaps__keep_gone(struct mapping **cur, size_t *nr, struct mapping *old, size_t nr_old);

/* Reads a NUL-terminated string at addr of a process from the mapped file,
 * for when the process is gone. Returns its length or -errno (-ENOENT: no
 * mapping holds addr, -ERANGE: longer than size). */
int procmaps__read_string(const struct mapping *m, size_t nr, unsigned long long addr, char *buf,
			  size_t size);

#endif /* FSP_PROCMAPS_H */
