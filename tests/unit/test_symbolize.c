// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the symbolizer (analysis/symbol/) on the fixture binaries of
 * tests/unit/fixtures/build.sh: function names, file:line and inline chains
 * from DWARF, separate debug files by build-id and by .gnu_debuglink, the
 * fallback order (DWARF, .symtab, .dynsym, nothing), the binaries directory
 * with its build-id check, many modules, re-symbolization, the vDSO, JIT code
 * (corrupt files: test_symbolize_bad.c; kernel: test_kallsyms.c).
 * Addresses come from the fixture's own symbol table (asm labels placed in
 * the code), expected lines from `@L:` markers in the fixture's source.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native.h"
#include "profile.h"
#include "symbolize.h"
#include "fixture_helpers.h"
#include "unit_helpers.h"

/* ---- the fixtures' truth --------------------------------------------------------- */

/* The line of the fixture source carrying marker "@L:name". */
static uint32_t src_line(const char *file, const char *name)
{
	char path[512], want[128], line[512];
	uint32_t n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", FSP_FIXTURE_SRC, file);
	snprintf(want, sizeof(want), "@L:%s */", name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want))
			found = n;
	}
	fclose(f);
	assert_true(found > 0);
	return found;
}

/* The inline chain at symfix_inner_mark: inner, inlined into middle,
 * inlined into outer, with the call sites as the outer frames' lines. */
static void assert_inline_chain(struct profile *p, size_t i)
{
	struct profile_location loc = get_loc(p, i);

	assert_int_equal(loc.nr_lines, 3);
	assert_true(loc.flags & PROFILE_LOC_DEBUGINFO);
	assert_line(&loc.lines[0], "symfix_inner", "symfix.c", src_line("symfix.c", "inner-mark"));
	assert_line(&loc.lines[1], "symfix_middle", "symfix.c", src_line("symfix.c", "call-inner"));
	assert_line(&loc.lines[2], "symfix_outer", "symfix.c", src_line("symfix.c", "call-middle"));
}

static const struct symbolizer_opts no_debug_dirs = {.debug_dirs = "/nonexistent"};

/* ---- DWARF ------------------------------------------------------------------------- */

static void test_dwarf_inline_chain(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix"), SYMFIX_BUILD_ID);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	size_t loc = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_local_mark"));
	struct profile_location l;

	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 2);
	assert_inline_chain(p, inl);
	l = get_loc(p, loc);
	assert_int_equal(l.nr_lines, 1);
	assert_true(l.flags & PROFILE_LOC_DEBUGINFO);
	assert_line(&l.lines[0], "symfix_local", "symfix.c", src_line("symfix.c", "local-mark"));
}

/* A position-dependent executable (ET_EXEC): its addresses are absolute. */
static void test_dwarf_non_pie(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.nopie"), NULL);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix.nopie"), "symfix_inner_mark"));
	size_t lib = add_loc(p, m, sym_addr(FIX("symfix.nopie"), "symfix_lib_hidden_mark"));

	assert_true(sym_addr(FIX("symfix.nopie"), "symfix_inner_mark") >= 0x400000);
	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 2);
	assert_inline_chain(p, inl);
	assert_line(&get_loc(p, lib).lines[0], "symfix_lib_hidden", "libsymfix.c",
		    src_line("libsymfix.c", "lib-hidden-mark"));
}

/* A shared library (position-independent, its own addresses from 0): an
 * exported and a static function. */
static void test_dwarf_shared_library(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("libsymfix.so"), NULL);
	size_t work = add_loc(p, m, sym_addr(FIX("libsymfix.so"), "symfix_lib_work_mark"));
	size_t hidden = add_loc(p, m, sym_addr(FIX("libsymfix.so"), "symfix_lib_hidden_mark"));
	struct profile_location l;

	assert_int_equal(run(p, NULL, 0, 0), 2);
	l = get_loc(p, work);
	assert_int_equal(l.nr_lines, 1);
	assert_line(&l.lines[0], "symfix_lib_work", "libsymfix.c",
		    src_line("libsymfix.c", "lib-work-mark"));
	l = get_loc(p, hidden);
	assert_int_equal(l.nr_lines, 1);
	assert_line(&l.lines[0], "symfix_lib_hidden", "libsymfix.c",
		    src_line("libsymfix.c", "lib-hidden-mark"));
}

/* ---- separate debug files ------------------------------------------------------- */

static void test_debug_file_by_build_id(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.stripped"), SYMFIX_BUILD_ID);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	struct symbolizer_opts opts = {.debug_dirs = "/nonexistent:" FIX("debug")};

	/* without the debug directory: nothing names it (no .symtab, and an
	 * executable's functions are not in .dynsym) */
	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 0);
	assert_int_equal(get_loc(p, inl).nr_lines, 0);

	assert_int_equal(run(p, &opts, 0, 0), 1);
	assert_inline_chain(p, inl);
}

static void test_debug_file_by_debuglink(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.linked"), SYMFIX_BUILD_ID);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));

	/* .debug/symfix.linked.debug next to the file */
	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 1);
	assert_inline_chain(p, inl);
}

/* DIR/<path>.debug: a debug directory mirroring the file system. */
static void test_debug_file_by_path(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.stripped"), SYMFIX_BUILD_ID);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	struct symbolizer_opts opts = {.debug_dirs = tmpdir};
	char cmd[1024], dbg[512];

	make_tmpdir();
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s%s'", tmpdir, FSP_FIXTURES);
	assert_int_equal(system(cmd), 0);
	snprintf(dbg, sizeof(dbg), "%s%s.debug", tmpdir, FIX("symfix.stripped"));
	copy_file(FIX("debug/.build-id/53/79666978b1d0c0ffee0123456789abcdef0042.debug"), dbg,
		  SIZE_MAX);
	assert_int_equal(run(p, &opts, 0, 0), 1);
	assert_inline_chain(p, inl);
	remove_tmpdir();
}

/* ---- the fallback order ------------------------------------------------------------ */

static void test_symtab_fallback(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.nodebug"), SYMFIX_BUILD_ID);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	size_t loc = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_local_mark") + 1);
	struct profile_location l;

	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 2);
	l = get_loc(p, inl);
	assert_int_equal(l.nr_lines, 1);
	assert_false(l.flags & PROFILE_LOC_DEBUGINFO);
	assert_line(&l.lines[0], "symfix_outer", NULL, 0);
	l = get_loc(p, loc);
	assert_int_equal(l.nr_lines, 1);
	assert_line(&l.lines[0], "symfix_local", NULL, 0);
}

/* Fully stripped: an exported function by .dynsym, a static one not at all. */
static void test_dynsym_fallback(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("libsymfix.dynsym.so"), NULL);
	size_t work = add_loc(p, m, sym_addr(FIX("libsymfix.so"), "symfix_lib_work_mark"));
	size_t hidden = add_loc(p, m, sym_addr(FIX("libsymfix.so"), "symfix_lib_hidden_mark"));
	struct profile_location l;

	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 1);
	l = get_loc(p, work);
	assert_int_equal(l.nr_lines, 1);
	assert_false(l.flags & PROFILE_LOC_DEBUGINFO);
	assert_line(&l.lines[0], "symfix_lib_work", NULL, 0);
	l = get_loc(p, hidden);
	assert_int_equal(l.nr_lines, 0);
	assert_int_equal(l.flags, 0);
}

/* ---- finding files ------------------------------------------------------------------ */

static void test_missing_file(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, "/nonexistent/symfix", SYMFIX_BUILD_ID);
	size_t loc = add_loc(p, m, 0x1234);

	assert_missing(p, NULL, m, "file not found");
	assert_int_equal(get_loc(p, loc).nr_lines, 0);
}

/* The recorded build-id is not the file's: the file names other code. */
static void test_wrong_build_id(void **state)
{
	struct profile *p = *state;
	uint32_t m = add_module(p, PROFILE_MODULE_USER, FIX("symfix"), "deadbeefdeadbeef");
	size_t loc = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));

	assert_missing(p, NULL, m, "build-id differs");
	assert_int_equal(get_loc(p, loc).nr_lines, 0);
}

/* A file replaced after it was mapped: the path without " (deleted)". */
static void test_deleted_suffix(void **state)
{
	struct profile *p = *state;
	uint32_t m =
		add_module(p, PROFILE_MODULE_USER, FIX("symfix") " (deleted)", SYMFIX_BUILD_ID);
	size_t inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));

	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 1);
	assert_inline_chain(p, inl);
}

static const char *resolve_none(void *ctx, size_t module, const char *path)
{
	(void)ctx, (void)module, (void)path;
	return "/nonexistent/resolved";
}

/* report --binaries: by name (the recorded path is elsewhere) and by
 * build-id (another name); the recorded path is not used when the
 * binaries directory has the file. */
static void test_binaries_dir(void **state)
{
	struct profile *p = *state;
	char lib_id[129], path[512];
	uint32_t m1, m2;
	size_t inl, work;
	struct symbolizer_opts opts = {
		.debug_dirs = "/nonexistent", .binaries_dir = NULL, .resolve = resolve_none};

	assert_int_equal(elf__build_id(FIX("libsymfix.so"), lib_id, sizeof(lib_id)), 0);
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/.build-id", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", tmpdir, lib_id);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", tmpdir, lib_id, lib_id + 2);
	copy_file(FIX("libsymfix.so"), path, SIZE_MAX);
	copy_file(FIX("symfix"), strcat(strcpy(path, tmpdir), "/symfix"), SIZE_MAX);
	opts.binaries_dir = tmpdir;

	m1 = add_module(p, PROFILE_MODULE_USER, "/opt/elsewhere/symfix", SYMFIX_BUILD_ID);
	m2 = add_module(p, PROFILE_MODULE_USER, "/usr/lib/libfix-renamed.so.1", lib_id);
	inl = add_loc(p, m1, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	work = add_loc(p, m2, sym_addr(FIX("libsymfix.so"), "symfix_lib_work_mark"));
	assert_int_equal(run(p, &opts, 1, 0), 2);
	assert_inline_chain(p, inl);
	assert_line(&get_loc(p, work).lines[0], "symfix_lib_work", "libsymfix.c",
		    src_line("libsymfix.c", "lib-work-mark"));
	remove_tmpdir();
}

/* A file of the module's name in the binaries directory that is another
 * build: not used, and said so. */
static void test_binaries_dir_mismatch(void **state)
{
	struct profile *p = *state;
	char path[512];
	uint32_t m;
	size_t loc;
	struct symbolizer_opts opts = {.debug_dirs = "/nonexistent"};

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/symfix", tmpdir);
	copy_file(FIX("libsymfix.so"), path, SIZE_MAX);
	opts.binaries_dir = tmpdir;
	m = add_module(p, PROFILE_MODULE_USER, "/nonexistent/symfix", SYMFIX_BUILD_ID);
	loc = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	assert_missing(p, &opts, m, "build-id differs");
	assert_int_equal(get_loc(p, loc).nr_lines, 0);

	/* the recorded path, when the binaries directory has no such file */
	m = add_module(p, PROFILE_MODULE_USER, FIX("symfix.nodebug"), SYMFIX_BUILD_ID);
	loc = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_local_mark"));
	assert_int_equal(run(p, &opts, 0, 1), 1);
	assert_line(&get_loc(p, loc).lines[0], "symfix_local", NULL, 0);
	remove_tmpdir();
}

static const char *resolve_fixtures(void *ctx, size_t module, const char *path)
{
	static char buf[512];
	size_t *calls = ctx;

	(*calls)++;
	assert_int_equal(module, 1);
	assert_string_equal(path, "/container/root/usr/bin/symfix");
	snprintf(buf, sizeof(buf), "%s", FIX("symfix"));
	return buf;
}

static void test_resolve(void **state)
{
	struct profile *p = *state;
	size_t calls = 0, inl;
	uint32_t m;
	struct symbolizer_opts opts = {.resolve = resolve_fixtures, .resolve_ctx = &calls};

	add_module(p, PROFILE_MODULE_USER, "[vdso]", NULL);
	m = add_module(p, PROFILE_MODULE_USER, "/container/root/usr/bin/symfix", SYMFIX_BUILD_ID);
	add_loc(p, 0, 0x100); /* [vdso]: no file, not missing */
	inl = add_loc(p, m, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	add_loc(p, m, sym_addr(FIX("symfix"), "symfix_local_mark"));
	assert_int_equal(run(p, &opts, 0, 0), 2);
	assert_int_equal(calls, 1); /* opened once for both locations */
	assert_inline_chain(p, inl);
	assert_int_equal(get_loc(p, 0).nr_lines, 0);
}

/* More modules than descriptors: each file is closed after its locations. */
static void test_many_modules(void **state)
{
	struct profile *p = *state;
	struct rlimit old, low;
	char link[512];
	size_t first = 0;
	uint64_t addr = sym_addr(FIX("symfix"), "symfix_inner_mark");

	make_tmpdir();
	for (int i = 0; i < 200; i++) {
		uint32_t m;
		size_t l;

		snprintf(link, sizeof(link), "%s/symfix-%d", tmpdir, i);
		assert_int_equal(symlink(FIX("symfix"), link), 0);
		m = add_module(p, PROFILE_MODULE_USER, link, SYMFIX_BUILD_ID);
		/* locations of a module not in a row: grouped by the symbolizer */
		l = add_loc(p, m, addr);
		add_loc(p, m == 0 ? m : m - 1, sym_addr(FIX("symfix"), "symfix_local_mark"));
		if (i == 0)
			first = l;
	}
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 400 - 1);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_inline_chain(p, first);
	assert_inline_chain(p, profile__nr_locations(p) - 2);
	remove_tmpdir();
}

/* ---- what a re-symbolization replaces ---------------------------------------------- */

static void test_all_keeps_better_lines(void **state)
{
	struct profile *p = *state;
	struct profile_line old = {.function = "recorded", .file = "/src/x.c", .line = 7};
	uint32_t nodebug = add_module(p, PROFILE_MODULE_USER, FIX("symfix.nodebug"), NULL);
	uint32_t full = add_module(p, PROFILE_MODULE_USER, FIX("symfix"), NULL);
	struct profile_location a = {.module = nodebug,
				     .address = sym_addr(FIX("symfix"), "symfix_local_mark"),
				     .lines = &old,
				     .nr_lines = 1,
				     .flags = PROFILE_LOC_DEBUGINFO};
	struct profile_location b = {.module = full,
				     .address = sym_addr(FIX("symfix"), "symfix_inner_mark"),
				     .lines = &old,
				     .nr_lines = 1};
	int ia = profile__add_location(p, &a), ib = profile__add_location(p, &b);

	assert_true(ia >= 0 && ib >= 0);

	/* without `all`, symbolized locations are left alone */
	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 0);
	assert_string_equal(get_loc(p, ib).lines[0].function, "recorded");
	/* all: DWARF replaces a symbol; a symbol does not replace DWARF */
	assert_int_equal(run(p, &no_debug_dirs, 1, 0), 1);
	assert_line(&get_loc(p, ia).lines[0], "recorded", "x.c", 7);
	assert_inline_chain(p, ib);
}

/* No file at the path, but a debug file with its build-id: named from it
 * (also a pseudo-file such as [vdso], when its debug file is installed). */
static void test_debug_file_as_file(void **state)
{
	struct profile *p = *state;
	struct symbolizer_opts opts = {.debug_dirs = FIX("debug")};
	uint32_t gone = add_module(p, PROFILE_MODULE_USER, "/nonexistent/symfix", SYMFIX_BUILD_ID);
	uint32_t vdso = add_module(p, PROFILE_MODULE_USER, "[vdso]", SYMFIX_BUILD_ID);
	size_t a = add_loc(p, gone, sym_addr(FIX("symfix"), "symfix_inner_mark"));
	size_t b = add_loc(p, vdso, sym_addr(FIX("symfix"), "symfix_inner_mark"));

	assert_int_equal(run(p, &opts, 0, 0), 2);
	assert_inline_chain(p, a);
	assert_inline_chain(p, b);
}

/* ---- the vDSO -------------------------------------------------------------- */

/* This process's vDSO image: written to path, its size returned. */
static size_t own_vdso(char *path, size_t size)
{
	const GElf_Ehdr *eh = (const GElf_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t len;
	int fd;

	if (!eh)
		return 0;
	len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	snprintf(path, size, "/tmp/fsp-test-vdso.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, eh, len), (ssize_t)len);
	close(fd);
	return len;
}

/* [vdso] code is named by this process's own vDSO when the recorded
 * build-id is its (the same kernel), and stays unnamed for another's. */
static void test_own_vdso(void **state)
{
	struct profile *p = *state;
	char path[64], id[2 * 64 + 1];
	struct profile_location l;
	uint64_t addr;
	uint32_t mine, other;
	size_t a, b;

	if (!own_vdso(path, sizeof(path))) {
		print_message("  SKIP: this process has no vDSO\n");
		skip();
	}
	assert_int_equal(elf__build_id(path, id, sizeof(id)), 0);
	addr = sym_addr_in(path, "__vdso_clock_gettime", SHT_DYNSYM);
	unlink(path);
	mine = add_module(p, PROFILE_MODULE_USER, "[vdso]", id);
	other = add_module(p, PROFILE_MODULE_USER, "[vdso]", SYMFIX_BUILD_ID);
	a = add_loc(p, mine, addr);
	b = add_loc(p, other, addr);
	assert_int_equal(run(p, &no_debug_dirs, 0, 0), 1);
	l = get_loc(p, a);
	assert_int_equal(l.nr_lines, 1);
	assert_non_null(strstr(l.lines[0].function, "clock_gettime"));
	l = get_loc(p, b);
	assert_int_equal(l.nr_lines, 0);
}

/* ---- JIT ------------------------------------------------------------------ */

static void test_jit(void **state)
{
	struct profile *p = *state;
	size_t jit = add_loc(p, PROFILE_NO_MODULE, 0x7f0000001234);
	struct profile_location l;

	assert_int_equal(run(p, NULL, 0, 0), 0);
	l = get_loc(p, jit);
	assert_int_equal(l.nr_lines, 0);
	assert_int_equal(l.flags, PROFILE_LOC_JIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		PROFILE_TEST(test_dwarf_inline_chain),
		PROFILE_TEST(test_dwarf_shared_library),
		PROFILE_TEST(test_dwarf_non_pie),
		PROFILE_TEST(test_debug_file_by_build_id),
		PROFILE_TEST(test_debug_file_by_debuglink),
		PROFILE_TEST(test_debug_file_by_path),
		PROFILE_TEST(test_symtab_fallback),
		PROFILE_TEST(test_dynsym_fallback),
		PROFILE_TEST(test_missing_file),
		PROFILE_TEST(test_wrong_build_id),
		PROFILE_TEST(test_deleted_suffix),
		PROFILE_TEST(test_binaries_dir),
		PROFILE_TEST(test_binaries_dir_mismatch),
		PROFILE_TEST(test_resolve),
		PROFILE_TEST(test_many_modules),
		PROFILE_TEST(test_all_keeps_better_lines),
		PROFILE_TEST(test_debug_file_as_file),
		PROFILE_TEST(test_own_vdso),
		PROFILE_TEST(test_jit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
