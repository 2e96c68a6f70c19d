/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Native call stacks in a profile (record --stacks): the binaries (modules)
 * the samples ran in, the code locations (a module and an address in it, with
 * the functions and source lines symbolization found there, inlined frames
 * included), the distinct native stacks (locations, leaf first) and how many
 * samples of each core sample (pid, tid, mark stack key) had each native
 * stack. Pure C. Native stacks never change attribution: the core samples of
 * profile.h stay the only thing features are charged from.
 *
 * The contract between the recorder (userspace/, which unwinds and
 * symbolizes), the profile file (analysis/io/) and the views (analysis/render/).
 * (Function features, funcfeat_apply.h, are the exception: they make each
 * native sample's merged stack a mark stack, and move its core samples there.)
 */
#ifndef FSP_ANALYSIS_NATIVE_H
#define FSP_ANALYSIS_NATIVE_H

#include <stddef.h>
#include <stdint.h>

struct profile;

/* ---- modules: the files code was mapped from ---------------------------------- */

/* module index of code outside any file (anonymous memory: JIT code) */
#define PROFILE_NO_MODULE UINT32_MAX

enum profile_module_kind {
	PROFILE_MODULE_USER = 0, /* an ELF file mapped by the process */
	PROFILE_MODULE_KERNEL = 1, /* the kernel ("[kernel.kallsyms]") or a kernel module */
};

struct profile_module {
	int kind; /* enum profile_module_kind */
	const char *path; /* as mapped (in the target's mount namespace); never NULL */
	const char *build_id; /* lower-case hex of the GNU build-id; NULL: none / unknown */
};

/* Adds (or finds: same kind, path and build-id) a module; strings interned.
 * Returns its index (>= 0) or -errno. Modules are shared by all sources. */
int profile__add_module(struct profile *p, const struct profile_module *m);
size_t profile__nr_modules(const struct profile *p);
int profile__module(const struct profile *p, size_t i, struct profile_module *out);

/* ---- locations: one code address, symbolized --------------------------------- */

/* One function at a location: lines[0] of a location is the innermost
 * (inlined-into-nothing-below-it, i.e. the code that ran), the last the
 * outermost real function, as pprof's Location.line orders them. */
struct profile_line {
	const char *function; /* NULL: unknown (no symbol) */
	const char *file; /* NULL: no debug information */
	uint32_t line; /* 0: unknown */
};

enum profile_location_flags {
	/* lines came from DWARF (file:line, inlined frames); otherwise from the
	 * symbol table (.symtab / .dynsym) or nothing */
	PROFILE_LOC_DEBUGINFO = 1,
	/* code with no file and no symbol: JIT code or anonymous memory */
	PROFILE_LOC_JIT = 2,
};

struct profile_location {
	uint32_t module; /* index, or PROFILE_NO_MODULE */
	/* the address as the module's ELF file sees it (its own virtual
	 * address, i.e. runtime address - load bias: what symbolization and
	 * `addr2line -e module` take); the runtime address when module is
	 * PROFILE_NO_MODULE */
	uint64_t address;
	const struct profile_line *lines; /* NULL when nr_lines is 0 (not symbolized) */
	size_t nr_lines;
	unsigned int flags; /* enum profile_location_flags */
};

/* Adds (or finds, by module and address) a location; when found, lines and
 * flags replace the old ones if the new location has lines (a later
 * symbolization wins). Strings interned. Returns the index or -errno. */
int profile__add_location(struct profile *p, const struct profile_location *loc);
size_t profile__nr_locations(const struct profile *p);
int profile__location(const struct profile *p, size_t i, struct profile_location *out);
/* Replaces the lines of location i (re-symbolization, e.g. report --binaries). */
int profile__set_location_lines(struct profile *p, size_t i, const struct profile_line *lines,
				size_t nr_lines, unsigned int flags);

/* ---- native stacks ------------------------------------------------------------ */

enum profile_native_method {
	PROFILE_UNWIND_FP = 1, /* frame pointers (bpf_get_stack) */
	PROFILE_UNWIND_DWARF = 2, /* .eh_frame / .debug_frame over a copy of the user stack */
};

enum profile_native_flags {
	/* the unwinder stopped before the thread's outermost frame (stack
	 * copy too short, no CFI for a frame, depth limit): the root is missing */
	PROFILE_NATIVE_TRUNCATED = 1,
};

/* mark_pos[j] of a mark whose place among the native frames is not known:
 * below every native frame. */
#define PROFILE_MARK_BELOW UINT16_MAX

struct profile_native_stack {
	const uint32_t *locs; /* location indexes, leaf first; kernel frames (if any) first */
	size_t depth;
	size_t nr_kernel; /* how many of the first frames are kernel frames */
	int method; /* enum profile_native_method of the user part */
	unsigned int flags; /* enum profile_native_flags */
	/*
	 * Where the frames of the sample's mark stack were entered, bottom
	 * mark first: mark_pos[j] is the index in locs of the native frame
	 * whose function entered mark j (the frame whose stack extent holds
	 * the mark's stack pointer), PROFILE_MARK_BELOW when not known; marks
	 * j >= nr_marks are not known either. Function features
	 * (funcfeat_apply.h) place each mark above its frame. NULL/0: none.
	 */
	const uint16_t *mark_pos;
	size_t nr_marks;
};

/* Adds (or finds: equal locs, nr_kernel, method, flags and marks) a native stack.
 * Returns its index or -errno (-EINVAL: a location index out of range). */
int profile__add_native_stack(struct profile *p, const struct profile_native_stack *s);
size_t profile__nr_native_stacks(const struct profile *p);
int profile__native_stack(const struct profile *p, size_t i, struct profile_native_stack *out);

/* ---- native samples: core sample x native stack -> count ------------------------ */

/*
 * Adds count samples of thread (pid, tid) of the current source (see
 * profile__use_source) taken with mark stack `key` and native stack `stack`.
 * Does NOT add to the core samples (profile__add_samples counts those, once):
 * a sample with a native stack is in both, a sample whose stack could not be
 * taken only in the core samples. Repeated calls accumulate. 0 or -errno.
 */
int profile__add_native_samples(struct profile *p, uint32_t pid, uint32_t tid, uint64_t key,
				size_t stack, uint64_t count);

struct profile_native_sample {
	uint32_t source;
	uint32_t pid;
	uint32_t tid;
	uint64_t key; /* the mark stack, as in struct profile_sample */
	size_t mark_stack; /* profile__stack id of key, PROFILE_NO_STACK if none */
	size_t stack; /* profile__native_stack index */
	uint64_t count;
};

/* In order of first addition. */
size_t profile__nr_native_samples(const struct profile *p);
int profile__native_sample(const struct profile *p, size_t i, struct profile_native_sample *out);

#endif /* FSP_ANALYSIS_NATIVE_H */
