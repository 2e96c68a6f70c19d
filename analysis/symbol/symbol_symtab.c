// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A module's symbol table, sorted once: the fallback that names a function
 * where there is no DWARF. libdwfl's dwfl_module_addrinfo scans every symbol
 * at each lookup (140 us an address in PostgreSQL's 10,000 .dynsym symbols);
 * this table is built on first use from the same symbols
 * (dwfl_module_getsym_info: .symtab, else .dynsym, plus the MiniDebugInfo
 * table when there is one) and answers by binary search with the same
 * choice: the closest-starting sized symbol containing the address (at one
 * address: global before weak before local), else a sizeless one (assembly)
 * if it is the closest symbol below the address.
 */
#include <gelf.h>
#include <stdlib.h>

#include "symbol_int.h"
#include "util.h"

/* How many earlier symbols a lookup looks through for one containing the
 * address (nested or overlapping symbols; aliases). */
#define SYM_BACK_SCAN 32

struct sym_entry {
	GElf_Addr addr; /* dwfl address */
	GElf_Xword size;
	int rank; /* binding: higher is preferred */
	const char *name;
};

static int binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 2;
	case STB_WEAK:
		return 1;
	default:
		return 0;
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return fsp_cmp_u64(x->addr, y->addr);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int is_code(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (sym->st_shndx == SHN_UNDEF)
		return 0;
	return type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE;
}

static int table_build(struct sym_module *m)
{
	int n = dwfl_module_getsymtab(m->mod);

	m->syms_loaded = 1;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name =
			dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL, NULL, NULL);

		if (!name || !*name || !is_code(&sym))
			continue;
		if (fsp_grow((void **)&m->syms, &m->cap_syms, m->nr_syms + 1, sizeof(*m->syms)))
			return -ENOMEM;
		m->syms[m->nr_syms++] =
			(struct sym_entry){addr, sym.st_size, binding_rank(&sym), name};
	}
	if (m->nr_syms)
		qsort(m->syms, m->nr_syms, sizeof(*m->syms), entry_cmp);
	return 0;
}

const char *sym_table__lookup(struct sym_module *m, GElf_Addr addr)
{
	size_t lo = 0, hi;

	if (!m->syms_loaded && table_build(m))
		return NULL;
	/* the first symbol starting above addr */
	for (hi = m->nr_syms; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i > 0 && k < SYM_BACK_SCAN; i--, k++) {
		const struct sym_entry *e = &m->syms[i - 1];

		if (e->size && addr - e->addr < e->size)
			return e->name;
	}
	if (lo > 0 && !m->syms[lo - 1].size)
		return m->syms[lo - 1].name;
	return NULL;
}

void sym_table__free(struct sym_module *m)
{
	free(m->syms);
	m->syms = NULL;
	m->nr_syms = m->cap_syms = 0;
	m->syms_loaded = 0;
}
