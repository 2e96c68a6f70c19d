// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The chain of function DIEs at an address, fast: per compile unit, the
 * address ranges of its functions (DW_TAG_subprogram with code, also inside
 * namespaces and classes), sorted once; a lookup finds the function by
 * binary search and walks down its own subtree only, through the lexical
 * blocks and inlined subroutines containing the address. dwarf_getscopes
 * walks every top-level DIE of the unit at each lookup, then
 * dwarf_getscopes_die once more (about 100 us an address in libc's debug
 * file); this touches each unit's top level once per module.
 * When the table has no function there, symbol_dwarf.c falls back to
 * dwarf_getscopes.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "symbol_int.h"
#include "util.h"

/* Bounds on a walk, against corrupt sibling chains and absurd nesting. */
#define FN_MAX_STEPS 1000000
#define FN_MAX_DEPTH 256

struct sym_fn {
	Dwarf_Addr lo, hi; /* [lo, hi), DWARF addresses */
	Dwarf_Off off; /* of the DIE: of functions at one address, the first wins */
	Dwarf_Die die;
};

struct sym_cu {
	struct sym_fn *fns;
	size_t nr, cap;
};

static int fn_cmp(const void *a, const void *b)
{
	const struct sym_fn *x = a, *y = b;

	/* at one address the first DIE sorts last, where lookups look first
	 * (as dwarf_getscopes finds it: assembler DWARF has a DIE per alias) */
	if (x->lo != y->lo)
		return fsp_cmp_u64(x->lo, y->lo);
	return fsp_cmp_u64(y->off, x->off);
}

static int add_ranges(struct sym_cu *cu, Dwarf_Die *die)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		if (fsp_grow((void **)&cu->fns, &cu->cap, cu->nr + 1, sizeof(*cu->fns)))
			return -ENOMEM;
		cu->fns[cu->nr++] = (struct sym_fn){start, end, dwarf_dieoffset(die), *die};
	}
	return 0;
}

/* The functions among the children of die (recursing into namespaces and
 * types, where C++ compilers may put them). */
static int collect(struct sym_cu *cu, Dwarf_Die *die, int depth, long *steps)
{
	Dwarf_Die child;
	int err = 0, more;

	if (depth > FN_MAX_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			err = add_ranges(cu, &child);
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			err = collect(cu, &child, depth + 1, steps);
			break;
		default:
			break;
		}
		more = ++*steps < FN_MAX_STEPS ? dwarf_siblingof(&child, &child) : 1;
	} while (!err && more == 0);
	return err;
}

static void cu_free(struct sym_cu *cu)
{
	if (cu)
		free(cu->fns);
	free(cu);
}

/* The function table of the unit cudie, built on first use. */
static struct sym_cu *cu_get(struct sym_module *m, Dwarf_Die *cudie)
{
	uint64_t key = (uint64_t)(uintptr_t)cudie->addr, idx;
	struct sym_cu *cu;
	long steps = 0;

	if (hashmap__find(&m->cu_map, key, 0, &idx))
		return m->cus[idx];
	if (fsp_grow((void **)&m->cus, &m->cap_cus, m->nr_cus + 1, sizeof(*m->cus)))
		return NULL;
	cu = calloc(1, sizeof(*cu));
	if (!cu || collect(cu, cudie, 0, &steps) ||
	    hashmap__find_or_insert(&m->cu_map, key, 0, m->nr_cus, NULL) < 0) {
		cu_free(cu);
		return NULL;
	}
	if (cu->nr)
		qsort(cu->fns, cu->nr, sizeof(*cu->fns), fn_cmp);
	m->cus[m->nr_cus++] = cu;
	return cu;
}

static const struct sym_fn *fn_at(const struct sym_cu *cu, Dwarf_Addr addr)
{
	size_t lo = 0, hi = cu->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->fns[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the closest-starting range containing addr (nested functions) */
	for (size_t i = lo; i > 0 && lo - i < 8; i--)
		if (addr < cu->fns[i - 1].hi)
			return &cu->fns[i - 1];
	return NULL;
}

static int chain_push(struct sym_module *m, const Dwarf_Die *die)
{
	if (fsp_grow((void **)&m->chain, &m->cap_chain, m->nr_chain + 1, sizeof(*m->chain)))
		return -ENOMEM;
	m->chain[m->nr_chain++] = *die;
	return 0;
}

/* The child of die whose code contains addr, through lexical blocks. */
static int child_at(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Die *out, long *steps)
{
	int more;

	if (dwarf_child(die, out) != 0)
		return 0;
	do {
		switch (dwarf_tag(out)) {
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_subprogram:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(out, addr) == 1)
				return 1;
			break;
		default:
			break;
		}
		more = ++*steps < FN_MAX_STEPS ? dwarf_siblingof(out, out) : 1;
	} while (more == 0);
	return 0;
}

int sym_funcs__chain(struct sym_module *m, Dwarf_Die *cudie, Dwarf_Addr addr)
{
	struct sym_cu *cu = cu_get(m, cudie);
	const struct sym_fn *fn;
	Dwarf_Die cur, next;
	long steps = 0;
	int depth = 0, err;

	m->nr_chain = 0;
	if (!cu)
		return -ENOMEM;
	fn = fn_at(cu, addr);
	if (!fn)
		return 0;
	cur = fn->die;
	err = chain_push(m, &cur);
	while (!err && depth++ < FN_MAX_DEPTH && child_at(&cur, addr, &next, &steps)) {
		int tag = dwarf_tag(&next);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			err = chain_push(m, &next);
		cur = next;
	}
	if (err)
		return err;
	/* innermost first */
	for (size_t i = 0; i < m->nr_chain / 2; i++) {
		Dwarf_Die t = m->chain[i];

		m->chain[i] = m->chain[m->nr_chain - 1 - i];
		m->chain[m->nr_chain - 1 - i] = t;
	}
	return (int)m->nr_chain;
}

void sym_funcs__free(struct sym_module *m)
{
	for (size_t i = 0; i < m->nr_cus; i++)
		cu_free(m->cus[i]);
	free(m->cus);
	m->cus = NULL;
	m->nr_cus = m->cap_cus = 0;
	hashmap__fini(&m->cu_map);
	free(m->chain);
	m->chain = NULL;
	m->nr_chain = m->cap_chain = 0;
}
