// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the symbolizer (analysis/symbol/) on the fixture binaries of
 * tests/unit/fixtures/build.sh: function names, file:line and inline chains
 * from DWARF, separate debug files by build-id and by .gnu_debuglink, the
 * fallback order (DWARF, .symtab, .dynsym, nothing), the binaries directory
 * with its build-id check, corrupt files, JIT code and kallsyms.
 * Addresses come from the fixture's own symbol table (asm labels placed in
 * the code), expected lines from `@L:` markers in the fixture's source.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native.h"
#include "profile.h"
#include "symbol_int.h"
#include "symbolize.h"
#include "fixture_helpers.h"
#include "unit_helpers.h"

#define FIX(name) FSP_FIXTURES "/" name

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

/* ---- profiles -------------------------------------------------------------------- */

static int setup(void **state)
{
	*state = profile__new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

static uint32_t add_module(struct profile *p, int kind, const char *path, const char *build_id)
{
	struct profile_module m = {.kind = kind, .path = path, .build_id = build_id};
	int i = profile__add_module(p, &m);

	assert_true(i >= 0);
	return (uint32_t)i;
}

static size_t add_loc(struct profile *p, uint32_t module, uint64_t addr)
{
	struct profile_location loc = {.module = module, .address = addr};
	int i = profile__add_location(p, &loc);

	assert_true(i >= 0);
	return (size_t)i;
}

static struct profile_location get_loc(struct profile *p, size_t i)
{
	struct profile_location loc;

	assert_int_equal(profile__location(p, i, &loc), 0);
	return loc;
}

/* Symbolizes p with these options; returns the symbolizer's result. */
static int run(struct profile *p, const struct symbolizer_opts *opts, int all, size_t missing)
{
	struct symbolizer *s = symbolizer__new(opts);
	int n;

	assert_non_null(s);
	n = symbolizer__profile(s, p, all);
	assert_true(n >= 0);
	assert_int_equal(symbolizer__missing_modules(s), missing);
	symbolizer__free(s);
	return n;
}

static void assert_basename(const char *path, const char *base)
{
	const char *slash;

	assert_non_null(path);
	slash = strrchr(path, '/');
	assert_string_equal(slash ? slash + 1 : path, base);
}

static void assert_line(const struct profile_line *l, const char *fn, const char *file,
			uint32_t line)
{
	assert_string_equal(l->function, fn);
	if (file)
		assert_basename(l->file, file);
	else
		assert_null(l->file);
	assert_int_equal(l->line, line);
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

static void assert_missing(struct profile *p, const struct symbolizer_opts *opts, size_t module,
			   const char *why)
{
	struct symbolizer *s = symbolizer__new(opts);
	const char *reason = NULL;
	size_t idx = 99;

	assert_non_null(s);
	assert_int_equal(symbolizer__profile(s, p, 1), 0);
	assert_int_equal(symbolizer__missing_modules(s), 1);
	assert_int_equal(symbolizer__missing_module(s, 0, &idx, &reason), 0);
	assert_int_equal(idx, module);
	assert_string_equal(reason, why);
	assert_int_equal(symbolizer__missing_module(s, 1, &idx, &reason), -ENOENT);
	symbolizer__free(s);
}

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

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/fsp-symbolize-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static void copy_file(const char *from, const char *to, size_t max)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;
	size_t done = 0;

	assert_true(in >= 0 && out >= 0);
	while (done < max && (n = read(in, buf, sizeof(buf))) > 0) {
		size_t w = (size_t)n < max - done ? (size_t)n : max - done;

		assert_int_equal(write(out, buf, w), (ssize_t)w);
		done += w;
	}
	close(in);
	close(out);
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
	uint64_t x = 0x9e3779b97f4a7c15ULL;
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

/* ---- JIT and kernel ------------------------------------------------------------------ */

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

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_kallsyms(void **state)
{
	struct profile *p = *state;
	char ks[512];
	struct symbolizer_opts opts = {.kallsyms = ks};
	uint32_t k;
	size_t a, b, c, d, e;

	make_tmpdir();
	snprintf(ks, sizeof(ks), "%s/kallsyms", tmpdir);
	write_text(ks, "ffffffff81000000 T _stext\n"
		       "ffffffff81000100 t do_thing\n"
		       "ffffffff81000180 D some_data\n"
		       "ffffffff81000200 T other_fn\n"
		       "ffffffffc0001000 t ext4_fn\t[ext4]\n"
		       "ffffffff81000200 t other_local\n"
		       "ffffffff81000200 T other_alias\n"
		       "garbage line\n");
	k = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL);
	a = add_loc(p, k, 0xffffffff81000150);
	b = add_loc(p, k, 0xffffffff81000200);
	c = add_loc(p, k, 0xffffffff80000000);
	d = add_loc(p, k, 0xffffffffc0001010);
	e = add_loc(p, k, 0xffffffff81000190); /* data symbols are skipped */
	assert_int_equal(run(p, &opts, 0, 0), 4);
	assert_line(&get_loc(p, a).lines[0], "do_thing", NULL, 0);
	/* one address, several names: the first global one */
	assert_line(&get_loc(p, b).lines[0], "other_fn", NULL, 0);
	assert_int_equal(get_loc(p, c).nr_lines, 0);
	assert_line(&get_loc(p, d).lines[0], "ext4_fn", NULL, 0);
	assert_line(&get_loc(p, e).lines[0], "do_thing", NULL, 0);

	/* kptr_restrict: every address 0 */
	write_text(ks, "0000000000000000 T _stext\n0000000000000000 t do_thing\n");
	add_loc(p, k, 0xffffffff81000300);
	assert_missing(p, &opts, k, "kallsyms unreadable or its addresses hidden");
	remove_tmpdir();
}

/* The build-id among raw notes, as /sys/kernel/notes has them. */
static void test_kernel_notes(void **state)
{
	/* a note of another type, then NT_GNU_BUILD_ID with 20 bytes */
	static const unsigned char notes[] = {
		4,    0,    0,	  0,	4,    0,    0,	  0,	1,    0,    0,	  0,	'X',  'e',
		'n',  0,    1,	  2,	3,    4,    4,	  0,	0,    0,    20,	  0,	0,    0,
		3,    0,    0,	  0,	'G',  'N',  'U',  0,	0xde, 0xad, 0xbe, 0xef, 0x00, 0x11,
		0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	};
	char path[512], id[129];
	int fd;

	(void)state;
	make_tmpdir();
	snprintf(path, sizeof(path), "%s/notes", tmpdir);
	for (size_t len = 0; len <= sizeof(notes); len++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, notes, len), (ssize_t)len);
		close(fd);
		/* cut anywhere: not found, never read past the end */
		assert_int_equal(kallsyms__notes_build_id(path, id, sizeof(id)),
				 len == sizeof(notes) ? 0 : -ENOENT);
	}
	assert_string_equal(id, "deadbeef00112233445566778899aabbccddeeff");
	assert_int_equal(kallsyms__notes_build_id(path, id, 40), -ENOSPC);
	remove_tmpdir();
	if (kernel__build_id(id, sizeof(id)))
		skip(); /* no /sys/kernel/notes here */
	assert_true(strlen(id) >= 16 && strspn(id, "0123456789abcdef") == strlen(id));
}

/* The running kernel's kallsyms: used for the running kernel only. */
static void test_running_kernel(void **state)
{
	struct profile *p = *state;
	char id[129], line[512], name[256] = "";
	unsigned long long addr = 0;
	char type;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint32_t k, other, none;
	size_t a, b, c;

	/* the first global text symbol (of those at its address, the first
	 * listed: the name kallsyms lookups give) */
	while (f && !addr && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || type != 'T')
			addr = 0;
	if (f)
		fclose(f);
	if (!addr || kernel__build_id(id, sizeof(id)))
		skip(); /* addresses hidden (not root), or no notes */
	k = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", id);
	other = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", "0123456789abcdef");
	none = add_module(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL);
	a = add_loc(p, k, addr);
	b = add_loc(p, other, addr);
	c = add_loc(p, none, addr);
	/* another host's report (all): the same kernel by build-id only */
	assert_int_equal(run(p, NULL, 1, 2), 1);
	assert_string_equal(get_loc(p, a).lines[0].function, name);
	assert_int_equal(get_loc(p, b).nr_lines, 0);
	assert_int_equal(get_loc(p, c).nr_lines, 0);
	/* the recording itself: no build-id is this kernel */
	assert_int_equal(run(p, NULL, 0, 1), 1);
	assert_string_equal(get_loc(p, c).lines[0].function, name);
	assert_int_equal(get_loc(p, b).nr_lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dwarf_inline_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dwarf_shared_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_file_by_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_file_by_debuglink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symtab_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dynsym_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_suffix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binaries_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binaries_dir_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_keeps_better_lines, setup, teardown),
		cmocka_unit_test(test_corrupt_files),
		cmocka_unit_test(test_corrupt_random),
		cmocka_unit_test_setup_teardown(test_odd_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_file_as_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kallsyms, setup, teardown),
		cmocka_unit_test(test_kernel_notes),
		cmocka_unit_test_setup_teardown(test_running_kernel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
