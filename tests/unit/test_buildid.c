// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of elf__build_id (analysis/symbol/buildid.c) on the fixture
 * binaries (tests/unit/fixtures/build.sh): the id the linker was given, the
 * same id in stripped copies and separate debug files, files without one,
 * non-ELF and truncated files, small buffers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize.h"
#include "fixture_helpers.h"
#include "unit_helpers.h"

static void fixture(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", FSP_FIXTURES, name);
}

static void assert_build_id(const char *name, const char *want)
{
	char path[512], id[129];

	fixture(path, sizeof(path), name);
	assert_int_equal(elf__build_id(path, id, sizeof(id)), 0);
	assert_string_equal(id, want);
}

static void test_linker_id(void **state)
{
	(void)state;
	assert_build_id("symfix", SYMFIX_BUILD_ID);
}

/* strip and objcopy --only-keep-debug keep the note: every copy names the
 * same build. */
static void test_stripped_copies(void **state)
{
	(void)state;
	assert_build_id("symfix.nodebug", SYMFIX_BUILD_ID);
	assert_build_id("symfix.stripped", SYMFIX_BUILD_ID);
	assert_build_id("symfix.linked", SYMFIX_BUILD_ID);
	assert_build_id(".debug/symfix.linked.debug", SYMFIX_BUILD_ID);
	assert_build_id("debug/.build-id/53/79666978b1d0c0ffee0123456789abcdef0042.debug",
			SYMFIX_BUILD_ID);
}

/* The library's sha1 id: 40 hex digits, the same in its stripped copy. */
static void test_sha1_id(void **state)
{
	char path[512], id[129], id2[129];

	(void)state;
	fixture(path, sizeof(path), "libsymfix.so");
	assert_int_equal(elf__build_id(path, id, sizeof(id)), 0);
	assert_int_equal(strlen(id), 40);
	assert_int_equal(strspn(id, "0123456789abcdef"), 40);
	fixture(path, sizeof(path), "libsymfix.dynsym.so");
	assert_int_equal(elf__build_id(path, id2, sizeof(id2)), 0);
	assert_string_equal(id, id2);
	assert_string_not_equal(id, SYMFIX_BUILD_ID);
}

static void test_small_buffer(void **state)
{
	char path[512], id[40];

	(void)state;
	fixture(path, sizeof(path), "symfix");
	assert_int_equal(elf__build_id(path, id, sizeof(id)), -ENOSPC);
	assert_int_equal(elf__build_id(path, id, 0), -ENOSPC);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Missing, not ELF, ELF truncated after the header: errors, no crash. */
static void test_bad_files(void **state)
{
	char path[512], src[512], id[129];
	char dir[] = "/tmp/fsp-buildid-XXXXXX";
	unsigned char head[4096];
	int fd;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(elf__build_id("/nonexistent/file", id, sizeof(id)), -ENOENT);

	snprintf(path, sizeof(path), "%s/text", dir);
	write_file(path, "not an ELF file\n", 16);
	assert_int_equal(elf__build_id(path, id, sizeof(id)), -ENOEXEC);

	/* the first bytes of a real ELF file: ELF header, no sections or
	 * segments left to read */
	fixture(src, sizeof(src), "symfix");
	fd = open(src, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, head, sizeof(head));
	close(fd);
	assert_true(n > 256);
	snprintf(path, sizeof(path), "%s/trunc", dir);
	for (size_t len = 0; len <= 256; len += 16) {
		int err;

		write_file(path, head, len);
		err = elf__build_id(path, id, sizeof(id));
		/* the note is past these bytes: never found */
		assert_true(err == -ENOEXEC || err == -ENOENT);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/text", dir);
	unlink(path);
	rmdir(dir);
}

/* A file without a build-id note: objcopy --remove-section. */
static void test_no_build_id(void **state)
{
	char src[512], cmd[1200], id[129];
	char dir[] = "/tmp/fsp-buildid-XXXXXX";
	char path[512];

	(void)state;
	assert_non_null(mkdtemp(dir));
	fixture(src, sizeof(src), "libsymfix.so");
	snprintf(path, sizeof(path), "%s/noid.so", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --remove-section=.note.gnu.build-id '%s' '%s'", src,
		 path);
	if (system(cmd) != 0) {
		rmdir(dir);
		skip();
	}
	assert_int_equal(elf__build_id(path, id, sizeof(id)), -ENOENT);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linker_id), cmocka_unit_test(test_stripped_copies),
		cmocka_unit_test(test_sha1_id),	  cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_bad_files), cmocka_unit_test(test_no_build_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
