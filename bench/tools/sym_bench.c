// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/tools/sym_bench - the symbolizer's cost (bench/symbols.sh): N addresses
 * spread over an ELF file's .text (a fixed pseudo-random sequence), as the
 * locations of one module of a profile, symbolized once as at the end of a
 * recording (debug files under /usr/lib/debug). Prints one line:
 *   FILE: N addresses, S named, D with file:line, I with inlined frames, T s, U us/address
 * usage: sym_bench FILE [N]
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "native.h"
#include "profile.h"
#include "symbolize.h"

static int text_range(const char *path, uint64_t *start, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".text") && sh.sh_size) {
				*start = sh.sh_addr;
				*size = sh.sh_size;
				found = 1;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found ? 0 : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct profile_module mod = {.kind = PROFILE_MODULE_USER};
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000, named = 0, dwarf = 0, inl = 0;
	uint64_t start, size, x = 88172645463325252ULL;
	char id[129];
	struct profile *p = profile__new();
	struct symbolizer *s = symbolizer__new(NULL);
	double t0, t;
	int m, got;

	if (argc < 2 || !p || !s || text_range(argv[1], &start, &size)) {
		fprintf(stderr, "usage: sym_bench ELF-FILE [N] (a file with a .text section)\n");
		return 2;
	}
	mod.path = argv[1];
	mod.build_id = elf__build_id(argv[1], id, sizeof(id)) ? NULL : id;
	m = profile__add_module(p, &mod);
	for (size_t i = 0; i < n && m >= 0; i++) {
		struct profile_location loc = {.module = (uint32_t)m};

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		loc.address = start + x % size;
		profile__add_location(p, &loc);
	}
	t0 = now();
	got = symbolizer__profile(s, p, 0);
	t = now() - t0;
	for (size_t i = 0; i < profile__nr_locations(p); i++) {
		struct profile_location loc;

		if (profile__location(p, i, &loc) || !loc.nr_lines)
			continue;
		named++;
		dwarf += loc.lines[0].file != NULL;
		inl += loc.nr_lines > 1;
	}
	printf("%s: %zu addresses, %zu named, %zu with file:line, %zu with inlined frames, "
	       "%.3f s, %.1f us/address\n",
	       argv[1], profile__nr_locations(p), named, dwarf, inl, t,
	       t * 1e6 / (double)profile__nr_locations(p));
	symbolizer__free(s);
	profile__free(p);
	return got < 0;
}
