// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SystemTap SDT notes: per site, pc, the link-time address of .stapsdt.base,
 * the semaphore address, then "provider\0name\0args\0". When .stapsdt.base
 * exists, pc moves by (its section address - the recorded base) (prelink).
 * Addresses become file offsets through the PT_LOAD segment holding them.
 */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include "usdt.h"
#include "usdt_int.h"
#include "util.h"

/* Offsets in the x86-64 struct pt_regs the BPF program sees. */
struct reg_name {
	const char *names[4]; /* 64, 32, 16, 8 bit */
	unsigned int off;
};

static const struct reg_name regs[] = {
	{{"rax", "eax", "ax", "al"}, 80},      {{"rbx", "ebx", "bx", "bl"}, 40},
	{{"rcx", "ecx", "cx", "cl"}, 88},      {{"rdx", "edx", "dx", "dl"}, 96},
	{{"rsi", "esi", "si", "sil"}, 104},    {{"rdi", "edi", "di", "dil"}, 112},
	{{"rbp", "ebp", "bp", "bpl"}, 32},     {{"rsp", "esp", "sp", "spl"}, 152},
	{{"r8", "r8d", "r8w", "r8b"}, 72},     {{"r9", "r9d", "r9w", "r9b"}, 64},
	{{"r10", "r10d", "r10w", "r10b"}, 56}, {{"r11", "r11d", "r11w", "r11b"}, 48},
	{{"r12", "r12d", "r12w", "r12b"}, 24}, {{"r13", "r13d", "r13w", "r13b"}, 16},
	{{"r14", "r14d", "r14w", "r14b"}, 8},  {{"r15", "r15d", "r15w", "r15b"}, 0},
	{{"rip", "eip", NULL, NULL}, 128},
};

static int reg_offset(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int j = 0; j < 4; j++)
			if (regs[i].names[j] && strlen(regs[i].names[j]) == len &&
			    !strncmp(regs[i].names[j], name, len))
				return regs[i].off;
	return -1;
}

static int parse_num(const char **p, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(*p, &end, 0);
	if (errno || end == *p)
		return -EINVAL;
	*p = end;
	return 0;
}

int usdt__parse_arg(const char *s, struct fsp_usdt_arg *arg)
{
	long long size, off = 0;
	const char *p = s, *r;
	int ro;

	memset(arg, 0, sizeof(*arg));
	if (parse_num(&p, &size) || *p++ != '@')
		return -EINVAL;
	arg->is_signed = size < 0;
	arg->size = size < 0 ? -size : size;
	if (arg->size != 1 && arg->size != 2 && arg->size != 4 && arg->size != 8)
		return -EINVAL;
	if (*p == '$') { /* constant */
		p++;
		if (parse_num(&p, &off) || *p)
			return -EINVAL;
		arg->type = FSP_ARG_CONST;
		arg->val_off = off;
		return 0;
	}
	if (*p == '%') { /* register */
		p++;
		ro = reg_offset(p, strlen(p));
		if (ro < 0 || ro == 128)
			return -EINVAL;
		arg->type = FSP_ARG_REG;
		arg->reg_off = ro;
		return 0;
	}
	/* memory: [OFFSET](%REG); a symbol before ( is rip-relative: unsupported */
	if (*p != '(' && parse_num(&p, &off))
		return -EINVAL;
	if (*p++ != '(' || *p++ != '%')
		return -EINVAL;
	r = strchr(p, ')');
	if (!r || r[1])
		return -EINVAL;
	ro = reg_offset(p, r - p);
	if (ro < 0 || ro == 128)
		return -EINVAL;
	arg->type = FSP_ARG_REG_DEREF;
	arg->reg_off = ro;
	arg->val_off = off;
	return 0;
}

int usdt__parse_args(const char *args, struct fsp_usdt_spec *spec)
{
	char buf[256], *tok, *save = NULL;

	memset(spec, 0, sizeof(*spec));
	if (strlen(args) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, args);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (spec->nr_args == FSP_USDT_MAX_ARGS)
			return 0; /* later arguments are never read */
		if (usdt__parse_arg(tok, &spec->args[spec->nr_args]))
			return -EINVAL;
		spec->nr_args++;
	}
	return 0;
}

/* Address of .stapsdt.base, 0 if absent. */
static uint64_t stapsdt_base(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base"))
			return sh.sh_addr;
	}
	return 0;
}

struct site_vec {
	struct usdt_site *v;
	size_t nr;
	size_t cap;
};

static int site_push(struct site_vec *sv, const struct usdt_site *s)
{
	if (fsp_grow((void **)&sv->v, &sv->cap, sv->nr + 1, sizeof(*sv->v)))
		return -ENOMEM;
	sv->v[sv->nr++] = *s;
	return 0;
}

/* One note's descriptor → a site, if it is provider's and well-formed. */
static int read_note(const struct elf_file *f, uint64_t base, const char *desc, size_t len,
		     const char *provider, struct site_vec *sv, size_t *skipped, char *why,
		     size_t why_size)
{
	uint64_t pc, note_base, sema;
	const char *prov, *name, *args, *end = desc + len;
	struct usdt_site site = {};

	if (len < 3 * 8 + 3)
		return 0;
	memcpy(&pc, desc, 8);
	memcpy(&note_base, desc + 8, 8);
	memcpy(&sema, desc + 16, 8);
	prov = desc + 24;
	name = memchr(prov, 0, end - prov);
	if (!name++ || name >= end)
		return 0;
	args = memchr(name, 0, end - name);
	if (!args++ || args > end || !memchr(args, 0, end - args))
		return 0;
	if (provider && strcmp(prov, provider))
		return 0;
	if (base && note_base)
		pc += base - note_base;
	site.vaddr = pc;
	site.sema_vaddr = sema;
	snprintf(site.name, sizeof(site.name), "%s", name);
	snprintf(site.provider, sizeof(site.provider), "%s", prov);
	site.args_ok = !usdt__parse_args(args, &site.spec);
	if (!site.args_ok)
		memset(&site.spec, 0, sizeof(site.spec));
	if (addr_to_offset(f, pc, &site.offset) ||
	    (sema && addr_to_offset(f, sema, &site.ref_ctr_offset))) {
		if (why && !*skipped)
			snprintf(why, why_size,
				 "%s:%s at 0x%llx is outside the file's loadable segments "
				 "(arguments \"%s\")",
				 prov, name, (unsigned long long)pc, args);
		(*skipped)++;
		return 0;
	}
	return site_push(sv, &site);
}

int usdt__read_sites(const char *path, const char *provider, struct usdt_site **sites, size_t *nr,
		     size_t *skipped, char *why, size_t why_size)
{
	struct site_vec sv = {};
	struct elf_file f;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t base;
	int err;

	*sites = NULL;
	*nr = 0;
	*skipped = 0;
	if (why && why_size)
		why[0] = 0;
	err = elf_file_open(path, &f);
	if (err)
		goto cleanup;
	if (elf_getshdrstrndx(f.elf, &shstrndx)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	base = stapsdt_base(f.elf, shstrndx);
	while ((scn = elf_nextscn(f.elf, scn))) {
		size_t off = 0, name_off, desc_off;
		const char *sname;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(f.elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt"))
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((char *)data->d_buf + name_off, "stapsdt", 8))
				continue;
			err = read_note(&f, base, (char *)data->d_buf + desc_off, nh.n_descsz,
					provider, &sv, skipped, why, why_size);
			if (err)
				goto cleanup;
		}
	}
cleanup:
	elf_file_close(&f);
	if (err) {
		free(sv.v);
		return err;
	}
	*sites = sv.v;
	*nr = sv.nr;
	return 0;
}

int usdt__elf_interp(const char *path, char *buf, size_t size)
{
	struct elf_file f;
	int err;

	buf[0] = 0;
	err = elf_file_open(path, &f);
	for (size_t i = 0; !err && i < f.nr_phdrs; i++) {
		const GElf_Phdr *ph = &f.phdrs[i];

		if (ph->p_type != PT_INTERP)
			continue;
		if (ph->p_filesz == 0 || ph->p_filesz >= size ||
		    pread(f.fd, buf, ph->p_filesz, ph->p_offset) != (ssize_t)ph->p_filesz) {
			err = -EINVAL;
			buf[0] = 0;
			break;
		}
		buf[ph->p_filesz] = 0;
		break;
	}
	elf_file_close(&f);
	return err;
}

#define DWARF_REG_RSP 7

/* CFA = rsp + *off at vaddr: DW_OP_bregx rsp, offset (or DW_OP_breg7 offset).
 * 0 or -ENOENT (no CFI there, or another rule). */
static int cfa_rsp_offset(Dwarf_CFI *cfi, uint64_t vaddr, int64_t *off)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int err = -ENOENT;

	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &frame) ||
	    dwarf_frame_cfa(frame, &ops, &nops) || nops != 1)
		goto cleanup;
	if (ops[0].atom == DW_OP_bregx && ops[0].number == DWARF_REG_RSP) {
		*off = (int64_t)ops[0].number2;
		err = 0;
	} else if (ops[0].atom == DW_OP_breg7) {
		*off = (int64_t)ops[0].number;
		err = 0;
	}
cleanup:
	free(frame);
	return err;
}

int usdt__cfa_offset(const char *path, uint64_t vaddr, int64_t *off)
{
	Dwarf_CFI *cfi = NULL;
	struct elf_file f;
	int err;

	err = elf_file_open(path, &f);
	if (!err) {
		cfi = dwarf_getcfi_elf(f.elf);
		err = cfa_rsp_offset(cfi, vaddr, off);
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_file_close(&f);
	return err;
}

/* Pointer encodings of .eh_frame_hdr (DW_EH_PE_*, LSB "Exception Frame"). */
enum {
	EH_PE_UDATA4 = 0x03,
	EH_PE_UDATA8 = 0x04,
	EH_PE_SDATA4 = 0x0b,
	EH_PE_SDATA8 = 0x0c,
	EH_PE_DATAREL_SDATA4 = 0x3b,
};

static size_t eh_pe_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		return 4;
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		return 8;
	default:
		return 0;
	}
}

static int32_t get_s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The call-frame entries (FDEs) around vaddr, from the binary search table of
 * .eh_frame_hdr (PT_GNU_EH_FRAME): the start of the last one starting at or
 * before vaddr, and the start of the next (UINT64_MAX: none). 0, or -ENOENT
 * (no table, an encoding other than the one GNU linkers write, vaddr before
 * every entry).
 */
static int fde_starts(const struct elf_file *f, uint64_t vaddr, uint64_t *start, uint64_t *next)
{
	const GElf_Phdr *ph = NULL;
	const uint8_t *h;
	size_t lo = 0, hi, n, at;
	Elf_Data *d;
	uint32_t count;

	for (size_t i = 0; i < f->nr_phdrs && !ph; i++)
		if (f->phdrs[i].p_type == PT_GNU_EH_FRAME)
			ph = &f->phdrs[i];
	if (!ph || ph->p_filesz < 4)
		return -ENOENT;
	d = elf_getdata_rawchunk(f->elf, ph->p_offset, ph->p_filesz, ELF_T_BYTE);
	h = d ? d->d_buf : NULL;
	/* version, eh_frame_ptr's encoding, fde_count's, the table's */
	if (!h || h[0] != 1 || !eh_pe_size(h[1]) ||
	    (h[2] != EH_PE_UDATA4 && h[2] != EH_PE_SDATA4) || h[3] != EH_PE_DATAREL_SDATA4)
		return -ENOENT;
	at = 4 + eh_pe_size(h[1]);
	if (at + 4 > ph->p_filesz)
		return -ENOENT;
	memcpy(&count, h + at, 4);
	at += 4;
	n = count;
	if (!n || n > (ph->p_filesz - at) / 8)
		return -ENOENT;
	/* Pairs (initial location, FDE address), sorted, relative to the table. */
	hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ph->p_vaddr + get_s32(h + at + 8 * mid) <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	*start = ph->p_vaddr + get_s32(h + at + 8 * lo);
	*next = lo + 1 < n ? ph->p_vaddr + get_s32(h + at + 8 * (lo + 1)) : UINT64_MAX;
	return *start <= vaddr ? 0 : -ENOENT;
}

/* The end of the FDE starting at start: its CFI rows are walked until one
 * ends at next or no row follows. */
static uint64_t fde_end(Dwarf_CFI *cfi, uint64_t start, uint64_t next)
{
	uint64_t x = start;

	while (x < next) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr lo, hi;
		bool more = !dwarf_cfi_addrframe(cfi, x, &frame) &&
			    dwarf_frame_info(frame, &lo, &hi, NULL) >= 0 && hi > x;

		free(frame);
		if (!more)
			break;
		x = hi;
	}
	return x;
}

int usdt__func_range(const char *path, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	Dwarf_CFI *cfi = NULL;
	uint64_t lo, next, hi;
	struct elf_file f;
	int64_t entry_off;
	int err;

	err = elf_file_open(path, &f);
	if (!err)
		err = fde_starts(&f, vaddr, &lo, &next);
	if (!err) {
		cfi = dwarf_getcfi_elf(f.elf);
		/* A function is entered by a call: its return address is all
		 * there is above the stack pointer (CFA = rsp + 8). A part split
		 * off a function (a ".cold" block) is entered by a jump, inside
		 * its function's frame: it says nothing on which function. */
		err = cfa_rsp_offset(cfi, lo, &entry_off);
		if (!err && entry_off != 8)
			err = -ENOENT;
	}
	if (!err) {
		hi = fde_end(cfi, lo, next);
		if (vaddr >= hi) {
			err = -ENOENT; /* in a gap between entries: no CFI */
		} else {
			*start = lo;
			*end = hi;
		}
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_file_close(&f);
	return err;
}

/*
 * BPF_LINK_CREATE for BPF_TRACE_UPROBE_MULTI (Linux 6.6): one link for all
 * sites of a probe in a file, detached with a single RCU grace period. The
 * system's linux/bpf.h predates it, so the attr is laid out here.
 */

struct uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
	__u32 pad[17]; /* zero up to the size of union bpf_attr we pass */
};

static int link_multi(int prog_fd, const char *path, const __u64 *offsets, const __u64 *ref_ctr,
		      const __u64 *cookies, __u32 cnt, pid_t pid, __u32 flags)
{
	struct uprobe_multi_attr attr = {
		.prog_fd = prog_fd,
		.attach_type = USDT_TRACE_UPROBE_MULTI,
		.path = (__u64)(unsigned long)path,
		.offsets = (__u64)(unsigned long)offsets,
		.ref_ctr_offsets = (__u64)(unsigned long)ref_ctr,
		.cookies = (__u64)(unsigned long)cookies,
		.cnt = cnt,
		.um_flags = flags,
		.pid = pid,
	};
	int fd = syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));

	return fd < 0 ? -errno : fd;
}

int usdt__link(int prog_fd, const char *path, const __u64 *offsets, const __u64 *ref_ctr,
	       const __u64 *cookies, __u32 cnt, pid_t pid)
{
	return link_multi(prog_fd, path, offsets, ref_ctr, cookies, cnt, pid, 0);
}

int usdt__link_return(int prog_fd, const char *path, const __u64 *offsets, const __u64 *cookies,
		      __u32 cnt, pid_t pid)
{
	return link_multi(prog_fd, path, offsets, NULL, cookies, cnt, pid,
			  1 /* BPF_F_UPROBE_MULTI_RETURN */);
}
