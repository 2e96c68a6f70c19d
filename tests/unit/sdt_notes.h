/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sdt_notes.h - read SystemTap SDT notes (.note.stapsdt) from an ELF file and
 * parse their argument specs, for the usdt/fsp.h tests. Header-only (static
 * functions) so each test program stays a single file.
 *
 * Note format (https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation):
 * an ELF note named "stapsdt", type 3, whose descriptor is three addresses
 * (probe pc, link-time address of _.stapsdt.base, semaphore or 0) followed by
 * three NUL-terminated strings: provider, name, argument specs. If prelink or a
 * linker moved .stapsdt.base, the pc moves by the same amount:
 *   pc' = pc + (address of .stapsdt.base section - base recorded in the note).
 */
#ifndef FSP_TEST_SDT_NOTES_H
#define FSP_TEST_SDT_NOTES_H

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SDT_MAX_NOTES 256
#define SDT_MAX_ARGS 12

struct sdt_note {
	uint64_t pc; /* link-time address of the probe site, base-adjusted */
	uint64_t sema; /* link-time address of the semaphore, 0 if none */
	char provider[32];
	char name[64];
	char args[256];
};

struct sdt_file {
	struct sdt_note notes[SDT_MAX_NOTES];
	size_t n;
	bool has_stapsdt_base; /* a .stapsdt.base section exists */
	bool has_probes_section; /* a .probes section (semaphores) exists */
	size_t nsyms; /* symbols read, to tell "none found" from "not looked" */
	size_t fsp_semaphore_syms; /* symbols named fsp_*_semaphore */
};

static inline void sdt_copy(char *dst, size_t cap, const char *src, size_t avail)
{
	size_t n = strnlen(src, avail);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static inline bool sdt_is_fsp_semaphore(const char *name)
{
	size_t n = strlen(name), suf = strlen("_semaphore");

	return strncmp(name, "fsp_", 4) == 0 && n > 4 + suf &&
	       strcmp(name + n - suf, "_semaphore") == 0;
}

/* Fills *f from the ELF file at path. Returns 0, or -1 on error. */
static inline int sdt_file_read(const char *path, struct sdt_file *f)
{
	uint64_t base_addr = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd, ret = -1;
	Elf *e;

	memset(f, 0, sizeof(*f));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx))
		goto out;

	/* First pass: where .stapsdt.base is, and the other facts we report. */
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname)
			continue;
		if (!strcmp(sname, ".stapsdt.base")) {
			f->has_stapsdt_base = true;
			base_addr = sh.sh_addr;
		} else if (!strcmp(sname, ".probes")) {
			f->has_probes_section = true;
		}
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t i, cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

			for (i = 0; d && i < cnt; i++) {
				GElf_Sym sym;
				const char *n;

				if (!gelf_getsym(d, (int)i, &sym))
					break;
				f->nsyms++;
				n = elf_strptr(e, sh.sh_link, sym.st_name);
				if (n && sdt_is_fsp_semaphore(n))
					f->fsp_semaphore_syms++;
			}
		}
	}

	/* Second pass: the notes. */
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		size_t off = 0, name_off, desc_off;
		Elf_Data *d;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		if (sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *name = (const char *)d->d_buf + name_off;
			const char *desc = (const char *)d->d_buf + desc_off;
			const char *s, *end = desc + nh.n_descsz;
			struct sdt_note *n;
			uint64_t a[3];

			if (nh.n_type != 3 || nh.n_namesz != sizeof("stapsdt") ||
			    strcmp(name, "stapsdt") || nh.n_descsz < sizeof(a))
				continue;
			if (f->n == SDT_MAX_NOTES)
				goto out;
			n = &f->notes[f->n++];
			memcpy(a, desc, sizeof(a)); /* ELFCLASS64: three 8-byte addresses */
			n->pc = a[0];
			if (f->has_stapsdt_base)
				n->pc += base_addr - a[1];
			n->sema = a[2];
			s = desc + sizeof(a);
			sdt_copy(n->provider, sizeof(n->provider), s, (size_t)(end - s));
			s += strnlen(s, (size_t)(end - s)) + 1;
			if (s >= end)
				goto out;
			sdt_copy(n->name, sizeof(n->name), s, (size_t)(end - s));
			s += strnlen(s, (size_t)(end - s)) + 1;
			if (s > end)
				goto out;
			sdt_copy(n->args, sizeof(n->args), s, s < end ? (size_t)(end - s) : 0);
		}
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/*
 * One argument spec in the forms libbpf's USDT support reads on x86-64:
 *   SIZE@%REG          value in a register           8@%rax
 *   SIZE@OFF(%REG)     value in memory at REG + OFF  -8@-24(%rbp), 8@(%rsp)
 *   SIZE@$CONST        a constant                    8@$0
 * SIZE is the byte size, negative for signed. Anything else (a symbolic or
 * %rip-relative operand, an index register) is rejected.
 */
enum sdt_arg_kind { SDT_ARG_REG, SDT_ARG_DEREF, SDT_ARG_CONST };

struct sdt_arg {
	enum sdt_arg_kind kind;
	int size; /* negative: signed */
	char reg[8]; /* register name without '%' (REG, DEREF) */
	long off; /* DEREF offset, or CONST value */
};

/* Parses the arg at *s, advancing *s past it and any blanks. 0 or -1. */
static inline int sdt_arg_parse(const char **s, struct sdt_arg *a)
{
	const char *p = *s;
	char *endp;
	size_t n;

	memset(a, 0, sizeof(*a));
	a->size = (int)strtol(p, &endp, 10);
	if (endp == p || *endp != '@' || a->size == 0)
		return -1;
	p = endp + 1;
	if (*p == '$') {
		a->kind = SDT_ARG_CONST;
		a->off = strtol(p + 1, &endp, 0);
		if (endp == p + 1)
			return -1;
		p = endp;
	} else if (*p == '%') {
		a->kind = SDT_ARG_REG;
		n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (n == 0 || n >= sizeof(a->reg))
			return -1;
		memcpy(a->reg, p + 1, n);
		p += 1 + n;
	} else {
		a->kind = SDT_ARG_DEREF;
		if (*p != '(') {
			a->off = strtol(p, &endp, 0);
			if (endp == p)
				return -1; /* symbolic: "counter(%rip)" or "counter" */
			p = endp;
		}
		if (p[0] != '(' || p[1] != '%')
			return -1;
		n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (n == 0 || n >= sizeof(a->reg) || p[2 + n] != ')')
			return -1; /* also rejects "(%rax,%rbx,4)" */
		memcpy(a->reg, p + 2, n);
		p += 3 + n;
	}
	if (!strcmp(a->reg, "rip"))
		return -1;
	if (*p && *p != ' ')
		return -1;
	while (*p == ' ')
		p++;
	*s = p;
	return 0;
}

/* Parses a whole argument string; returns the count, or -1 on a bad arg. */
static inline int sdt_args_parse(const char *s, struct sdt_arg *args, int max)
{
	int n = 0;

	while (*s == ' ')
		s++;
	while (*s) {
		if (n == max || sdt_arg_parse(&s, &args[n]))
			return -1;
		n++;
	}
	return n;
}

#endif /* FSP_TEST_SDT_NOTES_H */
