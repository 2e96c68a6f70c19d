/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probe sites of one ELF file, ready for a uprobe_multi link: the file
 * offset of each site, of its semaphore, and how to read its arguments.
 */
#ifndef FSP_USDT_H
#define FSP_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include <sys/types.h>

#include "profiler.h"

struct usdt_site {
	uint64_t offset; /* file offset of the probe's nop */
	uint64_t vaddr; /* its link-time address */
	uint64_t ref_ctr_offset; /* file offset of the semaphore, 0 if none */
	uint64_t sema_vaddr; /* link-time address of the semaphore, 0 if none */
	struct fsp_usdt_spec spec;
	bool args_ok; /* false: arguments fsp-bpf cannot read (spec is empty) */
	char provider[64];
	char name[64];
};

/*
 * Reads the sites of provider's probes in path (provider NULL: every
 * provider's). A site whose location cannot be mapped to the file is
 * skipped and counted in *skipped (with a reason in why, if not NULL); a
 * site whose arguments cannot be parsed (e.g. a RIP-relative global) is
 * kept with args_ok false: a mapped feature may not read them. Returns 0
 * (nr may be 0) or -errno.
 */
int usdt__read_sites(const char *path, const char *provider, struct usdt_site **sites, size_t *nr,
		     size_t *skipped, char *why, size_t why_size);

/* Parses one "SIZE@OPERAND" argument (x86-64 syntax). 0 or -EINVAL. */
int usdt__parse_arg(const char *s, struct fsp_usdt_arg *arg);

/* Parses a note's whole argument string into spec. 0 or -EINVAL. */
int usdt__parse_args(const char *args, struct fsp_usdt_spec *spec);

/* The program interpreter (PT_INTERP) of an ELF executable, "" if static.
 * 0 or -errno (-ENOEXEC: not a 64-bit ELF file). */
int usdt__elf_interp(const char *path, char *buf, size_t size);

/* The offset from the stack pointer to the canonical frame address (the
 * caller's stack pointer) at address vaddr of path, from its .eh_frame or
 * .debug_frame. -ENOENT when unknown or not rsp-based. */
int usdt__cfa_offset(const char *path, uint64_t vaddr, int64_t *off);

/* The address range [start, end) of the function that vaddr of path belongs
 * to: its call-frame entry (FDE, found through .eh_frame_hdr), whatever rows
 * of stack-pointer rules it has. -ENOENT when unknown: no such entry, or one
 * that is a part split off a function (a ".cold" block, entered by a jump). */
int usdt__func_range(const char *path, uint64_t vaddr, uint64_t *start, uint64_t *end);

/* The link-time address of the data symbol name (.dynsym or .symtab) in
 * path. 0 or -ENOENT/-errno. */
int usdt__symbol(const char *path, const char *name, uint64_t *vaddr);
/* The same for the function name. */
int usdt__func(const char *path, const char *name, uint64_t *vaddr);
/*
 * A thread-local variable (STT_TLS) of an executable (its static TLS block,
 * the first): its address from a thread's thread pointer (fsbase on x86-64),
 * negative. -ENOENT: no such symbol; -ENOTSUP: the file is a shared library,
 * whose block ld.so places at run time.
 */
int usdt__tls_symbol(const char *path, const char *name, int64_t *tp_off);
/* The link-time address of the page-aligned file offset off (a mapping's
 * offset) of path, in its PT_LOAD segment: a mapping's start minus it is
 * the file's load bias. 0 or -ENOENT/-errno. */
int usdt__offset_vaddr(const char *path, uint64_t off, uint64_t *vaddr);

/*
 * Where a uprobe on a function whose code starts with code[0..len) costs
 * least: the offset of the first instruction the kernel emulates, the entry
 * itself or past a leading endbr64 (which changes no register), else 0. An
 * instruction the kernel does not emulate (endbr64, sub, mov...) is
 * single-stepped out of line, a second trap: ~9 us per hit on a VM against
 * ~0.5 us. *emulated says which it is.
 */
size_t usdt__entry_probe(const uint8_t *code, size_t len, bool *emulated);

/* The file offset of function name's entry (.dynsym or .symtab) in path. 0
 * or -ENOENT/-errno. */
int usdt__func_offset(const char *path, const char *name, uint64_t *off);

/* The file offset at which to probe function name (.dynsym or .symtab) of
 * path, usdt__entry_probe() applied to its code. 0 or -ENOENT/-errno. */
int usdt__func_probe(const char *path, const char *name, uint64_t *off, bool *emulated);

/* BPF_TRACE_UPROBE_MULTI: newer than the system's linux/bpf.h. Programs
 * must be loaded with it as their expected attach type. */
#define USDT_TRACE_UPROBE_MULTI 48

/* One uprobe_multi link: cnt sites of path (file offsets), their semaphores
 * (0: none) and BPF cookies, for process pid. Returns the link fd or -errno. */
int usdt__link(int prog_fd, const char *path, const __u64 *offsets, const __u64 *ref_ctr,
	       const __u64 *cookies, __u32 cnt, pid_t pid);

/* The same as uretprobes: prog runs when each function returns. */
int usdt__link_return(int prog_fd, const char *path, const __u64 *offsets, const __u64 *cookies,
		      __u32 cnt, pid_t pid);

/* Calls cb(ctx, name, off) for each function symbol defined in path (.symtab
 * and .dynsym: a name may come twice), off the file offset to probe it at
 * (usdt__entry_probe() applied). Stops at cb's first non-zero return, which
 * it returns; 0, or -errno when path cannot be read (-ENOEXEC: not ELF). */
int usdt__each_func(const char *path, int (*cb)(void *ctx, const char *name, uint64_t off),
		    void *ctx);

#endif /* FSP_USDT_H */
