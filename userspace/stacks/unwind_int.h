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

#endif /* FSP_UNWIND_INT_H */
