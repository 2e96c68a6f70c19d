/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers of the tests on the symbolizer's fixture binaries
 * (tests/unit/fixtures/build.sh; FSP_FIXTURES is where they are). */
#ifndef FSP_UNIT_FIXTURE_HELPERS_H
#define FSP_UNIT_FIXTURE_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "native.h"
#include "profile.h"
#include "symbolize.h"
#include "unit_helpers.h"

/* What build.sh passes to the linker (--build-id=0x...) for symfix. */
#define SYMFIX_BUILD_ID "5379666978b1d0c0ffee0123456789abcdef0042"

/* The value of symbol `name` in path's symbol table of type (SHT_SYMTAB:
 * as nm prints it; SHT_DYNSYM: nm -D). */
static inline uint64_t sym_addr_in(const char *path, const char *name, GElf_Word type)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;

	assert_true(fd >= 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	while (!addr && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				addr = sym.st_value;
		}
	}
	elf_end(elf);
	close(fd);
	assert_true(addr != 0);
	return addr;
}

static inline uint64_t sym_addr(const char *path, const char *name)
{
	return sym_addr_in(path, name, SHT_SYMTAB);
}

#define FIX(name) FSP_FIXTURES "/" name
/* A test given a new profile as *state. */
#define PROFILE_TEST(t) cmocka_unit_test_setup_teardown(t, profile_setup, profile_teardown)

/* ---- profiles -------------------------------------------------------------------- */

static inline int profile_setup(void **state)
{
	*state = profile__new();
	return *state ? 0 : -1;
}

static inline int profile_teardown(void **state)
{
	profile__free(*state);
	return 0;
}

static inline uint32_t add_module(struct profile *p, int kind, const char *path,
				  const char *build_id)
{
	struct profile_module m = {.kind = kind, .path = path, .build_id = build_id};
	int i = profile__add_module(p, &m);

	assert_true(i >= 0);
	return (uint32_t)i;
}

static inline size_t add_loc(struct profile *p, uint32_t module, uint64_t addr)
{
	struct profile_location loc = {.module = module, .address = addr};
	int i = profile__add_location(p, &loc);

	assert_true(i >= 0);
	return (size_t)i;
}

static inline struct profile_location get_loc(struct profile *p, size_t i)
{
	struct profile_location loc;

	assert_int_equal(profile__location(p, i, &loc), 0);
	return loc;
}

/* Symbolizes p with these options; returns the symbolizer's result. */
static inline int run(struct profile *p, const struct symbolizer_opts *opts, int all,
		      size_t missing)
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

static inline void assert_basename(const char *path, const char *base)
{
	const char *slash;

	assert_non_null(path);
	slash = strrchr(path, '/');
	assert_string_equal(slash ? slash + 1 : path, base);
}

static inline void assert_line(const struct profile_line *l, const char *fn, const char *file,
			       uint32_t line)
{
	assert_string_equal(l->function, fn);
	if (file)
		assert_basename(l->file, file);
	else
		assert_null(l->file);
	assert_int_equal(l->line, line);
}

static inline void assert_missing(struct profile *p, const struct symbolizer_opts *opts,
				  size_t module, const char *why)
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

static char tmpdir[64];

static inline void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/fsp-symbolize-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
}

static inline void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static inline void copy_file(const char *from, const char *to, size_t max)
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

#endif /* FSP_UNIT_FIXTURE_HELPERS_H */
