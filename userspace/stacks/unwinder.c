// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwinder.c - the unwinder's table of processes: each pid's unwinding state
 * (unwind.c), replaced when the process execs, forgotten when it exits.
 */
#include <errno.h>
#include <stdlib.h>

#include "unwind_int.h"
#include "util.h"

struct unwinder *unwinder__new(void)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->by_pid = (struct hashmap)HASHMAP_INIT;
	u->cfi = cfi_cache__new(); /* without it, libdw alone */
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr; i++)
		uproc__free(u->slots[i].p);
	free(u->slots);
	for (size_t i = 0; i < u->nr_vdso; i++)
		free(u->vdso[i].bytes);
	hashmap__fini(&u->by_pid);
	cfi_cache__free(u->cfi);
	free(u);
}

const struct cfi_stats *unwinder__cfi_stats(const struct unwinder *u)
{
	return cfi_cache__stats(u->cfi);
}

/* pid's slot, added when new. NULL when out of memory. */
static struct uslot *slot_of(struct unwinder *u, pid_t pid)
{
	uint64_t i;

	if (hashmap__find(&u->by_pid, (uint64_t)pid, 0, &i))
		return &u->slots[i];
	if (fsp_grow((void **)&u->slots, &u->cap, u->nr + 1, sizeof(*u->slots)) ||
	    hashmap__find_or_insert(&u->by_pid, (uint64_t)pid, 0, u->nr, NULL) < 0)
		return NULL;
	u->slots[u->nr] = (struct uslot){NULL, 0};
	return &u->slots[u->nr++];
}

struct uproc *unwinder__proc(struct unwinder *u, pid_t pid, uint64_t exec_id)
{
	struct uslot *sl = slot_of(u, pid);

	if (!sl) {
		errno = ENOMEM;
		return NULL;
	}
	if (exec_id < sl->floor) {
		errno = ESTALE;
		return NULL;
	}
	/* A newer image (its exec not reported yet), or a new process. */
	if (sl->p && sl->p->exec_id != exec_id) {
		uproc__free(sl->p);
		sl->p = NULL;
	}
	if (!sl->p) {
		sl->p = uproc__new(u, pid);
		if (sl->p)
			sl->p->exec_id = exec_id;
	}
	return sl->p;
}

struct uproc *unwinder__find(struct unwinder *u, pid_t pid)
{
	struct uslot *sl = slot_of(u, pid);

	if (!sl) {
		errno = ENOMEM;
		return NULL;
	}
	return sl->p ? sl->p : unwinder__proc(u, pid, sl->floor);
}

void unwinder__exec(struct unwinder *u, pid_t pid, uint64_t exec_id)
{
	struct uslot *sl = slot_of(u, pid);

	if (!sl)
		return;
	if (sl->p && sl->p->exec_id < exec_id) {
		uproc__free(sl->p);
		sl->p = NULL;
	}
	if (exec_id > sl->floor)
		sl->floor = exec_id;
}

void unwinder__forget(struct unwinder *u, pid_t pid)
{
	uint64_t i;

	if (hashmap__find(&u->by_pid, (uint64_t)pid, 0, &i)) {
		uproc__free(u->slots[i].p);
		u->slots[i] = (struct uslot){NULL, 0};
	}
}
