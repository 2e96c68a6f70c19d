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

/* Permissions of a new file: private by default, as perf's perf.data, since
 * profiles hold strings read from the target (statements, file names). */
static unsigned int new_mode = OUTFILE_DEFAULT_MODE;

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

void outfile__set_new_mode(unsigned int mode)
{
	new_mode = mode & 0777;
}

/* The invoking user of sudo (SUDO_UID, SUDO_GID) when running as root under
 * it: new files are theirs. false otherwise. */
static bool sudo_owner(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long v;
	char *end;

	if (geteuid() != 0 || !u || !*u)
		return false;
	errno = 0;
	v = strtoul(u, &end, 10);
	if (errno || *end || v == 0 || v >= (uid_t)-1)
		return false;
	*uid = v;
	*gid = (gid_t)-1;
	if (g && *g) {
		v = strtoul(g, &end, 10);
		if (!errno && !*end && v < (gid_t)-1)
			*gid = v;
	}
	return true;
}

/*
 * Owner and mode of the temporary file before anything is written to it:
 * those of the file it replaces (old, when there is one), else new_mode
 * and, under sudo, the invoking user. Keeping another user's ownership
 * needs root: without it the file becomes the writer's.
 */
static int set_owner_mode(int fd, const struct stat *old)
{
	uid_t uid;
	gid_t gid;

	if (old) {
		if (fchown(fd, old->st_uid, old->st_gid) && errno != EPERM)
			return -errno;
		return fchmod(fd, old->st_mode & 07777) ? -errno : 0;
	}
	if (sudo_owner(&uid, &gid) && fchown(fd, uid, gid))
		return -errno;
	return fchmod(fd, new_mode) ? -errno : 0;
}

int outfile__check(const char *path)
{
	struct stat st;
	char *tmp;
	int fd;

	if (!path || !strcmp(path, "-"))
		return 0;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(path, W_OK) ? -errno : 0; /* opening a FIFO would block */
	}
	tmp = temp_name(path);
	if (!tmp)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		free(tmp);
		return fd;
	}
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
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
	/* A replaced file keeps its owner and mode; a new one gets new_mode. */
	*err = set_owner_mode(fd, stat(path, &st) ? NULL : &st);
	if (*err) {
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
