/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * unwind_int.h - the unwinder's internals, shared by unwind.c (a process's
 * mappings, modules and the unwinding of a record) and unwinder.c (the
 * table of processes).
 */
#ifndef FSP_UNWIND_INT_H
#define FSP_UNWIND_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <elfutils/libdwfl.h>

#include "hashmap.h"
#include "procmaps.h"
#include "stacks_int.h"

/* Executable memory mapped from no file (JIT code, the vDSO, the uprobes'
 * out-of-line steps): no reason to read the mappings again for an address
 * in it. */
struct anon_range {
	uint64_t start, end;
	const char *name; /* vdso_name, uprobes_name (code named by its
			     offset), NULL: JIT code */
};

/* A vDSO image as a process had it mapped. The kernel maps one image into
 * every process of an ABI, so the unwinder keeps each distinct one once. */
struct vdso_image {
	char *bytes;
	size_t size;
};

/* The page where the kernel single-steps a probed instruction it does not
 * emulate (a sample can land in it). */
#define VDSO_MAX_SIZE (64 << 10)
#define VDSO_MAX_IMAGES 4

struct uproc {
	struct unwinder *u;
	pid_t pid;
	uint64_t exec_id; /* the image whose mappings these are */
	uint64_t gen; /* the reading of the mappings the Dwfl holds: unique in
			 the unwinder (uproc__gen) */
	Dwfl *dwfl;
	bool attached;
	char root[32]; /* "/proc/PID/root" or "" */
	uint64_t refreshed_ns; /* when the mappings were read */
	unsigned int misses; /* readings in a row that explained nothing */
	struct anon_range *anon;
	size_t nr_anon, cap_anon;
	const struct vdso_image *vdso; /* NULL: not read (yet) */
	struct mapping *maps; /* the file mappings, as of the last reading */
	size_t nr_maps;
	/* the record being unwound */
	const struct fsp_native_rec *rec;
	bool past_copy; /* libdw asked for stack beyond the record's copy */
	/* frames of the unwinding under way */
	uint64_t *pcs;
	uint64_t *sps; /* each frame's stack pointer (rsp), 0: not known */
	bool *act;
	size_t n, max;
};

/* A pid's state: the current image's, and the oldest image records may
 * still be unwound for (the last exec reported). */
struct uslot {
	struct uproc *p; /* NULL: forgotten, or none yet */
	uint64_t floor;
};

struct unwinder {
	struct cfi_cache *cfi; /* NULL: none (no memory), libdw alone */
	struct hashmap by_pid; /* pid -> index in slots */
	struct uslot *slots;
	size_t nr, cap;
	struct vdso_image vdso[VDSO_MAX_IMAGES];
	size_t nr_vdso;
	uint64_t gen; /* the last uproc.gen given */
};

/* A process's unwinding state, its mappings read (NULL, errno set: none);
 * uproc__free is NULL-safe. */
struct uproc *uproc__new(struct unwinder *u, pid_t pid);
void uproc__free(struct uproc *p);

/* A word of the record being unwound (p->rec), as libdw reads it: its
 * copy of the stack, the red zone, a mapped file's bytes; a read past the
 * copy sets p->past_copy. false: not readable. */
bool uproc__read(struct uproc *p, uint64_t addr, uint64_t *out);

/* ---- cfi_cache.c: unwinding by cached CFI rules ---- */

struct cfi_cache;

/* One record's frames as the cached rules gave them (the self-check). */
struct cfi_result {
	uint64_t pcs[STACKS_MAX_USER], sps[STACKS_MAX_USER];
	bool act[STACKS_MAX_USER];
	size_t n;
	bool complete;
};

/* The cache (bounded: CFI_SLOTS entries), NULL when out of memory;
 * FSP_CFI_CACHE=off makes one that unwinds nothing, FSP_UNWIND_CHECK=1 one
 * whose records libdw unwinds too (cfi_cache__checking). */
struct cfi_cache *cfi_cache__new(void);
void cfi_cache__free(struct cfi_cache *c); /* NULL-safe */
bool cfi_cache__checking(const struct cfi_cache *c);
const struct cfi_stats *cfi_cache__stats(const struct cfi_cache *c); /* NULL: none */
/* Unwinds p->rec into p->pcs, p->sps, p->act, p->n (set up by uproc__dwarf,
 * up to p->max frames), *complete as uproc__dwarf's. false: a frame's rules
 * are not simple (or not known): libdw must unwind the record. */
bool cfi_cache__unwind(struct cfi_cache *c, struct uproc *p, bool *complete);
/* Counts whether libdw's unwinding of p->rec (in p, complete) equals the
 * cached rules' (fast); the first differences go to stderr. */
void cfi_cache__compare(struct cfi_cache *c, const struct cfi_result *fast, const struct uproc *p,
			bool complete);

#endif /* FSP_UNWIND_INT_H */
