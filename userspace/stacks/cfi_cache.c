// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cfi_cache.c - the unwinding of a record by cached CFI rules (x86-64).
 *
 * libdw's dwfl_getthread_frames finds each frame's FDE, interprets its CFI
 * program and allocates a frame state, for every frame of every record. The
 * rules that step one frame (the CFA as a register plus an offset; each
 * register undefined, unchanged, saved at CFA + N or equal to CFA + N)
 * depend on the code address only: they are asked of libdw once per address
 * and kept, direct-mapped, by (the module's build-id, the address in its ELF
 * file), so that processes of one binary (PostgreSQL's backends) share them.
 * A record is then unwound here, frame by frame, with the same reads of its
 * copied stack (uproc__read: memory_read's) and the same rules as libdw
 * applies them (libdwfl/frame_unwind.c), so that it gives the same frames.
 * A frame whose rules are not of those forms (a DWARF expression: PLT
 * entries, stack realignment; a signal frame; a register saved in another;
 * code without CFI, which libdw unwinds by frame pointers; code in no
 * module) leaves the whole record to libdw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "unwind_int.h"
#include "util.h"

#define NREGS FSP_NATIVE_NREGS
#define REG_SP 7
#define REG_RA 16 /* the return address column (rip) */

/* Entries of the cache (a power of two), 64 bytes each: 2 MiB. */
#define CFI_SLOTS (1u << 15)

enum reg_rule {
	RULE_UNDEF, /* unknown in the caller */
	RULE_SAME, /* the caller's value is this frame's */
	RULE_AT, /* saved at CFA + off */
	RULE_VAL, /* equal to CFA + off */
};

enum { KIND_EMPTY, KIND_RULES, KIND_LIBDW };

/* One cache line: the table is larger than the caches, and a lookup's one
 * miss is most of what a frame costs. */
struct cfi_entry {
	uint64_t module; /* the module's key (module_key) */
	uint64_t addr; /* the address in its ELF file */
	uint64_t rules; /* enum reg_rule of register r at bits 2r, 2r + 1 */
	int32_t cfa_off;
	uint8_t kind;
	uint8_t cfa_reg;
	int16_t off[NREGS]; /* RULE_AT, RULE_VAL: N */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct cfi_entry) == 64, "an entry is a cache line");

static inline unsigned int rule_of(const struct cfi_entry *e, int r)
{
	return (e->rules >> (2 * r)) & 3;
}

struct cfi_cache {
	struct cfi_entry *slots;
	/* the last module looked up: its key and load bias, valid while the
	 * reading of the mappings it is of (a unique uproc__gen) lasts */
	Dwfl_Module *last_mod;
	uint64_t last_gen, last_key, last_bias;
	bool check; /* FSP_UNWIND_CHECK: libdw too, and compare */
	struct cfi_stats stats;
};

struct cfi_cache *cfi_cache__new(void)
{
	struct cfi_cache *c = calloc(1, sizeof(*c));
	const char *check = getenv("FSP_UNWIND_CHECK");
	const char *off = getenv("FSP_CFI_CACHE");

	if (!c)
		return NULL;
	if (off && !strcmp(off, "off"))
		return c; /* no slots: every record to libdw */
	c->slots = aligned_alloc(64, CFI_SLOTS * sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	memset(c->slots, 0, CFI_SLOTS * sizeof(*c->slots));
	c->check = check && *check && strcmp(check, "0");
	c->stats.slots = CFI_SLOTS;
	return c;
}

void cfi_cache__free(struct cfi_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

bool cfi_cache__checking(const struct cfi_cache *c)
{
	return c && c->check;
}

const struct cfi_stats *cfi_cache__stats(const struct cfi_cache *c)
{
	return c ? &c->stats : NULL;
}

/* ---- rules from libdw ---------------------------------------------------- */

/* A register's rule as dwarf_frame_register gives it: no expression for
 * undefined (ops_mem) and same value (NULL); [DW_OP_call_frame_cfa,
 * DW_OP_plus_uconst N] for saved at CFA + N (the expression is a location:
 * libdw reads it), DW_OP_stack_value after it for the value CFA + N. Any
 * other expression: false. */
static bool reg_rule(Dwarf_Frame *f, int reg, unsigned int *rule, int16_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n, i = 1;
	int64_t v = 0;

	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return false;
	*off = 0;
	if (!n) {
		*rule = ops ? RULE_UNDEF : RULE_SAME;
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (i < n && ops[i].atom == DW_OP_plus_uconst)
		v = (int64_t)ops[i++].number;
	*rule = RULE_AT;
	if (i < n && ops[i].atom == DW_OP_stack_value) {
		*rule = RULE_VAL;
		i++;
	}
	if (i != n || v != (int16_t)v)
		return false; /* not kept in an entry: libdw's */
	*off = (int16_t)v;
	return true;
}

/* The rules of FDE frame f into e: false when they are not all simple. */
static bool frame_rules(Dwarf_Frame *f, struct cfi_entry *e)
{
	Dwarf_Op *ops;
	size_t n;
	bool signal;

	if (dwarf_frame_info(f, NULL, NULL, &signal) != REG_RA || signal)
		return false;
	if (dwarf_frame_cfa(f, &ops, &n) || n != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= NREGS || (int64_t)ops[0].number2 != (int32_t)ops[0].number2)
		return false;
	e->cfa_reg = ops[0].number;
	e->cfa_off = (int32_t)ops[0].number2;
	for (int r = 0; r < NREGS; r++) {
		unsigned int rule;

		if (!reg_rule(f, r, &rule, &e->off[r]))
			return false;
		e->rules |= (uint64_t)rule << (2 * r);
	}
	return true;
}

/* The rules at ELF address addr of mod from its CFI, as libdw looks for
 * them: .eh_frame first, then .debug_frame. */
static void compute_rules(Dwfl_Module *mod, uint64_t addr, struct cfi_entry *e)
{
	Dwarf_CFI *cfi[2];
	Dwarf_Addr bias[2];
	GElf_Addr elf_bias;

	e->kind = KIND_LIBDW;
	if (!dwfl_module_getelf(mod, &elf_bias))
		return;
	cfi[0] = dwfl_module_eh_cfi(mod, &bias[0]);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *f = NULL;
		bool ok;

		if (i == 1)
			cfi[1] = dwfl_module_dwarf_cfi(mod, &bias[1]);
		if (!cfi[i] || dwarf_cfi_addrframe(cfi[i], addr + elf_bias - bias[i], &f))
			continue;
		ok = frame_rules(f, e);
		free(f);
		if (ok)
			e->kind = KIND_RULES;
		return; /* the first CFI that has the address rules, as libdw */
	}
}

/* A module's key: its build-id (shared by the processes of a binary), or
 * without one, the module of this reading of the mappings. */
static uint64_t module_key(struct uproc *p, Dwfl_Module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);

	if (n > 0)
		return fsp_fnv1a(bits, n, FSP_FNV_OFFSET) | 1;
	return fsp_fnv1a(&mod, sizeof(mod), fsp_fnv1a(&p->gen, sizeof(p->gen), FSP_FNV_OFFSET)) &
	       ~1ULL;
}

static bool entry_is(const struct cfi_entry *e, uint64_t key, uint64_t addr)
{
	return e->kind != KIND_EMPTY && e->module == key && e->addr == addr;
}

/* The rules for code address pc of p, NULL when libdw must unwind it. Two
 * ways per set: an address found in the second moves to the first, a new one
 * goes to the first, the first's to the second (the second's evicted). */
static const struct cfi_entry *rules_at(struct cfi_cache *c, struct uproc *p, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
	struct cfi_entry *e, tmp;
	GElf_Addr bias;
	uint64_t key, addr, h;

	if (!mod)
		return NULL;
	if (mod != c->last_mod || p->gen != c->last_gen) {
		if (!dwfl_module_getelf(mod, &bias))
			return NULL;
		c->last_mod = mod;
		c->last_gen = p->gen;
		c->last_key = module_key(p, mod);
		c->last_bias = bias;
	}
	key = c->last_key;
	addr = pc - c->last_bias;
	h = (key * 0x9e3779b97f4a7c15ULL) ^ (addr * 0xff51afd7ed558ccdULL);
	e = &c->slots[(h >> 32) & (CFI_SLOTS - 2)];
	if (!entry_is(&e[0], key, addr)) {
		if (entry_is(&e[1], key, addr)) {
			tmp = e[1];
		} else {
			if (e[1].kind != KIND_EMPTY)
				c->stats.evictions++;
			memset(&tmp, 0, sizeof(tmp));
			tmp.module = key;
			tmp.addr = addr;
			compute_rules(mod, addr, &tmp);
			c->stats.computed++;
		}
		e[1] = e[0];
		e[0] = tmp;
	}
	return e->kind == KIND_RULES ? e : NULL;
}

/* ---- the unwinding ---------------------------------------------------------- */

/* One frame state: the registers libdw would know. */
struct ustate {
	uint64_t regs[NREGS];
	uint32_t set; /* bit r: regs[r] known */
};

/* The caller's state by rules e from s. false: libdw must do it (the CFA's
 * register is not known). */
static bool step(struct uproc *p, const struct cfi_entry *e, const struct ustate *s,
		 struct ustate *out)
{
	uint64_t cfa, v;

	if (!(s->set & (1u << e->cfa_reg)))
		return false;
	cfa = s->regs[e->cfa_reg] + (int64_t)e->cfa_off;
	out->set = 0;
	for (int r = 0; r < NREGS; r++) {
		uint64_t a = cfa + (int64_t)e->off[r];

		switch (rule_of(e, r)) {
		case RULE_SAME:
			if (!(s->set & (1u << r)))
				continue;
			v = s->regs[r];
			break;
		case RULE_AT:
			if (!uproc__read(p, a, &v))
				continue;
			break;
		case RULE_VAL:
			v = a;
			break;
		default:
			continue;
		}
		out->regs[r] = v;
		out->set |= 1u << r;
	}
	return true;
}

bool cfi_cache__unwind(struct cfi_cache *c, struct uproc *p, bool *complete)
{
	const struct fsp_native_rec *rec = p->rec;
	struct ustate s = {.set = (1u << NREGS) - 1}, next;

	if (!c || !c->slots)
		return false;
	memcpy(s.regs, rec->regs, sizeof(s.regs));
	for (bool initial = true;; initial = false) {
		uint64_t pc = s.regs[REG_RA];
		const struct cfi_entry *e;

		if (p->n >= p->max) {
			*complete = false; /* the depth limit */
			break;
		}
		/* a return address is after its call: the call's rules */
		e = rules_at(c, p, initial ? pc : pc - 1);
		if (!e || !step(p, e, &s, &next)) {
			c->stats.fallbacks++;
			return false;
		}
		p->pcs[p->n] = pc;
		p->act[p->n] = initial;
		p->sps[p->n] = (s.set & (1u << REG_SP)) ? s.regs[REG_SP] : 0;
		p->n++;
		/* The return address undefined (the outermost frame), zero, or
		 * unreadable (past the copy: then truncated, not complete) ends
		 * the walk. */
		if (rule_of(e, REG_RA) == RULE_UNDEF || !(next.set & (1u << REG_RA)) ||
		    !next.regs[REG_RA]) {
			*complete = !p->past_copy;
			break;
		}
		s = next;
	}
	c->stats.records++;
	return true;
}

/* ---- the self-check ------------------------------------------------------------ */

void cfi_cache__compare(struct cfi_cache *c, const struct cfi_result *fast, const struct uproc *p,
			bool complete)
{
	bool same = fast->n == p->n && fast->complete == complete;

	for (size_t i = 0; same && i < p->n; i++)
		same = fast->pcs[i] == p->pcs[i] && fast->sps[i] == p->sps[i] &&
		       fast->act[i] == p->act[i];
	c->stats.checked++;
	if (same)
		return;
	c->stats.differences++;
	if (c->stats.differences <= 5) {
		fprintf(stderr,
			"fsp-bpf: unwind check: pid %d tid %u pc %#llx: cached rules %zu frames%s, "
			"libdw %zu%s\n",
			p->pid, p->rec->tid, (unsigned long long)p->rec->regs[REG_RA], fast->n,
			fast->complete ? " complete" : "", p->n, complete ? " complete" : "");
		for (size_t i = 0; i < fast->n || i < p->n; i++)
			fprintf(stderr, "  #%zu %#llx/%#llx %d | %#llx/%#llx %d\n", i,
				i < fast->n ? (unsigned long long)fast->pcs[i] : 0ULL,
				i < fast->n ? (unsigned long long)fast->sps[i] : 0ULL,
				i < fast->n && fast->act[i],
				i < p->n ? (unsigned long long)p->pcs[i] : 0ULL,
				i < p->n ? (unsigned long long)p->sps[i] : 0ULL,
				i < p->n && p->act[i]);
	}
}
