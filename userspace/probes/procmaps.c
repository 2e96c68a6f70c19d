// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/PID/maps, read once per scan (procmaps.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procmaps.h"
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

void procmaps__free(struct mapping *m, size_t nr)
{
	for (size_t i = 0; m && i < nr; i++)
		free(m[i].path);
	free(m);
}

static bool same_mapping(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->dev == b->dev && a->ino == b->ino;
}

int procmaps__keep_gone(struct mapping **cur, size_t *nr, struct mapping *old, size_t nr_old)
{
	size_t n = *nr, gone = 0;
	struct mapping *m;

	for (size_t i = 0; i < nr_old; i++) {
		bool kept = false;

		for (size_t j = 0; j < n && !kept; j++)
			kept = same_mapping(&old[i], &(*cur)[j]);
		if (!kept)
			old[gone++] = old[i];
		else
			free(old[i].path);
	}
	if (!gone) {
		free(old);
		return 0;
	}
	m = realloc(*cur, (n + gone) * sizeof(*m));
	if (!m) {
		procmaps__free(old, gone);
		return -ENOMEM;
	}
	memcpy(m + n, old, gone * sizeof(*m));
	free(old);
	*cur = m;
	*nr = n + gone;
	return 0;
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
		err = cb(ctx, m[i].path, m[i].dev, m[i].ino);
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

int procmaps__read_string(const struct mapping *m, size_t nr, unsigned long long addr, char *buf,
			  size_t size)
{
	for (size_t i = 0; i < nr; i++) {
		ssize_t got;
		int fd;

		if (addr < m[i].start || addr >= m[i].end)
			continue;
		fd = open(m[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
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
