// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

struct outfile {
	FILE *f;
	char *path; /* NULL for stdout */
	char *tmp; /* NULL when written in place */
	bool done;
};

/* ".NAME.XXXXXX" beside path. */
static char *temp_name(const char *path)
{
	char *a = strdup(path), *b = strdup(path), *out = NULL;

	if (a && b && asprintf(&out, "%s/.%s.XXXXXX", dirname(a), basename(b)) < 0)
		out = NULL;
	free(a);
	free(b);
	return out;
}

/* Makes the rename durable: fsync of path's directory, best effort. */
static void sync_dir(const char *path)
{
	char *d = strdup(path);
	int fd;

	if (!d)
		return;
	fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(d);
}

struct outfile *outfile__open(const char *path, int *err)
{
	struct outfile *f = calloc(1, sizeof(*f));
	struct stat st;
	int fd = -1;

	*err = -ENOMEM;
	if (!f)
		return NULL;
	if (!path || !strcmp(path, "-")) {
		f->f = stdout;
		*err = 0;
		return f;
	}
	f->path = strdup(path);
	if (!f->path)
		goto cleanup;
	/* Not a regular file (/dev/null, a FIFO, /dev/stdout): written in place,
	 * since a rename would replace the device or pipe itself. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		*err = S_ISDIR(st.st_mode) ? -EISDIR : 0;
		if (*err)
			goto cleanup;
		f->f = fopen(path, "we");
		if (!f->f) {
			*err = -errno;
			goto cleanup;
		}
		return f;
	}
	f->tmp = temp_name(path);
	if (!f->tmp)
		goto cleanup;
	fd = mkostemp(f->tmp, O_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		free(f->tmp);
		f->tmp = NULL;
		goto cleanup;
	}
	/* A replaced file keeps its mode; a new one gets 0644 (mkostemp: 0600). */
	if (fchmod(fd, stat(path, &st) ? 0644 : st.st_mode & 07777)) {
		*err = -errno;
		close(fd);
		goto cleanup;
	}
	f->f = fdopen(fd, "w");
	if (!f->f) {
		*err = -errno;
		close(fd);
		goto cleanup;
	}
	*err = 0;
	return f;
cleanup:
	outfile__free(f);
	return NULL;
}

FILE *outfile__stream(struct outfile *f)
{
	return f ? f->f : NULL;
}

const char *outfile__name(const struct outfile *f)
{
	return f && f->path ? f->path : "standard output";
}

int outfile__commit(struct outfile *f)
{
	int err = 0;

	if (!f || f->done || !f->f)
		return -EINVAL;
	errno = 0;
	if (fflush(f->f) || ferror(f->f))
		err = errno ? -errno : -EIO;
	if (!f->path)
		return err;
	if (!f->tmp) {
		if (fclose(f->f) && !err)
			err = errno ? -errno : -EIO;
		f->f = NULL;
		f->done = !err;
		return err;
	}
	if (!err && fsync(fileno(f->f)))
		err = -errno;
	if (fclose(f->f) && !err)
		err = errno ? -errno : -EIO;
	f->f = NULL;
	if (!err && rename(f->tmp, f->path))
		err = -errno;
	if (!err) {
		f->done = true;
		sync_dir(f->path);
	}
	return err;
}

void outfile__free(struct outfile *f)
{
	if (!f)
		return;
	if (f->path) {
		if (f->f)
			fclose(f->f);
		if (f->tmp && !f->done)
			unlink(f->tmp);
	}
	free(f->path);
	free(f->tmp);
	free(f);
}
