// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of opening files others named (analysis/common/safeopen.h) and
 * of resolving paths with rules on their links and directories
 * (analysis/common/pathwalk.h). As root, "another user" is nobody (65534). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwalk.h"
#include "safeopen.h"
#include "unit_helpers.h"

#define NOBODY 65534

static char dir[] = "/tmp/fsp-safeopen-XXXXXX";

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/fsp-safeopen-XXXXXX");
	return mkdtemp(dir) && !chmod(dir, 0755) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/* dir/name, in one of 8 rotating buffers. */
static const char *at(const char *name)
{
	static char bufs[8][256];
	static int i;
	char *b = bufs[i++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

static void make_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A regular file opens; a FIFO (without blocking), a directory and a
 * device do not; a link at the end only without SAFEOPEN_NOFOLLOW; another
 * inode than asked for is -ESTALE. */
static void test_read(void **state)
{
	struct safeopen_id id;
	struct stat st;
	char buf[8] = "";
	int fd;

	(void)state;
	make_file(at("f"), "text");
	fd = safeopen__read(AT_FDCWD, at("f"), 0, NULL, &st);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 4);
	assert_string_equal(buf, "text");
	assert_true(fcntl(fd, F_GETFL) >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
	id = (struct safeopen_id){st.st_dev, st.st_ino};
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(safeopen__read(AT_FDCWD, at("fifo"), 0, NULL, NULL), -EINVAL);
	assert_int_equal(safeopen__read(AT_FDCWD, dir, 0, NULL, NULL), -EISDIR);
	assert_int_equal(safeopen__read(AT_FDCWD, "/dev/null", 0, NULL, NULL), -EINVAL);
	assert_int_equal(safeopen__read(AT_FDCWD, at("none"), 0, NULL, NULL), -ENOENT);
	assert_int_equal(safeopen__read(AT_FDCWD, "", 0, NULL, NULL), -ENOENT);
	assert_int_equal(symlink(at("f"), at("link")), 0);
	fd = safeopen__read(AT_FDCWD, at("link"), 0, &id, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(safeopen__read(AT_FDCWD, at("link"), SAFEOPEN_NOFOLLOW, NULL, NULL),
			 -ELOOP);
	/* the name now names another file */
	make_file(at("g"), "other");
	assert_int_equal(rename(at("g"), at("f")), 0);
	assert_int_equal(safeopen__read(AT_FDCWD, at("f"), 0, &id, NULL), -ESTALE);
	/* relative to a directory descriptor, also an O_PATH one */
	fd = open(dir, O_PATH | O_DIRECTORY);
	assert_true(fd >= 0);
	{
		int rfd = safeopen__read(fd, "f", SAFEOPEN_NOFOLLOW, NULL, NULL);

		assert_true(rfd >= 0);
		close(rfd);
	}
	close(fd);
}

/* The walk follows links itself: relative, absolute, chains, "..", a
 * /proc magic link (by the kernel); a loop is -ELOOP; the final component
 * need not exist; a trailing '/' is said. */
static void test_walk(void **state)
{
	struct pathwalk w;
	char path[512];

	(void)state;
	assert_int_equal(mkdir(at("a"), 0755), 0);
	assert_int_equal(mkdir(at("a/b"), 0755), 0);
	make_file(at("a/b/f"), "x");
	assert_int_equal(symlink("a/b", at("rel")), 0);
	assert_int_equal(symlink(at("a"), at("abs")), 0);
	assert_int_equal(symlink("rel/../b", at("a/chain")), 0);
	assert_int_equal(symlink("loop", at("loop")), 0);
	snprintf(path, sizeof(path), "%s/rel/f", dir);
	assert_int_equal(pathwalk__resolve(path, PATHWALK_FOLLOW, &w), 0);
	assert_string_equal(w.name, "f");
	assert_int_equal(w.fd, -1);
	pathwalk__fini(&w);
	snprintf(path, sizeof(path), "%s/abs/b/../b/new", dir);
	assert_int_equal(pathwalk__resolve(path, 0, &w), 0);
	assert_string_equal(w.name, "new");
	pathwalk__fini(&w);
	/* "rel/../b" from a/: a/rel does not exist */
	snprintf(path, sizeof(path), "%s/a/chain/f", dir);
	assert_int_equal(pathwalk__resolve(path, 0, &w), -ENOENT);
	pathwalk__fini(&w);
	assert_int_equal(pathwalk__resolve(at("loop"), PATHWALK_FOLLOW, &w), -ELOOP);
	pathwalk__fini(&w);
	/* not followed at the end without PATHWALK_FOLLOW */
	assert_int_equal(pathwalk__resolve(at("loop"), 0, &w), 0);
	assert_string_equal(w.name, "loop");
	pathwalk__fini(&w);
	snprintf(path, sizeof(path), "%s/a/", dir);
	assert_int_equal(pathwalk__resolve(path, 0, &w), 0);
	assert_true(w.dir_only);
	pathwalk__fini(&w);
	snprintf(path, sizeof(path), "%s/a/b/f/x", dir);
	assert_int_equal(pathwalk__resolve(path, 0, &w), -ENOTDIR);
	pathwalk__fini(&w);
	assert_int_equal(pathwalk__resolve("/proc/self/exe", PATHWALK_FOLLOW, &w), 0);
	assert_true(w.fd >= 0); /* a link only the kernel follows */
	pathwalk__fini(&w);
	assert_int_equal(pathwalk__resolve("/", 0, &w), 0);
	assert_string_equal(w.name, ".");
	pathwalk__fini(&w);
}

/* PATHWALK_PUBLIC: a directory not open to everyone on the way, also one
 * a link leads through, or a /proc link, is refused. */
static void test_public(void **state)
{
	struct pathwalk w;

	(void)state;
	assert_int_equal(mkdir(at("open"), 0755), 0);
	assert_int_equal(mkdir(at("shut"), 0700), 0);
	make_file(at("shut/f"), "x");
	make_file(at("open/f"), "x");
	assert_int_equal(pathwalk__resolve(at("open/f"), PATHWALK_PUBLIC | PATHWALK_FOLLOW, &w), 0);
	pathwalk__fini(&w);
	assert_int_equal(pathwalk__resolve(at("shut/f"), PATHWALK_PUBLIC | PATHWALK_FOLLOW, &w),
			 -EPERM);
	assert_non_null(strstr(w.why, "not open to every user (mode 0700)"));
	pathwalk__fini(&w);
	assert_int_equal(symlink(at("shut/f"), at("open/l")), 0);
	assert_int_equal(pathwalk__resolve(at("open/l"), PATHWALK_PUBLIC | PATHWALK_FOLLOW, &w),
			 -EPERM);
	pathwalk__fini(&w);
	assert_int_equal(pathwalk__resolve("/proc/self/root/etc/hostname",
					   PATHWALK_PUBLIC | PATHWALK_FOLLOW, &w),
			 -EPERM);
	assert_non_null(strstr(w.why, "/proc link"));
	pathwalk__fini(&w);
}

/* PATHWALK_TRUSTED_DIRS: another user's directory, or one every user may
 * write, is refused, a sticky one is not; PATHWALK_TRUSTED_LINKS: another
 * user's link where others can write is refused, root's is followed. */
static void test_trusted(void **state)
{
	unsigned int flags = PATHWALK_TRUSTED_DIRS | PATHWALK_TRUSTED_LINKS | PATHWALK_FOLLOW;
	struct pathwalk w;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(mkdir(at("theirs"), 0755), 0);
	assert_int_equal(chown(at("theirs"), NOBODY, NOBODY), 0);
	make_file(at("theirs/f"), "x");
	assert_int_equal(pathwalk__resolve(at("theirs/f"), flags, &w), -EPERM);
	assert_non_null(strstr(w.why, "uid 65534"));
	pathwalk__fini(&w);
	assert_int_equal(mkdir(at("all"), 0755), 0);
	assert_int_equal(chmod(at("all"), 0777), 0);
	assert_int_equal(pathwalk__resolve(at("all/f"), flags, &w), -EPERM);
	assert_non_null(strstr(w.why, "every user (mode 0777)"));
	pathwalk__fini(&w);
	assert_int_equal(chmod(at("all"), 01777), 0);
	make_file(at("all/f"), "x");
	assert_int_equal(pathwalk__resolve(at("all/f"), flags, &w), 0);
	pathwalk__fini(&w);
	/* links in the sticky directory: nobody's refused, root's followed */
	assert_int_equal(symlink(at("all/f"), at("all/theirs")), 0);
	assert_int_equal(lchown(at("all/theirs"), NOBODY, NOBODY), 0);
	assert_int_equal(
		pathwalk__resolve(at("all/theirs"), PATHWALK_TRUSTED_LINKS | PATHWALK_FOLLOW, &w),
		-EPERM);
	assert_non_null(strstr(w.why, "symbolic link"));
	pathwalk__fini(&w);
	assert_int_equal(symlink(at("all/f"), at("all/mine")), 0);
	assert_int_equal(
		pathwalk__resolve(at("all/mine"), PATHWALK_TRUSTED_LINKS | PATHWALK_FOLLOW, &w), 0);
	assert_string_equal(w.name, "f");
	pathwalk__fini(&w);
	/* trusted users: root, you, sudo's invoking user */
	assert_true(pathwalk__trusted_uid(0));
	assert_false(pathwalk__trusted_uid(NOBODY));
	setenv("SUDO_UID", "65534", 1);
	assert_true(pathwalk__trusted_uid(NOBODY));
	unsetenv("SUDO_UID");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_public, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trusted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
