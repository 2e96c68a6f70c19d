// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/PID/maps, read once per scan (procmaps.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procmaps.h"
#include "safeopen.h"
#include "util.h"

/* "START-END PERMS OFFSET MAJ:MIN INODE   PATH": 1 if file-backed, 0 if
 * not (or malformed); line is cut at the newline. */
static int parse_line(char *line, struct mapping *m)
{
	unsigned int maj, min;
	unsigned long ino;
	char perms[8], *nl;
	int path_off = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &m->start, &m->end, perms, &m->offset,
		   &maj, &min, &ino, &path_off) < 7 ||
	    !path_off || line[path_off] != '/')
		return 0;
	nl = strchr(line + path_off, '\n');
	if (nl)
		*nl = 0;
	m->dev = makedev(maj, min);
	m->ino = ino;
	m->exec = perms[2] == 'x';
	m->path = line + path_off;
	return 1;
}

int procmaps__parse(FILE *f, struct mapping **out, size_t *nr)
{
	struct mapping *v = NULL, m;
	size_t n = 0, cap = 0, line_cap = 0;
	char *line = NULL;
	int err = 0;

	while (getline(&line, &line_cap, f) > 0) {
		if (!parse_line(line, &m))
			continue;
		m.path = strdup(m.path);
		if (!m.path || fsp_grow((void **)&v, &cap, n + 1, sizeof(*v))) {
			free(m.path);
			err = -ENOMEM;
			break;
		}
		v[n++] = m;
	}
	if (!err && ferror(f))
		err = errno == ESRCH ? -ESRCH : -EIO; /* the process exited mid-read */
	free(line);
	if (err) {
		procmaps__free(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

int procmaps__read(pid_t pid, struct mapping **out, size_t *nr)
{
	char path[64];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = procmaps__parse(f, out, nr);
	fclose(f);
	return err;
}

int procmaps__read_text(pid_t pid, char **text, size_t *len)
{
	char path[64], chunk[4096];
	FILE *in, *out;
	size_t n;
	int err = 0;

	*text = NULL;
	*len = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	in = fopen(path, "re");
	if (!in)
		return errno == ENOENT ? -ESRCH : -errno;
	out = open_memstream(text, len);
	if (!out) {
		err = -errno;
		fclose(in);
		return err;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, n, out);
	if (ferror(in))
		err = errno == ESRCH ? -ESRCH : -EIO; /* it exited mid-read */
	fclose(in);
	if (fclose(out) && !err)
		err = -ENOMEM;
	if (!err && !*len)
		err = -ESRCH; /* a zombie: no mappings left */
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}

bool procmaps__has_exec(const struct mapping *m, size_t nr, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < nr; i++)
		if (m[i].exec && m[i].ino == ino && m[i].dev == dev)
			return true;
	return false;
}

void procmaps__free(struct mapping *m, size_t nr)
{
	for (size_t i = 0; m && i < nr; i++)
		free(m[i].path);
	free(m);
}

int procmaps__for_each_file(const struct mapping *m, size_t nr, procmaps_file_cb cb, void *ctx)
{
	for (size_t i = 0; i < nr; i++) {
		bool seen = false;
		int err;

		if (!m[i].exec || !m[i].ino)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = m[j].exec && m[j].dev == m[i].dev && m[j].ino == m[i].ino;
		if (seen)
			continue;
		err = cb(ctx, &m[i]);
		if (err)
			return err;
	}
	return 0;
}

int procmaps__for_each_mapped_file(pid_t pid, procmaps_file_cb cb, void *ctx)
{
	struct mapping *m;
	size_t nr;
	int err;

	err = procmaps__read(pid, &m, &nr);
	if (err)
		return err;
	err = procmaps__for_each_file(m, nr, cb, ctx);
	procmaps__free(m, nr);
	return err;
}

struct open_ctx {
	pid_t pid;
	procmaps_open_cb cb;
	void *ctx;
};

static int open_cb(void *arg, const struct mapping *m)
{
	struct open_ctx *c = arg;
	char kpath[64];
	int fd, err;

	fd = procmaps__open(c->pid, m);
	if (fd < 0)
		return 0;
	snprintf(kpath, sizeof(kpath), "/proc/self/fd/%d", fd);
	err = c->cb(c->ctx, kpath, m->path);
	close(fd);
	return err;
}

int procmaps__for_each_open_file(pid_t pid, procmaps_open_cb cb, void *ctx)
{
	struct open_ctx c = {pid, cb, ctx};

	return procmaps__for_each_mapped_file(pid, open_cb, &c);
}

static bool deleted(const char *path)
{
	size_t n = strlen(path), k = strlen(" (deleted)");

	return n > k && !strcmp(path + n - k, " (deleted)");
}

int procmaps__open(pid_t pid, const struct mapping *m)
{
	const struct safeopen_id id = {m->dev, m->ino};
	char path[PATH_MAX + 64];
	int fd = -ENOENT;

	if (pid > 0) {
		/* The mapped object itself, whatever its name became. */
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid, m->start, m->end);
		fd = safeopen__read(AT_FDCWD, path, 0, NULL, NULL);
		if (fd >= 0 || (fd != -EPERM && fd != -EACCES))
			return fd;
	}
	/* Not allowed (no CAP_SYS_ADMIN), or the process is gone: the name,
	 * as the process sees it, if it still names that file. */
	if (deleted(m->path))
		return -ENOENT;
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
	else
		snprintf(path, sizeof(path), "%s", m->path);
	return safeopen__read(AT_FDCWD, path, SAFEOPEN_NOFOLLOW, &id, NULL);
}

int procmaps__read_string(pid_t pid, const struct mapping *m, size_t nr, unsigned long long addr,
			  char *buf, size_t size)
{
	for (size_t i = 0; i < nr; i++) {
		ssize_t got;
		int fd;

		if (addr < m[i].start || addr >= m[i].end)
			continue;
		fd = procmaps__open(pid, &m[i]);
		if (fd < 0)
			return fd;
		got = pread(fd, buf, size - 1, (off_t)(addr - m[i].start + m[i].offset));
		close(fd);
		if (got <= 0)
			return -EIO;
		buf[got] = 0;
		if (!memchr(buf, 0, got) && got == (ssize_t)size - 1)
			return -ERANGE;
		return strlen(buf);
	}
	return -ENOENT;
}
