/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internals shared by the files of analysis/symbol/ (not an API):
 * buildid.c (build-ids), symbol_module.c (finding and opening a module's
 * file and its debug file, one Dwfl each, cached), symbol_dwarf.c (the lines
 * of one address: DWARF with inlined frames, else the symbol table),
 * symbol_funcs.c (functions by address), symbol_symtab.c (the symbol table,
 * sorted), kallsyms.c (kernel addresses), symbolize.c (the profile walk).
 */
#ifndef FSP_ANALYSIS_SYMBOL_INT_H
#define FSP_ANALYSIS_SYMBOL_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "native.h"

/* hex digits of the longest build-id supported (64 bytes), with the NUL */
#define SYM_BUILD_ID_LEN (2 * 64 + 1)

/* elf__build_id over an open file. 0, -ENOENT (no build-id), -ENOEXEC,
 * -ENOSPC (buf too small). */
int elf__build_id_of(Elf *elf, char *buf, size_t size);

/* ---- modules (symbol_module.c) ------------------------------------------------ */

enum sym_module_state {
	SYM_MODULE_OK = 0,
	SYM_MODULE_NOT_FOUND, /* no file at any candidate path */
	SYM_MODULE_MISMATCH, /* files found, none with the recorded build-id */
	SYM_MODULE_BAD_ELF, /* a file with that name, but not an ELF file libdw can read */
	SYM_MODULE_NO_FILE, /* a pseudo-file ([vdso], [heap]...): nothing to open */
	SYM_MODULE_NO_KALLSYMS, /* kernel: kallsyms unreadable or its addresses hidden */
	SYM_MODULE_UNVERIFIED, /* kernel: no build-id to tell it is the running kernel */
};

/* Where and how modules are looked for (the symbolizer's options, owned by it). */
struct sym_search {
	char **debug_dirs; /* searched for separate debug files, in order */
	size_t nr_debug_dirs;
	const char *binaries_dir; /* NULL: none */
	const char *(*resolve)(void *ctx, size_t module, const char *path);
	void *resolve_ctx;
};

/* One user module's file, opened once (libdwfl, reported at its own
 * addresses: dwfl address = ELF vaddr + bias). */
struct sym_module {
	int kind; /* enum profile_module_kind */
	char *path; /* the module's path, as recorded (the cache key with build_id) */
	char *build_id; /* as recorded; NULL: none */
	int state; /* enum sym_module_state */
	char *file; /* the file opened (OK) */
	char file_id[SYM_BUILD_ID_LEN]; /* its build-id; "" if none */
	const struct sym_search *search;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	/* the symbol table, sorted (symbol_symtab.c), built on first use */
	struct sym_entry *syms;
	size_t nr_syms, cap_syms;
	int syms_loaded;
	/* per compile unit, its functions' ranges (symbol_funcs.c), by the
	 * unit DIE's address */
	struct hashmap cu_map;
	struct sym_cu **cus;
	size_t nr_cus, cap_cus;
	Dwarf_Die *chain; /* sym_funcs__chain's result */
	size_t nr_chain, cap_chain;
};

/* Finds and opens the file of module `index` (m->kind, path, build_id set),
 * setting m->state. Never fails on bad files (they set the state); -ENOMEM. */
int sym_module__open(struct sym_module *m, size_t index);
void sym_module__close(struct sym_module *m); /* frees what open allocated */

/* ---- the lines of one address (symbol_dwarf.c) ---------------------------------- */

struct sym_lines {
	struct profile_line *lines; /* innermost first; strings owned by the module */
	size_t nr, cap;
	unsigned int flags; /* enum profile_location_flags */
};

/* The lines at ELF address vaddr of an opened module: DWARF (function,
 * file:line, inlined frames) if there is any there, else the symbol table
 * (.symtab or .dynsym). out->nr is 0 when nothing names the address.
 * 0 or -ENOMEM. */
int sym_lines__lookup(struct sym_module *m, uint64_t vaddr, struct sym_lines *out);
void sym_lines__fini(struct sym_lines *l);

/* ---- functions by address (symbol_funcs.c) ---------------------------------- */

/* The DIEs of the functions containing DWARF address addr in unit cudie,
 * innermost first (inlined subroutines, then the subprogram), in m->chain.
 * Returns how many (0: no function of the unit's table there) or -ENOMEM. */
int sym_funcs__chain(struct sym_module *m, Dwarf_Die *cudie, Dwarf_Addr addr);
void sym_funcs__free(struct sym_module *m);

/* ---- the symbol table (symbol_symtab.c) -------------------------------------- */

/* The function symbol at dwfl address addr (.symtab, else .dynsym), NULL. */
const char *sym_table__lookup(struct sym_module *m, GElf_Addr addr);
void sym_table__free(struct sym_module *m);

/* ---- kernel symbols (kallsyms.c) --------------------------------------------- */

struct kallsyms;

/* Loads a kallsyms file (text symbols). NULL + errno: unreadable (ENOENT...),
 * or every address is 0 (kptr_restrict: EPERM). */
struct kallsyms *kallsyms__load(const char *path);
void kallsyms__free(struct kallsyms *k);
/* The function containing kernel address addr, NULL if none. */
const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr);
/* The kernel module's path the recorder uses (its build-id: kernel__build_id). */
#define SYM_KERNEL_PATH "[kernel.kallsyms]"
/* The GNU build-id among the raw ELF notes of a file such as /sys/kernel/notes
 * (kernel__build_id's reader). 0, -ENOENT, -errno. */
int kallsyms__notes_build_id(const char *notes_path, char *buf, size_t size);

#endif /* FSP_ANALYSIS_SYMBOL_INT_H */
