// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Resolving a path with checks on its directories and links (pathwalk.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "pathwalk.h"

#define MAX_LINKS 40

/* sudo's invoking user (SUDO_UID) when root runs under sudo, else -1. */
static uid_t sudo_uid(void)
{
	const char *u = getenv("SUDO_UID");
	unsigned long v;
	char *end;

	if (geteuid() != 0 || !u || !*u)
		return (uid_t)-1;
	errno = 0;
	v = strtoul(u, &end, 10);
	return errno || *end || v >= (uid_t)-1 ? (uid_t)-1 : (uid_t)v;
}

bool pathwalk__trusted_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid() || uid == sudo_uid();
}

bool pathwalk__others_write(const struct stat *st)
{
	return !pathwalk__trusted_uid(st->st_uid) || (st->st_mode & S_IWOTH) ||
	       ((st->st_mode & S_IWGRP) && st->st_gid != 0);
}

const char *pathwalk__user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, size, "user %s (uid %u)", pw->pw_name, (unsigned int)uid);
	else
		snprintf(buf, size, "uid %u", (unsigned int)uid);
	return buf;
}

/* Who besides the trusted users can write a directory of status st, in
 * words: "user nobody (uid 65534), its owner", "every user (mode 1777)". */
static void writers(const struct stat *st, char *buf, size_t size)
{
	char who[96];

	if (!pathwalk__trusted_uid(st->st_uid))
		snprintf(buf, size, "%s (its owner)",
			 pathwalk__user_name(st->st_uid, who, sizeof(who)));
	else if (st->st_mode & S_IWOTH)
		snprintf(buf, size, "every user (mode %04o)", (unsigned int)(st->st_mode & 07777));
	else
		snprintf(buf, size, "group %u (mode %04o)", (unsigned int)st->st_gid,
			 (unsigned int)(st->st_mode & 07777));
}

static int refuse(struct pathwalk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct pathwalk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	return -EPERM;
}

/* The checks of flags on the directory dirfd (dir names it), entered. */
static int check_dir(struct pathwalk *w, int dirfd, const char *dir, unsigned int flags)
{
	char who[160];
	struct stat st;

	if (!(flags & (PATHWALK_PUBLIC | PATHWALK_TRUSTED_DIRS)))
		return 0;
	if (fstat(dirfd, &st))
		return -errno;
	if ((flags & PATHWALK_PUBLIC) && !(st.st_mode & S_IXOTH))
		return refuse(w, "directory %s is not open to every user (mode %04o)", dir,
			      (unsigned int)(st.st_mode & 07777));
	if ((flags & PATHWALK_TRUSTED_DIRS) && pathwalk__others_write(&st) &&
	    !(pathwalk__trusted_uid(st.st_uid) && (st.st_mode & S_ISVTX))) {
		writers(&st, who, sizeof(who));
		return refuse(w, "directory %s can be written by %s", dir, who);
	}
	return 0;
}

/* May the link name (status lst) in the directory dirfd be followed? */
static int check_link(struct pathwalk *w, int dirfd, const char *dir, const char *name,
		      const struct stat *lst, unsigned int flags)
{
	char who[160], owner[96];
	struct stat st;

	if (!(flags & PATHWALK_TRUSTED_LINKS) || pathwalk__trusted_uid(lst->st_uid))
		return 0;
	if (fstat(dirfd, &st))
		return -errno;
	if (!pathwalk__others_write(&st))
		return 0;
	writers(&st, who, sizeof(who));
	return refuse(w,
		      "%s%s%s is a symbolic link of %s in a directory %s can write: fsp-bpf "
		      "does not follow a link another user could have planted (give the path "
		      "it points to)",
		      dir, strcmp(dir, "/") ? "/" : "", name,
		      pathwalk__user_name(lst->st_uid, owner, sizeof(owner)), who);
}

static bool on_proc(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == PROC_SUPER_MAGIC;
}

/* The walk's state: the directory reached, its name so far (for messages),
 * what is left of the path. */
struct walk {
	int dirfd;
	char dir[PATH_MAX];
	char rest[2 * PATH_MAX];
	int links;
};

/* Moves the walk to directory fd (consumed), named dir/comp. */
static void enter(struct walk *k, int fd, const char *comp)
{
	size_t n = strlen(k->dir);

	close(k->dirfd);
	k->dirfd = fd;
	if (comp[0] == '/')
		snprintf(k->dir, sizeof(k->dir), "/");
	else
		snprintf(k->dir + n, sizeof(k->dir) - n, "%s%s",
			 n && k->dir[n - 1] != '/' ? "/" : "", comp);
}

/* Replaces the link (O_PATH descriptor fd) by its target in what is left to
 * walk (after, the path past the link). */
static int splice_link(struct walk *k, int fd, const char *after)
{
	char target[PATH_MAX], tail[2 * PATH_MAX];
	ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
	int root;

	if (n < 0)
		return -errno;
	target[n] = 0;
	snprintf(tail, sizeof(tail), "%s", after);
	if ((size_t)snprintf(k->rest, sizeof(k->rest), "%s%s%s", target, *tail ? "/" : "", tail) >=
	    sizeof(k->rest))
		return -ENAMETOOLONG;
	if (target[0] == '/') {
		root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -errno;
		enter(k, root, "/");
	}
	return 0;
}

int pathwalk__resolve(const char *path, unsigned int flags, struct pathwalk *w)
{
	struct walk *k = calloc(1, sizeof(*k));
	char comp[NAME_MAX + 1];
	int err = 0, fd = -1;
	const char *p;
	size_t n;

	memset(w, 0, sizeof(*w));
	w->dirfd = w->fd = -1;
	if (!k)
		return -ENOMEM;
	if (!path || !*path) {
		err = -ENOENT;
		goto out;
	}
	if (path[0] != '/' && (flags & (PATHWALK_PUBLIC | PATHWALK_TRUSTED_DIRS))) {
		/* the working directory's own directories are on the way too */
		if (!getcwd(k->dir, sizeof(k->dir))) {
			err = -errno;
			goto out;
		}
		n = snprintf(k->rest, sizeof(k->rest), "%s/%s", k->dir, path);
	} else {
		n = snprintf(k->rest, sizeof(k->rest), "%s", path);
	}
	if (n >= PATH_MAX) {
		err = -ENAMETOOLONG;
		goto out;
	}
	path = k->rest;
	w->dir_only = path[strlen(path) - 1] == '/';
	snprintf(k->dir, sizeof(k->dir), "%s", path[0] == '/' ? "/" : ".");
	k->dirfd = open(k->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (k->dirfd < 0) {
		err = -errno;
		goto out;
	}
	p = k->rest;
	for (;;) {
		size_t len;
		const char *next;
		struct stat st;
		bool last;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (!len) { /* "/" itself, or a path ending in '/' after ".." */
			snprintf(w->name, sizeof(w->name), ".");
			break;
		}
		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, len);
		comp[len] = 0;
		next = p + len + strspn(p + len, "/");
		last = !*next;
		err = check_dir(w, k->dirfd, k->dir, flags);
		if (err)
			break;
		fd = openat(k->dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			if (err == -ENOENT && last) {
				err = 0; /* to be created */
				snprintf(w->name, sizeof(w->name), "%s", comp);
			}
			break;
		}
		if (fstat(fd, &st)) {
			err = -errno;
			break;
		}
		if (S_ISLNK(st.st_mode) && (!last || w->dir_only || (flags & PATHWALK_FOLLOW))) {
			if (++k->links > MAX_LINKS) {
				err = -ELOOP;
				break;
			}
			err = check_link(w, k->dirfd, k->dir, comp, &st, flags);
			if (err)
				break;
			if (on_proc(k->dirfd)) {
				/* a magic link (/proc/self/fd/N): only the kernel follows it */
				if (flags & PATHWALK_PUBLIC) {
					err = refuse(w, "%s/%s is a /proc link", k->dir, comp);
					break;
				}
				close(fd);
				fd = openat(k->dirfd, comp, O_PATH | O_CLOEXEC);
				if (fd < 0) {
					err = -errno;
					break;
				}
				if (last) {
					w->fd = fd;
					fd = -1;
					snprintf(w->name, sizeof(w->name), "%s", comp);
					break;
				}
				enter(k, fd, comp);
				fd = -1;
				p = next;
				continue;
			}
			err = splice_link(k, fd, next);
			close(fd);
			fd = -1;
			if (err)
				break;
			p = k->rest;
			continue;
		}
		if (last) {
			snprintf(w->name, sizeof(w->name), "%s", comp);
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			break;
		}
		enter(k, fd, comp);
		fd = -1;
		p = next;
	}
out:
	if (fd >= 0)
		close(fd);
	if (k && !err) {
		w->dirfd = k->dirfd;
		k->dirfd = -1;
	}
	if (k && k->dirfd >= 0)
		close(k->dirfd);
	free(k);
	return err;
}

void pathwalk__fini(struct pathwalk *w)
{
	if (!w)
		return;
	if (w->dirfd >= 0)
		close(w->dirfd);
	if (w->fd >= 0)
		close(w->fd);
	w->dirfd = w->fd = -1;
}
