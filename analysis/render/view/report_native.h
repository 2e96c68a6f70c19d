/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: what the renderers share to show native stacks (native.h) below
 * the features: the functions of the profile's locations (inlined frames
 * included), each native stack as a list of functions, leaf first, and the
 * part of each core sample that has no native stack.
 *
 * A function is the innermost line of a location (lines[0]) and each line
 * outside it (the functions it was inlined into). A line without a function
 * name is named after its module and address ("libc.so.6+0x1a2b"), code of
 * no file and no symbol (PROFILE_LOC_JIT) is "[jit]", an address outside
 * any module and any symbol "[unknown]". Kernel functions are labeled
 * "name_[k]", as flame graph tools name them.
 *
 * A native stack annotates a core sample, it is never a second sample: the
 * views count the core samples, each once, either in a join (below) with
 * its native stack or in the sample's rest without one. A native sample is
 * joined to the core samples of its thread and stack family
 * (stack_family.h: the recorder names the family's stack without payloads,
 * whichever payload vector the core sample went to), filling them in
 * sample order; so the joins and rests of a core sample sum to its count.
 *
 * Attribution is not done here: a joined native sample is charged exactly
 * as its core sample (its mark_stack, charges.h).
 */
#ifndef FSP_ANALYSIS_REPORT_NATIVE_H
#define FSP_ANALYSIS_REPORT_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "native.h"
#include "profile.h"
#include "report_view.h"
#include "strtab.h"

/* The label of JIT code / of an address of no module and no symbol. */
#define NATIVE_JIT "[jit]"
#define NATIVE_UNKNOWN "[unknown]"
/* The suffix of kernel functions' labels. */
#define NATIVE_KERNEL_SUFFIX "_[k]"

struct native_func {
	const char *name; /* the function's name, or the fallback label */
	const char *label; /* what views show: name, "name_[k]" for the kernel */
	const char *file; /* source file of its first line seen, NULL if none */
	uint32_t module; /* module index, PROFILE_NO_MODULE */
	bool kernel;
	bool symbolized; /* named by a symbol or debug information, not a fallback */
};

struct native_view {
	const struct profile *p;
	struct strtab *tab; /* labels made here */
	struct native_func *funcs;
	size_t nr_funcs, cap_funcs;
	struct hashmap func_map; /* (label pointer, module) -> function */
	size_t nr_locs;
	size_t *loc_first; /* nr_locs + 1 offsets into loc_funcs */
	uint32_t *loc_funcs; /* per location: its functions, innermost first */
	size_t nr_stacks;
	size_t *stack_first; /* nr_stacks + 1 offsets into stack_funcs */
	uint32_t *stack_funcs; /* per native stack: its functions, leaf first */
	size_t *distinct_first; /* nr_stacks + 1 offsets into distinct_funcs */
	uint32_t *distinct_funcs; /* per native stack: its functions, each once */
	/* per core sample (profile__sample index): its samples without a
	 * native stack (count less the native samples joined to it) */
	uint64_t *rest;
	size_t nr_samples;
	/* the native samples joined to the core samples they annotate
	 * (native_view__init): each names its core sample's thread, key and
	 * mark stack, so it is charged as that sample; in native sample order */
	struct profile_native_sample *joins;
	size_t nr_joins;
	/* native samples beyond their family's core samples (none in a profile
	 * the reader checked): no view counts them */
	uint64_t unjoined;
};

/* Whether p has native samples (record --stacks). */
static inline bool native_view__any(const struct profile *p)
{
	return profile__nr_native_samples(p) > 0;
}

/* The view of p's native stacks. 0 or -ENOMEM / -errno of the model. */
int native_view__init(struct native_view *v, const struct profile *p);
void native_view__fini(struct native_view *v); /* NULL-safe, idempotent */

/* Native stack `stack`'s functions, leaf first (*n of them; NULL when none). */
const uint32_t *native_view__stack(const struct native_view *v, size_t stack, size_t *n);
/* Native stack `stack`'s functions, each once (recursion counted once). */
const uint32_t *native_view__distinct(const struct native_view *v, size_t stack, size_t *n);
/* Location `loc`'s functions, innermost first. */
const uint32_t *native_view__loc(const struct native_view *v, size_t loc, size_t *n);

/* The basename of module m's path ("[unknown]" when there is no such). */
const char *native_view__module_name(const struct native_view *v, uint32_t m);

/* ---- the functions of each feature and instance ---------------------------- */

/* The native samples of a feature (instance NULL) or of an instance. */
struct native_group {
	const char *feature; /* the profile's interned name */
	const char *instance; /* canonical (agg's table); NULL: the feature */
	uint64_t native; /* its samples with a native stack */
	size_t first, nr; /* its pairs: native_agg.pairs[first .. first + nr) */
};

/* A charged native sample: `count` samples of group `group` had stack
 * `stack` (a group has as many pairs of one stack as native samples). */
struct native_pair {
	uint32_t group;
	uint32_t stack;
	uint64_t count;
};

/* A function of a group: samples of the group whose leaf it is (self) and
 * whose stack has it anywhere (total: once per stack, recursion or not). */
struct native_stat {
	size_t group;
	uint32_t func;
	uint64_t self, total;
};

struct native_agg {
	const struct native_view *v;
	struct strtab *tab; /* instance names */
	struct native_group *groups;
	size_t nr_groups, cap_groups;
	struct hashmap group_map; /* (feature, canonical instance or 0) -> group */
	struct hashmap raw_map; /* (feature, instance as charged) -> group */
	uint32_t *slot_groups; /* per charge of charges.h: its 2 groups + 1, 0: unknown */
	struct native_pair *pairs; /* by group once made */
	size_t nr_pairs, cap_pairs;
	/* native_agg__stats' rows and its per-function scratch */
	struct native_stat *stats;
	uint64_t *self, *total; /* per function; zero between calls */
	uint32_t *touched;
	/* over all native samples of the selection, charged or not */
	uint64_t with_stack, truncated, fp, dwarf;
};

/*
 * The functions of every (feature, instance) and feature that feat selects,
 * each native sample charged as its core sample is (ch: the charges of v's
 * profile). 0 or -errno.
 */
int native_agg__init(struct native_agg *g, const struct native_view *v, const struct charges *ch,
		     const struct report_features *feat);
void native_agg__fini(struct native_agg *g); /* NULL-safe, idempotent */
/* The group of feature (an interned name of v's profile) and instance
 * (NULL: the feature's group); NULL when it has no native sample. */
const struct native_group *native_agg__group(struct native_agg *g, const char *feature,
					     const char *instance);
/* The functions of group gr that are the leaf of a sample (self > 0), the
 * `top` hottest first (descending self, then total, then label), the
 * others after them in no order (*n rows, valid until the next call).
 * Linear in its stacks' depth. */
struct native_stat *native_agg__stats(struct native_agg *g, const struct native_group *gr,
				      size_t top, size_t *n);

#endif /* FSP_ANALYSIS_REPORT_NATIVE_H */
