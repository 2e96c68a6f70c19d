// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the /proc/PID/maps reader (userspace/probes/procmaps.c): a
 * fixture with the lines a real process has (paths with spaces, deleted files,
 * anonymous and special mappings), the distinct executable files, strings read
 * from a mapped file, and this process's own mappings. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

static int file_cb(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	struct files *f = ctx;

	(void)dev;
	snprintf(f->paths[f->n], sizeof(f->paths[0]), "%s", path);
	f->inos[f->n++] = ino;
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

static void test_read_string(void **state)
{
	char path[] = "/tmp/fsp-procmaps-XXXXXX", buf[16], big[64];
	int fd = mkstemp(path);
	struct mapping m[2] = {
		{.start = 0x1000, .end = 0x2000, .offset = 0x10, .path = path},
		{.start = 0x5000, .end = 0x6000, .offset = 0, .path = (char *)"/nonexistent/fsp"},
	};

	(void)state;
	assert_true(fd >= 0);
	memset(big, 'x', sizeof(big));
	assert_int_equal(pwrite(fd, big, sizeof(big), 0), sizeof(big));
	assert_int_equal(pwrite(fd, "parse\0plan", 11, 0x10), 11);
	close(fd);
	/* addr 0x1000 is file offset 0x10. */
	assert_int_equal(procmaps__read_string(m, 2, 0x1000, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "parse");
	assert_int_equal(procmaps__read_string(m, 2, 0x1006, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "plan");
	/* No mapping holds it; a string longer than the buffer; a gone file;
	 * beyond the end of the file. */
	assert_int_equal(procmaps__read_string(m, 2, 0x3000, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(procmaps__read_string(m, 2, 0xff0, buf, sizeof(buf)), -ENOENT);
	m[0].offset = 0;
	assert_int_equal(procmaps__read_string(m, 2, 0x1000, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(procmaps__read_string(m, 2, 0x5000, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(procmaps__read_string(m, 2, 0x1fff, buf, sizeof(buf)), -EIO);
	unlink(path);
}

static int find_self(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	const char *self = ctx;

	(void)dev;
	(void)ino;
	return !strcmp(path, self);
}

/* A mapping gone since the last scan (a dlclose()d library) stays known,
 * after the current ones; one still there is not kept twice. */
static void test_keep_gone(void **state)
{
	struct mapping *cur = calloc(1, sizeof(*cur)), *old = calloc(3, sizeof(*old));
	size_t nr = 1;

	(void)state;
	assert_non_null(cur);
	assert_non_null(old);
	cur[0] = (struct mapping){.start = 0x1000, .end = 0x2000, .ino = 1, .path = strdup("/a")};
	old[0] = (struct mapping){.start = 0x1000, .end = 0x2000, .ino = 1, .path = strdup("/a")};
	old[1] = (struct mapping){.start = 0x5000, .end = 0x6000, .ino = 2, .path = strdup("/lib")};
	/* same place, another file: gone too (the current one wins its addresses) */
	old[2] = (struct mapping){.start = 0x1000, .end = 0x2000, .ino = 3, .path = strdup("/b")};
	assert_int_equal(procmaps__keep_gone(&cur, &nr, old, 3), 0);
	assert_int_equal(nr, 3);
	assert_string_equal(cur[0].path, "/a");
	assert_string_equal(cur[1].path, "/lib");
	assert_string_equal(cur[2].path, "/b");
	/* Nothing gone: nothing added. */
	old = calloc(1, sizeof(*old));
	assert_non_null(old);
	old[0] = (struct mapping){.start = 0x5000, .end = 0x6000, .ino = 2, .path = strdup("/lib")};
	assert_int_equal(procmaps__keep_gone(&cur, &nr, old, 1), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(procmaps__keep_gone(&cur, &nr, NULL, 0), 0);
	assert_int_equal(nr, 3);
	procmaps__free(cur, nr);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fixture), cmocka_unit_test(test_for_each_file),
		cmocka_unit_test(test_read_string),   cmocka_unit_test(test_keep_gone),
		cmocka_unit_test(test_own_mappings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
