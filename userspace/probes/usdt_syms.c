// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF symbol-table lookups: functions' entries and entry probes, every
 * function of a file, symbols' link-time addresses, thread-local variables'
 * offsets from the thread pointer (PIE and TLS segment), and a mapping's
 * file offset made a link-time address.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "usdt.h"
#include "usdt_int.h"

/* The defined symbol name of type type (.dynsym or .symtab) in f. 0 or -ENOENT. */
static int find_symbol(const struct elf_file *f, const char *name, int type, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *sname;
			GElf_Sym sym;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != type ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			sname = elf_strptr(f->elf, sh.sh_link, sym.st_name);
			if (sname && !strcmp(sname, name)) {
				*out = sym;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* Is the instruction at code (len bytes) one the x86 uprobe code emulates
 * (push of a register, nop, call or jmp rel) rather than single-steps? */
static bool insn_emulated(const uint8_t *code, size_t len)
{
	if (len >= 1 && ((code[0] >= 0x50 && code[0] <= 0x57) || code[0] == 0x90 ||
			 code[0] == 0xe8 || code[0] == 0xe9 || code[0] == 0xeb))
		return true;
	/* REX.B push: %r8..%r15 */
	return len >= 2 && code[0] == 0x41 && code[1] >= 0x50 && code[1] <= 0x57;
}

size_t usdt__entry_probe(const uint8_t *code, size_t len, bool *emulated)
{
	static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};

	*emulated = insn_emulated(code, len);
	if (*emulated || len < sizeof(endbr64) || memcmp(code, endbr64, sizeof(endbr64)))
		return 0;
	/* endbr64 changes no register: past it the function sees its entry state. */
	if (!insn_emulated(code + sizeof(endbr64), len - sizeof(endbr64)))
		return 0;
	*emulated = true;
	return sizeof(endbr64);
}

/* Opens path as f and finds function name's symbol and the file offset of
 * its entry. 0 or -errno; f is to be closed either way. */
static int func_entry(const char *path, const char *name, struct elf_file *f, GElf_Sym *sym,
		      uint64_t *off)
{
	int err = elf_file_open(path, f);

	if (!err)
		err = find_symbol(f, name, STT_FUNC, sym);
	if (!err)
		err = addr_to_offset(f, sym->st_value, off);
	return err;
}

int usdt__func_offset(const char *path, const char *name, uint64_t *off)
{
	struct elf_file f;
	GElf_Sym sym;
	int err = func_entry(path, name, &f, &sym, off);

	elf_file_close(&f);
	return err;
}

int usdt__func_probe(const char *path, const char *name, uint64_t *off, bool *emulated)
{
	uint8_t code[16];
	struct elf_file f;
	GElf_Sym sym;
	ssize_t n;
	int err;

	err = func_entry(path, name, &f, &sym, off);
	if (err)
		goto cleanup;
	n = pread(f.fd, code, sizeof(code), (off_t)*off);
	if (n < 0) {
		err = -errno;
		goto cleanup;
	}
	if (sym.st_size && (uint64_t)n > sym.st_size)
		n = (ssize_t)sym.st_size;
	*off += usdt__entry_probe(code, (size_t)n, emulated);
cleanup:
	elf_file_close(&f);
	return err;
}

/* Calls cb for each defined function symbol of one symbol table section. */
static int each_func_in(struct elf_file *f, Elf_Scn *scn, const GElf_Shdr *sh,
			int (*cb)(void *ctx, const char *name, uint64_t off), void *ctx)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	uint8_t code[16];
	GElf_Sym sym;
	bool emulated;
	int err = 0;

	for (size_t i = 0; data && sh->sh_entsize && i < sh->sh_size / sh->sh_entsize && !err;
	     i++) {
		const char *name;
		uint64_t off;
		ssize_t n;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(f->elf, sh->sh_link, sym.st_name);
		if (!name || !*name || addr_to_offset(f, sym.st_value, &off))
			continue;
		n = pread(f->fd, code, sizeof(code), (off_t)off);
		if (n > 0 && sym.st_size && (uint64_t)n > sym.st_size)
			n = (ssize_t)sym.st_size;
		if (n > 0)
			off += usdt__entry_probe(code, (size_t)n, &emulated);
		err = cb(ctx, name, off);
	}
	return err;
}

int usdt__each_func(const char *path, int (*cb)(void *ctx, const char *name, uint64_t off),
		    void *ctx)
{
	struct elf_file f;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = elf_file_open(path, &f);

	while (!err && (scn = elf_nextscn(f.elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			err = each_func_in(&f, scn, &sh, cb, ctx);
	elf_file_close(&f);
	return err;
}

/* The link-time address of symbol name of type type (STT_OBJECT, STT_FUNC). */
static int symbol_vaddr(const char *path, const char *name, int type, uint64_t *vaddr)
{
	struct elf_file f;
	GElf_Sym sym;
	int err;

	err = elf_file_open(path, &f);
	if (!err)
		err = find_symbol(&f, name, type, &sym);
	if (!err)
		*vaddr = sym.st_value;
	elf_file_close(&f);
	return err;
}

int usdt__func(const char *path, const char *name, uint64_t *vaddr)
{
	return symbol_vaddr(path, name, STT_FUNC, vaddr);
}

int usdt__symbol(const char *path, const char *name, uint64_t *vaddr)
{
	return symbol_vaddr(path, name, STT_OBJECT, vaddr);
}

/* Is the file a position-independent executable (DT_FLAGS_1 has DF_1_PIE)?
 * An interpreter alone does not say it: glibc's libc.so.6 has one. */
static bool is_pie(const struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;

	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag == DT_FLAGS_1)
				return (dyn.d_un.d_val & DF_1_PIE) != 0;
	}
	return false;
}

/* The file's PT_TLS segment, if it is an executable (ET_EXEC, or a PIE):
 * its TLS block is the first. */
static const GElf_Phdr *exe_tls(const struct elf_file *f)
{
	const GElf_Phdr *tls = NULL;
	GElf_Ehdr eh;

	if (!gelf_getehdr(f->elf, &eh))
		return NULL;
	for (size_t i = 0; i < f->nr_phdrs; i++)
		if (f->phdrs[i].p_type == PT_TLS)
			tls = &f->phdrs[i];
	return eh.e_type == ET_EXEC || (eh.e_type == ET_DYN && is_pie(f)) ? tls : NULL;
}

int usdt__tls_symbol(const char *path, const char *name, int64_t *tp_off)
{
	const GElf_Phdr *tls;
	struct elf_file f;
	uint64_t align, first, off;
	GElf_Sym sym;
	int err;

	err = elf_file_open(path, &f);
	if (!err)
		err = find_symbol(&f, name, STT_TLS, &sym);
	if (err)
		goto cleanup;
	tls = exe_tls(&f);
	if (!tls) {
		err = -ENOTSUP;
		goto cleanup;
	}
	/* x86-64 (TLS variant II): the executable's block ends at the thread
	 * pointer, placed as glibc's _dl_determine_tlsoffset places the first
	 * module: its first byte keeps the segment's misalignment. */
	align = tls->p_align ? tls->p_align : 1;
	first = -tls->p_vaddr & (align - 1);
	off = ((tls->p_memsz - first + align - 1) & ~(align - 1)) + first;
	*tp_off = (int64_t)sym.st_value - (int64_t)off;
cleanup:
	elf_file_close(&f);
	return err;
}

/* The link-time address of file offset off (a mapping's, page-aligned) of
 * path: in the PT_LOAD segment whose pages start there. */
int usdt__offset_vaddr(const char *path, uint64_t off, uint64_t *vaddr)
{
	struct elf_file f;
	int err = elf_file_open(path, &f);

	for (size_t i = 0; !err && i < f.nr_phdrs; i++) {
		const GElf_Phdr *ph = &f.phdrs[i];
		uint64_t page = ph->p_offset & ~4095ULL;

		if (ph->p_type != PT_LOAD || off < page || off >= ph->p_offset + ph->p_filesz)
			continue;
		*vaddr = ph->p_vaddr - ph->p_offset + off;
		elf_file_close(&f);
		return 0;
	}
	elf_file_close(&f);
	return err ? err : -ENOENT;
}
