// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "pathwalk.h"

/* Permissions of a new file: private by default, as perf's perf.data, since
 * profiles hold strings read from the target (statements, file names). */
static unsigned int new_mode = OUTFILE_DEFAULT_MODE;

/* Why the last outfile__open or outfile__check refused the path, and the
 * error it returned then (outfile__strerror). */
static char refusal[PATH_MAX + 512];
static int refusal_err;

struct outfile {
	FILE *f;
	char *path; /* NULL for stdout */
	int dirfd; /* the destination's directory (O_PATH), -1 when written in place */
	char *name; /* the destination in dirfd */
	char *tmp; /* the temporary file in dirfd, NULL when written in place */
	bool excl; /* never replaces a file */
	bool done;
};

/* What writing to a path will do. */
enum plan_kind {
	PLAN_NEW, /* create it: a temporary file renamed to it */
	PLAN_REPLACE, /* the same, over the regular file there (st) */
	PLAN_IN_PLACE, /* write into what is there (a FIFO, a device, stdout) */
};

struct plan {
	struct pathwalk w;
	enum plan_kind kind;
	struct stat st; /* what is there (PLAN_REPLACE, PLAN_IN_PLACE) */
};

static int refuse(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(refusal, sizeof(refusal), fmt, ap);
	va_end(ap);
	refusal_err = err;
	return err;
}

const char *outfile__strerror(int err)
{
	return err && err == refusal_err && refusal[0] ? refusal : strerror(-err);
}

static const char *kind_name(mode_t mode)
{
	return S_ISFIFO(mode)	? "a FIFO"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
				: "a file";
}

/*
 * May what is there (status st, in the directory of status dir; dir NULL
 * when reached through a /proc link) be written into or replaced? Not a
 * block device or socket; a FIFO or device only of a trusted user (one
 * planted by another would read the profile, or block the end of the
 * session); a regular file of another user not in a directory others can
 * write (the kernel's protected_regular: it may have been planted there).
 */
static int check_existing(const struct stat *st, const struct stat *dir)
{
	char who[96];

	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISBLK(st->st_mode) || S_ISSOCK(st->st_mode))
		return refuse(-EPERM,
			      "it is %s: fsp-bpf writes to files, FIFOs and character devices "
			      "(/dev/null), never to a disk",
			      kind_name(st->st_mode));
	if (!S_ISREG(st->st_mode) && !pathwalk__trusted_uid(st->st_uid))
		return refuse(-EPERM,
			      "it is %s of %s: fsp-bpf writes only into FIFOs and devices of "
			      "root or you",
			      kind_name(st->st_mode),
			      pathwalk__user_name(st->st_uid, who, sizeof(who)));
	if (S_ISREG(st->st_mode) && dir && !pathwalk__trusted_uid(st->st_uid) &&
	    pathwalk__others_write(dir))
		return refuse(-EPERM,
			      "it is a file of %s in a directory other users can write: "
			      "fsp-bpf does not replace it (remove it, or choose another name)",
			      pathwalk__user_name(st->st_uid, who, sizeof(who)));
	return 0;
}

/* Resolves path (pathwalk.h: no link another user could have planted) and
 * decides what writing it means. 0 or -errno; pl->w to be released. */
static int plan(const char *path, bool excl, struct plan *pl)
{
	struct stat dir;
	int err;

	memset(pl, 0, sizeof(*pl));
	refusal[0] = 0;
	refusal_err = 0;
	/* a new file: not even a link of our own is followed at the end */
	err = pathwalk__resolve(path, PATHWALK_TRUSTED_LINKS | (excl ? 0 : PATHWALK_FOLLOW),
				&pl->w);
	if (err == -EPERM)
		return refuse(err, "%s", pl->w.why);
	if (err)
		return err;
	if (pl->w.dir_only || !strcmp(pl->w.name, ".") || !strcmp(pl->w.name, ".."))
		return -EISDIR;
	if (pl->w.fd >= 0) { /* a /proc link: /dev/stdout, /dev/fd/N */
		pl->kind = PLAN_IN_PLACE;
		if (fstat(pl->w.fd, &pl->st))
			return -errno;
		return excl ? -EEXIST : check_existing(&pl->st, NULL);
	}
	if (fstatat(pl->w.dirfd, pl->w.name, &pl->st, AT_SYMLINK_NOFOLLOW)) {
		pl->kind = PLAN_NEW;
		return errno == ENOENT ? 0 : -errno;
	}
	if (excl)
		return -EEXIST;
	if (S_ISLNK(pl->st.st_mode))
		return -ELOOP; /* replaced by a link since the walk: not followed */
	if (fstat(pl->w.dirfd, &dir))
		return -errno;
	err = check_existing(&pl->st, &dir);
	pl->kind = S_ISREG(pl->st.st_mode) ? PLAN_REPLACE : PLAN_IN_PLACE;
	return err;
}

/* The in-place destination of pl opened for writing: never blocking on a
 * FIFO nobody reads (ENXIO), the inode planned. */
static int open_in_place(const struct plan *pl)
{
	int flags = O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	char self[64];
	struct stat st;
	int fd;

	if (S_ISREG(pl->st.st_mode))
		flags |= O_TRUNC;
	if (pl->w.fd >= 0) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pl->w.fd);
		fd = open(self, flags);
	} else {
		fd = openat(pl->w.dirfd, pl->w.name, flags | O_NOFOLLOW);
	}
	if (fd < 0)
		return errno == ENXIO && S_ISFIFO(pl->st.st_mode)
			       ? refuse(-ENXIO, "it is a FIFO that no process reads")
			       : -errno;
	if (fstat(fd, &st) || st.st_dev != pl->st.st_dev || st.st_ino != pl->st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* A new temporary file ".NAME.XXXXXX" in dirfd, mode 0600: its descriptor,
 * its name in *tmp. */
static int temp_file(int dirfd, const char *name, char **tmp)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	char *t = NULL;
	int fd = -EEXIST;

	if (asprintf(&t, ".%.200s.XXXXXX", name) < 0)
		return -ENOMEM;
	for (int i = 0; i < 100 && fd == -EEXIST; i++) {
		char *x = t + strlen(t) - 6;

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			fd = -errno;
			break;
		}
		for (int k = 0; k < 6; k++)
			x[k] = chars[rnd[k] % (sizeof(chars) - 1)];
		fd = openat(dirfd, t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		free(t);
	else
		*tmp = t;
	return fd;
}

/* Makes the rename durable: fsync of the directory, best effort. */
static void sync_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
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
 * those of the file it replaces (old, when there is one: its permission
 * bits, never setuid or setgid), else new_mode and, under sudo, the invoking
 * user. Keeping another user's ownership needs root: without it the file
 * becomes the writer's. On the descriptor, never by name.
 */
static int set_owner_mode(int fd, const struct stat *old)
{
	uid_t uid;
	gid_t gid;

	if (old) {
		if (fchown(fd, old->st_uid, old->st_gid) && errno != EPERM)
			return -errno;
		return fchmod(fd, old->st_mode & 0777) ? -errno : 0;
	}
	if (sudo_owner(&uid, &gid) && fchown(fd, uid, gid))
		return -errno;
	return fchmod(fd, new_mode) ? -errno : 0;
}

int outfile__check(const char *path)
{
	char self[64], *tmp = NULL;
	struct plan pl;
	int err, fd;

	if (!path || !strcmp(path, "-"))
		return 0;
	err = plan(path, false, &pl);
	if (!err && pl.kind == PLAN_IN_PLACE) {
		/* a FIFO or device: checked for write access, not opened */
		if (pl.w.fd >= 0) {
			snprintf(self, sizeof(self), "/proc/self/fd/%d", pl.w.fd);
			err = access(self, W_OK) ? -errno : 0;
		} else {
			err = faccessat(pl.w.dirfd, pl.w.name, W_OK, AT_SYMLINK_NOFOLLOW) ? -errno
											  : 0;
		}
	} else if (!err) {
		fd = temp_file(pl.w.dirfd, pl.w.name, &tmp);
		err = fd < 0 ? fd : 0;
		if (fd >= 0) {
			close(fd);
			unlinkat(pl.w.dirfd, tmp, 0);
		}
		free(tmp);
	}
	pathwalk__fini(&pl.w);
	return err;
}

static struct outfile *open_path(const char *path, bool excl, int *err)
{
	struct outfile *f = calloc(1, sizeof(*f));
	struct plan pl;
	int fd = -1;

	*err = -ENOMEM;
	if (!f)
		return NULL;
	f->dirfd = -1;
	f->excl = excl;
	if (!path || !strcmp(path, "-")) {
		f->f = stdout;
		*err = 0;
		return f;
	}
	f->path = strdup(path);
	*err = f->path ? plan(path, excl, &pl) : -ENOMEM;
	if (*err) {
		if (f->path)
			pathwalk__fini(&pl.w);
		goto cleanup;
	}
	if (pl.kind == PLAN_IN_PLACE) {
		/* a FIFO, a device, stdout: written in place, since a rename
		 * would replace the device or pipe itself */
		fd = open_in_place(&pl);
	} else {
		f->name = strdup(pl.w.name);
		fd = f->name ? temp_file(pl.w.dirfd, pl.w.name, &f->tmp) : -ENOMEM;
		f->dirfd = pl.w.dirfd;
		pl.w.dirfd = -1;
	}
	pathwalk__fini(&pl.w);
	if (fd < 0) {
		*err = fd;
		goto cleanup;
	}
	/* A replaced file keeps its owner and mode; a new one gets new_mode. */
	*err = f->tmp ? set_owner_mode(fd, pl.kind == PLAN_REPLACE ? &pl.st : NULL) : 0;
	if (!*err) {
		f->f = fdopen(fd, "w");
		*err = f->f ? 0 : -errno;
	}
	if (*err) {
		close(fd);
		goto cleanup;
	}
	return f;
cleanup:
	outfile__free(f);
	return NULL;
}

struct outfile *outfile__open(const char *path, int *err)
{
	return open_path(path, false, err);
}

struct outfile *outfile__open_new(const char *path, int *err)
{
	return open_path(path, true, err);
}

FILE *outfile__stream(struct outfile *f)
{
	return f ? f->f : NULL;
}

const char *outfile__name(const struct outfile *f)
{
	return f && f->path ? f->path : "standard output";
}

/* Renames the temporary file to the destination; never over an existing
 * file when f->excl (a file system without RENAME_NOREPLACE: a hard link). */
static int put_in_place(struct outfile *f)
{
	if (!renameat2(f->dirfd, f->tmp, f->dirfd, f->name, f->excl ? RENAME_NOREPLACE : 0))
		return 0;
	if (!f->excl || errno != EINVAL)
		return -errno;
	if (linkat(f->dirfd, f->tmp, f->dirfd, f->name, 0))
		return -errno;
	unlinkat(f->dirfd, f->tmp, 0);
	return 0;
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
	/* by the directory's descriptor: the directory the checks were made in */
	if (!err)
		err = put_in_place(f);
	if (!err) {
		f->done = true;
		sync_dir(f->dirfd);
	}
	return err;
}

void outfile__free(struct outfile *f)
{
	if (!f)
		return;
	if (f->path && f->f)
		fclose(f->f);
	if (f->tmp && !f->done)
		unlinkat(f->dirfd, f->tmp, 0);
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->path);
	free(f->name);
	free(f->tmp);
	free(f);
}
