// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of output files (analysis/common/outfile.h): who owns a new or
 * replaced file and its mode, and the check made before profiling. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "unit_helpers.h"

static char dir[] = "/tmp/fsp-outfile-XXXXXX";

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/fsp-outfile-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	outfile__set_new_mode(OUTFILE_DEFAULT_MODE);
	return 0;
}

/* Removes the directory and what the test left in it. */
static int teardown(void **state)
{
	struct dirent *de;
	char path[512];
	DIR *d = opendir(dir);

	(void)state;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	outfile__set_new_mode(OUTFILE_DEFAULT_MODE);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return 0;
}

/* Writes text to path through an outfile; returns outfile__commit's result. */
static int write_file(const char *path, const char *text)
{
	int err;
	struct outfile *f = outfile__open(path, &err);

	if (!f)
		return err;
	fputs(text, outfile__stream(f));
	err = outfile__commit(f);
	outfile__free(f);
	return err;
}

/* Files in the directory (".", ".." excluded). */
static int nr_files(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void test_new_file_private(void **state)
{
	char path[128];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	/* whatever the umask: a 0 umask does not widen it */
	unlink(path);
	umask(0);
	assert_int_equal(write_file(path, "{}"), 0);
	umask(022);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_mode_asked(void **state)
{
	char path[128];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.json", dir);
	outfile__set_new_mode(0644);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* only permission bits: no setuid from a mode */
	unlink(path);
	outfile__set_new_mode(04755);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
}

static void test_replaced_keeps_mode_and_owner(void **state)
{
	char path[128];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(write_file(path, "one"), 0);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(write_file(path, "two"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(nr_files(), 1);
	if (geteuid() != 0)
		return;
	/* root replacing another user's file: the file stays theirs */
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(write_file(path, "three"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	assert_int_equal(st.st_mode & 07777, 0640);
}

/* Under sudo, root's new files go to the invoking user; bad values are
 * ignored (the file stays root's). */
static void test_sudo_owner(void **state)
{
	char path[128];
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(path, sizeof(path), "%s/p.json", dir);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65533", 1);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65533);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* replacing it: still theirs, with their mode */
	assert_int_equal(chmod(path, 0604), 0);
	setenv("SUDO_UID", "1234", 1);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_mode & 07777, 0604);
	unlink(path);
	/* no SUDO_GID: the group stays root's */
	unsetenv("SUDO_GID");
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 1234);
	assert_int_equal(st.st_gid, getegid());
	unlink(path);
	setenv("SUDO_UID", "12x", 1);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 0);
}

static void test_check(void **state)
{
	char path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(outfile__check(path), 0);
	assert_int_equal(nr_files(), 0); /* nothing left behind */
	assert_int_equal(outfile__check("-"), 0);
	assert_int_equal(outfile__check(NULL), 0);
	assert_int_equal(outfile__check("/dev/null"), 0);
	assert_int_equal(outfile__check(dir), -EISDIR);
	snprintf(path, sizeof(path), "%s/missing/p.json", dir);
	assert_int_equal(outfile__check(path), -ENOENT);
	/* an existing file is checked, not touched */
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(write_file(path, "keep"), 0);
	assert_int_equal(outfile__check(path), 0);
	assert_int_equal(nr_files(), 1);
	if (geteuid() != 0) {
		/* a directory the user cannot write */
		assert_int_equal(chmod(dir, 0500), 0);
		snprintf(path, sizeof(path), "%s/q.json", dir);
		assert_int_equal(outfile__check(path), -EACCES);
		assert_int_equal(chmod(dir, 0700), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_file_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mode_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_keeps_mode_and_owner, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sudo_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
