// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the symbolizer (analysis/symbol/) on damaged and odd files:
 * copies of the fixture program (tests/unit/fixtures/build.sh) truncated,
 * with junk written over parts, with random bytes changed (also in its
 * separate debug file); a directory, a FIFO, an object file. Nothing may
 * crash (the ASan build checks every read) or hang.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture_helpers.h"
#include "test_seed.h"

/* ---- corrupt files ------------------------------------------------------------------ */

/* Symbolizes the fixture's addresses from a damaged copy of it: no crash
 * (the ASan build reads no byte it should not), an answer for each. */
static void symbolize_copy(const char *copy, const char *orig)
{
	struct profile *p = profile__new();
	struct symbolizer_opts opts = {.debug_dirs = "/nonexistent"};
	struct symbolizer *s = symbolizer__new(&opts);
	uint32_t m;
	size_t n;

	assert_non_null(p);
	m = add_module(p, PROFILE_MODULE_USER, copy, NULL);
	add_loc(p, m, sym_addr(orig, "symfix_inner_mark"));
	add_loc(p, m, sym_addr(orig, "symfix_local_mark"));
	add_loc(p, m, 0);
	add_loc(p, m, UINT64_MAX);
	assert_non_null(s);
	assert_true(symbolizer__profile(s, p, 1) >= 0);
	/* a file libelf cannot read is listed; one it reads is used */
	assert_true(symbolizer__missing_modules(s) <= 1);
	for (n = 0; n < profile__nr_locations(p); n++) {
		struct profile_location l = get_loc(p, n);

		for (size_t k = 0; k < l.nr_lines; k++)
			assert_true(!l.lines[k].function || strlen(l.lines[k].function) < 4096);
	}
	symbolizer__free(s);
	profile__free(p);
}

static void test_corrupt_files(void **state)
{
	char path[512];
	struct stat st;
	int fd;

	(void)state;
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/symfix", tmpdir);
	assert_int_equal(stat(FIX("symfix"), &st), 0);
	/* truncated at several points: header only, inside the sections, before
	 * the section headers */
	for (size_t cut = 0; cut < (size_t)st.st_size; cut += (size_t)st.st_size / 13 + 1) {
		copy_file(FIX("symfix"), path, cut);
		symbolize_copy(path, FIX("symfix"));
	}
	/* whole, with a 256-byte run of 0xff at several offsets (headers,
	 * .debug_info, .debug_line, the symbol table...) */
	for (off_t off = 0; off < st.st_size; off += st.st_size / 29 + 1) {
		unsigned char junk[256];

		memset(junk, 0xff, sizeof(junk));
		copy_file(FIX("symfix"), path, SIZE_MAX);
		fd = open(path, O_WRONLY);
		assert_true(fd >= 0);
		assert_true(pwrite(fd, junk, sizeof(junk), off) > 0);
		close(fd);
		symbolize_copy(path, FIX("symfix"));
	}
	remove_tmpdir();
}

/* Flips `n` pseudo-random bytes of path (xorshift state *x). */
static void flip_bytes(const char *path, off_t size, int n, uint64_t *x)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	for (int i = 0; i < n; i++) {
		unsigned char b;

		*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
		b = (unsigned char)(*x >> 56);
		assert_int_equal(pwrite(fd, &b, 1, (off_t)(*x % (uint64_t)size)), 1);
	}
	close(fd);
}

/* Random bytes changed in the file and, apart, in a separate debug file
 * found by build-id (the stripped copy's): no crash, an answer each time. */
static void test_corrupt_random(void **state)
{
	char path[512], dbg[512], debug_dir[256];
	const char *dbg_src =
		FIX("debug/.build-id/53/79666978b1d0c0ffee0123456789abcdef0042.debug");
	/* xorshift64's state: any but 0 */
	uint64_t x = test_seed("test_corrupt_random") * 0x9e3779b97f4a7c15ULL | 1;
	struct stat st, dst;

	(void)state;
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/symfix", tmpdir);
	assert_int_equal(stat(FIX("symfix"), &st), 0);
	for (int i = 0; i < 60; i++) {
		copy_file(FIX("symfix"), path, SIZE_MAX);
		flip_bytes(path, st.st_size, 1 + i % 16, &x);
		symbolize_copy(path, FIX("symfix"));
	}
	/* the debug file: TMP/.build-id/53/...debug beside an intact stripped copy */
	snprintf(debug_dir, sizeof(debug_dir), "%s/.build-id", tmpdir);
	assert_int_equal(mkdir(debug_dir, 0755), 0);
	strcat(debug_dir, "/53");
	assert_int_equal(mkdir(debug_dir, 0755), 0);
	snprintf(dbg, sizeof(dbg), "%s/79666978b1d0c0ffee0123456789abcdef0042.debug", debug_dir);
	snprintf(debug_dir, sizeof(debug_dir), "%s", tmpdir);
	assert_int_equal(stat(dbg_src, &dst), 0);
	copy_file(FIX("symfix.stripped"), path, SIZE_MAX);
	for (int i = 0; i < 60; i++) {
		struct profile *p = profile__new();
		struct symbolizer_opts opts = {.debug_dirs = debug_dir};
		struct symbolizer *s = symbolizer__new(&opts);
		uint32_t m;

		copy_file(dbg_src, dbg, SIZE_MAX);
		flip_bytes(dbg, dst.st_size, 1 + i % 16, &x);
		assert_non_null(p);
		assert_non_null(s);
		m = add_module(p, PROFILE_MODULE_USER, path, NULL);
		add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
		add_loc(p, m, sym_addr(FIX("symfix"), "symfix_local_mark"));
		assert_true(symbolizer__profile(s, p, 0) >= 0);
		symbolizer__free(s);
		profile__free(p);
	}
	remove_tmpdir();
}

/*
 * A separate debug file whose build-id is right (its section headers are
 * intact) but whose program headers lie beyond its end: libdw opens it, fails
 * to read it as ELF and asks our lookup again for the same module, with the
 * first answer's name still stored (the name leaked until find_debuginfo
 * freed it: make unit-asan reports the leak).
 */
static void test_debug_file_unreadable(void **state)
{
	const char *dbg_src =
		FIX("debug/.build-id/53/79666978b1d0c0ffee0123456789abcdef0042.debug");
	char path[512], dir[512], dbg[600];
	struct symbolizer_opts opts = {.debug_dirs = tmpdir};
	uint64_t phoff = UINT64_MAX / 2; /* e_phoff: beyond any file */
	struct symbolizer *s;
	struct profile *p;
	uint32_t m;
	int fd;

	(void)state;
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/symfix", tmpdir);
	copy_file(FIX("symfix.stripped"), path, SIZE_MAX);
	snprintf(dir, sizeof(dir), "%s/.build-id", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	strcat(dir, "/53");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dbg, sizeof(dbg), "%s/79666978b1d0c0ffee0123456789abcdef0042.debug", dir);
	copy_file(dbg_src, dbg, SIZE_MAX);
	fd = open(dbg, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &phoff, sizeof(phoff), 0x20), (ssize_t)sizeof(phoff));
	close(fd);
	p = profile__new();
	s = symbolizer__new(&opts);
	assert_non_null(p);
	assert_non_null(s);
	m = add_module(p, PROFILE_MODULE_USER, path, NULL);
	add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	assert_true(symbolizer__profile(s, p, 0) >= 0);
	/* the stripped file itself is used */
	assert_int_equal(symbolizer__missing_modules(s), 0);
	symbolizer__free(s);
	profile__free(p);
	remove_tmpdir();
}

/* Odd files where a module's file should be: a directory, a FIFO (never
 * opened blocking), an object file (ET_REL). */
static void test_odd_files(void **state)
{
	struct profile *p = *state;
	char fifo[512];
	struct symbolizer_opts opts = {.debug_dirs = "/nonexistent"};
	uint32_t m;

	m = add_module(p, PROFILE_MODULE_USER, FSP_FIXTURES, NULL);
	add_loc(p, m, 0x1000);
	assert_missing(p, &opts, m, "not a readable ELF file");

	make_tmpdir();
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	m = add_module(p, PROFILE_MODULE_USER, fifo, NULL);
	add_loc(p, m, 0x1000);
	assert_int_equal(run(p, &opts, 0, 2), 0);
	remove_tmpdir();

	m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.o"), NULL);
	add_loc(p, m, sym_addr(FIX("symfix.o"), "symfix_outer"));
	assert_true(run(p, &opts, 0, 2) >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corrupt_files),
		cmocka_unit_test(test_corrupt_random),
		cmocka_unit_test(test_debug_file_unreadable),
		PROFILE_TEST(test_odd_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
