// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of output files (analysis/common/outfile.h): who owns a new or
 * replaced file and its mode, the check made before profiling, and the paths
 * refused because another user could have chosen where the bytes go (links,
 * FIFOs, devices, files in directories others can write; as root, "another
 * user" is nobody, uid 65534). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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

#define NOBODY 65534

/* dir/name into buf. */
static const char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* A file holding "ORIGINAL" at path. */
static void original(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("ORIGINAL", f);
	assert_int_equal(fclose(f), 0);
}

static void assert_original(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "ORIGINAL");
}

/* Writing path is refused (-EPERM) with a reason holding needle, by
 * outfile__check and outfile__open alike. */
static void assert_refused(const char *path, const char *needle)
{
	int err;

	assert_int_equal(outfile__check(path), -EPERM);
	assert_non_null(strstr(outfile__strerror(-EPERM), needle));
	assert_null(outfile__open(path, &err));
	assert_int_equal(err, -EPERM);
	assert_non_null(strstr(outfile__strerror(err), needle));
}

/* A link nobody owns, in a directory nobody owns (or a sticky one): never
 * followed, at the end or on the way; root's own link there, or nobody's
 * in a directory only root writes, is. */
static void test_links(void **state)
{
	char home[160], rootf[160], link[200], path[240], sticky[160];

	(void)state;
	if (geteuid() != 0)
		skip();
	in_dir(home, sizeof(home), "home");
	in_dir(rootf, sizeof(rootf), "rootfile");
	original(rootf);
	assert_int_equal(mkdir(home, 0755), 0);
	assert_int_equal(chown(home, NOBODY, NOBODY), 0);
	snprintf(link, sizeof(link), "%s/out.json", home);
	assert_int_equal(symlink(rootf, link), 0);
	assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
	assert_refused(link, "symbolic link of");
	assert_original(rootf);
	/* a directory link on the way */
	snprintf(link, sizeof(link), "%s/sub", home);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
	snprintf(path, sizeof(path), "%s/rootfile", link);
	assert_refused(path, "symbolic link");
	assert_original(rootf);
	/* root's own link in nobody's directory: root's choice */
	snprintf(link, sizeof(link), "%s/mine.json", home);
	assert_int_equal(symlink(rootf, link), 0);
	assert_int_equal(write_file(link, "{}"), 0);
	/* nobody's link in a directory only root writes */
	original(rootf);
	in_dir(link, sizeof(link), "theirs.json");
	assert_int_equal(symlink(rootf, link), 0);
	assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
	assert_int_equal(write_file(link, "{}"), 0);
	/* a sticky world-writable directory, as /tmp */
	original(rootf);
	in_dir(sticky, sizeof(sticky), "tmp");
	assert_int_equal(mkdir(sticky, 0755), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(link, sizeof(link), "%s/out.json", sticky);
	assert_int_equal(symlink(rootf, link), 0);
	assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
	assert_refused(link, "every user (mode 1777)");
	assert_original(rootf);
	/* under sudo, the invoking user's links are theirs to follow */
	setenv("SUDO_UID", "65534", 1);
	assert_int_equal(write_file(link, "{}"), 0);
	unsetenv("SUDO_UID");
	unlink(link);
	rmdir(sticky);
	snprintf(path, sizeof(path), "%s/out.json", home);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", home);
	unlink(path);
	snprintf(path, sizeof(path), "%s/mine.json", home);
	unlink(path);
	rmdir(home);
}

/* Another user's regular file in a directory others can write is not
 * replaced; setuid and setgid bits are never copied to the new file. */
static void test_their_file(void **state)
{
	char sticky[160], path[200];
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	in_dir(sticky, sizeof(sticky), "tmp");
	assert_int_equal(mkdir(sticky, 0755), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	snprintf(path, sizeof(path), "%s/p.json", sticky);
	original(path);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	assert_refused(path, "does not replace it");
	assert_original(path);
	/* root's own file there is replaced, keeping its permission bits only */
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(chmod(path, 06750), 0);
	assert_int_equal(write_file(path, "{}"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	unlink(path);
	rmdir(sticky);
}

/* FIFOs and devices: written in place when root's (or yours), never a
 * block device, never another user's; a FIFO no process reads is an error
 * at once, not a wait. */
static void test_fifo_device(void **state)
{
	char fifo[160], blk[160];
	struct outfile *f;
	pid_t reader;
	int err, status;

	(void)state;
	in_dir(fifo, sizeof(fifo), "fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(outfile__check(fifo), 0); /* checked, not opened */
	assert_null(outfile__open(fifo, &err));
	assert_int_equal(err, -ENXIO);
	assert_non_null(strstr(outfile__strerror(err), "no process reads"));
	reader = fork();
	assert_true(reader >= 0);
	if (!reader) {
		char buf[64];
		int fd = open(fifo, O_RDONLY);

		_exit(fd >= 0 && read(fd, buf, sizeof(buf)) == 2 ? 0 : 1);
	}
	/* the reader opens it in its own time: retried until it has */
	do
		f = outfile__open(fifo, &err);
	while (!f && err == -ENXIO && !usleep(1000));
	assert_non_null(f);
	fputs("{}", outfile__stream(f));
	assert_int_equal(outfile__commit(f), 0);
	outfile__free(f);
	assert_int_equal(waitpid(reader, &status, 0), reader);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (geteuid() != 0)
		return;
	assert_int_equal(chown(fifo, NOBODY, NOBODY), 0);
	assert_refused(fifo, "FIFO of");
	/* major 240: for local use, no driver behind it */
	in_dir(blk, sizeof(blk), "blk");
	assert_int_equal(mknod(blk, S_IFBLK | 0600, makedev(240, 0)), 0);
	assert_refused(blk, "block device");
	unlink(blk);
	unlink(fifo);
}

/* outfile__open_new (the fallback file in /tmp): never over anything. */
static void test_open_new(void **state)
{
	char path[160], target[160];
	struct outfile *f;
	int err;

	(void)state;
	in_dir(path, sizeof(path), "new.json");
	f = outfile__open_new(path, &err);
	assert_non_null(f);
	fputs("{}", outfile__stream(f));
	assert_int_equal(outfile__commit(f), 0);
	outfile__free(f);
	assert_null(outfile__open_new(path, &err));
	assert_int_equal(err, -EEXIST);
	/* a dangling link: not followed, not replaced */
	in_dir(target, sizeof(target), "target.json");
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
	assert_null(outfile__open_new(path, &err));
	assert_int_equal(err, -EEXIST);
	assert_int_equal(access(target, F_OK), -1);
	/* one that appears while it is written: kept, the new file not put in */
	unlink(path);
	f = outfile__open_new(path, &err);
	assert_non_null(f);
	original(path);
	fputs("{}", outfile__stream(f));
	assert_int_equal(outfile__commit(f), -EEXIST);
	outfile__free(f);
	assert_original(path);
	assert_int_equal(nr_files(), 1);
	unlink(path);
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
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_their_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_new, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
