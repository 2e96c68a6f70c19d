/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers of the tests on the symbolizer's fixture binaries
 * (tests/unit/fixtures/build.sh; FSP_FIXTURES is where they are). */
#ifndef FSP_UNIT_FIXTURE_HELPERS_H
#define FSP_UNIT_FIXTURE_HELPERS_H

#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <unistd.h>

#include "unit_helpers.h"

/* What build.sh passes to the linker (--build-id=0x...) for symfix. */
#define SYMFIX_BUILD_ID "5379666978b1d0c0ffee0123456789abcdef0042"

/* The value of symbol `name` in path's .symtab (as nm prints it). */
static inline uint64_t sym_addr(const char *path, const char *name)
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

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
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

#endif /* FSP_UNIT_FIXTURE_HELPERS_H */
