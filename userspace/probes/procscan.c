// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procscan.h"

int procscan__for_each_pid(int (*cb)(void *ctx, pid_t pid), void *ctx)
{
	struct dirent *de;
	int err = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		err = cb(ctx, (pid_t)pid);
	}
	closedir(d);
	return err;
}

int procscan__comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return 0;
}

int procscan__nspid(pid_t pid, pid_t *nspid)
{
	char path[64], line[512];
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p, *last = NULL;

		if (strncmp(line, "NSpid:", 6))
			continue;
		/* "NSpid:\t4242\t7": one PID per nested namespace, ours first. */
		for (p = strtok(line + 6, " \t\n"); p; p = strtok(NULL, " \t\n"))
			last = p;
		if (last) {
			*nspid = (pid_t)strtol(last, NULL, 10);
			err = 0;
		}
		break;
	}
	fclose(f);
	return err;
}

int procscan__in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len == n && !strncmp(p, name, n))
			return 1;
		p = e ? e + 1 : p + strlen(p);
	}
	return 0;
}

int procscan__start_time(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n ? -errno : -ESRCH;
	buf[n] = 0;
	/* After the comm, which may hold anything: field 3 (state) on; the
	 * start time is field 22. */
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return -EIO;
	*ticks = start;
	return 0;
}
