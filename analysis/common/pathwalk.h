/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Resolving a path one component at a time, with checks on what the walk
 * meets, for a root that must not be another user's deputy (docs/
 * architecture.md, "Files and paths fsp-bpf opens as root"). The walk
 * follows symbolic links itself (readlinkat on the link it examined, so that
 * no link is swapped between the check and the use), except the kernel's
 * /proc magic links (/proc/self/fd/1), which only the kernel can follow.
 *
 * Trusted users: root, the effective user, and under sudo the invoking user
 * (SUDO_UID): each may run fsp-bpf as root anyway. A directory "others can
 * write" is one owned by another user, or writable by its group (not root's)
 * or by everyone.
 */
#ifndef FSP_PATHWALK_H
#define FSP_PATHWALK_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

enum pathwalk_flags {
	/* A link is followed only when a trusted user owns it, or when no
	 * one else can write its directory (the kernel's protected_symlinks,
	 * for every directory, not only sticky ones). */
	PATHWALK_TRUSTED_LINKS = 1,
	/* Every directory passed must let every user search it (S_IXOTH), and
	 * no /proc magic link is followed: what every user could reach. */
	PATHWALK_PUBLIC = 2,
	/* Every directory passed must belong to a trusted user and be
	 * writable by no one else, unless it is sticky (others cannot
	 * replace what a trusted user put there). */
	PATHWALK_TRUSTED_DIRS = 4,
	/* The final component too, when it is a link (the rules above apply). */
	PATHWALK_FOLLOW = 8,
};

struct pathwalk {
	int dirfd; /* O_PATH descriptor of the directory holding name */
	char name[NAME_MAX + 1]; /* the final component; "." for "/" */
	/* >= 0: the final component was reached through a /proc magic link,
	 * its O_PATH descriptor (name holds the link's name) */
	int fd;
	bool dir_only; /* the path ended in '/' */
	/* on -EPERM: the rule the path breaks, in words (no path prefix) */
	char why[PATH_MAX + 256];
};

/*
 * Resolves path (absolute, or relative to the working directory) to the
 * directory holding its final component, which need not exist. 0, or
 * -errno: -EPERM (a rule of flags is broken: w->why says which), -ENOENT,
 * -ENOTDIR, -ELOOP (more than 40 links), -ENAMETOOLONG, ... w is to be
 * released with pathwalk__fini() either way.
 */
int pathwalk__resolve(const char *path, unsigned int flags, struct pathwalk *w);
void pathwalk__fini(struct pathwalk *w);

/* Is uid root, the effective user, or sudo's invoking user? */
bool pathwalk__trusted_uid(uid_t uid);

/* "user NAME (uid N)", or "uid N" for an unknown one, into buf (for messages). */
const char *pathwalk__user_name(uid_t uid, char *buf, size_t size);

/* Can anyone but a trusted user write the directory of status st (its
 * owner, its group unless root's, everyone)? */
bool pathwalk__others_write(const struct stat *st);

#endif /* FSP_PATHWALK_H */
