// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_labelfile - a target (meant to run as an ordinary user) whose labels
 * cannot be read from its memory, so that a profiler falls back to the file
 * it mapped them from, and which tampers with that file's name:
 *
 *   wl_labelfile swap DIR TARGET READY GO MS
 *     maps DIR/L (a feature label at offset 0, an instance at 64), truncates
 *     it (the mapped page is past the end of the file: reading it faults) and
 *     unlinks it; then DIR/L and DIR/"L (deleted)" (the name /proc/PID/maps
 *     gives it now) become symbolic links to TARGET, or FIFOs when TARGET is
 *     "fifo".
 *   wl_labelfile unmapped DIR - READY GO MS
 *     maps DIR/L (labels "decoy feature" and "decoy instance") and unmaps it
 *     once GO exists: the labels then point where no file is mapped any more.
 *   wl_labelfile blank DIR - READY GO MS
 *     the same, but once GO exists an anonymous page (zeros) replaces the
 *     file's at that address: the labels are empty strings.
 *   wl_labelfile source DIR FILE:LINE READY GO MS
 *     labels from its memory: feature "source", instance FILE:LINE (a
 *     source location, which an HTML page of the profile would show).
 *
 * All write READY (in DIR) when set up, wait for the file GO (the profiler
 * attached), then run MS ms of CPU under the mark (those labels) and as much
 * under a mark "labelfile"/"control" with labels in the executable.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define LEN 4096
#define GO_TIMEOUT_NS (60 * 1000 * WL_NS_PER_MS)

/* DIR/L with the two labels, mapped: the mapping. */
static char *map_labels(const char *dir, char *path, size_t size)
{
	char text[LEN] = "decoy feature";
	char *m;
	int fd;

	strcpy(text + 64, "decoy instance");
	snprintf(path, size, "%s/L", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, LEN) != LEN)
		wl_die("cannot write %s", path);
	m = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		wl_die("cannot map %s", path);
	close(fd);
	return m;
}

/* path made a symbolic link to target, or a FIFO when target is "fifo". */
static void plant(const char *path, const char *target)
{
	if (!strcmp(target, "fifo") ? mkfifo(path, 0666) : symlink(target, path))
		wl_die("cannot make %s", path);
}

static void wait_go(const char *go)
{
	uint64_t end = wl_mono_ns() + GO_TIMEOUT_NS;

	while (access(go, F_OK))
		if (wl_mono_ns() > end)
			wl_die("%s did not appear", go);
		else
			usleep(2000);
}

int main(int argc, char **argv)
{
	char path[4096], deleted[4200];
	const char *feature, *instance;
	uint64_t ms, end;
	char *m;

	if (argc != 7 || (strcmp(argv[1], "swap") && strcmp(argv[1], "unmapped") &&
			  strcmp(argv[1], "blank") && strcmp(argv[1], "source")))
		wl_die("usage: wl_labelfile swap|unmapped|blank|source DIR TARGET|-|FILE:LINE "
		       "READY GO MS");
	ms = wl_arg_u64(argv[6], "MS");
	m = map_labels(argv[2], path, sizeof(path));
	feature = strcmp(argv[1], "source") ? m : "source";
	instance = strcmp(argv[1], "source") ? m + 64 : argv[3];
	if (!strcmp(argv[1], "swap")) {
		if (truncate(path, 0) || unlink(path))
			wl_die("cannot truncate and remove %s", path);
		snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
		plant(path, argv[3]);
		plant(deleted, argv[3]);
	}
	wl_write_ready(argv[4]);
	wait_go(argv[5]);
	/* The first mark with a profiler attached maps the thread's mark stack
	 * (ABI v2): now, so that it does not land where the file was. */
	FSP_MARK_ENTER("labelfile", "control", 0);
	FSP_MARK_LEAVE("labelfile", "control", 0);
	if (!strcmp(argv[1], "unmapped") && munmap(m, LEN))
		wl_die("munmap failed");
	if (!strcmp(argv[1], "blank") &&
	    mmap(m, LEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != m)
		wl_die("mmap failed");
	end = wl_thread_ns() + ms * WL_NS_PER_MS;
	while (wl_thread_ns() < end) {
		FSP_MARK_ENTER(feature, instance, 0);
		wl_burn(WL_NS_PER_MS);
		FSP_MARK_LEAVE(feature, instance, 0);
		FSP_MARK_ENTER("labelfile", "control", 0);
		wl_burn(WL_NS_PER_MS);
		FSP_MARK_LEAVE("labelfile", "control", 0);
	}
	return wl_integrity_errors() ? 3 : 0;
}
