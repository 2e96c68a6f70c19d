// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Opening files others named, for reading (safeopen.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "safeopen.h"

/* The mount ID of fd (/proc/self/fdinfo), -1 if unknown. */
static long mount_id(int fd)
{
	char path[64], line[128];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (id < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %ld", &id) != 1)
			id = -1;
	fclose(f);
	return id;
}

/* The device of the superblock of mount id (/proc/self/mountinfo's
 * "MAJ:MIN"), 0 if unknown. */
static dev_t mount_dev(long id)
{
	unsigned int maj, min;
	char *line = NULL;
	size_t cap = 0;
	dev_t dev = 0;
	long mid;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return 0;
	while (!dev && getline(&line, &cap, f) > 0)
		if (sscanf(line, "%ld %*d %u:%u", &mid, &maj, &min) == 3 && mid == id)
			dev = makedev(maj, min);
	free(line);
	fclose(f);
	return dev;
}

bool safeopen__is(int fd, const struct stat *st, const struct safeopen_id *want)
{
	long id;

	if (st->st_ino != want->ino)
		return false;
	if (st->st_dev == want->dev)
		return true;
	id = mount_id(fd);
	return id >= 0 && mount_dev(id) == want->dev;
}

/* The inode of the O_PATH descriptor fd (status st), opened read-only. */
static int reopen(int fd, const struct stat *st)
{
	char self[64];
	struct stat now;
	int rfd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rfd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (rfd < 0)
		return -errno;
	/* /proc/self/fd/N names the inode itself; checked all the same */
	if (fstat(rfd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(rfd);
		return -ESTALE;
	}
	/* reads of a regular file never wait; blocking mode for the callers' stdio */
	fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) & ~O_NONBLOCK);
	return rfd;
}

int safeopen__read(int dirfd, const char *path, unsigned int flags, const struct safeopen_id *want,
		   struct stat *st)
{
	int oflags = O_PATH | O_CLOEXEC | (flags & SAFEOPEN_NOFOLLOW ? O_NOFOLLOW : 0);
	struct stat buf, *s = st ? st : &buf;
	int fd, err;

	if (!path || !*path)
		return -ENOENT;
	fd = openat(dirfd, path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, s))
		err = -errno;
	else if (S_ISLNK(s->st_mode))
		err = -ELOOP; /* O_PATH | O_NOFOLLOW opened the link itself */
	else if (S_ISDIR(s->st_mode))
		err = -EISDIR;
	else if (!S_ISREG(s->st_mode))
		err = -EINVAL;
	else if (want && !safeopen__is(fd, s, want))
		err = -ESTALE;
	else
		err = reopen(fd, s);
	close(fd);
	return err;
}
