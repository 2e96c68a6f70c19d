/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * usdt.c's and usdt_syms.c's shared internals: an ELF file open with its
 * program headers, and link-time addresses made file offsets.
 */
#ifndef FSP_USDT_INT_H
#define FSP_USDT_INT_H

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safeopen.h"

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Phdr *phdrs;
	size_t nr_phdrs;
};

static inline int addr_to_offset(const struct elf_file *f, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < f->nr_phdrs; i++) {
		const GElf_Phdr *ph = &f->phdrs[i];

		if (ph->p_type == PT_LOAD && addr >= ph->p_vaddr &&
		    addr < ph->p_vaddr + ph->p_memsz) {
			*off = addr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static inline int elf_file_open(const char *path, struct elf_file *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* a regular file only: the name may come from a target (safeopen.h) */
	f->fd = safeopen__read(AT_FDCWD, path, 0, NULL, NULL);
	if (f->fd < 0)
		return f->fd == -EINVAL || f->fd == -EISDIR ? -ENOEXEC : f->fd;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || gelf_getclass(f->elf) != ELFCLASS64 ||
	    elf_getphdrnum(f->elf, &f->nr_phdrs))
		return -ENOEXEC;
	f->phdrs = calloc(f->nr_phdrs ? f->nr_phdrs : 1, sizeof(*f->phdrs));
	if (!f->phdrs)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_phdrs; i++)
		if (!gelf_getphdr(f->elf, i, &f->phdrs[i]))
			return -ENOEXEC;
	return 0;
}

static inline void elf_file_close(struct elf_file *f)
{
	free(f->phdrs);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

#endif /* FSP_USDT_INT_H */
