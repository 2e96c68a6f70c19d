// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The lines of one address of an opened module, as `eu-addr2line -i -f`
 * prints them: from DWARF, the innermost function (the code that ran) with
 * the line table's file:line, then for each DW_TAG_inlined_subroutine the
 * function it was inlined into with the call site (DW_AT_call_file,
 * DW_AT_call_line), up to the real function (DW_TAG_subprogram). Without
 * DWARF there, the symbol table (.symtab, else .dynsym: symbol_symtab.c picks
 * the sized symbol containing the address) names one function without a
 * file. Nothing: no lines (module+offset in the views).
 *
 * Function names: DW_AT_linkage_name when there is one (C++: mangled, as the
 * symbol table has them, so that a function has one name whichever source
 * named it; pprof and c++filt demangle), else DW_AT_name.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol_int.h"
#include "util.h"

/* Inline chains deeper than this are cut (the middle frames dropped). */
#define SYM_MAX_INLINE 64

static int push_line(struct sym_lines *out, const char *function, const char *file, int line)
{
	if (fsp_grow((void **)&out->lines, &out->cap, out->nr + 1, sizeof(*out->lines)))
		return -ENOMEM;
	out->lines[out->nr++] = (struct profile_line){
		.function = function,
		.file = file,
		.line = line > 0 ? (uint32_t)line : 0,
	};
	return 0;
}

static const char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		name = dwarf_diename(die);
	return name;
}

/* The call site of an inlined subroutine: the file and line of the caller. */
static void call_site(Dwarf_Die *inl, const char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word val;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &val) == 0 && val <= INT32_MAX)
		*line = (int)val;
	if (!dwarf_diecu(inl, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
		return;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &val) == 0 && val < nfiles)
		*file = dwarf_filesrc(files, val, NULL, NULL);
}

/*
 * The DIEs containing addr (a DWARF address), innermost first, following the
 * concrete tree: dwarf_getscopes finds the innermost scope but continues
 * from an inlined subroutine with its abstract definition's scopes, so the
 * chain of inlined instances is the innermost scope's parents
 * (dwarf_getscopes_die), as eu-addr2line -i walks it. The slow way, for
 * what symbol_funcs.c's table of functions does not find.
 */
static int scopes_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **chain)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);

	*chain = NULL;
	if (n > 0)
		n = dwarf_getscopes_die(&scopes[0], chain);
	free(scopes);
	return n;
}

/* The lines of the function chain at addr (innermost first). */
static int chain_lines(Dwarf_Die *scopes, int n, const char *file, int line, struct sym_lines *out)
{
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine) {
			if (out->nr < SYM_MAX_INLINE)
				err = push_line(out, die_function_name(&scopes[i]), file, line);
			call_site(&scopes[i], &file, &line);
		} else if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) {
			err = push_line(out, die_function_name(&scopes[i]), file, line);
			break;
		}
	}
	/* line information but no function DIE (assembly): a line all the same */
	if (!err && !out->nr && (file || line))
		err = push_line(out, NULL, file, line);
	return err;
}

static int dwarf_lines(struct sym_module *m, Dwarf_Die *cu, Dwarf_Addr addr, struct sym_lines *out)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Line *ln = dwarf_getsrc_die(cu, addr);
	const char *file = ln ? dwarf_linesrc(ln, NULL, NULL) : NULL;
	int line = 0, n, err;

	if (ln && dwarf_lineno(ln, &line))
		line = 0;
	n = sym_funcs__chain(m, cu, addr);
	if (n < 0)
		return n;
	if (n > 0)
		return chain_lines(m->chain, n, file, line, out);
	n = scopes_at(cu, addr, &scopes);
	err = chain_lines(scopes, n, file, line, out);
	free(scopes);
	return err;
}

int sym_lines__lookup(struct sym_module *m, uint64_t vaddr, struct sym_lines *out)
{
	Dwarf_Addr addr = vaddr + m->bias, dbias = 0;
	const char *name;
	Dwarf_Die *cu;
	int err;

	out->nr = 0;
	out->flags = 0;
	if (!m->mod)
		return 0;
	cu = dwfl_module_addrdie(m->mod, addr, &dbias);
	if (cu && addr >= dbias) {
		err = dwarf_lines(m, cu, addr - dbias, out);
		if (err)
			return err;
	}
	if (out->nr) {
		out->flags |= PROFILE_LOC_DEBUGINFO;
		/* a real function DWARF does not name: the symbol's name */
		if (!out->lines[out->nr - 1].function)
			out->lines[out->nr - 1].function = sym_table__lookup(m, addr);
		return 0;
	}
	name = sym_table__lookup(m, addr);
	return name ? push_line(out, name, NULL, 0) : 0;
}

void sym_lines__fini(struct sym_lines *l)
{
	free(l->lines);
	l->lines = NULL;
	l->nr = l->cap = 0;
}
