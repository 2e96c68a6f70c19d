// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the /proc/PID/maps reader (userspace/probes/procmaps.c): a
 * fixture with the lines a real process has (paths with spaces, deleted files,
 * anonymous and special mappings), the distinct executable files, strings read
 * from a mapped file, and this process's own mappings. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procmaps.h"
#include "unit_helpers.h"

static const char fixture[] =
	"55d0c0a00000-55d0c0a02000 r--p 00000000 fd:01 1311 /usr/bin/app\n"
	"55d0c0a02000-55d0c0a08000 r-xp 00002000 fd:01 1311 /usr/bin/app\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
	"7f0000001000-7f0000002000 rw-p 00000000 00:00 0\n"
	"7f1000000000-7f1000028000 r--p 00000000 08:02 524290                     "
	"/opt/my app/lib feature.so\n"
	"7f1000028000-7f1000090000 r-xp 00028000 08:02 524290                     "
	"/opt/my app/lib feature.so\n"
	"7f2000000000-7f2000010000 r-xp 00000000 08:02 777 /usr/lib/libold.so (deleted)\n"
	"7f3000000000-7f3000001000 rw-s 00000000 00:01 4242 /dev/zero (deleted)\n"
	"7f4000000000-7f4000004000 r-xp 00000000 00:00 0 /memfd:jit (deleted)\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n"
	"not a mapping line\n";

static void parse_fixture(struct mapping **m, size_t *nr)
{
	FILE *f = fmemopen((void *)fixture, sizeof(fixture) - 1, "r");

	assert_non_null(f);
	assert_int_equal(procmaps__parse(f, m, nr), 0);
	fclose(f);
}

static void test_parse_fixture(void **state)
{
	struct mapping *m;
	size_t nr;

	(void)state;
	parse_fixture(&m, &nr);
	/* File-backed lines only: not [heap], anonymous, [stack], [vdso],
	 * [vsyscall] nor a line that is no mapping. */
	assert_int_equal(nr, 7);
	assert_string_equal(m[0].path, "/usr/bin/app");
	assert_int_equal(m[0].start, 0x55d0c0a00000ULL);
	assert_int_equal(m[0].end, 0x55d0c0a02000ULL);
	assert_false(m[0].exec);
	assert_true(m[1].exec);
	assert_int_equal(m[1].offset, 0x2000);
	assert_int_equal(m[1].dev, makedev(0xfd, 1));
	assert_int_equal(m[1].ino, 1311);
	/* The path is the rest of the line, spaces and all. */
	assert_string_equal(m[2].path, "/opt/my app/lib feature.so");
	assert_int_equal(m[3].offset, 0x28000);
	assert_int_equal(m[3].dev, makedev(8, 2));
	assert_string_equal(m[4].path, "/usr/lib/libold.so (deleted)");
	assert_true(m[4].exec);
	assert_string_equal(m[5].path, "/dev/zero (deleted)");
	assert_false(m[5].exec);
	assert_string_equal(m[6].path, "/memfd:jit (deleted)");
	assert_int_equal(m[6].ino, 0);
	procmaps__free(m, nr);
}

struct files {
	char paths[8][128];
	ino_t inos[8];
	int n;
	int stop_at; /* return 1 from this call on (1-based), 0: never */
};

static int file_cb(void *ctx, const struct mapping *m)
{
	struct files *f = ctx;

	snprintf(f->paths[f->n], sizeof(f->paths[0]), "%s", m->path);
	f->inos[f->n++] = m->ino;
	return f->stop_at && f->n >= f->stop_at ? 42 : 0;
}

static void test_for_each_file(void **state)
{
	struct files f = {0};
	struct mapping *m;
	size_t nr;

	(void)state;
	parse_fixture(&m, &nr);
	/* Executable, with an inode, each file once, in order. */
	assert_int_equal(procmaps__for_each_file(m, nr, file_cb, &f), 0);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.paths[0], "/usr/bin/app");
	assert_string_equal(f.paths[1], "/opt/my app/lib feature.so");
	assert_string_equal(f.paths[2], "/usr/lib/libold.so (deleted)");
	assert_int_equal(f.inos[2], 777);
	/* The callback stops the walk with its value. */
	memset(&f, 0, sizeof(f));
	f.stop_at = 2;
	assert_int_equal(procmaps__for_each_file(m, nr, file_cb, &f), 42);
	assert_int_equal(f.n, 2);
	procmaps__free(m, nr);
	procmaps__free(NULL, 0);
}

/* Strings of a process that is gone (pid 0): read from the file at the
 * mapping's name, only while that name is the mapped file, a regular file,
 * not a link, not " (deleted)". */
static void test_read_string(void **state)
{
	char path[] = "/tmp/fsp-procmaps-XXXXXX", other[64], deleted[96], buf[16], big[64];
	int fd = mkstemp(path);
	struct stat st;
	struct mapping m[2] = {
		{.start = 0x1000, .end = 0x2000, .offset = 0x10, .path = path},
		{.start = 0x5000, .end = 0x6000, .offset = 0, .path = (char *)"/nonexistent/fsp"},
	};

	(void)state;
	assert_true(fd >= 0);
	memset(big, 'x', sizeof(big));
	assert_int_equal(pwrite(fd, big, sizeof(big), 0), sizeof(big));
	assert_int_equal(pwrite(fd, "parse\0plan", 11, 0x10), 11);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	m[0].dev = st.st_dev;
	m[0].ino = st.st_ino;
	/* addr 0x1000 is file offset 0x10. */
	assert_int_equal(procmaps__read_string(0, m, 2, 0x1000, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "parse");
	assert_int_equal(procmaps__read_string(0, m, 2, 0x1006, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "plan");
	/* No mapping holds it; a string longer than the buffer; a gone file;
	 * beyond the end of the file. */
	assert_int_equal(procmaps__read_string(0, m, 2, 0x3000, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(procmaps__read_string(0, m, 2, 0xff0, buf, sizeof(buf)), -ENOENT);
	m[0].offset = 0;
	assert_int_equal(procmaps__read_string(0, m, 2, 0x1000, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(procmaps__read_string(0, m, 2, 0x5000, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(procmaps__read_string(0, m, 2, 0x1fff, buf, sizeof(buf)), -EIO);
	/* The name now names another file: a new one, a link to the old one
	 * elsewhere, a FIFO (read without blocking: not at all). */
	m[0].offset = 0x10;
	snprintf(other, sizeof(other), "%s.old", path);
	assert_int_equal(rename(path, other), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, big, sizeof(big), 0), sizeof(big));
	close(fd);
	assert_int_equal(procmaps__read_string(0, m, 1, 0x1000, buf, sizeof(buf)), -ESTALE);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(procmaps__read_string(0, m, 1, 0x1000, buf, sizeof(buf)), -ELOOP);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(procmaps__read_string(0, m, 1, 0x1000, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(unlink(path), 0);
	/* The old file, by its name: but not when it was deleted. */
	m[0].path = other;
	assert_int_equal(procmaps__read_string(0, m, 1, 0x1000, buf, sizeof(buf)), 5);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", other);
	assert_int_equal(symlink(other, deleted), 0);
	m[0].path = deleted;
	assert_int_equal(procmaps__read_string(0, m, 1, 0x1000, buf, sizeof(buf)), -ENOENT);
	unlink(deleted);
	unlink(other);
}

/*
 * Strings of a live process: from the mapped object itself, whatever its
 * name became (root: /proc/PID/map_files); without CAP_SYS_ADMIN, by the
 * name, which here is " (deleted)" and a link planted there: nothing.
 */
static void test_read_string_live(void **state)
{
	char path[] = "/tmp/fsp-procmaps-XXXXXX", deleted[64], buf[16];
	int fd = mkstemp(path), err;
	struct mapping *m;
	size_t nr;
	char *p;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "mapped\0", 7, 0x100), 7);
	assert_int_equal(ftruncate(fd, 4096), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	assert_int_equal(unlink(path), 0);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	assert_int_equal(symlink("/etc/hostname", deleted), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(procmaps__read(getpid(), &m, &nr), 0);
	err = procmaps__read_string(getpid(), m, nr, (unsigned long long)(uintptr_t)p + 0x100, buf,
				    sizeof(buf));
	if (geteuid() == 0) {
		assert_int_equal(err, 6);
		assert_string_equal(buf, "mapped");
	} else {
		assert_int_equal(err, -ENOENT);
	}
	procmaps__free(m, nr);
	munmap(p, 4096);
	unlink(deleted);
	unlink(path);
}

static int find_self(void *ctx, const struct mapping *m)
{
	const char *self = ctx;

	return !strcmp(m->path, self);
}

static void test_own_mappings(void **state)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct mapping *m;
	size_t nr;

	(void)state;
	assert_true(n > 0);
	self[n] = 0;
	assert_int_equal(procmaps__read(getpid(), &m, &nr), 0);
	assert_true(nr > 0);
	procmaps__free(m, nr);
	/* This test's executable is among the files it maps executable. */
	assert_int_equal(procmaps__for_each_mapped_file(getpid(), find_self, self), 1);
	/* PID 0 has no /proc entry: a process that is gone. */
	assert_int_equal(procmaps__read(0, &m, &nr), -ESRCH);
	assert_int_equal(procmaps__for_each_mapped_file(0, find_self, self), -ESRCH);
}

/* Which files are mapped executable (app and the library yes, /dev/zero's
 * data mapping no); the text of this process's maps read at once, and the
 * error for a process that is gone. */
static void test_exec_files_text(void **state)
{
	struct mapping *m;
	char *text;
	size_t nr, len;

	(void)state;
	parse_fixture(&m, &nr);
	assert_true(procmaps__has_exec(m, nr, makedev(0xfd, 1), 1311));
	assert_true(procmaps__has_exec(m, nr, makedev(8, 2), 524290));
	assert_false(procmaps__has_exec(m, nr, makedev(0, 1), 4242));
	assert_false(procmaps__has_exec(m, nr, makedev(8, 3), 524290));
	procmaps__free(m, nr);
	assert_int_equal(procmaps__read_text(getpid(), &text, &len), 0);
	assert_true(len > 0 && strlen(text) == len);
	assert_non_null(strstr(text, "[stack]"));
	free(text);
	assert_int_equal(procmaps__read_text(0x7ffffff0, &text, &len), -ESRCH);
	assert_null(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fixture), cmocka_unit_test(test_for_each_file),
		cmocka_unit_test(test_read_string),   cmocka_unit_test(test_read_string_live),
		cmocka_unit_test(test_own_mappings),  cmocka_unit_test(test_exec_files_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
